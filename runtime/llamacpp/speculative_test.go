//go:build !nollamacpp

package llamacpp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/randmodel"
	"github.com/pocketeval/pocketeval/runtime"
)

// writeQwen writes a random-weight qwen3 model of the tiny shape (changed
// by shape) with the synthetic 512-token vocabulary (changed by vocab) to
// the test's temporary directory.
func writeQwen(t testing.TB, name string, seed uint64, shape func(*randmodel.Shape), vocab func(*randmodel.Vocab)) string {
	t.Helper()
	s := randmodel.Shapes["tiny"]
	if shape != nil {
		shape(&s)
	}
	v, err := randmodel.SyntheticBPE(s.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	if vocab != nil {
		vocab(v)
	}
	p := filepath.Join(t.TempDir(), name+".gguf")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := randmodel.Write(f, s, randmodel.Options{Name: name, Type: gguf.Q8_0, Vocab: v, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return p
}

// generateAll answers every prompt greedily, concurrently, in order of the
// prompts.
func generateAll(t *testing.T, rt *Runtime, prompts []string, maxTokens int) []runtime.Response {
	t.Helper()
	out := make([]runtime.Response, len(prompts))
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Go(func() {
			var err error
			if out[i], err = rt.Generate(context.Background(), runtime.Request{Prompt: p, Gen: runtime.GenConfig{MaxTokens: maxTokens}}); err != nil {
				t.Errorf("prompt %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	return out
}

// checkSameText fails for every response whose text or finish reason
// differs from the reference's.
func checkSameText(t *testing.T, want, got []runtime.Response) {
	t.Helper()
	for i := range want {
		if got[i].Text != want[i].Text || got[i].FinishReason != want[i].FinishReason || got[i].CompletionTokens != want[i].CompletionTokens {
			t.Errorf("request %d: with drafts %q (%s, %d tokens), without %q (%s, %d tokens)", i,
				got[i].Text, got[i].FinishReason, got[i].CompletionTokens, want[i].Text, want[i].FinishReason, want[i].CompletionTokens)
		}
	}
}

// TestSpeculativeIdentity checks that greedy decoding with a draft model
// gives exactly the text plain decoding gives: the trained story model as
// its own draft (every draft accepted), with batching off and on, and a
// random qwen3 model with an unrelated one-layer draft of its vocabulary
// (half the drafts rejected, so the rollback of rejected cells runs at
// most steps), with batching off. Batched, the random model's greedy text
// moves with the batch's composition, drafts or not (its logits are
// sensitive to the last bits batched kernels change; see TestBatchModes
// and docs/speculative.md), so that case is not expected to be identical.
func TestSpeculativeIdentity(t *testing.T) {
	story := modelPath(t, stories)
	qwen := writeQwen(t, "target", 3, nil, nil)
	qwenDraft := writeQwen(t, "draft", 4, func(s *randmodel.Shape) { s.Layers = 1 }, nil)
	// The synthetic vocabulary merges byte pairs regardless of words; a
	// newline keeps the prompt's tokens apart from the generated ones.
	qwenPrompts := make([]string, len(storyPrompts))
	for i, p := range storyPrompts {
		qwenPrompts[i] = p + "\n"
	}
	off, on := Options{Batch: "off", Workers: 1}, Options{Batch: "on", Workers: 3}
	tests := []struct {
		name          string
		target, draft string
		prompts       []string
		modes         []Options
		minAccept     float64 // acceptance rate expected
		maxAccept     float64
	}{
		{"stories260K as its own draft", story, story, storyPrompts, []Options{off, on}, 0.95, 1},
		{"random qwen3 with an unrelated draft", qwen, qwenDraft, qwenPrompts, []Options{off}, 0.2, 0.8},
	}
	for _, tt := range tests {
		for _, mode := range tt.modes {
			t.Run(fmt.Sprintf("%s/batch=%s", tt.name, mode.Batch), func(t *testing.T) {
				plain := mode
				plain.Model = tt.target
				spec := plain
				spec.DraftModel, spec.DraftMax = tt.draft, 4
				ref, err := Open(context.Background(), plain)
				if err != nil {
					t.Fatal(err)
				}
				defer ref.Close()
				rt, err := Open(context.Background(), spec)
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close()
				want := generateAll(t, ref, tt.prompts, 48)
				got := generateAll(t, rt, tt.prompts, 48)
				checkSameText(t, want, got)
				st := rt.SpeculativeStats()
				tokens := 0
				for _, r := range got {
					tokens += sampled(r) - 1 // the first comes from the prefill
				}
				if st.Steps+st.Accepted < int64(tokens) || st.Drafted == 0 {
					t.Errorf("stats %+v for %d decoded tokens: each step gives its accepted drafts plus one", st, tokens)
				}
				rate := float64(st.Accepted) / float64(st.Drafted)
				t.Logf("%+v: acceptance %.3f, %.2f tokens per step", st, rate, float64(tokens)/float64(st.Steps))
				if rate < tt.minAccept || rate > tt.maxAccept {
					t.Errorf("acceptance %.3f (%d/%d), want within [%v, %v]", rate, st.Accepted, st.Drafted, tt.minAccept, tt.maxAccept)
				}
				checkCells(t, rt)
			})
		}
	}
}

// checkCells checks that every sequence of the target and the draft
// context holds exactly the cells its token list says: nothing of a
// rejected draft is left behind.
func checkCells(t *testing.T, rt *Runtime) {
	t.Helper()
	for _, d := range rt.sched.decoders {
		for _, sl := range d.slots {
			if got := seqLen(d.mem, sl.seq); got != len(sl.cache) {
				t.Errorf("target sequence %d: cells up to position %d, want %d tokens", sl.seq, got, len(sl.cache))
			}
		}
		if d.draft == nil {
			continue
		}
		for s, toks := range d.draft.seqs {
			if got := seqLen(d.draft.mem, llama.SeqId(s)); got != len(toks) {
				t.Errorf("draft sequence %d: cells up to position %d, want %d tokens", s, got, len(toks))
			}
		}
	}
}

// seqLen is one past the highest position seq holds (0 when empty).
func seqLen(mem llama.Memory, seq llama.SeqId) int {
	p, _ := llama.MemorySeqPosMax(mem, seq)
	return int(p) + 1
}

// TestSpeculativeVerify checks acceptance and rollback on a step whose
// outcome is set by the test: the target's "choices" come from a fake
// sampler, so every length of accepted prefix is tried.
func TestSpeculativeVerify(t *testing.T) {
	rt := open(t, stories, Options{Workers: 1, Batch: "off"})
	d := rt.sched.decoders[0]
	sl := d.slots[0]
	ctxToks := []llama.Token{1, 400, 401, 402}
	tests := []struct {
		name    string
		choices []llama.Token // the target's choice after each evaluated token
		want    []llama.Token
	}{
		// Evaluated: next token 50, then drafts 60, 61, 62.
		{"all rejected", []llama.Token{70, 0, 0, 0}, []llama.Token{70}},
		{"one accepted", []llama.Token{60, 71, 0, 0}, []llama.Token{60, 71}},
		{"two accepted", []llama.Token{60, 61, 72, 0}, []llama.Token{60, 61, 72}},
		{"all accepted", []llama.Token{60, 61, 62, 73}, []llama.Token{60, 61, 62, 73}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d.truncate(sl, 0)
			seg := append(append([]llama.Token{}, ctxToks...), 50, 60, 61, 62)
			d.batch.Clear()
			for i, tok := range seg {
				if err := d.batch.Add(tok, llama.Pos(i), sl.ids, true); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.decode(); err != nil {
				t.Fatal(err)
			}
			sl.cache = append(sl.cache[:0], seg...)
			first := int32(len(ctxToks))
			var asked []int32
			var c draftCounts
			got, err := d.verify(sl, 4, first, func(i int32) (llama.Token, error) {
				asked = append(asked, i)
				return tt.choices[i-first], nil
			}, &c)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("tokens %v, want %v", got, tt.want)
			}
			if len(asked) != len(tt.want) || asked[0] != first {
				t.Errorf("sampled at batch indices %v, want %d from %d", asked, len(tt.want), first)
			}
			if wantLen := len(ctxToks) + len(tt.want); len(sl.cache) != wantLen || seqLen(d.mem, sl.seq) != wantLen {
				t.Errorf("sequence holds %d tokens and cells up to %d, want %d (context, next token, accepted drafts)", len(sl.cache), seqLen(d.mem, sl.seq), wantLen)
			}
			if c != (draftCounts{steps: 1, drafted: 3, accepted: len(tt.want) - 1}) {
				t.Errorf("counts %+v, want 1 step, 3 drafted, %d accepted", c, len(tt.want)-1)
			}
		})
	}
}

// TestSpeculativeBench checks Bench's counts with the model as its own
// draft: drafts of DraftMax tokens, each step decoding up to DraftMax+1
// tokens, never past NGen.
func TestSpeculativeBench(t *testing.T) {
	story := modelPath(t, stories)
	rt := open(t, stories, Options{Workers: 1, DraftModel: story, DraftMax: 3, ContextSize: 256})
	res, err := rt.Bench(context.Background(), runtime.BenchRequest{NPrompt: 16, NGen: 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.GenTokens != 30 || res.DecodeTime <= 0 {
		t.Errorf("bench %+v: want 30 tokens decoded", res)
	}
	if res.VerifySteps+res.Accepted != 30 || res.Accepted > res.Drafted || res.Drafted > 3*res.VerifySteps {
		t.Errorf("%d steps, %d drafted, %d accepted: want steps + accepted = 30 tokens, at most 3 drafted a step", res.VerifySteps, res.Drafted, res.Accepted)
	}
	if res.VerifySteps < 8 { // ceil(30 / 4)
		t.Errorf("%d steps for 30 tokens with drafts of 3: want at least 8", res.VerifySteps)
	}
	// Plain Bench counts nothing.
	plain := open(t, stories, Options{Workers: 1, ContextSize: 256})
	if res, err := plain.Bench(context.Background(), runtime.BenchRequest{NPrompt: 16, NGen: 30}); err != nil || res.VerifySteps != 0 || res.Drafted != 0 {
		t.Errorf("plain bench: %+v, %v; want no speculative counts", res, err)
	}
}

// TestSpeculativeSampledPlain checks that sampled requests decode without
// drafts and give what they give without a draft model.
func TestSpeculativeSampledPlain(t *testing.T) {
	story := modelPath(t, stories)
	rt := open(t, stories, Options{Workers: 1, Batch: "off", DraftModel: story})
	plain := open(t, stories, Options{Workers: 1, Batch: "off"})
	req := runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 24, Temperature: 0.8, Seed: 7}}
	a, err := rt.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := plain.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != b.Text {
		t.Errorf("sampled with a draft model %q, without %q", a.Text, b.Text)
	}
	if st := rt.SpeculativeStats(); st != (SpeculativeStats{}) {
		t.Errorf("a sampled request drafted: %+v", st)
	}
	if s, _ := rt.Describe().Settings["speculative"].(string); !strings.Contains(s, "sampled requests decode without") {
		t.Errorf("Describe speculative = %q", s)
	}
}

// TestSpeculativeRefusals checks the draft models and settings Open
// refuses, each error naming what differs.
func TestSpeculativeRefusals(t *testing.T) {
	story := modelPath(t, stories)
	qwen := writeQwen(t, "target", 3, nil, nil)
	tests := []struct {
		name   string
		target string
		opts   Options
		want   string
		vocab  bool // ErrDraftVocab
	}{
		{"tokenizer type", story, Options{DraftModel: qwen}, "tokenizer type SPM in the target, BPE in the draft", true},
		{"token text", qwen, Options{DraftModel: writeQwen(t, "renamed", 3, nil, func(v *randmodel.Vocab) { v.Tokens[300] = "zz-not-the-same" })},
			`token 300 is`, true},
		{"vocabulary size", qwen, Options{DraftModel: writeQwen(t, "bigger", 3, func(s *randmodel.Shape) { s.Vocab = 1024 }, nil)},
			"512 tokens in the target, 1024 in the draft", true},
		{"not GGUF", qwen, Options{DraftModel: writeFile(t, "x.gguf", "not a model")}, "not a GGUF file", false},
		{"min above max", qwen, Options{DraftModel: qwen, DraftMax: 2, DraftMin: 3}, "min length 3 is above max 2", false},
		{"p-min", qwen, Options{DraftModel: qwen, DraftPMin: 1}, "p-min 1 is outside", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Model = tt.target
			rt, err := Open(context.Background(), o)
			if err == nil {
				rt.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tt.want) || errors.Is(err, ErrDraftVocab) != tt.vocab {
				t.Errorf("error %q: want it to contain %q (vocabulary error: %v)", err, tt.want, tt.vocab)
			}
		})
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkSpeculative measures greedy generation with and without a draft
// model on natural prompts: the target $POCKETEVAL_BENCH_GGUF, the draft
// $POCKETEVAL_BENCH_DRAFT (default: the target itself), drafts of
// $POCKETEVAL_BENCH_DRAFT_MAX tokens (default 3), $POCKETEVAL_BENCH_THREADS
// threads (default 1). Each round answers the story prompts with 64 new
// tokens each, in four configurations: one request at a time with batching
// off, and all six at once over 4 batched sequences, each without and with
// the draft; a round runs them in turn so that the machine's load hits
// them alike. It reports, per configuration, the median over rounds of the
// completion tokens per wall second of the whole round (prefill included)
// and, with the draft, the acceptance rate and tokens per target step, and
// how many answers differed from the configuration's plain text.
func BenchmarkSpeculative(b *testing.B) {
	model := os.Getenv("POCKETEVAL_BENCH_GGUF")
	if model == "" {
		b.Skip("set POCKETEVAL_BENCH_GGUF to a GGUF model to measure")
	}
	draft := cmp.Or(os.Getenv("POCKETEVAL_BENCH_DRAFT"), model)
	draftMax := envInt("POCKETEVAL_BENCH_DRAFT_MAX", 3)
	threads := envInt("POCKETEVAL_BENCH_THREADS", 1)
	prompts := []string{
		"Write a short story about a girl who finds a lost dog in the park.",
		"Explain why the sky is blue to a seven-year-old child.",
		"List three ways to save water at home, with one sentence each.",
		"What is the capital of France, and what is it famous for?",
		"Describe your favourite meal and how to cook it.",
		"Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether?",
	}
	type config struct {
		name      string
		opts      Options
		conc      int
		rt        *Runtime
		rates     []float64
		texts     []string // the first round's answers
		differed  int
		stats     SpeculativeStats
		reference *config
	}
	var configs []*config
	for _, m := range []struct {
		name string
		opts Options
		conc int
	}{{"alone", Options{Batch: "off", Workers: 1}, 1}, {"batched-4", Options{Batch: "on", Workers: 4}, len(prompts)}} {
		plain := &config{name: m.name + "-plain", opts: m.opts, conc: m.conc}
		spec := &config{name: m.name + "-draft", opts: m.opts, conc: m.conc, reference: plain}
		spec.opts.DraftModel, spec.opts.DraftMax = draft, draftMax
		configs = append(configs, plain, spec)
	}
	for _, c := range configs {
		c.opts.Model, c.opts.Threads, c.opts.ContextSize = model, threads, 512
		rt, err := Open(context.Background(), c.opts)
		if err != nil {
			b.Fatal(err)
		}
		defer rt.Close()
		c.rt = rt
	}
	for b.Loop() {
		for _, c := range configs {
			texts := make([]string, len(prompts))
			tokens := 0
			var mu sync.Mutex
			sem := make(chan struct{}, c.conc)
			var wg sync.WaitGroup
			start := time.Now()
			for i, p := range prompts {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					resp, err := c.rt.Generate(context.Background(), runtime.Request{Prompt: p, Gen: runtime.GenConfig{MaxTokens: 64}})
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					texts[i], tokens = resp.Text, tokens+resp.CompletionTokens
					mu.Unlock()
				})
			}
			wg.Wait()
			c.rates = append(c.rates, float64(tokens)/time.Since(start).Seconds())
			if c.texts == nil {
				c.texts = texts
			}
		}
	}
	for _, c := range configs {
		slices.Sort(c.rates)
		b.ReportMetric(c.rates[len(c.rates)/2], c.name+"-tok/s")
		if c.reference == nil {
			continue
		}
		for i := range prompts {
			if c.texts[i] != c.reference.texts[i] {
				c.differed++
			}
		}
		st := c.rt.SpeculativeStats()
		b.ReportMetric(float64(st.Accepted)/float64(max(st.Drafted, 1)), c.name+"-acceptance")
		b.ReportMetric(float64(st.Steps+st.Accepted)/float64(max(st.Steps, 1)), c.name+"-tokens/step")
		b.ReportMetric(float64(c.differed), c.name+"-texts-differing")
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
