package langdetect

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// goldenHeader is the first line of testdata/golden.jsonl.gz.
type goldenHeader struct {
	Texts       int                `json:"texts"`
	Records     int                `json:"records"`
	Differences map[string]float64 `json:"differences"`
}

// goldenRecord is one detection by langdetect 1.0.9 (gen_golden.py).
type goldenRecord struct {
	Src    string          `json:"src"`
	Family string          `json:"family"`
	I      int             `json:"i"`
	D      string          `json:"d"`
	Text   *string         `json:"text"`
	SHA    string          `json:"sha"`
	Seed   uint64          `json:"seed"`
	Ref    json.RawMessage `json:"ref"`
	Stock  string          `json:"stock"`
	Py312  string          `json:"py312"`
}

func readGolden(t testing.TB) (goldenHeader, []goldenRecord) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "golden.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var h goldenHeader
	var recs []goldenRecord
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Fatalf("golden header: %v", err)
			}
			continue
		}
		var r goldenRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("golden line %d: %v", n+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(recs) != h.Records {
		t.Fatalf("golden: %d records, header says %d", len(recs), h.Records)
	}
	return h, recs
}

// derive rebuilds a text from its source text exactly as gen_golden.py's
// derive() does.
func derive(text, d string) (string, error) {
	if d == "full" {
		return text, nil
	}
	kind, arg, _ := strings.Cut(d, ":")
	lines := strings.Split(text, "\n")
	switch kind {
	case "ascii_upper", "ascii_lower":
		b := []byte(text)
		for i, c := range b {
			if kind == "ascii_upper" && 'a' <= c && c <= 'z' {
				b[i] = c - 32
			} else if kind == "ascii_lower" && 'A' <= c && c <= 'Z' {
				b[i] = c + 32
			}
		}
		return string(b), nil
	case "drop_first_line":
		return strings.Join(lines[1:], "\n"), nil
	case "drop_last_line":
		return strings.Join(lines[:len(lines)-1], "\n"), nil
	case "line":
		k, err := strconv.Atoi(arg)
		if err != nil || k >= len(lines) {
			return "", fmt.Errorf("derivation %q of a %d-line text", d, len(lines))
		}
		return lines[k], nil
	case "words":
		k, err := strconv.Atoi(arg)
		if err != nil {
			return "", fmt.Errorf("derivation %q", d)
		}
		words := strings.Split(text, " ")
		return strings.Join(words[:min(k, len(words))], " "), nil
	}
	return "", fmt.Errorf("unknown derivation %q", d)
}

// sharedTexts reads the source texts gen_golden.py reads, by their path
// relative to ../shared ("datasets/..." honours $POCKETEVAL_DATA) and
// record index.
func sharedTexts(t testing.TB) map[string]map[int]string {
	t.Helper()
	datasets, conformance := sharedtest.Datasets(t), sharedtest.Conformance(t)
	out := map[string]map[int]string{}
	read := func(rel string, text func(line string) (string, bool)) {
		p := filepath.Join(conformance, strings.TrimPrefix(rel, "conformance/"))
		if after, ok := strings.CutPrefix(rel, "datasets/"); ok {
			p = filepath.Join(datasets, after)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := map[int]string{}
		for i, line := range strings.Split(string(b), "\n") {
			if s, ok := text(line); ok {
				m[i] = s
			}
		}
		out[rel] = m
	}
	field := func(name string) func(string) (string, bool) {
		return func(line string) (string, bool) {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) != nil {
				return "", false
			}
			s, ok := rec[name].(string)
			return s, ok
		}
	}
	read("conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl", field("response"))
	for _, lang := range []string{"en", "zh"} {
		read("datasets/mgsm/mgsm_"+lang+".tsv", func(line string) (string, bool) {
			if line == "" {
				return "", false
			}
			q, _, _ := strings.Cut(line, "\t")
			return q, true
		})
	}
	for _, name := range []string{"zh_local", "zh_mt", "en"} {
		read("datasets/ifeval_zh/marco_bench_mif/"+name+".jsonl", field("prompt"))
	}
	return out
}

func probsJSON(langs []Language, err error) string {
	if err == ErrNoFeatures {
		return `"error: No features in text."`
	}
	if err != nil {
		return fmt.Sprintf("%q", err.Error())
	}
	var b strings.Builder
	b.WriteString("[")
	for i, l := range langs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%q, %s]", l.Lang, strconv.FormatFloat(l.Prob, 'g', -1, 64))
	}
	b.WriteString("]")
	return b.String()
}

// sameAsGolden compares a detection with the golden one: the same labels
// and bit-identical probabilities, or the same error.
func sameAsGolden(langs []Language, err error, ref json.RawMessage) bool {
	var want any
	if json.Unmarshal(ref, &want) != nil {
		return false
	}
	switch w := want.(type) {
	case string:
		return err == ErrNoFeatures && w == "error: No features in text."
	case []any:
		if err != nil || len(w) != len(langs) {
			return false
		}
		for i, e := range w {
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 || pair[0] != langs[i].Lang {
				return false
			}
			p, ok := pair[1].(float64)
			if !ok || math.Float64bits(p) != math.Float64bits(langs[i].Prob) {
				return false
			}
		}
		return true
	}
	return false
}

// TestMatchesLangdetect is the differential test against langdetect 1.0.9
// itself (testdata/gen_golden.py): for every text of the golden file (the
// GPT-4 IFEval responses and variants and fragments of them, MGSM and
// Marco-Bench-MIF questions, the synthetic families of synthetic.py) and
// its seed, the port must return the same languages with bit-identical
// probabilities, or the same "No features in text." error; and Detect
// must name the first of those languages. With -short a third of the
// shared texts is checked.
func TestMatchesLangdetect(t *testing.T) {
	h, recs := readGolden(t)
	if h.Texts < 4000 || len(recs) < 5000 {
		t.Fatalf("golden has %d texts, %d records; want a few thousand", h.Texts, len(recs))
	}
	var shared map[string]map[int]string
	hasShared := false
	t.Run("shared", func(t *testing.T) {
		shared = sharedTexts(t)
		hasShared = true
	})
	detectors := map[uint64]*Detector{}
	var mismatches, detectMismatches, checked, synthetic int
	for n, r := range recs {
		var text string
		switch {
		case r.Text != nil:
			text = *r.Text
			synthetic++
		case !hasShared, testing.Short() && n%3 != 0:
			continue // -short checks a third of the shared texts
		default:
			src, ok := shared[r.Src][r.I]
			if !ok {
				t.Fatalf("record %d: %s record %d not found", n, r.Src, r.I)
			}
			var err error
			if text, err = derive(src, r.D); err != nil {
				t.Fatalf("record %d: %v", n, err)
			}
		}
		sum := sha256.Sum256([]byte(text))
		if got := hex.EncodeToString(sum[:8]); got != r.SHA {
			t.Fatalf("record %d (%s %d %s): text sha256 %s, golden %s: the derivation differs from gen_golden.py", n, r.Src, r.I, r.D, got, r.SHA)
		}
		d := detectors[r.Seed]
		if d == nil {
			d = New(r.Seed)
			detectors[r.Seed] = d
		}
		langs, err := d.Probabilities(text)
		checked++
		if !sameAsGolden(langs, err, r.Ref) {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("record %d (%s %d %s, seed %d) %.80q:\n got  %s\n want %s", n, r.Src, r.I, r.D, r.Seed, text, probsJSON(langs, err), r.Ref)
			}
		}
		// Detect stops its trials early when the answer is decided: it
		// must still name the first of all seven trials' languages.
		want := Unknown
		if len(langs) > 0 {
			want = langs[0].Lang
		}
		if got, derr := d.Detect(text); got != want && err == nil || (derr == nil) != (err == nil) {
			detectMismatches++
			if detectMismatches <= 10 {
				t.Errorf("record %d (%s %d %s, seed %d) %.80q: Detect %q (%v), Probabilities' first %q (%v)", n, r.Src, r.I, r.D, r.Seed, text, got, derr, want, err)
			}
		}
	}
	t.Logf("%d of %d golden detections checked (%d synthetic), %d differ; stock langdetect differs from the reference configuration in %d labels",
		checked, len(recs), synthetic, mismatches, int(h.Differences["stock_label"]))
}

// TestConcurrentDetection runs one Detector from several goroutines; every
// result must equal the sequential one (Detector is immutable).
func TestConcurrentDetection(t *testing.T) {
	texts := []string{
		"The committee met on Tuesday to review the budget.",
		"Die Stadt liegt an einem breiten Fluss.",
		"नेपाल हिमालयको काखमा रहेको एउटा सुन्दर देश हो।",
		"这是一个简体中文的句子，用来测试语言识别。",
	}
	d := New(0)
	want := make([]string, len(texts))
	for i, s := range texts {
		want[i] = probsJSON(d.Probabilities(s))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(texts)
				if got := probsJSON(New(0).Probabilities(texts[i])); got != want[i] {
					errs <- fmt.Sprintf("%q: %s, sequentially %s", texts[i], got, want[i])
				}
				if got := probsJSON(d.Probabilities(texts[i])); got != want[i] {
					errs <- fmt.Sprintf("%q: %s, sequentially %s", texts[i], got, want[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
