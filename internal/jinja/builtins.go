package jinja

import (
	"errors"
	"fmt"
)

func fn(name string, f func(r *Renderer, args []any, kw []Kwarg) (any, error)) *Callable {
	return &Callable{Name: name, Fn: f}
}

// argument binding: params in order; kw may name them.
func bind(name string, args []any, kw []Kwarg, params []string, defaults ...any) ([]any, error) {
	out := make([]any, len(params))
	set := make([]bool, len(params))
	if len(args) > len(params) {
		return nil, fmt.Errorf("%s() takes at most %d arguments (%d given)", name, len(params), len(args))
	}
	for i, a := range args {
		out[i], set[i] = a, true
	}
	for _, k := range kw {
		found := false
		for i, p := range params {
			if p == k.Name {
				if set[i] {
					return nil, fmt.Errorf("%s() got multiple values for argument '%s'", name, p)
				}
				out[i], set[i], found = k.Value, true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s() got an unexpected keyword argument '%s'", name, k.Name)
		}
	}
	req := len(params) - len(defaults)
	for i := range params {
		if set[i] {
			continue
		}
		if i < req {
			return nil, fmt.Errorf("%s() missing required argument '%s'", name, params[i])
		}
		out[i] = defaults[i-req]
	}
	return out, nil
}

func builtinGlobals() map[string]any {
	return map[string]any{
		"range":     fn("range", globalRange),
		"dict":      fn("dict", globalDict),
		"namespace": fn("namespace", globalNamespace),
		"joiner":    fn("joiner", globalJoiner),
		"cycler":    fn("cycler", globalCycler),
	}
}

func globalRange(r *Renderer, args []any, kw []Kwarg) (any, error) {
	if len(kw) > 0 || len(args) == 0 || len(args) > 3 {
		return nil, fmt.Errorf("range expected 1 to 3 integer arguments")
	}
	ns := make([]int64, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case int64:
			ns[i] = x
		case bool:
			ns[i] = boolInt(x)
		default:
			return nil, fmt.Errorf("'%s' object cannot be interpreted as an integer", typeName(a))
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
		return nil, fmt.Errorf("range() arg 3 must not be zero")
	}
	n := RangeLen(start, stop, step)
	if r.lim.MaxRange > 0 && n > int64(r.lim.MaxRange) {
		return nil, r.limitErr("range too big: the sandbox blocks ranges larger than MAX_RANGE (%d)", r.lim.MaxRange)
	}
	out := make([]any, n)
	for i := range out {
		out[i] = start + int64(i)*step
	}
	return out, nil
}

// RangeLen is len(range(start, stop, step)) for a non-zero step.
func RangeLen(start, stop, step int64) int64 {
	switch {
	case step > 0 && stop > start:
		return (stop - start + step - 1) / step
	case step < 0 && stop < start:
		return (start - stop - step - 1) / -step
	}
	return 0
}

func globalDict(r *Renderer, args []any, kw []Kwarg) (any, error) {
	d := NewDict()
	if len(args) > 1 {
		return nil, fmt.Errorf("dict expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		if err := dictUpdate(d, args[0]); err != nil {
			return nil, err
		}
	}
	for _, k := range kw {
		d.Set(k.Name, k.Value)
	}
	return d, nil
}

func dictUpdate(d *Dict, v any) error {
	switch x := v.(type) {
	case *Dict:
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			d.Set(k, val)
		}
		return nil
	case []any, Tuple:
		items, _ := asSeq(x)
		for _, it := range items {
			pair, ok := asSeq(it)
			if !ok || len(pair) != 2 {
				return fmt.Errorf("dictionary update sequence element has the wrong length")
			}
			d.Set(pair[0], pair[1])
		}
		return nil
	}
	return fmt.Errorf("'%s' object is not iterable", typeName(v))
}

func globalNamespace(r *Renderer, args []any, kw []Kwarg) (any, error) {
	d := NewDict()
	for _, a := range args {
		if err := dictUpdate(d, a); err != nil {
			return nil, err
		}
	}
	for _, k := range kw {
		d.Set(k.Name, k.Value)
	}
	return &Namespace{d: d}, nil
}

func globalJoiner(r *Renderer, args []any, kw []Kwarg) (any, error) {
	a, err := bind("joiner", args, kw, []string{"sep"}, ", ")
	if err != nil {
		return nil, err
	}
	used := false
	return fn("joiner", func(*Renderer, []any, []Kwarg) (any, error) {
		if !used {
			used = true
			return "", nil
		}
		return a[0], nil
	}), nil
}

func globalCycler(r *Renderer, args []any, _ []Kwarg) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("cycler needs at least one item")
	}
	d := NewDict()
	pos := 0
	d.Set("current", args[0])
	d.Set("next", fn("next", func(*Renderer, []any, []Kwarg) (any, error) {
		v := args[pos]
		pos = (pos + 1) % len(args)
		d.Set("current", args[pos])
		return v, nil
	}))
	d.Set("reset", fn("reset", func(*Renderer, []any, []Kwarg) (any, error) {
		pos = 0
		d.Set("current", args[0])
		return nil, nil
	}))
	return d, nil
}

var errUnsafe = errors.New("unsafe")

func unsafeMethod(obj, name string) *Callable {
	return fn(name, func(*Renderer, []any, []Kwarg) (any, error) {
		return nil, fmt.Errorf("access to attribute '%s' of '%s' object is unsafe.", name, obj)
	})
}
