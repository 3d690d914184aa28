//go:build cgo && mnn

package mnn

import (
	"context"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// TestEngineGenerateStream: greedy and sampled, the streamed deltas join
// to exactly what Generate returns, token by token rather than at the end.
func TestEngineGenerateStream(t *testing.T) {
	r := openTiny(t, "tiny-int4", Options{})
	ctx := context.Background()
	for _, gen := range []runtime.GenConfig{
		{MaxTokens: 32},
		{MaxTokens: 32, Temperature: 0.8, Seed: 7},
	} {
		req := runtime.Request{Prompt: "Once upon a time", Gen: gen}
		want, err := r.Generate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var deltas []string
		got, err := r.GenerateStream(ctx, req, func(d string) error { deltas = append(deltas, d); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || strings.Join(deltas, "") != want.Text {
			t.Errorf("temperature %g: streamed %q joined %q, Generate %q", gen.Temperature, got.Text, strings.Join(deltas, ""), want.Text)
		}
		// GenerateStream may join deltas a client has not taken yet, so
		// the granularity is checked on the text stream itself.
		var perToken []string
		if _, err := r.generateText(ctx, req, runtime.NewTextStream(func(d string) { perToken = append(perToken, d) }, gen.Stop)); err != nil {
			t.Fatal(err)
		}
		if strings.Join(perToken, "") != want.Text || want.CompletionTokens > 8 && len(perToken) < 3 {
			t.Errorf("temperature %g: %d deltas for %d tokens: not streamed", gen.Temperature, len(perToken), want.CompletionTokens)
		}
	}
}
