package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// TestSummaryTableChinese: a table with Chinese task names lines up on a
// terminal: every row's second column starts at the same display column.
func TestSummaryTableChinese(t *testing.T) {
	s := &results.Summary{Tasks: map[string]*results.TaskSummary{}}
	for _, name := range []string{"意图识别", "gsm8k", "指令遵循_zh"} {
		s.Order = append(s.Order, name)
		s.Tasks[name] = &results.TaskSummary{HeadlineMetric: "acc", Samples: 10, Scored: 10,
			Metrics: map[string]stats.Summary{"acc": {Mean: 0.5, N: 10}}}
	}
	var b bytes.Buffer
	PrintSummary(&b, s)
	col := -1
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		i := strings.Index(line, "acc")
		if strings.HasPrefix(line, "TASK") {
			i = strings.Index(line, "METRIC")
		}
		if i < 0 {
			continue
		}
		w := uniseg.StringWidth(line[:i])
		if col < 0 {
			col = w
		}
		if w != col {
			t.Errorf("second column at display column %d, want %d:\n%s", w, col, b.String())
		}
	}
	if col < 0 {
		t.Fatalf("no rows:\n%s", b.String())
	}
}
