package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/runtime"
)

// fakeSysfsBattery writes a discharging battery drawing 0.8 W (200 mA at
// 4 V) with a 6000 mAh design capacity; it returns the sysfs root and the
// current_now path.
func fakeSysfsBattery(t *testing.T) (root, current string) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, "class", "power_supply", "battery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"type": "Battery", "status": "Discharging", "current_now": "-200000",
		"voltage_now": "4000000", "charge_full_design": "6000000", "voltage_min_design": "3400000", "voltage_max_design": "4400000"} {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, filepath.Join(dir, "current_now")
}

func setFile(t *testing.T, path, v string) {
	if err := os.WriteFile(path+".tmp", []byte(v+"\n"), 0o644); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Error(err)
	}
}

func TestEnergyCommand(t *testing.T) {
	root, current := fakeSysfsBattery(t)
	io, _, out, errOut := TestStreams()
	var runs [][]string
	// The workload draws 6 W (1.5 A at 4 V) for 30 ms a run.
	fakeExec := func(_ context.Context, argv []string) error {
		runs = append(runs, argv)
		setFile(t, current, "-1500000")
		time.Sleep(30 * time.Millisecond)
		setFile(t, current, "-200000")
		return nil
	}
	cmd := NewCmdEnergy(&Factory{IO: io}, func(o *EnergyOptions) error {
		o.Exec = fakeExec
		return energyRun(context.Background(), o)
	})
	cmd.SetArgs([]string{"--energy", "battery", "--sysfs", root, "--energy-interval", "5ms", "--inferences", "2", "--json",
		"--", "llm_bench", "-pg", "1024,128"})
	cmd.SetOut(io.Out)
	cmd.SetErr(io.ErrOut)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if len(runs) != 4 || strings.Join(runs[0], " ") != "llm_bench -pg 1024,128" {
		t.Errorf("runs %v, want 4 (a warm-up and 3 rounds)", runs)
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("output is not a bench report: %v\n%s", err, out)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Energy == nil {
		t.Fatalf("rows %+v", rep.Rows)
	}
	e := rep.Rows[0].Energy
	if len(e.Rounds) != 3 || e.Inferences != 2 || e.Battery == nil || e.BatteryPctPer100 == nil {
		t.Fatalf("energy %+v", e)
	}
	for i, r := range e.Rounds {
		if r.IdleWatts < 0.8-1e-9 || r.IdleWatts > 0.8+1e-9 {
			t.Errorf("round %d: idle %g W, want 0.8", i+1, r.IdleWatts)
		}
		// 5.2 W extra for about 30 ms (bounds: see package energy's tests)
		if r.IncrementJoules <= 0 || r.IncrementJoules > 5.2*r.RunSeconds+1e-9 {
			t.Errorf("round %d: increment %g J over %g s", i+1, r.IncrementJoules, r.RunSeconds)
		}
	}
	// 6000 mAh at the midpoint of 3.4 and 4.4 V
	if got := e.Battery.Joules; got < 6*3600*3.9-1e-6 || got > 6*3600*3.9+1e-6 {
		t.Errorf("battery %g J", got)
	}
}

func TestEnergyCommandErrors(t *testing.T) {
	root, _ := fakeSysfsBattery(t)
	charging := t.TempDir()
	dir := filepath.Join(charging, "class", "power_supply", "BAT0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"type": "Battery", "status": "Charging", "power_now": "1000000"} {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ args, want string }{
		{"--energy battery --sysfs " + root + " llm_bench", "put the command after --"},
		{"--sysfs " + root + " -- llm_bench", "--energy battery or --energy rapl is required"},
		{"--energy battery --rounds 2 --sysfs " + root + " -- llm_bench", "at least 3"},
		{"--energy rapl --sysfs " + root + " -- llm_bench", "energy source not available"},
		{"--energy battery --sysfs " + charging + " -- llm_bench", `status is "Charging"`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			io, _, _, _ := TestStreams()
			cmd := NewCmdEnergy(&Factory{IO: io}, func(o *EnergyOptions) error {
				o.Exec = func(context.Context, []string) error { t.Error("the command ran"); return nil }
				return energyRun(context.Background(), o)
			})
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Out)
			cmd.SetErr(io.ErrOut)
			if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestBenchEnergyFakeSysfs(t *testing.T) {
	root, _ := fakeSysfsBattery(t)
	io, _, out, errOut := TestStreams()
	opts := &BenchOptions{
		IO:      io,
		Runtime: RuntimeOptions{Name: "fake", Model: t.TempDir(), Threads: 1, Workers: 1},
		Config:  bench.Config{PG: []bench.PG{{Prompt: 64, Gen: 16}}, Reps: 3},
		Energy:  EnergyFlags{Kind: "battery", Root: root, Interval: 5 * time.Millisecond, BatteryMAh: 6000, BatteryV: 3.87},
		Probe:   staticProbe{},
		Open:    func(context.Context, bench.OpenRequest) (runtime.Runtime, error) { return &benchFake{}, nil },
	}
	if err := benchRun(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, want := range []string{"energy: battery", "J per inference", "83592 J (6000 mAh at 3.87 V (given))", "| pp64+tg16 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
