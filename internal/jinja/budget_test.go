package jinja

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestBudgetChargedAsBuilt renders templates that build gigabytes from
// small values that refer many times to one large list or string (issue
// #49): each must fail with a limit error having allocated well under
// 1 GB in all, because values are charged as they grow, not after.
func TestBudgetChargedAsBuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("renders million-item lists")
	}
	const alias = `{% set a = [[1]*1000000]*1000 %}`
	for _, src := range []string{
		alias + `{{ a|join(",")|length }}`,
		alias + `{{ a }}`,
		alias + `{{ a|string|length }}`,
		alias + `{{ a|pprint|length }}`,
		alias + `{{ '%s'|format(a)|length }}`,
		alias + `{{ '{}'.format(a)|length }}`,
		alias + `{{ ('x' ~ a)|length }}`,
		alias + `{{ a|tojson|length }}`,
		alias + `{{ a|map('string')|list|length }}`,
		alias + `{{ 'x'.replace(a, 'y') }}`,
		`{% set a = ['x'*1000000]*1000 %}{{ a|join|length }}`,
		`{% set a = ['x'*1000000]*1000 %}{{ a|map('upper')|join|length }}`,
		`{{ '%999999999s'|format('x')|length }}`,
		`{{ '%.999999999f'|format(1.5)|length }}`,
	} {
		tm, err := Compile("t", src)
		if err != nil {
			t.Fatal(err)
		}
		var out string
		start := time.Now()
		peak := peakHeap(func() { out, err = tm.Render(context.Background(), nil, DefaultLimits) })
		t.Logf("%s: peak heap %d MiB, %v", src, peak>>20, time.Since(start))
		if !errors.Is(err, ErrLimit) {
			t.Errorf("%s: got %.80q, %v; want a limit error", src, out, err)
		}
		if len(err.Error()) > 1000 {
			t.Errorf("%s: the error quotes %d bytes", src, len(err.Error()))
		}
		if peak > 1<<30 {
			t.Errorf("%s: heap reached %d MiB", src, peak>>20)
		}
	}
}

// TestAliasedCompare: comparing, sorting and deduplicating a list of
// references to one large list is cheap, as in Python, where an item is
// first compared by identity.
func TestAliasedCompare(t *testing.T) {
	src := `{% set a = [[1]*100000]*1000 %}{{ a|sort|length }} {{ a|unique|list|length }} {{ a == a[:] }} {{ ([1]*100000) in a }}`
	out, err := render(t, src, Limits{MaxSteps: 100_000})
	if err != nil || out != "1000 1 True True" {
		t.Errorf("got %q, %v", out, err)
	}
}

// TestStopAtNextStep: a context cancelled during a render stops it at
// its next step, not 1024 steps later.
func TestStopAtNextStep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	env := ChatEnv
	env.Filters = map[string]*Callable{"slow": {Name: "slow", Fn: func(_ *Renderer, args []any, _ []Kwarg) (any, error) {
		calls++
		cancel()
		time.Sleep(time.Millisecond) // a slow step
		return args[0], nil
	}}}
	tm, err := env.Compile("t", "{% for i in range(100000) %}{{ i|slow }}{% endfor %}")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tm.Render(ctx, nil, DefaultLimits)
	if !errors.Is(err, context.Canceled) || calls >= 512 {
		t.Errorf("after cancel: %d calls, %v", calls, err)
	}
	if strings.Contains(err.Error(), "limit") {
		t.Errorf("cancel reported as a limit: %v", err)
	}
}

// peakHeap runs f and returns the largest heap in use seen while it ran
// (sampled every millisecond, and at the end).
func peakHeap(f func()) uint64 {
	runtime.GC()
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var mx uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			mx = max(mx, m.HeapInuse)
			select {
			case <-done:
				peak <- mx
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	return <-peak
}

// TestCompareStops: ==, !=, <, in and the filters and methods that
// compare stop once the render's deadline has passed or its context has
// ended (issue #49), with the error the other limits give: comparing two
// lists of 1,000 references to distinct 100,000-item lists takes 10^8
// item comparisons, and builds nothing. A filter moves the render past
// its deadline (or cancels it) just before the comparison, so that a
// comparison which did not check would answer, and the render succeed.
func TestCompareStops(t *testing.T) {
	const lists = `{% set a = [[1]*100000]*1000 %}{% set b = [[1]*100000]*1000 %}`
	srcs := []string{
		`{{ a == (b|late) }}`,
		`{{ a != (b|late) }}`,
		`{{ a <= (b|late) }}`,
		`{{ (b|late)[0] in a }}`,
		`{{ (b|late)[0] not in a }}`,
		`{{ a is eq(b|late) }}`,
		`{{ (b|late)[0] is in a }}`,
		`{{ a.count((b|late)[0]) }}`,
		`{{ (a + (b|late))|unique|list|length }}`,
		`{{ (a + (b|late))|sort|length }}`,
		`{{ {'x': a}|dictsort == [('x', b|late)] }}`,
	}
	for _, mode := range []string{"deadline", "cancel"} {
		for _, src := range srcs {
			ctx, cancel := context.WithCancel(context.Background())
			env := ChatEnv
			env.Filters = map[string]*Callable{"late": {Name: "late", Fn: func(r *Renderer, args []any, _ []Kwarg) (any, error) {
				if mode == "cancel" {
					cancel()
				} else {
					time.Sleep(time.Until(r.deadline) + time.Millisecond)
				}
				return args[0], nil
			}}}
			tm, err := env.Compile("t", lists+src)
			if err != nil {
				t.Fatal(err)
			}
			lim := DefaultLimits
			lim.Timeout = 300 * time.Millisecond
			if mode == "cancel" {
				lim.Timeout = time.Hour
			}
			start := time.Now()
			out, err := tm.Render(ctx, nil, lim)
			cancel()
			t.Logf("%s %s: %v", mode, src, time.Since(start))
			switch {
			case mode == "deadline" && !errors.Is(err, ErrLimit):
				t.Errorf("%s past the deadline: %q, %v; want a limit error", src, out, err)
			case mode == "cancel" && !errors.Is(err, context.Canceled):
				t.Errorf("%s cancelled: %q, %v; want context.Canceled", src, out, err)
			}
			if err != nil && mode == "deadline" && !strings.Contains(err.Error(), "render took longer than 300ms") {
				t.Errorf("%s: %v", src, err)
			}
		}
	}
}
