package runner

import (
	"sync"
	"unsafe"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// renderCache keeps the generation requests a run's checks rendered
// (checkRequests, preflight) for its execute phase, so that a sample's
// prompt is rendered once per run rather than two or three times. A
// request is handed out once (take) and then forgotten. Only requests
// rendered with the run's prompt configuration for the first repeat are
// kept (later repeats, with another seed, render their own), and only up
// to maxRenderBytes of them: past that, the execute phase renders
// again, so a run over tens of thousands of samples does not hold all
// their prompts at once. Work runs in dataset order, the order the checks
// render in, so the kept requests are the first ones used.
type renderCache struct {
	pc    evals.PromptConfig
	mu    sync.Mutex
	reqs  map[*prepared]map[int]runtime.Request // task → dataset index → request
	bytes int                                   // prompt text kept
}

// maxRenderBytes bounds the memory a renderCache keeps (requestBytes):
// rendering a prompt again costs little next to holding tens of
// thousands (a replay of MMLU held 21 MB of them at 16 MiB).
const maxRenderBytes = 4 << 20

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
	defer c.mu.Unlock()
	n := requestBytes(req)
	if c.bytes+n > maxRenderBytes {
		return req, nil
	}
	c.bytes += n
	m := c.reqs[p]
	if m == nil {
		m = map[int]runtime.Request{}
		c.reqs[p] = m
	}
	m[idx] = req
	return req, nil
}

// requestBytes estimates the memory req keeps: its raw prompt, its
// messages and the last message's text. Earlier turns are counted without
// their text, which tasks share between samples (few-shot exemplars).
func requestBytes(req runtime.Request) int {
	n := int(unsafe.Sizeof(req)) + len(req.Prompt) + len(req.Messages)*int(unsafe.Sizeof(runtime.Message{}))
	if k := len(req.Messages); k > 0 {
		n += len(req.Messages[k-1].Content)
	}
	return n
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
