package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/runtime"
)

func TestBenchDeviceFlags(t *testing.T) {
	sys := t.TempDir()
	zone := filepath.Join(sys, "class/thermal/thermal_zone0")
	if err := os.MkdirAll(zone, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{"type": "cpu-thermal\n", "temp": "41000\n"} {
		if err := os.WriteFile(filepath.Join(zone, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := parseBench(t, "--runtime mnn --model m -p 64 -n 16 --depth 0,512,2048 --plot d.svg", "")
	if len(got.Config.Depths) != 3 || got.Config.Depths[2] != 2048 || got.Device.Plot != "d.svg" {
		t.Errorf("depths %v plot %q", got.Config.Depths, got.Device.Plot)
	}
	got = parseBench(t, "--runtime mnn --model m -p 8 --cooldown-to 40C --cooldown-zone cpu --cooldown-timeout 2m --sysfs "+sys, "")
	if c := got.Config.Cooldown; c == nil || c.TargetC != 40 || c.Zone != "cpu" || c.Timeout != 2*time.Minute || got.Config.Thermal == nil || got.Config.Thermal.Root != sys {
		t.Errorf("cooldown %+v thermal %+v", got.Config.Cooldown, got.Config.Thermal)
	}
	got = parseBench(t, "--runtime openai --base-url http://127.0.0.1:1/v1 --model m --prompts-from gsm8k --limit 3 --max-tokens 8", "")
	if got.Device.PromptsFrom != "gsm8k" || got.Config.Prompt != 0 || got.Config.Gen != 0 || got.Config.Reps != 1 || got.Device.Limit != 3 {
		t.Errorf("prompts: config %+v device %+v", got.Config, got.Device)
	}
	for args, want := range map[string]string{
		"--runtime mnn --model m --depth 0,-5":                                         "must not be negative",
		"--runtime mnn --model m --depth 512 --plot x.svg":                             "two depths or more",
		"--runtime mnn --model m --cooldown-to hot":                                    "--cooldown-to",
		"--runtime mnn --model m --cooldown-to 40C --sysfs " + sys + "x":               "no thermal zone",
		"--runtime mnn --model m --cooldown-to 40C --cooldown-zone gpu --sysfs " + sys: `"gpu"`,
		"--runtime mnn --model m --cooldown-zone cpu":                                  "needs --cooldown-to",
		"--runtime mnn --model m --limit 3":                                            "--limit applies to --prompts-from",
		"--runtime mnn --model m --prompts-from gsm8k --pg 8,8":                        "replaces -p, -n, --pg and --depth",
		"--runtime mnn --model m --prompts-from gsm8k --energy rapl":                   "does not measure energy",
		"--runtime openai --model m -p 8":                                              "no synthetic benchmarks",
	} {
		if got := parseBench(t, args, want); got != nil {
			t.Errorf("%s: parsed", args)
		}
	}
}

// TestBenchRunInterruptedWritesFinished: an interrupted depth sweep still
// writes the finished depths (report and plot), marked incomplete, and
// fails with the interrupt.
func TestBenchRunInterruptedWritesFinished(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	io, _, out, errOut := TestStreams()
	plot := filepath.Join(t.TempDir(), "depth.svg")
	opts := &BenchOptions{
		IO:      io,
		Runtime: RuntimeOptions{Name: "fake", Model: t.TempDir(), Threads: 1, Workers: 1},
		Config:  bench.Config{PG: []bench.PG{{Prompt: 64, Gen: 16}}, Depths: []int{0, 512, 2048}, Reps: 1},
		Device:  DeviceFlags{Plot: plot},
		JSON:    true,
		Probe:   staticProbe{},
		Open: func(_ context.Context, req bench.OpenRequest) (runtime.Runtime, error) {
			if req.Test.Depth == 2048 {
				cancel()
			}
			return &benchFake{}, nil
		},
	}
	err := benchRun(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(rep.Rows) != 2 || rep.Incomplete == nil || rep.Incomplete.Test != "pp64+tg16@d2048" || rep.Incomplete.Planned != 3 {
		t.Errorf("rows %d incomplete %+v", len(rep.Rows), rep.Incomplete)
	}
	svg, err := os.ReadFile(plot)
	if err != nil || !strings.Contains(string(svg), "INCOMPLETE") {
		t.Errorf("plot (err %v) not written or not marked", err)
	}
	if !strings.Contains(errOut.String(), "INCOMPLETE: stopped at test pp64+tg16@d2048, 2 of 3 tests measured") {
		t.Errorf("stderr: %s", errOut)
	}
}
