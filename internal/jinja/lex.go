package jinja

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// segment kinds
const (
	segText = iota
	segVar
	segBlock
)

type segment struct {
	kind int
	text string // literal text or the tag's inner source
	line int
}

// split cuts a template into text and tags and applies jinja2's
// whitespace control: "-" strips all whitespace on its side, "+" turns
// the block options off for its side; with lstrip, a block or comment tag
// alone on its line loses the indentation before it, and with trim, the
// newline after a block or comment tag is dropped.
func split(src string, trim, lstrip bool) ([]segment, error) {
	var segs []segment
	line := 1
	pos := 0
	lineStart := true // the text that follows begins a line
	// pending text, to which the next tag's left-side rule applies
	var text strings.Builder
	textLine := 1
	textLineStart := true
	flush := func(leftMode byte, isBlock bool) {
		t := text.String()
		switch {
		case leftMode == '-':
			t = strings.TrimRight(t, " \t\n\r\v\f")
		case leftMode == '+' || !isBlock || !lstrip:
		default:
			i := strings.LastIndexByte(t, '\n')
			if i >= 0 || textLineStart {
				tail := t[i+1:]
				if strings.Trim(tail, " \t") == "" {
					t = t[:i+1]
				}
			}
		}
		if t != "" {
			segs = append(segs, segment{kind: segText, text: t, line: textLine})
		}
		text.Reset()
	}
	for pos < len(src) {
		i := indexTagOpen(src, pos)
		if i < 0 {
			text.WriteString(src[pos:])
			break
		}
		text.WriteString(src[i-(i-pos) : i])
		line += strings.Count(src[pos:i], "\n")
		open := src[i+1]
		j := i + 2
		var left byte
		if j < len(src) && (src[j] == '-' || src[j] == '+') {
			left = src[j]
			j++
		}
		var closer string
		switch open {
		case '{':
			closer = "}}"
		case '%':
			closer = "%}"
		case '#':
			closer = "#}"
		}
		tagLine := line
		end, inner, err := findClose(src, j, closer, open)
		if err != nil {
			return nil, &Error{Line: tagLine, Msg: err.Error()}
		}
		right := byte(0)
		if n := len(inner); n > 0 && (inner[n-1] == '-' || inner[n-1] == '+') && open != '{' || n > 0 && inner[n-1] == '-' {
			right = inner[n-1]
			inner = inner[:n-1]
		}
		isBlock := open != '{'
		flush(left, isBlock)
		line += strings.Count(src[i:end], "\n")
		pos = end
		// right side
		switch {
		case right == '-':
			k := pos
			for k < len(src) && strings.IndexByte(" \t\n\r\v\f", src[k]) >= 0 {
				k++
			}
			line += strings.Count(src[pos:k], "\n")
			lineStart = k > pos && src[k-1] == '\n'
			pos = k
		case isBlock && trim && right != '+' && pos < len(src) && src[pos] == '\n':
			pos++
			line++
			lineStart = true
		default:
			lineStart = false
		}
		switch open {
		case '{':
			segs = append(segs, segment{kind: segVar, text: inner, line: tagLine})
		case '%':
			if strings.TrimSpace(inner) == "raw" {
				// verbatim until {% endraw %}
				k, rawEnd, rawText, rawRight, err := findEndRaw(src, pos)
				if err != nil {
					return nil, &Error{Line: tagLine, Msg: err.Error()}
				}
				line += strings.Count(src[pos:rawEnd], "\n")
				if rawRight == '-' {
					rawText = strings.TrimRight(rawText, " \t\n\r\v\f")
				} else if rawRight != '+' && lstrip {
					if x := strings.LastIndexByte(rawText, '\n'); x >= 0 && strings.Trim(rawText[x+1:], " \t") == "" {
						rawText = rawText[:x+1]
					}
				}
				_ = k
				if rawText != "" {
					segs = append(segs, segment{kind: segText, text: rawText, line: tagLine})
				}
				pos = rawEnd
				if trim && pos < len(src) && src[pos] == '\n' {
					pos++
					line++
					lineStart = true
				} else {
					lineStart = false
				}
			} else {
				segs = append(segs, segment{kind: segBlock, text: inner, line: tagLine})
			}
		}
		textLine = line
		textLineStart = lineStart
	}
	flush('+', false)
	return segs, nil
}

func indexTagOpen(src string, from int) int {
	for i := from; i+1 < len(src); i++ {
		if src[i] == '{' && (src[i+1] == '{' || src[i+1] == '%' || src[i+1] == '#') {
			return i
		}
	}
	return -1
}

// findClose finds the end of a tag whose content starts at j, skipping
// string literals in expressions. It returns the index after the closer
// and the content.
func findClose(src string, j int, closer string, open byte) (int, string, error) {
	if open == '#' {
		k := strings.Index(src[j:], "#}")
		if k < 0 {
			return 0, "", fmt.Errorf("unclosed comment")
		}
		return j + k + 2, src[j : j+k], nil
	}
	k := j
	for k < len(src) {
		c := src[k]
		if c == '"' || c == '\'' {
			q := c
			k++
			for k < len(src) && src[k] != q {
				if src[k] == '\\' {
					k++
				}
				k++
			}
			k++
			continue
		}
		if strings.HasPrefix(src[k:], closer) {
			return k + 2, src[j:k], nil
		}
		if c == '-' && strings.HasPrefix(src[k+1:], closer) {
			return k + 3, src[j : k+1], nil
		}
		k++
	}
	if open == '{' {
		return 0, "", fmt.Errorf("unexpected end of template, expected '}}'")
	}
	return 0, "", fmt.Errorf("unexpected end of template, expected '%%}'")
}

// findEndRaw finds {% endraw %} after pos; it returns the start of the
// endraw tag, the index after it, the raw text (left-stripped per the
// endraw tag's own marker) and that marker.
func findEndRaw(src string, pos int) (int, int, string, byte, error) {
	for k := pos; ; {
		i := strings.Index(src[k:], "{%")
		if i < 0 {
			return 0, 0, "", 0, fmt.Errorf("missing end of raw directive")
		}
		i += k
		j := i + 2
		var left byte
		if j < len(src) && (src[j] == '-' || src[j] == '+') {
			left = src[j]
			j++
		}
		rest := strings.TrimLeft(src[j:], " \t\n")
		if strings.HasPrefix(rest, "endraw") {
			r := strings.TrimLeft(rest[6:], " \t\n")
			var right byte
			if strings.HasPrefix(r, "-%}") || strings.HasPrefix(r, "+%}") {
				right = r[0]
				r = r[1:]
			}
			if strings.HasPrefix(r, "%}") {
				end := len(src) - len(r) + 2
				text := src[pos:i]
				if right == '-' {
					for end < len(src) && strings.IndexByte(" \t\n\r\v\f", src[end]) >= 0 {
						end++
					}
				}
				mode := left
				if mode == 0 {
					mode = ' '
				}
				return i, end, text, mode, nil
			}
		}
		k = i + 2
	}
}

// ---- tokens

const (
	tEOF = iota
	tName
	tString
	tInt
	tFloat
	tOp
)

type token struct {
	kind int
	s    string
	i    int64
	f    float64
}

var ops3 = []string{"**", "//", "==", "!=", "<=", ">="}

func tokenize(src string, line int) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, token{kind: tName, s: src[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i
			isFloat := false
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
				j++
			}
			if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
				isFloat = true
				j++
				for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					isFloat = true
					j = k
					for j < len(src) && src[j] >= '0' && src[j] <= '9' {
						j++
					}
				}
			}
			lit := strings.ReplaceAll(src[i:j], "_", "")
			if isFloat {
				f, err := strconv.ParseFloat(lit, 64)
				if err != nil {
					return nil, &Error{Line: line, Msg: "bad number " + lit}
				}
				toks = append(toks, token{kind: tFloat, f: f})
			} else {
				n, err := strconv.ParseInt(lit, 10, 64)
				if err != nil {
					return nil, &Error{Line: line, Msg: "integer " + lit + " is beyond 64 bits"}
				}
				toks = append(toks, token{kind: tInt, i: n})
			}
			i = j
		case c == '"' || c == '\'':
			// jinja2's string literals: no prefixes or triple quotes, line
			// breaks allowed, Python's escapes (unicode-escape).
			s, n, err := pyval.Unquote(src[i:], pyval.Quote{Newlines: true})
			if err != nil {
				return nil, &Error{Line: line, Msg: err.Error()}
			}
			toks = append(toks, token{kind: tString, s: s})
			i += n
		default:
			op := ""
			for _, o := range ops3 {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if !strings.ContainsRune("+-*/%~()[]{}.,:|=<>!", rune(c)) {
					return nil, &Error{Line: line, Msg: fmt.Sprintf("unexpected character %q", c)}
				}
				op = string(c)
			}
			toks = append(toks, token{kind: tOp, s: op})
			i += len(op)
		}
	}
	return append(toks, token{kind: tEOF}), nil
}
