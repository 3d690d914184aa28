package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestE2EChatTemplateFlags runs the real llama.cpp runtime with
// --chat-template and --thinking and checks what the result directory
// records: the template's source, sha256 and thinking mode in the
// manifest, the rendered prompt per sample, the pinned date on resume, and
// a refusal to resume with a changed template.
func TestE2EChatTemplateFlags(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	tmplFile := filepath.Join(t.TempDir(), "tmpl.jinja")
	const tmpl = "{{ bos_token }}[{{ strftime_now('%d %b %Y') }}]{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}" +
		"{% if enable_thinking is defined and not enable_thinking %}<nothink>{% endif %}{% if add_generation_prompt %}<assistant>{% endif %}"
	if err := os.WriteFile(tmplFile, []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--max-tokens", "8",
		"--data-dir", data, "--out", dir, "--chat-template", tmplFile, "--thinking", "off"}
	code, out, errOut := runReal(t, append(args, "--limit", "2")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ct := m.Config.ChatTemplate
	if ct == nil || ct.Source != "file:"+tmplFile || ct.Thinking != "off" || ct.ThinkingApplied != "enable_thinking=false" || ct.SHA256 == "" || ct.Date == "" || ct.BOS != "<s>" {
		t.Fatalf("manifest chat_template = %+v", ct)
	}

	// Resume with one more sample after pretending the run started on
	// another day: the new sample is rendered with the recorded date.
	m.Config.ChatTemplate.Date = "2020-01-02T03:04:05Z"
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runReal(t, append(args, "--limit", "3")...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	recs, _, err := results.ReadSamples(results.SamplesPath(dir, "gsm8k"))
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	last := recs[2]
	if !strings.HasPrefix(last.RenderedPrompt, "<s>[02 Jan 2020]<user>") || !strings.HasSuffix(last.RenderedPrompt, "<nothink><assistant>") {
		t.Errorf("resumed sample rendered %q", last.RenderedPrompt)
	}
	for _, r := range recs {
		if !strings.Contains(r.RenderedPrompt, r.Messages[len(r.Messages)-1].Content) {
			t.Errorf("sample %s: rendered prompt lacks the question", r.ID)
		}
	}

	// A changed template is refused.
	if err := os.WriteFile(tmplFile, []byte(tmpl+" "), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runReal(t, append(args, "--limit", "3")...)
	if code != ExitUsage || !strings.Contains(errOut, "chat_template") {
		t.Errorf("changed template: exit %d, %s", code, errOut)
	}
}

func TestChatTemplateFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--runtime", "llamacpp", "--model", "x.gguf", "--tasks", "alpha", "--out", dir, "--thinking", "maybe"}, "--thinking"},
		{[]string{"run", "--runtime", "openai", "--base-url", "http://127.0.0.1:1/v1", "--tasks", "alpha", "--out", dir, "--chat-template", "t.jinja"}, "does not render chat templates"},
		{[]string{"run", "--runtime", "replay", "--predictions", "p.jsonl", "--tasks", "alpha", "--out", dir, "--thinking", "off"}, "does not render chat templates"},
	} {
		f, _, errb := testFactory()
		code := Execute(t.Context(), f, c.args)
		if code != ExitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want usage error naming %q", c.args, code, errb.String(), c.want)
		}
	}
}

func TestModelsShow(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, "models", "show", "qwen3-0.6b-gguf")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"template:     gguf:tokenizer.chat_template\n",
		"thinking:     on (switch: enable_thinking; --thinking on|off sets it)\n",
		"stop:         <|im_end|> <|endoftext|>\n",
		"generation:   thinking: temperature=0.6 top_p=0.95 top_k=20 min_p=0 (https://huggingface.co/Qwen/Qwen3-0.6B (model card, Best Practices))\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("models show lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := run(t, "models", "show", "nosuch"); code != ExitUsage || !strings.Contains(errOut, `unknown model "nosuch"`) {
		t.Errorf("unknown model: exit %d, %s", code, errOut)
	}
}

func TestChatTemplateOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, "name.jinja")
	os.WriteFile(name, []byte("chatml\n"), 0o644)
	good := filepath.Join(dir, "good.jinja")
	os.WriteFile(good, []byte("{% for m in messages %}{{ m.content }}{% endfor %}"), 0o644)
	for _, c := range []struct{ file, want string }{
		{filepath.Join(dir, "missing.jinja"), "no such file"},
		{name, "never reads messages"},
	} {
		if _, _, _, err := (RuntimeOptions{ChatTemplateFile: c.file}).chatTemplateOptions(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.file, err, c.want)
		}
	}
	src, label, thinking, err := (RuntimeOptions{ChatTemplateFile: good, Thinking: "on"}).chatTemplateOptions()
	if err != nil || label != "file:"+good || thinking != "on" || !strings.Contains(src, "messages") {
		t.Errorf("good template: %q %q %q %v", src, label, thinking, err)
	}
}
