package runner

import (
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// PreflightError refuses a run in which some selected requests cannot
// succeed, found before the first one was generated: prompts that do not
// render, prompts longer than the context, samples a predictions file has
// no prediction for.
type PreflightError struct {
	Tasks []PreflightTask
}

// PreflightTask is one task's requests that cannot succeed.
type PreflightTask struct {
	Task string
	// Failing of Selected selected samples cannot succeed; First is the
	// first one's error (dataset order) and FirstID its sample.
	Failing, Selected int
	FirstID           string
	First             error
}

// All reports whether none of the task's selected samples can succeed.
func (t PreflightTask) All() bool { return t.Failing == t.Selected }

func (e *PreflightError) Error() string {
	var b strings.Builder
	for i, t := range e.Tasks {
		if i > 0 {
			b.WriteString("\n")
		}
		n := fmt.Sprintf("%d of %d", t.Failing, t.Selected)
		if t.All() {
			n = fmt.Sprintf("all %d", t.Selected)
		}
		fmt.Fprintf(&b, "task %s: %s selected samples cannot succeed; first, sample %s: %v", t.Task, n, t.FirstID, t.First)
	}
	return b.String()
}

// Unwrap returns the tasks' first errors, for errors.Is.
func (e *PreflightError) Unwrap() []error {
	out := make([]error, len(e.Tasks))
	for i, t := range e.Tasks {
		out[i] = t.First
	}
	return out
}

// preflight renders every selected generation request and asks the
// runtime, when it can tell (runtime.Preflighter), whether it can succeed.
// Requests that cannot refuse the run (*PreflightError) unless
// o.KeepGoing, which only warns: they run and are recorded as failed.
func preflight(o Options, preps preparedTasks, rc *renderCache) error {
	pf, _ := o.Runtime.(runtime.Preflighter)
	// A runtime that matches no prediction by prompt text needs no prompt
	// to tell whether a request can succeed.
	m, ok := o.Runtime.(PromptMatcher)
	promptless := ok && !m.MatchesPrompts()
	var bad []PreflightTask
	for _, p := range preps {
		if p.loglik {
			continue
		}
		pc, _ := p.task.(PromptChecker)
		if !promptless {
			pc = nil
		}
		t := PreflightTask{Task: p.info.Name, Selected: len(p.selected)}
		for _, idx := range p.selected {
			s := p.data.Samples[idx]
			var err error
			if pc != nil {
				err = checkOne(pf, pc, p, idx, rc.pc)
			} else {
				err = preflightOne(pf, p, idx, rc)
			}
			if err == nil {
				continue
			}
			if t.Failing == 0 {
				t.FirstID, t.First = s.ID, err
			}
			t.Failing++
		}
		if t.Failing > 0 {
			bad = append(bad, t)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	pe := &PreflightError{Tasks: bad}
	if !o.KeepGoing {
		return pe
	}
	for _, t := range pe.Tasks {
		o.Warn("task %s: %d of %d selected samples cannot succeed and will be recorded as failed; first, sample %s: %v", t.Task, t.Failing, t.Selected, t.FirstID, t.First)
	}
	return nil
}

// preflightOne renders sample idx's request as the execute phase will
// (keeping it in rc for that phase) and asks pf (when not nil) whether it
// can succeed.
func preflightOne(pf runtime.Preflighter, p *prepared, idx int, rc *renderCache) error {
	s := p.data.Samples[idx]
	req, err := rc.render(p, idx)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if pf == nil {
		return nil
	}
	req.ID, req.Task = s.ID, p.info.Name
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = p.info.DefaultMaxTokens
	}
	return pf.Preflight(req)
}

// PromptChecker is implemented by tasks that can tell whether a sample's
// prompt renders without rendering it: CheckPrompt returns the error
// Prompt would return, nil when Prompt succeeds. The checks before a run
// use it when the runtime needs no prompt to answer them (a replay that
// matches predictions by task and id), so that the prompt is rendered
// once, when the sample runs, rather than also for the check.
type PromptChecker interface {
	CheckPrompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) error
}

// checkOne is preflightOne for a task that checks its prompts and a
// runtime that needs none: the request pf is asked about carries the
// sample's task, id and token limit, not its prompt.
func checkOne(pf runtime.Preflighter, pc PromptChecker, p *prepared, idx int, cfg evals.PromptConfig) error {
	s := p.data.Samples[idx]
	if err := pc.CheckPrompt(p.data, s, cfg); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if pf == nil {
		return nil
	}
	req := runtime.Request{ID: s.ID, Task: p.info.Name, Gen: cfg.Gen}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = p.info.DefaultMaxTokens
	}
	return pf.Preflight(req)
}
