package lmtemplate

import (
	"fmt"
	"strings"
)

type tokKind int

const (
	tokSpace tokKind = iota
	tokName
	tokString
	tokNumber
	tokPunct
)

type token struct {
	kind tokKind
	text string
}

// tokenize splits a Jinja expression into tokens, enough to find filter
// names and method calls; the engine parses the result.
func tokenize(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			j := i
			for j < len(s) && strings.IndexByte(" \t\n\r", s[j]) >= 0 {
				j++
			}
			toks = append(toks, token{tokSpace, s[i:j]})
			i = j
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string")
			}
			toks = append(toks, token{tokString, s[i : j+1]})
			i = j + 1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] >= 0x80) {
				j++
			}
			toks = append(toks, token{tokName, s[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' || s[j] == '_' || s[j] == 'e' || s[j] == 'E') {
				j++
			}
			toks = append(toks, token{tokNumber, s[i:j]})
			i = j
		default:
			toks = append(toks, token{tokPunct, s[i : i+1]})
			i++
		}
	}
	return toks, nil
}

func join(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}

// missingMethods are the Python methods lm-eval templates call that the
// engine does not provide; calls to them are rewritten to helper calls.
var missingMethods = map[string]bool{"index": true, "join": true}

// rewriteExpr adapts an expression to the engine: the `string` filter
// becomes the helper that formats values as Python's str(), and calls of
// missingMethods become __pe_call(receiver, "method", args...).
func rewriteExpr(expr string) (string, error) {
	for {
		toks, err := tokenize(expr)
		if err != nil {
			return "", err
		}
		out, changed, err := rewriteOnce(toks)
		if err != nil {
			return "", err
		}
		if !changed {
			return out, nil
		}
		expr = out
	}
}

func rewriteOnce(toks []token) (string, bool, error) {
	// Filters: "| string" → "| __pe_str".
	for i, t := range toks {
		if t.kind != tokPunct || t.text != "|" {
			continue
		}
		j := next(toks, i)
		if j >= 0 && toks[j].kind == tokName && toks[j].text == "string" {
			toks[j].text = helperStr
		}
	}
	// Methods: the first receiver.method( with a missing method.
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].kind != tokPunct || toks[i].text != "." {
			continue
		}
		m := i + 1
		if toks[m].kind != tokName || !missingMethods[toks[m].text] {
			continue
		}
		open := next(toks, m)
		if open < 0 || toks[open].text != "(" {
			continue
		}
		start := receiverStart(toks, i)
		if start < 0 {
			return "", false, fmt.Errorf("cannot find the object of .%s(", toks[m].text)
		}
		closeIdx := matching(toks, open)
		if closeIdx < 0 {
			return "", false, fmt.Errorf("unbalanced parentheses after .%s(", toks[m].text)
		}
		args := strings.TrimSpace(join(toks[open+1 : closeIdx]))
		call := helperCall + "(" + join(toks[start:i]) + ", '" + toks[m].text + "'"
		if args != "" {
			call += ", " + args
		}
		call += ")"
		return join(toks[:start]) + call + join(toks[closeIdx+1:]), true, nil
	}
	return join(toks), false, nil
}

// next returns the index of the next non-space token after i, or -1.
func next(toks []token, i int) int {
	for j := i + 1; j < len(toks); j++ {
		if toks[j].kind != tokSpace {
			return j
		}
	}
	return -1
}

func prev(toks []token, i int) int {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind != tokSpace {
			return j
		}
	}
	return -1
}

var pairs = map[string]string{"(": ")", "[": "]", "{": "}"}
var rpairs = map[string]string{")": "(", "]": "[", "}": "{"}

func matching(toks []token, open int) int {
	depth := 0
	for j := open; j < len(toks); j++ {
		if toks[j].kind != tokPunct {
			continue
		}
		if _, ok := pairs[toks[j].text]; ok {
			depth++
		} else if _, ok := rpairs[toks[j].text]; ok {
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func matchingBack(toks []token, closeIdx int) int {
	depth := 0
	for j := closeIdx; j >= 0; j-- {
		if toks[j].kind != tokPunct {
			continue
		}
		if _, ok := rpairs[toks[j].text]; ok {
			depth++
		} else if _, ok := pairs[toks[j].text]; ok {
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// receiverStart walks back from the "." at dot over the primary
// expression it is applied to: a name, literal or bracketed atom followed
// by attribute, subscript and call trailers.
func receiverStart(toks []token, dot int) int {
	j := prev(toks, dot)
	for j >= 0 {
		t := toks[j]
		switch {
		case t.kind == tokPunct && rpairs[t.text] != "":
			o := matchingBack(toks, j)
			if o < 0 {
				return -1
			}
			p := prev(toks, o)
			// A subscript or call trailer continues the chain; otherwise
			// the bracket is the atom itself.
			if (toks[o].text == "(" || toks[o].text == "[") && p >= 0 && isPrimaryEnd(toks[p]) {
				j = p
				continue
			}
			return o
		case t.kind == tokName || t.kind == tokString || t.kind == tokNumber:
			p := prev(toks, j)
			if p >= 0 && toks[p].kind == tokPunct && toks[p].text == "." {
				j = prev(toks, p)
				continue
			}
			return j
		default:
			return -1
		}
	}
	return -1
}

// keywords cannot end a primary expression.
var keywords = map[string]bool{"in": true, "not": true, "and": true, "or": true, "if": true, "else": true, "is": true}

func isPrimaryEnd(t token) bool {
	switch t.kind {
	case tokName:
		return !keywords[t.text]
	case tokString:
		return true
	case tokPunct:
		return t.text == ")" || t.text == "]"
	}
	return false
}
