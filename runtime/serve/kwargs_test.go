package serve

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/serve/internal/fake"
)

// templating renders chat requests with a real chat template, as the
// llamacpp and MNN runtimes do (their own variables, then the request's
// TemplateKwargs), and answers with the fake's text and the render.
type templating struct {
	fake.Runtime
	tmpl *chattemplate.Template

	mu     sync.Mutex
	kwargs []map[string]any // each request's TemplateKwargs
}

func (r *templating) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return r.GenerateStream(ctx, req, nil)
}

func (r *templating) GenerateStream(ctx context.Context, req runtime.Request, emit func(string) error) (runtime.Response, error) {
	r.mu.Lock()
	r.kwargs = append(r.kwargs, req.TemplateKwargs)
	r.mu.Unlock()
	resp, err := r.Runtime.GenerateStream(ctx, req, emit)
	if err != nil || !req.IsChat() {
		return resp, err
	}
	resp.RenderedPrompt, err = r.tmpl.Chat(req.Messages, chattemplate.ChatOptions{AddGenerationPrompt: true, Extra: req.TemplateKwargs})
	return resp, err
}

func (r *templating) ChatTemplate() runtime.ChatTemplateInfo {
	return runtime.ChatTemplateInfo{Source: "test", SHA256: r.tmpl.SHA256()}
}

func qwen3(t *testing.T) *chattemplate.Template {
	t.Helper()
	src, err := os.ReadFile("../chattemplate/testdata/templates/qwen3-0.6b.jinja")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chattemplate.Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// TestThinkingThroughServe: the openai runtime's --thinking reaches the
// served runtime's template as enable_thinking, and the prompt it
// rendered comes back in the response, streamed or not: Qwen3's template
// pre-fills an empty think block only with thinking off.
func TestThinkingThroughServe(t *testing.T) {
	t.Parallel()
	rt := &templating{tmpl: qwen3(t)}
	_, srv := newServer(t, rt, Options{})
	req := runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "What is 2+2?"}}, Gen: runtime.GenConfig{MaxTokens: 4}}
	const open = "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"
	for _, c := range []struct {
		thinking chattemplate.Thinking
		kwargs   map[string]any
		rendered string
	}{
		{chattemplate.ThinkingModelDefault, nil, open},
		{chattemplate.ThinkingOn, map[string]any{"enable_thinking": true}, open},
		{chattemplate.ThinkingOff, map[string]any{"enable_thinking": false}, open + "<think>\n\n</think>\n\n"},
	} {
		for _, noStream := range []bool{false, true} {
			cl := newClient(t, srv.URL, func(o *openai.Options) { o.Thinking, o.NoStream = c.thinking, noStream })
			rt.mu.Lock()
			rt.kwargs = nil
			rt.mu.Unlock()
			resp, err := cl.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			rt.mu.Lock()
			got := rt.kwargs
			rt.mu.Unlock()
			if len(got) != 1 || len(got[0]) != len(c.kwargs) || (c.kwargs != nil && got[0]["enable_thinking"] != c.kwargs["enable_thinking"]) {
				t.Errorf("thinking %s (no stream %v): the runtime got kwargs %v, want %v", c.thinking, noStream, got, c.kwargs)
			}
			if resp.RenderedPrompt != c.rendered {
				t.Errorf("thinking %s (no stream %v): rendered %q, want %q", c.thinking, noStream, resp.RenderedPrompt, c.rendered)
			}
			if resp.Text != "echo: 2+2? is What" {
				t.Errorf("thinking %s: text %q", c.thinking, resp.Text)
			}
		}
	}
}

// TestTemplateKwargsHTTP: chat_template_kwargs is an object whose members
// all reach the template (as llama-server passes them on), enable_thinking
// must be a boolean, and a runtime that renders no template refuses them
// rather than ignore them.
func TestTemplateKwargsHTTP(t *testing.T) {
	t.Parallel()
	rt := &templating{tmpl: qwen3(t)}
	_, srv := newServer(t, rt, Options{})
	_, plainSrv := newServer(t, &fake.Runtime{}, Options{})
	const user = `"messages":[{"role":"user","content":"hi"}]`
	for _, tt := range []httpCase{
		{name: "off", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":{"enable_thinking":false}}`, wantStatus: 200,
			wantIn: `"pocketeval":{"seed":42,"rendered_prompt":"\u003c|im_start|\u003euser\nhi\u003c|im_end|\u003e\n\u003c|im_start|\u003eassistant\n\u003cthink\u003e\n\n\u003c/think\u003e\n\n"}`},
		{name: "other kwargs", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":{"custom":[1,"a"]}}`, wantStatus: 200},
		{name: "null", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":null}`, wantStatus: 200},
		{name: "not an object", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":"enable_thinking=false"}`, wantStatus: 400, wantParam: "chat_template_kwargs", wantIn: "must be an object"},
		{name: "string switch", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":{"enable_thinking":"false"}}`, wantStatus: 400, wantParam: "chat_template_kwargs.enable_thinking", wantIn: "must be a boolean, got a string"},
	} {
		doCase(t, srv.URL, tt)
	}
	rt.mu.Lock()
	if len(rt.kwargs) != 3 || rt.kwargs[0]["enable_thinking"] != false || len(rt.kwargs[1]["custom"].([]any)) != 2 || rt.kwargs[2] != nil {
		t.Errorf("the runtime got kwargs %v", rt.kwargs)
	}
	rt.mu.Unlock()
	for _, tt := range []httpCase{
		{name: "no template", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":{"enable_thinking":false}}`, wantStatus: 400, wantParam: "chat_template_kwargs", wantIn: "does not render chat templates"},
		{name: "no template, empty", path: "/v1/chat/completions", body: `{` + user + `,"chat_template_kwargs":{}}`, wantStatus: 200},
	} {
		doCase(t, plainSrv.URL, tt)
	}
}

// TestTemplateKwargsProxied: serve in front of the openai runtime (a
// re-exporting proxy) forwards chat_template_kwargs to the server behind
// it and passes its rendered prompt back.
func TestTemplateKwargsProxied(t *testing.T) {
	t.Parallel()
	rt := &templating{tmpl: qwen3(t)}
	_, back := newServer(t, rt, Options{})
	_, front := newServer(t, newClient(t, back.URL, nil), Options{})
	doCase(t, front.URL, httpCase{name: "proxied", path: "/v1/chat/completions",
		body: `{"messages":[{"role":"user","content":"hi"}],"chat_template_kwargs":{"enable_thinking":false}}`, wantStatus: 200,
		wantIn: `\u003cthink\u003e\n\n\u003c/think\u003e\n\n"}`})
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.kwargs) != 1 || rt.kwargs[0]["enable_thinking"] != false {
		t.Errorf("the runtime behind the proxy got kwargs %v", rt.kwargs)
	}
}
