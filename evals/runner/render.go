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
	bytes int                                   // memory kept (requestBytes)
	// seen has the texts of kept messages already counted: tasks share
	// the text of earlier turns between samples (few-shot exemplars
	// rendered once per subject), and a shared text is counted once.
	seen map[*byte]struct{}
}

// maxRenderBytes bounds the memory a renderCache keeps (requestBytes):
// rendering a prompt again costs little next to holding tens of
// thousands (a replay of MMLU held 21 MB of them at 16 MiB), and what it
// keeps is live at the end of the checks, when every dataset is: at 4 MiB
// the suite's replay peaked about 4 MiB higher, for no CPU measured.
const maxRenderBytes = 1 << 20

func newRenderCache(pc evals.PromptConfig) *renderCache {
	return &renderCache{pc: pc, reqs: map[*prepared]map[int]runtime.Request{}, seen: map[*byte]struct{}{}}
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
	if c.bytes >= maxRenderBytes {
		return req, nil
	}
	n := c.requestBytes(req)
	if c.bytes+n > maxRenderBytes {
		return req, nil
	}
	c.bytes += n
	c.markSeen(req)
	m := c.reqs[p]
	if m == nil {
		m = map[int]runtime.Request{}
		c.reqs[p] = m
	}
	m[idx] = req
	return req, nil
}

// requestBytes is the memory keeping req takes: its entry in the map,
// the request and its messages (the array as allocated), the raw prompt
// and every text of its messages that no kept request shares with it
// (seen), the tools and template variables. Each allocation is counted at
// the size the allocator gives it (allocBytes). Tasks that render their
// few-shot turns once per subject share those texts; tasks that render
// them for every sample (BIG-Bench Hard) are counted with them, which an
// estimate from the last message alone would count at half their size.
func (c *renderCache) requestBytes(req runtime.Request) int {
	n := mapEntryBytes + allocBytes(int(unsafe.Sizeof(req))) + allocBytes(cap(req.Messages)*int(unsafe.Sizeof(runtime.Message{})))
	n += allocBytes(len(req.Prompt)) + allocBytes(len(req.Tools)) + allocBytes(len(req.ToolChoice)) + len(req.TemplateKwargs)*mapEntryBytes
	for i := range req.Messages {
		m := &req.Messages[i]
		for _, s := range [...]string{m.Content, m.ReasoningContent, m.ToolCallID, m.Name} {
			if len(s) == 0 {
				continue
			}
			if _, ok := c.seen[unsafe.StringData(s)]; !ok {
				n += allocBytes(len(s))
			}
		}
		for _, tc := range m.ToolCalls {
			n += int(unsafe.Sizeof(tc)) + allocBytes(len(tc.Arguments))
		}
	}
	return n
}

// markSeen records the texts of a kept request's messages as counted,
// and the entry seen takes for each.
func (c *renderCache) markSeen(req runtime.Request) {
	for i := range req.Messages {
		s := req.Messages[i].Content
		if len(s) == 0 {
			continue
		}
		if _, ok := c.seen[unsafe.StringData(s)]; !ok {
			c.seen[unsafe.StringData(s)] = struct{}{}
			c.bytes += mapEntryBytes
		}
	}
}

// mapEntryBytes is about what an entry of a Go map with small keys and
// values takes, its share of the table included.
const mapEntryBytes = 32

// allocBytes is about the size the allocator gives a request for n bytes:
// the next multiple of 16 up to 1 KiB, of 128 up to 8 KiB, of 1 KiB
// beyond.
func allocBytes(n int) int {
	switch {
	case n == 0:
		return 0
	case n <= 1<<10:
		return (n + 15) &^ 15
	case n <= 8<<10:
		return (n + 127) &^ 127
	}
	return (n + 1023) &^ 1023
}

// take removes and returns sample idx's request for the first repeat, if
// the cache has it.
func (c *renderCache) take(p *prepared, idx, repeat int) (runtime.Request, bool) {
	if c == nil || repeat != 0 {
		return runtime.Request{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.reqs[p]
	req, ok := m[idx]
	if ok {
		delete(m, idx)
		if len(m) == 0 {
			delete(c.reqs, p) // a map keeps its table when emptied
		}
	}
	return req, ok
}
