package mnn

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pocketeval/pocketeval/runtime"
)

// Prefix reuse. MNN 3.6.1 runs one sequence per engine: an Llm holds one
// KV cache (one KVMeta, one past length per attention layer) and has no
// sequence ids, so requests cannot share cache entries across engines or
// run side by side in one engine. What one engine can do is keep the KV
// cache of its last request and start the next one from a prefix of it:
// Llm::eraseHistory drops the entries after the prefix and the next
// forward pass places its tokens from there on (the shim's keepPrefix).
// So the pool routes work: a request takes the idle engine whose cache
// holds the longest prefix of its prompt (a BBH subtask's or MMLU
// subject's few-shot preamble, a multiple-choice question), and the
// choices of one log-likelihood question run in turn on one engine.

// slot is one engine of the pool and what its KV cache holds.
type slot struct {
	e engine
	// tokens are the tokens whose KV entries the engine's cache holds,
	// from position 0; nil when nothing is reusable. Only prompts are
	// recorded: the tokens a generation decodes stay in the cache, after
	// them, but are not offered for reuse.
	tokens []int
	// used is the pool's clock when the slot was last released.
	used int64
}

// pool hands out engines, one request at a time each.
type pool struct {
	mu    sync.Mutex
	idle  []*slot
	avail chan struct{} // one value per idle slot
	clock int64
	// cache is whether slots keep their tokens for reuse (the prefix
	// cache is on).
	cache bool
	// requested and computed count prompt tokens: those requests needed
	// run through the model and those that were (the rest came from a
	// cache).
	requested, computed atomic.Int64
}

func newPool(engines []engine, cache bool) *pool {
	p := &pool{avail: make(chan struct{}, len(engines)), cache: cache}
	for _, e := range engines {
		p.idle = append(p.idle, &slot{e: e})
		p.avail <- struct{}{}
	}
	return p
}

// acquire takes the least recently used idle slot, waiting until one is
// free, ctx ends or closed is closed.
func (p *pool) acquire(ctx context.Context, closed <-chan struct{}) (*slot, error) {
	select {
	case <-closed:
		return nil, errClosed
	default:
	}
	select {
	case <-p.avail:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-closed:
		return nil, errClosed
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	i := leastRecent(p.idle)
	s := p.idle[i]
	p.idle = append(p.idle[:i], p.idle[i+1:]...)
	return s, nil
}

// route returns the slot a request whose tokens start with want should
// run on: held (acquired to tokenize it) or, when an idle slot's cache
// holds a longer prefix of want, that slot, which is then taken in
// exchange for held.
func (p *pool) route(held *slot, want []int) *slot {
	if !p.cache {
		return held
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	i := longestPrefix(p.idle, want, commonPrefix(held.tokens, want))
	if i < 0 {
		return held
	}
	s := p.idle[i]
	p.idle[i] = held
	return s
}

// release returns s to the pool. Without the prefix cache, or when s's
// cache holds nothing reusable (an error, a bench run), its cache is
// cleared first, as every request did before prefix reuse.
func (p *pool) release(s *slot) {
	if !p.cache || s.tokens == nil {
		s.e.Reset()
		s.tokens = nil
	}
	p.mu.Lock()
	p.clock++
	s.used = p.clock
	p.idle = append(p.idle, s)
	p.mu.Unlock()
	p.avail <- struct{}{}
}

// wait blocks until every one of n slots is idle, then returns them.
func (p *pool) wait(n int) []*slot {
	for range n {
		<-p.avail
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.idle
}

// keep is how many leading tokens of want s's cache supplies, at most
// limit (the tokens that must run: at least the last prompt token, whose
// logits are needed); 0 without the prefix cache.
func (p *pool) keep(s *slot, want []int, limit int) int {
	if !p.cache {
		return 0
	}
	return max(0, min(commonPrefix(s.tokens, want), limit))
}

// ran counts a request that needed requested prompt tokens run and ran
// computed of them.
func (p *pool) ran(requested, computed int) {
	p.requested.Add(int64(requested))
	p.computed.Add(int64(computed))
}

// record notes that s's cache now holds tokens (nil: nothing reusable).
func (p *pool) record(s *slot, tokens []int) {
	if p.cache && tokens != nil {
		s.tokens = append(s.tokens[:0:0], tokens...)
		return
	}
	s.tokens = nil
}

// leastRecent returns the index of the least recently used slot, one that
// never ran first.
func leastRecent(slots []*slot) int {
	best := 0
	for i, s := range slots {
		if s.used < slots[best].used {
			best = i
		}
	}
	return best
}

// longestPrefix returns the index of the slot whose tokens share the
// longest prefix with want, longer than atLeast (ties: the least recently
// used), or -1.
func longestPrefix(slots []*slot, want []int, atLeast int) int {
	best, bestN := -1, atLeast
	for i, s := range slots {
		n := commonPrefix(s.tokens, want)
		if n > bestN || (n == bestN && best >= 0 && s.used < slots[best].used) {
			best, bestN = i, n
		}
	}
	return best
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// PrefillStats counts prompt tokens since Open: how many the requests
// needed run through the model (a generation its prompt, a log-likelihood
// request all its tokens, which MNN runs) and how many were run; the rest
// came from an engine's cache. Bench runs are not counted.
type PrefillStats struct {
	Requested int64
	Computed  int64
}

// PrefillStats reports the prompt tokens requested and computed so far.
func (r *Runtime) PrefillStats() PrefillStats {
	return PrefillStats{Requested: r.pool.requested.Load(), Computed: r.pool.computed.Load()}
}

var _ runtime.PromptCounter = (*Runtime)(nil)

// CountPrompts tokenizes each item as Generate and LogLikelihood would (on
// an idle engine, which runs nothing) and replays the pool on the token
// sequences. A run keeps as many requests in flight as there are engines,
// so when one starts the others are busy, and with requests of similar
// length the engine that comes free is the one that started first: items
// are taken to go to the engines in turn (each item to the least recently
// used), the choices of a question one after another on one engine. Every
// engine then computes each few-shot preamble once; real runs, whose
// requests differ in length and sometimes find two engines free, differ
// by a few tokens either way (docs/mnn.md §7). With one engine the count
// is exact.
func (r *Runtime) CountPrompts(ctx context.Context, items []runtime.PromptItem) ([]runtime.PromptCount, error) {
	held, err := r.pool.acquire(ctx, r.closedChan)
	if err != nil {
		return nil, fmt.Errorf("count prompts: %w", err)
	}
	defer r.pool.release(held)
	e := held.e
	sim := &pool{cache: r.pool.cache}
	slots := make([]*slot, len(r.all))
	for i := range slots {
		slots[i] = &slot{}
	}
	next := func() *slot {
		s := slots[leastRecent(slots)]
		sim.clock++
		s.used = sim.clock
		return s
	}
	out := make([]runtime.PromptCount, len(items))
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if it.Generate != nil {
			ids, _, err := r.promptTokens(ctx, e, *it.Generate)
			if err != nil {
				return nil, fmt.Errorf("count prompts: item %d: %w", i, err)
			}
			s := next()
			out[i] = runtime.PromptCount{Tokens: len(ids), Cached: sim.keep(s, ids, len(ids)-1)}
			sim.record(s, ids)
			continue
		}
		s := next()
		for j, q := range it.Loglik {
			whole, start, err := loglikTokens(e, q)
			if err != nil {
				return nil, fmt.Errorf("count prompts: item %d request %d: %w", i, j, err)
			}
			if j > 0 && q.Context != it.Loglik[j-1].Context {
				s = next() // another context: another job
			}
			out[i].Tokens += len(whole)
			out[i].Cached += sim.keep(s, whole, start-1)
			sim.record(s, whole)
		}
	}
	return out, nil
}
