//go:build cgo && mnn

package mnn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// recorder passes every call to the real engine and keeps the prompts fed
// to Prefill.
type recorder struct {
	engine
	mu      sync.Mutex
	prompts [][]int
}

func (r *recorder) Prefill(ids []int, keep int) (stats, error) {
	r.mu.Lock()
	r.prompts = append(r.prompts, append([]int(nil), ids...))
	r.mu.Unlock()
	return r.engine.Prefill(ids, keep)
}

// TestEngineChatTokens runs the tiny packages through the real engine and
// inspects the tokens sent: they are MNN's tokenization of the Go render
// of llm_config.json's template, and that render equals MNN's own
// apply_chat_template for this template, byte for byte.
func TestEngineChatTokens(t *testing.T) {
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			r := openTiny(t, name, Options{})
			s := r.pool.idle[0]
			e := s.e
			rec := &recorder{engine: e}
			s.e = rec
			resp, err := r.Generate(context.Background(), chat)
			if err != nil {
				t.Fatal(err)
			}
			own, err := e.Template(chat.Messages)
			if err != nil {
				t.Fatal(err)
			}
			if resp.RenderedPrompt != own {
				t.Errorf("Go render %q, MNN's own %q", resp.RenderedPrompt, own)
			}
			want, err := e.Tokenize(resp.RenderedPrompt)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.prompts) != 1 || !reflect.DeepEqual(rec.prompts[0], want) {
				t.Errorf("tokens sent %v, want the render tokenized %v", rec.prompts, want)
			}
			if resp.PromptTokens != len(want) {
				t.Errorf("PromptTokens %d, want %d", resp.PromptTokens, len(want))
			}
			info := r.ChatTemplate()
			if info.Source != "llm_config.json:jinja.chat_template" || info.EOS != "<|im_end|>" || info.ThinkingApplied != "the template's default" {
				t.Errorf("ChatTemplate() = %+v", info)
			}
			// An override is what is sent, not the package's template.
			o := openTiny(t, name, Options{ChatTemplate: chattemplate.ChatML + "X", ChatTemplateSource: "file:x"})
			got, err := o.Generate(context.Background(), runtime.Request{Messages: chat.Messages, Gen: runtime.GenConfig{MaxTokens: 1}})
			if err != nil || got.RenderedPrompt != own+"X" {
				t.Errorf("override rendered %q, %v", got.RenderedPrompt, err)
			}
		})
	}
}

// TestEngineTools: on the real engine a request with tools is rendered by
// the package's template with them (Qwen3's here, over the tiny
// package's) and tokenized as rendered; streamed, it gives Generate's
// answer. (The random weights write no call; TestChatTools checks the
// parsing.)
func TestEngineTools(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join("..", "chattemplate", "testdata", "templates", "qwen3-0.6b.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	r := openTiny(t, "tiny-int4", Options{ChatTemplate: string(tmpl), ChatTemplateSource: "file:qwen3-0.6b.jinja"})
	s := r.pool.idle[0]
	rec := &recorder{engine: s.e}
	s.e = rec
	req := runtime.Request{Messages: chat.Messages, Gen: runtime.GenConfig{MaxTokens: 8},
		Tools: json.RawMessage(`[{"type":"function","function":{"name":"get_weather","description":"Weather in a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`)}
	resp, err := r.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.RenderedPrompt, "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\"") {
		t.Errorf("the rendered prompt lacks the tools:\n%s", resp.RenderedPrompt)
	}
	want, err := rec.engine.Tokenize(resp.RenderedPrompt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.prompts) != 1 || !reflect.DeepEqual(rec.prompts[0], want) || resp.PromptTokens != len(want) {
		t.Errorf("tokens sent %v (%d counted), want the render tokenized %v", rec.prompts, resp.PromptTokens, want)
	}
	var streamed strings.Builder
	got, err := r.GenerateStream(context.Background(), req, func(d string) error { streamed.WriteString(d); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != resp.Text || !reflect.DeepEqual(got.ToolCalls, resp.ToolCalls) || streamed.String() != resp.Text && got.ToolCalls == nil {
		t.Errorf("streamed %q (%q, calls %v), Generate %q (calls %v)", streamed.String(), got.Text, got.ToolCalls, resp.Text, resp.ToolCalls)
	}
}
