package langdetect

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// prepareSteps is prepare written as langdetect writes it, one step after
// the other: normalize_vi over the whole text, then Detector.append's loop
// over its first 10,000 characters, then cleaning_text.
func (m *model) prepareSteps(text string) []rune {
	text = removeMails(removeURLs(text))
	var vi []rune
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) && 0x0300 <= rs[i+1] && rs[i+1] <= 0x0323 {
			if mark, base := indexRune(m.viMarks, rs[i+1]), indexRune(m.viBase, rs[i]); mark >= 0 && base >= 0 {
				vi = append(vi, m.viChars[mark][base])
				i++
				continue
			}
		}
		vi = append(vi, rs[i])
	}
	var out []rune
	pre := rune(0)
	for _, ch := range vi[:min(len(vi), maxTextLength)] {
		if ch != ' ' || pre != ' ' {
			out = append(out, ch)
		}
		pre = ch
	}
	latin, nonLatin := 0, 0
	for _, ch := range out {
		if 'A' <= ch && ch <= 'z' {
			latin++
		} else if ch >= 0x0300 {
			nonLatin++
		}
	}
	if latin*2 < nonLatin {
		out = slices.DeleteFunc(out, func(ch rune) bool { return 'A' <= ch && ch <= 'z' })
	}
	return out
}

// TestPrepareSteps compares prepare with prepareSteps on the GPT-4 IFEval
// responses and on random texts of Vietnamese vowels, combining marks,
// spaces, Cyrillic, URLs and invalid UTF-8, some longer than 10,000
// characters (so that the cut falls before, on and after a mark).
func TestPrepareSteps(t *testing.T) {
	m, err := loadModel()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	pieces := []string{"a", "e", "o", "A", "\u00ea", "\u01a1", "\u0300", "\u0301", "\u0303", "\u0309", "\u0323", "\u0302",
		" ", "  ", "x", "Z", "\u043f", "\u0436", "\xff", "http://a.b ", "b@c.de ", "\u4e2d"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		n := rng.IntN(40)
		if i%100 == 0 {
			n = 9990 + rng.IntN(20)
		}
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	compare := func() {
		t.Helper()
		for _, s := range texts {
			if got, want := m.prepare(s, nil), m.prepareSteps(s); !slices.Equal(got, want) {
				t.Fatalf("prepare(%.80q...) = %.80q, want %.80q", s, string(got), string(want))
			}
		}
	}
	compare()
	texts = texts[:0]
	f, err := os.Open(filepath.Join(sharedtest.Conformance(t), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct{ Response string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, r.Response)
	}
	compare()
}

// BenchmarkPrepare cleans the 541 GPT-4 IFEval responses (prepare, the
// first step of every detection).
func BenchmarkPrepare(b *testing.B) {
	m, err := loadModel()
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join(sharedtest.Conformance(b), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct{ Response string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, r.Response)
	}
	var out []rune
	for b.Loop() {
		for _, s := range texts {
			out = m.prepare(s, out[:0])
		}
	}
}
