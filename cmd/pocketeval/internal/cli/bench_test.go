package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/runtime"
)

func TestNewCmdBench(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    bench.Config
		threads int
		json    bool
		wantErr string
	}{
		{"defaults", "--runtime mnn --model m", bench.Config{Prompt: 512, Gen: 128, Reps: 5, Center: "mean"}, 1, false, ""},
		{"pg alone", "--runtime mnn --model m --pg 512,128 --threads 2", bench.Config{PG: []bench.PG{{Prompt: 512, Gen: 128}}, Reps: 5, Center: "mean"}, 2, false, ""},
		{"pg with p", "--runtime mnn --model m --pg 16,8 --pg 32,4 -p 64 --rep 2 --json",
			bench.Config{Prompt: 64, PG: []bench.PG{{Prompt: 16, Gen: 8}, {Prompt: 32, Gen: 4}}, Reps: 2, Center: "mean"}, 1, true, ""},
		{"short flags", "--runtime llamacpp --model m -p 8 -n 0", bench.Config{Prompt: 8, Reps: 5, Center: "mean"}, 1, false, ""},
		{"no runtime", "--model m", bench.Config{}, 0, false, "--runtime is required"},
		{"no model", "--runtime mnn", bench.Config{}, 0, false, "--model is required"},
		{"no bench", "--runtime openai --model m", bench.Config{}, 0, false, "--runtime openai has no synthetic benchmarks (runtimes that do: llamacpp, mnn)"},
		{"bad pg", "--runtime mnn --model m --pg 512", bench.Config{}, 0, false, `--pg "512": want N,M`},
		{"zero pg", "--runtime mnn --model m --pg 0,5", bench.Config{}, 0, false, "positive"},
		{"bad rep", "--runtime mnn --model m --rep 0", bench.Config{}, 0, false, "--rep must be positive"},
		{"nothing", "--runtime mnn --model m -p 0 -n 0", bench.Config{}, 0, false, "nothing to measure"},
		{"mnn config elsewhere", "--runtime llamacpp --model m --mnn-config {}", bench.Config{}, 0, false, "--mnn-config (mnn): not flags of --runtime llamacpp"},
		{"mnn config not json", "--runtime mnn --model m --mnn-config [1]", bench.Config{}, 0, false, "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseBench(t, tt.args, tt.wantErr)
			if got == nil {
				return
			}
			if !reflect.DeepEqual(got.Config, tt.want) {
				t.Errorf("config = %+v, want %+v", got.Config, tt.want)
			}
			if got.Runtime.Name == "mnn" && got.Open == nil {
				t.Error("no mnn opener")
			}
			if got.Runtime.Threads != tt.threads || got.JSON != tt.json || got.Runtime.Workers != 1 {
				t.Errorf("threads %d json %v workers %d", got.Runtime.Threads, got.JSON, got.Runtime.Workers)
			}
		})
	}
}

// parseBench parses a bench command line without running it. With
// wantErr it checks that parsing fails with that text and returns nil.
func parseBench(t *testing.T, args, wantErr string) *BenchOptions {
	t.Helper()
	io, _, _, _ := TestStreams()
	var got *BenchOptions
	// The phone profiles ask for 4 threads: check them against a phone.
	phone := &drivers.Machine{Cores: 8}
	cmd := NewCmdBench(&Factory{IO: io, Machine: phone}, func(o *BenchOptions) error { got = o; return nil })
	cmd.SetArgs(strings.Fields(args))
	cmd.SetOut(io.Out)
	cmd.SetErr(io.ErrOut)
	err := cmd.Execute()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want it to contain %q", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestBenchDynamicOption(t *testing.T) {
	// llm_bench: (promptLen <= 300 && promptLen != 0) ? 0 : 8 with -dyo 0.
	for n, want := range map[int]int{0: 8, 1: 0, 64: 0, 300: 0, 301: 8, 512: 8, 1024: 8} {
		if got := llmBenchDynamicOption(n); got != want {
			t.Errorf("llmBenchDynamicOption(%d) = %d, want %d", n, got, want)
		}
	}
	req := func(np int, spec bool) bench.OpenRequest {
		return bench.OpenRequest{Test: bench.Test{NPrompt: np}, Speculative: spec}
	}
	tests := []struct {
		name  string
		extra map[string]any
		req   bench.OpenRequest
		want  map[string]any
	}{
		{"decode-only test", nil, req(0, false), map[string]any{"dynamic_option": 8}},
		{"short prefill", nil, req(64, false), map[string]any{"dynamic_option": 0}},
		{"long prefill", map[string]any{"attention_mode": 10.0}, req(512, false), map[string]any{"dynamic_option": 8, "attention_mode": 10.0}},
		{"set by the user", map[string]any{"dynamic_option": 0.0}, req(512, false), map[string]any{"dynamic_option": 0.0}},
		{"speculative side", nil, req(128, true), map[string]any{"dynamic_option": 0, "speculative_type": "lookahead"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mnnBenchConfig(tt.extra, tt.req, "lookahead")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("config %v, want %v", got, tt.want)
			}
		})
	}
	extra := map[string]any{"x": 1}
	mnnBenchConfig(extra, req(1, true), "lookahead")
	if len(extra) != 1 {
		t.Errorf("the user's config was modified: %v", extra)
	}
}

func TestBenchFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		check   func(t *testing.T, o *BenchOptions)
		wantErr string
	}{
		{"profile pocket-energy", "--runtime mnn --model m --profile pocket-energy", func(t *testing.T, o *BenchOptions) {
			want := bench.Config{PG: []bench.PG{{Prompt: 1024, Gen: 128}}, Reps: 3, Center: "median", Profile: "pocket-energy"}
			if !reflect.DeepEqual(o.Config, want) || o.Runtime.Threads != 4 {
				t.Errorf("config %+v threads %d, want %+v and 4", o.Config, o.Runtime.Threads, want)
			}
		}, ""},
		{"profile with overrides", "--runtime mnn --model m --profile pocket-release --threads 1 --rep 7 -n 0", func(t *testing.T, o *BenchOptions) {
			want := bench.Config{Prompt: 512, Reps: 7, Center: "median", Profile: "pocket-release"}
			if !reflect.DeepEqual(o.Config, want) || o.Runtime.Threads != 1 {
				t.Errorf("config %+v threads %d, want %+v and 1", o.Config, o.Runtime.Threads, want)
			}
		}, ""},
		{"energy flags", "--runtime mnn --model m --pg 8,4 --rep 3 --energy battery --energy-interval 50ms --battery-mah 6000 --battery-volts 3.87",
			func(t *testing.T, o *BenchOptions) {
				e := o.Energy
				if e.Kind != "battery" || e.Interval != 50*time.Millisecond || e.BatteryMAh != 6000 || e.BatteryV != 3.87 || e.Inferences != 1 {
					t.Errorf("energy flags %+v", e)
				}
			}, ""},
		{"speculative", "--runtime mnn --model m --pg 8,4 --speculative lookahead", func(t *testing.T, o *BenchOptions) {
			if !o.Config.Speculative || o.Runtime.Speculative != "lookahead" {
				t.Errorf("speculative %v %q", o.Config.Speculative, o.Runtime.Speculative)
			}
		}, ""},
		{"llamacpp draft", "--runtime llamacpp --model m -p 0 -n 16 --speculative draft --draft-model d.gguf --draft-max 5", func(t *testing.T, o *BenchOptions) {
			_, f, _ := o.Runtime.driver()
			if !o.Config.Speculative || o.Runtime.Speculative != "draft" || fmt.Sprintf("%+v", f) != "&{ContextSize:0 Batch:off PrefixCache:auto FlashAttn:auto threads:1 DraftModel:d.gguf DraftMax:5 DraftMin:0 DraftPMin:0}" {
				t.Errorf("speculative %v %q, flags %+v", o.Config.Speculative, o.Runtime.Speculative, f)
			}
		}, ""},
		{"unknown profile", "--runtime mnn --model m --profile fast", nil, `--profile "fast": want one of pocket-energy, pocket-release`},
		{"bad center", "--runtime mnn --model m --center mode", nil, "--center"},
		{"bad energy source", "--runtime mnn --model m --energy gpu", nil, `--energy "gpu"`},
		{"slow sampling", "--runtime mnn --model m --energy rapl --energy-interval 1s", nil, "at most 100ms"},
		{"energy needs 3 rounds", "--runtime mnn --model m --energy rapl --rep 2", nil, "at least 3 measured rounds"},
		{"speculative needs decoding", "--runtime mnn --model m -p 64 -n 0 --speculative lookahead", nil, "decodes nothing"},
		{"a mode of another runtime", "--runtime llamacpp --model m --speculative lookahead", nil, `--speculative "lookahead": want one of draft`},
		{"draft without a model", "--runtime llamacpp --model m --speculative draft", nil, "--speculative draft needs --draft-model FILE"},
		{"draft flags without speculative", "--runtime llamacpp --model m --draft-model d.gguf", nil, "need --speculative draft"},
		{"draft-min above draft-max", "--runtime llamacpp --model m --speculative draft --draft-model d.gguf --draft-max 2 --draft-min 3", nil, "--draft-min must be between 0 and --draft-max (2), got 3"},
		{"draft flags elsewhere", "--runtime mnn --model m --draft-max 4", nil, "--draft-max (llamacpp): not flags of --runtime mnn"},
		{"unknown speculative type", "--runtime mnn --model m --speculative draftmodel", nil, `--speculative "draftmodel": want one of lookahead, mtp, eagle, dflash`},
		{"no synthetic benchmark", "--runtime openai --model m --base-url http://127.0.0.1:1/v1", nil, "synthetic benchmarks"},
		{"verify is for run", "--runtime mnn --model m --speculative lookahead --speculative-verify", nil, "applies to run and serve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseBench(t, tt.args, tt.wantErr)
			if got == nil {
				return
			}
			tt.check(t, got)
		})
	}
}

// benchFake is a runtime with a Bench method whose timings are fixed.
type benchFake struct{ closed bool }

func (f *benchFake) Generate(context.Context, runtime.Request) (runtime.Response, error) {
	return runtime.Response{}, errors.New("not used")
}
func (f *benchFake) Close() error { f.closed = true; return nil }
func (f *benchFake) Bench(_ context.Context, r runtime.BenchRequest) (runtime.BenchResult, error) {
	return runtime.BenchResult{PromptTokens: r.NPrompt, GenTokens: r.NGen,
		PrefillTime: time.Duration(r.NPrompt) * time.Millisecond, DecodeTime: time.Duration(r.NGen) * 10 * time.Millisecond}, nil
}

type staticProbe struct{}

func (staticProbe) Memory() (int64, int64, error) { return 10 << 20, 30 << 20, nil }
func (staticProbe) ResetPeak() error              { return nil }
func (staticProbe) LoadAvg() ([3]float64, error)  { return [3]float64{0.1, 0.2, 0.3}, nil }

func TestBenchRun(t *testing.T) {
	io, _, out, _ := TestStreams()
	fake := &benchFake{}
	var opened []string
	opts := &BenchOptions{
		IO:      io,
		Runtime: RuntimeOptions{Name: "fake", Model: t.TempDir(), Threads: 1, Workers: 1},
		Config:  bench.Config{PG: []bench.PG{{Prompt: 64, Gen: 16}}, Reps: 2},
		JSON:    true,
		Probe:   staticProbe{},
		Open: func(_ context.Context, req bench.OpenRequest) (runtime.Runtime, error) {
			opened = append(opened, req.Test.Name)
			return fake, nil
		},
	}
	if err := benchRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(opened, []string{"pp64+tg16"}) || !fake.closed {
		t.Errorf("opened for %v, closed %v", opened, fake.closed)
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Name != "pp64+tg16" {
		t.Fatalf("rows %+v", rep.Rows)
	}
	if p, d := rep.Rows[0].Prefill.Median, rep.Rows[0].Decode.Median; p != 1000 || d != 100 {
		t.Errorf("prefill %g decode %g tok/s, want 1000 and 100", p, d)
	}
	if rep.Memory.IncrementBytes != 20<<20 {
		t.Errorf("memory increment %d", rep.Memory.IncrementBytes)
	}
}
