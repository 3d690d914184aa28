//go:build !nollamacpp

package randmodel

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// TestLlamaCppRunsIt loads written models in the real llama.cpp and
// generates from them, raw and through the chat template. The file is left
// out of -tags nollamacpp builds (the static arm64 one), whose llamacpp
// package has no runtime to load them.
func TestLlamaCppRunsIt(t *testing.T) {
	if _, err := llamacpp.LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	for _, typ := range []gguf.TensorType{gguf.Q8_0, gguf.Q4_0} {
		t.Run(typ.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tiny.gguf")
			if err := os.WriteFile(path, writeTiny(t, typ, 7), 0o644); err != nil {
				t.Fatal(err)
			}
			rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: path})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			info := rt.Describe()
			if got := info.Settings["n_params"]; got != uint64(Shapes["tiny"].Params()) {
				t.Errorf("llama.cpp counts %v parameters, want %d", got, Shapes["tiny"].Params())
			}
			if got := info.Settings["chat_template"]; got != "gguf:tokenizer.chat_template" {
				t.Errorf("chat template %v, want the model's own", got)
			}
			ctx := context.Background()
			resp, err := rt.Generate(ctx, runtime.Request{Prompt: "The quick brown fox", Gen: runtime.GenConfig{MaxTokens: 12}})
			if err != nil {
				t.Fatal(err)
			}
			// Byte pairs: 19 bytes make 10 to 19 tokens (no BOS in this
			// vocabulary).
			if resp.PromptTokens < 10 || resp.PromptTokens > 19 || resp.CompletionTokens == 0 {
				t.Errorf("raw: %d prompt tokens, %d generated; want 10 to 19 and some", resp.PromptTokens, resp.CompletionTokens)
			}
			again, err := rt.Generate(ctx, runtime.Request{Prompt: "The quick brown fox", Gen: runtime.GenConfig{MaxTokens: 12}})
			if err != nil || again.Text != resp.Text {
				t.Errorf("greedy decoding is not repeatable: %q then %q (%v)", resp.Text, again.Text, err)
			}
			chat, err := rt.Generate(ctx, runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "hi"}}, Gen: runtime.GenConfig{MaxTokens: 4}})
			if err != nil {
				t.Fatal(err)
			}
			// <|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n: three
			// special tokens and 18 bytes of text in 9 to 18 tokens; each
			// special token's text alone would be at least 6 more.
			if chat.PromptTokens < 12 || chat.PromptTokens > 21 {
				t.Errorf("chat prompt is %d tokens, want 12 to 21 (special tokens parsed as single tokens)", chat.PromptTokens)
			}
		})
	}
}
