//go:build !nollamacpp

package llamacpp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// BenchmarkGenerate measures the engine through Generate: stories260K, one
// thread, a greedy 128-token answer to a short raw prompt. tok/s is
// completion tokens over wall time (prefill included); decode-tok/s is the
// runtime's own decode measurement.
func BenchmarkGenerate(b *testing.B) {
	for _, fa := range []string{"auto", "off"} {
		b.Run("flash_attn="+fa, func(b *testing.B) {
			rt := open(b, stories, Options{Threads: 1, FlashAttention: fa})
			req := runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 128}}
			var tokens int
			var decode float64
			var ttft time.Duration
			b.ResetTimer()
			for b.Loop() {
				resp, err := rt.Generate(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				tokens += resp.CompletionTokens
				decode += resp.Timings.DecodeTokPerSec
				ttft += resp.Timings.TimeToFirstToken
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tok/s")
			b.ReportMetric(float64(tokens)/float64(b.N), "tokens/op")
			b.ReportMetric(decode/float64(b.N), "decode-tok/s")
			b.ReportMetric(float64(ttft.Microseconds())/float64(b.N), "ttft-µs")
		})
	}
}

// BenchmarkBench is llm_bench's pp64+tg128 through Bench.
func BenchmarkBench(b *testing.B) {
	rt := open(b, stories, Options{Threads: 1})
	var prefill, decode time.Duration
	for b.Loop() {
		res, err := rt.Bench(context.Background(), runtime.BenchRequest{NPrompt: 64, NGen: 128})
		if err != nil {
			b.Fatal(err)
		}
		prefill += res.PrefillTime
		decode += res.DecodeTime
	}
	b.ReportMetric(float64(64*b.N)/prefill.Seconds(), "prefill-tok/s")
	b.ReportMetric(float64(128*b.N)/decode.Seconds(), "decode-tok/s")
}

// BenchmarkLogLikelihood scores four one-word continuations of a context
// of about 200 tokens, the shape of a multiple-choice question.
func BenchmarkLogLikelihood(b *testing.B) {
	rt := open(b, stories, Options{Threads: 1})
	ctx := strings.Repeat("Once upon a time, there was a little girl named Lily. ", 10) + "She loved to play with her"
	reqs := []runtime.LoglikRequest{
		{Context: ctx, Continuation: " ball"}, {Context: ctx, Continuation: " dog"},
		{Context: ctx, Continuation: " friends"}, {Context: ctx, Continuation: " mom"},
	}
	for b.Loop() {
		if _, err := rt.LogLikelihood(context.Background(), reqs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(reqs)*b.N)/b.Elapsed().Seconds(), "requests/s")
}
