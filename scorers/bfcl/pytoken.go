package bfcl

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// This file tokenizes Python source for one expression as Python's
// tokenizer does; what a string or number literal means is
// internal/pyval's.

var pyKeywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true}

const (
	ptEOF = iota
	ptName
	ptNum
	ptStr
	ptOp
	ptNewline
)

type ptok struct {
	kind  int
	s     string
	v     any  // number or string value
	bytes bool // a bytes literal
	fstr  bool // an f-string
}

// pyTokenize tokenizes s; newlines inside brackets are joined.
func pyTokenize(s string) ([]ptok, error) {
	var toks []ptok
	depth := 0
	i := 0
	lineStart := true
	for i < len(s) {
		c := s[i]
		if lineStart && depth == 0 {
			// a logical line: blank lines and comments are skipped, an
			// indented first token is an IndentationError
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f') {
				j++
			}
			if j < len(s) && s[j] != '\n' && s[j] != '\r' && s[j] != '#' && j > i {
				return nil, fmt.Errorf("unexpected indent")
			}
			// a last line of blanks (no newline) is indented too, unless a
			// form feed ends its blanks (the tokenizer counts columns from it)
			if j == len(s) && j > i && s[j-1] != '\f' {
				return nil, fmt.Errorf("unexpected indent")
			}
			lineStart = false
		}
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			i++
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(s) && (s[i+1] == '\n' || s[i+1] == '\r'):
			i += 2
			if i < len(s) && s[i-1] == '\r' && s[i] == '\n' {
				i++
			}
		case c == '\n' || c == '\r':
			i++
			if depth == 0 {
				if len(toks) > 0 && toks[len(toks)-1].kind != ptNewline {
					toks = append(toks, ptok{kind: ptNewline})
				}
				lineStart = true
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			t, n, err := numberTok(s[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i += n
		case c == '"' || c == '\'':
			t, n, err := stringTok(s[i:], "")
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i += n
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(s) {
				r, w := utf8.DecodeRuneInString(s[j:])
				if r == '_' || unicode.IsLetter(r) || j > i && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r)) {
					j += w
					continue
				}
				if j == i {
					return nil, fmt.Errorf("invalid character %q", r)
				}
				break
			}
			word := s[i:j]
			if j < len(s) && (s[j] == '"' || s[j] == '\'') && isStrPrefix(word) {
				t, n, err := stringTok(s[j:], strings.ToLower(word))
				if err != nil {
					return nil, err
				}
				toks = append(toks, t)
				i = j + n
				continue
			}
			toks = append(toks, ptok{kind: ptName, s: word})
			i = j
		default:
			op := ""
			for _, o := range []string{"**=", "//=", ">>=", "<<=", "...", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "->", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if !strings.ContainsRune("+-*/%@&|^~<>()[]{},:.;=", rune(c)) {
					return nil, fmt.Errorf("invalid character %q", c)
				}
				op = string(c)
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
				if depth < 0 {
					return nil, fmt.Errorf("unmatched '%s'", op)
				}
			}
			toks = append(toks, ptok{kind: ptOp, s: op})
			i += len(op)
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("'(' was never closed")
	}
	return append(toks, ptok{kind: ptEOF}), nil
}

func isStrPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "br", "rb", "f", "fr", "rf":
		return true
	}
	return false
}

// numberTok reads the number literal at the start of s (pyval.Number).
func numberTok(s string) (ptok, int, error) {
	v, n, err := pyval.Number(s)
	if err != nil {
		return ptok{}, 0, err
	}
	if _, big := v.(*big.Int); big {
		return ptok{}, 0, fmt.Errorf("integer literal beyond 64 bits")
	}
	return ptok{kind: ptNum, v: v}, n, nil
}

// stringTok reads the string literal (after its prefix) at the start of
// s (pyval.Unquote).
func stringTok(s, prefix string) (ptok, int, error) {
	isBytes := strings.Contains(prefix, "b")
	v, n, err := pyval.Unquote(s, pyval.Quote{Raw: strings.Contains(prefix, "r"), Bytes: isBytes, Triple: true})
	if err != nil {
		return ptok{}, 0, err
	}
	return ptok{kind: ptStr, v: v, bytes: isBytes, fstr: strings.Contains(prefix, "f")}, n, nil
}
