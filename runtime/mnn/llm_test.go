package mnn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// fakeEngine scripts the shim: its tokenizer maps each byte to one id
// (plus an optional prefix id), Step emits pieces in turn and then a stop
// token.
type fakeEngine struct {
	mu       sync.Mutex
	busy     bool
	pieces   []string
	prefix   []int
	step     int
	resets   int
	closed   int
	prefill  [][]int
	loglik   [][2]int // (len(ids), start)
	forwards int      // Forward calls since the last start
	hook     func(step int)
	// perStep is the number of pieces one Step decodes (0: 1) and draft
	// the draft tokens each step checks besides the first.
	perStep, draft int
	ctx            int // tokens in the context
	// kv are the tokens the fake's KV cache holds (decoded ones as -1)
	// and keeps the keep of every request started; a request that asks to
	// keep what the cache does not hold fails, as a real engine would
	// silently compute garbage.
	kv    []int
	keeps []int
}

// begin starts a request of ids from keep cached tokens.
func (f *fakeEngine) begin(ids []int, keep int) error {
	if keep < 0 || keep >= len(ids) || keep > len(f.kv) || !slices.Equal(f.kv[:keep], ids[:keep]) {
		return fmt.Errorf("fake: cannot keep %d tokens of %v: the cache holds %v", keep, ids, f.kv)
	}
	f.kv = append(f.kv[:0:0], ids...)
	f.keeps = append(f.keeps, keep)
	return nil
}

func (f *fakeEngine) enter(t string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy {
		panic("fake engine used concurrently in " + t)
	}
	f.busy = true
}
func (f *fakeEngine) leave() { f.mu.Lock(); f.busy = false; f.mu.Unlock() }

func (f *fakeEngine) Template(msgs []runtime.Message) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<" + m.Role + ">" + m.Content)
	}
	return b.String() + "<assistant>", nil
}

func (f *fakeEngine) Tokenize(text string) ([]int, error) {
	ids := append([]int(nil), f.prefix...)
	for _, c := range []byte(text) {
		ids = append(ids, int(c))
	}
	return ids, nil
}

func (f *fakeEngine) Prefill(ids []int, keep int) (stats, error) {
	f.enter("Prefill")
	defer f.leave()
	if err := f.begin(ids, keep); err != nil {
		return stats{}, err
	}
	f.prefill = append(f.prefill, ids)
	f.step = 0
	f.ctx = len(ids)
	return stats{PromptTokens: len(ids), Prefill: 100 * time.Millisecond, FirstPiece: -1, CtxLen: len(ids), KVLen: len(ids)}, nil
}

// Step decodes perStep pieces (1 when 0), like a speculative step that
// checks draft+1 tokens and keeps them all; after the pieces it stops.
func (f *fakeEngine) Step() ([][]byte, stats, error) {
	f.enter("Step")
	defer f.leave()
	if f.hook != nil {
		f.hook(f.step)
	}
	st := stats{PromptTokens: len(f.prefill[len(f.prefill)-1]), Prefill: 100 * time.Millisecond, FirstPiece: 150 * time.Millisecond, CtxLen: f.ctx, KVLen: f.ctx}
	var out [][]byte
	for range max(f.perStep, 1) {
		if f.step >= len(f.pieces) {
			break
		}
		out = append(out, []byte(f.pieces[f.step]))
		f.kv = append(f.kv, -1)
		f.step++
	}
	if len(out) > 0 {
		st.KVLen = f.ctx + f.draft + 1
		f.ctx += len(out)
		st.CtxLen = f.ctx
	}
	st.GenTokens = f.step
	st.Decode = time.Duration(f.step) * 10 * time.Millisecond
	if len(out) < max(f.perStep, 1) {
		st.GenTokens, st.Stopped = f.step+1, true
	}
	return out, st, nil
}

func (f *fakeEngine) Reset() { f.resets++; f.kv = nil }

func (f *fakeEngine) Bench(ids []int, maxNew int) (stats, error) {
	return stats{PromptTokens: len(ids), GenTokens: maxNew, Prefill: time.Duration(len(ids)) * time.Millisecond,
		Decode: time.Duration(maxNew) * time.Millisecond, FirstPiece: -1}, nil
}

func (f *fakeEngine) Loglik(ids []int, start, keep int) (float64, bool, error) {
	f.enter("Loglik")
	defer f.leave()
	if keep >= start {
		return 0, false, fmt.Errorf("fake: keep %d reaches the continuation at %d", keep, start)
	}
	if err := f.begin(ids, keep); err != nil {
		return 0, false, err
	}
	f.loglik = append(f.loglik, [2]int{len(ids), start})
	return -float64(len(ids) - start), true, nil
}

func (f *fakeEngine) Close() error { f.closed++; return nil }

// fakeVocab is the fake's vocabulary for sampling: id 0 is the stop token,
// ids 1..15 print as 'a'..'o'.
const fakeVocab = 16

// Forward gives logits peaked at (last id + 1), spread enough that
// sampling at temperature 1 varies: logit = -|i - target|.
func (f *fakeEngine) Forward(ids []int, keep int) ([]float32, error) {
	f.enter("Forward")
	defer f.leave()
	if keep >= 0 {
		if err := f.begin(ids, keep); err != nil {
			return nil, err
		}
		f.prefill = append(f.prefill, ids)
		f.forwards = 0
	} else {
		f.kv = append(f.kv, ids...)
		f.forwards++
	}
	target := ids[len(ids)-1]%(fakeVocab-1) + 1
	l := make([]float32, fakeVocab)
	for i := range l {
		d := i - target
		if d < 0 {
			d = -d
		}
		l[i] = -float32(d)
	}
	l[0] = -6 // the stop token is unlikely
	return l, nil
}

func (f *fakeEngine) Piece(id int) []byte { return []byte{byte('a' + id - 1)} }
func (f *fakeEngine) IsStop(id int) bool  { return id == 0 }

// newFake is a runtime over fake engines with the prefix cache off: every
// request from an empty cache.
func newFake(t *testing.T, engines ...*fakeEngine) *Runtime {
	t.Helper()
	return newFakeOpts(t, Options{PrefixCache: "off"}, engines...)
}

func newFakeOpts(t *testing.T, opts Options, engines ...*fakeEngine) *Runtime {
	t.Helper()
	es := make([]engine, len(engines))
	for i, e := range engines {
		es[i] = e
	}
	opts, err := opts.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return newRuntime(opts, Package{Config: "pkg/config.json", MaxNewTokens: 4}, "3.6.1", time.Second, es)
}

func TestGenerate(t *testing.T) {
	pieces := []string{"Hel", "lo", " wor", "ld", "!"}
	tests := []struct {
		name       string
		req        runtime.Request
		pieces     []string
		wantText   string
		wantFinish string
		wantTokens int
		wantPrompt string
	}{
		{"chat, package limit", runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "hi"}}}, pieces,
			"Hello world", runtime.FinishLength, 4, "hi"}, // no template in the package: contents concatenated, as MNN does
		{"prompt, stop token", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 10}}, pieces,
			"Hello world!", runtime.FinishStop, 5, "x"},
		{"max tokens", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 2}}, pieces,
			"Hello", runtime.FinishLength, 2, "x"},
		{"stop string across pieces", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 10, Stop: []string{"o w"}}}, pieces,
			"Hell", runtime.FinishStop, 3, "x"},
		{"earliest stop wins", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 10, Stop: []string{"ld", "wor"}}}, pieces,
			"Hello ", runtime.FinishStop, 3, "x"},
		{"partial utf-8 joined", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 10}}, []string{"\xe4\xbd", "\xa0好"},
			"你好", runtime.FinishStop, 2, "x"},
		{"truncated utf-8 replaced", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 1}}, []string{"a\xe4\xbd", "\xa0"},
			"a\uFFFD", runtime.FinishLength, 1, "x"},
		{"immediate stop", runtime.Request{Prompt: "x"}, nil, "", runtime.FinishStop, 0, "x"},
	}
	// perStep 3 is a speculative engine whose steps decode three tokens:
	// the text, finish reason and token count must not change.
	for _, perStep := range []int{1, 3} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%d per step", tt.name, perStep), func(t *testing.T) {
				testGenerateCase(t, &fakeEngine{pieces: tt.pieces, perStep: perStep, draft: perStep - 1}, tt.req,
					tt.wantText, tt.wantFinish, tt.wantTokens, tt.wantPrompt)
			})
		}
	}
}

// testGenerateCase runs req on fe and checks the response.
func testGenerateCase(t *testing.T, fe *fakeEngine, req runtime.Request, wantText, wantFinish string, wantTokens int, wantPrompt string) {
	t.Helper()
	resp, err := newFake(t, fe).Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != wantText || resp.FinishReason != wantFinish || resp.CompletionTokens != wantTokens {
		t.Errorf("got %q %s %d tokens, want %q %s %d", resp.Text, resp.FinishReason, resp.CompletionTokens,
			wantText, wantFinish, wantTokens)
	}
	if resp.PromptTokens != len(wantPrompt) || string(bytesOf(fe.prefill[0])) != wantPrompt {
		t.Errorf("prompt = %q (%d tokens), want %q", bytesOf(fe.prefill[0]), resp.PromptTokens, wantPrompt)
	}
	if fe.resets != 1 {
		t.Errorf("engine reset %d times after the request, want 1", fe.resets)
	}
	tm := resp.Timings
	if tm.PrefillTokPerSec != float64(len(wantPrompt))/0.1 {
		t.Errorf("prefill tok/s = %g", tm.PrefillTokPerSec)
	}
	if wantTokens > 0 {
		if tm.DecodeTokPerSec != 100 {
			t.Errorf("decode tok/s = %g, want 100", tm.DecodeTokPerSec)
		}
		if tm.TimeToFirstToken < 150*time.Millisecond || tm.Total <= 0 {
			t.Errorf("ttft %v total %v", tm.TimeToFirstToken, tm.Total)
		}
	} else if tm.TimeToFirstToken != 0 || tm.DecodeTokPerSec != 0 {
		t.Errorf("no tokens but ttft %v decode %g", tm.TimeToFirstToken, tm.DecodeTokPerSec)
	}
}

func bytesOf(ids []int) []byte {
	b := make([]byte, len(ids))
	for i, v := range ids {
		b[i] = byte(v)
	}
	return b
}

func TestGenerateRejects(t *testing.T) {
	tests := []struct {
		name string
		req  runtime.Request
		is   error
	}{
		{"negative temperature", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{Temperature: -0.7}}, nil},
		{"top_p above 1", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{Temperature: 1, TopP: 1.5}}, nil},
		{"both", runtime.Request{Prompt: "x", Messages: []runtime.Message{{Role: "user", Content: "y"}}}, nil},
		{"neither", runtime.Request{}, nil},
		{"negative max", runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: -1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := &fakeEngine{pieces: []string{"a"}}
			_, err := newFake(t, fe).Generate(context.Background(), tt.req)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v does not wrap %v", err, tt.is)
			}
			if len(fe.prefill) != 0 {
				t.Error("engine ran for a rejected request")
			}
		})
	}
}

func TestGenerateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	fe := &fakeEngine{pieces: []string{"a", "b", "c", "d", "e"}, hook: func(step int) {
		if step == 2 {
			cancel()
		}
	}}
	r := newFake(t, fe)
	_, err := r.Generate(ctx, runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 5}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if fe.step != 3 {
		t.Errorf("engine stepped %d times, want 3 (stop after the step that saw the cancel)", fe.step)
	}
	if fe.resets != 1 {
		t.Errorf("resets = %d, want 1", fe.resets)
	}
	// The engine is back in the pool.
	if _, err := r.Generate(context.Background(), runtime.Request{Prompt: "x", Gen: runtime.GenConfig{MaxTokens: 1}}); err != nil {
		t.Fatal(err)
	}
}

func TestPoolConcurrency(t *testing.T) {
	engines := []*fakeEngine{{pieces: []string{"a", "b"}}, {pieces: []string{"a", "b"}}}
	r := newFake(t, engines...)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := r.Generate(context.Background(), runtime.Request{Prompt: "q"})
			if err == nil && resp.Text != "ab" {
				err = errors.New("text " + resp.Text)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := len(engines[0].prefill) + len(engines[1].prefill); n != 16 {
		t.Errorf("%d prefills, want 16", n)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for i, e := range engines {
		if e.closed != 1 {
			t.Errorf("engine %d closed %d times", i, e.closed)
		}
	}
	if _, err := r.Generate(context.Background(), runtime.Request{Prompt: "q"}); !errors.Is(err, errClosed) {
		t.Errorf("Generate after Close: %v", err)
	}
}

func TestAcquireHonoursContext(t *testing.T) {
	r := newFake(t, &fakeEngine{})
	s, err := r.pool.acquire(context.Background(), r.closedChan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Generate(ctx, runtime.Request{Prompt: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled while the only engine is busy", err)
	}
	r.pool.release(s)
}

func TestLogLikelihood(t *testing.T) {
	fe := &fakeEngine{prefix: []int{1}}
	r := newFake(t, fe)
	got, err := r.LogLikelihood(context.Background(), []runtime.LoglikRequest{
		{Context: "Question: ", Continuation: "yes"},
		{Context: "ab", Continuation: "c"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// "Question: " loses its trailing space to the continuation: 1 prefix +
	// 9 context tokens, then " yes" (4 tokens).
	want := []runtime.LoglikResult{{LogProb: -4, IsGreedy: true, Tokens: 4}, {LogProb: -1, IsGreedy: true, Tokens: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	wantCalls := map[[2]int]bool{{14, 10}: true, {4, 3}: true}
	for _, c := range fe.loglik {
		if !wantCalls[c] {
			t.Errorf("unexpected Loglik(len %d, start %d)", c[0], c[1])
		}
	}
	if _, err := r.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: "a", Continuation: ""}}); err == nil {
		t.Error("no error for an empty continuation")
	}
	noPrefix := newFake(t, &fakeEngine{})
	if _, err := noPrefix.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: "", Continuation: "x"}}); !errors.Is(err, runtime.ErrNotSupported) {
		t.Errorf("empty context without a prefix token: %v", err)
	}
}

func TestBench(t *testing.T) {
	r := newFake(t, &fakeEngine{})
	res, err := r.Bench(context.Background(), runtime.BenchRequest{NPrompt: 8, NGen: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.PromptTokens != 8 || res.GenTokens != 4 || res.PrefillTime != 8*time.Millisecond || res.LoadTime != time.Second {
		t.Errorf("first result %+v", res)
	}
	res, err = r.Bench(context.Background(), runtime.BenchRequest{NGen: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.PromptTokens != 0 || res.PrefillTime != 0 || res.GenTokens != 3 || res.LoadTime != 0 {
		t.Errorf("decode-only result %+v (load time only on the first call)", res)
	}
	if _, err := r.Bench(context.Background(), runtime.BenchRequest{}); err == nil {
		t.Error("no error for an empty bench request")
	}
}

func TestDescribe(t *testing.T) {
	info := newFake(t, &fakeEngine{}).Describe()
	if info.Name != "mnn" || info.Version != "3.6.1" || info.Model != "pkg/config.json" {
		t.Errorf("info %+v", info)
	}
	for k, v := range map[string]any{"threads": 1, "backend": "cpu", "precision": "low", "memory": "low", "workers": 1, "max_tokens": 4} {
		if info.Settings[k] != v {
			t.Errorf("settings[%s] = %v, want %v", k, info.Settings[k], v)
		}
	}
	// The manifest says why prefix reuse is not the default.
	if why, _ := info.Settings["prefix_cache_reason"].(string); !strings.Contains(why, "not bit-exact") {
		t.Errorf("settings[prefix_cache_reason] = %q, want the reason reuse is not exact", why)
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name    string
		in      Options
		wantErr string
	}{
		{"zero", Options{}, ""},
		{"threads", Options{Threads: -1}, "threads"},
		{"precision", Options{Precision: "fp16"}, "precision"},
		{"memory", Options{Memory: "tiny"}, "memory"},
		{"max tokens", Options{MaxTokens: -3}, "max tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := tt.in.withDefaults()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Threads != 1 || o.Workers != 1 || o.Backend != "cpu" || o.Precision != "low" || o.Memory != "low" {
				t.Errorf("defaults %+v", o)
			}
		})
	}
	o, _ := Options{Config: map[string]any{"attention_mode": 10}}.withDefaults()
	cfg, err := o.engineConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sampler_type":"greedy"`, `"thread_num":1`, `"async":false`, `"attention_mode":10`, `"reuse_kv":true`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("engine config %s lacks %s", cfg, want)
		}
	}
	// Without the prefix cache MNN clears the KV cache at every request.
	o, _ = Options{PrefixCache: "off"}.withDefaults()
	if cfg, _ := o.engineConfig(); !strings.Contains(cfg, `"reuse_kv":false`) {
		t.Errorf("prefix cache off: engine config %s lacks reuse_kv false", cfg)
	}
	if _, err := (Options{Config: map[string]any{"reuse_kv": true}}).withDefaults(); err == nil || !strings.Contains(err.Error(), "prefix-cache option") {
		t.Errorf("reuse_kv in Config: err = %v, want one naming the prefix-cache option", err)
	}
	if _, err := (Options{PrefixCache: "auto"}).withDefaults(); err == nil || !strings.Contains(err.Error(), "prefix cache") {
		t.Errorf("prefix cache auto: err = %v", err)
	}
}

// sharedDir returns <repo root>/../shared/<sub>, or $POCKETEVAL_DATA's
// sibling for datasets; tests skip when it is absent.
func sharedDir(t *testing.T, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test material absent: %v", err)
	}
	return p
}

func TestResolvePackage(t *testing.T) {
	tiny := filepath.Join(sharedDir(t, "models"), "mnn", "tiny-int4")
	for _, path := range []string{tiny, filepath.Join(tiny, "config.json")} {
		p, err := ResolvePackage(path)
		if err != nil {
			t.Fatal(err)
		}
		if p.Config != filepath.Join(tiny, "config.json") || p.Dir != tiny || p.MaxNewTokens != 64 {
			t.Errorf("ResolvePackage(%s) = %+v", path, p)
		}
		if len(p.Files) != 6 {
			t.Errorf("files %v, want 6", p.Files)
		}
	}

	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "config.json"), []byte(`{"llm_model":"llm.mnn","tokenizer_file":"tok.mtok"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"llm.mnn", "llm.mnn.weight"} {
		if err := os.WriteFile(filepath.Join(broken, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ResolvePackage(broken)
	if err == nil || !strings.Contains(err.Error(), "tokenizer_file") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing tokenizer: %v", err)
	}
	if _, err := ResolvePackage(filepath.Join(broken, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing package: %v", err)
	}
	if err := os.WriteFile(filepath.Join(broken, "config.json"), []byte(`{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolvePackage(broken); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("bad json: %v", err)
	}
}

func TestBenchStepwise(t *testing.T) {
	pieces := strings.Split("abcdefghijkl", "")
	tests := []struct {
		name                       string
		fe                         *fakeEngine
		nGen                       int
		gen, steps, drafted, accep int
	}{
		// plain decoding: one token per step, nothing drafted
		{"plain", &fakeEngine{pieces: pieces}, 5, 5, 5, 0, 0},
		// each step checks 4 tokens and keeps 3: 2 accepted drafts of 3
		{"speculative", &fakeEngine{pieces: pieces, perStep: 3, draft: 3}, 8, 9, 3, 9, 6},
		// a stop token ends decoding early; the stop step runs no forward pass
		{"stop", &fakeEngine{pieces: pieces[:4], perStep: 2, draft: 1}, 10, 4, 2, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := newFake(t, tt.fe).Bench(context.Background(), runtime.BenchRequest{NPrompt: 6, NGen: tt.nGen, Stepwise: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.GenTokens != tt.gen || res.VerifySteps != tt.steps || res.Drafted != tt.drafted || res.Accepted != tt.accep {
				t.Errorf("gen %d steps %d drafted %d accepted %d; want %d %d %d %d", res.GenTokens, res.VerifySteps,
					res.Drafted, res.Accepted, tt.gen, tt.steps, tt.drafted, tt.accep)
			}
			if res.PromptTokens != 6 || res.PrefillTime != 100*time.Millisecond || res.DecodeTime <= 0 {
				t.Errorf("prefill %d tokens in %v, decode %v", res.PromptTokens, res.PrefillTime, res.DecodeTime)
			}
			if tt.fe.resets != 1 {
				t.Errorf("resets %d, want 1", tt.fe.resets)
			}
		})
	}
}
