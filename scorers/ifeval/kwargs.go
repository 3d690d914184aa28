package ifeval

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// kwargs are an instruction's arguments as decoded from JSON.
type kwargs map[string]any

func (kw kwargs) str(id, name string) (string, error) {
	v, ok := kw[name]
	if !ok || v == nil {
		return "", &KwargError{id, name, "missing"}
	}
	s, ok := v.(string)
	if !ok {
		return "", &KwargError{id, name, fmt.Sprintf("want a string, got %T", v)}
	}
	return s, nil
}

func (kw kwargs) integer(id, name string) (int, error) {
	v, ok := kw[name]
	if !ok || v == nil {
		return 0, &KwargError{id, name, "missing"}
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case json.Number:
		n, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, &KwargError{id, name, "not a number: " + string(x)}
		}
		f = n
	default:
		return 0, &KwargError{id, name, fmt.Sprintf("want an integer, got %T", v)}
	}
	if f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, &KwargError{id, name, fmt.Sprintf("want an integer, got %v", f)}
	}
	return int(f), nil
}

func (kw kwargs) strings(id, name string) ([]string, error) {
	v, ok := kw[name]
	if !ok || v == nil {
		return nil, &KwargError{id, name, "missing"}
	}
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, &KwargError{id, name, fmt.Sprintf("element %d: want a string, got %T", i, e)}
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, &KwargError{id, name, fmt.Sprintf("want a list of strings, got %T", v)}
}

// relation is the official comparison: "less than" (<) or "at least" (>=).
type relation bool

const (
	lessThan relation = false
	atLeast  relation = true
)

func (kw kwargs) relation(id, name string) (relation, error) {
	s, err := kw.str(id, name)
	if err != nil {
		return lessThan, err
	}
	switch s {
	case "less than":
		return lessThan, nil
	case "at least":
		return atLeast, nil
	}
	return lessThan, &KwargError{id, name, fmt.Sprintf("want \"less than\" or \"at least\", got %q", s)}
}

// holds applies the relation: n < threshold or n >= threshold.
func (r relation) holds(n, threshold int) bool {
	if r == atLeast {
		return n >= threshold
	}
	return n < threshold
}
