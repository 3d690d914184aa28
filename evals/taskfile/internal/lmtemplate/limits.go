package lmtemplate

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"

	pejinja "github.com/pocketeval/pocketeval/internal/jinja"
)

// Limits of one render, as Python's sandboxed Jinja and pocketeval's chat
// templates have them (internal/jinja's DefaultLimits): range() yields at
// most 100,000 items and raises beyond (jinja2's MAX_RANGE); loops may
// run at most maxSteps iterations in all (every loop's iterable is
// counted when the loop starts, so empty nested loops count too), the
// output at most maxOutput bytes, the render at most maxTime. A template
// that exceeds one fails with the file's line.
const (
	maxRange  = 100_000
	maxSteps  = 1_000_000
	maxOutput = 16 << 20
	maxTime   = 30 * time.Second
)

// ErrLimit marks a render stopped by a limit.
var ErrLimit = errors.New("template limit")

const (
	helperIter = "__pe_iter"
	helperLine = "__pe_line"
)

// budget is one render's use of the limits.
type budget struct {
	steps, out int
	line       int // of the loop being entered, for range's errors
	deadline   time.Time
}

func (b *budget) check(line int) error {
	switch {
	case b.steps > maxSteps:
		return fmt.Errorf("line %d: %w: more than %d loop iterations", line, ErrLimit, maxSteps)
	case b.out > maxOutput:
		return fmt.Errorf("line %d: %w: output larger than %d bytes", line, ErrLimit, maxOutput)
	case time.Now().After(b.deadline):
		return fmt.Errorf("line %d: %w: render took longer than %s", line, ErrLimit, maxTime)
	}
	return nil
}

// limitFor rewrites "for x in EXPR [if c] [recursive]" so that the
// iterable goes through __pe_iter(EXPR, line), which counts its items.
func limitFor(stmt string, line int) (string, error) {
	toks, err := tokenize(stmt)
	if err != nil {
		return "", err
	}
	first := next(toks, -1)
	if first < 0 || toks[first].kind != tokName || toks[first].text != "for" {
		return stmt, nil
	}
	depth, in, end := 0, -1, len(toks)
	for i := first + 1; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokPunct && strings.ContainsAny(t.text, "([{"):
			depth++
		case t.kind == tokPunct && strings.ContainsAny(t.text, ")]}"):
			depth--
		case depth == 0 && t.kind == tokName && t.text == "in" && in < 0:
			in = i
		case depth == 0 && in >= 0 && t.kind == tokName && (t.text == "if" || t.text == "recursive") && end == len(toks):
			end = i
		}
	}
	if in < 0 {
		return stmt, nil
	}
	// The line goes first: arguments are evaluated in order, so range()
	// in the iterable knows where it is.
	return join(toks[:in+1]) + fmt.Sprintf(" %s(%s(%d), (%s)) ", helperIter, helperLine, line, join(toks[in+1:end])) + join(toks[end:]), nil
}

// limitHelpers returns the render's range and __pe_iter.
func (b *budget) helpers() (rng, iter jinja.Value) {
	rng = jinja.NewCallable("range", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) == 0 || len(args) > 3 {
			return jinja.Undefined(), fmt.Errorf("range expected 1 to 3 integer arguments")
		}
		ns := make([]int64, len(args))
		for i, a := range args {
			switch {
			case a.IsInt():
				ns[i] = a.AsInt()
			case a.IsFloat() && a.AsFloat() == float64(int64(a.AsFloat())):
				// the engine computes 10**9 as a float; Python has an int
				ns[i] = int64(a.AsFloat())
			default:
				return jinja.Undefined(), fmt.Errorf("range: %s is not an integer", a.String())
			}
		}
		start, stop, step := int64(0), ns[0], int64(1)
		if len(ns) > 1 {
			start, stop = ns[0], ns[1]
		}
		if len(ns) > 2 {
			step = ns[2]
		}
		if step == 0 {
			return jinja.Undefined(), fmt.Errorf("range() arg 3 must not be zero")
		}
		n := pejinja.RangeLen(start, stop, step)
		if n > maxRange {
			return jinja.Undefined(), fmt.Errorf("line %d: %w: range too big: the sandbox blocks ranges larger than MAX_RANGE (%d)", b.line, ErrLimit, maxRange)
		}
		items := make([]jinja.Value, n)
		for i := range items {
			items[i] = jinja.NewInt(start + int64(i)*step)
		}
		return jinja.NewList(items), nil
	})
	iter = jinja.NewCallable(helperIter, func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) != 2 || !args[0].IsInt() {
			return jinja.Undefined(), fmt.Errorf("internal: bad loop call")
		}
		v := args[1]
		switch {
		case v.IsList():
			b.steps += v.AsList().Len()
		case v.IsDict():
			b.steps += v.AsDict().Len()
		case v.IsString():
			b.steps += len(v.AsString())
		}
		b.steps++
		if err := b.check(int(args[0].AsInt())); err != nil {
			return jinja.Undefined(), err
		}
		return v, nil
	})
	return rng, iter
}

// lineHelper records the line of the loop being entered.
func (b *budget) lineHelper() jinja.Value {
	return jinja.NewCallable(helperLine, func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) == 1 && args[0].IsInt() {
			b.line = int(args[0].AsInt())
		}
		return jinja.NewInt(int64(b.line)), nil
	})
}
