package runtimetest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

func TestFakePasses(t *testing.T) {
	t.Parallel()
	for _, f := range []*Fake{
		{},
		{EOSEvery: 7},
		{TokenDelay: 50 * time.Microsecond},
	} {
		Test(t, f, Options{})
	}
}

// TestFakeStopsOnCancel cancels the fake's context right after a chosen
// token, so the cancel lands mid-generation without any timing: Generate
// must return the context's error and no result, and no token may follow
// the cancel.
func TestFakeStopsOnCancel(t *testing.T) {
	t.Parallel()
	for _, delay := range []time.Duration{0, time.Microsecond} {
		const cancelAfter = 3
		ctx, cancel := context.WithCancel(t.Context())
		var produced atomic.Int64
		f := &Fake{TokenDelay: delay, afterToken: func(i int) {
			if produced.Add(1); i == cancelAfter {
				cancel()
			}
		}}
		resp, err := f.Generate(ctx, runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 1000}})
		if err != ctx.Err() || !errors.Is(err, context.Canceled) {
			t.Errorf("TokenDelay %v: Generate cancelled after token %d returned error %v; want the context's error %v", delay, cancelAfter, err, ctx.Err())
		}
		if resp.Text != "" || resp.CompletionTokens != 0 {
			t.Errorf("TokenDelay %v: a cancelled Generate returned a result: %d tokens, finish %q", delay, resp.CompletionTokens, resp.FinishReason)
		}
		if n := produced.Load(); n != cancelAfter+1 {
			t.Errorf("TokenDelay %v: %d tokens produced; want %d, none after the cancel", delay, n, cancelAfter+1)
		}
		// The fake is usable again and answers as before.
		want, err := (&Fake{}).Generate(t.Context(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 5}})
		if err != nil {
			t.Fatal(err)
		}
		f.afterToken = nil
		if got, err := f.Generate(t.Context(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 5}}); err != nil || got.Text != want.Text {
			t.Errorf("TokenDelay %v: after the cancel Generate = %q, %v; want %q", delay, got.Text, err, want.Text)
		}
	}
}

func TestFakeChatOnly(t *testing.T) {
	t.Parallel()
	Test(t, &Fake{}, Options{NoRawPrompt: true})
}

// Broken runtimes: each wraps a Fake and breaks one rule.

type ignoresMaxTokens struct{ *Fake }

func (r ignoresMaxTokens) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	req.Gen.MaxTokens *= 2
	return r.Fake.Generate(ctx, req)
}

type alwaysStop struct{ *Fake }

func (r alwaysStop) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	resp, err := r.Fake.Generate(ctx, req)
	resp.FinishReason = runtime.FinishStop
	return resp, err
}

type nondeterministic struct {
	*Fake
	n *atomic.Int64
}

func (r nondeterministic) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	req.Gen.Temperature, req.Gen.Seed = 1, r.n.Add(1)
	return r.Fake.Generate(ctx, req)
}

type ignoresStop struct{ *Fake }

func (r ignoresStop) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	req.Gen.Stop = nil
	return r.Fake.Generate(ctx, req)
}

type ignoresCtx struct{ *Fake }

func (r ignoresCtx) Generate(_ context.Context, req runtime.Request) (runtime.Response, error) {
	return r.Fake.Generate(context.Background(), req)
}

type wrapsCancelWrongly struct{ *Fake }

func (r wrapsCancelWrongly) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	resp, err := r.Fake.Generate(ctx, req)
	if err != nil {
		return resp, errors.New("generation failed") // loses the context error
	}
	return resp, nil
}

// dirtiedByCancel garbles every answer after its first cancelled request,
// as an engine would that kept a cancelled sequence's state.
type dirtiedByCancel struct {
	*Fake
	dirty *atomic.Bool
}

func (r dirtiedByCancel) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	resp, err := r.Fake.Generate(ctx, req)
	if err != nil {
		r.dirty.Store(true)
	} else if r.dirty.Load() {
		resp.Text += " (left over)"
	}
	return resp, err
}

type racy struct {
	*Fake
	inflight *atomic.Int64
}

func (r racy) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	r.inflight.Add(1)
	defer r.inflight.Add(-1)
	time.Sleep(2 * time.Millisecond) // let concurrent calls overlap
	resp, err := r.Fake.Generate(ctx, req)
	if r.inflight.Load() > 1 {
		resp.Text += " (garbled)"
	}
	return resp, err
}

type closeFailsTwice struct {
	*Fake
	n *atomic.Int64
}

func (r closeFailsTwice) Close() error {
	if r.n.Add(1) > 1 {
		return errors.New("already closed")
	}
	return r.Fake.Close()
}

type namelessDescribe struct{ *Fake }

func (namelessDescribe) Describe() runtime.Info { return runtime.Info{} }

type positiveLoglik struct{ *Fake }

func (r positiveLoglik) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	res, err := r.Fake.LogLikelihood(ctx, reqs)
	for i := range res {
		res[i].LogProb = -res[i].LogProb
	}
	return res, err
}

type reversedLoglik struct{ *Fake }

func (r reversedLoglik) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	res, err := r.Fake.LogLikelihood(ctx, reqs)
	for i, j := 0, len(res)-1; i < j; i, j = i+1, j-1 {
		res[i], res[j] = res[j], res[i]
	}
	return res, err
}

type neverGreedy struct{ *Fake }

func (r neverGreedy) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	res, err := r.Fake.LogLikelihood(ctx, reqs)
	for i := range res {
		res[i].IsGreedy = false
	}
	return res, err
}

type wrongBench struct{ *Fake }

func (r wrongBench) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	req.NGen--
	return r.Fake.Bench(ctx, req)
}

type zeroPromptTokens struct{ *Fake }

func (r zeroPromptTokens) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	resp, err := r.Fake.Generate(ctx, req)
	resp.PromptTokens = 0
	return resp, err
}

type silent struct{ *Fake }

func (r silent) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	resp, err := r.Fake.Generate(ctx, req)
	return runtime.Response{PromptTokens: resp.PromptTokens, FinishReason: runtime.FinishStop}, err
}

type panicsAfterClose struct {
	*Fake
	closed *atomic.Bool
}

func (r panicsAfterClose) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if r.closed.Load() {
		panic("use after free")
	}
	return r.Fake.Generate(ctx, req)
}

func (r panicsAfterClose) Close() error {
	r.closed.Store(true)
	return nil
}

func TestBrokenRuntimesAreCaught(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rt   runtime.Runtime
		opts Options
		want string // a rule name and a phrase of its statement
	}{
		{"ignores max tokens", ignoresMaxTokens{&Fake{}}, Options{}, "max tokens: CompletionTokens must not exceed MaxTokens"},
		{"finish always stop", alwaysStop{&Fake{}}, Options{}, `max tokens: reaching MaxTokens 12 must give finish reason "length"`},
		{"nondeterministic", nondeterministic{&Fake{}, new(atomic.Int64)}, Options{}, "determinism: the same greedy request twice"},
		{"ignores stop strings", ignoresStop{&Fake{}}, Options{}, "stop strings: with stop string"},
		// Ignoring ctx, the fake finishes its 12 tokens and succeeds.
		{"ignores ctx", ignoresCtx{&Fake{}}, Options{}, "cancellation: Generate with a cancelled context must return context canceled; got <nil>"},
		// A budget of at least 100 s of token delays, so that the cancel,
		// wherever it lands, ends the long request.
		{"loses ctx error", wrapsCancelWrongly{&Fake{TokenDelay: time.Millisecond}}, Options{LongMaxTokens: 100_000}, "cancellation: cancelling the context during generation must end Generate with the context's error (context canceled); got generation failed"},
		{"state left by a cancelled request", dirtiedByCancel{&Fake{}, new(atomic.Bool)}, Options{}, "cancellation: a cancelled generation must leave nothing behind"},
		{"garbles concurrent requests", racy{&Fake{}, new(atomic.Int64)}, Options{}, "concurrency: a request run concurrently with others must give the same result"},
		{"second close fails", closeFailsTwice{&Fake{}, new(atomic.Int64)}, Options{}, "close: a second Close must return nil"},
		{"panics after close", panicsAfterClose{&Fake{}, new(atomic.Bool)}, Options{}, "close: Generate after Close must return an error, not panic"},
		{"nameless", namelessDescribe{&Fake{}}, Options{}, "describe: Describe must name the runtime"},
		{"positive logprob", positiveLoglik{&Fake{}}, Options{}, "loglikelihood: a log-probability must be finite and at most 0"},
		{"reordered loglik", reversedLoglik{&Fake{}}, Options{}, "loglikelihood: results must come back in request order"},
		{"never greedy", neverGreedy{&Fake{}}, Options{}, "loglikelihood: the greedy next token"},
		{"bench sizes", wrongBench{&Fake{}}, Options{}, "bench: a bench must report the sizes asked for"},
		{"no prompt tokens", zeroPromptTokens{&Fake{}}, Options{}, "token counts: a non-empty prompt must have a positive prompt token count"},
		{"output too short for stop", silent{&Fake{}}, Options{}, "stop strings: cannot check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(context.Background(), tt.rt, tt.opts)
			if err == nil {
				t.Fatalf("Check passed a runtime that breaks a rule; want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check error does not mention the broken rule\nwant substring: %s\ngot:\n%v", tt.want, err)
			}
		})
	}
}

func TestCheckReportsEveryViolation(t *testing.T) {
	t.Parallel()
	// Two independent rules broken at once: both must be reported.
	rt := struct {
		namelessDescribe
		closeFailsTwice
	}{namelessDescribe{&Fake{}}, closeFailsTwice{&Fake{}, new(atomic.Int64)}}
	err := Check(context.Background(), describedCloser{rt.namelessDescribe, rt.closeFailsTwice}, Options{})
	for _, want := range []string{"describe:", "close:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check error = %v; want it to contain %q", err, want)
		}
	}
}

// describedCloser combines a broken Describe with a broken Close.
type describedCloser struct {
	d namelessDescribe
	c closeFailsTwice
}

func (r describedCloser) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return r.c.Generate(ctx, req)
}
func (r describedCloser) Close() error           { return r.c.Close() }
func (r describedCloser) Describe() runtime.Info { return r.d.Describe() }

func TestStopFrom(t *testing.T) {
	t.Parallel()
	check := func(text, want string, wantOK bool) {
		t.Helper()
		got, ok := stopFrom(text)
		if got != want || ok != wantOK {
			t.Errorf("stopFrom(%q) = %q, %v; want %q, %v", text, got, ok, want, wantOK)
		}
	}
	check("", "", false)
	check("a", "", false)
	check("ab", "b", true)
	check(" the cat sat", "at ", true)
	check("日本語のテキスト", "テキス", true)
	check("a   ", "", false)
}
