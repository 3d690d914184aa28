package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/openai"
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
		{[]string{"run", "--runtime", "openai", "--base-url", "http://127.0.0.1:1/v1", "--endpoint", "completions", "--raw", "--tasks", "alpha", "--out", dir, "--thinking", "off"}, "sends raw prompts"},
	} {
		f, _, errb := testFactory()
		code := Execute(t.Context(), f, c.args)
		if code != ExitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want usage error naming %q", c.args, code, errb.String(), c.want)
		}
	}
}

// TestOpenAIAcceptsThinking: --thinking reaches the openai runtime (its
// server is asked), so the flags pass and the run fails only on the
// unreachable server.
func TestOpenAIAcceptsThinking(t *testing.T) {
	t.Parallel()
	f, _, errb := testFactory()
	code := Execute(t.Context(), f, []string{"run", "--runtime", "openai", "--base-url", "http://127.0.0.1:1/v1", "--max-retries", "0",
		"--tasks", "alpha", "--out", filepath.Join(t.TempDir(), "run"), "--thinking", "off"})
	if code == 0 || code == ExitUsage || !strings.Contains(errb.String(), "connection") {
		t.Errorf("exit %d, %q; want a connection failure, not a usage error", code, errb.String())
	}
}

// TestE2EThinkingThroughServe runs `run --runtime openai --thinking
// off|model-default` against an in-process `pocketeval serve` of
// llama.cpp on the shared stories260K model (which has no chat template)
// with Qwen3-0.6B's template from the conformance set, behind a proxy
// that keeps the request bodies: thinking off sends
// chat_template_kwargs {"enable_thinking": false} and the served runtime
// renders Qwen3's empty think block (recorded per sample from serve's
// response); model-default sends no kwargs and the template thinks. The
// manifest records the request and that it cannot be verified, and a
// resume with another mode is refused.
func TestE2EThinkingThroughServe(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	ios, _, _, _ := TestStreams()
	addr, stop := startServe(t, &ServeOptions{
		IO: ios, Open: OpenRuntime, Addr: "127.0.0.1:0", MaxConcurrent: 1, MaxQueue: 8, Grace: 5 * time.Second, Quiet: true,
		Runtime: RuntimeOptions{Name: "llamacpp", Model: model, Threads: 1, ChatTemplateFile: "../../../../runtime/chattemplate/testdata/templates/qwen3-0.6b.jinja"},
	})
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve shutdown: %v", err)
		}
	}()
	target, err := url.Parse("http://" + addr.String())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var (
		mu     sync.Mutex
		bodies []string
	)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, string(b))
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	run := func(dir, thinking string) []string {
		t.Helper()
		mu.Lock()
		bodies = nil
		mu.Unlock()
		code, out, errOut := runReal(t, "run", "--runtime", "openai", "--base-url", front.URL+"/v1", "--max-retries", "0", "--tasks", "gsm8k",
			"--limit", "2", "--max-tokens", "8", "--data-dir", data, "--out", dir, "--thinking", thinking)
		if code != 0 {
			t.Fatalf("--thinking %s: exit %d\n%s\n%s", thinking, code, out, errOut)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(bodies) != 2 {
			t.Fatalf("--thinking %s: %d chat requests, want 2", thinking, len(bodies))
		}
		return bodies
	}
	samples := func(dir string) []results.Record {
		t.Helper()
		recs, _, err := results.ReadSamples(results.SamplesPath(dir, "gsm8k"))
		if err != nil || len(recs) != 2 {
			t.Fatalf("%s: %d records, %v", dir, len(recs), err)
		}
		return recs
	}
	const assistant = "<|im_end|>\n<|im_start|>assistant\n"

	off := filepath.Join(t.TempDir(), "off")
	for _, b := range run(off, "off") {
		if !strings.Contains(b, `"chat_template_kwargs":{"enable_thinking":false}`) {
			t.Errorf("--thinking off sent %s", b)
		}
	}
	for _, r := range samples(off) {
		if !strings.HasSuffix(r.RenderedPrompt, assistant+"<think>\n\n</think>\n\n") || !strings.Contains(r.RenderedPrompt, r.Messages[len(r.Messages)-1].Content) {
			t.Errorf("--thinking off: sample %s rendered %q", r.ID, r.RenderedPrompt)
		}
	}
	m, err := results.ReadManifest(off)
	if err != nil {
		t.Fatal(err)
	}
	if ct := m.Config.ChatTemplate; ct == nil || ct.Source != openai.ServerTemplateSource || ct.Thinking != "off" ||
		!strings.HasPrefix(ct.ThinkingApplied, "enable_thinking=false requested of the server") || !strings.Contains(ct.ThinkingApplied, "not verifiable") {
		t.Errorf("--thinking off: manifest chat_template = %+v", ct)
	}

	def := filepath.Join(t.TempDir(), "default")
	for _, b := range run(def, "model-default") {
		if strings.Contains(b, "chat_template_kwargs") {
			t.Errorf("--thinking model-default sent %s", b)
		}
	}
	for _, r := range samples(def) {
		if !strings.HasSuffix(r.RenderedPrompt, assistant) || strings.Contains(r.RenderedPrompt, "<think>") {
			t.Errorf("--thinking model-default: sample %s rendered %q", r.ID, r.RenderedPrompt)
		}
	}
	if m, err := results.ReadManifest(def); err != nil || m.Config.ChatTemplate != nil {
		t.Errorf("--thinking model-default: manifest chat_template = %+v (%v), want none", m.Config.ChatTemplate, err)
	}

	// Resuming the thinking-off run with thinking on is refused.
	code, _, errOut := runReal(t, "run", "--runtime", "openai", "--base-url", front.URL+"/v1", "--tasks", "gsm8k",
		"--limit", "2", "--max-tokens", "8", "--data-dir", data, "--out", off, "--thinking", "on")
	if code != ExitUsage || !strings.Contains(errOut, "chat_template") {
		t.Errorf("resume with --thinking on: exit %d, %s", code, errOut)
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
