//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

const (
	stories = "stories260K.gguf"         // trained: coherent text, 512-token vocab
	random  = "llama-2-tiny-random.gguf" // random weights, Llama-2 32K vocab
)

// modelPath returns <repo>/../shared/models/gguf/name, skipping the test
// when the shared models or the llama.cpp libraries are not installed.
func modelPath(t testing.TB, name string) string {
	t.Helper()
	if _, err := LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	p := filepath.Join(sharedtest.Models(t), "gguf", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test model missing: %v", err)
	}
	return p
}

// open opens a model with one thread and closes it when the test ends.
func open(t testing.TB, name string, opts Options) *Runtime {
	t.Helper()
	opts.Model = modelPath(t, name)
	rt, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func TestConformance(t *testing.T) {
	tests := []struct {
		model string
		opts  Options
		check runtimetest.Options
	}{
		{stories, Options{Workers: 2}, runtimetest.Options{}},
		{stories, Options{Workers: 1, ContextSize: 256, BatchSize: 8}, runtimetest.Options{}},
		{random, Options{Workers: 2}, runtimetest.Options{Prompt: "Пример текста: 日本語のテキストと絵文字 😀"}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			rt := open(t, tt.model, tt.opts)
			runtimetest.Test(t, rt, tt.check)
		})
	}
}

func TestGenerateGreedyStory(t *testing.T) {
	rt := open(t, stories, Options{})
	resp, err := rt.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 20}})
	if err != nil {
		t.Fatal(err)
	}
	// Shape only: 5 prompt tokens (BOS + 4 words in this vocabulary), a
	// full budget, timings measured.
	if resp.PromptTokens != 5 || resp.CompletionTokens != 20 || resp.FinishReason != runtime.FinishLength {
		t.Errorf("got %d prompt, %d completion tokens, finish %q; want 5, 20, length", resp.PromptTokens, resp.CompletionTokens, resp.FinishReason)
	}
	tm := resp.Timings
	if tm.TimeToFirstToken <= 0 || tm.Total < tm.TimeToFirstToken || tm.PrefillTokPerSec <= 0 || tm.DecodeTokPerSec <= 0 {
		t.Errorf("timings not all measured: %+v", tm)
	}
}

func TestGenerateBOSNotDoubled(t *testing.T) {
	rt := open(t, stories, Options{})
	count := func(prompt string) int {
		t.Helper()
		resp, err := rt.Generate(context.Background(), runtime.Request{Prompt: prompt, Gen: runtime.GenConfig{MaxTokens: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.PromptTokens
	}
	if a, b := count("Once upon a time"), count("<s>Once upon a time"); a != b {
		t.Errorf("prompt with its own BOS has %d tokens, without %d; want equal (one BOS)", b, a)
	}
}

func TestGenerateContextLimits(t *testing.T) {
	// llama.cpp rounds the context up (to 256 here); the limits are the
	// real size.
	rt := open(t, stories, Options{ContextSize: 32})
	ctx := context.Background()
	n := rt.nCtx
	if n < 32 || n > 512 {
		t.Fatalf("context of %d tokens for 32 asked", n)
	}

	long := strings.Repeat("the cat sat on the mat. ", n/4)
	_, err := rt.Generate(ctx, runtime.Request{Prompt: long, Gen: runtime.GenConfig{MaxTokens: 4}})
	if !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("prompt longer than the context: got error %v, want ErrPromptTooLong", err)
	}

	// The generation fills the context, then stops with "length".
	resp, err := rt.Generate(ctx, runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason == runtime.FinishLength && resp.PromptTokens+resp.CompletionTokens != n+1 {
		t.Errorf("context of %d filled by %d prompt + %d completion tokens; want %d (the last token is sampled from the last position)", n, resp.PromptTokens, resp.CompletionTokens, n+1)
	}
	if resp.PromptTokens+resp.CompletionTokens > n+1 {
		t.Errorf("generated past the context: %d + %d tokens", resp.PromptTokens, resp.CompletionTokens)
	}
}

func TestGenerateSampling(t *testing.T) {
	rt := open(t, stories, Options{})
	gen := func(seed int64, topP float64) string {
		t.Helper()
		resp, err := rt.Generate(context.Background(), runtime.Request{
			Prompt: "Once upon a time",
			Gen:    runtime.GenConfig{MaxTokens: 24, Temperature: 1.2, TopP: topP, Seed: seed},
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Text
	}
	seen := map[string]bool{}
	for seed := range int64(6) {
		a, b := gen(seed, 0), gen(seed, 0)
		if a != b {
			t.Errorf("seed %d gave %q then %q; the same seed must give the same text", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("six seeds at temperature 1.2 all gave %q; sampling seems to ignore the seed", gen(0, 0))
	}
	if a, b := gen(-1, 0.9), gen(-1, 0.9); a != b {
		t.Errorf("seed -1 (0xFFFFFFFF, llama.cpp's random seed) must still be reproducible; got %q then %q", a, b)
	}
}

func TestGenerateRejectsBadConfig(t *testing.T) {
	rt := open(t, stories, Options{})
	for _, g := range []runtime.GenConfig{
		{MaxTokens: -1},
		{Temperature: -0.5},
		{TopP: 1.5},
		{Temperature: math.NaN()},
	} {
		if _, err := rt.Generate(context.Background(), runtime.Request{Prompt: "Hi", Gen: g}); err == nil {
			t.Errorf("Generate with %+v: no error", g)
		}
	}
	if _, err := rt.Generate(context.Background(), runtime.Request{Prompt: "a\x00b"}); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("prompt with a NUL byte: got %v, want an error naming the NUL byte", err)
	}
}

// TestPiecesReassembleRunes feeds text whose runes the Llama-2 vocabulary
// splits into byte tokens (the emoji) and checks that joining token bytes
// restores it exactly, and that a rune cut by the token limit is dropped
// rather than turned into garbage.
func TestPiecesReassembleRunes(t *testing.T) {
	rt := open(t, random, Options{})
	text := "Grüße, 日本語 😀 ok"
	toks, err := rt.tokenize(text, false)
	if err != nil {
		t.Fatal(err)
	}
	d := rt.sched.decoders[0]
	var out []byte
	split := false
	for i, tk := range toks {
		piece := d.tokenPiece(tk)
		if !utf8.Valid(piece) {
			split = true
			// Up to here the bytes end mid-rune: the visible text must be
			// the valid prefix only.
			if got := validUTF8(append(out, piece...)); !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) {
				t.Errorf("after token %d the text %q is not a clean prefix", i, got)
			}
		}
		out = append(out, piece...)
	}
	if !split {
		t.Fatalf("no token of %q was a partial rune; the test needs byte-fallback tokens", text)
	}
	if got := strings.TrimPrefix(validUTF8(out), " "); got != text {
		t.Errorf("reassembled %q, want %q", got, text)
	}
}

func TestGenerateUTF8(t *testing.T) {
	rt := open(t, random, Options{})
	for _, p := range []string{"😀😀", "日本語", "Привет"} {
		resp, err := rt.Generate(context.Background(), runtime.Request{Prompt: p, Gen: runtime.GenConfig{MaxTokens: 80}})
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(resp.Text) {
			t.Errorf("prompt %q: invalid UTF-8 %q", p, resp.Text)
		}
	}
}

func TestLogLikelihood(t *testing.T) {
	rt := open(t, stories, Options{Workers: 2})
	ctx := context.Background()
	const prompt = "Once upon a time"
	greedy, err := rt.Generate(ctx, runtime.Request{Prompt: prompt, Gen: runtime.GenConfig{MaxTokens: 6}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.LogLikelihood(ctx, []runtime.LoglikRequest{
		{Context: prompt, Continuation: greedy.Text},
		{Context: prompt, Continuation: " there was"},
		{Context: prompt + ", there", Continuation: " was"},
		{Context: prompt, Continuation: ", there"},
		{Context: prompt + " ", Continuation: "dragon"},
		{Context: prompt, Continuation: " dragon"},
		{Context: prompt, Continuation: ""},
		{Context: "", Continuation: "Once"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if g := res[0]; !g.IsGreedy || g.Tokens != greedy.CompletionTokens || g.LogProb >= 0 {
		t.Errorf("greedy continuation %q scored %+v; want is_greedy, %d tokens, logprob < 0", greedy.Text, g, greedy.CompletionTokens)
	}
	// Chain rule: log P(", there was") = log P(", there") + log P(" was" | ", there").
	ab := runtimeLoglik(t, rt, prompt, ", there was")
	if sum := res[3].LogProb + res[2].LogProb; math.Abs(sum-ab) > 1e-3 {
		t.Errorf("chain rule: log P(', there was') = %v but log P(', there') + log P(' was' | ..) = %v", ab, sum)
	}
	if res[4] != res[5] {
		t.Errorf("a context's trailing space must move to the continuation: %+v vs %+v", res[4], res[5])
	}
	if r := res[6]; r.LogProb != 0 || r.Tokens != 0 || !r.IsGreedy {
		t.Errorf("empty continuation scored %+v, want 0 logprob, 0 tokens, greedy", r)
	}
	if r := res[7]; r.Tokens < 1 || r.LogProb >= 0 || math.IsInf(r.LogProb, 0) {
		t.Errorf("empty context scored %+v, want a finite negative logprob over ≥1 token", r)
	}
}

func runtimeLoglik(t *testing.T, rt *Runtime, ctxText, cont string) float64 {
	t.Helper()
	res, err := rt.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: ctxText, Continuation: cont}})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].LogProb
}

func TestLogLikelihoodTruncation(t *testing.T) {
	rt := open(t, stories, Options{ContextSize: 64, BatchSize: 16})
	long := strings.Repeat("The dog ran in the park. ", rt.nCtx/4) // longer than the context
	res, err := rt.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: long, Continuation: " The dog"}})
	if err != nil {
		t.Fatalf("context longer than the window must be truncated from the left, got %v", err)
	}
	if r := res[0]; r.Tokens < 2 || r.LogProb >= 0 || math.IsInf(r.LogProb, 0) {
		t.Errorf("truncated request scored %+v", r)
	}
	_, err = rt.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: "Hi", Continuation: long}})
	if !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("continuation longer than the context: got %v, want ErrPromptTooLong", err)
	}
}

func TestLogLikelihoodCancelled(t *testing.T) {
	rt := open(t, stories, Options{Workers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := rt.LogLikelihood(ctx, []runtime.LoglikRequest{{Context: "a", Continuation: " b"}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled LogLikelihood returned %v, want context.Canceled", err)
	}
}

func TestBench(t *testing.T) {
	rt := open(t, stories, Options{ContextSize: 128})
	ctx := context.Background()
	n := rt.nCtx
	for _, req := range []runtime.BenchRequest{{NPrompt: 64, NGen: 16}, {NPrompt: 0, NGen: 8}, {NPrompt: 32, NGen: 0}} {
		res, err := rt.Bench(ctx, req)
		if err != nil {
			t.Fatalf("Bench(%+v): %v", req, err)
		}
		if res.PromptTokens != req.NPrompt || res.GenTokens != req.NGen {
			t.Errorf("Bench(%+v) reported %d prompt, %d generated tokens", req, res.PromptTokens, res.GenTokens)
		}
		if (req.NPrompt > 0) != (res.PrefillTime > 0) || (req.NGen > 0) != (res.DecodeTime > 0) {
			t.Errorf("Bench(%+v) times: %+v", req, res)
		}
	}
	if _, err := rt.Bench(ctx, runtime.BenchRequest{NPrompt: n, NGen: 1}); !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("bench larger than the context: got %v, want ErrPromptTooLong", err)
	}
}

func TestDescribe(t *testing.T) {
	rt := open(t, stories, Options{Threads: 1, Workers: 2})
	info := rt.Describe()
	if info.Name != "llamacpp" || !strings.Contains(info.Version, "llama.cpp commit ") || !filepath.IsAbs(info.Model) {
		t.Errorf("Describe = %+v", info)
	}
	for key, want := range map[string]any{"threads": 1, "workers": 2, "ctx_size": 2048, "n_vocab": 512} {
		if got := info.Settings[key]; got != want {
			t.Errorf("Settings[%q] = %v (%T), want %v", key, got, got, want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	modelPath(t, stories) // skips when the libraries are absent
	dir := t.TempDir()
	notGGUF := filepath.Join(dir, "model.gguf")
	os.WriteFile(notGGUF, []byte("this is not a model"), 0o644)
	empty := filepath.Join(dir, "empty.gguf")
	os.WriteFile(empty, nil, 0o644)
	truncated := filepath.Join(dir, "truncated.gguf")
	b, err := os.ReadFile(modelPath(t, stories))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(truncated, b[:4096], 0o644)

	tests := []struct {
		name    string
		opts    Options
		wantIs  error
		wantMsg string
	}{
		{"no model", Options{}, nil, "no model file"},
		{"missing file", Options{Model: filepath.Join(dir, "absent.gguf")}, fs.ErrNotExist, "absent.gguf"},
		{"not gguf", Options{Model: notGGUF}, ErrNotGGUF, `starts with "this"`},
		{"empty file", Options{Model: empty}, ErrNotGGUF, "shorter than 4 bytes"},
		{"truncated gguf", Options{Model: truncated}, nil, "load model"},
		{"missing libraries", Options{Model: modelPath(t, stories), LibDir: filepath.Join(dir, "nolibs")}, ErrLibraryMissing, "setup-llamacpp.sh"},
		{"negative context", Options{Model: modelPath(t, stories), ContextSize: -1}, nil, "negative context size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := Open(context.Background(), tt.opts)
			if err == nil {
				rt.Close()
				t.Fatal("Open succeeded")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestClose(t *testing.T) {
	rt := open(t, stories, Options{Workers: 2})
	// Close waits for running requests rather than freeing under them.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = rt.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 64}})
		})
	}
	rt.Close()
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("request %d racing Close: %v, want success or ErrClosed", i, err)
		}
	}
	if err := rt.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := rt.Generate(context.Background(), runtime.Request{Prompt: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Generate after Close: %v, want ErrClosed", err)
	}
	if _, err := rt.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: "a", Continuation: "b"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("LogLikelihood after Close: %v, want ErrClosed", err)
	}
}

// cancelAfter is a context whose Err reports cancellation from its n-th
// call on, making "cancelled mid-way" deterministic.
type cancelAfter struct {
	context.Context
	mu    sync.Mutex
	calls int
	n     int
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

func TestCancelMidway(t *testing.T) {
	rt := open(t, stories, Options{BatchSize: 8})
	long := strings.Repeat("The dog ran in the park. ", 10) // several prefill chunks
	tests := []struct {
		name  string
		req   runtime.Request
		calls int
	}{
		{"during prefill", runtime.Request{Prompt: long, Gen: runtime.GenConfig{MaxTokens: 1}}, 3},
		{"during decoding", runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 500}}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := &cancelAfter{Context: context.Background(), n: tt.calls}
			_, err := rt.Generate(ctx, tt.req)
			if err != context.Canceled {
				t.Errorf("Generate cancelled after %d checks returned %v, want context.Canceled itself", tt.calls, err)
			}
			if ctx.calls != tt.calls {
				t.Errorf("Generate kept checking the context after it was cancelled: %d checks, cancelled at %d", ctx.calls, tt.calls)
			}
		})
	}
	// The worker is usable afterwards.
	if _, err := rt.Generate(context.Background(), runtime.Request{Prompt: "Hi", Gen: runtime.GenConfig{MaxTokens: 2}}); err != nil {
		t.Errorf("Generate after a cancelled one: %v", err)
	}
}

func TestFlashAttentionOption(t *testing.T) {
	for _, fa := range []string{"", "on", "off"} {
		rt := open(t, stories, Options{FlashAttention: fa})
		resp, err := rt.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 8}})
		if err != nil || resp.CompletionTokens != 8 {
			t.Errorf("flash attention %q: %d tokens, %v", fa, resp.CompletionTokens, err)
		}
	}
	if _, err := Open(context.Background(), Options{Model: modelPath(t, stories), FlashAttention: "maybe"}); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("flash attention \"maybe\": got %v, want an error naming it", err)
	}
}

func TestLogRing(t *testing.T) {
	var r logRing
	log := func(level int32, s string) {
		b := append([]byte(s), 0)
		r.callback(level, &b[0], 0)
	}
	if got := r.since(r.mark()); got != "llama.cpp logged nothing" {
		t.Errorf("empty log: %q", got)
	}
	log(2, "info is not kept\n")
	m := r.mark()
	log(4, "failed to ")
	log(logLevelCont, "load\n")
	log(3, "a warning\n")
	if got, want := r.since(m), "llama.cpp said: failed to load; a warning"; got != want {
		t.Errorf("since = %q, want %q", got, want)
	}
	for i := range 2 * logRingSize {
		log(4, strings.Repeat("x", i)+"\n")
	}
	if got := strings.Count(r.since(m), ";") + 1; got != logRingSize {
		t.Errorf("kept %d lines, want the last %d", got, logRingSize)
	}
}

// TestLogLikelihoodChunking scores the same requests with prefill chunks of
// 3 tokens and of 512: the chunk boundaries (positions, which logits belong
// to which target) must not change the result beyond float noise.
func TestLogLikelihoodChunking(t *testing.T) {
	small := open(t, stories, Options{BatchSize: 3})
	big := open(t, stories, Options{})
	reqs := []runtime.LoglikRequest{
		{Context: "Once upon a time, there was a little girl named Lily.", Continuation: " She loved to play outside in the park."},
		{Context: "Tom", Continuation: " had a big red ball and a small blue car."},
	}
	a, err := small.LogLikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := big.LogLikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if math.Abs(a[i].LogProb-b[i].LogProb) > 1e-3 || a[i].Tokens != b[i].Tokens || a[i].IsGreedy != b[i].IsGreedy {
			t.Errorf("request %d: chunks of 3 gave %+v, chunks of 512 gave %+v", i, a[i], b[i])
		}
	}
}

// TestLogLikelihoodReusesContext checks that, with batching off, the
// choices of one question share the context's evaluation and that reuse
// changes no number: each result equals, bit for bit, the one computed from
// an empty cache.
func TestLogLikelihoodReusesContext(t *testing.T) {
	rt := open(t, stories, Options{Workers: 1, BatchSize: 4, Batch: "off"})
	ctx := context.Background()
	q := "Lily went to the park with her mom. She saw a big"
	reqs := []runtime.LoglikRequest{
		{Context: q, Continuation: " dog."}, {Context: q, Continuation: " tree."},
		{Context: q, Continuation: " red ball."}, {Context: "Tom", Continuation: " ran."},
	}
	batch, err := rt.LogLikelihood(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if sl := rt.sched.decoders[0].slots[0]; !sl.trunk || len(sl.cache) == 0 {
		t.Errorf("after the batch the sequence keeps no reusable context (trunk %v, %d tokens)", sl.trunk, len(sl.cache))
	}
	for i, req := range reqs {
		// A generation in between leaves the cache empty.
		if _, err := rt.Generate(ctx, runtime.Request{Prompt: "Hi", Gen: runtime.GenConfig{MaxTokens: 2}}); err != nil {
			t.Fatal(err)
		}
		alone, err := rt.LogLikelihood(ctx, []runtime.LoglikRequest{req})
		if err != nil {
			t.Fatal(err)
		}
		if alone[0] != batch[i] {
			t.Errorf("request %d: %+v with the context reused, %+v from scratch", i, batch[i], alone[0])
		}
	}
}
