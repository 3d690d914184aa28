package jinja

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

func (r *Renderer) binary(op string, l, rv any) (any, error) {
	switch op {
	case "==", "!=":
		eq := r.equal(l, rv)
		if r.err != nil {
			return nil, r.err
		}
		return eq == (op == "=="), nil
	case "<", ">", "<=", ">=":
		c, err := r.compare(l, rv)
		if r.err != nil {
			return nil, r.err
		}
		if err != nil {
			return nil, fmt.Errorf("'%s' not supported between instances of '%s' and '%s'", op, typeName(l), typeName(rv))
		}
		switch op {
		case "<":
			return c < 0, nil
		case ">":
			return c > 0, nil
		case "<=":
			return c <= 0, nil
		}
		return c >= 0, nil
	case "in":
		return r.contains(rv, l)
	case "not in":
		ok, err := r.contains(rv, l)
		return !ok, err
	case "+":
		return r.add(l, rv)
	case "*":
		return r.mul(l, rv)
	}
	return arith(op, l, rv)
}

func (r *Renderer) add(l, rv any) (any, error) {
	switch a := l.(type) {
	case string:
		switch b := rv.(type) {
		case string:
			if err := r.build(len(a) + len(b)); err != nil {
				return nil, err
			}
			return a + b, nil
		case Markup:
			return Markup(escapeHTML(a)) + b, nil
		}
	case Markup:
		switch b := rv.(type) {
		case string:
			return a + Markup(escapeHTML(b)), nil
		case Markup:
			return a + b, nil
		}
	case []any:
		switch b := rv.(type) {
		case []any:
			if err := r.buildItems(len(a) + len(b)); err != nil {
				return nil, err
			}
			out := make([]any, 0, len(a)+len(b))
			return append(append(out, a...), b...), nil
		}
	case Tuple:
		if b, ok := rv.(Tuple); ok {
			if err := r.buildItems(len(a) + len(b)); err != nil {
				return nil, err
			}
			out := make(Tuple, 0, len(a)+len(b))
			return append(append(out, a...), b...), nil
		}
	}
	if isNum(l) && isNum(rv) {
		return arith("+", l, rv)
	}
	return nil, fmt.Errorf("unsupported operand type(s) for +: '%s' and '%s'", typeName(l), typeName(rv))
}

func (r *Renderer) mul(l, rv any) (any, error) {
	if n, ok := rv.(int64); ok {
		switch a := l.(type) {
		case string:
			if n <= 0 {
				return "", nil
			}
			if err := r.build(len(a) * int(min(n, math.MaxInt32))); err != nil {
				return nil, err
			}
			return strings.Repeat(a, int(n)), nil
		case []any:
			if n <= 0 {
				return []any{}, nil
			}
			if err := r.buildItems(len(a) * int(min(n, math.MaxInt32))); err != nil {
				return nil, err
			}
			var out []any
			for range n {
				out = append(out, a...)
			}
			return out, nil
		}
	}
	if n, ok := l.(int64); ok {
		if _, ok := rv.(string); ok {
			return r.mul(rv, n)
		}
	}
	if isNum(l) && isNum(rv) {
		return arith("*", l, rv)
	}
	return nil, fmt.Errorf("unsupported operand type(s) for *: '%s' and '%s'", typeName(l), typeName(rv))
}

func isNum(v any) bool {
	switch v.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}

func arith(op string, l, rv any) (any, error) {
	if !isNum(l) || !isNum(rv) {
		return nil, fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(l), typeName(rv))
	}
	if b, ok := l.(bool); ok {
		l = boolInt(b)
	}
	if b, ok := rv.(bool); ok {
		rv = boolInt(b)
	}
	ai, aInt := l.(int64)
	bi, bInt := rv.(int64)
	if aInt && bInt {
		return pyval.IntOp(op, ai, bi)
	}
	v, err := pyval.FloatOp(op, toFloat(l), toFloat(rv))
	if errors.Is(err, pyval.ErrOperator) {
		return nil, fmt.Errorf("unknown operator %s", op)
	}
	return v, err
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case bool:
		return float64(boolInt(x))
	}
	return 0
}

// equal is Python's ==. Each value it compares is a step of the
// render's comparison work (see tick): a comparison over large or aliased
// containers stops, false, once the render must stop, with r.err set.
// r may be nil (no render: no limit).
func (r *Renderer) equal(a, b any) bool {
	if !r.tick() {
		return false
	}
	if isNum(a) && isNum(b) {
		return toFloat(a) == toFloat(b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case Markup:
			return x == string(y)
		}
		return false
	case Markup:
		return r.equal(string(x), b)
	case []any:
		y, ok := b.([]any)
		return ok && r.equalSeq(x, y)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && r.equalSeq(x, y)
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		if x == y {
			return true
		}
		for _, k := range x.Keys() {
			v1, _ := x.Get(k)
			v2, ok := y.Get(k)
			if !ok || !r.equal(v1, v2) {
				return false
			}
		}
		return true
	case Undefined:
		_, ok := b.(Undefined)
		return ok
	}
	return a == b
}

func (r *Renderer) equalSeq(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // the same list, as Python's identity shortcut
	}
	for i := range a {
		if !r.equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// compare orders a and b as Python's < does; over sequences it is bounded
// as equal is (0 once the render must stop, with r.err set).
func (r *Renderer) compare(a, b any) (int, error) {
	if !r.tick() {
		return 0, nil
	}
	if isNum(a) && isNum(b) {
		x, y := toFloat(a), toFloat(b)
		switch {
		case x < y:
			return -1, nil
		case x > y:
			return 1, nil
		}
		return 0, nil
	}
	sa, ok1 := asStr(a)
	sb, ok2 := asStr(b)
	if ok1 && ok2 {
		return strings.Compare(sa, sb), nil
	}
	la, ok1 := asSeq(a)
	lb, ok2 := asSeq(b)
	if ok1 && ok2 && len(la) == len(lb) && r.equalSeq(la, lb) {
		return 0, nil
	}
	if ok1 && ok2 {
		for i := 0; i < len(la) && i < len(lb); i++ {
			if !r.equal(la[i], lb[i]) {
				return r.compare(la[i], lb[i])
			}
		}
		return len(la) - len(lb), nil
	}
	return 0, fmt.Errorf("not comparable")
}

func asStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case Markup:
		return string(x), true
	}
	return "", false
}

func asSeq(v any) ([]any, bool) { return pyval.Seq(v) }

// contains is Python's in; over a list it is bounded as equal is, and
// returns r.err once the render must stop.
func (r *Renderer) contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case string, Markup:
		s, _ := asStr(c)
		sub, ok := asStr(item)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", typeName(item))
		}
		return strings.Contains(s, sub), nil
	case []any, Tuple:
		l, _ := asSeq(c)
		for _, x := range l {
			if r.equal(x, item) {
				return true, nil
			}
		}
		return false, r.stopped()
	case *Dict:
		_, ok := c.Get(item)
		return ok, nil
	case *Generator:
		items := c.items
		if c.used {
			items = nil
		}
		for i, x := range items {
			if r.equal(x, item) {
				c.items = items[i+1:]
				return true, nil
			}
		}
		c.used = true
		return false, r.stopped()
	case Undefined:
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", typeName(container))
}
