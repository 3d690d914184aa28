package gate

import (
	"strings"
	"testing"
)

// FuzzParsePolicy: a gate policy on any input is an error naming the file,
// or a policy whose alpha and rules are in range.
func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte("alpha: 0.05\ndefaults:\n  max_drop: 2.0\n  require_significance: true\ntasks:\n  ifeval: {max_drop: 1.0, min_score: 70}\nsuite_average_floor: 48.0\nfail_on_errors: true\nrequire_tasks: [gsm8k, ifeval]\n"))
	f.Add([]byte("tasks:\n  gsm8k:\n    min_score: 101\n"))
	f.Add([]byte("alpha: 0\nunknown: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy("gate.yaml", data, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "gate.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if !(p.Alpha > 0 && p.Alpha < 1) {
			t.Errorf("alpha %v accepted", p.Alpha)
		}
		for name, r := range p.Tasks {
			for _, rule := range []Rule{p.Defaults, r} {
				if rule.MaxDrop != nil && !(*rule.MaxDrop >= 0) {
					t.Errorf("%s: max_drop %v accepted", name, *rule.MaxDrop)
				}
				if rule.MinScore != nil && !(*rule.MinScore >= 0 && *rule.MinScore <= 100) {
					t.Errorf("%s: min_score %v accepted", name, *rule.MinScore)
				}
			}
		}
	})
}
