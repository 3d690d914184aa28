package runner

import (
	"sync"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// renderCache keeps the generation requests a run's checks rendered
// (checkRequests, preflight) for its execute phase, so that each sample's
// prompt is rendered once per run rather than two or three times. A
// request is handed out once (take) and then forgotten, so the cache never
// holds more than the requests still to generate. Only requests rendered
// with the run's prompt configuration for the first repeat are kept; later
// repeats (another seed) render their own.
type renderCache struct {
	pc   evals.PromptConfig
	mu   sync.Mutex
	reqs map[*prepared]map[int]runtime.Request // task → dataset index → request
}

func newRenderCache(pc evals.PromptConfig) *renderCache {
	return &renderCache{pc: pc, reqs: map[*prepared]map[int]runtime.Request{}}
}

// render returns sample idx's request as p.task.Prompt renders it with
// the cache's configuration, from the cache when an earlier check
// rendered it, and keeps it for take.
func (c *renderCache) render(p *prepared, idx int) (runtime.Request, error) {
	c.mu.Lock()
	req, ok := c.reqs[p][idx]
	c.mu.Unlock()
	if ok {
		return req, nil
	}
	req, err := p.task.Prompt(p.data, p.data.Samples[idx], c.pc)
	if err != nil {
		return req, err
	}
	c.mu.Lock()
	m := c.reqs[p]
	if m == nil {
		m = map[int]runtime.Request{}
		c.reqs[p] = m
	}
	m[idx] = req
	c.mu.Unlock()
	return req, nil
}

// take removes and returns sample idx's request for the first repeat, if
// the cache has it.
func (c *renderCache) take(p *prepared, idx, repeat int) (runtime.Request, bool) {
	if c == nil || repeat != 0 {
		return runtime.Request{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	req, ok := c.reqs[p][idx]
	if ok {
		delete(c.reqs[p], idx)
	}
	return req, ok
}
