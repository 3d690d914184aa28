package textstats

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// upperTokens counts the upper-case tokens of WordTokens(s), the reference
// of CountUpperTokens.
func upperTokens(s string) int {
	n := 0
	for _, tok := range WordTokens(s) {
		if IsUpper(tok) {
			n++
		}
	}
	return n
}

// upperChunks counts the upper-case chunks of Fields(s).
func upperChunks(s string) int {
	n := 0
	for _, c := range Fields(s) {
		if IsUpper(c) {
			n++
		}
	}
	return n
}

// checkUpperTokens checks, for s, that the upper-case chunks are a lower
// bound of the upper-case tokens, that upperChunksReach agrees with the
// chunks, and that CountUpperTokens is min(count, limit) (what
// CountWordTokens(s, IsUpper, limit) is, TestCountWordTokens) for the
// limits around the count and the number of chunks.
func checkUpperTokens(t *testing.T, s string) {
	t.Helper()
	count, chunks := upperTokens(s), upperChunks(s)
	if chunks > count {
		t.Fatalf("%q: %d upper-case chunks but %d upper-case tokens", s, chunks, count)
	}
	seen := map[int]bool{}
	for _, limit := range []int{-1, 0, 1, 2, chunks, chunks + 1, count, count + 1} {
		if seen[limit] {
			continue
		}
		seen[limit] = true
		if limit >= 1 {
			if got, want := upperChunksReach(s, limit), chunks >= limit; got != want {
				t.Fatalf("upperChunksReach(%q, %d) = %v, want %v", s, limit, got, want)
			}
		}
		if got, want := CountUpperTokens(s, limit), max(0, min(count, limit)); got != want {
			t.Fatalf("CountUpperTokens(%q, %d) = %d, want %d", s, limit, got, want)
		}
	}
}

// TestCountUpperTokens runs checkUpperTokens on the responses of the
// shared IFEval conformance file and on their loose variants (without
// '*', without the first line, the last line, both, and those without
// '*'), the texts capital_word_frequency judges.
func TestCountUpperTokens(t *testing.T) {
	texts := 0
	for _, r := range conformanceResponses(t) {
		lines := strings.Split(r, "\n")
		join := func(ls []string) string { return Strip(strings.Join(ls, "\n")) }
		variants := []string{r, join(lines[1:]), join(lines[:len(lines)-1])}
		if len(lines) >= 2 {
			variants = append(variants, join(lines[1:len(lines)-1]))
		}
		for _, v := range variants {
			checkUpperTokens(t, v)
			checkUpperTokens(t, strings.ReplaceAll(v, "*", ""))
			texts += 2
		}
	}
	if texts < 541*6 {
		t.Fatalf("checked %d texts, want at least %d", texts, 541*6)
	}
}

// upperPieces are what the random texts are made of: upper- and
// lower-case words, titlecase and other-case letters, contractions,
// abbreviations, sentence ends, quotes, brackets and spaces.
var upperPieces = []string{"A", "I", "US", "U.S.", "NASA", "DON'T", "CAN", "NOT", "CANNOT", "'S", "'s", "N'T", "n't", "GONNA", "'TIS",
	"the", "Hello", "a", "ǅ", "ǆ", "Ǆ", "Ⅻ", "ⅻ", "Ⓐ", "ª", "ΣΑ", "σ", "İ", "ß", "ẞ", "中", "1", "3.5",
	".", ". ", "..", "...", "?", "!", "\"", "''", "``", "'", "“", "”", "‘", "’", "«", "»", "(", ")", "[", "]", "{", "}", "<", ">",
	",", ":", ";", "-", "--", "*", "&", "@", "#", "$", "%", "/",
	" ", " ", " ", "  ", "\n", "\n\n", "\t", "\u00a0", "\u2003", "\x1c", "\x00", "\xff", "Mr.", "Dr.", "e.g.", "Jan.", "No."}

// TestCountUpperTokensRandom runs checkUpperTokens on seeded random texts.
func TestCountUpperTokensRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(upperPieces[r.IntN(len(upperPieces))])
		}
		checkUpperTokens(t, b.String())
	}
}

// FuzzCountUpperTokens: CountUpperTokens counts as CountWordTokens does.
func FuzzCountUpperTokens(f *testing.F) {
	for _, s := range []string{
		"HELLO WORLD. THIS IS NASA'S U.S. TEAM. DON'T STOP.",
		`He said, "DON'T go," and 'TIS done... (REALLY?) [YES] {no} <B> --OK-- 3,000 A:B C: `,
		"ǅ Ǆ ǆ Ⅻ ⅻ Ⓐ ª ΣΑ İ ẞ 中 A中 a中 Mr. SMITH. Dr. WHO? E.G. JAN. 5",
		"A.)B \"C\" 'D' “E” ‘F’ «G» CANNOT GONNA WANNA MORE'N D'YE",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUpperTokens(t, s)
	})
}

// conformanceResponses reads the responses of the shared IFEval
// conformance file.
func conformanceResponses(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join(sharedtest.Conformance(tb), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var out []string
	for sc.Scan() {
		var rec struct{ Response string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatal(err)
		}
		out = append(out, rec.Response)
	}
	return out
}

// BenchmarkCountUpperTokens counts the upper-case tokens of the 541
// conformance responses up to a limit of 3 and of 10, with the chunk bound
// (fast) and by tokenizing (CountWordTokens).
func BenchmarkCountUpperTokens(b *testing.B) {
	texts := conformanceResponses(b)
	for _, limit := range []int{3, 10} {
		b.Run(fmt.Sprintf("fast/limit%d", limit), func(b *testing.B) {
			for range b.N {
				for _, s := range texts {
					CountUpperTokens(s, limit)
				}
			}
		})
		b.Run(fmt.Sprintf("tokenize/limit%d", limit), func(b *testing.B) {
			for range b.N {
				for _, s := range texts {
					CountWordTokens(s, IsUpper, limit)
				}
			}
		})
	}
}
