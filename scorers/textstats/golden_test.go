package textstats

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestPunktMatchesNLTK compares Sentences and WordTokens with nltk's own
// implementation run with its pretrained English model
// (testdata/gen_nltk_golden.py, which checks that the parameters of
// punkt_english.tsv split as the model's pickle does): 1,000 seeded texts
// full of abbreviations, initials, ordinals, ellipses, quotes, brackets
// and contractions.
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

// TestPunktMatchesNLTKOnConformance compares Sentences and WordTokens with
// nltk's pretrained English model on natural text: the prompts and
// responses of the shared IFEval conformance file and three loose variants
// of each response, 2,705 texts. testdata/punkt_conformance.json holds
// nltk's sentence counts and hashes of its sentences and tokens
// (testdata/gen_nltk_conformance.py); the texts are read from the shared
// file.
func TestPunktMatchesNLTKOnConformance(t *testing.T) {
	var golden struct {
		Source  string `json:"source"`
		Records []struct {
			Line      int    `json:"line"`
			Variant   string `json:"variant"`
			Sentences int    `json:"sentences"`
			SentHash  string `json:"sentences_sha256"`
			TokHash   string `json:"tokens_sha256"`
		} `json:"records"`
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "punkt_conformance.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	type key struct {
		line    int
		variant string
	}
	texts := map[key]string{}
	f, err := os.Open(filepath.Join(sharedtest.Conformance(t), "ifeval", golden.Source))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var rec struct{ Prompt, Response string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s line %d: %v", golden.Source, n, err)
		}
		lines := strings.Split(rec.Response, "\n")
		texts[key{n, "prompt"}] = rec.Prompt
		texts[key{n, "response"}] = rec.Response
		texts[key{n, "no_first_line"}] = strings.Join(lines[1:], "\n")
		texts[key{n, "no_last_line"}] = strings.Join(lines[:len(lines)-1], "\n")
		texts[key{n, "no_asterisks"}] = strings.ReplaceAll(rec.Response, "*", "")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	digest := func(items []string) string {
		sum := sha256.Sum256([]byte(strings.Join(items, "\x00")))
		return hex.EncodeToString(sum[:])[:16]
	}
	bad := 0
	for _, g := range golden.Records {
		text, ok := texts[key{g.Line, g.Variant}]
		if !ok {
			t.Fatalf("%s has no line %d", golden.Source, g.Line)
		}
		sents := Sentences(text)
		if len(sents) != g.Sentences || digest(sents) != g.SentHash || digest(WordTokens(text)) != g.TokHash {
			bad++
			if bad <= 5 {
				t.Errorf("line %d %s: %d sentences %q, nltk %d", g.Line, g.Variant, len(sents), sents, g.Sentences)
			}
		}
	}
	if bad > 0 || len(golden.Records) != 2705 {
		t.Errorf("%d of %d texts split or tokenized unlike nltk (want 0 of 2705)", bad, len(golden.Records))
	}
}

// TestCountWordTokens checks that CountWordTokens is min(count, limit) of
// the upper-case tokens of WordTokens, for every limit around the count,
// on the responses of the shared IFEval conformance file.
func TestCountWordTokens(t *testing.T) {
	f, err := os.Open(filepath.Join(sharedtest.Conformance(t), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var rec struct{ Response string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		count := 0
		for _, tok := range WordTokens(rec.Response) {
			if IsUpper(tok) {
				count++
			}
		}
		for _, limit := range []int{-1, 0, 1, 2, count - 1, count, count + 1, 1 << 30} {
			if got, want := CountWordTokens(rec.Response, IsUpper, limit), max(0, min(count, limit)); got != want {
				t.Fatalf("line %d: CountWordTokens(limit %d) = %d, want %d", n, limit, got, want)
			}
		}
	}
}
