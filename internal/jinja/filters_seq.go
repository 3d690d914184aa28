package jinja

import (
	"fmt"
	"sort"
	"strings"
)

func filterBatch(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("batch", args, kw, []string{"linecount", "fill_with"}, nil, nil)
	if err != nil {
		return nil, err
	}
	n := int(toInt(a[0]))
	if n <= 0 {
		return nil, fmt.Errorf("batch size must be positive")
	}
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	var out []any
	for i := 0; i < len(items); i += n {
		end := min(i+n, len(items))
		b := append([]any{}, items[i:end]...)
		for a[1] != nil && len(b) < n {
			b = append(b, a[1])
		}
		out = append(out, b)
	}
	return newGen(out), nil
}

func filterDictsort(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("dictsort", args, kw, []string{"case_sensitive", "by", "reverse"}, false, "key", false)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*Dict)
	if !ok {
		return nil, fmt.Errorf("dictsort: a dict is required")
	}
	items := dictItems(d)
	pos := 0
	if r.str(a[1]) == "value" {
		pos = 1
	}
	var sortErr error
	sort.SliceStable(items, func(i, j int) bool {
		x, y := items[i].(Tuple)[pos], items[j].(Tuple)[pos]
		if !truthy(a[0]) {
			x, y = foldCase(x), foldCase(y)
		}
		c, err := r.compare(x, y)
		if err != nil {
			sortErr = err
		}
		if truthy(a[2]) {
			return c > 0
		}
		return c < 0
	})
	return items, sortErr
}

func foldCase(v any) any {
	if s, ok := asStr(v); ok {
		return strings.ToLower(s)
	}
	return v
}

func filterSort(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("sort", args, kw, []string{"reverse", "case_sensitive", "attribute"}, false, false, nil)
	if err != nil {
		return nil, err
	}
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	out := append([]any{}, items...)
	keys := make([]any, len(out))
	for i, it := range out {
		k := it
		if a[2] != nil {
			if k, err = r.attrPath(it, a[2]); err != nil {
				return nil, err
			}
		}
		if !truthy(a[1]) {
			k = foldCase(k)
		}
		keys[i] = k
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	var sortErr error
	sort.SliceStable(idx, func(i, j int) bool {
		c, err := r.compare(keys[idx[i]], keys[idx[j]])
		if err != nil {
			sortErr = fmt.Errorf("'<' not supported between instances of '%s' and '%s'", typeName(keys[idx[i]]), typeName(keys[idx[j]]))
		}
		if truthy(a[0]) {
			return c > 0
		}
		return c < 0
	})
	res := make([]any, len(out))
	for i, j := range idx {
		res[i] = out[j]
	}
	return res, sortErr
}

func filterUnique(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("unique", args, kw, []string{"case_sensitive", "attribute"}, false, nil)
	if err != nil {
		return nil, err
	}
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	var out, seen []any
	for _, it := range items {
		k := it
		if a[1] != nil {
			if k, err = r.attrPath(it, a[1]); err != nil {
				return nil, err
			}
		}
		if !truthy(a[0]) {
			k = foldCase(k)
		}
		dup := false
		for _, s := range seen {
			if r.equal(s, k) {
				dup = true
				break
			}
		}
		if !dup {
			seen = append(seen, k)
			out = append(out, it)
		}
	}
	return newGen(out), nil
}

func minmax(sign int) filterFunc {
	return func(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
		a, err := bind("min/max", args, kw, []string{"case_sensitive", "attribute"}, false, nil)
		if err != nil {
			return nil, err
		}
		items, err := r.iterate(v)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return Undefined{hint: "No aggregated item, sequence was empty."}, nil
		}
		best, bestKey := items[0], any(nil)
		for i, it := range items {
			k := it
			if a[1] != nil {
				if k, err = r.attrPath(it, a[1]); err != nil {
					return nil, err
				}
			}
			if !truthy(a[0]) {
				k = foldCase(k)
			}
			if i == 0 {
				bestKey = k
				continue
			}
			c, err := r.compare(k, bestKey)
			if err != nil {
				return nil, err
			}
			if c*sign > 0 {
				best, bestKey = it, k
			}
		}
		return best, nil
	}
}

func filterSum(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("sum", args, kw, []string{"attribute", "start"}, nil, int64(0))
	if err != nil {
		return nil, err
	}
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	total := a[1]
	for _, it := range items {
		if a[0] != nil {
			if it, err = r.attrPath(it, a[0]); err != nil {
				return nil, err
			}
		}
		if total, err = r.add(total, it); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func filterMap(r *Renderer, v any, args []any, kw []Kwarg, sc *scope) (any, error) {
	if !truthy(v) {
		return newGen(nil), nil
	}
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	var attr, def any
	hasDef := false
	var rest []Kwarg
	for _, k := range kw {
		switch k.Name {
		case "attribute":
			attr = k.Value
		case "default":
			def, hasDef = k.Value, true
		default:
			rest = append(rest, k)
		}
	}
	out := make([]any, len(items))
	for i, it := range items {
		if err := r.step(); err != nil {
			return nil, err
		}
		if attr != nil {
			x, err := r.attrPath(it, attr)
			if err != nil {
				return nil, err
			}
			if _, u := x.(Undefined); u && hasDef {
				x = def
			}
			out[i] = x
			continue
		}
		if len(args) == 0 {
			return nil, fmt.Errorf("map requires a filter argument")
		}
		x, err := r.filter(r.str(args[0]), it, args[1:], rest, sc)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return newGen(out), nil
}

func selectFilter(keep, byAttr bool) filterFunc {
	return func(r *Renderer, v any, args []any, kw []Kwarg, sc *scope) (any, error) {
		if !truthy(v) {
			return newGen(nil), nil
		}
		items, err := r.iterate(v)
		if err != nil {
			return nil, err
		}
		var attr any
		if byAttr {
			if len(args) == 0 {
				return nil, fmt.Errorf("missing parameter for attribute name")
			}
			attr, args = args[0], args[1:]
		}
		var out []any
		for _, it := range items {
			if err := r.step(); err != nil {
				return nil, err
			}
			x := it
			if attr != nil {
				if x, err = r.attrPath(it, attr); err != nil {
					return nil, err
				}
			}
			var ok bool
			if len(args) == 0 {
				ok = truthy(x)
			} else if ok, err = r.test(r.str(args[0]), x, args[1:], kw, sc); err != nil {
				return nil, err
			}
			if ok == keep {
				out = append(out, it)
			}
		}
		return newGen(out), nil
	}
}

func filterGroupby(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("groupby", args, kw, []string{"attribute", "default", "case_sensitive"}, nil, false)
	if err != nil {
		return nil, err
	}
	sorted, err := filterSort(r, v, nil, []Kwarg{{"attribute", a[0]}, {"case_sensitive", a[2]}}, nil)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, it := range sorted.([]any) {
		k, err := r.attrPath(it, a[0])
		if err != nil {
			return nil, err
		}
		if _, u := k.(Undefined); u && a[1] != nil {
			k = a[1]
		}
		if n := len(out); n > 0 && r.equal(out[n-1].(Tuple)[0], k) {
			g := out[n-1].(Tuple)
			g[1] = append(g[1].([]any), it)
			continue
		}
		out = append(out, Tuple{k, []any{it}})
	}
	return out, nil
}
