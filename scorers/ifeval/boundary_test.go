package ifeval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// boundaryCase is one case of testdata/boundary_verdicts.json
// (testdata/gen_boundary.py): a GPT-4 response of the shared conformance
// set edited to sit on a checker's decision boundary, and the official
// strict and loose verdicts for langdetect seeds 0 to 4 (one list of
// per-instruction verdicts per seed).
type boundaryCase struct {
	Family            string            `json:"family"`
	Note              string            `json:"note"`
	Src               int               `json:"src"`
	Ops               []json.RawMessage `json:"ops"`
	SHA256            string            `json:"sha256"`
	FromKey           *int              `json:"from_key"`
	InstructionIDList []string          `json:"instruction_id_list"`
	Kwargs            []map[string]any  `json:"kwargs"`
	RandomKwarg       []int             `json:"random_kwarg"`
	Strict            [][]bool          `json:"strict"`
	Loose             [][]bool          `json:"loose"`
}

// applyEdit replays one edit of gen_boundary.py on text.
func applyEdit(text string, raw json.RawMessage) (string, error) {
	var op []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&op); err != nil || len(op) == 0 {
		return "", fmt.Errorf("edit %s: not a non-empty list", raw)
	}
	str := func(i int) string { s, _ := op[i].(string); return s }
	num := func(i int) int { n, _ := op[i].(json.Number).Int64(); return int(n) }
	mapASCII := func(from, to byte) string {
		b := []byte(text)
		for i, c := range b {
			if c >= from && c <= from+25 {
				b[i] = c - from + to
			}
		}
		return string(b)
	}
	switch name := str(0); {
	case name == "slice" && len(op) == 3:
		return text[num(1):num(2)], nil
	case name == "insert" && len(op) == 3:
		return text[:num(1)] + str(2) + text[num(1):], nil
	case name == "append" && len(op) == 2:
		return text + str(1), nil
	case name == "prepend" && len(op) == 2:
		return str(1) + text, nil
	case name == "replace" && len(op) == 3:
		return strings.ReplaceAll(text, str(1), str(2)), nil
	case name == "ascii_upper" && len(op) == 1:
		return mapASCII('a', 'A'), nil
	case name == "ascii_lower" && len(op) == 1:
		return mapASCII('A', 'a'), nil
	}
	return "", fmt.Errorf("edit %s: unknown", raw)
}

// TestBoundaryVerdicts replays ~2,200 responses mutated to sit on, and
// one step either side of, the decision boundary of every instruction
// (word, sentence, paragraph, bullet, highlight, placeholder, section,
// capital-word and letter counts at N-1/N/N+1 with both relations;
// postscript markers, JSON fences, titles, quotes, end phrases, keyword
// case and word boundaries, case and language checks, loose-mode first
// and last lines...). Every strict and loose verdict must equal the
// official scorer's; for the case and language checkers, with each of
// langdetect's seeds 0 to 4. The instructions for which the official
// build_description draws a kwarg at random (nth_paragraph greater than
// num_paragraphs, a "letter" that is not one of a-z) are skipped: their
// official verdict is random (docs/ifeval.md).
func TestBoundaryVerdicts(t *testing.T) {
	var responses []string
	readJSONL(t, filepath.Join(sharedtest.Conformance(t), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl"), func(line int, raw []byte) {
		var r struct {
			Response string `json:"response"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("input_response_data line %d: %v", line, err)
		}
		responses = append(responses, r.Response)
	})
	inputs := map[int]inputRecord{}
	readJSONL(t, filepath.Join(sharedtest.Datasets(t), "ifeval", "input_data.jsonl"), func(line int, raw []byte) {
		var r inputRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("input_data line %d: %v", line, err)
		}
		inputs[r.Key] = r
	})
	b, err := os.ReadFile(filepath.Join("testdata", "boundary_verdicts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Seeds []uint64        `json:"seeds"`
		Cases []*boundaryCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("boundary_verdicts.json: %v", err)
	}
	type tally struct{ cases, verdicts, disagree, random, seedDependent int }
	families := map[string]*tally{}
	ids := map[string]int{}
	for i, c := range doc.Cases {
		fam := families[c.Family]
		if fam == nil {
			fam = &tally{}
			families[c.Family] = fam
		}
		fam.cases++
		text := ""
		if c.Src >= 0 {
			if c.Src >= len(responses) {
				t.Fatalf("case %d: source response %d of %d", i, c.Src, len(responses))
			}
			text = responses[c.Src]
		}
		for _, op := range c.Ops {
			if text, err = applyEdit(text, op); err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
		}
		if sum := sha256.Sum256([]byte(text)); hex.EncodeToString(sum[:]) != c.SHA256 {
			t.Fatalf("case %d (%s %s): rebuilt response differs from the generator's (sha256)", i, c.Family, c.Note)
		}
		var ins []Instruction
		if c.FromKey != nil {
			in, ok := inputs[*c.FromKey]
			if !ok {
				t.Fatalf("case %d: key %d not in input_data.jsonl", i, *c.FromKey)
			}
			for j, id := range in.InstructionIDList {
				ins = append(ins, Instruction{ID: id, Kwargs: in.Kwargs[j]})
			}
		} else {
			for j, id := range c.InstructionIDList {
				ins = append(ins, Instruction{ID: id, Kwargs: c.Kwargs[j]})
			}
		}
		for _, in := range ins {
			ids[in.ID]++
		}
		random := map[int]bool{}
		for _, j := range c.RandomKwarg {
			random[j] = true
			fam.random++
		}
		seedDependent := false
		for k := range doc.Seeds {
			for j := range ins {
				if !random[j] && (c.Strict[k][j] != c.Strict[0][j] || c.Loose[k][j] != c.Loose[0][j]) {
					seedDependent = true
				}
			}
		}
		if seedDependent {
			fam.seedDependent++
		}
		seeds := doc.Seeds[:1]
		if usesLangdetect(ins) && !testing.Short() {
			seeds = doc.Seeds
		}
		for k, seed := range seeds {
			p, err := Compile(ins, Config{LangdetectSeed: seed})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			res := p.Evaluate(text)
			for j := range ins {
				if random[j] {
					continue
				}
				fam.verdicts += 2
				if res.Strict[j] != c.Strict[k][j] || res.Loose[j] != c.Loose[k][j] {
					fam.disagree++
					t.Errorf("case %d %s (%s) %s %v seed %d %.80q: strict %v loose %v, official %v %v",
						i, c.Family, c.Note, ins[j].ID, ins[j].Kwargs, seed, text,
						res.Strict[j], res.Loose[j], c.Strict[k][j], c.Loose[k][j])
				}
			}
		}
	}
	for _, id := range IDs() {
		if ids[id] == 0 {
			t.Errorf("no boundary case for %s", id)
		}
	}
	names := make([]string, 0, len(families))
	for f := range families {
		names = append(names, f)
	}
	sort.Strings(names)
	total := tally{}
	for _, f := range names {
		x := families[f]
		t.Logf("%-26s %4d cases %5d verdicts %3d disagree %3d random kwarg %3d seed-dependent", f, x.cases, x.verdicts, x.disagree, x.random, x.seedDependent)
		total.cases += x.cases
		total.verdicts += x.verdicts
		total.disagree += x.disagree
		total.random += x.random
	}
	t.Logf("total %d cases, %d verdicts compared, %d disagree, %d instructions skipped (random kwarg)", total.cases, total.verdicts, total.disagree, total.random)
	if total.cases < 1000 {
		t.Errorf("%d cases, want at least 1,000", total.cases)
	}
}

func usesLangdetect(ins []Instruction) bool {
	for _, in := range ins {
		switch in.ID {
		case "language:response_language", "change_case:english_capital", "change_case:english_lowercase":
			return true
		}
	}
	return false
}
