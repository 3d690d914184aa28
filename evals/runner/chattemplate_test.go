package runner

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// r1Template ends its generation prompt inside a reasoning block, as
// DeepSeek-R1-Distill's does.
const r1Template = "{{ bos_token }}{% for m in messages %}<｜User｜>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<｜Assistant｜><think>\n{% endif %}"

// templatingRuntime renders chat requests itself, like the in-process
// engines: sample qN answers after reasoning when N%3 == 0, is cut off
// while reasoning when N%3 == 1, and stops while reasoning when N%3 == 2.
type templatingRuntime struct {
	tmpl *chattemplate.Template
}

func (r *templatingRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	rendered, err := r.tmpl.Chat(req.Messages, chattemplate.ChatOptions{AddGenerationPrompt: true, BOS: "<s>"})
	if err != nil {
		return runtime.Response{}, err
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(req.Messages[0].Content, "q"))
	resp := runtime.Response{RenderedPrompt: rendered, FinishReason: runtime.FinishStop}
	switch n % 3 {
	case 0:
		resp.Text = "some reasoning\n</think>\n\nanswer " + strconv.Itoa(n%10)
	case 1:
		resp.Text, resp.FinishReason = "reasoning that never", runtime.FinishLength
	default:
		resp.Text = "reasoning and then the end"
	}
	return resp, nil
}

func (r *templatingRuntime) Close() error { return nil }

func (r *templatingRuntime) ChatTemplate() runtime.ChatTemplateInfo {
	return runtime.ChatTemplateInfo{Source: "test", SHA256: r.tmpl.SHA256(), Thinking: "model-default", ThinkingApplied: r.tmpl.ThinkingApplied(""), BOS: "<s>"}
}

func TestRunRecordsChatTemplate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmpl, err := chattemplate.Parse(r1Template)
	if err != nil {
		t.Fatal(err)
	}
	o := baseOptions(dir, &templatingRuntime{tmpl: tmpl})
	o.Tasks = []evals.Task{fakeTask{"alpha", 9}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ct := res.Manifest.Config.ChatTemplate
	if ct == nil || ct.SHA256 != tmpl.SHA256() || ct.Source != "test" {
		t.Fatalf("manifest chat_template = %+v", ct)
	}
	recs, _, err := results.ReadSamples(results.SamplesPath(dir, "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		want := "<s><｜User｜>" + r.Messages[0].Content + "<｜Assistant｜><think>\n"
		if r.RenderedPrompt != want {
			t.Errorf("sample %s: rendered_prompt %q, want %q", r.ID, r.RenderedPrompt, want)
		}
		n, _ := strconv.Atoi(r.ID)
		wantState := []string{evals.ThinkingClosed, evals.ThinkingTruncated, evals.ThinkingUnterminated}[n%3]
		if r.Thinking != wantState {
			t.Errorf("sample %s: thinking %q, want %q", r.ID, r.Thinking, wantState)
		}
		if n%3 == 0 && r.Scores["acc"] != 1 {
			t.Errorf("sample %s: the answer after the reasoning was not scored: %+v", r.ID, r)
		}
	}
	ts := res.Summary.Tasks["alpha"]
	if ts.ThinkingTruncatedRate == nil || *ts.ThinkingTruncatedRate != 3.0/9 {
		t.Errorf("thinking_truncated_rate = %v, want 1/3", ts.ThinkingTruncatedRate)
	}
	if !strings.Contains(strings.Join(ts.Warnings, "\n"), "3 of 9 responses were cut off") {
		t.Errorf("warnings %q", ts.Warnings)
	}

	// The same template resumes; a changed one is refused.
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("resume with the same template: %v", err)
	}
	other, _ := chattemplate.Parse(r1Template + " ")
	o.Runtime = &templatingRuntime{tmpl: other}
	_, err = Run(context.Background(), o)
	var mm *ConfigMismatchError
	if !errors.As(err, &mm) || !strings.Contains(strings.Join(mm.Diffs, "\n"), "chat_template") {
		t.Fatalf("resume with a changed template: got %v, want a refusal naming chat_template", err)
	}
}
