package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/pocketeval/pocketeval/internal/texttab"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/internal/procfs"
	"github.com/pocketeval/pocketeval/runtime"
)

// dryRunPlan is what `run --dry-run` prints (and writes with --json).
type dryRunPlan struct {
	Tasks       []runner.TaskEstimate `json:"tasks"`
	Calibration *calibration          `json:"calibration,omitempty"`
	// ETASeconds estimates the run's model time from the calibration: the
	// prompt tokens not cached at the measured prefill rate plus the new
	// tokens at most at the measured decode rate (0 without a calibration
	// or token counts).
	ETASeconds float64 `json:"eta_seconds,omitempty"`
}

// calibration is a short bench at the run's concurrency.
type calibration struct {
	Concurrency  int        `json:"concurrency"`
	PromptTokens int        `json:"prompt_tokens"`
	NewTokens    int        `json:"new_tokens"`
	PrefillTPS   float64    `json:"prefill_tok_per_s"`
	DecodeTPS    float64    `json:"decode_tok_per_s"`
	LoadAvg      [3]float64 `json:"load_avg"`
}

// calibrationNewTokens is how many tokens each calibration request decodes.
const calibrationNewTokens = 32

// dryRun plans the run o describes: per task the samples, the prompt
// tokens the model's tokenizer makes of them and how many the runtime's
// prompt cache would supply, the new tokens at most, and an ETA from a short
// bench at the run's concurrency.
func (opts *RunOptions) dryRun(ctx context.Context, o runner.Options) error {
	ests, err := runner.Estimate(ctx, o)
	if err != nil {
		return opts.runError(ctx, nil, err)
	}
	plan := &dryRunPlan{Tasks: ests}
	var prompt, items int64
	counted := true
	for _, e := range ests {
		prompt += e.PromptTokens
		items += int64(e.Samples)
		counted = counted && e.Counted
	}
	if b, ok := o.Runtime.(runtime.Bencher); ok {
		n := 128
		if counted && items > 0 {
			n = int(prompt / items)
		}
		if plan.Calibration, err = calibrate(ctx, b, o.Concurrency, min(max(n, 16), 512)); err != nil {
			return err
		}
	}
	if c := plan.Calibration; c != nil && counted && c.PrefillTPS > 0 && c.DecodeTPS > 0 {
		for _, e := range ests {
			plan.ETASeconds += float64(e.PromptTokens-e.CachedTokens)/c.PrefillTPS + float64(e.MaxNewTokens)/c.DecodeTPS
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO, plan)
	}
	printPlan(opts.IO.Out, plan, counted)
	return nil
}

// calibrate measures the runtime at the run's concurrency, after a small
// warm-up: conc Bench requests of nPrompt prompt tokens at once (the
// aggregate prefill rate is all their prompt tokens over the wall time
// until the last is done), then conc requests decoding
// calibrationNewTokens tokens from a one-token context (the aggregate
// decode rate, likewise). Wall times, not the requests' own timings:
// requests admitted a step apart overlap one another's work.
func calibrate(ctx context.Context, b runtime.Bencher, conc, nPrompt int) (*calibration, error) {
	if _, err := b.Bench(ctx, runtime.BenchRequest{NPrompt: 8, NGen: 4}); err != nil {
		return nil, fmt.Errorf("calibration bench: %w", err)
	}
	c := &calibration{Concurrency: conc, PromptTokens: nPrompt, NewTokens: calibrationNewTokens}
	c.LoadAvg, _ = procfs.FS{}.LoadAvg()
	wall := func(req runtime.BenchRequest) (time.Duration, error) {
		errs := make([]error, conc)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range conc {
			wg.Go(func() { _, errs[i] = b.Bench(ctx, req) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return 0, fmt.Errorf("calibration bench: %w", err)
		}
		return time.Since(start), nil
	}
	prefill, err := wall(runtime.BenchRequest{NPrompt: nPrompt})
	if err != nil {
		return nil, err
	}
	decode, err := wall(runtime.BenchRequest{NGen: calibrationNewTokens})
	if err != nil {
		return nil, err
	}
	c.PrefillTPS = float64(conc*nPrompt) / prefill.Seconds()
	c.DecodeTPS = float64(conc*calibrationNewTokens) / decode.Seconds()
	return c, nil
}

func printPlan(w io.Writer, plan *dryRunPlan, counted bool) {
	tw := texttab.NewWriter(w, 0, 4, 2, ' ', texttab.AlignRight)
	fmt.Fprintln(tw, "TASK\tSAMPLES\tPROMPT TOKENS\tPER SAMPLE\tCACHED\tNEW TOKENS ≤\tETA\t")
	var total dryRunTotals
	c := plan.Calibration
	for _, e := range plan.Tasks {
		eta := "-"
		if c != nil && counted && c.PrefillTPS > 0 && c.DecodeTPS > 0 {
			eta = fmtDuration(float64(e.PromptTokens-e.CachedTokens)/c.PrefillTPS + float64(e.MaxNewTokens)/c.DecodeTPS)
		}
		newTok := strconv.FormatInt(e.MaxNewTokens, 10)
		if e.Loglik {
			newTok = "0 (loglik)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", e.Task, e.Samples, countOrDash(e.Counted, e.PromptTokens),
			perSample(e), cachedShare(e), newTok, eta)
		total.add(e)
	}
	eta := "-"
	if plan.ETASeconds > 0 {
		eta = fmtDuration(plan.ETASeconds)
	}
	fmt.Fprintf(tw, "total\t%d\t%s\t\t%s\t%d\t%s\t\n", total.samples, countOrDash(counted, total.prompt),
		cachedShare(runner.TaskEstimate{PromptTokens: total.prompt, CachedTokens: total.cached, Counted: counted}), total.newTokens, eta)
	tw.Flush()
	if !counted {
		fmt.Fprintln(w, "prompt tokens: this runtime cannot count them without running the model (llamacpp can)")
	}
	for _, e := range plan.Tasks {
		if e.TooLong > 0 {
			fmt.Fprintf(w, "%s: %d samples have prompts longer than the model's context and would fail (not counted above)\n", e.Task, e.TooLong)
		}
	}
	if c != nil {
		fmt.Fprintf(w, "calibration: %d requests at once of %d prompt and %d new tokens: prefill %.0f tok/s, decode %.1f tok/s (load average %.2f %.2f %.2f)\n",
			c.Concurrency, c.PromptTokens, c.NewTokens, c.PrefillTPS, c.DecodeTPS, c.LoadAvg[0], c.LoadAvg[1], c.LoadAvg[2])
		fmt.Fprintln(w, "ETA: prompt tokens not cached at the prefill rate plus every new-token limit at the decode rate (answers that end early take less; a loaded machine, more)")
	}
}

type dryRunTotals struct {
	samples                   int
	prompt, cached, newTokens int64
}

func (t *dryRunTotals) add(e runner.TaskEstimate) {
	t.samples += e.Samples
	t.prompt += e.PromptTokens
	t.cached += e.CachedTokens
	t.newTokens += e.MaxNewTokens
}

func countOrDash(ok bool, n int64) string {
	if !ok {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func perSample(e runner.TaskEstimate) string {
	if !e.Counted || e.Samples == 0 {
		return "-"
	}
	return strconv.FormatInt(e.PromptTokens/int64(e.Samples), 10)
}

func cachedShare(e runner.TaskEstimate) string {
	if !e.Counted || e.PromptTokens == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.0f%%)", e.CachedTokens, 100*float64(e.CachedTokens)/float64(e.PromptTokens))
}

// fmtDuration renders seconds as 45s, 12m30s or 3h05m.
func fmtDuration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return d.String()
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
