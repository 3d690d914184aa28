//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

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

// BenchmarkConcurrentDecode measures aggregate decode speed with 1, 2, 4
// and 8 requests in flight, batched (Batch on, and exact), on the GGUF named by
// $POCKETEVAL_BENCH_GGUF (e.g. a Pocket-shaped model from tools/ggufgen)
// with $POCKETEVAL_BENCH_THREADS threads (default 2), against one request
// at a time with batching off. A round runs every configuration once, in
// turn, so that a changing machine load hits them alike; each reports the
// median over rounds (b.N) of its decode-tok/s: all requests' decoded
// tokens over the time from the first token of the earliest to the last
// token of the latest. A request is a Bench run of a $POCKETEVAL_BENCH_PROMPT
// (default 128) token prompt and $POCKETEVAL_BENCH_GEN (default 128) decode
// steps; all start together. With one thread it also reports tok/cpu-s,
// decoded tokens per CPU-second of the round (prefill included), which a
// loaded machine distorts less. $POCKETEVAL_BENCH_CONFIGS (e.g.
// "off1,exact8") picks configurations.
func BenchmarkConcurrentDecode(b *testing.B) {
	model := os.Getenv("POCKETEVAL_BENCH_GGUF")
	if model == "" {
		b.Skip("set POCKETEVAL_BENCH_GGUF to a GGUF model to measure")
	}
	env := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
			return v
		}
		return def
	}
	threads := env("POCKETEVAL_BENCH_THREADS", 2)
	nPrompt, nGen := env("POCKETEVAL_BENCH_PROMPT", 128), env("POCKETEVAL_BENCH_GEN", 128)
	type config struct {
		batch    string
		conc     int
		rt       *Runtime
		rates    []float64
		cpuRates []float64 // decoded tokens per CPU-second of the whole round
	}
	configs := []*config{{batch: "off", conc: 1}, {batch: "on", conc: 1}, {batch: "on", conc: 2}, {batch: "on", conc: 4}, {batch: "on", conc: 8},
		{batch: "exact", conc: 2}, {batch: "exact", conc: 4}, {batch: "exact", conc: 8}}
	if only := os.Getenv("POCKETEVAL_BENCH_CONFIGS"); only != "" {
		// e.g. off1,exact8
		configs = slices.DeleteFunc(configs, func(c *config) bool {
			return !slices.Contains(strings.Split(only, ","), fmt.Sprintf("%s%d", c.batch, c.conc))
		})
	}
	for _, c := range configs {
		rt, err := Open(context.Background(), Options{Model: model, Threads: threads, Workers: c.conc, Batch: c.batch, ContextSize: nPrompt + nGen + 1})
		if err != nil {
			b.Fatal(err)
		}
		defer rt.Close()
		c.rt = rt
	}
	for b.Loop() {
		for _, c := range configs {
			var wg sync.WaitGroup
			c0 := cpuTime()
			starts, ends := make([]time.Time, c.conc), make([]time.Time, c.conc)
			for i := range c.conc {
				wg.Go(func() {
					res, err := c.rt.Bench(context.Background(), runtime.BenchRequest{NPrompt: nPrompt, NGen: nGen})
					if err != nil {
						b.Error(err)
						return
					}
					ends[i] = time.Now()
					starts[i] = ends[i].Add(-res.DecodeTime)
				})
			}
			wg.Wait()
			first, last := starts[0], ends[0]
			for i := range c.conc {
				first, last = minTime(first, starts[i]), maxTime(last, ends[i])
			}
			c.rates = append(c.rates, float64(c.conc*nGen)/last.Sub(first).Seconds())
			c.cpuRates = append(c.cpuRates, float64(c.conc*nGen)/(cpuTime()-c0).Seconds())
		}
	}
	for _, c := range configs {
		slices.Sort(c.rates)
		slices.Sort(c.cpuRates)
		b.ReportMetric(c.rates[len(c.rates)/2], fmt.Sprintf("batch-%s-conc%d-tok/s", c.batch, c.conc))
		if threads == 1 {
			// With one thread, CPU time is the time the model had.
			b.ReportMetric(c.cpuRates[len(c.cpuRates)/2], fmt.Sprintf("batch-%s-conc%d-tok/cpu-s", c.batch, c.conc))
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// BenchmarkDecodeBatchSize measures llama.cpp itself: the cost per token
// of one llama_decode over n tokens, n sequences of one token each (a
// batched decode step) or one sequence of n tokens (a prefill chunk), each
// sequence holding 16 tokens of context, on $POCKETEVAL_BENCH_GGUF with
// $POCKETEVAL_BENCH_THREADS threads (default 1). cpu-ns/token is the
// process's CPU time per token, which a loaded machine inflates less than
// wall time. How the cost per token falls with n bounds what batching can
// gain: the aggregate rate at n sequences is at most n times the
// one-sequence cost over the n-sequence cost.
func BenchmarkDecodeBatchSize(b *testing.B) {
	model := os.Getenv("POCKETEVAL_BENCH_GGUF")
	if model == "" {
		b.Skip("set POCKETEVAL_BENCH_GGUF to a GGUF model to measure")
	}
	threads := 1
	if v, err := strconv.Atoi(os.Getenv("POCKETEVAL_BENCH_THREADS")); err == nil && v > 0 {
		threads = v
	}
	const ctxTokens = 16
	rt, err := Open(context.Background(), Options{Model: model, Threads: threads, Workers: 8, ContextSize: 256})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	d := rt.sched.decoders[0]
	for _, n := range []int{1, 2, 4, 8} {
		for _, multi := range []bool{true, false} {
			name := fmt.Sprintf("sequences=%d", n)
			if !multi {
				name = fmt.Sprintf("one-sequence-tokens=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				var cpu, wall time.Duration
				for b.Loop() {
					llama.MemoryClear(d.mem, false)
					d.batch.Clear()
					for s := range 8 {
						for p := range ctxTokens {
							d.batch.Add(rt.benchTk, llama.Pos(p), []llama.SeqId{llama.SeqId(s)}, false)
						}
					}
					if err := d.decode(); err != nil {
						b.Fatal(err)
					}
					d.batch.Clear()
					for i := range n {
						if multi {
							d.batch.Add(rt.benchTk, ctxTokens, []llama.SeqId{llama.SeqId(i)}, true)
						} else {
							d.batch.Add(rt.benchTk, llama.Pos(ctxTokens+i), []llama.SeqId{0}, true)
						}
					}
					c0, w0 := cpuTime(), time.Now()
					if err := d.decode(); err != nil {
						b.Fatal(err)
					}
					cpu, wall = cpu+cpuTime()-c0, wall+time.Since(w0)
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/token")
				b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N*n), "wall-ns/token")
			})
		}
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
