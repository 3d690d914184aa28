package rundir

import (
	"strings"
	"testing"
)

// TestSuiteReportLimitSwitch: the printed report names the sample limit
// the way its caller does.
func TestSuiteReportLimitSwitch(t *testing.T) {
	t.Parallel()
	for sw, want := range map[string]string{
		"":        "Limited run (limit 5): the first 5 samples of each task",
		"--limit": "Limited run (--limit 5): the first 5 samples of each task",
	} {
		var b strings.Builder
		(&SuiteReport{Suite: "s", Limit: 5, LimitSwitch: sw}).Print(&b)
		if !strings.Contains(b.String(), want) {
			t.Errorf("LimitSwitch %q: report lacks %q:\n%s", sw, want, b.String())
		}
	}
}
