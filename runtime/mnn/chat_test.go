package mnn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// chatPackage writes an MNN package directory holding only what chat
// rendering reads, and a runtime over one fake engine for it.
func chatPackage(t *testing.T, opts Options, prefix []int, files map[string]any) (*Runtime, *fakeEngine) {
	t.Helper()
	dir := t.TempDir()
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := opts.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeEngine{pieces: []string{"ok"}, prefix: prefix}
	return newRuntime(opts, Package{Config: filepath.Join(dir, "config.json"), Dir: dir}, "3.6.1", 0, []engine{f}), f
}

func idsOf(prefix []int, s string) []int {
	ids := append([]int(nil), prefix...)
	for _, c := range []byte(s) {
		ids = append(ids, int(c))
	}
	return ids
}

var mnnChat = runtime.Request{Messages: []runtime.Message{
	{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"},
}, Gen: runtime.GenConfig{MaxTokens: 1}}

// TestChatJinjaTokens: llm_config.json's jinja template is rendered in Go
// with jinja.bos/eos; the BOS text it renders is not tokenized on top of
// the tokenizer's own prefix token, so the prompt starts with one BOS.
func TestChatJinjaTokens(t *testing.T) {
	tmpl := "{{ bos_token }}{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
	rt, f := chatPackage(t, Options{}, []int{7}, map[string]any{
		"config.json":     map[string]any{"llm_model": "llm.mnn"},
		"llm_config.json": map[string]any{"jinja": map[string]any{"chat_template": tmpl, "bos": "<bos>", "eos": "<|im_end|>"}},
	})
	resp, err := rt.Generate(context.Background(), mnnChat)
	if err != nil {
		t.Fatal(err)
	}
	const want = "<bos><|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
	if resp.RenderedPrompt != want {
		t.Errorf("RenderedPrompt = %q, want %q", resp.RenderedPrompt, want)
	}
	if got, wantIDs := f.prefill[0], idsOf([]int{7}, strings.TrimPrefix(want, "<bos>")); !reflect.DeepEqual(got, wantIDs) {
		t.Errorf("tokens sent %v, want one prefix token then the rendered text after its BOS", got)
	}
	info := rt.ChatTemplate()
	if info.Source != "llm_config.json:jinja.chat_template" || info.SHA256 != chattemplate.SHA256(tmpl) || info.BOS != "<bos>" || info.EOS != "<|im_end|>" {
		t.Errorf("ChatTemplate() = %+v", info)
	}
}

// TestChatThinkingContext: context.json's variables reach the template;
// --thinking overrides its enable_thinking.
func TestChatThinkingContext(t *testing.T) {
	tmpl := "{% for m in messages %}{{ m.content }}{% endfor %}{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}"
	files := map[string]any{
		"config.json":     map[string]any{"jinja": map[string]any{"chat_template": tmpl}},
		"llm_config.json": map[string]any{"model_type": "qwen3"},
		"context.json":    map[string]any{"enable_thinking": false},
	}
	for _, c := range []struct {
		mode    chattemplate.Thinking
		want    string
		applied string
	}{
		{chattemplate.ThinkingModelDefault, "Be brief.Hi<think>\n\n</think>\n\n", "enable_thinking=false (the package's context)"},
		{chattemplate.ThinkingOn, "Be brief.Hi", "enable_thinking=true"},
		{chattemplate.ThinkingOff, "Be brief.Hi<think>\n\n</think>\n\n", "enable_thinking=false"},
	} {
		rt, f := chatPackage(t, Options{Thinking: c.mode}, nil, files)
		if _, err := rt.Generate(context.Background(), mnnChat); err != nil {
			t.Fatal(err)
		}
		if got := f.prefill[0]; !reflect.DeepEqual(got, idsOf(nil, c.want)) {
			t.Errorf("thinking %s: sent %q, want %q", c.mode, string(bytesOf(got)), c.want)
		}
		if got := rt.ChatTemplate().ThinkingApplied; got != c.applied {
			t.Errorf("thinking %s: ThinkingApplied = %q, want %q", c.mode, got, c.applied)
		}
		// A request's own enable_thinking (pocketeval serve passes a
		// client's chat_template_kwargs) wins over both.
		for i, on := range []bool{true, false} {
			req := mnnChat
			req.TemplateKwargs = map[string]any{"enable_thinking": on}
			if _, err := rt.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			want := "Be brief.Hi"
			if !on {
				want += "<think>\n\n</think>\n\n"
			}
			if got := f.prefill[1+i]; !reflect.DeepEqual(got, idsOf(nil, want)) {
				t.Errorf("thinking %s, request enable_thinking=%v: sent %q, want %q", c.mode, on, string(bytesOf(got)), want)
			}
		}
	}
}

// TestChatLegacyAndNone: older packages' prompt_template keys, and MNN's
// concatenation when a package has no template at all.
func TestChatLegacyAndNone(t *testing.T) {
	rt, f := chatPackage(t, Options{}, nil, map[string]any{
		"config.json": map[string]any{"prompt_template": "<user>%s</user><bot>", "assistant_prompt_template": "<bot>%s</bot>"},
	})
	one := runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "Hi"}}, Gen: runtime.GenConfig{MaxTokens: 1}}
	if _, err := rt.Generate(context.Background(), one); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Generate(context.Background(), mnnChat); err != nil {
		t.Fatal(err)
	}
	if got := string(bytesOf(f.prefill[0])); got != "<user>Hi</user><bot>" {
		t.Errorf("single user message: %q", got)
	}
	if got := string(bytesOf(f.prefill[1])); got != "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<bot>" {
		t.Errorf("conversation: %q", got)
	}
	rt, f = chatPackage(t, Options{}, nil, map[string]any{"config.json": map[string]any{}})
	if _, err := rt.Generate(context.Background(), mnnChat); err != nil {
		t.Fatal(err)
	}
	if got := string(bytesOf(f.prefill[0])); got != "Be brief.Hi" || !strings.HasPrefix(rt.ChatTemplate().Source, "none") {
		t.Errorf("no template: sent %q, source %q", got, rt.ChatTemplate().Source)
	}
}

// TestChatOverride: Options.ChatTemplate replaces the package's template;
// a template that does not parse fails chat requests with its source named.
func TestChatOverride(t *testing.T) {
	files := map[string]any{"llm_config.json": map[string]any{"jinja": map[string]any{"chat_template": "PKG"}}}
	now := time.Date(2024, 7, 26, 0, 0, 0, 0, time.UTC)
	rt, f := chatPackage(t, Options{ChatTemplate: `{{ strftime_now("%d %b %Y") }}:{{ messages[-1].content }}`, ChatTemplateSource: "file:x.jinja", TemplateNow: now}, nil, files)
	if _, err := rt.Generate(context.Background(), mnnChat); err != nil {
		t.Fatal(err)
	}
	if got := string(bytesOf(f.prefill[0])); got != "26 Jul 2024:Hi" {
		t.Errorf("override rendered %q", got)
	}
	if info := rt.ChatTemplate(); info.Source != "file:x.jinja" || info.Date != now.Format(time.RFC3339) {
		t.Errorf("ChatTemplate() = %+v", info)
	}
	rt, _ = chatPackage(t, Options{ChatTemplate: "{% if %}"}, nil, files)
	if _, err := rt.Generate(context.Background(), mnnChat); err == nil || !strings.Contains(err.Error(), "chat template (option)") {
		t.Errorf("unparsable template: %v", err)
	}
}

// TestChatTools: a package whose llm_config.json carries Qwen3's chat
// template renders a request's tools exactly as transformers does (the
// golden was rendered by Python's jinja2, scripts/chattemplate-goldens.py),
// and the tool calls the model writes come back parsed, as the llama.cpp
// runtime parses them (runtime/toolcall), streamed or not.
func TestChatTools(t *testing.T) {
	tdata := filepath.Join("..", "chattemplate", "testdata")
	tmpl, err := os.ReadFile(filepath.Join(tdata, "templates", "qwen3-0.6b.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	var convs map[string]json.RawMessage
	var golden map[string]struct {
		Text string `json:"text"`
	}
	for name, v := range map[string]any{"tool-conversations.json": &convs, "golden-tools/qwen3-0.6b.json": &golden} {
		b, err := os.ReadFile(filepath.Join(tdata, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var conv struct {
		Tools    json.RawMessage   `json:"tools"`
		Messages []runtime.Message `json:"messages"`
	}
	if err := json.Unmarshal(convs["tools-user"], &conv); err != nil {
		t.Fatal(err)
	}
	want := golden["tools-user"].Text
	if len(conv.Tools) == 0 || want == "" {
		t.Fatal("the tools-user conversation or its Qwen3 golden is missing")
	}
	rt, f := chatPackage(t, Options{}, nil, map[string]any{
		"config.json":     map[string]any{"llm_model": "llm.mnn"},
		"llm_config.json": map[string]any{"jinja": map[string]any{"chat_template": string(tmpl), "eos": "<|im_end|>"}},
	})
	f.pieces = []string{"Let me check.\n", "<tool_call>\n", `{"name": "get_weather", `, `"arguments": {"location": "Paris", "days": 3}}`, "\n</tool_call>"}
	req := runtime.Request{Messages: conv.Messages, Tools: conv.Tools, Gen: runtime.GenConfig{MaxTokens: 16}}
	wantCalls := []runtime.ToolCall{{ID: "call_0", Name: "get_weather", Arguments: `{"location":"Paris","days":3}`}}
	for _, stream := range []bool{false, true} {
		var resp runtime.Response
		var err error
		var streamed strings.Builder
		if stream {
			resp, err = rt.GenerateStream(context.Background(), req, func(d string) error { streamed.WriteString(d); return nil })
		} else {
			resp, err = rt.Generate(context.Background(), req)
		}
		if err != nil {
			t.Fatal(err)
		}
		if resp.RenderedPrompt != want {
			t.Errorf("stream %v: rendered\n%q\nwant (transformers)\n%q", stream, resp.RenderedPrompt, want)
		}
		if resp.Text != "Let me check.\n" || !reflect.DeepEqual(resp.ToolCalls, wantCalls) {
			t.Errorf("stream %v: text %q, calls %+v; want the content before the call and %+v", stream, resp.Text, resp.ToolCalls, wantCalls)
		}
		if stream && !strings.HasPrefix(streamed.String(), "Let me check.\n<tool_call>") {
			t.Errorf("streamed %q: want the generated text as it was decoded", streamed.String())
		}
		f.step = 0
	}
	// Without tools the same text is left as it is.
	resp, err := rt.Generate(context.Background(), runtime.Request{Messages: conv.Messages, Gen: runtime.GenConfig{MaxTokens: 16}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ToolCalls != nil || !strings.Contains(resp.Text, "<tool_call>") {
		t.Errorf("a request without tools: text %q, calls %+v; want the text unparsed", resp.Text, resp.ToolCalls)
	}
}

// TestChatToolsNeedJinja: tools cannot be rendered by printf-style
// templates or plain concatenation; such a request fails, saying why,
// rather than silently dropping the tools.
func TestChatToolsNeedJinja(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`)
	for name, files := range map[string]map[string]any{
		"legacy": {"config.json": map[string]any{"prompt_template": "<u>%s</u>"}},
		"none":   {"config.json": map[string]any{"llm_model": "llm.mnn"}},
	} {
		rt, _ := chatPackage(t, Options{}, nil, files)
		_, err := rt.Generate(context.Background(), runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "hi"}}, Tools: tools})
		if err == nil || !strings.Contains(err.Error(), "no Jinja chat template") {
			t.Errorf("%s: err = %v, want the missing Jinja template named", name, err)
		}
		if _, err := rt.Generate(context.Background(), runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "hi"}}, Tools: json.RawMessage("[]")}); err != nil {
			t.Errorf("%s: an empty tools array: %v", name, err)
		}
	}
}

// TestChatRenderCancelled: a chat request's render stops when the
// request's context ends, with the context's error.
func TestChatRenderCancelled(t *testing.T) {
	rt, _ := chatPackage(t, Options{}, nil, map[string]any{
		"config.json":     map[string]any{"llm_model": "llm.mnn"},
		"llm_config.json": map[string]any{"jinja": map[string]any{"chat_template": runtimetest.SlowChatTemplate}},
	})
	if err := runtimetest.CheckRenderCancelled(rt, mnnChat); err != nil {
		t.Error(err)
	}
}
