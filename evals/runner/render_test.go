package runner

import (
	"context"
	goruntime "runtime"
	"testing"

	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestRenderCacheRealBytes checks that the bound of the render cache
// counts the memory its requests really take: rendering each task's
// prompts into an empty cache grows the live heap by no more than about
// what the cache counted (the tasks' own caches warmed first), whether
// the task shares its few-shot turns between samples (MMLU, CMMLU) or
// renders them for each (BIG-Bench Hard).
func TestRenderCacheRealBytes(t *testing.T) {
	data := sharedtest.Datasets(t)
	for _, name := range []string{"mmlu", "gsm8k", "ifeval", "bbh", "cmmlu", "math500"} {
		tasks, err := registry.Lookup(registry.All(), []string{name})
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Tasks: tasks, DataDir: data, NumFewshot: -1, Chat: true}
		o.setDefaults()
		p, err := prepare(context.Background(), tasks[0], o.settings(), func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		c := newRenderCache(o.settings().prompt)
		var m0, m1 goruntime.MemStats
		// Warm the task's own caches (exemplar turns) first.
		for _, idx := range p.selected {
			c.render(p, idx)
		}
		c = newRenderCache(o.settings().prompt)
		goruntime.GC()
		goruntime.ReadMemStats(&m0)
		n := 0
		for _, idx := range p.selected {
			c.render(p, idx)
			n++
		}
		goruntime.GC()
		goruntime.ReadMemStats(&m1)
		kept := 0
		for _, m := range c.reqs {
			kept += len(m)
		}
		t.Logf("%s: %d rendered, %d kept, accounted %d, heap grew %d (%.2f×)", name, n, kept, c.bytes, int64(m1.HeapAlloc-m0.HeapAlloc), float64(m1.HeapAlloc-m0.HeapAlloc)/float64(c.bytes))
		goruntime.KeepAlive(c)
		if grew := float64(m1.HeapAlloc) - float64(m0.HeapAlloc); grew > 1.25*float64(c.bytes) {
			t.Errorf("%s: the cache counted %d bytes, the heap grew by %.0f", name, c.bytes, grew)
		}
	}
}
