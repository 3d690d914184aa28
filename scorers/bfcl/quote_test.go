package bfcl

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestQuoteMatchesReplacer checks quote's escaping loop against the
// strings.Replacer it replaces, on random strings of the bytes it treats.
func TestQuoteMatchesReplacer(t *testing.T) {
	ref := func(s string) string {
		q := "'"
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			q = `"`
		}
		r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, q, `\`+q)
		return q + r.Replace(s) + q
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{`\`, "\n", "\r", "\t", "'", `"`, "a", " ", "é", "\xff", "日"}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if got, want := quote(b.String()), ref(b.String()); got != want {
			t.Fatalf("quote(%q) = %s, want %s", b.String(), got, want)
		}
	}
}
