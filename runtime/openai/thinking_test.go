package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// TestThinkingRequests: --thinking on|off adds chat_template_kwargs with
// enable_thinking to chat requests and nothing else; model-default sends
// exactly the bytes sent without the option; raw prompts never carry
// template variables.
func TestThinkingRequests(t *testing.T) {
	t.Parallel()
	const (
		chatBody = `{"max_tokens":32,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],"model":"m","seed":42,"stop":["\n\n","END"],"stream":true,"stream_options":{"include_usage":true},"temperature":0,"top_p":0.9}`
		rawBody  = `{"model":"m","prompt":"Once upon","seed":0,"stream":true,"stream_options":{"include_usage":true},"temperature":0.7}`
	)
	raw := runtime.Request{Prompt: "Once upon", Gen: runtime.GenConfig{Temperature: 0.7}}
	for _, c := range []struct {
		name     string
		thinking chattemplate.Thinking
		chat     string
	}{
		{"unset", "", chatBody},
		{"model-default", chattemplate.ThinkingModelDefault, chatBody},
		{"on", chattemplate.ThinkingOn, `{"chat_template_kwargs":{"enable_thinking":true},` + chatBody[1:]},
		{"off", chattemplate.ThinkingOff, `{"chat_template_kwargs":{"enable_thinking":false},` + chatBody[1:]},
	} {
		f := newFake(t)
		cl, _ := testClient(t, f, func(o *Options) { o.Thinking = c.thinking })
		if _, err := cl.Generate(context.Background(), chatReq); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Generate(context.Background(), raw); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		if got := string(f.raws[0]); got != c.chat {
			t.Errorf("%s: chat body\n got %s\nwant %s", c.name, got, c.chat)
		}
		if got := string(f.raws[1]); got != rawBody {
			t.Errorf("%s: completions body\n got %s\nwant %s", c.name, got, rawBody)
		}
		f.mu.Unlock()
	}
}

// TestRequestTemplateKwargs: a request's own template variables are sent
// and win over Options.Thinking (as a request's win over llama-server's
// --reasoning); the caller's map is not changed.
func TestRequestTemplateKwargs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		thinking chattemplate.Thinking
		kwargs   map[string]any
		want     string
	}{
		{chattemplate.ThinkingOff, map[string]any{"enable_thinking": true, "x": "y"}, `{"enable_thinking":true,"x":"y"}`},
		{chattemplate.ThinkingOff, map[string]any{"x": "y"}, `{"enable_thinking":false,"x":"y"}`},
		{chattemplate.ThinkingModelDefault, map[string]any{"x": "y"}, `{"x":"y"}`},
	} {
		f := newFake(t)
		cl, _ := testClient(t, f, func(o *Options) { o.Thinking = c.thinking })
		req := chatReq
		req.TemplateKwargs = c.kwargs
		before := len(c.kwargs)
		if _, err := cl.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		got := string(f.raws[0])
		f.mu.Unlock()
		if !strings.HasPrefix(got, `{"chat_template_kwargs":`+c.want+`,"max_tokens"`) {
			t.Errorf("thinking %s, kwargs %v: body %s, want chat_template_kwargs %s", c.thinking, c.kwargs, got, c.want)
		}
		if len(c.kwargs) != before {
			t.Errorf("the request's kwargs were changed: %v", c.kwargs)
		}
	}
}

// TestRuntimeRecordsThinking: with a thinking mode the runtime reports,
// for the manifest, that it was requested of the server and cannot be
// verified; with model-default it reports no chat template at all.
func TestRuntimeRecordsThinking(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Runtime().(runtime.ChatTemplater); ok {
		t.Error("model-default: the runtime reports a chat template")
	}
	c, err = New(Options{BaseURL: "http://127.0.0.1:1/v1", Thinking: chattemplate.ThinkingOff})
	if err != nil {
		t.Fatal(err)
	}
	rt := c.Runtime()
	ct, ok := rt.(runtime.ChatTemplater)
	if !ok {
		t.Fatal("thinking off: the runtime reports no chat template")
	}
	info := ct.ChatTemplate()
	if info.Source != ServerTemplateSource || info.Thinking != "off" || info.SHA256 != "" ||
		!strings.HasPrefix(info.ThinkingApplied, "enable_thinking=false requested of the server") || !strings.Contains(info.ThinkingApplied, "not verifiable by pocketeval") {
		t.Errorf("ChatTemplate() = %+v", info)
	}
	// The wrapper is still the whole client.
	if _, ok := rt.(runtime.LogLikelihooder); !ok {
		t.Error("the wrapped client lost LogLikelihood")
	}
	if d, ok := rt.(runtime.Describer); !ok || d.Describe().Name != "openai" {
		t.Error("the wrapped client lost Describe")
	}
}
