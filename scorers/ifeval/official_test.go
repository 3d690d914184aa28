package ifeval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestOfficialVerdicts replays pocketeval's own example responses for the
// language and case checkers (testdata/gen_official.py): short lower-case
// phrases, Devanagari Hindi/Nepali/Marathi, a Swahili word repeated
// hundreds of times, answers with an English block first, short all-caps
// enumerations, and Python's case rules (Other_Lowercase/Other_Uppercase,
// titlecase, İ and final sigma in lower()). Every strict and loose verdict
// must equal the official scorer's with langdetect seeded 0 to 4, the
// seed-dependent ones included.
func TestOfficialVerdicts(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "official_verdicts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Seeds []uint64 `json:"seeds"`
		Cases []struct {
			Family        string         `json:"family"`
			InstructionID string         `json:"instruction_id"`
			Kwargs        map[string]any `json:"kwargs"`
			Response      string         `json:"response"`
			Strict        []bool         `json:"strict"`
			Loose         []bool         `json:"loose"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	seedDependent := 0
	for i, c := range doc.Cases {
		families[c.Family]++
		if !allSame(c.Strict) || !allSame(c.Loose) {
			seedDependent++
		}
		for k, seed := range doc.Seeds {
			p, err := Compile([]Instruction{{ID: c.InstructionID, Kwargs: c.Kwargs}}, Config{LangdetectSeed: seed})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			res := p.Evaluate(c.Response)
			if res.Strict[0] != c.Strict[k] || res.Loose[0] != c.Loose[k] {
				t.Errorf("%s %s %v seed %d %.70q: strict %v loose %v, official %v %v",
					c.Family, c.InstructionID, c.Kwargs, seed, c.Response, res.Strict[0], res.Loose[0], c.Strict[k], c.Loose[k])
			}
		}
	}
	for _, f := range []string{"short_lowercase", "all_caps", "devanagari", "swahili_repeated", "english_block_first", "case_rules"} {
		if families[f] == 0 {
			t.Errorf("no %s case", f)
		}
	}
	if seedDependent == 0 {
		t.Errorf("no seed-dependent case: the seeds are not exercised")
	}
	t.Logf("%d cases × %d seeds, %d with seed-dependent official verdicts", len(doc.Cases), len(doc.Seeds), seedDependent)
}

func allSame(bs []bool) bool {
	for _, b := range bs {
		if b != bs[0] {
			return false
		}
	}
	return true
}
