//go:build !nollamacpp

package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/randmodel"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// capture records the tokens of every prompt the runtime feeds the model.
func capture(rt *Runtime) func() [][]llama.Token {
	var mu sync.Mutex
	var got [][]llama.Token
	rt.onPrompt = func(toks []llama.Token) {
		mu.Lock()
		got = append(got, append([]llama.Token(nil), toks...))
		mu.Unlock()
	}
	return func() [][]llama.Token {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func countToken(toks []llama.Token, t llama.Token) int {
	n := 0
	for _, x := range toks {
		if x == t {
			n++
		}
	}
	return n
}

var chatReq = runtime.Request{Messages: []runtime.Message{
	{Role: "system", Content: "You tell stories."},
	{Role: "user", Content: "Tell me a story."},
}, Gen: runtime.GenConfig{MaxTokens: 4}}

// TestChatFallbackTokens: a model without a chat template (stories260K)
// gets ChatML and, as llama-server does, the vocabulary's BOS once.
func TestChatFallbackTokens(t *testing.T) {
	rt := open(t, stories, Options{})
	prompts := capture(rt)
	info := rt.ChatTemplate()
	if !strings.HasPrefix(info.Source, "fallback:chatml") || !info.AddsBOS {
		t.Fatalf("ChatTemplate() = %+v, want the ChatML fallback adding BOS", info)
	}
	resp, err := rt.Generate(context.Background(), chatReq)
	if err != nil {
		t.Fatal(err)
	}
	want, err := chattemplate.Render(chattemplate.ChatML, map[string]any{"messages": chatReq.Messages, "add_generation_prompt": true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.RenderedPrompt != want {
		t.Errorf("RenderedPrompt = %q, want %q", resp.RenderedPrompt, want)
	}
	sent := prompts()
	if len(sent) != 1 {
		t.Fatalf("%d prompts sent, want 1", len(sent))
	}
	wantToks := append([]llama.Token{rt.bos}, llama.Tokenize(rt.vocab, want, false, true)...)
	if !equalTokens(sent[0], wantToks) {
		t.Errorf("tokens sent %v, want BOS + the rendered ChatML %v", sent[0], wantToks)
	}
	if resp.PromptTokens != len(sent[0]) {
		t.Errorf("PromptTokens = %d, %d tokens were sent", resp.PromptTokens, len(sent[0]))
	}
}

// TestChatOverrideTokens: a --chat-template file is rendered with the
// vocabulary's BOS/EOS text and enable_thinking, and its output is
// tokenized without adding a second BOS.
func TestChatOverrideTokens(t *testing.T) {
	const tmpl = "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{{ eos_token }}{% endfor %}" +
		"{% if enable_thinking is defined and enable_thinking is false %}<nothink>{% endif %}" +
		"{% if add_generation_prompt %}[assistant]{% endif %}"
	rt := open(t, random, Options{ChatTemplate: tmpl, ChatTemplateSource: "file:test.jinja", Thinking: chattemplate.ThinkingOff})
	prompts := capture(rt)
	info := rt.ChatTemplate()
	if info.Source != "file:test.jinja" || info.SHA256 != chattemplate.SHA256(tmpl) || info.Thinking != "off" ||
		info.ThinkingApplied != "enable_thinking=false" || info.BOS != "<s>" || info.EOS != "</s>" || info.AddsBOS {
		t.Errorf("ChatTemplate() = %+v", info)
	}
	resp, err := rt.Generate(context.Background(), chatReq)
	if err != nil {
		t.Fatal(err)
	}
	const want = "<s>[system]You tell stories.</s>[user]Tell me a story.</s><nothink>[assistant]"
	if resp.RenderedPrompt != want {
		t.Errorf("RenderedPrompt = %q, want %q", resp.RenderedPrompt, want)
	}
	sent := prompts()[0]
	if !equalTokens(sent, llama.Tokenize(rt.vocab, want, false, true)) {
		t.Errorf("tokens sent are not the rendered text tokenized without added special tokens: %v", sent)
	}
	if sent[0] != rt.bos || countToken(sent, rt.bos) != 1 {
		t.Errorf("want exactly one BOS, first: %v", sent)
	}
	if eos := llama.VocabEOS(rt.vocab); countToken(sent, eos) != 2 {
		t.Errorf("the two </s> the template rendered are not EOS tokens: %v", sent)
	}
	// Raw prompts are untouched by the template and get BOS once.
	if _, err := rt.Generate(context.Background(), runtime.Request{Prompt: "<s>Hello", Gen: runtime.GenConfig{MaxTokens: 2}}); err != nil {
		t.Fatal(err)
	}
	if raw := prompts()[1]; countToken(raw, rt.bos) != 1 {
		t.Errorf("raw prompt starting with <s>: %v", raw)
	}
}

// TestChatRealTemplateTokens renders a real model template (Phi-3.5-mini's,
// from the conformance set) on the Llama-2 vocabulary it shares, and
// checks the tokens sent are exactly jinja2's golden render, tokenized.
func TestChatRealTemplateTokens(t *testing.T) {
	src, err := os.ReadFile("../chattemplate/testdata/templates/phi-3.5-mini-instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]struct{ Text string }
	b, err := os.ReadFile("../chattemplate/testdata/golden/phi-3.5-mini-instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	rt := open(t, random, Options{ChatTemplate: string(src)})
	prompts := capture(rt)
	req := runtime.Request{Messages: []runtime.Message{
		{Role: "system", Content: "You are a careful math tutor."},
		{Role: "user", Content: "What is 17 * 23?"},
	}, Gen: runtime.GenConfig{MaxTokens: 2}}
	resp, err := rt.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := golden["system-user"].Text
	if want == "" || resp.RenderedPrompt != want {
		t.Fatalf("RenderedPrompt = %q, jinja2 golden %q", resp.RenderedPrompt, want)
	}
	if sent := prompts()[0]; !equalTokens(sent, llama.Tokenize(rt.vocab, want, false, true)) {
		t.Errorf("tokens sent differ from the golden render's tokens")
	}
}

func TestChatTemplateErrors(t *testing.T) {
	opts := Options{Model: modelPath(t, stories), ChatTemplate: "{% if %}"}
	if _, err := Open(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "chat template") {
		t.Errorf("an unparsable --chat-template: got %v, want Open to fail", err)
	}
	rt := open(t, stories, Options{ChatTemplate: `{{ raise_exception("System role not supported") }}`})
	if _, err := rt.Generate(context.Background(), chatReq); err == nil || !strings.Contains(err.Error(), "System role not supported") {
		t.Errorf("a template's raise_exception: got %v", err)
	}
	if _, err := rt.Generate(context.Background(), runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "a\x00b"}}}); err == nil {
		t.Error("message with a NUL byte rendered without error")
	}
}

// TestChatRenderCancelled: a chat request's render stops when the
// request's context ends, with the context's error.
func TestChatRenderCancelled(t *testing.T) {
	rt := open(t, stories, Options{ChatTemplate: runtimetest.SlowChatTemplate})
	if err := runtimetest.CheckRenderCancelled(rt, chatReq); err != nil {
		t.Error(err)
	}
}

// TestChatDatePinned: strftime_now renders Options.TemplateNow, recorded
// in ChatTemplate().Date, only for templates that read the date.
func TestChatDatePinned(t *testing.T) {
	now := time.Date(2024, 7, 26, 10, 0, 0, 0, time.UTC)
	rt := open(t, stories, Options{ChatTemplate: `{{ strftime_now("%d %b %Y") }}{{ messages[0].content }}`, TemplateNow: now})
	got, err := rt.renderChat(context.Background(), []runtime.Message{{Role: "user", Content: "x"}}, nil, nil)
	if err != nil || got != "26 Jul 2024x" {
		t.Errorf("render = %q, %v", got, err)
	}
	if d := rt.ChatTemplate().Date; d != now.Format(time.RFC3339) {
		t.Errorf("Date = %q", d)
	}
	if d := open(t, stories, Options{}).ChatTemplate().Date; d != "" {
		t.Errorf("ChatML reads no date, but Date = %q", d)
	}
}

// TestChatRequestKwargs: a request's TemplateKwargs (pocketeval serve
// passes a client's chat_template_kwargs) are set over --thinking.
func TestChatRequestKwargs(t *testing.T) {
	rt := open(t, stories, Options{ChatTemplate: `{{ messages[0].content }}{% if enable_thinking is defined and not enable_thinking %}<nothink>{% endif %}{% if extra is defined %}{{ extra }}{% endif %}`,
		Thinking: chattemplate.ThinkingOff})
	msgs := []runtime.Message{{Role: "user", Content: "hi"}}
	for _, c := range []struct {
		kwargs map[string]any
		want   string
	}{
		{nil, "hi<nothink>"},
		{map[string]any{"enable_thinking": true}, "hi"},
		{map[string]any{"extra": "+"}, "hi<nothink>+"},
	} {
		if got, err := rt.renderChat(context.Background(), msgs, c.kwargs, nil); err != nil || got != c.want {
			t.Errorf("kwargs %v: render = %q, %v; want %q", c.kwargs, got, err, c.want)
		}
	}
}

func equalTokens(a, b []llama.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestChatGGUFTemplateTokens writes a random-weight Qwen3-shaped GGUF (the
// MNN-Pocket-0.3B tokenizer layout: Qwen3's special tokens, no BOS) that
// carries Qwen3-0.6B's real chat template in tokenizer.chat_template, and
// checks that a chat request with thinking off is rendered from the GGUF
// exactly as jinja2 renders it and sent as those tokens, no BOS added.
func TestChatGGUFTemplateTokens(t *testing.T) {
	if _, err := LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed: %v", err)
	}
	src, err := os.ReadFile("../chattemplate/testdata/templates/qwen3-0.6b.jinja")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]struct{ Text string }
	b, err := os.ReadFile("../chattemplate/testdata/golden/qwen3-0.6b.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	v, err := randmodel.SyntheticBPE(randmodel.Shapes["tiny"].Vocab)
	if err != nil {
		t.Fatal(err)
	}
	v.ChatTemplate = string(src)
	var buf bytes.Buffer
	if err := randmodel.Write(&buf, randmodel.Shapes["tiny"], randmodel.Options{Name: "tiny", Type: gguf.Q8_0, Vocab: v, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "qwen3-tiny.gguf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := Open(context.Background(), Options{Model: path, Thinking: chattemplate.ThinkingOff})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	prompts := capture(rt)
	info := rt.ChatTemplate()
	if info.Source != "gguf:tokenizer.chat_template" || info.SHA256 != chattemplate.SHA256(string(src)) ||
		info.ThinkingApplied != "enable_thinking=false" || info.EOS != "<|im_end|>" || info.AddsBOS {
		t.Errorf("ChatTemplate() = %+v", info)
	}
	req := runtime.Request{Messages: []runtime.Message{
		{Role: "system", Content: "Answer briefly."}, {Role: "user", Content: "Name a prime number."},
		{Role: "assistant", Content: "7"}, {Role: "user", Content: "And an even one?"},
	}, Gen: runtime.GenConfig{MaxTokens: 2}}
	resp, err := rt.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := golden["multi-turn@thinking-off"].Text
	if want == "" || resp.RenderedPrompt != want {
		t.Fatalf("RenderedPrompt = %q, jinja2 golden %q", resp.RenderedPrompt, want)
	}
	sent := prompts()[0]
	if !equalTokens(sent, llama.Tokenize(rt.vocab, want, false, true)) {
		t.Errorf("tokens sent differ from the golden render's tokens")
	}
	imStart := llama.Tokenize(rt.vocab, "<|im_start|>", false, true)
	if len(imStart) != 1 || countToken(sent, imStart[0]) != 5 {
		t.Errorf("<|im_start|> is not one special token appearing 5 times: %v in %v", imStart, sent)
	}
}
