package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/stats"
)

// Prompts are a task's real requests, rendered as `pocketeval run` renders
// them (runner.Prompts), for measuring latency as an application feels
// it instead of synthetic token throughput.
type Prompts struct {
	Task     string
	Requests []runtime.Request
	// Level is the confidence level of the quantile intervals (0: 0.95).
	Level float64
	// Progress, when not nil, is told of each measured request: done of
	// total (the requests times the repetitions).
	Progress func(done, total int)
}

// Latency is what the prompts took: per request, the time to the first
// token (the runtime's measurement), the time per output token after the
// first, (end-to-end − TTFT) / (completion tokens − 1) as vLLM's
// benchmark_serving defines TPOT, and the end-to-end latency, the wall
// time of the whole Generate call; each as the mean and the 50th, 90th and
// 99th percentiles with order-statistic intervals (stats.QuantileCI).
type Latency struct {
	Task string `json:"task"`
	// Prompts is the number of distinct requests, Requests the measured
	// ones (Prompts × repetitions), after one discarded warm-up request.
	Prompts  int `json:"prompts"`
	Requests int `json:"requests"`
	// TTFT is left out when the runtime measures no first token.
	TTFT *LatencyStats `json:"ttft_ms,omitempty"`
	// TPOT covers the requests with two output tokens or more.
	TPOT *LatencyStats `json:"tpot_ms,omitempty"`
	E2E  *LatencyStats `json:"e2e_ms"`
	// PromptTokens and CompletionTokens are means per request, as the
	// runtime counted them.
	PromptTokens     float64 `json:"prompt_tokens_mean"`
	CompletionTokens float64 `json:"completion_tokens_mean"`
	// Finished counts the measured requests by finish reason.
	Finished map[string]int `json:"finished"`
}

// LatencyStats summarises one latency in milliseconds.
type LatencyStats struct {
	Mean float64        `json:"mean"`
	P50  stats.Quantile `json:"p50"`
	P90  stats.Quantile `json:"p90"`
	P99  stats.Quantile `json:"p99"`
	N    int            `json:"n"`
}

func latencyStats(ms []float64, level float64) *LatencyStats {
	if len(ms) == 0 {
		return nil
	}
	return &LatencyStats{Mean: stats.Mean(ms), N: len(ms),
		P50: stats.QuantileCI(ms, 0.5, level), P90: stats.QuantileCI(ms, 0.9, level), P99: stats.QuantileCI(ms, 0.99, level)}
}

// latency measures the prompts on one runtime: the first request once as
// a discarded warm-up, then every request in order, Reps times, one at a
// time; the thermal state is read after each pass.
func (m *measurer) latency(ctx context.Context, open Opener, p *Prompts) (Row, runtime.Info, error) {
	row := Row{Test: Test{Name: "prompts:" + p.Task}}
	info, err := m.measure(ctx, open, OpenRequest{Test: row.Test, Speculative: m.cfg.Speculative, Prompts: true}, &row, func(rt runtime.Runtime) error {
		if _, err := rt.Generate(ctx, p.Requests[0]); err != nil {
			return fmt.Errorf("warm-up request %s: %w", p.Requests[0].ID, err)
		}
		m.snapshot(&row, 0)
		var ttft, tpot, e2e []float64
		var prompt, completion int
		l := &Latency{Task: p.Task, Prompts: len(p.Requests), Finished: map[string]int{}}
		for rep := 1; rep <= m.cfg.Reps; rep++ {
			for _, req := range p.Requests {
				if err := ctx.Err(); err != nil {
					return err
				}
				start := time.Now()
				resp, err := rt.Generate(ctx, req)
				total := time.Since(start)
				if err != nil {
					return fmt.Errorf("request %s (repetition %d): %w", req.ID, rep, err)
				}
				ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
				e2e = append(e2e, ms(total))
				if t := resp.Timings.TimeToFirstToken; t > 0 {
					ttft = append(ttft, ms(t))
					if resp.CompletionTokens > 1 && total > t {
						tpot = append(tpot, ms(total-t)/float64(resp.CompletionTokens-1))
					}
				}
				prompt += resp.PromptTokens
				completion += resp.CompletionTokens
				l.Finished[resp.FinishReason]++
				l.Requests++
				if p.Progress != nil {
					p.Progress(l.Requests, m.cfg.Reps*len(p.Requests))
				}
			}
			m.snapshot(&row, rep)
		}
		l.TTFT, l.TPOT, l.E2E = latencyStats(ttft, p.Level), latencyStats(tpot, p.Level), latencyStats(e2e, p.Level)
		l.PromptTokens = float64(prompt) / float64(l.Requests)
		l.CompletionTokens = float64(completion) / float64(l.Requests)
		row.Latency = l
		return nil
	})
	return row, info, err
}

func (p *Prompts) validate() error {
	if p == nil {
		return nil
	}
	if len(p.Requests) == 0 {
		return errors.New("prompts: no requests")
	}
	if p.Level < 0 || p.Level >= 1 {
		return fmt.Errorf("prompts: confidence level %g: want a value in (0, 1)", p.Level)
	}
	return nil
}
