package taskfile

import (
	"context"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// TestAnswerRule: a multiple_choice task file scored in gen mode extracts
// the option with the rule answer_rule names, and refuses an unknown one
// or one on a generate_until task.
func TestAnswerRule(t *testing.T) {
	const data = `{"q": "1+1?", "c": ["A", "B", "C", "D"], "g": 1}` + "\n"
	task := func(rule string) string {
		return "task: t\ndataset_path: ./d.jsonl\ntest_split: test\noutput_type: multiple_choice\ndoc_to_text: \"{{q}}\"\ndoc_to_choice: c\ndoc_to_target: g\n" + rule
	}
	// GAOKAO-Bench's single_choice reads the last A-D of the output;
	// pocketeval's rule reads the 【答案】 section, and a section naming two
	// letters is no answer.
	outputs := []struct {
		text                 string
		pocketeval, gaokao   float64
		pocketevalExtractErr float64
	}{
		{"【解析】A项错误，B项正确。 <eoe>\n【答案】: B <eoa>", 1, 1, 0},
		{"【解析】…… <eoe>\n【答案】A、B <eoa>", 0, 1, 1},
		{"The answer is (B). Then $$A=mc^2$$", 1, 0, 0},
	}
	for _, rule := range []string{"", "answer_rule: gaokao\n"} {
		parsed, err := Parse(writeTask(t, map[string]string{"task.yaml": task(rule), "d.jsonl": data}))
		if err != nil {
			t.Fatal(err)
		}
		tk, err := parsed.(*ChoiceTask).WithMode(ModeGen)
		if err != nil {
			t.Fatal(err)
		}
		d, err := tk.Load(context.Background(), evals.LoadConfig{NumFewshot: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outputs {
			sc, err := tk.Score(context.Background(), d.Samples[0], evals.Output{Text: o.text})
			if err != nil {
				t.Fatal(err)
			}
			want, wantFail := o.pocketeval, o.pocketevalExtractErr
			if rule != "" {
				want, wantFail = o.gaokao, 0
			}
			if sc.Values["acc"] != want || sc.Values["extraction_failed"] != wantFail {
				t.Errorf("rule %q on %q: acc %v extraction_failed %v, want %v %v (details %v)", rule, o.text, sc.Values["acc"], sc.Values["extraction_failed"], want, wantFail, sc.Details)
			}
		}
	}
	for _, c := range []struct{ yaml, want string }{
		{task("answer_rule: nonsense\n"), "unknown answer rule"},
		{"task: t\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nanswer_rule: gaokao\n", "only multiple_choice"},
	} {
		_, err := Parse(writeTask(t, map[string]string{"task.yaml": c.yaml, "d.jsonl": data}))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "answer_rule") {
			t.Errorf("err = %v, want one naming answer_rule: %s", err, c.want)
		}
	}
}
