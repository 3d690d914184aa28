package jinja

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

var fuzzLimits = Limits{MaxRange: 1000, MaxOutput: 1 << 16, MaxSteps: 20_000, MaxBuilt: 1 << 22}

// FuzzTemplateCost looks for templates whose cost grows faster than the
// limits allow, not only for crashes: any template, parsed and rendered
// under small limits, must finish (the limits bound loops, calls and
// sizes) and allocate at most a fixed multiple of its own size plus the
// limits — a quadratic concatenation, an unbounded list doubling, a
// padding built before its size is checked would all exceed it. Errors
// are fine; a limit error must be ErrLimit with a line.
func FuzzTemplateCost(f *testing.F) {
	for _, s := range []string{
		"{% for i in range(10**9) %}{% endfor %}{{ q }}",
		"{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}",
		"{% set ns = namespace(x=[1]) %}{% for i in range(40) %}{% set ns.x = ns.x + ns.x %}{% endfor %}",
		"{% set s = 'ab' %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}",
		"{{ ('x' * 1000)|replace('', 'yy') }}",
		"{{ 'x'|center(10**9) }}{{ 'x'.ljust(10**8) }}",
		"{% macro f(n) %}{{ f(n) }}{{ f(n) }}{% endmacro %}{{ f(1) }}",
		"{{ messages|tojson(indent=100000) }}",
		"{% for m in messages %}{{ m.role }}: {{ m['content'] | trim }}{% if not loop.last %}\n{% endif %}{% endfor %}",
		"{{ dict(a=1, b=[1.0, none])|tojson }}{{ (range(5)|list)[::-1] }}",
		"{% raw %}{{ x }}{% endraw %}{#- c -#}",
		"{% for i in range(1000) %}{% for j in range(10) %}{% set x = 'abcdefghij' * 6000 %}{% endfor %}{% endfor %}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tm, err := Compile("f.jinja", src)
		if err != nil {
			return
		}
		msgs := []any{NewDictOf("role", "user", "content", "hi"), NewDictOf("role", "assistant", "content", "ok")}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = tm.Render(context.Background(), map[string]any{"messages": msgs, "q": "x"}, fuzzLimits)
		runtime.ReadMemStats(&after)
		if err != nil && errors.Is(err, ErrLimit) {
			var te *Error
			if !errors.As(err, &te) || te.Name != "f.jinja" {
				t.Fatalf("limit error without the template's name: %v", err)
			}
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		bound := uint64(64<<20) + 4096*uint64(len(src))
		if alloc > bound {
			t.Fatalf("render of a %d-byte template allocated %d bytes (bound %d): super-linear cost\n%q", len(src), alloc, bound, src)
		}
	})
}

// NewDictOf builds a dict from key, value pairs (tests).
func NewDictOf(kv ...any) *Dict {
	d := NewDict()
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i], kv[i+1])
	}
	return d
}
