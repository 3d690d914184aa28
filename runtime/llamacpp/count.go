//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

var _ runtime.PromptCounter = (*Runtime)(nil)

// CountPrompts tokenises each item as Generate and LogLikelihood would and
// replays the prefix cache's choices on the token sequences, one item after
// another: with batching on and the prefix cache, an item finds the longest
// prefix any of Workers sequences holds; with batching off only the
// choices of one question share their context. Generated tokens are not
// known, so a sequence holds just its prompt; requests running at once are
// taken as if one after another (a request queued beside others with the
// same preamble waits for one of them to compute it, so the counts stay
// close; docs/throughput.md compares them with measured runs).
func (r *Runtime) CountPrompts(ctx context.Context, items []runtime.PromptItem) ([]runtime.PromptCount, error) {
	if err := r.sched.enter(); err != nil {
		return nil, fmt.Errorf("count prompts: %w", err)
	}
	defer r.sched.leave()
	sim := promptSim{batched: r.opts.Batch == "on", cache: r.opts.PrefixCache != "off", slots: make([][]llama.Token, r.opts.Workers), used: make([]int, r.opts.Workers)}
	out := make([]runtime.PromptCount, len(items))
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if it.Generate != nil {
			toks, _, err := r.promptTokens(ctx, *it.Generate)
			if errors.Is(err, ErrPromptTooLong) {
				out[i].TooLong = true
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("count prompts: item %d: %w", i, err)
			}
			out[i] = runtime.PromptCount{Tokens: len(toks), Cached: sim.start(toks[:len(toks)-1], i)}
			continue
		}
		var c runtime.PromptCount
		var trunk []llama.Token // what the item's sequence holds
		for j, q := range it.Loglik {
			s, err := r.scoredRequest(q)
			if errors.Is(err, ErrPromptTooLong) {
				c = runtime.PromptCount{TooLong: true}
				break
			}
			if err != nil {
				return nil, fmt.Errorf("count prompts: item %d request %d: %w", i, j, err)
			}
			if len(s.toks) <= s.n {
				continue
			}
			t := s.toks[:s.n-1]
			c.Tokens += len(s.toks) - 1
			switch {
			case j > 0 && trunk != nil && slicesEqual(trunk, t):
				c.Cached += len(t) // the same context, kept between choices
			case j == 0 || trunk == nil:
				c.Cached += sim.start(t, i)
			case sim.batched && sim.cache:
				c.Cached += commonPrefix(trunk, t)
			}
			trunk = t
		}
		out[i] = c
	}
	return out, nil
}

// promptSim replays where prompts would find their prefixes.
type promptSim struct {
	batched, cache bool
	slots          [][]llama.Token
	used           []int // item that last used each slot
}

// start places a job wanting want computed, as decoder.place does for
// requests that come one at a time, and returns how much of want is found:
// with the prefix cache (batching on), the longest prefix any slot holds,
// the job then taking that slot; otherwise nothing, the job taking an
// empty slot, else the least recently used.
func (s *promptSim) start(want []llama.Token, item int) int {
	best, target := 0, -1
	if s.batched && s.cache {
		for i, sl := range s.slots {
			if n := commonPrefix(sl, want); n > best {
				best, target = n, i
			}
		}
	}
	if target < 0 {
		target = 0
		for i, sl := range s.slots {
			t := s.slots[target]
			if (len(sl) == 0 && len(t) > 0) || ((len(sl) == 0) == (len(t) == 0) && s.used[i] < s.used[target]) {
				target = i
			}
		}
	}
	s.slots[target], s.used[target] = want, item+1
	return best
}

func slicesEqual(a, b []llama.Token) bool {
	return len(a) == len(b) && commonPrefix(a, b) == len(a)
}
