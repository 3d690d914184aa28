package cli

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
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
		{"defaults", "--runtime mnn --model m", bench.Config{Prompt: 512, Gen: 128, Reps: 5}, 1, false, ""},
		{"pg alone", "--runtime mnn --model m --pg 512,128 --threads 2", bench.Config{PG: []bench.PG{{Prompt: 512, Gen: 128}}, Reps: 5}, 2, false, ""},
		{"pg with p", "--runtime mnn --model m --pg 16,8 --pg 32,4 -p 64 --rep 2 --json",
			bench.Config{Prompt: 64, PG: []bench.PG{{Prompt: 16, Gen: 8}, {Prompt: 32, Gen: 4}}, Reps: 2}, 1, true, ""},
		{"short flags", "--runtime llamacpp --model m -p 8 -n 0", bench.Config{Prompt: 8, Reps: 5}, 1, false, ""},
		{"no runtime", "--model m", bench.Config{}, 0, false, "--runtime is required"},
		{"no model", "--runtime mnn", bench.Config{}, 0, false, "--model is required"},
		{"no bench", "--runtime openai --model m", bench.Config{}, 0, false, "--runtime openai has no synthetic benchmarks (runtimes that do: llamacpp, mnn)"},
		{"bad pg", "--runtime mnn --model m --pg 512", bench.Config{}, 0, false, `--pg "512": want N,M`},
		{"zero pg", "--runtime mnn --model m --pg 0,5", bench.Config{}, 0, false, "positive"},
		{"bad rep", "--runtime mnn --model m --rep 0", bench.Config{}, 0, false, "--rep must be positive"},
		{"nothing", "--runtime mnn --model m -p 0 -n 0", bench.Config{}, 0, false, "nothing to measure"},
		{"mnn config elsewhere", "--runtime llamacpp --model m --mnn-config {}", bench.Config{}, 0, false, "only to --runtime mnn"},
		{"mnn config not json", "--runtime mnn --model m --mnn-config [1]", bench.Config{}, 0, false, "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			io, _, _, _ := TestStreams()
			var got *BenchOptions
			cmd := NewCmdBench(&Factory{IO: io}, func(o *BenchOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Out)
			cmd.SetErr(io.ErrOut)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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

func TestBenchMNNConfig(t *testing.T) {
	tests := []struct {
		args string
		want map[string]any
	}{
		{"--runtime mnn --model m", map[string]any{"dynamic_option": 8}},
		{"--runtime mnn --model m --pg 512,128", map[string]any{"dynamic_option": 8}},
		{"--runtime mnn --model m --pg 300,16 -p 64", map[string]any{"dynamic_option": 0}},
		{"--runtime mnn --model m -n 32 -p 0", map[string]any{"dynamic_option": 0}},
		{`--runtime mnn --model m --mnn-config {"dynamic_option":0,"attention_mode":10}`, map[string]any{"dynamic_option": 0.0, "attention_mode": 10.0}},
		{"--runtime llamacpp --model m", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			io, _, _, _ := TestStreams()
			var got *BenchOptions
			cmd := NewCmdBench(&Factory{IO: io}, func(o *BenchOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.args))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.MNNConfig, tt.want) {
				t.Errorf("MNN config %v, want %v", got.MNNConfig, tt.want)
			}
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
	var opened RuntimeOptions
	opts := &BenchOptions{
		IO:      io,
		Runtime: RuntimeOptions{Name: "fake", Model: t.TempDir(), Threads: 1, Workers: 1},
		Config:  bench.Config{PG: []bench.PG{{Prompt: 64, Gen: 16}}, Reps: 2},
		JSON:    true,
		Probe:   staticProbe{},
		Open: func(_ context.Context, o RuntimeOptions) (runtime.Runtime, error) {
			opened = o
			return fake, nil
		},
	}
	if err := benchRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if opened.Name != "fake" || !fake.closed {
		t.Errorf("opened %+v closed %v", opened, fake.closed)
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
