package runner

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// Prompts renders the generation requests of the run o describes, exactly
// as Run would issue them (the same samples, few-shot context, chat or raw
// form, token limit and seed per repeat), in the order Run issues them,
// without touching the result directory, running task Setup or
// generating anything; o.Runtime is not used. Latency benchmarks use it
// to time the suite's real prompts. A task in log-likelihood mode has no
// generation request and is refused.
func Prompts(ctx context.Context, o Options) ([]runtime.Request, error) {
	o.setDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	s := o.settings()
	var out []runtime.Request
	for _, t := range o.Tasks {
		p, err := prepare(ctx, t, s, o.Warn)
		if err != nil {
			return nil, err
		}
		if p.loglik {
			return nil, fmt.Errorf("task %s runs in log-likelihood mode: it has no generation requests to time (time it in gen mode where the task offers it)", p.info.Name)
		}
		for _, wi := range p.items(s.repeats) {
			pc := s.prompt
			pc.Gen.Seed = o.Gen.Seed + int64(wi.repeat)
			req, err := p.generation(p.data.Samples[wi.idx], pc)
			if err != nil {
				return nil, err
			}
			out = append(out, req)
		}
	}
	return out, nil
}

// generation renders one sample's generation request as the run issues
// it: its id and task set, the task's default token limit when the run
// gives none.
func (p *prepared) generation(smp evals.Sample, pc evals.PromptConfig) (runtime.Request, error) {
	req, err := p.task.Prompt(p.data, smp, pc)
	if err != nil {
		return req, fmt.Errorf("task %s: render sample %s: %w", p.info.Name, smp.ID, err)
	}
	req.ID, req.Task = smp.ID, p.info.Name
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = p.info.DefaultMaxTokens
	}
	return req, nil
}
