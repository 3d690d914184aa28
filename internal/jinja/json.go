package jinja

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// filterTojson is transformers' tojson: json.dumps(x, ensure_ascii=False,
// indent=indent, separators=separators, sort_keys=sort_keys), with every
// argument of json.dumps honoured as Python does.
func filterTojson(r *Renderer, v any, args []any, kw []Kwarg, _ *scope) (any, error) {
	a, err := bind("tojson", args, kw, []string{"ensure_ascii", "indent", "separators", "sort_keys"}, false, nil, nil, false)
	if err != nil {
		return nil, err
	}
	j := jsonEnc{ascii: truthy(a[0]), sortKeys: truthy(a[3]), itemSep: ", ", keySep: ": "}
	switch ind := a[1].(type) {
	case nil:
	case int64:
		j.indent, j.pretty = strings.Repeat(" ", int(max(ind, 0))), true
	case string:
		j.indent, j.pretty = ind, true
	default:
		return nil, fmt.Errorf("tojson: indent must be an int or a string")
	}
	if j.pretty {
		j.itemSep = ","
	}
	if a[2] != nil {
		seps, ok := asSeq(a[2])
		if !ok || len(seps) != 2 {
			return nil, fmt.Errorf("tojson: separators must be a pair of strings")
		}
		j.itemSep, j.keySep = r.str(seps[0]), r.str(seps[1])
	}
	var b strings.Builder
	j.r = r
	if err := j.enc(&b, v, 0); err != nil {
		return nil, err
	}
	return b.String(), nil
}

type jsonEnc struct {
	r               *Renderer
	ascii, sortKeys bool
	pretty          bool
	indent          string
	itemSep, keySep string
}

func (j *jsonEnc) newline(b *strings.Builder, depth int) {
	if j.pretty {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(j.indent, depth))
	}
}

func (j *jsonEnc) enc(b *strings.Builder, v any, depth int) error {
	if j.r != nil {
		if err := j.r.checkSize(b.Len()); err != nil {
			return err
		}
	}
	if depth > 500 {
		return fmt.Errorf("maximum recursion depth exceeded while encoding a JSON object")
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(jsonFloat(x))
	case string:
		j.str(b, x)
	case Markup:
		j.str(b, string(x))
	case []any, Tuple:
		items, _ := asSeq(x)
		if len(items) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteString(j.itemSep)
			}
			j.newline(b, depth+1)
			if err := j.enc(b, it, depth+1); err != nil {
				return err
			}
		}
		j.newline(b, depth)
		b.WriteByte(']')
	case *Dict:
		if x.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		keys := x.Keys()
		if j.sortKeys {
			keys = append([]any{}, keys...)
			var serr error
			sortStable(keys, func(p, q any) bool {
				c, err := j.r.compare(p, q)
				if err != nil {
					serr = fmt.Errorf("'<' not supported between instances of '%s' and '%s'", typeName(q), typeName(p))
				}
				return c < 0
			})
			if serr != nil {
				return serr
			}
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(j.itemSep)
			}
			j.newline(b, depth+1)
			var ks string
			switch kk := k.(type) {
			case string:
				ks = kk
			case Markup:
				ks = string(kk)
			case nil:
				ks = "null"
			case bool:
				ks = "false"
				if kk {
					ks = "true"
				}
			case int64:
				ks = strconv.FormatInt(kk, 10)
			case float64:
				ks = jsonFloat(kk)
			default:
				return fmt.Errorf("keys must be str, int, float, bool or None, not %s", typeName(k))
			}
			j.str(b, ks)
			b.WriteString(j.keySep)
			var val any
			if j.sortKeys {
				val, _ = x.Get(k)
			} else {
				val = x.Values()[i] // keys in their order: no look-up
			}
			if err := j.enc(b, val, depth+1); err != nil {
				return err
			}
		}
		j.newline(b, depth)
		b.WriteByte('}')
	case *Namespace:
		return fmt.Errorf("Object of type Namespace is not JSON serializable")
	default:
		return fmt.Errorf("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

func sortStable(keys []any, less func(a, b any) bool) {
	for i := 1; i < len(keys); i++ {
		for k := i; k > 0 && less(keys[k], keys[k-1]); k-- {
			keys[k], keys[k-1] = keys[k-1], keys[k]
		}
	}
}

func jsonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return pyval.FloatRepr(f)
}

func (j *jsonEnc) str(b *strings.Builder, s string) {
	b.WriteByte('"')
	run := 0 // start of the bytes not yet written, which need no escape
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' || c == 0x7f && !j.ascii {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !j.ascii && (r != utf8.RuneError || size > 1) {
				i += size
				continue
			}
		}
		b.WriteString(s[run:i])
		i += size
		run = i
		j.escape(b, r)
	}
	b.WriteString(s[run:])
	b.WriteByte('"')
}

// escape writes r as json.dumps writes a character it escapes (or, for
// the U+FFFD of invalid UTF-8 without ensure_ascii, as it is).
func (j *jsonEnc) escape(b *strings.Builder, c rune) {
	switch c {
	case '"':
		b.WriteString(`\"`)
	case '\\':
		b.WriteString(`\\`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	default:
		switch {
		case c < 0x20:
			b.WriteString(`\u` + hexN(int(c), 4))
		case j.ascii && c > 0x7e:
			if c > 0xffff {
				r1, r2 := utf16.EncodeRune(c)
				b.WriteString(`\u` + hexN(int(r1), 4) + `\u` + hexN(int(r2), 4))
			} else {
				b.WriteString(`\u` + hexN(int(c), 4))
			}
		default:
			b.WriteRune(c)
		}
	}
}

// DumpJSON is Python's json.dumps(v, ensure_ascii=ensureASCII,
// indent=indent) (indent < 0: None) for template values such as FromJSON
// returns: keys in their order, floats as Python prints them.
func DumpJSON(v any, ensureASCII bool, indent int) (string, error) {
	j := jsonEnc{ascii: ensureASCII, itemSep: ", ", keySep: ": "}
	if indent >= 0 {
		j.pretty, j.indent, j.itemSep = true, strings.Repeat(" ", indent), ","
	}
	var b strings.Builder
	if err := j.enc(&b, v, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func hexN(n, w int) string {
	s := strconv.FormatInt(int64(n), 16)
	return strings.Repeat("0", w-len(s)) + s
}
