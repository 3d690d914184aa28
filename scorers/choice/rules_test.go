package choice

import (
	"encoding/json"
	"os"
	"testing"
)

type ruleCase struct {
	Text   string            `json:"text"`
	N      int               `json:"n"`
	Source string            `json:"source"` // "mmlu_pro", "gaokao"; "" for the adversarial cases
	Gold   string            `json:"gold"`
	Want   map[string]string `json:"want"`
}

func readRuleCases(t *testing.T, path string) []ruleCase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []ruleCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g.Cases
}

func options(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "option " + Letter(i)
	}
	return out
}

// checkRules compares every official rule with the Python extractors'
// answers (testdata/gen_rules_golden.py) and returns the number of cases.
func checkRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, name := range RuleNames() {
		if name == RulePocketeval {
			continue
		}
		r, err := RuleByName(name)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, c := range cases {
			want, ok := c.Want[name]
			if !ok {
				continue // published MMLU-Pro outputs carry mmlu_pro only
			}
			got := r.Extract(c.Text, options(c.N))
			if got.Letter != want {
				if bad++; bad <= 5 {
					t.Errorf("%s(%q, %d options) = %q, official %q", name, trunc(c.Text), c.N, got.Letter, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d differ", name, bad, len(cases))
		}
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

// TestRulesMatchOfficial replays the adversarial cases of
// testdata/rules_golden.json through every official rule.
func TestRulesMatchOfficial(t *testing.T) {
	cases := readRuleCases(t, "testdata/rules_golden.json")
	for _, c := range cases {
		if len(c.Want) != len(RuleNames())-1 {
			t.Fatalf("case %q has %d rules, want every official one", c.Text, len(c.Want))
		}
	}
	checkRules(t, cases)
}

// TestRulesReplay replays published outputs (gen_rules_golden.py
// --outputs: MMLU-Pro eval_results, GAOKAO-Bench Results) when
// POCKETEVAL_CHOICE_REPLAY names the file it wrote, and reports how often
// pocketeval's own rule agrees with each official one where that names an
// option.
func TestRulesReplay(t *testing.T) {
	path := os.Getenv("POCKETEVAL_CHOICE_REPLAY")
	if path == "" {
		t.Skip("set POCKETEVAL_CHOICE_REPLAY to a file of gen_rules_golden.py --outputs")
	}
	cases := readRuleCases(t, path)
	checkRules(t, cases)
	own, _ := RuleByName(RulePocketeval)
	for _, official := range []string{RuleMMLUPro, RuleGaokao} {
		agree, named, abstain, right, wrongExtra := 0, 0, 0, 0, 0
		fallback, fallbackRight := 0, 0 // pocketeval answers without an answer statement
		for _, c := range cases {
			if c.Source != official {
				continue
			}
			want := c.Want[official]
			if want == "" {
				continue
			}
			named++
			got := own.Extract(c.Text, options(c.N))
			switch {
			case got.Letter == want:
				agree++
			case !got.Found():
				abstain++
			default:
				wrongExtra++
				if testing.Verbose() && wrongExtra <= 8 {
					t.Logf("%s differs: official %s, pocketeval %s (%s): %q", official, want, got.Letter, got.Method, trunc(c.Text))
				}
			}
			if got.Letter == c.Gold {
				right++
			}
			if got.Found() && !got.Strict() {
				fallback++
				if got.Letter == c.Gold {
					fallbackRight++
				}
			}
		}
		t.Logf("%s: %d outputs with an official letter; pocketeval agrees on %d, abstains on %d, differs on %d; pocketeval right on %d; %d answers by a fallback rule, %d right",
			official, named, agree, abstain, wrongExtra, right, fallback, fallbackRight)
	}
}
