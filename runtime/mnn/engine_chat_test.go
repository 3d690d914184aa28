//go:build cgo && mnn

package mnn

import (
	"context"
	"reflect"
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
