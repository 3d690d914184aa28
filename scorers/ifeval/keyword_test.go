package ifeval

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

// checkKeyword compares the keyword's answers on s with the regular
// expression's.
func checkKeyword(t *testing.T, pattern, s string) {
	t.Helper()
	checkCompiled(t, pattern, newKeyword(pattern), compilePy("(?i)", pattern, ""), s)
}

func checkCompiled(t *testing.T, pattern string, k *keyword, re *regexp.Regexp, s string) {
	t.Helper()
	var tf textFold
	if got, want := k.containsIn(&tf, s), re.MatchString(s); got != want {
		t.Errorf("pattern %q in %q: contains %v, regexp %v", pattern, s, got, want)
	}
	if got, want := k.count(s), len(re.FindAllStringIndex(s, -1)); got != want {
		t.Errorf("pattern %q in %q: count %d, regexp %d", pattern, s, got, want)
	}
	if got, want := k.bounded(s), findBounded(re, s); got != want {
		t.Errorf("pattern %q in %q: bounded %v, regexp %v", pattern, s, got, want)
	}
}

// TestKeywordFastPath: the ASCII search gives the regular expression's
// answers, for every keyword and forbidden word of IFEval on every
// official response and its loose variants, and on texts with the letters
// that fold to ASCII ones.
func TestKeywordFastPath(t *testing.T) {
	cases := loadConformance(t)
	var patterns []string
	for _, c := range cases {
		for j, id := range c.in.InstructionIDList {
			kw := kwargs(c.in.Kwargs[j])
			switch id {
			case "keywords:existence":
				ws, _ := kw.strings(id, "keywords")
				patterns = append(patterns, ws...)
			case "keywords:forbidden_words":
				ws, _ := kw.strings(id, "forbidden_words")
				patterns = append(patterns, ws...)
			case "keywords:frequency":
				w, _ := kw.str(id, "keyword")
				patterns = append(patterns, w)
			}
		}
	}
	if len(patterns) < 100 {
		t.Fatalf("only %d patterns", len(patterns))
	}
	keywords := make([]*keyword, len(patterns))
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		keywords[i], res[i] = newKeyword(p), compilePy("(?i)", p, "")
	}
	n := 0
	for _, c := range cases {
		for _, v := range LooseVariants(c.response)[:4] {
			for range 6 {
				i := n % len(patterns)
				checkCompiled(t, patterns[i], keywords[i], res[i], v)
				n += 7
			}
		}
	}
	for _, s := range []string{
		"KISS the \u212aiss, ſmile ſ İstanbul ıs issue Is", "kiss smile sistanbul", "ASK ask Ask aSK", "Is it? is-it is_it",
		"", "café-ski über SKI", "the thesis is his", "sss ssss s", "I-I-I", "k\u212a",
	} {
		for _, p := range []string{"kiss", "smile", "is", "s", "ask", "ski", "ss", "I", "it", "k", "the thesis", "a.b", "c++", "İs"} {
			checkKeyword(t, p, s)
		}
	}
}

// FuzzKeyword: the same on any pattern and text.
func FuzzKeyword(f *testing.F) {
	f.Add("kiss", "KISS the \u212aiss ſmile İstanbul")
	f.Add("is", "Is it? this is his isle")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !utf8.ValidString(pattern) {
			t.Skip("kwargs decoded from JSON are valid UTF-8")
		}
		checkKeyword(t, pattern, s)
	})
}
