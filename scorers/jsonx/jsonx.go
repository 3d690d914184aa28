// Package jsonx scores structured extraction: it finds the JSON object in a
// model's response (in a ```json fenced block or bare in the text) and
// compares it with a target object field by field.
//
// Each field's value is compared as a multiset of normalised strings: a
// scalar is one element, a list is its elements, null, "" and a missing
// field are empty. Strings are normalised by folding full-width ASCII and
// the ideographic space, lower-casing, and collapsing white space; numbers
// and booleans compare by their JSON text (1 and 1.0 are equal). For one
// field, true positives are the common elements, false positives the
// predicted elements not in the target, false negatives the target elements
// not predicted: a wrong value counts once as each. Precision, recall and
// F1 follow from the counts summed over the compared fields (and, for a
// whole dataset, over samples). A record matches exactly when every
// compared field's multisets are equal.
//
// The package does not repair malformed JSON: a response without a
// parseable object is reported as such and all its target elements are
// false negatives.
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/scorers/match"
)

// ErrNoJSON is returned when a response holds no JSON object.
var ErrNoJSON = errors.New("no JSON object in the response")

var fence = lazyre.New("(?s)```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)```")

// Extract returns the first JSON object of a response: the content of the
// first fenced code block that parses as an object, else the first
// balanced {...} in the text that parses as one.
func Extract(response string) (map[string]any, error) {
	for _, m := range fence.FindAllStringSubmatch(response, -1) {
		if obj, ok := parseObject(strings.TrimSpace(m[1])); ok {
			return obj, nil
		}
	}
	for i := 0; i < len(response); i++ {
		if response[i] != '{' {
			continue
		}
		if end := balancedEnd(response, i); end > 0 {
			if obj, ok := parseObject(response[i:end]); ok {
				return obj, nil
			}
		}
	}
	return nil, ErrNoJSON
}

func parseObject(s string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return obj, true
}

// balancedEnd returns the offset after the brace that closes the one at
// start, skipping JSON strings, or -1.
func balancedEnd(s string, start int) int {
	depth := 0
	inString := false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// Counts are slot-level counts.
type Counts struct {
	TP, FP, FN int
}

// Add accumulates o.
func (c *Counts) Add(o Counts) { c.TP += o.TP; c.FP += o.FP; c.FN += o.FN }

// PRF returns precision, recall and F1 (0 for a zero denominator).
func (c Counts) PRF() (p, r, f float64) {
	if c.TP+c.FP > 0 {
		p = float64(c.TP) / float64(c.TP+c.FP)
	}
	if c.TP+c.FN > 0 {
		r = float64(c.TP) / float64(c.TP+c.FN)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

// Comparison is one record compared with its target.
type Comparison struct {
	// Fields maps each compared field to its counts.
	Fields map[string]Counts
	// Total is the sum over fields.
	Total Counts
	// Exact reports whether every compared field matched exactly.
	Exact bool
}

// Compare compares a predicted object with the target. fields lists the
// fields to compare; nil means the union of the target's and the
// prediction's top-level fields. A nil prediction (no JSON found) has no
// elements.
func Compare(pred, target map[string]any, fields []string) Comparison {
	if fields == nil {
		set := map[string]bool{}
		for k := range target {
			set[k] = true
		}
		for k := range pred {
			set[k] = true
		}
		for k := range set {
			fields = append(fields, k)
		}
		sort.Strings(fields)
	}
	c := Comparison{Fields: map[string]Counts{}, Exact: true}
	for _, f := range fields {
		p := elements(pred[f])
		g := elements(target[f])
		var cnt Counts
		remaining := map[string]int{}
		for _, e := range g {
			remaining[e]++
		}
		for _, e := range p {
			if remaining[e] > 0 {
				remaining[e]--
				cnt.TP++
			} else {
				cnt.FP++
			}
		}
		for _, n := range remaining {
			cnt.FN += n
		}
		if cnt.FP > 0 || cnt.FN > 0 {
			c.Exact = false
		}
		c.Fields[f] = cnt
		c.Total.Add(cnt)
	}
	return c
}

// elements turns a field value into its normalised multiset.
func elements(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, it := range x {
			out = append(out, elements(it)...)
		}
		return out
	case string:
		if s := normalizeString(x); s != "" {
			return []string{s}
		}
		return nil
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return []string{strconv.FormatFloat(f, 'g', -1, 64)}
		}
		return []string{x.String()}
	case float64:
		return []string{strconv.FormatFloat(x, 'g', -1, 64)}
	case bool:
		return []string{strconv.FormatBool(x)}
	default:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(x); err != nil {
			return []string{fmt.Sprint(x)}
		}
		return []string{strings.TrimSpace(b.String())}
	}
}

func normalizeString(s string) string {
	s = strings.Map(func(r rune) rune { return unicode.ToLower(match.FoldWidth(r)) }, s)
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
