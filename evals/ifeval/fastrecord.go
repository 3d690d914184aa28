package ifeval

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The record fields as they are spelled in IFEval-schema files.
var recordFields = [...]string{"key", "prompt", "instruction_id_list", "kwargs"}

// fastRecord reads a well-formed record in one pass over its bytes (about
// ten times faster than encoding/json with a decoder per record, a check
// for repeated fields and a second decoding of every kwargs object). It
// returns ok false for anything it does not read exactly as the
// encoding/json path (parseRecord's) would: invalid or irregular JSON,
// invalid UTF-8, surrogate escapes, a field given twice or spelled in
// another case, a field of an unexpected type; the caller then takes that
// path, which also words the error. FuzzRecordPaths checks that both read
// every input alike.
func fastRecord(raw string) (key, prompt string, ids []string, kwargs []map[string]any, ok bool) {
	if !utf8.ValidString(raw) || hasSurrogateEscape(raw) || !gjson.Valid(raw) {
		return "", "", nil, nil, false
	}
	doc := gjson.Parse(raw)
	if !doc.IsObject() {
		return "", "", nil, nil, false
	}
	var seen [len(recordFields)]bool
	ok = true
	doc.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		i := fieldIndex(name)
		if i < 0 {
			// encoding/json matches field names case-insensitively
			// (with its own folding of K and ſ): leave those to it.
			if !isASCII(name) || foldsToField(name) {
				ok = false
			}
			return ok
		}
		if seen[i] {
			ok = false
			return false
		}
		seen[i] = true
		switch i {
		case 0:
			if v.Type != gjson.Number {
				ok = false
			}
			key = v.Raw
		case 1:
			if v.Type != gjson.String {
				ok = false
			}
			prompt = v.String()
		case 2:
			if !v.IsArray() {
				ok = false
				return false
			}
			v.ForEach(func(_, e gjson.Result) bool {
				if e.Type != gjson.String {
					ok = false
					return false
				}
				ids = append(ids, e.String())
				return true
			})
		case 3:
			if !v.IsArray() {
				ok = false
				return false
			}
			kwargs = []map[string]any{}
			v.ForEach(func(_, e gjson.Result) bool {
				var m map[string]any
				switch {
				case e.IsObject():
					m = kwargsObject(e)
				case e.Type == gjson.Null:
					m = map[string]any{}
				default:
					ok = false
					return false
				}
				kwargs = append(kwargs, m)
				return true
			})
		}
		return ok
	})
	if !ok || !seen[0] || !seen[1] || !seen[2] || !seen[3] {
		return "", "", nil, nil, false
	}
	return key, prompt, ids, kwargs, true
}

func fieldIndex(name string) int {
	for i, f := range recordFields {
		if name == f {
			return i
		}
	}
	return -1
}

func foldsToField(name string) bool {
	for _, f := range recordFields {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasSurrogateEscape reports whether raw may hold a \uD800–\uDFFF escape,
// which encoding/json and gjson decode differently when unpaired.
func hasSurrogateEscape(raw string) bool {
	for {
		i := strings.Index(raw, `\u`)
		if i < 0 || i+2 >= len(raw) {
			return i >= 0
		}
		if raw[i+2] == 'd' || raw[i+2] == 'D' {
			return true
		}
		raw = raw[i+2:]
	}
}

// kwargsObject is decodeKwargs for an object that fastRecord validated:
// null values dropped (the last of repeated names wins, as in
// encoding/json), numbers as json.Number.
func kwargsObject(obj gjson.Result) map[string]any {
	m := map[string]any{}
	obj.ForEach(func(k, v gjson.Result) bool {
		m[k.String()] = gjsonAny(v)
		return true
	})
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	return m
}

// gjsonAny is v as encoding/json decodes it into an any with UseNumber.
func gjsonAny(v gjson.Result) any {
	switch v.Type {
	case gjson.String:
		return v.String()
	case gjson.Number:
		return json.Number(v.Raw)
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.Null:
		return nil
	}
	if v.IsArray() {
		out := []any{}
		v.ForEach(func(_, e gjson.Result) bool {
			out = append(out, gjsonAny(e))
			return true
		})
		return out
	}
	out := map[string]any{}
	v.ForEach(func(k, e gjson.Result) bool {
		out[k.String()] = gjsonAny(e)
		return true
	})
	return out
}
