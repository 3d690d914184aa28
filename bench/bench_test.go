package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/energy"
	"github.com/pocketeval/pocketeval/internal/golden"
	"github.com/pocketeval/pocketeval/runtime"
)

// fakeBencher answers Bench with times taken from a script: call i (0 is
// the warm-up) takes prefill[i] and decode[i] milliseconds.
type fakeBencher struct {
	prefillMS, decodeMS []float64
	gen                 []int // tokens decoded per call; nil means all asked
	calls               []runtime.BenchRequest
	closed              int
}

func (f *fakeBencher) Generate(context.Context, runtime.Request) (runtime.Response, error) {
	return runtime.Response{}, errors.New("fake: generate not used")
}
func (f *fakeBencher) Close() error { f.closed++; return nil }
func (f *fakeBencher) Describe() runtime.Info {
	return runtime.Info{Name: "fake", Version: "1.0", Settings: map[string]any{"threads": 1}}
}

func (f *fakeBencher) Bench(_ context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	i := len(f.calls) % len(f.prefillMS)
	f.calls = append(f.calls, req)
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	res := runtime.BenchResult{}
	if req.NPrompt > 0 {
		res.PromptTokens = req.NPrompt
		res.PrefillTime = ms(f.prefillMS[i])
		res.FirstTokenLag = ms(f.prefillMS[i] + 1)
	}
	if req.NGen > 0 {
		res.GenTokens = req.NGen
		if f.gen != nil {
			res.GenTokens = f.gen[i]
		}
		res.DecodeTime = ms(f.decodeMS[i])
	}
	return res, nil
}

// plainRuntime has no Bench method.
type plainRuntime struct{}

func (plainRuntime) Generate(context.Context, runtime.Request) (runtime.Response, error) {
	return runtime.Response{}, nil
}
func (plainRuntime) Close() error { return nil }

type fakeProbe struct {
	rss, peak  []int64 // successive Memory answers
	goMem      []int64 // successive GoMemory answers (nil: not a GoMemoryProbe's)
	goCalls    int
	calls      int
	resetErr   error
	load       [3]float64
	loadCalled int
}

func (p *fakeProbe) Memory() (int64, int64, error) {
	i := min(p.calls, len(p.rss)-1)
	p.calls++
	return p.rss[i], p.peak[i], nil
}
func (p *fakeProbe) ResetPeak() error { return p.resetErr }

// goProbe is a fakeProbe that also reports the Go runtime's memory.
type goProbe struct{ *fakeProbe }

func (p goProbe) GoMemory() int64 {
	i := min(p.goCalls, len(p.goMem)-1)
	p.goCalls++
	return p.goMem[i]
}
func (p *fakeProbe) LoadAvg() ([3]float64, error) {
	p.loadCalled++
	return p.load, nil
}

func writePackage(t *testing.T, sizes ...int) string {
	t.Helper()
	dir := t.TempDir()
	for i, n := range sizes {
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRunPG(t *testing.T) {
	fb := &fakeBencher{
		// warm-up is slow and must be dropped
		prefillMS: []float64{5000, 1000, 2000, 1000, 2000, 4000},
		decodeMS:  []float64{9000, 1000, 1000, 2000, 2000, 1000},
	}
	probe := &fakeProbe{rss: []int64{100 << 20, 150 << 20}, peak: []int64{400 << 20, 420 << 20}, load: [3]float64{0.5, 0.4, 0.3}}
	dir := writePackage(t, 1000)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), make([]byte, 24), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil },
		filepath.Join(dir, "config.json"), Config{PG: []PG{{512, 128}}, Reps: 5}, probe)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.calls) != 6 {
		t.Fatalf("Bench calls = %d, want 6 (5 reps + 1 warm-up)", len(fb.calls))
	}
	for _, c := range fb.calls {
		if c != (runtime.BenchRequest{NPrompt: 512, NGen: 128}) {
			t.Fatalf("Bench request = %+v, want pp512+tg128", c)
		}
	}
	if fb.closed != 1 {
		t.Errorf("runtime closed %d times, want 1", fb.closed)
	}
	if rep.PackageBytes != 1024 {
		t.Errorf("PackageBytes = %d, want 1024", rep.PackageBytes)
	}
	if got, want := rep.Memory, (Memory{Test: "pp512+tg128", BaselineBytes: 100 << 20, PeakBytes: 420 << 20, IncrementBytes: 320 << 20,
		EngineBytes: 320 << 20, PeakReset: true}); got != want {
		t.Errorf("Memory = %+v, want %+v", got, want)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Name != "pp512+tg128" {
		t.Fatalf("rows = %+v", rep.Rows)
	}
	row := rep.Rows[0]
	// prefill: 512 tokens in 1,2,1,2,4 s
	wantPre := []float64{512, 256, 512, 256, 128}
	if !reflect.DeepEqual(row.Prefill.Values, wantPre) {
		t.Errorf("prefill values = %v, want %v", row.Prefill.Values, wantPre)
	}
	checkClose(t, "prefill mean", row.Prefill.Mean, 332.8)
	checkClose(t, "prefill sd", row.Prefill.SD, 171.7300)
	checkClose(t, "prefill median", row.Prefill.Median, 256)
	wantDec := []float64{128, 128, 64, 64, 128}
	if !reflect.DeepEqual(row.Decode.Values, wantDec) {
		t.Errorf("decode values = %v, want %v", row.Decode.Values, wantDec)
	}
	checkClose(t, "decode median", row.Decode.Median, 128)
	checkClose(t, "first token ms", row.FirstTokenMS, 2001)
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings = %v, want none", rep.Warnings)
	}
}

func checkClose(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-3*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %g, want %g", what, got, want)
	}
}

func TestRunTests(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []runtime.BenchRequest // one per test, each repeated reps+1 times
		reps int
	}{
		{"default", DefaultConfig, []runtime.BenchRequest{{NPrompt: 512}, {NGen: 128}}, 5},
		{"pp only, 2 reps", Config{Prompt: 64, Reps: 2}, []runtime.BenchRequest{{NPrompt: 64}}, 2},
		{"all three", Config{Prompt: 8, Gen: 4, PG: []PG{{16, 2}, {32, 3}}, Reps: 1},
			[]runtime.BenchRequest{{NPrompt: 8}, {NGen: 4}, {NPrompt: 16, NGen: 2}, {NPrompt: 32, NGen: 3}}, 1},
		{"zero reps means 5", Config{Gen: 2}, []runtime.BenchRequest{{NGen: 2}}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &fakeBencher{prefillMS: []float64{10}, decodeMS: []float64{10}}
			rep, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil },
				writePackage(t, 1), tt.cfg, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
			if err != nil {
				t.Fatal(err)
			}
			var want []runtime.BenchRequest
			for _, w := range tt.want {
				for range tt.reps + 1 {
					want = append(want, w)
				}
			}
			if !reflect.DeepEqual(fb.calls, want) {
				t.Errorf("calls = %v, want %v", fb.calls, want)
			}
			if len(rep.Rows) != len(tt.want) {
				t.Fatalf("rows = %d, want %d", len(rep.Rows), len(tt.want))
			}
			for i, row := range rep.Rows {
				if (row.Prefill != nil) != (tt.want[i].NPrompt > 0) || (row.Decode != nil) != (tt.want[i].NGen > 0) {
					t.Errorf("row %s: prefill %v decode %v", row.Name, row.Prefill, row.Decode)
				}
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	probe := func() *fakeProbe { return &fakeProbe{rss: []int64{1}, peak: []int64{1}} }
	openErr := errors.New("no such model")
	tests := []struct {
		name  string
		open  Opener
		cfg   Config
		is    error
		calls bool
	}{
		{"no tests", nil, Config{}, nil, false},
		{"bad pg", nil, Config{PG: []PG{{0, 3}}}, nil, false},
		{"open fails", func(context.Context, OpenRequest) (runtime.Runtime, error) { return nil, openErr }, DefaultConfig, openErr, false},
		{"not a Bencher", func(context.Context, OpenRequest) (runtime.Runtime, error) { return plainRuntime{}, nil }, DefaultConfig, runtime.ErrNotSupported, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open := tt.open
			if open == nil {
				open = func(context.Context, OpenRequest) (runtime.Runtime, error) {
					t.Fatal("opened the runtime for an invalid config")
					return nil, nil
				}
			}
			_, err := Run(context.Background(), open, writePackage(t, 1), tt.cfg, probe())
			if err == nil {
				t.Fatal("Run succeeded, want an error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fb := &fakeBencher{prefillMS: []float64{1}, decodeMS: []float64{1}}
	_, err := Run(ctx, func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil }, writePackage(t, 1), DefaultConfig,
		&fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(fb.calls) != 0 || fb.closed != 0 {
		t.Errorf("calls %d closed %d, want 0 and 0 (nothing opened)", len(fb.calls), fb.closed)
	}
}

func TestRunWarnings(t *testing.T) {
	fb := &fakeBencher{prefillMS: []float64{1}, decodeMS: []float64{1}, gen: []int{3}}
	probe := &fakeProbe{rss: []int64{1}, peak: []int64{1}, resetErr: errors.New("permission denied"), load: [3]float64{4, 3, 2}}
	rep, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return fb, nil },
		writePackage(t, 1), Config{Gen: 8, Reps: 2}, probe)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memory.PeakReset {
		t.Error("PeakReset = true after a failed reset")
	}
	want := []string{
		"peak memory counts from process start: permission denied",
		"tg8: a stop token ended decoding early (decoded [3 3] tokens); decode speed counts the tokens decoded",
		"load average 4.00 at the start: other work competed for the CPU",
	}
	if !reflect.DeepEqual(rep.Warnings, want) {
		t.Errorf("warnings:\n got %q\nwant %q", rep.Warnings, want)
	}
	checkClose(t, "decode mean", rep.Rows[0].Decode.Mean, 3000)
}

func TestSummarize(t *testing.T) {
	check := func(in []float64, mean, sd, med float64) {
		t.Helper()
		s := Summarize(in)
		checkClose(t, "mean", s.Mean, mean)
		checkClose(t, "sd", s.SD, sd)
		checkClose(t, "median", s.Median, med)
	}
	check([]float64{5}, 5, 0, 5)
	check([]float64{1, 3}, 2, math.Sqrt2, 2)
	check([]float64{10, 1, 4}, 5, math.Sqrt(21), 4)
	if Summarize(nil) != nil {
		t.Error("Summarize(nil) != nil")
	}
}

func TestPackageSize(t *testing.T) {
	dir := writePackage(t, 100, 20)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "x"), make([]byte, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(path string, want int64) {
		t.Helper()
		got, err := PackageSize(path)
		if err != nil || got != want {
			t.Errorf("PackageSize(%s) = %d, %v; want %d", path, got, err, want)
		}
	}
	check(dir, 125)
	check(filepath.Join(dir, "config.json"), 125)
	check(filepath.Join(dir, "a"), 100)
	if _, err := PackageSize(filepath.Join(dir, "missing")); err == nil {
		t.Error("no error for a missing path")
	}
}

func sampleReport() *Report {
	mem := func(test string, inc int64) Memory {
		return Memory{Test: test, BaselineBytes: 12 << 20, PeakBytes: 12<<20 + inc, IncrementBytes: inc, GoBytes: 2 << 20,
			EngineBytes: inc - 2<<20, PeakReset: true}
	}
	capacity, _ := RatedCapacityForTest()
	en := energy.Summarize(energy.Description{Name: "battery", Path: "/sys/class/power_supply/battery",
		Conventions: []string{"current_now in microamps", "voltage_now in microvolts", "negative while discharging (the kernel ABI)"}},
		0, 1, []energy.Round{
			{IdleSeconds: 4.1, IdleJoules: 3.28, IdleWatts: 0.8, RunSeconds: 4, RunJoules: 5.9, IncrementJoules: 2.7, Samples: 41, MaxGapSeconds: 0.11},
			{IdleSeconds: 4, IdleJoules: 3.2, IdleWatts: 0.8, RunSeconds: 4, RunJoules: 6, IncrementJoules: 2.8, Samples: 40, MaxGapSeconds: 0.1},
			{IdleSeconds: 4, IdleJoules: 3.2, IdleWatts: 0.8, RunSeconds: 4, RunJoules: 5.8, IncrementJoules: 2.6, Samples: 40, MaxGapSeconds: 0.1},
		}, &capacity)
	return &Report{
		Model:        "/opt/models/pocket/config.json",
		Runtime:      runtime.Info{Name: "mnn", Version: "3.6.1", Settings: map[string]any{"threads": 1, "precision": "low"}},
		PackageBytes: 301 << 20,
		Profile:      "pocket-energy",
		Center:       "median",
		LoadSeconds:  0.4123,
		LoadAvg:      [3]float64{0.52, 0.61, 0.7},
		LoadAvgEnd:   [3]float64{1.01, 0.7, 0.72},
		CPU:          "AMD EPYC 9B14",
		CPUs:         2,
		Memory:       mem("pp512+tg128", 388<<20),
		Reps:         5,
		Rows: []Row{
			{Test: Test{Name: "pp512", NPrompt: 512}, LoadSeconds: 0.4123, Memory: mem("pp512", 380<<20),
				Prefill: Summarize([]float64{330, 340, 335, 325, 345}), FirstTokenMS: 1530.25},
			{Test: Test{Name: "tg128", NGen: 128}, LoadSeconds: 0.4, Memory: mem("tg128", 300<<20),
				Decode: Summarize([]float64{80, 84, 82, 83, 81}), GenTokens: []int{128, 128, 128, 128, 128}},
			{Test: Test{Name: "pp512+tg128", NPrompt: 512, NGen: 128}, LoadSeconds: 0.41, Memory: mem("pp512+tg128", 388<<20), Stepwise: true,
				Prefill: Summarize([]float64{315, 311, 319, 313, 317}),
				Decode:  Summarize([]float64{57, 60, 55, 58, 56}), GenTokens: []int{128, 128, 128, 128, 128},
				Energy: &en,
				Speculative: &Speculative{Settings: map[string]any{"threads": 1, "precision": "low", "speculative_type": "lookahead"},
					Memory: mem("pp512+tg128", 395<<20), Prefill: Summarize([]float64{314, 312, 318, 313, 316}),
					Decode: Summarize([]float64{80, 82, 79, 81, 83}), GenTokens: []int{130, 129, 130, 128, 130},
					Speedup: 81.0 / 57, VerifySteps: 400, Drafted: 1200, Accepted: 247, AcceptanceRate: 247.0 / 1200, MeanAcceptedLength: 647.0 / 400},
			},
		},
		Warnings: []string{"load average 2.00 at the start: other work competed for the CPU"},
	}
}

// RatedCapacityForTest is the release's phone battery: 6000 mAh at 3.87 V.
func RatedCapacityForTest() (energy.Capacity, error) { return energy.RatedCapacity(6000, 3.87) }

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "report.md"), buf.Bytes())
}

func TestWriteJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	r := sampleReport()
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "report.json"), buf.Bytes())
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	// JSON numbers come back as float64.
	back.Runtime.Settings["threads"] = 1
	back.Rows[2].Speculative.Settings["threads"] = 1
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", back, *r)
	}
}

func TestRunOpensPerTest(t *testing.T) {
	fb := &fakeBencher{prefillMS: []float64{10}, decodeMS: []float64{10}}
	var opened []OpenRequest
	open := func(_ context.Context, req OpenRequest) (runtime.Runtime, error) {
		opened = append(opened, req)
		return fb, nil
	}
	// Memory: the baseline before the first load, then each test's peak.
	probe := goProbe{&fakeProbe{rss: []int64{10, 90, 95, 99}, peak: []int64{10, 150, 350, 120}, goMem: []int64{5, 6, 9, 5}}}
	rep, err := Run(context.Background(), open, writePackage(t, 1), Config{Prompt: 64, Gen: 16, PG: []PG{{512, 8}}, Reps: 1}, probe)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range opened {
		names = append(names, r.Test.Name)
		if r.Speculative {
			t.Errorf("%s opened speculative", r.Test.Name)
		}
	}
	if want := []string{"pp64", "tg16", "pp512+tg8"}; !reflect.DeepEqual(names, want) {
		t.Errorf("opened for %v, want %v (one runtime per test, as llm_bench)", names, want)
	}
	if fb.closed != 3 {
		t.Errorf("closed %d times, want 3", fb.closed)
	}
	wantMem := []Memory{
		{Test: "pp64", BaselineBytes: 10, PeakBytes: 150, IncrementBytes: 140, GoBytes: 1, EngineBytes: 139, PeakReset: true},
		{Test: "tg16", BaselineBytes: 10, PeakBytes: 350, IncrementBytes: 340, GoBytes: 4, EngineBytes: 336, PeakReset: true},
		{Test: "pp512+tg8", BaselineBytes: 10, PeakBytes: 120, IncrementBytes: 110, GoBytes: 0, EngineBytes: 110, PeakReset: true},
	}
	for i, row := range rep.Rows {
		if row.Memory != wantMem[i] {
			t.Errorf("%s memory %+v, want %+v", row.Name, row.Memory, wantMem[i])
		}
	}
	if rep.Memory != wantMem[1] {
		t.Errorf("report memory %+v, want the largest (%+v)", rep.Memory, wantMem[1])
	}
}

// specBencher is a fakeBencher whose stepwise runs report speculative
// decoding: 3 verify steps of 4 checked tokens, 2 of 3 drafts kept.
type specBencher struct {
	fakeBencher
	spec bool
}

func (s *specBencher) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	res, err := s.fakeBencher.Bench(ctx, req)
	if !req.Stepwise {
		return res, errors.New("speculative comparison must run stepwise")
	}
	if s.spec {
		res.DecodeTime /= 2
		res.VerifySteps, res.Drafted, res.Accepted = req.NGen/3, req.NGen, req.NGen*2/3
	} else {
		res.VerifySteps = req.NGen
	}
	return res, err
}

func TestRunSpeculative(t *testing.T) {
	base := &specBencher{fakeBencher: fakeBencher{prefillMS: []float64{100}, decodeMS: []float64{1000}}}
	spec := &specBencher{fakeBencher: fakeBencher{prefillMS: []float64{100}, decodeMS: []float64{1000}}, spec: true}
	open := func(_ context.Context, req OpenRequest) (runtime.Runtime, error) {
		if req.Speculative {
			return spec, nil
		}
		return base, nil
	}
	rep, err := Run(context.Background(), open, writePackage(t, 1), Config{PG: []PG{{64, 12}}, Reps: 2, Speculative: true},
		&fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	s := row.Speculative
	if s == nil || !row.Stepwise {
		t.Fatalf("row %+v", row)
	}
	checkClose(t, "decode without", row.Decode.Mean, 12)
	checkClose(t, "decode with", s.Decode.Mean, 24)
	checkClose(t, "speedup", s.Speedup, 2)
	// 2 reps × (4 steps, 12 drafted, 8 accepted)
	if s.VerifySteps != 8 || s.Drafted != 24 || s.Accepted != 16 {
		t.Errorf("totals %d steps %d drafted %d accepted", s.VerifySteps, s.Drafted, s.Accepted)
	}
	checkClose(t, "acceptance", s.AcceptanceRate, 2.0/3)
	checkClose(t, "mean accepted length", s.MeanAcceptedLength, 3)
	if len(base.calls) != 3 || len(spec.calls) != 3 {
		t.Errorf("calls %d and %d, want 3 each", len(base.calls), len(spec.calls))
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings %v", rep.Warnings)
	}

	// A runtime that drafts nothing is flagged.
	spec.spec = false
	rep, err = Run(context.Background(), open, writePackage(t, 1), Config{PG: []PG{{64, 12}}, Reps: 1, Speculative: true},
		&fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "no draft tokens") {
		t.Errorf("warnings %v", rep.Warnings)
	}
	if _, err := Run(context.Background(), open, writePackage(t, 1), Config{Prompt: 8, Speculative: true}, &fakeProbe{rss: []int64{1}, peak: []int64{1}}); err == nil {
		t.Error("speculative prefill-only test accepted")
	}
}

// wattSource is an energy source whose power the fake workload sets.
type wattSource struct{ w atomic.Uint64 }

func (s *wattSource) set(w float64)                { s.w.Store(math.Float64bits(w)) }
func (s *wattSource) Describe() energy.Description { return energy.Description{Name: "fake"} }
func (s *wattSource) Read() (energy.Reading, error) {
	return energy.Reading{Watts: math.Float64frombits(s.w.Load())}, nil
}

// powerBencher draws 5 W while a Bench call runs and 1 W otherwise.
type powerBencher struct {
	fakeBencher
	src *wattSource
}

func (p *powerBencher) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	p.src.set(5)
	time.Sleep(20 * time.Millisecond)
	p.src.set(1)
	return p.fakeBencher.Bench(ctx, req)
}

func TestRunEnergy(t *testing.T) {
	src := &wattSource{}
	src.set(1)
	pb := &powerBencher{fakeBencher: fakeBencher{prefillMS: []float64{10}, decodeMS: []float64{10}}, src: src}
	var idles []time.Duration
	m := &energy.Meter{Sampler: energy.Sampler{Source: src, Interval: 2 * time.Millisecond},
		Sleep: func(_ context.Context, d time.Duration) error { idles = append(idles, d); time.Sleep(d); return nil }}
	capacity, _ := energy.RatedCapacity(6000, 3.87)
	cfg := Config{PG: []PG{{32, 8}}, Reps: 3, Energy: &EnergyConfig{Meter: m, Inferences: 2, Battery: &capacity}}
	rep, err := Run(context.Background(), func(context.Context, OpenRequest) (runtime.Runtime, error) { return pb, nil },
		writePackage(t, 1), cfg, &fakeProbe{rss: []int64{1}, peak: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	e := rep.Rows[0].Energy
	if e == nil || len(e.Rounds) != 3 || e.Inferences != 2 {
		t.Fatalf("energy %+v", e)
	}
	// 1 warm-up call + 3 rounds × 2 inferences
	if len(pb.calls) != 7 || len(rep.Rows[0].Decode.Values) != 6 {
		t.Errorf("%d calls, %d speed values; want 7 and 6", len(pb.calls), len(rep.Rows[0].Decode.Values))
	}
	if len(idles) != 3 || idles[0] < 40*time.Millisecond {
		t.Errorf("idle windows %v: want 3, the first as long as two warm-up runs", idles)
	}
	for i, r := range e.Rounds {
		checkClose(t, fmt.Sprintf("round %d idle W", i), r.IdleWatts, 1)
		// 4 W extra for about 2 × 20 ms; the sampling edges and the
		// sleeps' overrun make it fuzzy, so only the order of magnitude
		// is checked here (the arithmetic is tested in package energy).
		if r.IncrementJoules <= 0 || r.IncrementJoules > 4*r.RunSeconds+1e-9 {
			t.Errorf("round %d increment %g J over %g s", i, r.IncrementJoules, r.RunSeconds)
		}
	}
	if e.BatteryPctPer100 == nil || e.BatteryPctPer100.Mean <= 0 {
		t.Errorf("battery percentage %+v", e.BatteryPctPer100)
	}
}
