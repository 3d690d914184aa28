package pyval

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file tokenizes Python source for one expression as Python's
// tokenizer does; what a string or number literal means is Unquote's and
// Number's.

// keywords are Python 3's reserved words.
var keywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true}

// IsKeyword reports whether w is one of Python 3's reserved words.
func IsKeyword(w string) bool { return keywords[w] }

// TokenKind is the kind of a Token.
type TokenKind int

// The kinds of tokens.
const (
	TokEOF TokenKind = iota
	TokName
	TokNumber
	TokString
	TokOp
	TokNewline
)

// Token is one token of Python source.
type Token struct {
	Kind TokenKind
	S    string // a name or an operator
	// V is a number's value (as Number gives it) or a string's (as
	// Unquote gives it; a bytes literal's bytes as a string).
	V       any
	Bytes   bool // a bytes literal
	FString bool // an f-string
}

// TokenizeOptions say what the caller's value model cannot hold.
type TokenizeOptions struct {
	// MaxDecimalDigits refuses a decimal integer literal of more digits
	// (Python 3.11's int_max_str_digits, 4300, refuses it at compile
	// time); 0 means no limit. Hexadecimal, octal and binary literals
	// have none, as in Python.
	MaxDecimalDigits int
}

// Tokenize tokenizes s as Python's tokenizer does; newlines inside
// brackets are joined, blank lines and comments skipped, and the tokens
// end with TokEOF.
func Tokenize(s string, opt TokenizeOptions) ([]Token, error) {
	var toks []Token
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
				if len(toks) > 0 && toks[len(toks)-1].Kind != TokNewline {
					toks = append(toks, Token{Kind: TokNewline})
				}
				lineStart = true
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			t, n, err := numberTok(s[i:], opt)
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
			toks = append(toks, Token{Kind: TokName, S: word})
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
			toks = append(toks, Token{Kind: TokOp, S: op})
			i += len(op)
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("'(' was never closed")
	}
	return append(toks, Token{Kind: TokEOF}), nil
}

func isStrPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "br", "rb", "f", "fr", "rf":
		return true
	}
	return false
}

// DecimalDigits counts the digits of the decimal integer literal at the
// start of s (underscores aside); 0 when the literal there is not one (a
// float, an imaginary number, a prefixed integer).
func DecimalDigits(s string) int {
	if len(s) > 1 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		return 0
	}
	n, i := 0, 0
	for ; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			n++
		} else if c != '_' {
			break
		}
	}
	if i < len(s) && strings.IndexByte(".eEjJ", s[i]) >= 0 {
		return 0
	}
	return n
}

// numberTok reads the number literal at the start of s (Number).
func numberTok(s string, opt TokenizeOptions) (Token, int, error) {
	if opt.MaxDecimalDigits > 0 {
		if d := DecimalDigits(s); d > opt.MaxDecimalDigits {
			return Token{}, 0, fmt.Errorf("Exceeds the limit (%d digits) for integer string conversion: value has %d digits", opt.MaxDecimalDigits, d)
		}
	}
	v, n, err := Number(s)
	if err != nil {
		return Token{}, 0, err
	}
	return Token{Kind: TokNumber, V: v}, n, nil
}

// stringTok reads the string literal (after its prefix) at the start of
// s (Unquote).
func stringTok(s, prefix string) (Token, int, error) {
	isBytes := strings.Contains(prefix, "b")
	v, n, err := Unquote(s, Quote{Raw: strings.Contains(prefix, "r"), Bytes: isBytes, Triple: true})
	if err != nil {
		return Token{}, 0, err
	}
	return Token{Kind: TokString, V: v, Bytes: isBytes, FString: strings.Contains(prefix, "f")}, n, nil
}
