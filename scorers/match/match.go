// Package match provides string-match scorers for short answers:
//
//   - Exact is lm-evaluation-harness's exact_match (ported there from
//     Hugging Face evaluate): regexes_to_ignore are deleted from both
//     strings in order, then optional lower-casing, removal of ASCII
//     punctuation (Python's string.punctuation) and of ASCII digits, then
//     string equality.
//   - Normalized compares answers after Normalize, for free-form text in
//     any script.
//   - Prefix is the keyword-completion check: does the normalised
//     prediction start with the normalised target?
//
// regexes_to_ignore are Python regular expressions with Python's re
// semantics (scorers/pyre: lookaround, backreferences, Unicode \w),
// each deletion bounded in time.
package match

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/pocketeval/pocketeval/scorers/pyre"
)

// ExactOptions are lm-eval's exact_match keyword arguments. The zero value
// is plain string equality.
type ExactOptions struct {
	IgnoreCase        bool
	IgnorePunctuation bool
	IgnoreNumbers     bool
	// RegexesToIgnore are deleted from prediction and reference, in order.
	RegexesToIgnore []*pyre.Regexp
}

// CompileRegexes compiles lm-eval regexes_to_ignore patterns (Python re
// syntax).
func CompileRegexes(patterns []string) ([]*pyre.Regexp, error) {
	out := make([]*pyre.Regexp, len(patterns))
	for i, p := range patterns {
		re, err := pyre.Compile(p, 0)
		if err != nil {
			return nil, fmt.Errorf("regexes_to_ignore[%d] %q: %w", i, p, err)
		}
		out[i] = re
	}
	return out, nil
}

// Exact reports whether prediction equals reference under the options.
// The error is a regexes_to_ignore deletion that exceeded its time bound
// (pyre.ErrTimeout).
func (o ExactOptions) Exact(prediction, reference string) (bool, error) {
	p, err := o.apply(prediction)
	if err != nil {
		return false, err
	}
	r, err := o.apply(reference)
	if err != nil {
		return false, err
	}
	return p == r, nil
}

func (o ExactOptions) apply(s string) (string, error) {
	for _, re := range o.RegexesToIgnore {
		var err error
		if s, err = re.RemoveAll(s); err != nil {
			return "", err
		}
	}
	if o.IgnoreCase {
		s = strings.ToLower(s)
	}
	if o.IgnorePunctuation {
		s = strings.Map(func(r rune) rune {
			if r < 0x80 && strings.ContainsRune(asciiPunctuation, r) {
				return -1
			}
			return r
		}, s)
	}
	if o.IgnoreNumbers {
		s = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	return s, nil
}

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// Normalize folds an answer for comparison: full-width ASCII forms and the
// ideographic space become their ASCII equivalents, letters are lowered,
// Unicode punctuation and symbols (categories P and S) are removed, the
// English articles "a", "an" and "the" are dropped as whole words, and runs
// of white space become one space, trimmed. On ASCII text this is SQuAD's
// normalize_answer.
func Normalize(s string) string {
	s = strings.Map(func(r rune) rune {
		r = FoldWidth(r)
		if unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	words := strings.FieldsFunc(s, unicode.IsSpace)
	out := words[:0]
	for _, w := range words {
		if w != "a" && w != "an" && w != "the" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// FoldWidth maps a full-width ASCII form (U+FF01–U+FF5E) to its ASCII
// character and the ideographic space to a space; other runes are
// returned as they are.
func FoldWidth(r rune) rune {
	switch {
	case r >= 0xff01 && r <= 0xff5e:
		return r - 0xfee0
	case r == 0x3000:
		return ' '
	}
	return r
}

// Normalized reports whether the normalised prediction equals the
// normalised reference.
func Normalized(prediction, reference string) bool {
	return Normalize(prediction) == Normalize(reference)
}

// Prefix reports whether the normalised prediction starts with the
// normalised target, at a word boundary for text with spaces ("new york"
// is a prefix of "new york city", not of "new yorker"). An empty target
// never matches.
func Prefix(prediction, target string) bool {
	p, t := Normalize(prediction), Normalize(target)
	if t == "" || !strings.HasPrefix(p, t) {
		return false
	}
	if len(p) == len(t) {
		return true
	}
	last, _ := lastRune(t)
	next := []rune(p[len(t):])[0]
	// Between two letters or digits of a spaced script, the target ended
	// inside a word.
	return !(isWordRune(last) && isWordRune(next))
}

func lastRune(s string) (rune, bool) {
	rs := []rune(s)
	if len(rs) == 0 {
		return 0, false
	}
	return rs[len(rs)-1], true
}

// isWordRune is a letter or digit of a script written with spaces between
// words; Han, Hiragana, Katakana and Hangul characters are words of their
// own.
func isWordRune(r rune) bool {
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
