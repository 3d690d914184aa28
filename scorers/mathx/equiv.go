package mathx

import (
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// Equivalent reports whether cand is the same final answer as gold, for
// MATH-style LaTeX answers. Both are normalised (see Normalize); equal
// strings are equivalent. Otherwise structure decides:
//
//   - matrices compare cell by cell;
//   - unions of intervals (\cup) compare part by part, in any order;
//   - sets \{…\} and bare comma lists ("all solutions, separated by
//     commas") compare as multisets;
//   - bracketed comma lists — points, vectors, intervals — compare element
//     by element in order, and their brackets must match exactly, so (0,1]
//     is not [0,1);
//   - equations compare side by side;
//   - anything else is evaluated numerically (fractions, roots, π, i,
//     variables at several points) and compared — integral values exactly,
//     others within a 1e-12 relative tolerance — so 0.5 equals \frac12 and
//     2\sqrt3 equals \sqrt{12}, but 0.333 does not equal \frac13.
//
// Text answers compare case-insensitively; a base subscript in gold
// ("1011_2") may be omitted by cand.
func Equivalent(gold, cand string) bool {
	g, c := Normalize(gold), Normalize(cand)
	if g == "" || c == "" {
		return false
	}
	if g == c {
		return true
	}
	if len(g) > maxAnswerLen || len(c) > maxAnswerLen {
		return false // not an answer; only identical strings match
	}
	cmp := &comparer{budget: maxComparisons}
	return cmp.equal(g, c, 0)
}

// Limits that keep pathological input (deeply nested lists, huge strings)
// from costing more than a few milliseconds.
const (
	maxDepth       = 8
	maxAnswerLen   = 2000
	maxComparisons = 2000
)

// comparer carries the work budget of one Equivalent call.
type comparer struct {
	budget int
}

func (cmp *comparer) equal(g, c string, depth int) bool {
	if g == c {
		return true
	}
	cmp.budget--
	if depth > maxDepth || cmp.budget < 0 {
		return false
	}
	g, c = stripMembership(dropVariablePrefix(g)), stripMembership(dropVariablePrefix(c))
	if g == c {
		return true
	}
	if gp, cp := expandPlusMinus(g), expandPlusMinus(c); gp != nil || cp != nil {
		if gp == nil {
			gp = splitTop(g, ",")
		}
		if cp == nil {
			cp = splitTop(c, ",")
		}
		return len(gp) == len(cp) && cmp.multisetEqual(gp, cp, depth)
	}
	if gv, ok := columnVector(g); ok {
		if cv, ok := columnVector(c); ok {
			// A column vector may be written as a matrix or as a tuple.
			if len(gv) != len(cv) {
				return false
			}
			for i := range gv {
				if !cmp.equal(gv[i], cv[i], depth+1) {
					return false
				}
			}
			return true
		}
	}
	if gm, ok := matrixCells(g); ok {
		cm, ok := matrixCells(c)
		if !ok || len(gm) != len(cm) {
			return false
		}
		for i := range gm {
			if len(gm[i]) != len(cm[i]) {
				return false
			}
			for j := range gm[i] {
				if !cmp.equal(gm[i][j], cm[i][j], depth+1) {
					return false
				}
			}
		}
		return true
	}
	if gp, cp := splitTop(g, `\cup`), splitTop(c, `\cup`); len(gp) > 1 || len(cp) > 1 {
		return len(gp) == len(cp) && cmp.multisetEqual(gp, cp, depth)
	}
	gSet, gIsSet := setElements(g)
	cSet, cIsSet := setElements(c)
	if gIsSet || cIsSet {
		if !gIsSet {
			gSet = splitTop(g, ",")
		}
		if !cIsSet {
			if isBracketed(c) {
				return false
			}
			cSet = splitTop(c, ",")
		}
		gSet, cSet = expandElements(gSet), expandElements(cSet)
		return len(gSet) == len(cSet) && cmp.multisetEqual(gSet, cSet, depth)
	}
	gOpen, gElems, gClose, gTuple := tuple(g)
	cOpen, cElems, cClose, cTuple := tuple(c)
	if gTuple || cTuple {
		if !gTuple || !cTuple || gOpen != cOpen || gClose != cClose || len(gElems) != len(cElems) {
			return false
		}
		for i := range gElems {
			if !cmp.equal(gElems[i], cElems[i], depth+1) {
				return false
			}
		}
		return true
	}
	if gl, cl := splitTop(g, ","), splitTop(c, ","); len(gl) > 1 || len(cl) > 1 {
		gl, cl = expandElements(gl), expandElements(cl)
		return len(gl) == len(cl) && cmp.multisetEqual(gl, cl, depth)
	}
	if gs, cs := splitTop(g, "="), splitTop(c, "="); len(gs) > 1 || len(cs) > 1 {
		if len(gs) != len(cs) {
			return false
		}
		for i := range gs {
			if !cmp.equal(gs[i], cs[i], depth+1) {
				return false
			}
		}
		return true
	}
	return atomEqual(g, c)
}

var (
	baseNumber = lazyre.New(`^([0-9A-Fa-f]+)_\{?(\d+)\}?$`)
	plainWord  = lazyre.New(`^[A-Za-z][A-Za-z'\-]*$`)
	membership = lazyre.New(`^(?:[a-zA-Z]|\\[a-zA-Z]+)\\in`)
)

// stripMembership drops "x\in" in front of a set or interval answer.
func stripMembership(s string) string {
	if loc := membership.FindStringIndex(s); loc != nil && loc[1] < len(s) {
		return s[loc[1]:]
	}
	return s
}

// atomEqual compares two answers without top-level structure.
func atomEqual(g, c string) bool {
	if g == c {
		return true
	}
	if n, ok := numberWords[strings.ToLower(c)]; ok && g == n {
		return true // "five" for 5
	}
	if plainWord.MatchString(g) && plainWord.MatchString(c) {
		return strings.EqualFold(g, c)
	}
	if m := baseNumber.FindStringSubmatch(g); m != nil {
		if c == m[1] {
			return true
		}
		if cm := baseNumber.FindStringSubmatch(c); cm != nil {
			return strings.EqualFold(m[1], cm[1]) && m[2] == cm[2]
		}
		return false
	}
	if eq, ok := numericallyEqual(g, c); ok {
		return eq
	}
	return false
}

// multisetEqual matches every element of a to a distinct element of b.
func (cmp *comparer) multisetEqual(a, b []string, depth int) bool {
	used := make([]bool, len(b))
outer:
	for _, x := range a {
		for j, y := range b {
			if !used[j] && cmp.equal(x, y, depth+1) {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}

// splitTop splits s on sep where sep is outside every (), [], {} group.
// Brackets are counted loosely (an interval's "(" may close with "]").
func splitTop(s, sep string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if strings.HasPrefix(s[i:], `\{`) || strings.HasPrefix(s[i:], `\}`) {
				if s[i+1] == '{' {
					depth++
				} else {
					depth--
				}
				i++
				continue
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			parts = append(parts, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(parts, s[start:])
}

// setElements returns the elements of "\{a,b\}".
func setElements(s string) ([]string, bool) {
	if !strings.HasPrefix(s, `\{`) || !strings.HasSuffix(s, `\}`) || len(s) < 4 {
		return nil, false
	}
	inner := s[2 : len(s)-2]
	if !balanced(inner) {
		return nil, false
	}
	if inner == "" {
		return nil, true
	}
	return splitTop(inner, ","), true
}

// isBracketed reports whether s is a bracketed comma list.
func isBracketed(s string) bool {
	_, _, _, ok := tuple(s)
	return ok
}

// tuple splits "(a,b)", "[a,b)", "(a,b]"… into brackets and elements. A
// bracketed single expression "(x+1)" is not a tuple.
func tuple(s string) (open byte, elems []string, close byte, ok bool) {
	if len(s) < 3 {
		return 0, nil, 0, false
	}
	open, close = s[0], s[len(s)-1]
	if open != '(' && open != '[' || close != ')' && close != ']' {
		return 0, nil, 0, false
	}
	inner := s[1 : len(s)-1]
	if !balanced(inner) {
		return 0, nil, 0, false
	}
	elems = splitTop(inner, ",")
	if len(elems) < 2 {
		return 0, nil, 0, false
	}
	return open, elems, close, true
}

// balanced reports whether every group opened in s closes in s, counting
// (, [ and { alike so that intervals such as "[0,1)" nest correctly.
func balanced(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '}') {
				if s[i+1] == '{' {
					depth++
				} else {
					depth--
				}
				i++
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if depth < 0 {
			return false
		}
	}
	return depth == 0
}

// matrixCells parses "\begin{pmatrix}a&b\\c&d\end{pmatrix}" into rows of
// cells.
func matrixCells(s string) ([][]string, bool) {
	const begin, end = `\begin{pmatrix}`, `\end{pmatrix}`
	if !strings.HasPrefix(s, begin) || !strings.HasSuffix(s, end) {
		return nil, false
	}
	body := strings.TrimSuffix(s[len(begin):len(s)-len(end)], `\\`)
	var rows [][]string
	for _, r := range strings.Split(body, `\\`) {
		rows = append(rows, strings.Split(r, "&"))
	}
	return rows, true
}

// expandPlusMinus turns "a\pm b" (one top-level \pm, no list) into the two
// answers a+b and a-b; it returns nil for anything else.
func expandPlusMinus(s string) []string {
	parts := splitTop(s, `\pm`)
	if len(parts) != 2 || len(splitTop(s, ",")) > 1 || parts[1] == "" {
		return nil
	}
	return []string{parts[0] + "+" + parts[1], parts[0] + "-" + parts[1]}
}

// expandElements replaces every "a\pm b" element of a list by its two
// answers.
func expandElements(elems []string) []string {
	var out []string
	for _, e := range elems {
		if pm := expandPlusMinus(e); pm != nil {
			out = append(out, pm...)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// columnVector returns the entries of a one-column (or one-row) matrix or of a
// parenthesised tuple "(a,b,c)"; intervals with square brackets are not
// vectors.
func columnVector(s string) ([]string, bool) {
	if m, ok := matrixCells(s); ok {
		if len(m) == 1 && len(m[0]) > 1 {
			return m[0], true // a row vector
		}
		var out []string
		for _, row := range m {
			if len(row) != 1 {
				return nil, false
			}
			out = append(out, row[0])
		}
		return out, len(out) > 1
	}
	if open, elems, close, ok := tuple(s); ok && open == '(' && close == ')' {
		return elems, true
	}
	return nil, false
}

// numberWords spells small integers, for answers written as words.
var numberWords = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
	"eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
	"nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
	"fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80",
	"ninety": "90", "hundred": "100",
}
