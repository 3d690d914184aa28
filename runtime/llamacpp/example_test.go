//go:build !nollamacpp

package llamacpp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// Open a GGUF file with two contexts and ask for a short greedy answer.
// The libraries come from scripts/setup-llamacpp.sh.
func ExampleOpen() {
	ctx := context.Background()
	rt, err := llamacpp.Open(ctx, llamacpp.Options{Model: "stories260K.gguf", Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	resp, err := rt.Generate(ctx, runtime.Request{
		Messages: []runtime.Message{{Role: "user", Content: "Tell me a story."}},
		Gen:      runtime.GenConfig{MaxTokens: 64, Stop: []string{"\n\n"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text, resp.FinishReason, resp.CompletionTokens)
}
