package jinja

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

func dictMethod(d *Dict, name string) *Callable {
	switch name {
	case "items":
		return fn("items", func(*Renderer, []any, []Kwarg) (any, error) { return dictItems(d), nil })
	case "keys":
		return fn("keys", func(*Renderer, []any, []Kwarg) (any, error) { return append([]any{}, d.Keys()...), nil })
	case "values":
		return fn("values", func(*Renderer, []any, []Kwarg) (any, error) {
			out := make([]any, len(d.Keys()))
			for i, k := range d.Keys() {
				out[i], _ = d.Get(k)
			}
			return out, nil
		})
	case "get":
		return fn("get", func(r *Renderer, args []any, kw []Kwarg) (any, error) {
			a, err := bind("get", args, kw, []string{"key", "default"}, nil)
			if err != nil {
				return nil, err
			}
			if v, ok := d.Get(a[0]); ok {
				return v, nil
			}
			return a[1], nil
		})
	case "copy":
		return fn("copy", func(*Renderer, []any, []Kwarg) (any, error) {
			c := NewDict()
			_ = dictUpdate(c, d)
			return c, nil
		})
	case "pop", "popitem", "update", "setdefault", "clear":
		return unsafeMethod("dict", name)
	}
	return nil
}

func listMethod(l []any, name string) *Callable {
	switch name {
	case "index":
		return fn("index", func(r *Renderer, args []any, _ []Kwarg) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("index expected an argument")
			}
			for i, x := range l {
				if r.equal(x, args[0]) {
					return int64(i), nil
				}
			}
			return nil, fmt.Errorf("%s is not in list", r.repr(args[0]))
		})
	case "count":
		return fn("count", func(r *Renderer, args []any, _ []Kwarg) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("count expected an argument")
			}
			n := int64(0)
			for _, x := range l {
				if r.equal(x, args[0]) {
					n++
				}
			}
			return n, nil
		})
	case "append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear":
		return unsafeMethod("list", name)
	}
	return nil
}

func strMethod(s, name string) *Callable {
	var r *Renderer // the render calling the method, for r.str
	m := func(f func(args []any, kw []Kwarg) (any, error)) *Callable {
		return fn(name, func(rr *Renderer, args []any, kw []Kwarg) (any, error) { r = rr; return f(args, kw) })
	}
	switch name {
	case "strip", "lstrip", "rstrip":
		side := map[string]int{"strip": 3, "lstrip": 1, "rstrip": 2}[name]
		return m(func(args []any, kw []Kwarg) (any, error) {
			a, err := bind(name, args, kw, []string{"chars"}, nil)
			if err != nil {
				return nil, err
			}
			return pyStrip(r, s, a[0], side), nil
		})
	case "upper":
		return m(func([]any, []Kwarg) (any, error) { return strings.ToUpper(s), nil })
	case "lower":
		return m(func([]any, []Kwarg) (any, error) { return strings.ToLower(s), nil })
	case "title":
		return m(func([]any, []Kwarg) (any, error) { return pyStrTitle(s), nil })
	case "capitalize":
		return m(func([]any, []Kwarg) (any, error) { return pyCapitalize(s), nil })
	case "startswith", "endswith":
		return m(func(args []any, kw []Kwarg) (any, error) {
			a, err := bind(name, args, kw, []string{"prefix", "start", "end"}, nil, nil)
			if err != nil {
				return nil, err
			}
			sub := s
			if a[1] != nil || a[2] != nil {
				rs := []rune(s)
				b := [3]*int64{}
				if a[1] != nil {
					x := toInt(a[1])
					b[0] = &x
				}
				if a[2] != nil {
					x := toInt(a[2])
					b[1] = &x
				}
				idx, _ := sliceIndices(len(rs), b)
				var sb strings.Builder
				for _, j := range idx {
					sb.WriteRune(rs[j])
				}
				sub = sb.String()
			}
			var cands []any
			switch p := a[0].(type) {
			case Tuple:
				cands = p
			case string, Markup:
				cands = []any{p}
			default:
				return nil, fmt.Errorf("%s first arg must be str or a tuple of str, not %s", name, typeName(a[0]))
			}
			for _, c := range cands {
				cs, ok := asStr(c)
				if !ok {
					return nil, fmt.Errorf("tuple for %s must only contain str", name)
				}
				if name == "startswith" && strings.HasPrefix(sub, cs) || name == "endswith" && strings.HasSuffix(sub, cs) {
					return true, nil
				}
			}
			return false, nil
		})
	case "split", "rsplit":
		return m(func(args []any, kw []Kwarg) (any, error) {
			a, err := bind(name, args, kw, []string{"sep", "maxsplit"}, nil, int64(-1))
			if err != nil {
				return nil, err
			}
			return pySplit(r, s, a[0], int(toInt(a[1])), name == "rsplit")
		})
	case "splitlines":
		return m(func(args []any, kw []Kwarg) (any, error) {
			a, err := bind(name, args, kw, []string{"keepends"}, false)
			if err != nil {
				return nil, err
			}
			return splitLines(s, truthy(a[0])), nil
		})
	case "replace":
		return m(func(args []any, kw []Kwarg) (any, error) {
			a, err := bind(name, args, kw, []string{"old", "new", "count"}, int64(-1))
			if err != nil {
				return nil, err
			}
			return pyReplace(s, r.str(a[0]), r.str(a[1]), int(toInt(a[2]))), nil
		})
	case "find", "rfind", "index", "rindex", "count":
		return m(func(args []any, kw []Kwarg) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("%s expected an argument", name)
			}
			sub, ok := asStr(args[0])
			if !ok {
				return nil, fmt.Errorf("must be str, not %s", typeName(args[0]))
			}
			var i int
			switch name {
			case "count":
				if sub == "" {
					return int64(utf8.RuneCountInString(s) + 1), nil
				}
				return int64(strings.Count(s, sub)), nil
			case "find", "index":
				i = strings.Index(s, sub)
			default:
				i = strings.LastIndex(s, sub)
			}
			if i < 0 {
				if name == "index" || name == "rindex" {
					return nil, fmt.Errorf("substring not found")
				}
				return int64(-1), nil
			}
			return int64(utf8.RuneCountInString(s[:i])), nil
		})
	case "join":
		return m(func(args []any, _ []Kwarg) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("join takes one argument")
			}
			items, ok := asSeq(args[0])
			if d, isD := args[0].(*Dict); isD {
				items, ok = d.Keys(), true
			}
			if !ok {
				return nil, fmt.Errorf("can only join an iterable")
			}
			parts := make([]string, len(items))
			for i, it := range items {
				p, ok := asStr(it)
				if !ok {
					return nil, fmt.Errorf("sequence item %d: expected str instance, %s found", i, typeName(it))
				}
				parts[i] = p
			}
			return strings.Join(parts, s), nil
		})
	case "format":
		return m(func(args []any, kw []Kwarg) (any, error) { return strFormat(r, s, args, kw) })
	case "isdigit", "isnumeric", "isdecimal", "isalpha", "isalnum", "isspace", "isupper", "islower":
		return m(func([]any, []Kwarg) (any, error) { return strIs(s, name), nil })
	case "zfill":
		return m(func(args []any, _ []Kwarg) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("zfill takes one argument")
			}
			w := int(toInt(args[0]))
			n := utf8.RuneCountInString(s)
			if n >= w {
				return s, nil
			}
			if w > maxPad {
				return nil, errPad
			}
			sign := ""
			body := s
			if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
				sign, body = s[:1], s[1:]
			}
			return sign + strings.Repeat("0", w-n) + body, nil
		})
	case "center", "ljust", "rjust":
		return m(func(args []any, kw []Kwarg) (any, error) {
			a, err := bind(name, args, kw, []string{"width", "fillchar"}, " ")
			if err != nil {
				return nil, err
			}
			mode := map[string]int{"center": 0, "ljust": 1, "rjust": 2}[name]
			return pad(s, int(toInt(a[0])), r.str(a[1]), mode)
		})
	case "partition", "rpartition":
		return m(func(args []any, _ []Kwarg) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("%s takes one argument", name)
			}
			sep := r.str(args[0])
			i := strings.Index(s, sep)
			if name == "rpartition" {
				i = strings.LastIndex(s, sep)
			}
			if i < 0 {
				if name == "rpartition" {
					return Tuple{"", "", s}, nil
				}
				return Tuple{s, "", ""}, nil
			}
			return Tuple{s[:i], sep, s[i+len(sep):]}, nil
		})
	case "removeprefix":
		return m(func(args []any, _ []Kwarg) (any, error) { return strings.TrimPrefix(s, r.str(args[0])), nil })
	case "removesuffix":
		return m(func(args []any, _ []Kwarg) (any, error) { return strings.TrimSuffix(s, r.str(args[0])), nil })
	}
	return nil
}

func strIs(s, name string) bool {
	if s == "" {
		return false
	}
	cased := false
	for _, c := range s {
		var ok bool
		switch name {
		case "isdigit", "isnumeric", "isdecimal":
			ok = unicode.IsDigit(c) || name == "isnumeric" && unicode.IsNumber(c)
		case "isalpha":
			ok = unicode.IsLetter(c)
		case "isalnum":
			ok = unicode.IsLetter(c) || unicode.IsNumber(c)
		case "isspace":
			ok = unicode.IsSpace(c)
		case "isupper":
			ok = !unicode.IsLower(c)
			cased = cased || unicode.IsUpper(c)
		case "islower":
			ok = !unicode.IsUpper(c)
			cased = cased || unicode.IsLower(c)
		}
		if !ok {
			return false
		}
	}
	if name == "isupper" || name == "islower" {
		return cased
	}
	return true
}

const pyWhitespace = " \t\n\r\v\f\x1c\x1d\x1e\x1f\x85\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// pyStrip is str.strip/lstrip/rstrip (side 3/1/2).
func pyStrip(r *Renderer, s string, chars any, side int) string {
	cut := pyWhitespace
	if chars != nil {
		cut = r.str(chars)
	}
	if side&1 != 0 {
		s = strings.TrimLeft(s, cut)
	}
	if side&2 != 0 {
		s = strings.TrimRight(s, cut)
	}
	return s
}

func pySplit(r *Renderer, s string, sep any, maxsplit int, right bool) (any, error) {
	var parts []string
	if sep == nil {
		fields := strings.FieldsFunc(s, func(c rune) bool { return strings.ContainsRune(pyWhitespace, c) })
		if maxsplit < 0 || maxsplit >= len(fields)-1 {
			parts = fields
		} else if !right {
			// keep the remainder after maxsplit splits
			rest := strings.TrimLeft(s, pyWhitespace)
			for range maxsplit {
				i := strings.IndexFunc(rest, func(c rune) bool { return strings.ContainsRune(pyWhitespace, c) })
				parts = append(parts, rest[:i])
				rest = strings.TrimLeft(rest[i:], pyWhitespace)
			}
			if rest != "" {
				parts = append(parts, rest)
			}
		} else {
			rest := strings.TrimRight(s, pyWhitespace)
			var tail []string
			for range maxsplit {
				i := strings.LastIndexFunc(rest, func(c rune) bool { return strings.ContainsRune(pyWhitespace, c) })
				tail = append([]string{rest[i+1:]}, tail...)
				rest = strings.TrimRight(rest[:i+1], pyWhitespace)
			}
			if rest != "" {
				parts = append(parts, rest)
			}
			parts = append(parts, tail...)
		}
	} else {
		sp := r.str(sep)
		if sp == "" {
			return nil, fmt.Errorf("empty separator")
		}
		switch {
		case maxsplit < 0:
			parts = strings.Split(s, sp)
		case !right:
			parts = strings.SplitN(s, sp, maxsplit+1)
		default:
			rest := s
			var tail []string
			for range maxsplit {
				i := strings.LastIndex(rest, sp)
				if i < 0 {
					break
				}
				tail = append([]string{rest[i+len(sp):]}, tail...)
				rest = rest[:i]
			}
			parts = append([]string{rest}, tail...)
		}
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

func splitLines(s string, keep bool) []any {
	out := []any{}
	rs := []rune(s)
	start := 0
	for i := 0; i < len(rs); i++ {
		if !strings.ContainsRune("\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029", rs[i]) {
			continue
		}
		end := i + 1
		if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
			end++
		}
		if keep {
			out = append(out, string(rs[start:end]))
		} else {
			out = append(out, string(rs[start:i]))
		}
		start = end
		i = end - 1
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

func pyCapitalize(s string) string {
	rs := []rune(strings.ToLower(s))
	if len(rs) > 0 {
		rs[0] = unicode.ToTitle(rs[0])
	}
	return string(rs)
}

// pyStrTitle is str.title.
func pyStrTitle(s string) string {
	var b strings.Builder
	prevCased := false
	for _, c := range s {
		if prevCased {
			b.WriteRune(unicode.ToLower(c))
		} else {
			b.WriteRune(unicode.ToTitle(c))
		}
		prevCased = unicode.IsUpper(c) || unicode.IsLower(c) || unicode.IsTitle(c)
	}
	return b.String()
}

// pyTitle is jinja2's title filter: words begin after whitespace or one
// of -([{<.
func pyTitle(s string) string {
	var b strings.Builder
	start := true
	for _, c := range s {
		if unicode.IsSpace(c) || strings.ContainsRune("-({[<", c) {
			b.WriteRune(c)
			start = true
			continue
		}
		if start {
			b.WriteRune(unicode.ToUpper(c))
		} else {
			b.WriteRune(unicode.ToLower(c))
		}
		start = false
	}
	return b.String()
}

// maxPad bounds str.center/ljust/rjust/zfill widths (the render's output
// limit bounds their result, but the padding is built first).
const maxPad = 1 << 24

var errPad = fmt.Errorf("%w: padded width larger than %d", ErrLimit, maxPad)

func pad(s string, width int, fill string, mode int) (string, error) {
	n := utf8.RuneCountInString(s)
	if n >= width || fill == "" {
		return s, nil
	}
	if width > maxPad {
		return "", errPad
	}
	total := width - n
	var left int
	switch mode {
	case 0:
		left = total / 2
		if total%2 == 1 && width%2 == 1 {
			left++
		}
	case 1:
		left = 0
	case 2:
		left = total
	}
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, total-left), nil
}

// strFormat is str.format with {} / {0} / {name} fields and !r/!s.
func strFormat(r *Renderer, s string, args []any, kw []Kwarg) (any, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '{' && i+1 < len(s) && s[i+1] == '{' || c == '}' && i+1 < len(s) && s[i+1] == '}' {
			b.WriteByte(c)
			i++
			continue
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("single '{' encountered in format string")
		}
		field := s[i+1 : i+j]
		i += j
		conv := ""
		if k := strings.IndexByte(field, '!'); k >= 0 {
			field, conv = field[:k], field[k+1:]
		}
		if k := strings.IndexByte(field, ':'); k >= 0 {
			if field[k+1:] != "" {
				return nil, fmt.Errorf("format specs are not supported")
			}
			field = field[:k]
		}
		var v any
		switch {
		case field == "":
			if auto >= len(args) {
				return nil, fmt.Errorf("Replacement index %d out of range for positional args tuple", auto)
			}
			v = args[auto]
			auto++
		case field[0] >= '0' && field[0] <= '9':
			n := 0
			fmt.Sscanf(field, "%d", &n)
			if n >= len(args) {
				return nil, fmt.Errorf("Replacement index %d out of range for positional args tuple", n)
			}
			v = args[n]
		default:
			found := false
			for _, k := range kw {
				if k.Name == field {
					v, found = k.Value, true
				}
			}
			if !found {
				return nil, fmt.Errorf("KeyError: %s", pyval.StringRepr(field))
			}
		}
		if conv == "r" {
			b.WriteString(r.repr(v))
		} else {
			b.WriteString(r.str(v))
		}
	}
	return b.String(), nil
}
