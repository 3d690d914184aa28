package ifeval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

func readJSONL(t testing.TB, path string, each func(line int, raw []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("conformance data absent: %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
		each(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

type inputRecord struct {
	Key               int              `json:"key"`
	Prompt            string           `json:"prompt"`
	InstructionIDList []string         `json:"instruction_id_list"`
	Kwargs            []map[string]any `json:"kwargs"`
}

type officialVerdict struct {
	Prompt                string   `json:"prompt"`
	Response              string   `json:"response"`
	InstructionIDList     []string `json:"instruction_id_list"`
	FollowInstructionList []bool   `json:"follow_instruction_list"`
}

type conformanceCase struct {
	in       inputRecord
	prompt   *Prompt
	response string
	strict   []bool
	loose    []bool
}

func loadConformance(t testing.TB) []conformanceCase {
	t.Helper()
	inputs := map[string]inputRecord{}
	readJSONL(t, filepath.Join(sharedtest.Datasets(t), "ifeval", "input_data.jsonl"), func(_ int, raw []byte) {
		var r inputRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		inputs[r.Prompt] = r
	})
	read := func(name string) []officialVerdict {
		var out []officialVerdict
		readJSONL(t, filepath.Join(sharedtest.Conformance(t), "ifeval", name), func(_ int, raw []byte) {
			var v officialVerdict
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		})
		return out
	}
	strict := read("gpt4_eval_results_strict_540_podtech.jsonl")
	loose := read("gpt4_eval_results_loose_540_podtech.jsonl")
	if len(strict) != len(loose) {
		t.Fatalf("strict has %d records, loose %d", len(strict), len(loose))
	}
	var cases []conformanceCase
	for i := range strict {
		in, ok := inputs[strict[i].Prompt]
		if !ok {
			t.Fatalf("strict record %d: prompt not in input_data.jsonl", i+1)
		}
		var ins []Instruction
		for j, id := range in.InstructionIDList {
			ins = append(ins, Instruction{ID: id, Kwargs: in.Kwargs[j]})
		}
		p, err := Compile(ins, Config{})
		if err != nil {
			t.Fatalf("key %d: %v", in.Key, err)
		}
		cases = append(cases, conformanceCase{in, p, strict[i].Response, strict[i].FollowInstructionList, loose[i].FollowInstructionList})
	}
	return cases
}

// pinnedDisagreements are the only per-instruction verdicts on which
// pocketeval differs from the official file, with the reason. Both are on
// prompts where the official scorer is random (conformance/README.md): the
// official code of that run replaced a non-letter "letter" by a letter
// drawn from Python's unseeded global random module, and its strict run
// happened to pick one the response lacks. No langdetect seed changes that
// draw. pocketeval counts the character given (google-research's current
// code does the same), so the response with four '#' / ten '!' follows the
// instruction strictly too. The langdetect keys the README calls random
// (279, 1813, 3617) agree with the file at seed 0; see TestConformanceSeeds.
var pinnedDisagreements = map[string]string{
	"1122 keywords:letter_frequency strict": "letter '#' at least 4 (the response has 4): official counted a random letter; pocketeval counts '#'",
	"1129 keywords:letter_frequency strict": "letter '!' at least 6 (the response has 10): official counted a random letter; pocketeval counts '!'",
}

func TestConformanceGPT4(t *testing.T) {
	cases := loadConformance(t)
	var sp, si, lp, li, total int
	seen := map[string]bool{}
	for _, c := range cases {
		res := c.prompt.Evaluate(c.response)
		if res.AllStrict() {
			sp++
		}
		if res.AllLoose() {
			lp++
		}
		for j := range res.Strict {
			total++
			if res.Strict[j] {
				si++
			}
			if res.Loose[j] {
				li++
			}
			for _, mode := range []struct {
				name      string
				got, want bool
			}{{"strict", res.Strict[j], c.strict[j]}, {"loose", res.Loose[j], c.loose[j]}} {
				if mode.got == mode.want {
					continue
				}
				key := fmt.Sprintf("%d %s %s", c.in.Key, c.in.InstructionIDList[j], mode.name)
				if reason, ok := pinnedDisagreements[key]; ok {
					seen[key] = true
					t.Logf("pinned: %s: got %v, official %v (%s)", key, mode.got, mode.want, reason)
					continue
				}
				t.Errorf("%s: got %v, official %v", key, mode.got, mode.want)
			}
		}
	}
	for key := range pinnedDisagreements {
		if !seen[key] {
			t.Errorf("pinned disagreement %q no longer occurs; remove the pin", key)
		}
	}
	t.Logf("strict prompt %d/%d instruction %d/%d; loose prompt %d/%d instruction %d/%d",
		sp, len(cases), si, total, lp, len(cases), li, total)
	// Official: strict 415/540 695/832, loose 431/540 713/832.
	if sp != 417 || si != 697 || lp != 431 || li != 713 || len(cases) != 540 || total != 832 {
		t.Errorf("totals strict %d/%d, loose %d/%d; want 417/697 (official 415/695 + the two pinned keys) and 431/713", sp, si, lp, li)
	}
}

// TestConformanceSeeds scores the GPT-4 responses with another langdetect
// seed. Over seeds 0–19,999 the only GPT-4 verdict that depends on the seed
// is key 3617's strict english_capital: seeds 1476 and 3744 make
// langdetect call "1. PIXEL PRODIGY\n2. CODE CONSTRUCT\n3. DIGITAL
// DYNAMICS" Catalan (0.571) rather than English, as the official scorer
// does with DetectorFactory.seed = 1476; its loose verdict stays true
// (without the first line the text is English for every seed).
func TestConformanceSeeds(t *testing.T) {
	cases := loadConformance(t)
	var diffs []string
	for _, c := range cases {
		var ins []Instruction
		for j, id := range c.in.InstructionIDList {
			ins = append(ins, Instruction{ID: id, Kwargs: c.in.Kwargs[j]})
		}
		p, err := Compile(ins, Config{LangdetectSeed: 1476})
		if err != nil {
			t.Fatal(err)
		}
		seeded, seed0 := p.Evaluate(c.response), c.prompt.Evaluate(c.response)
		for j, id := range c.in.InstructionIDList {
			if seeded.Strict[j] != seed0.Strict[j] {
				diffs = append(diffs, fmt.Sprintf("%d %s strict %v", c.in.Key, id, seeded.Strict[j]))
			}
			if seeded.Loose[j] != seed0.Loose[j] {
				diffs = append(diffs, fmt.Sprintf("%d %s loose %v", c.in.Key, id, seeded.Loose[j]))
			}
		}
	}
	want := []string{"3617 change_case:english_capital strict false"}
	if fmt.Sprint(diffs) != fmt.Sprint(want) {
		t.Errorf("seed 1476 changes %q, want %q", diffs, want)
	}
}
