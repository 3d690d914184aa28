package jinja

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// ---- expressions

func (r *Renderer) eval(x expr, sc *scope) (any, error) {
	switch x := x.(type) {
	case *constExpr:
		return x.v, nil
	case *nameExpr:
		if v, ok := sc.get(x.name); ok {
			return v, nil
		}
		return Undefined{hint: fmt.Sprintf("'%s' is undefined", x.name)}, nil
	case *listExpr:
		out := make([]any, len(x.items))
		for i, e := range x.items {
			v, err := r.eval(e, sc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *tupleExpr:
		out := make(Tuple, len(x.items))
		for i, e := range x.items {
			v, err := r.eval(e, sc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *dictExpr:
		d := NewDict()
		for i := range x.keys {
			k, err := r.eval(x.keys[i], sc)
			if err != nil {
				return nil, err
			}
			if !hashable(k) {
				return nil, fmt.Errorf("unhashable type: '%s'", typeName(k))
			}
			v, err := r.eval(x.vals[i], sc)
			if err != nil {
				return nil, err
			}
			d.Set(k, v)
		}
		return d, nil
	case *attrExpr:
		obj, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		return r.getattr(obj, x.name)
	case *itemExpr:
		obj, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		k, err := r.eval(x.key, sc)
		if err != nil {
			return nil, err
		}
		return r.getitem(obj, k)
	case *sliceExpr:
		return r.evalSlice(x, sc)
	case *callExpr:
		fn, err := r.eval(x.fn, sc)
		if err != nil {
			return nil, err
		}
		args, kw, err := r.evalArgs(x.args, sc)
		if err != nil {
			return nil, err
		}
		return r.call(fn, args, kw)
	case *filterExpr:
		v, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		return r.applyFilter(x, v, sc)
	case *testExpr:
		v, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		args, kw, err := r.evalArgs(x.args, sc)
		if err != nil {
			return nil, err
		}
		ok, err := r.test(x.name, v, args, kw, sc)
		if err != nil {
			return nil, err
		}
		return ok != x.neg, nil
	case *unaryExpr:
		v, err := r.eval(x.x, sc)
		if err == nil && x.op == "not" {
			err = r.strict(v)
		}
		if err != nil {
			return nil, err
		}
		switch x.op {
		case "not":
			return !truthy(v), nil
		case "-":
			switch n := v.(type) {
			case int64:
				return -n, nil
			case float64:
				return -n, nil
			case bool:
				return -boolInt(n), nil
			}
			return nil, fmt.Errorf("bad operand type for unary -: '%s'", typeName(v))
		case "+":
			switch n := v.(type) {
			case int64, float64:
				return n, nil
			case bool:
				return boolInt(n), nil
			}
			return nil, fmt.Errorf("bad operand type for unary +: '%s'", typeName(v))
		}
	case *binExpr:
		switch x.op {
		case "and":
			l, err := r.eval(x.l, sc)
			if err == nil {
				err = r.strict(l)
			}
			if err != nil || !truthy(l) {
				return l, err
			}
			return r.eval(x.r, sc)
		case "or":
			l, err := r.eval(x.l, sc)
			if err == nil {
				err = r.strict(l)
			}
			if err != nil || truthy(l) {
				return l, err
			}
			return r.eval(x.r, sc)
		}
		l, err := r.eval(x.l, sc)
		if err == nil {
			err = r.strict(l)
		}
		if err != nil {
			return nil, err
		}
		rv, err := r.eval(x.r, sc)
		if err == nil {
			err = r.strict(rv)
		}
		if err != nil {
			return nil, err
		}
		return r.binary(x.op, l, rv)
	case *condExpr:
		c, err := r.eval(x.cond, sc)
		if err == nil {
			err = r.strict(c)
		}
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return r.eval(x.a, sc)
		}
		if x.b == nil {
			return Undefined{hint: "the inline if-expression on line evaluated to false and no else section was defined."}, nil
		}
		return r.eval(x.b, sc)
	case *concatExpr:
		var b strings.Builder
		for _, e := range x.items {
			v, err := r.eval(e, sc)
			if err == nil {
				err = r.strict(v)
			}
			if err != nil {
				return nil, err
			}
			b.WriteString(r.str(v))
			if err := r.checkSize(b.Len()); err != nil {
				return nil, err
			}
		}
		return b.String(), r.build(b.Len())
	}
	return nil, fmt.Errorf("internal: unknown expression %T", x)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (r *Renderer) evalArgs(a callArgs, sc *scope) ([]any, []Kwarg, error) {
	args := make([]any, 0, len(a.pos))
	for _, e := range a.pos {
		v, err := r.eval(e, sc)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	var kw []Kwarg
	for _, k := range a.kw {
		v, err := r.eval(k.v, sc)
		if err != nil {
			return nil, nil, err
		}
		kw = append(kw, Kwarg{Name: k.name, Value: v})
	}
	if a.star != nil {
		v, err := r.eval(a.star, sc)
		if err != nil {
			return nil, nil, err
		}
		items, err := r.iterate(v)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, items...)
	}
	if a.starstr != nil {
		v, err := r.eval(a.starstr, sc)
		if err != nil {
			return nil, nil, err
		}
		d, ok := v.(*Dict)
		if !ok {
			return nil, nil, fmt.Errorf("argument after ** must be a mapping, not %s", typeName(v))
		}
		for _, k := range d.Keys() {
			val, _ := d.Get(k)
			kw = append(kw, Kwarg{Name: r.str(k), Value: val})
		}
	}
	return args, kw, nil
}

func (r *Renderer) call(fn any, args []any, kw []Kwarg) (any, error) {
	switch f := fn.(type) {
	case *Callable:
		if err := r.step(); err != nil {
			return nil, err
		}
		v, err := f.Fn(r, args, kw)
		if err == nil {
			err = r.checkValue(v)
		}
		return v, err
	case *Dict:
		if c, ok := f.Get("__call__"); ok {
			return r.call(c, args, kw)
		}
	case *loopCtx:
		if !f.n.recursive {
			return nil, fmt.Errorf("loop() is only callable in a recursive loop")
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("loop() takes one iterable")
		}
		if f.depth+1 > maxDepth {
			return nil, r.limitErr("maximum recursion depth (%d) exceeded", maxDepth)
		}
		var b strings.Builder
		if err := r.execFor(f.n, f.sc, &b, args[0], f.depth+1); err != nil {
			return nil, err
		}
		return b.String(), nil
	case Undefined:
		if f.hint != "" {
			return nil, errors.New(f.hint)
		}
	}
	return nil, fmt.Errorf("'%s' object is not callable", typeName(fn))
}

func (r *Renderer) getattr(obj any, name string) (any, error) {
	switch o := obj.(type) {
	case Undefined:
		return nil, errors.New(o.undefinedMsg())
	case *Dict:
		if m := dictMethod(o, name); m != nil {
			return m, nil
		}
		if v, ok := o.Get(name); ok {
			return v, nil
		}
		return Undefined{hint: fmt.Sprintf("'dict object' has no attribute '%s'", name)}, nil
	case *Namespace:
		if v, ok := o.d.Get(name); ok {
			return v, nil
		}
	case *loopCtx:
		if v, ok := o.attr(name); ok {
			return v, nil
		}
	case string:
		if m := strMethod(o, name); m != nil {
			return m, nil
		}
	case Markup:
		if m := strMethod(string(o), name); m != nil {
			return m, nil
		}
	case []any:
		if m := listMethod(o, name); m != nil {
			return m, nil
		}
	case Tuple:
		if m := listMethod(o, name); m != nil {
			return m, nil
		}
	}
	return Undefined{hint: fmt.Sprintf("'%s object' has no attribute '%s'", typeName(obj), name)}, nil
}

// strict is the error jinja2's StrictUndefined raises when v is used and
// undefined; nil when v is defined or the environment is lenient.
func (r *Renderer) strict(v any) error {
	if u, ok := v.(Undefined); ok && r.env.StrictUndefined {
		return errors.New(u.undefinedMsg())
	}
	return nil
}

func (u Undefined) undefinedMsg() string {
	if u.hint == "" {
		return "value is undefined"
	}
	return u.hint
}

func (r *Renderer) getitem(obj, key any) (any, error) {
	switch o := obj.(type) {
	case Undefined:
		return nil, errors.New(o.undefinedMsg())
	case *Dict:
		if !hashable(key) {
			return nil, fmt.Errorf("unhashable type: '%s'", typeName(key))
		}
		if v, ok := o.Get(key); ok {
			return v, nil
		}
		if s, ok := key.(string); ok {
			if m := dictMethod(o, s); m != nil {
				return m, nil
			}
		}
		return Undefined{hint: fmt.Sprintf("'dict object' has no attribute %s", pyval.StringRepr(r.str(key)))}, nil
	case []any, Tuple, string, Markup:
		i, isInt := key.(int64)
		if b, ok := key.(bool); ok {
			i, isInt = boolInt(b), true
		}
		if isInt {
			var n int
			var get func(int) any
			switch o := o.(type) {
			case []any:
				n, get = len(o), func(j int) any { return o[j] }
			case Tuple:
				n, get = len(o), func(j int) any { return o[j] }
			case string:
				rs := []rune(o)
				n, get = len(rs), func(j int) any { return string(rs[j]) }
			case Markup:
				rs := []rune(string(o))
				n, get = len(rs), func(j int) any { return Markup(rs[j]) }
			}
			if i < 0 {
				i += int64(n)
			}
			if i >= 0 && i < int64(n) {
				return get(int(i)), nil
			}
			return Undefined{hint: fmt.Sprintf("%s object has no element %d", typeName(obj), key)}, nil
		}
		if s, ok := key.(string); ok {
			return r.getattr(obj, s)
		}
	case *Namespace:
		if s, ok := key.(string); ok {
			return r.getattr(obj, s)
		}
	}
	return Undefined{hint: fmt.Sprintf("'%s object' has no attribute %s", typeName(obj), r.repr(key))}, nil
}

func (r *Renderer) evalSlice(x *sliceExpr, sc *scope) (any, error) {
	obj, err := r.eval(x.obj, sc)
	if err != nil {
		return nil, err
	}
	var bounds [3]*int64
	for i, e := range []expr{x.start, x.stop, x.stp} {
		if e == nil {
			continue
		}
		v, err := r.eval(e, sc)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("slice indices must be integers or None")
		}
		bounds[i] = &n
	}
	var n int
	var items []any
	var rs []rune
	switch o := obj.(type) {
	case []any:
		items, n = o, len(o)
	case Tuple:
		items, n = o, len(o)
	case string:
		rs = []rune(o)
		n = len(rs)
	case Markup:
		rs = []rune(string(o))
		n = len(rs)
	case Undefined:
		return nil, errors.New(o.undefinedMsg())
	default:
		return nil, fmt.Errorf("'%s' object is not subscriptable", typeName(obj))
	}
	idx, err := sliceIndices(n, bounds)
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case []any:
		out := make([]any, len(idx))
		for i, j := range idx {
			out[i] = items[j]
		}
		return out, nil
	case Tuple:
		out := make(Tuple, len(idx))
		for i, j := range idx {
			out[i] = items[j]
		}
		return out, nil
	case string, Markup:
		var b strings.Builder
		for _, j := range idx {
			b.WriteRune(rs[j])
		}
		if _, ok := o.(Markup); ok {
			return Markup(b.String()), nil
		}
		return b.String(), nil
	}
	return nil, nil
}

// sliceIndices is Python's slice.indices, expanded.
func sliceIndices(n int, b [3]*int64) ([]int, error) {
	step := int64(1)
	if b[2] != nil {
		step = *b[2]
		if step == 0 {
			return nil, fmt.Errorf("slice step cannot be zero")
		}
	}
	ln := int64(n)
	clamp := func(p *int64, def int64) int64 {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += ln
			if v < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		}
		if v >= ln {
			if step < 0 {
				return ln - 1
			}
			return ln
		}
		return v
	}
	var start, stop int64
	if step > 0 {
		start, stop = clamp(b[0], 0), clamp(b[1], ln)
	} else {
		start, stop = clamp(b[0], ln-1), clamp(b[1], -1)
	}
	var out []int
	for i := start; step > 0 && i < stop || step < 0 && i > stop; i += step {
		out = append(out, int(i))
	}
	return out, nil
}
