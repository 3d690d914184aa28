package bfcl

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func shared(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not available", p)
	}
	return p
}

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(strings.TrimSpace(sc.Text())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

func field(t testing.TB, line []byte, name string) any {
	t.Helper()
	v, err := ParseJSON(line)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := v.(*Dict).Get(name)
	return x
}

// v2Category maps a published v2 result file to its data file and BFCL
// category.
var v2Files = map[string]string{
	"simple":                     "gorilla_openfunctions_v1_test_simple.json",
	"multiple_function":          "gorilla_openfunctions_v1_test_multiple_function.json",
	"parallel_function":          "gorilla_openfunctions_v1_test_parallel_function.json",
	"parallel_multiple_function": "gorilla_openfunctions_v1_test_parallel_multiple_function.json",
	"relevance":                  "gorilla_openfunctions_v1_test_relevance.json",
}

// TestConformance scores every published result in
// ../shared/conformance/bfcl with the V2 checker and requires each
// verdict — valid or not, and the error_type — to equal the official
// score file's, and the accuracy line to match.
func TestConformance(t *testing.T) {
	root := shared(t, "conformance", "bfcl")
	data := shared(t, "datasets", "bfcl", "v2")
	models, _ := os.ReadDir(root)
	total := 0
	for _, m := range models {
		fc := strings.HasSuffix(m.Name(), "-FC")
		c := Checker{Version: V2, DotsReplaced: fc}
		for _, cat := range slices.Sorted(maps.Keys(v2Files)) {
			resPath := filepath.Join(root, m.Name(), "result", cat+"_result.json")
			if _, err := os.Stat(resPath); err != nil {
				continue
			}
			results := readLines(t, resPath)
			prompts := readLines(t, filepath.Join(data, v2Files[cat]))
			var answers [][]byte
			if cat != "relevance" {
				answers = readLines(t, filepath.Join(data, "possible_answer", v2Files[cat]))
			}
			scores := readLines(t, filepath.Join(root, m.Name(), "score", cat+"_score.json"))
			official := map[int]string{}
			for _, s := range scores[1:] {
				var x struct {
					ID        int    `json:"id"`
					ErrorType string `json:"error_type"`
				}
				if err := json.Unmarshal(s, &x); err != nil {
					t.Fatal(err)
				}
				official[x.ID-1] = x.ErrorType
			}
			var head struct {
				Correct int `json:"correct_count"`
				Total   int `json:"total_count"`
			}
			_ = json.Unmarshal(scores[0], &head)
			correct := 0
			for i, line := range results {
				var answer any
				if answers != nil {
					answer = field(t, answers[i], "ground_truth")
				}
				v := c.Evaluate(cat, fc, field(t, prompts[i], "function"), answer, field(t, line, "result"))
				want, bad := official[i]
				total++
				if v.Valid {
					correct++
				}
				switch {
				case v.Valid && bad:
					t.Errorf("%s %s #%d: valid; official %s\n  result %s", m.Name(), cat, i+1, want, field(t, line, "result"))
				case !v.Valid && !bad:
					t.Errorf("%s %s #%d: %s %v; official: valid\n  result %s", m.Name(), cat, i+1, v.ErrorType, v.Errors, field(t, line, "result"))
				case !v.Valid && v.ErrorType != want:
					t.Errorf("%s %s #%d: %s, official %s", m.Name(), cat, i+1, v.ErrorType, want)
				}
			}
			if correct != head.Correct || len(results) != head.Total {
				t.Errorf("%s %s: %d of %d correct, official %d of %d", m.Name(), cat, correct, len(results), head.Correct, head.Total)
			}
		}
	}
	if total < 2000 {
		t.Errorf("only %d published verdicts checked", total)
	}
}
