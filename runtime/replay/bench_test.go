package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// BenchmarkOpenServe opens a predictions file of 10,000 pocketeval lines
// with 200-word responses and serves every one in file order, as a
// replay run does.
func BenchmarkOpenServe(b *testing.B) {
	path := filepath.Join(b.TempDir(), "preds.jsonl")
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	const n = 10000
	for i := 0; i < n; i++ {
		resp := strings.Repeat(fmt.Sprintf("word%d naïve 日本 — \"q\" ", i%7), 40)
		if err := enc.Encode(map[string]any{"task": "mmlu", "id": fmt.Sprintf("s/%d", i), "response": resp, "finish_reason": "stop"}); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	ctx := context.Background()
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if _, err := r.Generate(ctx, runtime.Request{Task: "mmlu", ID: fmt.Sprintf("s/%d", i)}); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
}
