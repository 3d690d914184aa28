package taskfile

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// Python hooks of lm-eval's task modules that pocketeval runs natively.
// A `!function module.fn` tag names a function in module.py next to the
// task file; the hooks below are the pure functions of well-known modules,
// identified by module and function name and reimplemented in Go with the
// same results (hooks_test.go compares them with lm-eval's Python on
// golden inputs). Any other `!function` is refused.

// hook is one natively implemented Python hook.
type hook struct {
	field string // the only key it may be given for
	// doc is a doc_to_* hook: the document to a value.
	doc func(doc pyvalue.Value) (pyvalue.Value, error)
	// counts is a process_results hook of a loglikelihood_rolling task:
	// the document to the word and byte counts its perplexities divide by.
	counts func(doc pyvalue.Value) (words, bytes int, err error)
}

// hooks are the native hooks by "module.function".
var hooks = map[string]hook{
	// lm_eval/tasks/wikitext/preprocess_wikitext.py
	"preprocess_wikitext.wikitext_detokenizer": {field: "doc_to_target", doc: func(doc pyvalue.Value) (pyvalue.Value, error) {
		page, err := pageOf(doc)
		return pyvalue.NewString(wikitextDetokenize(page)), err
	}},
	"preprocess_wikitext.process_results": {field: "process_results", counts: func(doc pyvalue.Value) (int, int, error) {
		// wikitext counts the words and bytes of the page before
		// detokenization.
		page, err := pageOf(doc)
		return countWords(page), len(page), err
	}},
}

// hookNames lists the native hooks for error messages.
func hookNames() string {
	var out []string
	for name, h := range hooks {
		out = append(out, h.field+": !function "+name)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// nativeHook returns the native hook a `!function` node names for key,
// or an error naming file, line and key.
func nativeHook(file, key string, n *yaml.Node) (hook, error) {
	h, ok := hooks[n.Value]
	if !ok || h.field != key {
		return hook{}, &Error{File: file, Line: n.Line, Field: key, Err: fmt.Errorf("!function %s is a Python hook (pocketeval runs only these natively: %s): %w", n.Value, hookNames(), ErrUnsupported)}
	}
	return h, nil
}

// pageOf is doc["page"] as a string.
func pageOf(doc pyvalue.Value) (string, error) {
	v, ok := doc.AsDict().Get("page")
	if !ok {
		return "", fmt.Errorf("the document has no field %q", "page")
	}
	if !v.IsString() {
		return "", fmt.Errorf("field %q is %s, not a string", "page", pyvalue.Repr(v))
	}
	return v.AsString(), nil
}

// pyS is Python's \s in a str pattern: the characters str.isspace()
// accepts (Go's \s is ASCII only and lacks \v).
const pyS = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// The bracket rules of wikitext_detokenizer: an opening character, spaces,
// the shortest run without the closing character, spaces, the closing
// character; the spaces are dropped. Go's regexp picks the submatches a
// backtracking engine (Python's re) picks.
var wikitextBrackets = []struct {
	re   *lazyre.Regexp
	l, r string
}{
	{lazyre.New(`\(` + pyS + `*([^)]*?)` + pyS + `*\)`), "(", ")"},
	{lazyre.New(`\[` + pyS + `*([^\]]*?)` + pyS + `*\]`), "[", "]"},
	{lazyre.New(`\{` + pyS + `*([^}]*?)` + pyS + `*\}`), "{", "}"},
	{lazyre.New(`"` + pyS + `*([^"]*?)` + pyS + `*"`), `"`, `"`},
	{lazyre.New(`'` + pyS + `*([^']*?)` + pyS + `*'`), "'", "'"},
}

// wikitextContraction is re.sub(r"/' [0-9]/", r"/'[0-9]/", s): the
// replacement is the literal text /'[0-9]/.
var wikitextContraction = lazyre.New(`/' [0-9]/`)

// wikitextDetokenize is lm-eval's preprocess_wikitext.wikitext_detokenizer
// on the page text: its literal replacements (str.replace, all
// non-overlapping occurrences from the left) and regular expressions, in
// its order.
func wikitextDetokenize(s string) string {
	rep := func(old, new string) { s = strings.ReplaceAll(s, old, new) }
	// contractions
	rep("s '", "s'")
	s = wikitextContraction.ReplaceAllLiteralString(s, `/'[0-9]/`)
	// number separators
	rep(" @-@ ", "-")
	rep(" @,@ ", ",")
	rep(" @.@ ", ".")
	// punctuation
	for _, p := range []string{":", ";", ".", "!", "?", ","} {
		rep(" "+p+" ", p+" ")
	}
	// double brackets
	for _, b := range wikitextBrackets {
		s = b.re.ReplaceAllString(s, b.l+"${1}"+b.r)
	}
	// miscellaneous
	rep("= = = =", "====")
	rep("= = =", "===")
	rep("= =", "==")
	rep(" \u00b0 ", "\u00b0")
	rep(" \n", "\n")
	rep("\n ", "\n")
	rep(" N ", " 1 ")
	rep(" 's", "'s")
	return s
}
