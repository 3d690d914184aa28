package ifeval

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// fastMatchTexts are the GPT-4 responses, their loose variants and seeded
// random texts over the characters the expressions care about.
func fastMatchTexts(t *testing.T) []string {
	var texts []string
	for _, c := range loadConformance(t) {
		texts = append(texts, LooseVariants(c.response)...)
	}
	alphabet := []string{"p", "P", ".", "s", "S", " ", "\n", "\u3000", "1", "٣", "SECTION", "Section", "Day", "x", "note", "*"}
	r := rand.New(rand.NewPCG(3, 4))
	n := 50_000
	if testing.Short() {
		n = 10_000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	return texts
}

// TestFastMatchers compares the postscript and section checks with the
// official expressions they stand for, on the markers and splitters of
// the dataset and a few others (plain text, expression syntax, empty).
func TestFastMatchers(t *testing.T) {
	texts := fastMatchTexts(t)
	for _, marker := range []string{"P.P.S", "P.S.", "P.S", "Note", "note:", "", "p+s", "?x"} {
		fast, official := postscriptMatcher(marker), postscriptRE(marker)
		for _, s := range texts {
			if got, want := fast(s), official.MatchString(textstats.Lower(s)); got != want {
				t.Fatalf("postscript %q on %q: %v, the official expression says %v", marker, s, got, want)
			}
		}
	}
	for _, spliter := range []string{"SECTION", "Section", "Day", "PARAGRAPH", "Audience", "Part X", "S", "1"} {
		c, err := buildMultipleSections("detectable_format:multiple_sections", kwargs{"section_spliter": spliter, "num_sections": float64(1)}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		official := sectionRE(spliter)
		for _, s := range texts {
			want := len(official.FindAllStringIndex(s, -1))
			for _, n := range []int{want, want + 1} {
				c, _ := buildMultipleSections("detectable_format:multiple_sections", kwargs{"section_spliter": spliter, "num_sections": float64(n)}, Config{})
				if got := c.Check(s); got != (want >= n) {
					t.Fatalf("sections %q (at least %d) on %q: %v, the official expression counts %d", spliter, n, s, got, want)
				}
			}
		}
		_ = c
	}
}
