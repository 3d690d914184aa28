//go:build !nollamacpp

package llamacpp

import (
	"context"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// TestGenerateStream: streamed text arrives in many deltas that join to
// exactly what Generate returns, with and without a stop sequence that
// ends the text, and concurrently with another sequence in the batch.
func TestGenerateStream(t *testing.T) {
	rt := open(t, stories, Options{Workers: 2})
	ctx := context.Background()
	for _, gen := range []runtime.GenConfig{
		{MaxTokens: 60},
		{MaxTokens: 60, Stop: []string{" the"}},
		{MaxTokens: 60, Stop: []string{"."}},
	} {
		req := runtime.Request{Prompt: "Once upon a time", Gen: gen}
		want, err := rt.Generate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var deltas []string
		got, err := rt.GenerateStream(ctx, req, func(d string) error { deltas = append(deltas, d); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || strings.Join(deltas, "") != want.Text {
			t.Errorf("stop %q: streamed %q joined %q, Generate %q", gen.Stop, got.Text, strings.Join(deltas, ""), want.Text)
		}
		// GenerateStream may join deltas a client has not taken yet, so
		// the granularity is checked on the text stream itself, which
		// the decode loop tells after every token.
		var perToken []string
		if _, err := rt.generate(ctx, req, runtime.NewTextStream(func(d string) { perToken = append(perToken, d) }, gen.Stop)); err != nil {
			t.Fatal(err)
		}
		if strings.Join(perToken, "") != want.Text || want.CompletionTokens > 8 && len(perToken) < want.CompletionTokens/2 {
			t.Errorf("stop %q: %d deltas for %d tokens (%q): not streamed token by token", gen.Stop, len(perToken), want.CompletionTokens, perToken)
		}
		for _, st := range gen.Stop {
			for _, d := range deltas {
				if strings.Contains(d, st) {
					t.Errorf("a delta %q carries the stop %q", d, st)
				}
			}
		}
	}
}
