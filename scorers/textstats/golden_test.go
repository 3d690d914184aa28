package textstats

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestPunktMatchesNLTK compares Sentences and WordTokens with nltk's own
// implementation run on the same hand-written parameters
// (testdata/gen_nltk_golden.py): 1,000 seeded texts full of abbreviations,
// initials, ordinals, ellipses, quotes, brackets and contractions.
func TestPunktMatchesNLTK(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "punkt_nltk.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	n := 0
	for sc.Scan() {
		n++
		var rec struct {
			Text      string   `json:"text"`
			Sentences []string `json:"sentences"`
			Tokens    []string `json:"tokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		got := Sentences(rec.Text)
		if len(got) != 0 || len(rec.Sentences) != 0 {
			if !reflect.DeepEqual(got, rec.Sentences) {
				t.Errorf("line %d: Sentences(%q) = %q, nltk %q", n, rec.Text, got, rec.Sentences)
			}
		}
		toks := WordTokens(rec.Text)
		if len(toks) != 0 || len(rec.Tokens) != 0 {
			if !reflect.DeepEqual(toks, rec.Tokens) {
				t.Errorf("line %d: WordTokens(%q) = %q, nltk %q", n, rec.Text, toks, rec.Tokens)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Errorf("read %d golden records, want 1000", n)
	}
}
