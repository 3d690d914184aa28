package fidelity

import (
	"strings"
	"testing"
)

func TestParsePolicy(t *testing.T) {
	p, err := ParsePolicy("p.yaml", []byte("max_kl_mean: 0.01\nmin_top1_agreement: 95\nmax_ppl_increase_pct: 1\nmin_relative_score: 98\ntasks:\n  gsm8k: {min_relative_score: 95}\nsuite_min_relative_score: 99\n"))
	if err != nil {
		t.Fatal(err)
	}
	if *p.MaxKLMean != 0.01 || *p.MinTop1Agreement != 95 || p.Tasks["gsm8k"] != 95 || !p.NeedsTokens() || !p.NeedsAnswers() {
		t.Fatalf("%+v", p)
	}
	for src, want := range map[string]string{
		"max_kl_mean: -1\n":                      "line 1: max_kl_mean: -1 outside",
		"min_top1_agreement: 101\n":              "line 1: min_top1_agreement",
		"max_kl_mean: .nan\n":                    "finite",
		"max_kl: 1\n":                            "line 1: max_kl: unknown field",
		"max_kl_mean: 1\nmax_kl_mean: 2\n":       "line 2: max_kl_mean: set twice",
		"tasks:\n  a: {min_relative_score: x}\n": "line 2: tasks.a.min_relative_score",
		"tasks:\n  a: {min_score: 1}\n":          "line 2: tasks.a: want",
		"tasks: {}\n":                            "sets no threshold",
		"- 1\n":                                  "want a mapping",
	} {
		if _, err := ParsePolicy("p.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

func TestPolicyChecks(t *testing.T) {
	kl, top := 0.01, 95.0
	p := &Policy{MaxKLMean: &kl, MinTop1Agreement: &top}
	good := &TokenReport{KLMean: Interval{Value: 0.001}, Top1: Interval{Value: 0.97}, Positions: 10}
	bad := &TokenReport{KLMean: Interval{Value: 0.15}, Top1: Interval{Value: 0.97}, Positions: 10}
	if cs := p.CheckTokens(good); len(cs) != 2 || !cs[0].Pass || !cs[1].Pass {
		t.Fatalf("good: %+v", cs)
	}
	if cs := p.CheckTokens(bad); cs[0].Pass || cs[0].Name != "max_kl_mean" || !cs[1].Pass {
		t.Fatalf("bad: %+v", cs)
	}
	rel, suite := 98.0, 99.0
	p = &Policy{MinRelativeScore: &rel, Tasks: map[string]float64{"b": 50, "missing": 10}, SuiteMinRelativeScore: &suite}
	cs := p.CheckAnswers([]TaskFlips{{Task: "a", RefScore: 0.5, CandScore: 0.495}, {Task: "b", RefScore: 0.4, CandScore: 0.3}})
	got := map[string]bool{}
	for _, c := range cs {
		got[c.Name] = c.Pass
	}
	want := map[string]bool{"min_relative_score:a": true, "min_relative_score:b": true, "min_relative_score:missing": false, "suite_min_relative_score": false}
	if len(got) != len(want) {
		t.Fatalf("%+v", cs)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: pass %v, want %v (%+v)", k, got[k], v, cs)
		}
	}
	x, err := JUnit(cs)
	if err != nil || !strings.Contains(string(x), `tests="4" failures="2"`) || !strings.Contains(string(x), `<testcase name="suite_min_relative_score"`) {
		t.Fatalf("%s %v", x, err)
	}
}

// TestPolicySort: fidelity gate reports its checks in the policy file's
// order (issue 48), not alphabetically nor token keys first.
func TestPolicySort(t *testing.T) {
	p, err := ParsePolicy("p.yaml", []byte("suite_min_relative_score: 90\ntasks:\n  zz: {min_relative_score: 95}\n  aa: {min_relative_score: 95}\nmin_top1_agreement: 90\nmin_relative_score: 98\nmax_kl_mean: 0.01\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := p.CheckTokens(&TokenReport{Positions: 1})
	cases = append(cases, p.CheckAnswers([]TaskFlips{{Task: "mm", RefScore: 1, CandScore: 1}, {Task: "aa", RefScore: 1, CandScore: 1}, {Task: "zz", RefScore: 1, CandScore: 1}, {Task: "bb", RefScore: 1, CandScore: 1}})...)
	p.Sort(cases)
	var got []string
	for _, c := range cases {
		got = append(got, c.Name)
	}
	want := "suite_min_relative_score min_relative_score:zz min_relative_score:aa min_top1_agreement min_relative_score:mm min_relative_score:bb max_kl_mean"
	if strings.Join(got, " ") != want {
		t.Errorf("order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}
