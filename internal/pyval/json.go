package pyval

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON says how DecodeJSON builds values: the value model's ordered
// dict, what an integer past 64 bits becomes, and the depth bound.
type JSON struct {
	// NewDict returns an empty ordered dict of the caller's model.
	NewDict func() interface{ Set(k, v any) }
	// BigInt is what an integer past 64 bits becomes (its decimal
	// digits given); nil keeps it as a *big.Int.
	BigInt func(digits string) (any, error)
	// Constants reads back the strings JSONConstants marks as NaN and
	// ±Inf.
	Constants bool
	// MaxDepth bounds nesting (0: none); past it the error is Python's
	// RecursionError message.
	MaxDepth int
}

// DecodeJSON reads one JSON value from dec (which must UseNumber) as
// Python's json.loads builds it: objects keep their key order (a repeated
// key keeps its first place and its last value), integers are int64,
// numbers with a fraction or exponent float64, null is nil.
func (o JSON) DecodeJSON(dec *json.Decoder) (any, error) { return o.decode(dec, 0) }

func (o JSON) decode(dec *json.Decoder, depth int) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		if o.MaxDepth > 0 && depth >= o.MaxDepth {
			kind := "array"
			if x == '{' {
				kind = "object"
			}
			return nil, fmt.Errorf("maximum recursion depth exceeded while decoding a JSON %s from a unicode string", kind)
		}
		switch x {
		case '[':
			out := []any{}
			for dec.More() {
				v, err := o.decode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		case '{':
			d := o.NewDict()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := o.decode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				d.Set(k.(string), v)
			}
			_, err := dec.Token()
			return d, err
		}
	case json.Number:
		return o.numberValue(string(x))
	case string:
		return o.stringValue(x), nil
	case bool, nil:
		return x, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", t)
}

// JSONConstants rewrites the bare NaN, Infinity and -Infinity that
// Python's json.loads accepts into marked strings DecodeJSON reads back
// as floats.
func JSONConstants(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var b bytes.Buffer
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(data) {
				i++
				b.WriteByte(data[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			b.WriteByte(c)
			continue
		}
		for _, w := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(w)) {
				b.WriteString(`"\u0000` + w + `"`)
				i += len(w) - 1
				c = 0
				break
			}
		}
		if c != 0 {
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}
