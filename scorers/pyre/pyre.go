// Package pyre provides regular expressions with the semantics of
// Python's `re` module for str patterns (Python 3.11), for the patterns
// that evaluation task files and official scorers write in Python:
// lookahead and lookbehind, backreferences, named groups (?P<name>...)
// and (?P=name), \Z, and Unicode `\w`, `\d`, `\s` and `\b` exactly as
// Python 3.11 defines them (Unicode 14.0 tables, see scorers/textstats).
//
// It translates the Python syntax into that of github.com/dlclark/regexp2
// (a backtracking engine ported from .NET) and runs it there, with every
// match bounded in time: a catastrophic pattern returns ErrTimeout instead
// of hanging a run. Go's RE2 (package regexp) is linear-time but cannot
// express lookaround or backreferences, which lm-eval's filters use.
//
// What it intentionally does not do: verbose patterns ((?x)), the ASCII
// flag inside a scoped group, \N{name} escapes and bytes patterns are
// refused with a *SyntaxError naming the position; Python's fixed-width
// rule for lookbehind is not enforced (a variable-width lookbehind that
// Python refuses is accepted here).
package pyre

import (
	"errors"
	"fmt"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// Flags are Python's re flags that a caller passes besides the pattern's
// own inline flags.
type Flags int

// The flags, as re.IGNORECASE, re.MULTILINE, re.DOTALL and re.ASCII.
const (
	IgnoreCase Flags = 1 << iota
	Multiline
	DotAll
	ASCII
)

// DefaultTimeout bounds one search (one match attempt over the whole
// input, as one step of findall): 2 seconds. Patterns of task files and
// official extractors take microseconds on a model response; a pattern
// that backtracks exponentially runs for years. The bound is far from
// both, so a loaded machine neither trips it by accident nor waits long.
const DefaultTimeout = 2 * time.Second

// maxBacktrack is regexp2's backtracking stack bound, in integer slots
// (8 bytes each): 1<<22 is 32 MiB, room for lazy quantifiers over
// responses of several hundred kilobytes.
const maxBacktrack = 1 << 22

// ErrTimeout is returned (wrapped) when a search exceeds its time bound.
var ErrTimeout = errors.New("regular expression timed out")

// Regexp is a compiled Python pattern. It is safe for concurrent use.
type Regexp struct {
	src    string
	re     *regexp2.Regexp
	groups int
}

// Compile translates and compiles a Python str pattern.
func Compile(pattern string, flags Flags) (*Regexp, error) {
	return compile(pattern, flags, DefaultTimeout)
}

// CompileTimeout is Compile with another time bound per search.
func CompileTimeout(pattern string, flags Flags, timeout time.Duration) (*Regexp, error) {
	return compile(pattern, flags, timeout)
}

// MustCompile is Compile that panics on error, for patterns in code.
func MustCompile(pattern string, flags Flags) *Regexp {
	re, err := Compile(pattern, flags)
	if err != nil {
		panic(err)
	}
	return re
}

func compile(pattern string, flags Flags, timeout time.Duration) (*Regexp, error) {
	t := &translator{src: pattern, ascii: flags&ASCII != 0, names: map[string]bool{}}
	net, err := t.translate()
	if err != nil {
		return nil, err
	}
	opts := regexp2.None
	if flags&IgnoreCase != 0 {
		opts |= regexp2.IgnoreCase
	}
	if flags&Multiline != 0 {
		opts |= regexp2.Multiline
	}
	if flags&DotAll != 0 {
		opts |= regexp2.Singleline
	}
	re, err := regexp2.Compile(net, opts, regexp2.OptionMaintainCaptureOrder(), regexp2.OptionMaxBacktrackingStackSize(maxBacktrack))
	if err != nil {
		return nil, &SyntaxError{Pattern: pattern, Pos: -1, Msg: err.Error()}
	}
	re.MatchTimeout = timeout
	return &Regexp{src: pattern, re: re, groups: t.groups}, nil
}

// String returns the Python pattern.
func (r *Regexp) String() string { return r.src }

// NumGroups is the number of capturing groups (Python's re.groups).
func (r *Regexp) NumGroups() int { return r.groups }

// Match is one match: the byte offsets of the whole match and of each
// group in the input, -1 for a group that did not participate.
type Match struct {
	s    string
	span [][2]int // [0] is the whole match
}

// Group returns group i's text ("" when it did not participate) and
// whether it participated.
func (m *Match) Group(i int) (string, bool) {
	sp := m.span[i]
	if sp[0] < 0 {
		return "", false
	}
	return m.s[sp[0]:sp[1]], true
}

// Span returns group i's byte offsets, (-1, -1) when it did not
// participate.
func (m *Match) Span(i int) (int, int) { return m.span[i][0], m.span[i][1] }

func (r *Regexp) wrap(err error, s string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, regexp2.ErrBacktrackingStackLimit) {
		return fmt.Errorf("regular expression %q on a %d-byte text: %w (backtracking stack limit)", r.src, len(s), ErrTimeout)
	}
	return fmt.Errorf("regular expression %q on a %d-byte text: %w after %v (catastrophic backtracking?)", r.src, len(s), ErrTimeout, r.re.MatchTimeout)
}

func (r *Regexp) convert(s string, m *regexp2.Match) *Match {
	out := &Match{s: s, span: make([][2]int, r.groups+1)}
	for i := 0; i <= r.groups; i++ {
		g := m.GroupByNumber(i)
		if g == nil || len(g.Captures) == 0 {
			out.span[i] = [2]int{-1, -1}
			continue
		}
		start, n := g.ByteRange()
		out.span[i] = [2]int{start, start + n}
	}
	return out
}

// Search is re.search: the first match anywhere, nil when none.
func (r *Regexp) Search(s string) (*Match, error) {
	m, err := r.re.FindStringMatch(s)
	if err != nil || m == nil {
		return nil, r.wrap(err, s)
	}
	return r.convert(s, m), nil
}

// FindAll returns every non-overlapping match, in order, as re.finditer
// yields them (an empty match may follow a non-empty one at the same
// position, as in Python 3.7 and later).
func (r *Regexp) FindAll(s string) ([]*Match, error) {
	var out []*Match
	m, err := r.re.FindStringMatch(s)
	for err == nil && m != nil {
		out = append(out, r.convert(s, m))
		m, err = r.re.FindNextMatch(m)
	}
	if err != nil {
		return nil, r.wrap(err, s)
	}
	return out, nil
}

// FindAllStrings is re.findall: per match, the whole match when the
// pattern has no group, else one string per group ("" for a group that
// did not participate).
func (r *Regexp) FindAllStrings(s string) ([][]string, error) {
	all, err := r.FindAll(s)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(all))
	for k, m := range all {
		if r.groups == 0 {
			g, _ := m.Group(0)
			out[k] = []string{g}
			continue
		}
		row := make([]string, r.groups)
		for i := range row {
			row[i], _ = m.Group(i + 1)
		}
		out[k] = row
	}
	return out, nil
}

// MatchString reports whether the pattern matches anywhere in s.
func (r *Regexp) MatchString(s string) (bool, error) {
	ok, err := r.re.MatchString(s)
	return ok, r.wrap(err, s)
}

// RemoveAll is re.sub(pattern, "", s): every match deleted.
func (r *Regexp) RemoveAll(s string) (string, error) {
	all, err := r.FindAll(s)
	if err != nil {
		return "", err
	}
	if len(all) == 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	last := 0
	for _, m := range all {
		start, end := m.Span(0)
		b = append(b, s[last:start]...)
		last = end
	}
	return string(append(b, s[last:]...)), nil
}
