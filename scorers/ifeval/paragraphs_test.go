package ifeval

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func checkSplitParagraphs(t *testing.T, s string) {
	t.Helper()
	want := paragraphDivider().Split(s, -1)
	if got := splitParagraphs(s); !slices.Equal(got, want) {
		t.Fatalf("splitParagraphs(%q) = %q, the expression gives %q", s, got, want)
	}
}

// TestSplitParagraphs compares the scan with the expression it replaces
// on edge cases and a million seeded random texts over the characters
// that matter (stars, ASCII and Unicode whitespace, invalid UTF-8).
func TestSplitParagraphs(t *testing.T) {
	for _, s := range []string{
		"", "***", "****", "*****", "******", " *** ", "\n\n***\n\n", "a***b", "a *** b *** c",
		"a\u3000***\u00a0b", "a\xff***\xffb", "*** ***", " ******* ", "a\n***\n***\nb", "**", "* * *",
	} {
		checkSplitParagraphs(t, s)
	}
	alphabet := []string{"*", "*", "*", " ", "\n", "\u3000", "\u00a0", "\x85", "a", "é", "\xff", "\x1c"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 1_000_000
	if testing.Short() {
		n = 50_000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range r.IntN(16) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		checkSplitParagraphs(t, b.String())
	}
}

func FuzzSplitParagraphs(f *testing.F) {
	f.Add("first *** second\n***\nthird")
	f.Add(" ******\u3000**** ")
	f.Fuzz(checkSplitParagraphs)
}

// BenchmarkSplitParagraphs splits the 540 GPT-4 responses on *** with the
// scan ("scan") and with the expression it replaces ("regexp").
func BenchmarkSplitParagraphs(b *testing.B) {
	cases := loadConformance(b)
	for _, impl := range []struct {
		name  string
		split func(string) []string
	}{
		{"scan", splitParagraphs},
		{"regexp", func(s string) []string { return paragraphDivider().Split(s, -1) }},
	} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				for _, c := range cases {
					impl.split(c.response)
				}
			}
		})
	}
}
