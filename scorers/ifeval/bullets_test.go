package ifeval

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func checkCountBullets(t *testing.T, s string) {
	t.Helper()
	if got, want := countBullets(s, '*'), len(bulletStarRE().FindAllStringIndex(s, -1)); got != want {
		t.Fatalf("countBullets(%q, '*') = %d, the expression finds %d", s, got, want)
	}
	if got, want := countBullets(s, '-'), len(bulletDashRE().FindAllStringIndex(s, -1)); got != want {
		t.Fatalf("countBullets(%q, '-') = %d, the expression finds %d", s, got, want)
	}
}

// TestCountBullets compares the scan with the official expressions on edge
// cases, the GPT-4 responses and their loose variants, and seeded random
// texts.
func TestCountBullets(t *testing.T) {
	for _, s := range []string{
		"", "*", "**", "*\n", "*\n\n", "* a\n* b\n", "\n\n  * a\n-b\n - c", "*\n*\n*", "-", "-\n-", "a\n -\n",
		"\u3000* x", "*\xff", "\xff* x", "  \n  *\n  * \n", "**bold**\n* item", "--\n---",
	} {
		checkCountBullets(t, s)
	}
	for _, c := range loadConformance(t) {
		for _, v := range LooseVariants(c.response) {
			checkCountBullets(t, v)
		}
	}
	alphabet := []string{"*", "*", "-", " ", "\n", "\n", "\u3000", "a", "\xff", "\t"}
	r := rand.New(rand.NewPCG(5, 6))
	n := 500_000
	if testing.Short() {
		n = 50_000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range r.IntN(14) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		checkCountBullets(t, b.String())
	}
}

func FuzzCountBullets(f *testing.F) {
	f.Add("Intro\n* one\n* two\n- three\n  -four\n")
	f.Add("\n\n*\n**\n* \n")
	f.Fuzz(checkCountBullets)
}

// BenchmarkCountBullets counts the bullets of the 540 GPT-4 responses with
// the scan ("scan") and with the official expressions ("regexp").
func BenchmarkCountBullets(b *testing.B) {
	cases := loadConformance(b)
	for _, impl := range []struct {
		name  string
		count func(string) int
	}{
		{"scan", func(s string) int { return countBullets(s, '*') + countBullets(s, '-') }},
		{"regexp", func(s string) int {
			return len(bulletStarRE().FindAllStringIndex(s, -1)) + len(bulletDashRE().FindAllStringIndex(s, -1))
		}},
	} {
		b.Run(impl.name, func(b *testing.B) {
			for range b.N {
				for _, c := range cases {
					impl.count(c.response)
				}
			}
		})
	}
}
