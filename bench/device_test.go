package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// fakeSysfs writes a sysfs tree with the given CPU frequencies (kHz) and
// thermal zones (type → raw temp file content), as Linux boards and
// Android phones lay them out.
func fakeSysfs(t *testing.T, freqs []int64, zones [][2]string) string {
	t.Helper()
	root := t.TempDir()
	write := func(p, v string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range freqs {
		write(filepath.Join(root, fmt.Sprintf("devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", i)), fmt.Sprint(f))
	}
	// cpufreq policy directories and cpuidle sit next to cpuN and are no CPUs.
	write(filepath.Join(root, "devices/system/cpu/cpufreq/policy0/scaling_cur_freq"), "1")
	for i, z := range zones {
		dir := filepath.Join(root, fmt.Sprintf("class/thermal/thermal_zone%d", i))
		write(filepath.Join(dir, "type"), z[0])
		write(filepath.Join(dir, "temp"), z[1])
	}
	// A cooling device is no zone.
	write(filepath.Join(root, "class/thermal/cooling_device0/type"), "thermal-cpufreq-0")
	return root
}

func TestThermalRead(t *testing.T) {
	freqs := make([]int64, 11)
	for i := range freqs {
		freqs[i] = int64(1000000 + 100000*i)
	}
	root := fakeSysfs(t, freqs, [][2]string{{"cpu-thermal", "45250"}, {"battery", "31"}, {"soc-thermal", "52100"}})
	st := Thermal{Root: root}.Read()
	if len(st.Freqs) != 11 || st.Freqs[2].CPU != 2 || st.Freqs[10].CPU != 10 || st.MaxFreq() != 2000000 {
		t.Errorf("freqs %+v: want cpu0..cpu10 in numeric order, max 2 GHz", st.Freqs)
	}
	want := []Zone{{"thermal_zone0", "cpu-thermal", 45.25, "m°C"}, {"thermal_zone1", "battery", 31, "°C"}, {"thermal_zone2", "soc-thermal", 52.1, "m°C"}}
	if !slices.Equal(st.Zones, want) {
		t.Errorf("zones %+v, want %+v", st.Zones, want)
	}
	if z, ok := st.Hottest("cpu"); !ok || z.Type != "cpu-thermal" {
		t.Errorf("hottest cpu zone %+v", z)
	}
	if z, _ := st.Hottest(""); z.Type != "soc-thermal" {
		t.Errorf("hottest zone %+v, want soc-thermal", z)
	}
	if empty := (Thermal{Root: t.TempDir()}).Read(); len(empty.Freqs)+len(empty.Zones) != 0 {
		t.Errorf("empty sysfs read %+v", empty)
	}
}

func TestCooldown(t *testing.T) {
	root := fakeSysfs(t, nil, [][2]string{{"cpu-thermal", "48000"}})
	temp := filepath.Join(root, "class/thermal/thermal_zone0/temp")
	var polls atomic.Int32
	c := Cooldown{TargetC: 40, Interval: time.Millisecond, Timeout: time.Minute, Progress: func(z Zone, _ time.Duration) {
		// The device cools by 3 degrees per poll.
		n := polls.Add(1)
		if err := os.WriteFile(temp, []byte(fmt.Sprint(48000-3000*int(n))), 0o644); err != nil {
			t.Error(err)
		}
	}}
	z, _, reached, err := c.Wait(context.Background(), Thermal{Root: root})
	if err != nil || !reached || z.C != 39 || polls.Load() != 3 {
		t.Errorf("wait: zone %+v reached %v err %v after %d polls; want 39°C after 3", z, reached, err, polls.Load())
	}
	// Never cool enough: bounded, reported as not reached.
	c = Cooldown{TargetC: 20, Interval: time.Millisecond, Timeout: 5 * time.Millisecond}
	if z, waited, reached, err := c.Wait(context.Background(), Thermal{Root: root}); err != nil || reached || waited < 5*time.Millisecond || z.C != 39 {
		t.Errorf("timeout: zone %+v waited %v reached %v err %v", z, waited, reached, err)
	}
	if err := (Cooldown{TargetC: 40}).Check(Thermal{Root: t.TempDir()}); !errors.Is(err, ErrNoZones) || !strings.Contains(err.Error(), "class/thermal") {
		t.Errorf("no zones: %v", err)
	}
	if err := (Cooldown{TargetC: 40, Zone: "gpu"}).Check(Thermal{Root: root}); !errors.Is(err, ErrNoZones) || !strings.Contains(err.Error(), `"gpu"`) {
		t.Errorf("no matching zone: %v", err)
	}
	for in, want := range map[string]float64{"40C": 40, "40°C": 40, " 37.5 ": 37.5} {
		if v, err := ParseCelsius(in); err != nil || v != want {
			t.Errorf("ParseCelsius(%q) = %v, %v", in, v, err)
		}
	}
	for _, in := range []string{"hot", "400C", ""} {
		if _, err := ParseCelsius(in); err == nil {
			t.Errorf("ParseCelsius(%q): no error", in)
		}
	}
}

// TestRunThermal: thermal readings before the load and after every
// repetition, a cool-down before each test, cold and steady speeds.
func TestRunThermal(t *testing.T) {
	root := fakeSysfs(t, []int64{1800000, 2400000}, [][2]string{{"cpu-thermal", "38000"}})
	fb := &fakeBencher{prefillMS: []float64{100, 100, 125, 200, 250, 250}, decodeMS: []float64{1000, 1000, 1000, 2000, 2000, 2000}}
	cfg := Config{PG: []PG{{Prompt: 100, Gen: 10}}, Reps: 5, Thermal: &Thermal{Root: root}, Cooldown: &Cooldown{TargetC: 40}}
	rep, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil },
		writePackage(t, 1), cfg, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	if len(row.Thermal) != 7 || row.Thermal[0].Rep != -1 || row.Thermal[6].Rep != 5 || row.Thermal[3].MaxFreq() != 2400000 {
		t.Errorf("thermal readings %+v: want 7 (before the load, warm-up, 5 reps)", row.Thermal)
	}
	if c := row.Cooldown; c == nil || !c.Reached || c.Zone.C != 38 {
		t.Errorf("cooldown %+v", c)
	}
	// Repetitions 1..5 prefill at 1000, 800, 500, 400, 400 tok/s: cold is
	// the first, steady the median of the last two.
	p := row.Phases
	if p == nil || p.ColdPrefill != 1000 || p.SteadyPrefill != 400 || p.ColdDecode != 10 || p.SteadyDecode != 5 || !slices.Equal(p.SteadyReps, []int{4, 5}) {
		t.Errorf("phases %+v", p)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"thermal state", "≤ 40°C reached", "38.0 (cpu-thermal) → 38.0 (cpu-thermal)", "2400 → 2400", "| 1000.00 | 400.00 | 10.00 | 5.00 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	// Without a thermal sysfs nothing is recorded; a cool-down needs one.
	cfg.Thermal, cfg.Cooldown = &Thermal{Root: t.TempDir()}, nil
	rep, _ = Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil }, writePackage(t, 1), cfg, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if len(rep.Rows[0].Thermal) != 0 {
		t.Errorf("empty sysfs recorded %+v", rep.Rows[0].Thermal)
	}
	cfg.Cooldown, cfg.Thermal = &Cooldown{TargetC: 40}, nil
	if _, err := Run(context.Background(), nil, "", cfg, &fakeProbe{}); err == nil {
		t.Error("cool-down without thermal: no error")
	}
}

// TestRunDepths: every test at every depth, in llama-bench's order, with
// the depth passed to the runtime; the depth table and plot.
func TestRunDepths(t *testing.T) {
	fb := &fakeBencher{prefillMS: []float64{100}, decodeMS: []float64{1000}}
	var opened []Test
	open := func(_ context.Context, req OpenRequest) (runtime.Runtime, error) {
		opened = append(opened, req.Test)
		return fb, nil
	}
	peaks := []int64{10 << 20}
	for i := 1; i <= 6; i++ {
		peaks = append(peaks, int64(10+i)<<20)
	}
	cfg := Config{Prompt: 64, Gen: 16, Depths: []int{0, 512, 2048}, Reps: 1}
	rep, err := Run(context.Background(), open, writePackage(t, 1), cfg, &fakeProbe{rss: []int64{10 << 20}, peak: peaks})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, row := range rep.Rows {
		names = append(names, row.Name)
	}
	if want := []string{"pp64", "tg16", "pp64@d512", "tg16@d512", "pp64@d2048", "tg16@d2048"}; !slices.Equal(names, want) {
		t.Errorf("tests %v, want %v", names, want)
	}
	if opened[5].Depth != 2048 || fb.calls[len(fb.calls)-1].Depth != 2048 || !rep.Rows[2].Stepwise || rep.Rows[0].Stepwise {
		t.Errorf("depth not passed on: opened %+v, last call %+v", opened[5], fb.calls[len(fb.calls)-1])
	}
	pts := DepthPoints(rep)
	if len(pts) != 6 || pts[0].Base != "pp64" || pts[2].Depth != 2048 || pts[3].Base != "tg16" || pts[0].Prefill != 640 {
		t.Errorf("depth points %+v", pts)
	}
	var md, svg bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "by context depth") || !strings.Contains(md.String(), "| tg16 | 2048 |  | 16.00 |") {
		t.Errorf("markdown lacks the depth table:\n%s", md.String())
	}
	if err := WriteDepthSVG(&svg, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", ">2048</text>", "pp64 prefill", "tg16 decode", "peak resident memory", "</svg>"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	// The depth axis is linear (issue 48): 512 sits a quarter of the way
	// from 0 to 2048, not halfway; the title names the model, not its path.
	cx := map[int]float64{}
	for _, d := range []int{0, 512, 2048} {
		m := regexp.MustCompile(`<circle cx="([0-9.]+)"[^>]*><title>pp64 prefill at depth ` + strconv.Itoa(d) + `:`).FindStringSubmatch(svg.String())
		if m == nil {
			t.Fatalf("no point of pp64 prefill at depth %d", d)
		}
		cx[d], _ = strconv.ParseFloat(m[1], 64)
	}
	if r := (cx[512] - cx[0]) / (cx[2048] - cx[0]); math.Abs(r-0.25) > 0.01 {
		t.Errorf("depth 512 at %.2f of the axis from 0 to 2048, want 0.25 (a linear axis)", r)
	}
	if title := regexp.MustCompile(`<text[^>]*font-size="13">([^<]*)</text>`).FindStringSubmatch(svg.String()); title == nil || strings.Contains(title[1], "/") || !strings.HasPrefix(title[1], filepath.Base(rep.Model)+":") {
		t.Errorf("title %q: want the model's name %q, not its path", title, filepath.Base(rep.Model))
	}
	one, _ := Run(context.Background(), open, writePackage(t, 1), Config{Prompt: 8, Reps: 1}, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err := WriteDepthSVG(&svg, one); err == nil {
		t.Error("plot of one depth: no error")
	}
	if _, err := Run(context.Background(), open, "", Config{Prompt: 8, Depths: []int{-1}}, &fakeProbe{}); err == nil {
		t.Error("negative depth: no error")
	}
}

// latencyRuntime answers every request after a scripted time to first
// token; each answer has 5 tokens.
type latencyRuntime struct {
	calls []runtime.Request
}

func (l *latencyRuntime) Generate(_ context.Context, req runtime.Request) (runtime.Response, error) {
	l.calls = append(l.calls, req)
	ttft := time.Duration(len(l.calls)) * time.Millisecond
	time.Sleep(ttft + 4*time.Millisecond)
	return runtime.Response{Text: "x", FinishReason: runtime.FinishLength, PromptTokens: 10, CompletionTokens: 5, Timings: runtime.Timings{TimeToFirstToken: ttft}}, nil
}
func (l *latencyRuntime) Close() error { return nil }

func TestRunPrompts(t *testing.T) {
	lr := &latencyRuntime{}
	var reqs []runtime.Request
	for i := range 4 {
		reqs = append(reqs, runtime.Request{ID: fmt.Sprint(i), Prompt: "p"})
	}
	var progress []string
	cfg := Config{Reps: 2, Prompts: &Prompts{Task: "gsm8k", Requests: reqs, Progress: func(done, total int) {
		progress = append(progress, fmt.Sprintf("%d/%d", done, total))
	}}}
	rep, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return lr, nil },
		writePackage(t, 1), cfg, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Latency == nil {
		t.Fatalf("rows %+v", rep.Rows)
	}
	l := rep.Rows[0].Latency
	// Progress is told of every measured request (issue 48), not the
	// warm-up.
	if strings.Join(progress, " ") != "1/8 2/8 3/8 4/8 5/8 6/8 7/8 8/8" {
		t.Errorf("progress %v", progress)
	}
	// A warm-up request, then 2 passes over the 4 prompts, in order.
	if len(lr.calls) != 9 || lr.calls[0].ID != "0" || lr.calls[1].ID != "0" || lr.calls[8].ID != "3" {
		t.Errorf("requests %v", lr.calls)
	}
	if l.Requests != 8 || l.Prompts != 4 || l.TTFT.N != 8 || l.TPOT.N != 8 || l.E2E.N != 8 || l.Finished[runtime.FinishLength] != 8 || l.CompletionTokens != 5 {
		t.Errorf("latency %+v", l)
	}
	// TTFTs are 2..9 ms as the runtime reports them.
	if l.TTFT.P50.Value != 5.5 || l.TTFT.Mean != 5.5 || !l.TTFT.P99.HiOpen {
		t.Errorf("ttft %+v", l.TTFT)
	}
	// End to end is at least the TTFT plus 4 ms, so each of the 4 later
	// tokens takes at least 1 ms.
	if l.E2E.P50.Value < 9.5 || l.TPOT.P50.Value < 1 {
		t.Errorf("e2e %+v tpot %+v", l.E2E, l.TPOT)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"latency on gsm8k's prompts: 4 prompts, 8 requests", "| time to first token | 5.5 | 5.5 [", ", ∞] | 8 |", "8 length"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| prompts:gsm8k |") {
		t.Errorf("the prompts row appears in the speed table:\n%s", md.String())
	}
	if _, err := Run(context.Background(), nil, "", Config{Prompts: &Prompts{Task: "x"}}, &fakeProbe{}); err == nil {
		t.Error("no prompts: no error")
	}
}

// TestRunInterruptedKeepsFinished: a sweep cancelled during a test returns
// the tests finished before it, marked incomplete in the report, the
// markdown and the plot.
func TestRunInterruptedKeepsFinished(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fb := &fakeBencher{prefillMS: []float64{100}, decodeMS: []float64{1000}}
	open := func(_ context.Context, req OpenRequest) (runtime.Runtime, error) {
		if req.Test.Depth == 8192 {
			cancel() // the user interrupts while the deepest test loads
		}
		return fb, nil
	}
	cfg := Config{PG: []PG{{Prompt: 64, Gen: 16}}, Depths: []int{0, 512, 2048, 8192}, Reps: 1}
	rep, err := Run(ctx, open, writePackage(t, 1), cfg, &fakeProbe{rss: []int64{1 << 20}, peak: []int64{2 << 20}, load: [3]float64{0.5, 0.5, 0.5}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if rep == nil || len(rep.Rows) != 3 || rep.Rows[2].Name != "pp64+tg16@d2048" || rep.Rows[2].Decode == nil {
		t.Fatalf("report %+v: want the three finished depths", rep)
	}
	want := Incomplete{Test: "pp64+tg16@d8192", Measured: 3, Planned: 4, Reason: "bench pp64+tg16@d8192: context canceled"}
	if rep.Incomplete == nil || *rep.Incomplete != want || rep.LoadAvgEnd[0] != 0.5 {
		t.Errorf("incomplete %+v (want %+v), load at end %v", rep.Incomplete, want, rep.LoadAvgEnd)
	}
	var md, svg, js bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "INCOMPLETE: stopped at test pp64+tg16@d8192, 3 of 4 tests measured (bench pp64+tg16@d8192: context canceled)\n") ||
		!strings.Contains(md.String(), "| pp64+tg16 | 2048 |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := WriteDepthSVG(&svg, rep); err != nil || !strings.Contains(svg.String(), "INCOMPLETE: 3 of 4 tests") {
		t.Errorf("svg (err %v) lacks the incomplete mark", err)
	}
	if err := WriteJSON(&js, rep); err != nil || !strings.Contains(js.String(), `"tests_measured": 3`) {
		t.Errorf("json (err %v) lacks the incomplete mark", err)
	}

	// A complete run carries no mark.
	done, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil },
		writePackage(t, 1), cfg, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err != nil || done.Incomplete != nil || len(done.Rows) != 4 {
		t.Errorf("complete run: err %v incomplete %+v rows %d", err, done.Incomplete, len(done.Rows))
	}
}
