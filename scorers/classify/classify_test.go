package classify

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// sklearn.json holds scikit-learn's numbers for the same predictions; see
// testdata/make_sklearn.py.
func TestMatchesScikitLearn(t *testing.T) {
	raw, err := os.ReadFile("testdata/sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Gold, Pred, Labels    []string
		Accuracy              float64
		Precision, Recall, F1 []float64
		Support               []int
		MacroF1               float64 `json:"macro_f1"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	for i, c := range cases {
		var m Confusion
		for j := range c.Gold {
			m.Add(c.Gold[j], c.Pred[j])
		}
		if !near(m.Accuracy(), c.Accuracy) || !near(m.MacroF1(), c.MacroF1) {
			t.Errorf("case %d: accuracy %v macro-F1 %v, sklearn %v %v", i, m.Accuracy(), m.MacroF1(), c.Accuracy, c.MacroF1)
		}
		rows := m.PerLabel()
		if len(rows) != len(c.Labels) {
			t.Fatalf("case %d: labels %v, sklearn %v", i, m.Labels(), c.Labels)
		}
		for j, r := range rows {
			if r.Label != c.Labels[j] || !near(r.Precision, c.Precision[j]) || !near(r.Recall, c.Recall[j]) || !near(r.F1, c.F1[j]) || r.Support != c.Support[j] {
				t.Errorf("case %d label %s: %+v, sklearn P %v R %v F1 %v support %d", i, c.Labels[j], r, c.Precision[j], c.Recall[j], c.F1[j], c.Support[j])
			}
		}
	}
}

func TestMatchLabel(t *testing.T) {
	labels := []string{"play_music", "music_info", "weather", "set_alarm", "查天气", "放音乐"}
	for resp, want := range map[string]string{
		"weather":                    "weather",
		"  Weather.":                 "weather",
		"The intent is set_alarm.":   "set_alarm",
		"意图：查天气":                     "查天气",
		"play_music or weather":      NoLabel, // two labels: no guess
		"I think it's about the sky": NoLabel,
		"":                           NoLabel,
		"ＷＥＡＴＨＥＲ":                    "weather",
		"放音乐。":                       "放音乐",
	} {
		if got := MatchLabel(resp, labels); got != want {
			t.Errorf("MatchLabel(%q) = %q, want %q", resp, got, want)
		}
	}
	// A label inside a longer matched label yields to it.
	if got := MatchLabel("intent: play music please", []string{"music", "play music"}); got != "play music" {
		t.Errorf("nested labels: got %q", got)
	}
}

func TestConfusionString(t *testing.T) {
	var m Confusion
	m.Add("a", "a")
	m.Add("a", "b")
	m.Add("b", NoLabel)
	got := m.String()
	want := "gold \\ predicted\ta\tb\t(none)\na\t1\t1\t0\nb\t0\t0\t1\n"
	if got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, "(none)") || m.N() != 3 {
		t.Errorf("N = %d", m.N())
	}
}
