// Package fewshot draws few-shot examples as lm-evaluation-harness's
// samplers do (lm_eval/api/samplers.py at commit 4e7e0d47): the "default"
// ContextSampler, which draws random.sample(pool, k) from one
// random.Random(seed) created once per task, and "first_n", which takes the
// pool's first k documents. Documents are addressed by their index in the
// pool; the task files (evals/taskfile) and the built-in gsm8k task
// (evals/math) draw through it.
//
// lm-eval calls the sampler once per evaluated document, in the order it
// builds requests, so a document's examples depend on how many documents
// came before it. Callers that must give a document the same examples in
// any subset of a run draw for every document of the split in order (Draw)
// and keep the draws.
package fewshot

import (
	"fmt"

	"github.com/pocketeval/pocketeval/internal/pyrandom"
)

// Sampler is one task's few-shot sampler over a pool of documents. It is
// not safe for concurrent use.
type Sampler struct {
	firstN bool
	pool   int
	rnd    *pyrandom.Rand
}

// New returns lm-eval's sampler name ("" or "default", or "first_n") over a
// pool of n documents, seeded as random.Random(seed).
func New(name string, pool int, seed int64) (*Sampler, error) {
	s := &Sampler{pool: pool}
	switch name {
	case "", "default":
		s.rnd = pyrandom.NewInt(seed)
	case "first_n":
		s.firstN = true
	default:
		return nil, fmt.Errorf("few-shot sampler %q: not one of default, first_n", name)
	}
	return s, nil
}

// Sample is lm-eval's sampler.sample(n=k, eval_doc=…) for the next
// evaluated document: the pool indices of its k examples, in order. same
// reports whether pool document j equals the evaluated document; it is nil
// when lm-eval passes no eval_doc (the few-shot split is not the test
// split, or the document is empty). With same set, the default sampler
// draws k+1 and drops the document itself, first_n skips it.
func (s *Sampler) Sample(k int, same func(j int) bool) ([]int, error) {
	if k < 0 {
		return nil, fmt.Errorf("%d few-shot examples requested", k)
	}
	if k == 0 {
		return nil, nil
	}
	if s.firstN {
		pick := make([]int, 0, k)
		for j := 0; j < s.pool && len(pick) < k; j++ {
			if same == nil || !same(j) {
				pick = append(pick, j)
			}
		}
		if len(pick) < k {
			return nil, fmt.Errorf("%d few-shot examples requested, %d available", k, len(pick))
		}
		return pick, nil
	}
	n := k
	if same != nil {
		n = k + 1
	}
	idx, err := s.rnd.Sample(s.pool, n)
	if err != nil {
		return nil, fmt.Errorf("%d few-shot examples requested from %d documents: %w", k, s.pool, err)
	}
	if same == nil {
		return idx, nil
	}
	kept := idx[:0]
	for _, j := range idx {
		if !same(j) {
			kept = append(kept, j)
		}
	}
	if len(kept) < k {
		return nil, fmt.Errorf("fewer than %d few-shot examples differ from the document", k)
	}
	return kept[:k], nil
}

// Draw returns the examples of n evaluated documents, in order, none of
// which is in the pool: draw i is what lm-eval's sampler gives the i-th
// document of a run over the whole split (or a --limit run over its first
// documents).
func Draw(name string, pool, n, k int, seed int64) ([][]int, error) {
	s, err := New(name, pool, seed)
	if err != nil {
		return nil, err
	}
	out := make([][]int, n)
	for i := range out {
		if out[i], err = s.Sample(k, nil); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
	}
	return out, nil
}
