// Package classify scores label predictions (intent recognition and
// other closed-set classification): it maps a free-form response to one
// of the task's labels, and summarises predictions as a confusion matrix
// with accuracy, per-label precision, recall and F1, and macro-F1.
//
// Macro-F1 is the unweighted mean of per-label F1 over the labels that
// occur as a gold label or as a prediction, which is
// sklearn.metrics.f1_score(y_true, y_pred, average="macro",
// zero_division=0) when responses that match no label are left out of the
// label set. Such a response counts against its gold label's recall and
// against accuracy, but is not a class of its own.
package classify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/scorers/match"
)

// NoLabel is the prediction recorded for a response that matches no label.
const NoLabel = ""

// MatchLabel maps a response to a label: a response equal to a label after
// match.Normalize gives that label; otherwise the labels whose normalised
// form occurs in the normalised response are candidates, a candidate that
// is part of a longer candidate is dropped ("music" inside
// "play_music"), and a single remaining candidate is the answer. Anything
// else is NoLabel.
func MatchLabel(response string, labels []string) string {
	r := match.Normalize(response)
	if r == "" {
		return NoLabel
	}
	for _, l := range labels {
		if match.Normalize(l) == r {
			return l
		}
	}
	var found []string
	for _, l := range labels {
		if n := match.Normalize(l); n != "" && strings.Contains(r, n) {
			found = append(found, l)
		}
	}
	var kept []string
	for _, l := range found {
		inside := false
		for _, o := range found {
			if o != l && strings.Contains(match.Normalize(o), match.Normalize(l)) {
				inside = true
				break
			}
		}
		if !inside {
			kept = append(kept, l)
		}
	}
	if len(kept) == 1 {
		return kept[0]
	}
	return NoLabel
}

// Confusion counts (gold, predicted) label pairs. The zero value is an
// empty matrix ready for Add.
type Confusion struct {
	counts map[[2]string]int
	n      int
}

// Add records one prediction.
func (c *Confusion) Add(gold, pred string) {
	if c.counts == nil {
		c.counts = map[[2]string]int{}
	}
	c.counts[[2]string{gold, pred}]++
	c.n++
}

// N is the number of predictions recorded.
func (c *Confusion) N() int { return c.n }

// Count returns how often gold was predicted as pred.
func (c *Confusion) Count(gold, pred string) int { return c.counts[[2]string{gold, pred}] }

// Labels returns the labels that occur as gold or prediction (NoLabel
// excluded), sorted.
func (c *Confusion) Labels() []string {
	seen := map[string]bool{}
	for k := range c.counts {
		for _, l := range k {
			if l != NoLabel {
				seen[l] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Accuracy is the fraction of predictions equal to their gold label.
func (c *Confusion) Accuracy() float64 {
	if c.n == 0 {
		return 0
	}
	ok := 0
	for k, v := range c.counts {
		if k[0] == k[1] {
			ok += v
		}
	}
	return float64(ok) / float64(c.n)
}

// LabelScore is one label's row of a classification report.
type LabelScore struct {
	Label                 string
	Precision, Recall, F1 float64
	Support               int // gold occurrences
	Predicted             int // predictions of this label
}

// PerLabel returns precision, recall and F1 for every label of Labels; a
// ratio with a zero denominator is 0.
func (c *Confusion) PerLabel() []LabelScore {
	var out []LabelScore
	for _, l := range c.Labels() {
		var tp, support, predicted int
		for k, v := range c.counts {
			if k[0] == l {
				support += v
			}
			if k[1] == l {
				predicted += v
			}
			if k[0] == l && k[1] == l {
				tp += v
			}
		}
		s := LabelScore{Label: l, Support: support, Predicted: predicted}
		if predicted > 0 {
			s.Precision = float64(tp) / float64(predicted)
		}
		if support > 0 {
			s.Recall = float64(tp) / float64(support)
		}
		if s.Precision+s.Recall > 0 {
			s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
		}
		out = append(out, s)
	}
	return out
}

// MacroF1 is the mean F1 over PerLabel.
func (c *Confusion) MacroF1() float64 {
	rows := c.PerLabel()
	if len(rows) == 0 {
		return 0
	}
	var sum float64
	for _, r := range rows {
		sum += r.F1
	}
	return sum / float64(len(rows))
}

// String renders the matrix: one row per gold label, one column per
// predicted label, and a "(none)" column for responses that matched no
// label.
func (c *Confusion) String() string {
	labels := c.Labels()
	cols := append(append([]string(nil), labels...), NoLabel)
	var b strings.Builder
	b.WriteString("gold \\ predicted")
	for _, l := range cols {
		b.WriteString("\t" + display(l))
	}
	b.WriteString("\n")
	for _, g := range labels {
		b.WriteString(g)
		for _, p := range cols {
			fmt.Fprintf(&b, "\t%d", c.Count(g, p))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func display(l string) string {
	if l == NoLabel {
		return "(none)"
	}
	return l
}
