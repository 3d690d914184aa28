//go:build cgo && mnn

package mnn

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// These tests run the real engine on the shared tiny packages (random
// weights: they check shapes, counts, determinism and error paths, never
// content).

var tinyPackages = []string{"tiny-fp32", "tiny-int4"}

func openTiny(t *testing.T, name string, opts Options) *Runtime {
	t.Helper()
	r, err := Open(context.Background(), filepath.Join(sharedDir(t, "models"), "mnn", name), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

var chat = runtime.Request{
	Messages: []runtime.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "What is the capital of France?"}},
	Gen:      runtime.GenConfig{MaxTokens: 24},
}

func TestEngineGenerate(t *testing.T) {
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			r := openTiny(t, name, Options{})
			first, err := r.Generate(context.Background(), chat)
			if err != nil {
				t.Fatal(err)
			}
			if first.PromptTokens <= 0 || first.CompletionTokens > 24 || !utf8.ValidString(first.Text) {
				t.Errorf("response %+v", first)
			}
			switch first.FinishReason {
			case runtime.FinishLength:
				if first.CompletionTokens != 24 {
					t.Errorf("finish length after %d tokens", first.CompletionTokens)
				}
			case runtime.FinishStop:
			default:
				t.Errorf("finish reason %q", first.FinishReason)
			}
			tm := first.Timings
			if first.CompletionTokens > 0 && (tm.TimeToFirstToken <= 0 || tm.DecodeTokPerSec <= 0 || tm.TimeToFirstToken > tm.Total) {
				t.Errorf("timings %+v", tm)
			}
			if tm.PrefillTokPerSec <= 0 || tm.Total <= 0 {
				t.Errorf("timings %+v", tm)
			}
			// Greedy decoding is deterministic, and requests do not leak
			// into each other (the KV cache is reset).
			if _, err := r.Generate(context.Background(), runtime.Request{Prompt: "unrelated text first", Gen: runtime.GenConfig{MaxTokens: 8}}); err != nil {
				t.Fatal(err)
			}
			again, err := r.Generate(context.Background(), chat)
			if err != nil {
				t.Fatal(err)
			}
			if again.Text != first.Text || again.CompletionTokens != first.CompletionTokens {
				t.Errorf("second run differs:\n%q\n%q", first.Text, again.Text)
			}
			// The raw prompt is not templated: fewer prompt tokens.
			raw, err := r.Generate(context.Background(), runtime.Request{Prompt: "What is the capital of France?", Gen: runtime.GenConfig{MaxTokens: 4}})
			if err != nil {
				t.Fatal(err)
			}
			if raw.PromptTokens >= first.PromptTokens {
				t.Errorf("raw prompt %d tokens, chat %d", raw.PromptTokens, first.PromptTokens)
			}
		})
	}
}

func TestEngineStopString(t *testing.T) {
	r := openTiny(t, "tiny-int4", Options{})
	full, err := r.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 32}})
	if err != nil {
		t.Fatal(err)
	}
	if utf8.RuneCountInString(full.Text) < 6 {
		t.Skipf("greedy output too short to pick a stop string: %q", full.Text)
	}
	// Stop at a two-rune substring from the middle of the greedy output
	// (not one with U+FFFD, which stands for bytes the model produced).
	runes := []rune(full.Text)
	stop := ""
	for i := 4; i+2 <= len(runes) && stop == ""; i++ {
		if runes[i] != utf8.RuneError && runes[i+1] != utf8.RuneError {
			stop = string(runes[i : i+2])
		}
	}
	if stop == "" {
		t.Skipf("no clean two-rune window in %q", full.Text)
	}
	want := full.Text[:strings.Index(full.Text, stop)]
	got, err := r.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 32, Stop: []string{stop}}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want || got.FinishReason != runtime.FinishStop || got.CompletionTokens >= full.CompletionTokens {
		t.Errorf("with stop %q: %q (%s, %d tokens), want %q", stop, got.Text, got.FinishReason, got.CompletionTokens, want)
	}
}

func TestEngineWorkers(t *testing.T) {
	r := openTiny(t, "tiny-fp32", Options{Workers: 3})
	ref, err := r.Generate(context.Background(), chat)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	out := make([]runtime.Response, 9)
	errs := make([]error, len(out))
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = r.Generate(context.Background(), chat)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Text != ref.Text {
			t.Errorf("worker result %d differs from the sequential reference:\n%q\n%q", i, o.Text, ref.Text)
		}
	}
	if got := r.Describe().Settings["workers"]; got != 3 {
		t.Errorf("workers = %v", got)
	}
}

func TestEngineRejectsAndCancels(t *testing.T) {
	r := openTiny(t, "tiny-int4", Options{})
	if _, err := r.Generate(context.Background(), runtime.Request{Prompt: "x", Gen: runtime.GenConfig{Temperature: -1}}); err == nil {
		t.Error("negative temperature accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Generate(ctx, chat); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if _, err := r.Generate(context.Background(), chat); err != nil {
		t.Errorf("after a cancelled request: %v", err)
	}
}

// TestEngineSampling checks sampling in Go from the engine's logits: a
// seed reproduces the text, and a vanishing temperature reproduces MNN's
// own greedy decoding token for token (which checks that the
// forward-logits path keeps the KV cache the way MNN's decoder does).
func TestEngineSampling(t *testing.T) {
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			r := openTiny(t, name, Options{})
			greedy, err := r.Generate(context.Background(), chat)
			if err != nil {
				t.Fatal(err)
			}
			cold := chat
			cold.Gen.Temperature = 1e-6
			got, err := r.Generate(context.Background(), cold)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != greedy.Text || got.CompletionTokens != greedy.CompletionTokens || got.FinishReason != greedy.FinishReason {
				t.Errorf("temperature 1e-6 differs from greedy:\n%q (%d, %s)\n%q (%d, %s)", got.Text, got.CompletionTokens, got.FinishReason,
					greedy.Text, greedy.CompletionTokens, greedy.FinishReason)
			}
			hot := chat
			hot.Gen.Temperature, hot.Gen.TopP, hot.Gen.Seed = 1.5, 0.95, 1234
			a, err := r.Generate(context.Background(), hot)
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.Generate(context.Background(), hot)
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != b.Text || a.CompletionTokens != b.CompletionTokens {
				t.Errorf("same seed, different samples:\n%q\n%q", a.Text, b.Text)
			}
			if a.Text == greedy.Text {
				t.Errorf("sampling at temperature 1.5 reproduced the greedy text %q", a.Text)
			}
			if a.Timings.PrefillTokPerSec <= 0 || (a.CompletionTokens > 1 && a.Timings.DecodeTokPerSec <= 0) {
				t.Errorf("timings %+v", a.Timings)
			}
			// Greedy decoding still works after sampling.
			again, err := r.Generate(context.Background(), chat)
			if err != nil || again.Text != greedy.Text {
				t.Errorf("greedy after sampling: %q, %v; want %q", again.Text, err, greedy.Text)
			}
		})
	}
}

func TestEngineOpenErrors(t *testing.T) {
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "missing"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing package: %v", err)
	}
	if _, err := Open(context.Background(), "x", Options{Precision: "fp8"}); err == nil || !strings.Contains(err.Error(), "precision") {
		t.Errorf("bad precision: %v", err)
	}
	// A package whose tokenizer is garbage: MNN's load fails, Open reports it.
	src := filepath.Join(sharedDir(t, "models"), "mnn", "tiny-int4")
	dir := t.TempDir()
	for _, f := range []string{"config.json", "llm_config.json", "llm.mnn", "llm.mnn.weight", "embeddings_bf16.bin"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.txt"), []byte("not a tokenizer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := Open(context.Background(), dir, Options{}); err == nil {
		r.Close()
		t.Error("Open succeeded with a broken tokenizer")
	}
}

// TestEngineLoglik checks the log-likelihood against the decoder itself:
// the tokens greedy decoding picks are greedy under Loglik, log-probabilities
// obey the chain rule, and a changed token is no longer greedy.
func TestEngineLoglik(t *testing.T) {
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			r := openTiny(t, name, Options{})
			s, err := r.pool.acquire(context.Background(), r.closedChan)
			if err != nil {
				t.Fatal(err)
			}
			defer r.pool.release(s)
			e := s.e
			ctxIDs, err := e.Tokenize("The quick brown fox jumps over")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Prefill(ctxIDs, 0); err != nil {
				t.Fatal(err)
			}
			ids := append([]int(nil), ctxIDs...)
			for range 5 {
				_, st, err := e.Step()
				if err != nil {
					t.Fatal(err)
				}
				if st.Stopped {
					break
				}
				ids = append(ids, st.LastToken)
			}
			e.Reset()
			n, start := len(ids), len(ctxIDs)
			if n-start < 2 {
				t.Skipf("greedy decoding stopped after %d tokens", n-start)
			}
			lp, greedy, err := e.Loglik(ids, start, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !greedy || lp > 0 || math.IsNaN(lp) {
				t.Errorf("greedy continuation: logprob %g greedy %v", lp, greedy)
			}
			mid := start + 1
			a, _, err := e.Loglik(ids[:mid], start, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := e.Loglik(ids, mid, 0)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(a+b-lp) > 1e-3*math.Max(1, math.Abs(lp)) {
				t.Errorf("chain rule: %g + %g != %g", a, b, lp)
			}
			alt := append([]int(nil), ids...)
			alt[n-1] = (alt[n-1] + 7) % 500
			lpAlt, greedyAlt, err := e.Loglik(alt, start, 0)
			if err != nil {
				t.Fatal(err)
			}
			if greedyAlt || lpAlt >= lp {
				t.Errorf("changed last token: logprob %g (greedy %g) greedy %v", lpAlt, lp, greedyAlt)
			}
			// Generation still works after log-likelihood (all_logits is off
			// again and the KV cache is clear).
			if _, err := e.Prefill(ctxIDs, 0); err != nil {
				t.Fatal(err)
			}
			_, st, err := e.Step()
			if err != nil || st.LastToken != ids[start] {
				t.Errorf("decode after loglik: token %d err %v, want %d", st.LastToken, err, ids[start])
			}
			e.Reset()
		})
	}
}

func TestEngineLogLikelihoodAPI(t *testing.T) {
	r := openTiny(t, "tiny-int4", Options{Workers: 2, Precision: exactPrecision})
	reqs := []runtime.LoglikRequest{
		{Context: "The capital of France is", Continuation: " Paris"},
		{Context: "The capital of France is ", Continuation: "Berlin"},
		{Context: "1 + 1 =", Continuation: " 2"},
	}
	got, err := r.LogLikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.LogLikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i].Tokens <= 0 || got[i].LogProb >= 0 || got[i] != again[i] {
			t.Errorf("request %d: %+v then %+v", i, got[i], again[i])
		}
	}
}

func TestEngineBench(t *testing.T) {
	r := openTiny(t, "tiny-int4", Options{})
	res, err := r.Bench(context.Background(), runtime.BenchRequest{NPrompt: 64, NGen: 16})
	if err != nil {
		t.Fatal(err)
	}
	if res.PromptTokens != 64 || res.GenTokens <= 0 || res.GenTokens > 16 || res.PrefillTime <= 0 || res.DecodeTime <= 0 || res.LoadTime <= 0 {
		t.Errorf("pp64+tg16: %+v", res)
	}
	res, err = r.Bench(context.Background(), runtime.BenchRequest{NPrompt: 32})
	if err != nil || res.PromptTokens != 32 || res.GenTokens != 0 || res.PrefillTime <= 0 {
		t.Errorf("pp32: %+v %v", res, err)
	}
	res, err = r.Bench(context.Background(), runtime.BenchRequest{NGen: 8})
	if err != nil || res.PromptTokens != 0 || res.PrefillTime != 0 || res.DecodeTime <= 0 {
		t.Errorf("tg8: %+v %v", res, err)
	}
	info := r.Describe()
	if info.Version != Version() || !strings.HasPrefix(info.Version, "3.") || info.Settings["threads"] != 1 {
		t.Errorf("describe %+v", info)
	}
}

// BenchmarkEngineGenerate measures a chat request end to end through the
// Go runtime (template, tokenizer, prefill, per-token cgo steps) and
// reports MNN's prefill and decode tok/s. The package is the tiny shared
// one, or $POCKETEVAL_MNN_BENCH_MODEL (e.g. a Pocket-0.3B-shaped package).
func BenchmarkEngineGenerate(b *testing.B) {
	benchGenerate(b, runtime.GenConfig{MaxTokens: 32})
}

// BenchmarkEngineSample is BenchmarkEngineGenerate with temperature 0.8
// and top-p 0.95: sampling in Go from the engine's logits.
func BenchmarkEngineSample(b *testing.B) {
	benchGenerate(b, runtime.GenConfig{MaxTokens: 32, Temperature: 0.8, TopP: 0.95, Seed: 1})
}

func benchGenerate(b *testing.B, gen runtime.GenConfig) {
	model := os.Getenv("POCKETEVAL_MNN_BENCH_MODEL")
	if model == "" {
		model = filepath.Join(benchShared(b), "mnn", "tiny-int4")
	}
	r, err := Open(context.Background(), model, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	req := runtime.Request{Messages: []runtime.Message{{Role: "user", Content: strings.Repeat("Tell me a long story about a fox. ", 8)}},
		Gen: gen}
	if _, err := r.Generate(context.Background(), req); err != nil { // warm-up
		b.Fatal(err)
	}
	var pre, dec float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := r.Generate(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		pre += resp.Timings.PrefillTokPerSec
		dec += resp.Timings.DecodeTokPerSec
	}
	b.ReportMetric(pre/float64(b.N), "prefill-tok/s")
	b.ReportMetric(dec/float64(b.N), "decode-tok/s")
}

func benchShared(b *testing.B) string {
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			b.Fatal("go.mod not found")
		}
		dir = filepath.Dir(dir)
	}
	p := filepath.Join(dir, "..", "shared", "models")
	if _, err := os.Stat(p); err != nil {
		b.Skipf("shared models absent: %v", err)
	}
	return p
}

// TestConformance runs the shared runtime conformance suite on both tiny
// packages, with two workers so the concurrency rules exercise the pool.
func TestConformance(t *testing.T) {
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			r := openTiny(t, name, Options{Workers: 2})
			runtimetest.Test(t, r, runtimetest.Options{})
		})
	}
}

// TestEnginePrefixCache runs requests that share a few-shot preamble with
// the prefix cache on and off: on, most prompt tokens come from the
// engines' caches, and on the tiny packages the answers and
// log-likelihoods are exactly those computed from an empty cache.
func TestEnginePrefixCache(t *testing.T) {
	preamble := strings.Repeat("Q: What is two plus two? A: four.\n", 12)
	var gens []runtime.Request
	var logliks [][]runtime.LoglikRequest
	for i, q := range []string{"three plus one", "one plus one", "two plus five", "six minus two"} {
		gens = append(gens, runtime.Request{Messages: []runtime.Message{{Role: "user", Content: preamble + "Q: What is " + q + "? A:"}},
			Gen: runtime.GenConfig{MaxTokens: 12}})
		if i%2 == 0 {
			gens = append(gens, runtime.Request{Prompt: preamble + "Q: What is " + q + "? A:", Gen: runtime.GenConfig{MaxTokens: 12}})
		}
		var choices []runtime.LoglikRequest
		for _, c := range []string{" two", " four", " six", " eight"} {
			choices = append(choices, runtime.LoglikRequest{Context: preamble + "Q: What is " + q + "? A:", Continuation: c})
		}
		logliks = append(logliks, choices)
	}
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			run := func(r *Runtime) ([]runtime.Response, [][]runtime.LoglikResult) {
				var resps []runtime.Response
				var lls [][]runtime.LoglikResult
				for i, req := range gens {
					resp, err := r.Generate(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					resps = append(resps, resp)
					if i < len(logliks) {
						ll, err := r.LogLikelihood(context.Background(), logliks[i])
						if err != nil {
							t.Fatal(err)
						}
						lls = append(lls, ll)
					}
				}
				return resps, lls
			}
			off := openTiny(t, name, Options{PrefixCache: "off", Precision: exactPrecision})
			on := openTiny(t, name, Options{Workers: 2, Precision: exactPrecision})
			wantResp, wantLL := run(off)
			gotResp, gotLL := run(on)
			for i := range wantResp {
				if gotResp[i].Text != wantResp[i].Text || gotResp[i].PromptTokens != wantResp[i].PromptTokens {
					t.Errorf("request %d: %q (%d prompt tokens) with the prefix cache, %q (%d) without", i,
						gotResp[i].Text, gotResp[i].PromptTokens, wantResp[i].Text, wantResp[i].PromptTokens)
				}
			}
			for i := range wantLL {
				for j := range wantLL[i] {
					if gotLL[i][j] != wantLL[i][j] {
						t.Errorf("question %d choice %d: %+v with the prefix cache, %+v without", i, j, gotLL[i][j], wantLL[i][j])
					}
				}
			}
			offSt, onSt := off.PrefillStats(), on.PrefillStats()
			if offSt.Requested != onSt.Requested || offSt.Computed != offSt.Requested || onSt.Computed*3 > onSt.Requested {
				t.Errorf("prefill tokens: off %+v, on %+v (want the same requested, at most a third computed with the cache)", offSt, onSt)
			}
			t.Logf("prefix cache on: %d of %d prompt tokens computed", onSt.Computed, onSt.Requested)
		})
	}
}
