package jinja

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
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
		for _, k := range x.keys {
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

// ---- filters

type filterFunc func(r *Renderer, v any, args []any, kw []Kwarg, sc *scope) (any, error)

var filters map[string]filterFunc

func init() {
	filters = map[string]filterFunc{
		"abs": func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
			switch x := v.(type) {
			case int64:
				if x < 0 {
					return -x, nil
				}
				return x, nil
			case float64:
				return math.Abs(x), nil
			}
			return nil, fmt.Errorf("bad operand type for abs(): '%s'", typeName(v))
		},
		"attr": func(r *Renderer, v any, args []any, _ []Kwarg, _ *scope) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("attr needs a name")
			}
			return r.getattr(v, r.str(args[0]))
		},
		"batch":      filterBatch,
		"capitalize": strFilter(func(s string) string { return pyCapitalize(s) }),
		"center": func(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
			a, err := bind("center", args, kw, []string{"width"}, int64(80))
			if err != nil {
				return nil, err
			}
			if err := r.checkSize(int(min(toInt(a[0]), 1<<40))); err != nil {
				return nil, err
			}
			return pad(r.str(v), int(toInt(a[0])), " ", 0)
		},
		"count":    filterLength,
		"d":        filterDefault,
		"default":  filterDefault,
		"dictsort": filterDictsort,
		"e":        filterEscape,
		"escape":   filterEscape,
		"first":    filterFirst,
		"float":    filterFloat,
		"forceescape": func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
			return Markup(escapeHTML(r.str(v))), nil
		},
		"format":     filterFormat,
		"groupby":    filterGroupby,
		"indent":     filterIndent,
		"int":        filterInt,
		"items":      filterItems,
		"join":       filterJoin,
		"last":       filterLast,
		"length":     filterLength,
		"list":       filterList,
		"lower":      strFilter(strings.ToLower),
		"map":        filterMap,
		"max":        minmax(1),
		"min":        minmax(-1),
		"pprint":     func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) { return r.repr(v), nil },
		"reject":     selectFilter(false, false),
		"rejectattr": selectFilter(false, true),
		"replace":    filterReplace,
		"reverse":    filterReverse,
		"round":      filterRound,
		"safe":       func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) { return Markup(r.str(v)), nil },
		"select":     selectFilter(true, false),
		"selectattr": selectFilter(true, true),
		"sort":       filterSort,
		"string":     func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) { return r.str(v), nil },
		"sum":        filterSum,
		"title":      strFilter(pyTitle),
		"tojson":     filterTojson,
		"trim":       filterTrim,
		"truncate":   filterTruncate,
		"unique":     filterUnique,
		"upper":      strFilter(strings.ToUpper),
		"wordcount": func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
			return int64(len(strings.FieldsFunc(r.str(v), func(c rune) bool { return !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_') }))), nil
		},
	}
}

func (r *Renderer) applyFilter(f *filterExpr, v any, sc *scope) (any, error) {
	if err := r.step(); err != nil {
		return nil, err
	}
	args, kw, err := r.evalArgs(f.args, sc)
	if err != nil {
		return nil, err
	}
	return r.filter(f.name, v, args, kw, sc)
}

func (r *Renderer) filter(name string, v any, args []any, kw []Kwarg, sc *scope) (any, error) {
	ff, ok := filters[name]
	if c, added := r.env.Filters[name]; added {
		ff, ok = func(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
			return c.Fn(r, append([]any{v}, args...), kw)
		}, true
	}
	if !ok {
		return nil, fmt.Errorf("no filter named '%s'", name)
	}
	if name != "default" && name != "d" {
		if err := r.strict(v); err != nil {
			return nil, err
		}
	}
	if v, err := r.filterUnchecked(ff, name, v, args, kw, sc); err != nil || r.checkValue(v) != nil {
		if err == nil {
			err = r.checkValue(v)
		}
		return nil, err
	} else {
		return v, nil
	}
}

func (r *Renderer) filterUnchecked(ff filterFunc, name string, v any, args []any, kw []Kwarg, sc *scope) (any, error) {
	if u, isU := v.(Undefined); isU && name != "default" && name != "d" && name != "length" && name != "count" && name != "string" && name != "list" && name != "join" && name != "first" && name != "last" {
		if name == "tojson" {
			return nil, fmt.Errorf("Object of type Undefined is not JSON serializable")
		}
		_ = u
	}
	return ff(r, v, args, kw, sc)
}

func strFilter(f func(string) string) filterFunc {
	return func(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
		if m, ok := v.(Markup); ok {
			return Markup(f(string(m))), nil
		}
		return f(r.str(v)), nil
	}
}

func filterDefault(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("default", args, kw, []string{"default_value", "boolean"}, "", false)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(Undefined); ok || truthy(a[1]) && !truthy(v) {
		return a[0], nil
	}
	return v, nil
}

func filterEscape(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	if m, ok := v.(Markup); ok {
		return m, nil
	}
	return Markup(escapeHTML(r.str(v))), nil
}

func filterLength(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	switch x := v.(type) {
	case string:
		return int64(len([]rune(x))), nil
	case Markup:
		return int64(len([]rune(string(x)))), nil
	case []any:
		return int64(len(x)), nil
	case Tuple:
		return int64(len(x)), nil
	case *Dict:
		return int64(x.Len()), nil
	case Undefined:
		return int64(0), nil
	}
	return nil, fmt.Errorf("object of type '%s' has no len()", typeName(v))
}

func filterFirst(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return Undefined{hint: "No first item, sequence was empty."}, nil
	}
	return items[0], nil
}

func filterLast(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return Undefined{hint: "No last item, sequence was empty."}, nil
	}
	return items[len(items)-1], nil
}

func filterList(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	return append([]any{}, items...), nil
}

func filterItems(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	switch x := v.(type) {
	case *Dict:
		return newGen(dictItems(x)), nil
	case Undefined:
		return newGen(nil), nil
	}
	return nil, fmt.Errorf("can only get item pairs from a mapping")
}

func dictItems(d *Dict) []any {
	out := make([]any, len(d.keys))
	for i, k := range d.keys {
		v, _ := d.Get(k)
		out[i] = Tuple{k, v}
	}
	return out
}

func filterJoin(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("join", args, kw, []string{"d", "attribute"}, "", nil)
	if err != nil {
		return nil, err
	}
	items, err := r.iterate(v)
	if err != nil {
		return nil, err
	}
	// The text is built in place and checked item by item: a list of a
	// thousand references to one large list stops at the first items past
	// the limit, before their text is built.
	sep := r.str(a[0])
	b := reprBuf{max: r.lim.MaxOutput}
	for i, it := range items {
		if a[1] != nil {
			if it, err = r.attrPath(it, a[1]); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			b.WriteString(sep)
		}
		switch x := it.(type) {
		case string:
			b.WriteString(x)
		case Markup:
			b.WriteString(string(x))
		case Undefined:
		default:
			writeRepr(&b, x)
		}
		if err := r.checkSize(b.Len()); err != nil {
			return nil, err
		}
	}
	return b.String(), nil
}

// attrPath follows jinja2's make_attrgetter: "a.b" or an integer index.
func (r *Renderer) attrPath(v any, attr any) (any, error) {
	if n, ok := attr.(int64); ok {
		return r.getitem(v, n)
	}
	for _, part := range strings.Split(r.str(attr), ".") {
		var key any = part
		if n, err := strconv.ParseInt(part, 10, 64); err == nil {
			key = n
		}
		var err error
		if v, err = r.getitem(v, key); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func filterTrim(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("trim", args, kw, []string{"chars"}, nil)
	if err != nil {
		return nil, err
	}
	return pyStrip(r, r.str(v), a[0], 3), nil
}

func filterReplace(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("replace", args, kw, []string{"old", "new", "count"}, nil)
	if err != nil {
		return nil, err
	}
	n := -1
	if a[2] != nil {
		n = int(toInt(a[2]))
	}
	s := pyReplace(r.str(v), r.str(a[0]), r.str(a[1]), n)
	if _, ok := v.(Markup); ok {
		return Markup(s), nil
	}
	return s, nil
}

func pyReplace(s, old, new string, n int) string {
	if old == "" && n != 0 {
		// Python inserts new between every character
		rs := []rune(s)
		var b strings.Builder
		count := 0
		for i := 0; i <= len(rs); i++ {
			if n < 0 || count < n {
				b.WriteString(new)
				count++
			}
			if i < len(rs) {
				b.WriteRune(rs[i])
			}
		}
		return b.String()
	}
	return strings.Replace(s, old, new, n)
}

func filterReverse(r *Renderer, v any, _ []any, _ []Kwarg, _ *scope) (any, error) {
	switch x := v.(type) {
	case string:
		rs := []rune(x)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	case []any, Tuple:
		items, _ := asSeq(x)
		out := make([]any, len(items))
		for i, it := range items {
			out[len(items)-1-i] = it
		}
		return &Generator{items: out, kind: "list_reverseiterator"}, nil
	case *Generator:
		items, _ := asSeq(x.items)
		if x.used {
			items = nil
		}
		x.used = true
		out := make([]any, len(items))
		for i, it := range items {
			out[len(items)-1-i] = it
		}
		return out, nil
	case *Dict:
		out := make([]any, x.Len())
		for i, k := range x.keys {
			out[x.Len()-1-i] = k
		}
		return out, nil
	}
	return nil, fmt.Errorf("argument to reversed() must be a sequence")
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case bool:
		return boolInt(x)
	}
	return 0
}

func filterInt(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("int", args, kw, []string{"default", "base"}, int64(0), int64(10))
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		return boolInt(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return a[0], nil
		}
		return int64(x), nil
	case string, Markup:
		s := strings.TrimSpace(r.str(x))
		s = strings.ReplaceAll(s, "_", "")
		if n, err := strconv.ParseInt(s, int(toInt(a[1])), 64); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return int64(f), nil
		}
	}
	return a[0], nil
}

func filterFloat(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("float", args, kw, []string{"default"}, 0.0)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case bool:
		return float64(boolInt(x)), nil
	case string, Markup:
		if f, err := strconv.ParseFloat(strings.TrimSpace(r.str(x)), 64); err == nil {
			return f, nil
		}
	}
	return a[0], nil
}

func filterRound(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("round", args, kw, []string{"precision", "method"}, int64(0), "common")
	if err != nil {
		return nil, err
	}
	f := toFloat(v)
	p := math.Pow(10, float64(toInt(a[0])))
	switch r.str(a[1]) {
	case "common":
		// Python's round() rounds half to even on the exact binary value
		s := strconv.FormatFloat(f, 'f', int(toInt(a[0])), 64)
		g, _ := strconv.ParseFloat(s, 64)
		return g, nil
	case "ceil":
		return math.Ceil(f*p) / p, nil
	case "floor":
		return math.Floor(f*p) / p, nil
	}
	return nil, fmt.Errorf("method must be common, ceil or floor")
}

func filterIndent(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("indent", args, kw, []string{"width", "first", "blank"}, int64(4), false, false)
	if err != nil {
		return nil, err
	}
	ind := ""
	if n, ok := a[0].(int64); ok {
		if err := r.checkSize(int(min(n, 1<<40))); err != nil {
			return nil, err
		}
	}
	switch w := a[0].(type) {
	case string:
		ind = w
	default:
		ind = strings.Repeat(" ", int(toInt(w)))
	}
	s := r.str(v)
	newline := "\n"
	s += newline // jinja2 appends then strips one
	lines := strings.Split(s, "\n")
	lines = lines[:len(lines)-1]
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString(newline)
		}
		if i == 0 && !truthy(a[1]) {
			b.WriteString(l)
			continue
		}
		if i > 0 && !truthy(a[2]) && strings.TrimSpace(l) == "" {
			b.WriteString(l)
			continue
		}
		b.WriteString(ind + l)
	}
	return b.String(), nil
}

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
		c, err := compare(x, y)
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
		c, err := compare(keys[idx[i]], keys[idx[j]])
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
			if equal(s, k) {
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
			c, err := compare(k, bestKey)
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

func filterTruncate(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("truncate", args, kw, []string{"length", "killwords", "end", "leeway"}, int64(255), false, "...", int64(5))
	if err != nil {
		return nil, err
	}
	s := []rune(r.str(v))
	length, end, leeway := int(toInt(a[0])), r.str(a[2]), int(toInt(a[3]))
	if len(s) <= length+leeway {
		return string(s), nil
	}
	cut := length - len([]rune(end))
	if cut < 0 {
		cut = 0
	}
	if truthy(a[1]) {
		return string(s[:cut]) + end, nil
	}
	head := string(s[:cut])
	if i := strings.LastIndex(head, " "); i >= 0 {
		head = head[:i]
	}
	return head + end, nil
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
		if n := len(out); n > 0 && equal(out[n-1].(Tuple)[0], k) {
			g := out[n-1].(Tuple)
			g[1] = append(g[1].([]any), it)
			continue
		}
		out = append(out, Tuple{k, []any{it}})
	}
	return out, nil
}

// filterFormat is Python's "%" formatting with the common conversions.
func filterFormat(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	if len(kw) > 0 {
		return nil, fmt.Errorf("format: keyword arguments are not supported")
	}
	return percentFormat(r, r.str(v), args)
}

func percentFormat(r *Renderer, f string, args []any) (string, error) {
	var b strings.Builder
	ai := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return "", fmt.Errorf("incomplete format")
		}
		j := i
		for j < len(f) && strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			return "", fmt.Errorf("incomplete format")
		}
		spec, conv := f[i:j], f[j]
		i = j
		if err := r.checkSpec(spec); err != nil {
			return "", err
		}
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if ai >= len(args) {
			return "", fmt.Errorf("not enough arguments for format string")
		}
		a := args[ai]
		ai++
		switch conv {
		case 's':
			b.WriteString(fmt.Sprintf("%"+spec+"s", r.str(a)))
		case 'r':
			b.WriteString(fmt.Sprintf("%"+spec+"s", r.repr(a)))
		case 'd', 'i':
			if !isNum(a) {
				return "", fmt.Errorf("%%d format: a real number is required, not %s", typeName(a))
			}
			b.WriteString(fmt.Sprintf("%"+spec+"d", toInt(a)))
		case 'f', 'F', 'e', 'E', 'g', 'G':
			if !isNum(a) {
				return "", fmt.Errorf("must be real number, not %s", typeName(a))
			}
			if !strings.Contains(spec, ".") && conv != 'g' && conv != 'G' {
				spec += ".6"
			}
			b.WriteString(fmt.Sprintf("%"+spec+string(conv), toFloat(a)))
		case 'x', 'X', 'o':
			b.WriteString(fmt.Sprintf("%"+spec+string(conv), toInt(a)))
		default:
			return "", fmt.Errorf("unsupported format character '%c'", conv)
		}
	}
	if ai < len(args) {
		return "", fmt.Errorf("not all arguments converted during string formatting")
	}
	return b.String(), nil
}

// checkSpec bounds the width and precision of a "%" conversion, which
// fmt would pad out before the result's size is checked.
func (r *Renderer) checkSpec(spec string) error {
	n := 0
	for i := 0; i < len(spec); i++ {
		c := spec[i]
		if c < '0' || c > '9' {
			n = 0
			continue
		}
		n = min(n*10+int(c-'0'), math.MaxInt32)
		if err := r.checkSize(n); err != nil {
			return err
		}
		if n > maxPad {
			return errPad
		}
	}
	return nil
}

// ---- tests

func (r *Renderer) test(name string, v any, args []any, kw []Kwarg, sc *scope) (bool, error) {
	arg := func() (any, error) {
		if len(args) > 0 {
			return args[0], nil
		}
		if len(kw) > 0 {
			return kw[0].Value, nil
		}
		return nil, fmt.Errorf("test '%s' needs an argument", name)
	}
	switch name {
	case "defined":
		_, u := v.(Undefined)
		return !u, nil
	case "undefined":
		_, u := v.(Undefined)
		return u, nil
	case "none":
		return v == nil, nil
	case "true":
		b, ok := v.(bool)
		return ok && b, nil
	case "false":
		b, ok := v.(bool)
		return ok && !b, nil
	case "boolean":
		_, ok := v.(bool)
		return ok, nil
	case "integer":
		_, ok := v.(int64)
		return ok, nil
	case "float":
		_, ok := v.(float64)
		return ok, nil
	case "number":
		return isNum(v), nil
	case "string":
		_, ok := asStr(v)
		return ok, nil
	case "mapping":
		_, ok := v.(*Dict)
		return ok, nil
	case "sequence":
		switch v.(type) {
		case string, Markup, []any, Tuple, *Dict:
			return true, nil
		}
		return false, nil
	case "iterable":
		switch v.(type) {
		case string, Markup, []any, Tuple, *Dict, Undefined:
			return true, nil
		}
		return false, nil
	case "callable":
		_, ok := v.(*Callable)
		return ok, nil
	case "odd", "even":
		n, ok := v.(int64)
		if !ok {
			return false, fmt.Errorf("test '%s' needs an integer", name)
		}
		return (n%2 != 0) == (name == "odd"), nil
	case "divisibleby":
		a, err := arg()
		if err != nil {
			return false, err
		}
		m, err := arith("%", v, a)
		if err != nil {
			return false, err
		}
		return toFloat(m) == 0, nil
	case "eq", "equalto", "==":
		a, err := arg()
		return err == nil && equal(v, a), err
	case "ne", "!=":
		a, err := arg()
		return err == nil && !equal(v, a), err
	case "lt", "lessthan", "<", "le", "<=", "gt", "greaterthan", ">", "ge", ">=":
		a, err := arg()
		if err != nil {
			return false, err
		}
		op := map[string]string{"lt": "<", "lessthan": "<", "le": "<=", "gt": ">", "greaterthan": ">", "ge": ">="}[name]
		if op == "" {
			op = name
		}
		res, err := r.binary(op, v, a)
		if err != nil {
			return false, err
		}
		return res.(bool), nil
	case "in":
		a, err := arg()
		if err != nil {
			return false, err
		}
		return contains(a, v)
	case "sameas":
		a, err := arg()
		if err != nil {
			return false, err
		}
		return sameAs(v, a), nil
	case "lower":
		s := r.str(v)
		return s == strings.ToLower(s) && hasCased(s), nil
	case "upper":
		s := r.str(v)
		return s == strings.ToUpper(s) && hasCased(s), nil
	case "escaped":
		_, ok := v.(Markup)
		return ok, nil
	case "filter":
		_, ok := filters[r.str(v)]
		if _, added := r.env.Filters[r.str(v)]; added {
			ok = true
		}
		return ok, nil
	case "test":
		switch r.str(v) {
		case "defined", "undefined", "none", "true", "false", "boolean", "integer", "float", "number", "string", "mapping", "sequence", "iterable", "callable", "odd", "even", "divisibleby", "eq", "equalto", "ne", "lt", "le", "gt", "ge", "in", "sameas", "lower", "upper", "escaped", "filter", "test":
			return true, nil
		}
		return false, nil
	}
	return false, fmt.Errorf("no test named '%s'", name)
}

func sameAs(a, b any) bool {
	switch a.(type) {
	case nil, bool:
		return a == b
	}
	switch x := a.(type) {
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x == y
	}
	return false
}

func hasCased(s string) bool {
	for _, c := range s {
		if unicode.IsUpper(c) || unicode.IsLower(c) {
			return true
		}
	}
	return false
}

var errUnsafe = errors.New("unsafe")

func unsafeMethod(obj, name string) *Callable {
	return fn(name, func(*Renderer, []any, []Kwarg) (any, error) {
		return nil, fmt.Errorf("access to attribute '%s' of '%s' object is unsafe.", name, obj)
	})
}
