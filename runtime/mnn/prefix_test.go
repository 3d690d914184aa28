package mnn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

func prefixRuntime(t *testing.T, n int) (*Runtime, []*fakeEngine) {
	t.Helper()
	fes := make([]*fakeEngine, n)
	for i := range fes {
		fes[i] = &fakeEngine{pieces: []string{"a", "b"}}
	}
	return newFakeOpts(t, Options{Workers: n}, fes...), fes
}

func gen(t *testing.T, r *Runtime, prompt string) {
	t.Helper()
	if _, err := r.Generate(context.Background(), runtime.Request{Prompt: prompt, Gen: runtime.GenConfig{MaxTokens: 2}}); err != nil {
		t.Fatal(err)
	}
}

// TestPrefixRouting: a request goes to the idle engine whose cache holds
// the longest prefix of its prompt and runs only the rest; the last prompt
// token always runs (its logits start the decoding).
func TestPrefixRouting(t *testing.T) {
	r, fes := prefixRuntime(t, 2)
	gen(t, r, "AAAA-1") // engine 0 (both empty; least recently used)
	gen(t, r, "BBBB-1") // engine 1 (the least recently used: 0 shares nothing)
	gen(t, r, "BBBB-2") // engine 0 is the least recent, but 1 holds "BBBB-"
	gen(t, r, "AAAA-2") // engine 0 holds "AAAA-"
	gen(t, r, "AAAA-2") // the same prompt again: all but its last token
	check := func(i int, want ...int) {
		t.Helper()
		if !slices.Equal(fes[i].keeps, want) {
			t.Errorf("engine %d kept %v, want %v", i, fes[i].keeps, want)
		}
	}
	check(0, 0, 5, 5)
	check(1, 0, 5)
	st := r.PrefillStats()
	if st.Requested != 30 || st.Computed != 30-15 {
		t.Errorf("prefill stats %+v, want 30 requested, 15 computed", st)
	}
	// No cache is cleared between requests; the cache keeps the decoded
	// tokens after the prompt.
	if fes[0].resets+fes[1].resets != 0 {
		t.Errorf("engines reset %d and %d times, want 0", fes[0].resets, fes[1].resets)
	}
	if info := r.Describe(); info.Settings["prefix_cache"] != "on" {
		t.Errorf("manifest prefix_cache = %v", info.Settings["prefix_cache"])
	}
}

// TestPrefixOff: every request runs whole from an empty cache.
func TestPrefixOff(t *testing.T) {
	fe := &fakeEngine{pieces: []string{"a"}}
	r := newFake(t, fe)
	for range 3 {
		gen(t, r, "AAAA-1")
	}
	if !slices.Equal(fe.keeps, []int{0, 0, 0}) || fe.resets != 3 {
		t.Errorf("kept %v with %d resets, want none kept and 3 resets", fe.keeps, fe.resets)
	}
	if st := r.PrefillStats(); st.Requested != 18 || st.Computed != 18 {
		t.Errorf("prefill stats %+v", st)
	}
	if info := r.Describe(); info.Settings["prefix_cache"] != "off" {
		t.Errorf("manifest prefix_cache = %v", info.Settings["prefix_cache"])
	}
}

// TestPrefixSampled: sampled requests (temperature > 0) reuse the cache
// the same way.
func TestPrefixSampled(t *testing.T) {
	fe := &fakeEngine{}
	r := newFakeOpts(t, Options{}, fe)
	for range 2 {
		if _, err := r.Generate(context.Background(), runtime.Request{Prompt: "xyz", Gen: runtime.GenConfig{MaxTokens: 3, Temperature: 0.7}}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(fe.keeps, []int{0, 2}) {
		t.Errorf("kept %v, want [0 2]", fe.keeps)
	}
}

// TestPrefixLoglik: the choices of a question run in turn on one engine;
// the context is computed once, its last token again with each choice.
func TestPrefixLoglik(t *testing.T) {
	r, fes := prefixRuntime(t, 2)
	q := func(ctx string, conts ...string) []runtime.LoglikRequest {
		var reqs []runtime.LoglikRequest
		for _, c := range conts {
			reqs = append(reqs, runtime.LoglikRequest{Context: ctx, Continuation: c})
		}
		return reqs
	}
	for _, reqs := range [][]runtime.LoglikRequest{q("Q1: which?", " A", " B", " C"), q("Q2: which?", " A", " B")} {
		got, err := r.LogLikelihood(context.Background(), reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if g.Tokens != 2 || g.LogProb != -2 {
				t.Errorf("result %d: %+v", i, g)
			}
		}
	}
	// Q1 on engine 0: its context (10 tokens) once, then only its last
	// token with each choice. Q2 is handed engine 1, the least recently
	// used, but engine 0 holds "Q1: ...", which shares "Q" with it: Q2
	// runs there, keeping 1 token, then 9 for its second choice.
	all := append(append([]int{}, fes[0].keeps...), fes[1].keeps...)
	if !slices.Equal(fes[0].keeps, []int{0, 9, 9, 1, 9}) || len(fes[1].keeps) != 0 {
		t.Errorf("kept %v and %v, want [0 9 9 1 9] and []", fes[0].keeps, fes[1].keeps)
	}
	st := r.PrefillStats()
	kept := 0
	for _, k := range all {
		kept += k
	}
	if st.Requested != 5*12 || st.Computed != st.Requested-int64(kept) {
		t.Errorf("prefill stats %+v, kept %d", st, kept)
	}
}

// TestPrefixConcurrent: under concurrency every reuse is of what the
// engine's cache really holds (the fake fails any other), and engines are
// never shared.
func TestPrefixConcurrent(t *testing.T) {
	r, fes := prefixRuntime(t, 3)
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		wg.Go(func() {
			prompt := fmt.Sprintf("family %d: a shared preamble, sample %d", i%4, i)
			if i%3 == 0 {
				_, errs[i] = r.LogLikelihood(context.Background(), []runtime.LoglikRequest{
					{Context: prompt, Continuation: " yes"}, {Context: prompt, Continuation: " no"}})
				return
			}
			_, errs[i] = r.Generate(context.Background(), runtime.Request{Prompt: prompt, Gen: runtime.GenConfig{MaxTokens: 2}})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	st := r.PrefillStats()
	if st.Computed >= st.Requested {
		t.Errorf("nothing reused: %+v", st)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for i, fe := range fes {
		if fe.closed != 1 {
			t.Errorf("engine %d closed %d times", i, fe.closed)
		}
	}
}

// TestPrefixAfterError: an engine whose request failed offers nothing for
// reuse.
func TestPrefixAfterError(t *testing.T) {
	fe := &fakeEngine{pieces: []string{"a"}}
	r := newFakeOpts(t, Options{}, fe)
	gen(t, r, "AAAA-1")
	fe.kv = []int{'Z'} // the engine lost its cache: the next reuse fails
	if _, err := r.Generate(context.Background(), runtime.Request{Prompt: "AAAA-2"}); err == nil {
		t.Fatal("no error from a reuse of a lost cache")
	}
	gen(t, r, "AAAA-3")
	if !slices.Equal(fe.keeps, []int{0, 0}) {
		t.Errorf("kept %v, want [0 0]: nothing reused after the failure", fe.keeps)
	}
}

// TestCountPrompts: the dry-run count replays the pool's choices: with one
// engine it predicts exactly what the runtime computes; with two it takes
// the engines in turn, as concurrent requests use them, which computes at
// least as much as running the items one after another (then every item
// finds the engine holding its prefix).
func TestCountPrompts(t *testing.T) {
	var items []runtime.PromptItem
	for i := range 12 {
		subject := []string{"algebra", "biology", "chemistry"}[i/4%3]
		ctx := fmt.Sprintf("Five examples about %s. Question %d:", subject, i)
		if i%2 == 0 {
			items = append(items, runtime.PromptItem{Generate: &runtime.Request{Prompt: ctx, Gen: runtime.GenConfig{MaxTokens: 2}}})
			continue
		}
		items = append(items, runtime.PromptItem{Loglik: []runtime.LoglikRequest{
			{Context: ctx, Continuation: " A"}, {Context: ctx, Continuation: " B"}, {Context: ctx, Continuation: " C"}}})
	}
	for _, tt := range []struct {
		mode    string
		engines int
	}{{"on", 1}, {"off", 1}, {"on", 2}, {"off", 2}} {
		t.Run(fmt.Sprintf("%s/%d", tt.mode, tt.engines), func(t *testing.T) {
			var fes []*fakeEngine
			for range tt.engines {
				fes = append(fes, &fakeEngine{pieces: []string{"a"}})
			}
			r := newFakeOpts(t, Options{Workers: tt.engines, PrefixCache: tt.mode}, fes...)
			counts, err := r.CountPrompts(context.Background(), items)
			if err != nil {
				t.Fatal(err)
			}
			var tokens, cached int64
			for _, c := range counts {
				tokens += int64(c.Tokens)
				cached += int64(c.Cached)
			}
			for _, it := range items {
				if it.Generate != nil {
					if _, err := r.Generate(context.Background(), *it.Generate); err != nil {
						t.Fatal(err)
					}
				} else if _, err := r.LogLikelihood(context.Background(), it.Loglik); err != nil {
					t.Fatal(err)
				}
			}
			st := r.PrefillStats()
			ranCached := st.Requested - st.Computed
			if st.Requested != tokens || (tt.engines == 1 && ranCached != cached) || ranCached < cached {
				t.Errorf("counted %d tokens, %d cached; ran %d, %d cached", tokens, cached, st.Requested, ranCached)
			}
			if tt.mode == "on" && cached == 0 || tt.mode == "off" && cached != 0 {
				t.Errorf("prefix cache %s: %d tokens cached", tt.mode, cached)
			}
		})
	}
}
