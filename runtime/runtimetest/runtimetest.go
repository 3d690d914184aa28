// Package runtimetest checks that a runtime.Runtime behaves the way the
// runner relies on, in the manner of testing/fstest: Check exercises one
// runtime and returns every violated rule at once, each error stating the
// rule in plain English followed by what was observed.
//
// The rules:
//
//   - generation: a raw prompt and a chat request both succeed (unless the
//     runtime is declared chat-only or prompt-only in Options), with a
//     positive prompt token count, a known finish reason and non-negative,
//     ordered timings;
//   - determinism: the same greedy request twice gives the same text and
//     token counts, and the greedy text for MaxTokens N is a prefix of the
//     greedy text for 2N;
//   - max tokens: CompletionTokens never exceeds MaxTokens, and the finish
//     reason is "length" exactly when MaxTokens was reached;
//   - token counts: a longer prompt never has fewer prompt tokens, and
//     non-empty text comes with a positive completion count;
//   - stop strings: with a stop string taken from the greedy output, the
//     text ends right before its first occurrence and the finish reason is
//     "stop";
//   - concurrency: requests issued from several goroutines at once give the
//     same results as the same requests one after another;
//   - cancellation: an already cancelled or expired context makes Generate
//     return that context's error; cancelling mid-generation ends the call
//     with the context's error (or the call had already finished); and the
//     next request gives the same answer as before, so a cancelled
//     generation neither keeps running nor leaves state behind. No rule
//     depends on speed: Options.CancelWithin is a hang guard only;
//   - Describe (if implemented) names the runtime;
//   - LogLikelihood (if implemented and not ErrNotSupported): one result per
//     request in request order, finite and ≤ 0, repeatable, a positive token
//     count, and is_greedy true for the greedy next token when that scores as
//     a single token;
//   - Bench (if implemented) reports the sizes asked for;
//   - Close: closes without error, a second Close also returns nil, and
//     Generate after Close returns an error instead of panicking.
//
// Check closes the runtime at the end. It asserts shapes, counts and
// invariants only — never the content of the text — so it works on tiny
// random-weight models.
package runtimetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/runtime"
)

// Options tune Check. The zero value checks everything with the defaults
// below.
type Options struct {
	// Prompt is the raw prompt used throughout. Empty means "Once upon a
	// time". It should make the model produce at least a few tokens.
	Prompt string
	// Messages is the chat request. Empty means one user message "Tell me a
	// story about a cat."
	Messages []runtime.Message
	// MaxTokens is the budget of the ordinary requests. 0 means 12.
	MaxTokens int
	// LongMaxTokens is the budget of the request cancelled mid-way. 0
	// means 4096.
	LongMaxTokens int
	// Concurrency is how many goroutines issue requests at once. 0 means 4.
	Concurrency int
	// CancelWithin bounds how long a cancelled call may take to return.
	// It is a hang guard, not a speed requirement: it catches runtimes that
	// ignore cancellation, and must stay generous enough for a loaded or
	// emulated machine. 0 means 10s.
	CancelWithin time.Duration
	// NoRawPrompt declares a chat-only runtime: raw prompt requests are
	// not exercised and the chat request stands in for them.
	NoRawPrompt bool
	// NoChat declares a prompt-only runtime.
	NoChat bool
	// KeepOpen leaves the runtime open (skipping the Close rules), for
	// callers that check one runtime several times.
	KeepOpen bool
}

func (o *Options) defaults() {
	if o.Prompt == "" {
		o.Prompt = "Once upon a time"
	}
	if len(o.Messages) == 0 {
		o.Messages = []runtime.Message{{Role: "user", Content: "Tell me a story about a cat."}}
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 12
	}
	if o.LongMaxTokens <= 0 {
		o.LongMaxTokens = 4096
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.CancelWithin <= 0 {
		o.CancelWithin = 10 * time.Second
	}
}

// Test runs Check and reports each violated rule as a separate test error.
func Test(t *testing.T, rt runtime.Runtime, opts Options) {
	t.Helper()
	err := Check(t.Context(), rt, opts)
	if err == nil {
		return
	}
	if j, ok := err.(joined); ok {
		for _, e := range j.Unwrap() {
			t.Error(e)
		}
		return
	}
	t.Error(err)
}

// checker collects violations.
type checker struct {
	ctx  context.Context
	rt   runtime.Runtime
	opts Options
	errs []error
}

func (c *checker) fail(rule, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s", rule, fmt.Sprintf(format, args...)))
}

// Check exercises rt and returns errors.Join of every rule it breaks, or
// nil. Unless opts.KeepOpen is set, rt is closed when Check returns.
func Check(ctx context.Context, rt runtime.Runtime, opts Options) error {
	opts.defaults()
	c := &checker{ctx: ctx, rt: rt, opts: opts}
	if opts.NoRawPrompt && opts.NoChat {
		return errors.New("runtimetest: Options.NoRawPrompt and Options.NoChat leave nothing to check")
	}
	c.checkDescribe()

	// The base request is the raw prompt, or the chat request for
	// chat-only runtimes; every rule below uses it.
	base := runtime.Request{Prompt: opts.Prompt, Gen: runtime.GenConfig{MaxTokens: opts.MaxTokens}}
	if opts.NoRawPrompt {
		base = runtime.Request{Messages: opts.Messages, Gen: runtime.GenConfig{MaxTokens: opts.MaxTokens}}
	}
	ref, ok := c.generate("generation", "a greedy request must succeed", base)
	if ok {
		c.checkDeterminism(base, ref)
		c.checkMaxTokens(base)
		c.checkStop(base, ref)
	}
	if !opts.NoRawPrompt && !opts.NoChat {
		chat := runtime.Request{Messages: opts.Messages, Gen: runtime.GenConfig{MaxTokens: opts.MaxTokens}}
		if r, ok := c.generate("generation", "a chat request must succeed", chat); ok {
			again, ok := c.generate("determinism", "a repeated chat request must succeed", chat)
			if ok && (again.Text != r.Text || again.CompletionTokens != r.CompletionTokens) {
				c.fail("determinism", "the same greedy chat request twice must give the same text; got %q then %q", r.Text, again.Text)
			}
		}
	}
	c.checkPromptTokens(base)
	c.checkConcurrency(base)
	c.checkCancel(base, ref, ok)
	c.checkLoglik(base)
	c.checkBench()
	if !opts.KeepOpen {
		c.checkClose(base)
	}
	return errors.Join(c.errs...)
}

// generate runs req and checks the invariants every response must meet.
func (c *checker) generate(rule, what string, req runtime.Request) (runtime.Response, bool) {
	resp, err := c.rt.Generate(c.ctx, req)
	if err != nil {
		c.fail(rule, "%s; Generate returned error: %v", what, err)
		return resp, false
	}
	c.checkResponse(req, resp)
	return resp, true
}

func (c *checker) checkResponse(req runtime.Request, resp runtime.Response) {
	if resp.FinishReason != runtime.FinishStop && resp.FinishReason != runtime.FinishLength {
		c.fail("generation", "the finish reason must be %q or %q; got %q", runtime.FinishStop, runtime.FinishLength, resp.FinishReason)
	}
	if resp.PromptTokens <= 0 {
		c.fail("token counts", "a non-empty prompt must have a positive prompt token count; got %d", resp.PromptTokens)
	}
	if resp.CompletionTokens < 0 {
		c.fail("token counts", "the completion token count must not be negative; got %d", resp.CompletionTokens)
	}
	if resp.Text != "" && resp.CompletionTokens == 0 {
		c.fail("token counts", "non-empty text %q must come with a positive completion token count", resp.Text)
	}
	if !utf8.ValidString(resp.Text) {
		c.fail("generation", "the text must be valid UTF-8; got %q", resp.Text)
	}
	if max := req.Gen.MaxTokens; max > 0 {
		if resp.CompletionTokens > max {
			c.fail("max tokens", "CompletionTokens must not exceed MaxTokens %d; got %d", max, resp.CompletionTokens)
		}
		if len(req.Gen.Stop) == 0 && resp.CompletionTokens == max && resp.FinishReason != runtime.FinishLength {
			c.fail("max tokens", "reaching MaxTokens %d must give finish reason %q; got %q", max, runtime.FinishLength, resp.FinishReason)
		}
		if resp.FinishReason == runtime.FinishLength && resp.CompletionTokens != max {
			c.fail("max tokens", "finish reason %q must mean MaxTokens %d was reached; got %d completion tokens", runtime.FinishLength, max, resp.CompletionTokens)
		}
	}
	t := resp.Timings
	if t.TimeToFirstToken < 0 || t.Total < 0 || t.PrefillTokPerSec < 0 || t.DecodeTokPerSec < 0 ||
		math.IsNaN(t.PrefillTokPerSec) || math.IsInf(t.PrefillTokPerSec, 0) || math.IsNaN(t.DecodeTokPerSec) || math.IsInf(t.DecodeTokPerSec, 0) {
		c.fail("generation", "timings must be finite and non-negative; got %+v", t)
	}
	if t.Total > 0 && t.TimeToFirstToken > t.Total {
		c.fail("generation", "time to first token must not exceed the total time; got %v > %v", t.TimeToFirstToken, t.Total)
	}
}

func (c *checker) checkDescribe() {
	d, ok := c.rt.(runtime.Describer)
	if !ok {
		return
	}
	if info := d.Describe(); info.Name == "" {
		c.fail("describe", "Describe must name the runtime; got %+v", info)
	}
}

func (c *checker) checkDeterminism(base runtime.Request, ref runtime.Response) {
	again, ok := c.generate("determinism", "a repeated request must succeed", base)
	if !ok {
		return
	}
	if again.Text != ref.Text || again.CompletionTokens != ref.CompletionTokens || again.PromptTokens != ref.PromptTokens {
		c.fail("determinism", "the same greedy request twice must give the same text and token counts; got %q (%d+%d tokens) then %q (%d+%d tokens)",
			ref.Text, ref.PromptTokens, ref.CompletionTokens, again.Text, again.PromptTokens, again.CompletionTokens)
	}
	if ref.FinishReason != runtime.FinishLength {
		return // the model stopped on its own: there is nothing longer to compare
	}
	longer := base
	longer.Gen.MaxTokens = 2 * base.Gen.MaxTokens
	long, ok := c.generate("determinism", "a request with twice the token budget must succeed", longer)
	if ok && !strings.HasPrefix(long.Text, ref.Text) {
		c.fail("determinism", "greedy text for MaxTokens %d must be a prefix of the greedy text for MaxTokens %d; got %q and %q",
			base.Gen.MaxTokens, longer.Gen.MaxTokens, ref.Text, long.Text)
	}
}

func (c *checker) checkMaxTokens(base runtime.Request) {
	for _, n := range []int{1, 3} {
		req := base
		req.Gen.MaxTokens = n
		// checkResponse holds the MaxTokens rules; here the budget is
		// small enough that every model reaches it or stops on its own.
		c.generate("max tokens", fmt.Sprintf("a request with MaxTokens %d must succeed", n), req)
	}
}

func (c *checker) checkStop(base runtime.Request, ref runtime.Response) {
	stop, ok := stopFrom(ref.Text)
	if !ok {
		c.fail("stop strings", "cannot check: the greedy output %q is too short to take a stop string from (use a prompt that makes the model write more)", ref.Text)
		return
	}
	want := ref.Text[:strings.Index(ref.Text, stop)]
	req := base
	req.Gen.Stop = []string{"\x01never-generated\x01", stop}
	resp, ok := c.generate("stop strings", "a request with stop strings must succeed", req)
	if !ok {
		return
	}
	if resp.Text != want || resp.FinishReason != runtime.FinishStop {
		c.fail("stop strings", "with stop string %q the text must end right before its first occurrence with finish reason %q; want %q, got %q (finish %q)",
			stop, runtime.FinishStop, want, resp.Text, resp.FinishReason)
	}
}

// stopFrom picks a stop string from the middle of text: up to three runes
// starting at a rune boundary after the first rune, skipping leading
// spaces so that servers that trim whitespace agree.
func stopFrom(text string) (string, bool) {
	runes := []rune(text)
	if len(runes) < 2 {
		return "", false
	}
	for start := len(runes) / 2; start < len(runes); start++ {
		if strings.TrimSpace(string(runes[start])) == "" {
			continue
		}
		end := min(start+3, len(runes))
		return string(runes[start:end]), true
	}
	return "", false
}

func (c *checker) checkPromptTokens(base runtime.Request) {
	long := base
	if base.IsChat() {
		long.Messages = append([]runtime.Message{}, base.Messages...)
		last := &long.Messages[len(long.Messages)-1]
		last.Content += " " + last.Content
	} else {
		long.Prompt = base.Prompt + " " + base.Prompt
	}
	short := base
	short.Gen.MaxTokens, long.Gen.MaxTokens = 1, 1
	a, ok1 := c.generate("token counts", "a one-token request must succeed", short)
	b, ok2 := c.generate("token counts", "a one-token request with a doubled prompt must succeed", long)
	if ok1 && ok2 && b.PromptTokens <= a.PromptTokens {
		c.fail("token counts", "a prompt repeated twice must count more prompt tokens than once; got %d then %d", a.PromptTokens, b.PromptTokens)
	}
}

func (c *checker) checkConcurrency(base runtime.Request) {
	reqs := make([]runtime.Request, c.opts.Concurrency)
	for i := range reqs {
		reqs[i] = base
		reqs[i].Gen.MaxTokens = base.Gen.MaxTokens - i%3
		if reqs[i].Gen.MaxTokens < 1 {
			reqs[i].Gen.MaxTokens = 1
		}
		if i%2 == 1 {
			if base.IsChat() {
				reqs[i].Messages = []runtime.Message{{Role: "user", Content: fmt.Sprintf("Request %d.", i)}}
			} else {
				reqs[i].Prompt = fmt.Sprintf("%s, request %d", base.Prompt, i)
			}
		}
	}
	seq := make([]runtime.Response, len(reqs))
	for i, req := range reqs {
		r, ok := c.generate("concurrency", "a sequential request must succeed", req)
		if !ok {
			return
		}
		seq[i] = r
	}
	par := make([]runtime.Response, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Go(func() { par[i], errs[i] = c.rt.Generate(c.ctx, req) })
	}
	wg.Wait()
	for i := range reqs {
		switch {
		case errs[i] != nil:
			c.fail("concurrency", "requests issued from %d goroutines at once must all succeed; request %d: %v", len(reqs), i, errs[i])
		case par[i].Text != seq[i].Text || par[i].CompletionTokens != seq[i].CompletionTokens || par[i].PromptTokens != seq[i].PromptTokens:
			c.fail("concurrency", "a request run concurrently with others must give the same result as run alone; request %d: alone %q (%d+%d tokens), concurrently %q (%d+%d tokens)",
				i, seq[i].Text, seq[i].PromptTokens, seq[i].CompletionTokens, par[i].Text, par[i].PromptTokens, par[i].CompletionTokens)
		}
	}
}

func (c *checker) checkCancel(base runtime.Request, ref runtime.Response, haveRef bool) {
	// Already cancelled.
	cancelled, cancel := context.WithCancel(c.ctx)
	cancel()
	c.expectCtxErr("a cancelled context", cancelled, base, context.Canceled)

	// Already past its deadline.
	expired, cancel2 := context.WithDeadline(c.ctx, time.Now().Add(-time.Second))
	defer cancel2()
	c.expectCtxErr("an expired context", expired, base, context.DeadlineExceeded)

	// Cancelled while generating a long answer. The rule holds wherever
	// the cancel lands; the head start only makes "during generation" the
	// usual case, and nothing fails when a fast runtime finishes first.
	long := base
	long.Gen.MaxTokens = c.opts.LongMaxTokens
	ctx, cancel3 := context.WithCancel(c.ctx)
	defer cancel3()
	done := make(chan error, 1)
	go func() {
		_, err := c.rt.Generate(ctx, long)
		done <- err
	}()
	time.Sleep(time.Millisecond)
	cancel3()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, ctx.Err()) {
			c.fail("cancellation", "cancelling the context during generation must end Generate with the context's error (%v); got %v", ctx.Err(), err)
		}
		// err == nil: the request finished before the cancel landed,
		// which is allowed.
	case <-time.After(c.opts.CancelWithin):
		c.fail("cancellation", "cancelling the context during generation must end Generate; still running %v later (a hang guard, not a speed limit)", c.opts.CancelWithin)
		<-done
	}

	// The cancelled generation must be over: the runtime answers the next
	// request exactly as it did before.
	if !haveRef {
		return
	}
	if after, ok := c.generate("cancellation", "a request after a cancelled one must succeed", base); ok &&
		(after.Text != ref.Text || after.CompletionTokens != ref.CompletionTokens || after.PromptTokens != ref.PromptTokens) {
		c.fail("cancellation", "a cancelled generation must leave nothing behind: the next greedy request must give the same answer as before; got %q (%d+%d tokens), before %q (%d+%d tokens)",
			after.Text, after.PromptTokens, after.CompletionTokens, ref.Text, ref.PromptTokens, ref.CompletionTokens)
	}
}

func (c *checker) expectCtxErr(what string, ctx context.Context, req runtime.Request, want error) {
	done := make(chan error, 1)
	go func() {
		_, err := c.rt.Generate(ctx, req)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, want) {
			c.fail("cancellation", "Generate with %s must return %v; got %v", what, want, err)
		}
	case <-time.After(c.opts.CancelWithin):
		c.fail("cancellation", "Generate with %s must return its error; still running %v later (a hang guard, not a speed limit)", what, c.opts.CancelWithin)
		<-done
	}
}

func (c *checker) checkLoglik(base runtime.Request) {
	ll, ok := c.rt.(runtime.LogLikelihooder)
	if !ok || base.IsChat() {
		return
	}
	res, err := ll.LogLikelihood(c.ctx, nil)
	if errors.Is(err, runtime.ErrNotSupported) {
		return
	}
	if err != nil || len(res) != 0 {
		c.fail("loglikelihood", "an empty batch must give no results and no error; got %d results, error %v", len(res), err)
	}
	// The greedy next token as text.
	one := base
	one.Gen.MaxTokens = 1
	first, err := c.rt.Generate(c.ctx, one)
	if err != nil {
		c.fail("loglikelihood", "a one-token request must succeed; got %v", err)
		return
	}
	reqs := []runtime.LoglikRequest{
		{Context: base.Prompt, Continuation: " and then the cat sat on the mat."},
		{Context: base.Prompt + " and", Continuation: " they lived happily ever after."},
	}
	if first.Text != "" {
		reqs = append(reqs, runtime.LoglikRequest{Context: base.Prompt, Continuation: first.Text})
	}
	batch, err := ll.LogLikelihood(c.ctx, reqs)
	if err != nil {
		c.fail("loglikelihood", "a batch of %d requests must succeed; got %v", len(reqs), err)
		return
	}
	if len(batch) != len(reqs) {
		c.fail("loglikelihood", "there must be one result per request; got %d for %d", len(batch), len(reqs))
		return
	}
	for i, r := range batch {
		if math.IsNaN(r.LogProb) || math.IsInf(r.LogProb, 0) || r.LogProb > 0 {
			c.fail("loglikelihood", "a log-probability must be finite and at most 0; request %d got %v", i, r.LogProb)
		}
		if r.Tokens <= 0 {
			c.fail("loglikelihood", "a non-empty continuation must score at least one token; request %d got %d", i, r.Tokens)
		}
		single, err := ll.LogLikelihood(c.ctx, reqs[i:i+1])
		if err != nil || len(single) != 1 {
			c.fail("loglikelihood", "a single request must succeed with one result; request %d got %d results, error %v", i, len(single), err)
			continue
		}
		if !closeEnough(single[0].LogProb, r.LogProb) || single[0].Tokens != r.Tokens || single[0].IsGreedy != r.IsGreedy {
			c.fail("loglikelihood", "results must come back in request order and not depend on the batch; request %d scored %+v in a batch, %+v alone", i, r, single[0])
		}
	}
	if first.Text != "" {
		g := batch[len(batch)-1]
		if g.Tokens == 1 && !g.IsGreedy {
			c.fail("loglikelihood", "the greedy next token %q must score as is_greedy; got %+v", first.Text, g)
		}
	}
}

// closeEnough allows for batched servers whose floating-point sums differ
// in the last digits.
func closeEnough(a, b float64) bool {
	return math.Abs(a-b) <= 1e-4*math.Max(1, math.Abs(a))
}

func (c *checker) checkBench() {
	b, ok := c.rt.(runtime.Bencher)
	if !ok {
		return
	}
	res, err := b.Bench(c.ctx, runtime.BenchRequest{NPrompt: 8, NGen: 4})
	if errors.Is(err, runtime.ErrNotSupported) {
		return
	}
	if err != nil {
		c.fail("bench", "a bench of 8 prompt and 4 generated tokens must succeed; got %v", err)
		return
	}
	if res.PromptTokens != 8 || res.GenTokens != 4 {
		c.fail("bench", "a bench must report the sizes asked for (8 prompt, 4 generated); got %d and %d", res.PromptTokens, res.GenTokens)
	}
	if res.PrefillTime <= 0 || res.DecodeTime <= 0 || res.FirstTokenLag < 0 || res.LoadTime < 0 {
		c.fail("bench", "a bench must measure positive prefill and decode times; got %+v", res)
	}
}

func (c *checker) checkClose(base runtime.Request) {
	if err := c.rt.Close(); err != nil {
		c.fail("close", "Close must succeed; got %v", err)
	}
	if err := c.rt.Close(); err != nil {
		c.fail("close", "a second Close must return nil; got %v", err)
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				c.fail("close", "Generate after Close must return an error, not panic; got panic %v", p)
			}
		}()
		if _, err := c.rt.Generate(c.ctx, base); err == nil {
			c.fail("close", "Generate after Close must return an error; got none")
		}
	}()
}

// joined is an error that wraps several (errors.Join).
type joined interface{ Unwrap() []error }
