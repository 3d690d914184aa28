package serve

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/serve/internal/fake"
)

// BenchmarkRoundTrip measures the HTTP bridge's overhead per request: the
// openai runtime calling a served fake runtime (which itself costs
// microseconds) over loopback, with a 64-word answer.
func BenchmarkRoundTrip(b *testing.B) {
	words := ""
	for i := 0; i < 63; i++ {
		words += "w "
	}
	req := runtime.Request{Messages: []runtime.Message{{Role: "user", Content: words}}}
	for _, noStream := range []bool{false, true} {
		b.Run(map[bool]string{false: "stream", true: "nostream"}[noStream], func(b *testing.B) {
			h := New(&fake.Runtime{}, Options{MaxConcurrent: 4})
			srv := newBenchServer(b, h)
			c, err := openai.New(openai.Options{BaseURL: srv + "/v1", NoStream: noStream})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Generate(context.Background(), req)
				if err != nil || resp.CompletionTokens != 64 {
					b.Fatalf("%v %+v", err, resp)
				}
			}
		})
	}
}

func newBenchServer(b *testing.B, h *Handler) string {
	b.Helper()
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv.URL
}
