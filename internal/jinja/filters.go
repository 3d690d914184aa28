package jinja

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

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
	out := make([]any, len(d.Keys()))
	for i, k := range d.Keys() {
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
		for i, k := range x.Keys() {
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
