package energy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeFile writes a sysfs-like file atomically (a reader never sees it
// half written), creating its directory.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// fakeBattery writes a power_supply directory with the given files.
func fakeBattery(t testing.TB, root, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(root, "class", "power_supply", name)
	for k, v := range files {
		writeFile(t, filepath.Join(dir, k), v)
	}
	return dir
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.9g, want %.9g ± %.3g", what, got, want, tol)
	}
}

func TestCounterDelta(t *testing.T) {
	check := func(prev, cur, rng, want uint64) {
		t.Helper()
		if got := CounterDelta(prev, cur, rng); got != want {
			t.Errorf("CounterDelta(%d, %d, %d) = %d, want %d", prev, cur, rng, got, want)
		}
	}
	check(100, 250, 1000, 150)
	check(250, 250, 1000, 0)
	check(900, 100, 1000, 200) // wrapped: 100 to the end, 100 after
	check(262143328850, 5, 262143328850, 5)
}

func TestTraceJoules(t *testing.T) {
	power := Trace{Seconds: 3, Readings: []Reading{{At: 0, Watts: 1}, {At: 1, Watts: 3}, {At: 3, Watts: 3}}}
	// trapezoids: (1+3)/2*1 + 3*2
	near(t, "power joules", power.Joules(Description{}), 8, 1e-12)
	near(t, "max gap", power.MaxGap(), 2, 1e-12)

	d := Description{Counter: true, Ranges: []uint64{1000, 5000}}
	counter := Trace{Readings: []Reading{
		{At: 0, Counters: []uint64{900, 10}},
		{At: 0.1, Counters: []uint64{50, 20}},   // domain 0 wrapped: 150
		{At: 0.2, Counters: []uint64{60, 4990}}, // 10 and 4970
		{At: 0.3, Counters: []uint64{70, 30}},   // 10 and 40 (wrapped)
	}}
	near(t, "counter joules", counter.Joules(d), (150+10+4970+10+10+40)*1e-6, 1e-15)
	if got := (Trace{Readings: []Reading{{Watts: 5}}}).Joules(Description{}); got != 0 {
		t.Errorf("one reading integrates to %g, want 0", got)
	}
}

func TestNewRoundSubtractsIdle(t *testing.T) {
	idle := Trace{Seconds: 2, Readings: []Reading{{At: 0, Watts: 0.5}, {At: 2, Watts: 0.5}}}
	run := Trace{Seconds: 4, Readings: []Reading{{At: 0, Watts: 2}, {At: 1, Watts: 2}, {At: 4, Watts: 2}}}
	r := NewRound(Description{}, idle, run)
	near(t, "idle watts", r.IdleWatts, 0.5, 1e-12)
	near(t, "run joules", r.RunJoules, 8, 1e-12)
	near(t, "increment", r.IncrementJoules, 8-0.5*4, 1e-12)
	if r.Samples != 3 || r.MaxGapSeconds != 3 {
		t.Errorf("samples %d max gap %g, want 3 and 3", r.Samples, r.MaxGapSeconds)
	}
}

func TestSummarize(t *testing.T) {
	rounds := []Round{{IncrementJoules: 5.2}, {IncrementJoules: 5.6}, {IncrementJoules: 5.4}}
	// The release's figures: a 6000 mAh phone battery at 3.87 V holds
	// 83,592 J; 2.7 J per inference is 0.32 % per 100 inferences.
	capacity, err := RatedCapacity(6000, 3.87)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "capacity", capacity.Joules, 83592, 1e-6)
	res := Summarize(Description{Name: "battery"}, 0, 2, rounds, &capacity)
	near(t, "mean J/inference", res.JoulesPerInference.Mean, 2.7, 1e-12)
	near(t, "sd J/inference", res.JoulesPerInference.SD, 0.1, 1e-12)
	near(t, "battery % per 100", res.BatteryPctPer100.Mean, 100*270/83592.0, 1e-12)
	if res.IntervalMS != 100 || res.Inferences != 2 || len(res.Warnings) != 0 {
		t.Errorf("interval %g inferences %d warnings %v", res.IntervalMS, res.Inferences, res.Warnings)
	}
	neg := Summarize(Description{}, 0, 1, []Round{{IncrementJoules: -0.1}}, nil)
	if len(neg.Warnings) != 1 || neg.BatteryPctPer100 != nil {
		t.Errorf("negative increment: warnings %v battery %v", neg.Warnings, neg.BatteryPctPer100)
	}
	if _, err := RatedCapacity(0, 3.8); err == nil {
		t.Error("RatedCapacity accepted 0 mAh")
	}
}

func TestOpenBattery(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		opts    Options
		watts   float64 // power drawn by the files' reading
		conv    string  // a convention that must be reported
		wantErr error
	}{
		{"kernel ABI", map[string]string{"type": "Battery", "status": "Discharging", "current_now": "-500000", "voltage_now": "4000000"},
			Options{}, 2, "negative while discharging", nil},
		{"positive while discharging", map[string]string{"type": "Battery", "status": "Discharging", "current_now": "250000", "voltage_now": "3800000"},
			Options{}, 0.95, "positive while discharging", nil},
		{"milliamps and millivolts", map[string]string{"type": "Battery", "status": "Discharging", "current_now": "-750", "voltage_now": "3900"},
			Options{}, 2.925, "read as milliamps", nil},
		{"unit set", map[string]string{"type": "Battery", "status": "Discharging", "current_now": "-5000", "voltage_now": "4000000"},
			Options{CurrentUnit: "uA"}, 0.02, "microamps (set)", nil},
		{"power_now only", map[string]string{"type": "Battery", "status": "Discharging", "power_now": "6500000"},
			Options{}, 6.5, "power_now in microwatts", nil},
		{"charging", map[string]string{"type": "Battery", "status": "Charging", "current_now": "1000000", "voltage_now": "4000000"},
			Options{}, 0, "", ErrNotDischarging},
		{"no meter", map[string]string{"type": "Battery", "status": "Discharging"}, Options{}, 0, "", ErrAbsent},
		{"not a battery", map[string]string{"type": "Mains", "online": "1"}, Options{}, 0, "", ErrAbsent},
		{"named supply missing", map[string]string{"type": "Battery", "status": "Discharging", "power_now": "1"},
			Options{Supply: "BAT9"}, 0, "", ErrAbsent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			fakeBattery(t, root, "AC", map[string]string{"type": "Mains", "online": "0"})
			fakeBattery(t, root, "battery", tt.files)
			tt.opts.Root = root
			src, err := Open("battery", tt.opts)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := src.Describe()
			if d.Name != "battery" || d.Counter || !strings.Contains(strings.Join(d.Conventions, "; "), tt.conv) {
				t.Errorf("description %+v, want a convention containing %q", d, tt.conv)
			}
			r, err := src.Read()
			if err != nil {
				t.Fatal(err)
			}
			near(t, "watts", r.Watts, tt.watts, 1e-9)
		})
	}
	if _, err := Open("battery", Options{Root: t.TempDir()}); !errors.Is(err, ErrAbsent) {
		t.Errorf("empty sysfs: err = %v, want ErrAbsent", err)
	}
	if _, err := Open("gpu", Options{}); err == nil || !strings.Contains(err.Error(), "battery, rapl") {
		t.Errorf("unknown source: err = %v", err)
	}
}

func TestBatteryCapacity(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		volts float64
		want  float64
		from  string
	}{
		{"energy_full_design", map[string]string{"energy_full_design": "57000000", "charge_full_design": "1"}, 0, 57 * 3600, "energy_full_design"},
		{"charge with volts", map[string]string{"charge_full_design": "6000000"}, 3.87, 6 * 3600 * 3.87, "(given)"},
		{"charge with design voltages", map[string]string{"charge_full_design": "5000000", "voltage_min_design": "3400000", "voltage_max_design": "4400000"},
			0, 5 * 3600 * 3.9, "midpoint"},
		{"charge in mAh", map[string]string{"charge_full_design": "4000"}, 3.85, 4 * 3600 * 3.85, "read as mAh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"type": "Battery", "status": "Discharging"}
			for k, v := range tt.files {
				files[k] = v
			}
			fakeBattery(t, root, "BAT0", files)
			c, err := BatteryCapacity(Options{Root: root}, tt.volts)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "joules", c.Joules, tt.want, 1e-6)
			if !strings.Contains(c.From, tt.from) {
				t.Errorf("from %q, want it to mention %q", c.From, tt.from)
			}
		})
	}
	root := t.TempDir()
	fakeBattery(t, root, "BAT0", map[string]string{"type": "Battery", "charge_full_design": "5000000"})
	if _, err := BatteryCapacity(Options{Root: root}, 0); err == nil || !strings.Contains(err.Error(), "needs a voltage") {
		t.Errorf("charge without any voltage: err = %v", err)
	}
	fakeBattery(t, root, "BAT0", map[string]string{"charge_full_design": "0"})
	if _, err := BatteryCapacity(Options{Root: root}, 3.8); !errors.Is(err, ErrAbsent) {
		t.Errorf("no design capacity: err = %v, want ErrAbsent", err)
	}
}

// fakeRAPL writes a powercap tree: two packages, a sub-zone, a psys zone
// and an MMIO mirror that must not be summed.
func fakeRAPL(t testing.TB, root string, rng uint64, start [2]uint64) [2]string {
	t.Helper()
	base := filepath.Join(root, "class", "powercap")
	zone := func(dir, name string, v uint64) string {
		p := filepath.Join(base, dir)
		writeFile(t, filepath.Join(p, "name"), name)
		writeFile(t, filepath.Join(p, "energy_uj"), fmt.Sprint(v))
		writeFile(t, filepath.Join(p, "max_energy_range_uj"), fmt.Sprint(rng))
		return p
	}
	a := zone("intel-rapl:0", "package-0", start[0])
	zone("intel-rapl:0:0", "core", 7)
	b := zone("intel-rapl:1", "package-1", start[1])
	zone("intel-rapl:2", "psys", 9)
	zone("intel-rapl-mmio:0", "package-0", 11)
	return [2]string{a, b}
}

func TestOpenRAPL(t *testing.T) {
	root := t.TempDir()
	fakeRAPL(t, root, 1000, [2]uint64{10, 20})
	src, err := Open("rapl", Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	d := src.Describe()
	if !d.Counter || len(d.Ranges) != 2 || !strings.Contains(strings.Join(d.Conventions, "; "), "not summed: intel-rapl:2 (psys)") {
		t.Errorf("description %+v", d)
	}
	r, err := src.Read()
	if err != nil || len(r.Counters) != 2 || r.Counters[0] != 10 || r.Counters[1] != 20 {
		t.Errorf("reading %+v, %v; want counters [10 20]", r, err)
	}
	if _, err := Open("rapl", Options{Root: t.TempDir()}); !errors.Is(err, ErrAbsent) {
		t.Errorf("no powercap: err = %v, want ErrAbsent", err)
	}
	empty := t.TempDir()
	writeFile(t, filepath.Join(empty, "class", "powercap", "intel-rapl:0", "name"), "psys")
	if _, err := Open("rapl", Options{Root: empty}); !errors.Is(err, ErrAbsent) || !strings.Contains(err.Error(), "no package domain") {
		t.Errorf("psys only: err = %v", err)
	}
}

func TestSamplerInterval(t *testing.T) {
	s := Sampler{Source: constSource(1), Interval: 200 * time.Millisecond}
	if _, err := s.Start(); err == nil || !strings.Contains(err.Error(), "at least 10 Hz") {
		t.Errorf("200 ms interval: err = %v", err)
	}
	s.Interval = 0
	w, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := w.Stop()
	if err != nil || len(tr.Readings) < 2 {
		t.Errorf("trace %+v, %v; want at least the opening and closing readings", tr, err)
	}
}

type constSource float64

func (c constSource) Describe() Description  { return Description{Name: "const"} }
func (c constSource) Read() (Reading, error) { return Reading{Watts: float64(c)}, nil }

// switcher is the test goroutine that changes a fake sysfs file: each
// request sets the file to a value and answers with the time window in
// which the change happened (before the write, after it).
type switcher struct {
	req  chan string
	resp chan [2]time.Time
}

func startSwitcher(t *testing.T, path string) *switcher {
	s := &switcher{req: make(chan string), resp: make(chan [2]time.Time)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := range s.req {
			before := time.Now()
			writeFile(t, path, v)
			s.resp <- [2]time.Time{before, time.Now()}
		}
	}()
	t.Cleanup(func() { close(s.req); wg.Wait() })
	return s
}

func (s *switcher) set(v string) [2]time.Time {
	s.req <- v
	return <-s.resp
}

// TestMeterBatteryFakeSysfs measures a round on a fake battery whose
// current a test goroutine raises while the workload runs: the idle
// baseline must be the idle power and the increment the extra power times
// the time it was on, up to the sampling resolution at the two edges.
func TestMeterBatteryFakeSysfs(t *testing.T) {
	root := t.TempDir()
	dir := fakeBattery(t, root, "battery", map[string]string{
		"type": "Battery", "status": "Discharging", "current_now": "-200000", "voltage_now": "4000000"})
	src, err := Open("battery", Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	sw := startSwitcher(t, filepath.Join(dir, "current_now"))
	m := &Meter{Sampler: Sampler{Source: src, Interval: 5 * time.Millisecond}}
	const idleW, runW = 0.8, 6.0 // 200 mA and 1.5 A at 4 V
	var on, off [2]time.Time
	round, warns, err := m.Round(context.Background(), 60*time.Millisecond, func() error {
		on = sw.set("-1500000")
		time.Sleep(120 * time.Millisecond)
		off = sw.set("-200000")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	near(t, "idle watts", round.IdleWatts, idleW, 1e-9)
	// The switch happened somewhere in [on[0], on[1]] and [off[0], off[1]];
	// the trapezoid rule can misplace each edge by up to one sampling gap.
	longest, shortest := off[1].Sub(on[0]).Seconds(), off[0].Sub(on[1]).Seconds()
	slack := (runW - idleW) * round.MaxGapSeconds
	lo, hi := (runW-idleW)*shortest-slack, (runW-idleW)*longest+slack
	if round.IncrementJoules < lo-1e-9 || round.IncrementJoules > hi+1e-9 {
		t.Errorf("increment %.4f J outside [%.4f, %.4f] (on %.3f s, max gap %.4f s, %d samples)",
			round.IncrementJoules, lo, hi, shortest, round.MaxGapSeconds, round.Samples)
	}
	if round.Samples < 2 {
		t.Errorf("run window has %d readings", round.Samples)
	}

	// The charger is plugged in during the next round: reported.
	_, warns, err = m.Round(context.Background(), time.Millisecond, func() error {
		writeFile(t, filepath.Join(dir, "status"), "Charging")
		return nil
	})
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "Charging") {
		t.Errorf("warnings %v, err %v; want one about charging", warns, err)
	}
}

// TestMeterRAPLWrap advances fake RAPL counters from a test goroutine
// across their wrap-around while the workload runs; the run's energy is
// exactly what was added, the idle baseline zero.
func TestMeterRAPLWrap(t *testing.T) {
	root := t.TempDir()
	const rng = 10_000
	dirs := fakeRAPL(t, root, rng, [2]uint64{rng - 500, 100})
	src, err := Open("rapl", Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	sw0 := startSwitcher(t, filepath.Join(dirs[0], "energy_uj"))
	sw1 := startSwitcher(t, filepath.Join(dirs[1], "energy_uj"))
	m := &Meter{Sampler: Sampler{Source: src, Interval: 2 * time.Millisecond}}
	round, _, err := m.Round(context.Background(), 10*time.Millisecond, func() error {
		c0, c1 := uint64(rng-500), uint64(100)
		for range 5 { // 5 × 300 µJ on package 0 (wraps once), 5 × 70 on package 1
			c0 = (c0 + 300) % rng
			c1 += 70
			sw0.set(fmt.Sprint(c0))
			sw1.set(fmt.Sprint(c1))
			time.Sleep(3 * time.Millisecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "idle joules", round.IdleJoules, 0, 0)
	near(t, "run joules", round.RunJoules, (1500+350)*1e-6, 1e-12)
	near(t, "increment", round.IncrementJoules, (1500+350)*1e-6, 1e-12)
}

func TestMeterCancelledIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &Meter{Sampler: Sampler{Source: constSource(1)}}
	ran := false
	_, _, err := m.Round(ctx, time.Hour, func() error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("err = %v, ran = %v; want context.Canceled before the workload", err, ran)
	}
}
