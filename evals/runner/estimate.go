package runner

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// TaskEstimate is what a task of a run would ask of the model.
type TaskEstimate struct {
	Task string `json:"task"`
	// Samples counts work items (selected samples times repeats);
	// Loglik says they are scored by log-likelihood.
	Samples int  `json:"samples"`
	Loglik  bool `json:"loglik,omitempty"`
	// PromptTokens are the prompt tokens the model reads, CachedTokens
	// those the runtime's prompt cache would supply (both zero when the
	// runtime cannot count: Counted false).
	PromptTokens int64 `json:"prompt_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	Counted      bool  `json:"counted"`
	// MaxNewTokens bounds the generated tokens: every generation's token
	// limit (0 in log-likelihood mode). An answer that ends early makes
	// fewer.
	MaxNewTokens int64 `json:"max_new_tokens"`
	// TooLong counts samples whose prompt does not fit the model's
	// context: they would fail (and are left out of the token counts).
	TooLong int `json:"too_long,omitempty"`
}

// Estimate prepares the run o describes as Run would — the same tasks,
// samples, modes and rendered requests — without touching the result
// directory, running task Setup (code execution) or generating anything,
// and counts each task's prompt tokens with o.Runtime when it is a
// runtime.PromptCounter. Requests are counted in the order Run issues them.
func Estimate(ctx context.Context, o Options) ([]TaskEstimate, error) {
	o.setDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	s := o.settings()
	counter, _ := o.Runtime.(runtime.PromptCounter)
	var out []TaskEstimate
	for _, t := range o.Tasks {
		p, err := prepare(ctx, t, s, o.Warn)
		if err != nil {
			return nil, err
		}
		est := TaskEstimate{Task: p.info.Name, Loglik: p.loglik}
		var items []runtime.PromptItem
		for _, wi := range p.items(s.repeats) {
			est.Samples++
			smp := p.data.Samples[wi.idx]
			pc := s.prompt
			pc.Gen.Seed = o.Gen.Seed + int64(wi.repeat)
			if p.loglik {
				reqs, err := p.task.(evals.LoglikTask).LoglikRequests(p.data, smp, pc)
				if err != nil {
					return nil, fmt.Errorf("task %s: render sample %s: %w", p.info.Name, smp.ID, err)
				}
				items = append(items, runtime.PromptItem{Loglik: reqs})
				continue
			}
			req, err := p.generation(smp, pc)
			if err != nil {
				return nil, err
			}
			est.MaxNewTokens += int64(req.Gen.MaxTokens)
			items = append(items, runtime.PromptItem{Generate: &req})
		}
		if counter != nil {
			counts, err := counter.CountPrompts(ctx, items)
			if err != nil {
				return nil, fmt.Errorf("task %s: %w", p.info.Name, err)
			}
			for i, c := range counts {
				est.PromptTokens += int64(c.Tokens)
				est.CachedTokens += int64(c.Cached)
				if c.TooLong {
					est.TooLong++
					if items[i].Generate != nil {
						est.MaxNewTokens -= int64(items[i].Generate.Gen.MaxTokens)
					}
				}
			}
			est.Counted = true
		}
		out = append(out, est)
	}
	return out, nil
}
