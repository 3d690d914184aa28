// Package lazyre is a regular expression compiled on first use: a
// package-level expression declared with New costs nothing at program
// start (every command of the binary runs every package's init), only
// when it is first matched. The methods are those of *regexp.Regexp.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled, as by regexp.MustCompile, on
// first use. It is safe for concurrent use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns the expression expr, to be compiled on first use (which
// panics if expr does not compile; the tests of the command, which links
// every user, compile all of them through All). It is meant for
// package-level expressions: each one is kept in the list All returns.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	allMu.Lock()
	all = append(all, r)
	allMu.Unlock()
	return r
}

var (
	allMu sync.Mutex
	all   []*Regexp
)

// All returns every expression New has returned in this process, so that
// a test can check that all of them compile.
func All() []*Regexp {
	allMu.Lock()
	defer allMu.Unlock()
	return append([]*Regexp(nil), all...)
}

// Re returns the compiled expression.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// The methods below are those of *regexp.Regexp, on the compiled
// expression.

func (r *Regexp) MatchString(s string) bool            { return r.Re().MatchString(s) }
func (r *Regexp) FindString(s string) string           { return r.Re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int       { return r.Re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllString(s string, n int) []string { return r.Re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.Re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Re().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.Re().Split(s, n) }
func (r *Regexp) SubexpNames() []string          { return r.Re().SubexpNames() }
func (r *Regexp) NumSubexp() int                 { return r.Re().NumSubexp() }
