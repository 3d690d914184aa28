package lmtemplate

import (
	"fmt"
	"strings"
	"unicode"
)

type segKind int

const (
	segText segKind = iota
	segExpr
	segStmt
	segComment
)

type segment struct {
	kind segKind
	text string // raw text, or the tag's content without delimiters and markers
	line int    // 1-based line of the segment's start in the template
}

// scan splits a template into text and tags, applying jinja2's default
// whitespace handling: only explicit "-" markers strip whitespace (all of
// it, newlines included, up to the neighbouring tag); there is no
// trim_blocks and no lstrip_blocks, and the trailing newline is kept
// (lm-eval's keep_trailing_newline=True). {% raw %} blocks become text.
func scan(src string) ([]segment, error) {
	var segs []segment
	line := 1
	pos := 0
	textStart, textLine := 0, 1
	stripNext := false // the previous tag ended with "-"
	emitText := func(end int, trimTrailing bool) {
		t := src[textStart:end]
		if stripNext {
			t = strings.TrimLeftFunc(t, unicode.IsSpace)
		}
		if trimTrailing {
			t = strings.TrimRightFunc(t, unicode.IsSpace)
		}
		if t != "" {
			segs = append(segs, segment{kind: segText, text: t, line: textLine})
		}
		stripNext = false
	}
	for pos < len(src) {
		if src[pos] != '{' || pos+1 >= len(src) || strings.IndexByte("{%#", src[pos+1]) < 0 {
			if src[pos] == '\n' {
				line++
			}
			pos++
			continue
		}
		var kind segKind
		var closer string
		switch src[pos+1] {
		case '{':
			kind, closer = segExpr, "}}"
		case '%':
			kind, closer = segStmt, "%}"
		default:
			kind, closer = segComment, "#}"
		}
		tagLine := line
		start := pos + 2
		trimLeft := false
		if start < len(src) && (src[start] == '-' || src[start] == '+') {
			trimLeft = src[start] == '-'
			start++
		}
		end, endLine, err := findCloser(src, start, closer, kind, line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", tagLine, err)
		}
		content := src[start:end]
		trimRight := false
		if n := len(content); n > 0 && (content[n-1] == '-' || content[n-1] == '+') && kind != segComment {
			trimRight = content[n-1] == '-'
			content = content[:n-1]
		} else if kind == segComment && strings.HasSuffix(content, "-") {
			trimRight = true
		}
		emitText(pos, trimLeft) // the text before the tag
		pos = end + len(closer)
		line = endLine

		if kind == segStmt && strings.TrimSpace(content) == "raw" {
			// Everything up to {% endraw %} is text.
			rawEnd, rawTagEnd, rawTrimLeft, rawTrimRight, ok := findEndRaw(src, pos)
			if !ok {
				return nil, fmt.Errorf("line %d: {%% raw %%} without {%% endraw %%}", tagLine)
			}
			body := src[pos:rawEnd]
			if trimRight {
				body = strings.TrimLeftFunc(body, unicode.IsSpace)
			}
			if rawTrimLeft {
				body = strings.TrimRightFunc(body, unicode.IsSpace)
			}
			if body != "" {
				segs = append(segs, segment{kind: segText, text: body, line: line})
			}
			line += strings.Count(src[pos:rawTagEnd], "\n")
			pos = rawTagEnd
			textStart, textLine = pos, line
			stripNext = rawTrimRight
			continue
		}
		if kind != segComment {
			segs = append(segs, segment{kind: kind, text: content, line: tagLine})
		}
		textStart, textLine = pos, line
		stripNext = trimRight
	}
	emitText(len(src), false)
	return segs, nil
}

// findCloser returns the offset of closer after start, skipping quoted
// strings inside expressions and statements, and the line it ends on.
func findCloser(src string, start int, closer string, kind segKind, line int) (int, int, error) {
	i := start
	for i < len(src) {
		c := src[i]
		if kind != segComment && (c == '\'' || c == '"') {
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				if j < len(src) && src[j] == '\n' {
					line++
				}
				j++
			}
			if j >= len(src) {
				return 0, 0, fmt.Errorf("unterminated string in tag")
			}
			i = j + 1
			continue
		}
		if strings.HasPrefix(src[i:], closer) {
			return i, line, nil
		}
		if c == '\n' {
			line++
		}
		i++
	}
	what := map[segKind]string{segExpr: "{{", segStmt: "{%", segComment: "{#"}[kind]
	return 0, 0, fmt.Errorf("unclosed %s tag", what)
}

// findEndRaw finds the {% endraw %} tag after pos: the start of the tag,
// the offset after it, and its whitespace markers.
func findEndRaw(src string, pos int) (tagStart, tagEnd int, trimLeft, trimRight, ok bool) {
	for i := pos; i < len(src); i++ {
		if !strings.HasPrefix(src[i:], "{%") {
			continue
		}
		j := i + 2
		tl := false
		if j < len(src) && (src[j] == '-' || src[j] == '+') {
			tl = src[j] == '-'
			j++
		}
		k := strings.Index(src[j:], "%}")
		if k < 0 {
			return 0, 0, false, false, false
		}
		content := src[j : j+k]
		tr := false
		if n := len(content); n > 0 && (content[n-1] == '-' || content[n-1] == '+') {
			tr = content[n-1] == '-'
			content = content[:n-1]
		}
		if strings.TrimSpace(content) == "endraw" {
			return i, j + k + 2, tl, tr, true
		}
	}
	return 0, 0, false, false, false
}
