package runner

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// execution is what Run's execute phase did.
type execution struct {
	generated, errors int
	// fatal is an unrecoverable failure (a record could not be written);
	// cancellation is not one.
	fatal error
}

// execute is Run's execute phase: the work items run with at most
// o.Concurrency in flight; each finished record is appended to its task's
// samples file as soon as it is scored.
func execute(ctx context.Context, o Options, pl *workPlan) execution {
	var ex execution
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Concurrency)
	var restoreErr error
	for _, wi := range pl.work {
		if gctx.Err() != nil {
			break
		}
		if restoreErr = wi.p.restore(gctx); restoreErr != nil {
			break
		}
		g.Go(func() error {
			rec, err := runOne(gctx, o, wi, pl.rendered)
			if err != nil {
				return err // cancellation
			}
			buf := linePool.Get().(*[]byte)
			line, err := results.AppendLine((*buf)[:0], rec, pl.strings)
			if err != nil {
				return err
			}
			kept, err := wi.file.put(wi.pos, line)
			if err != nil {
				return err
			}
			if !kept && cap(line) <= maxPooledLine {
				*buf = line
				linePool.Put(buf)
			}
			wi.file.remember(wi.pos, rec)
			mu.Lock()
			ex.generated++
			if rec.Error != "" {
				ex.errors++
			}
			mu.Unlock()
			o.Progress.Done(wi.p.info.Name)
			return nil
		})
	}
	err := cmp.Or(g.Wait(), restoreErr)
	if ferr := pl.flushPending(); err == nil || errors.Is(err, context.Canceled) {
		err = cmp.Or(ferr, err)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		ex.fatal = err
	}
	return ex
}

// linePool holds buffers for encoding records, each given back once its
// line is written (a line that waits for earlier ones keeps its own).
var linePool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledLine bounds the buffers kept in linePool.
const maxPooledLine = 1 << 20

// runOne produces the record of one work item. It returns an error only
// for cancellation; runtime and scorer failures become the record's Error.
func runOne(ctx context.Context, o Options, wi workItem, rc *renderCache) (*results.Record, error) {
	s := wi.p.data.Samples[wi.idx]
	pc := o.settings().prompt
	pc.Gen.Seed = o.Gen.Seed + int64(wi.repeat)
	rec := &results.Record{
		Task: wi.p.info.Name, ID: s.ID, Repeat: wi.repeat, Index: wi.idx, Target: s.Target,
		Scores: map[string]float64{},
	}
	var out evals.Output
	var stage string
	var err error
	if wi.p.loglik {
		out, stage, err = loglikOne(ctx, o.Runtime, wi, s, pc, rec)
	} else if c, ok := wi.p.task.(evals.Conversational); ok && !replayed(o.Runtime) {
		out, stage, err = converseOne(ctx, o, c, wi, s, pc, rec)
	} else {
		out, stage, err = generateOne(ctx, o, wi, s, pc, rc, rec)
	}
	if err == nil {
		stage = "score"
		var score evals.Score
		if score, err = wi.p.task.Score(ctx, s, out); err == nil {
			rec.Scores = score.Values
			if rec.Scores == nil {
				rec.Scores = map[string]float64{}
			}
			rec.Extracted, rec.ExtractionFailed, rec.Details = score.Extracted, score.ExtractionFailed, score.Details
			return rec, nil
		}
	}
	if stage != "render" && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rec.Error = stage + ": " + err.Error()
	rec.Retryable = stage == "runtime" && runtime.Transient(err)
	return rec, nil
}

// loglikOne scores every choice of a sample by log-likelihood. On error it
// names the stage that failed.
func loglikOne(ctx context.Context, rt runtime.Runtime, wi workItem, s evals.Sample, pc evals.PromptConfig, rec *results.Record) (evals.Output, string, error) {
	reqs, err := wi.p.task.(evals.LoglikTask).LoglikRequests(wi.p.data, s, pc)
	if err != nil {
		return evals.Output{}, "render", err
	}
	rec.Loglik = reqs
	if rolling(wi.p.task) {
		return rollingOne(ctx, rt, reqs, rec)
	}
	start := time.Now()
	lls, err := rt.(runtime.LogLikelihooder).LogLikelihood(ctx, reqs)
	if err != nil {
		return evals.Output{}, "runtime", err
	}
	// The latency of the decision: every candidate scored. Replayed
	// results measure nothing (their files stay deterministic).
	if !replayed(rt) {
		rec.Timings = &runtime.Timings{Total: max(time.Since(start), time.Nanosecond)}
	}
	rec.LoglikResults = lls
	return evals.Output{Loglik: lls}, "", nil
}

// rolling reports whether a task scores whole texts in windows.
func rolling(t evals.Task) bool {
	r, ok := t.(evals.RollingTask)
	return ok && r.Rolling()
}

// rollingOne scores each request's continuation as a whole text
// (loglikelihood_rolling).
func rollingOne(ctx context.Context, rt runtime.Runtime, reqs []runtime.LoglikRequest, rec *results.Record) (evals.Output, string, error) {
	texts := make([]string, len(reqs))
	for i, q := range reqs {
		texts[i] = q.Continuation
	}
	rs, err := rt.(runtime.RollingLoglikelihooder).LoglikelihoodRolling(ctx, texts)
	if err != nil {
		return evals.Output{}, "runtime", err
	}
	lls := make([]runtime.LoglikResult, len(rs))
	for i, r := range rs {
		lls[i] = runtime.LoglikResult{LogProb: r.LogProb, Tokens: r.Tokens}
	}
	rec.LoglikResults = lls
	return evals.Output{Loglik: lls}, "", nil
}

// generateOne renders a sample's request and generates the response,
// recording both. On error it names the stage that failed.
func generateOne(ctx context.Context, o Options, wi workItem, s evals.Sample, pc evals.PromptConfig, rc *renderCache, rec *results.Record) (evals.Output, string, error) {
	req, ok := rc.take(wi.p, wi.idx, wi.repeat)
	if !ok {
		var err error
		if req, err = wi.p.task.Prompt(wi.p.data, s, pc); err != nil {
			return evals.Output{}, "render", err
		}
	}
	req.ID, req.Task = s.ID, wi.p.info.Name
	rec.Messages, rec.Prompt = req.Messages, req.Prompt
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = wi.p.info.DefaultMaxTokens
	}
	rec.Gen = recordedGen(req.Gen)
	resp, err := o.Runtime.Generate(ctx, req)
	if err != nil {
		return evals.Output{}, "runtime", err
	}
	// Only what the runtime measured is recorded (replayed predictions
	// have no timings, so their result files are fully deterministic).
	if t := resp.Timings; t != (runtime.Timings{}) {
		rec.Timings = &t
	}
	rec.Response = resp.Text
	rec.ToolCalls, rec.RawResponse = resp.ToolCalls, resp.Raw
	rec.RenderedPrompt = resp.RenderedPrompt
	rec.FinishReason = resp.FinishReason
	rec.PromptTokens, rec.CompletionTokens = resp.PromptTokens, resp.CompletionTokens
	out := evals.Output{Raw: resp.Text, Text: resp.Text, FinishReason: resp.FinishReason, Prompt: req.Prompt, ToolCalls: resp.ToolCalls, CallText: resp.Raw}
	th := evals.SplitThinking(resp.Text, evals.PromptOpensThinking(resp.RenderedPrompt), resp.FinishReason == runtime.FinishLength)
	rec.Thinking = th.State
	if o.StripThinking {
		out.Text = th.Answer
		if out.Text != resp.Text {
			st := out.Text
			rec.Scored = &st
		}
	}
	return out, "", nil
}

// converseOne runs a conversational task's sample: every model call of
// its conversation (Converse), recorded as one record whose response is
// what Score judges and whose messages are the whole conversation.
func converseOne(ctx context.Context, o Options, c evals.Conversational, wi workItem, s evals.Sample, pc evals.PromptConfig, rec *results.Record) (evals.Output, string, error) {
	if pc.Gen.MaxTokens == 0 {
		pc.Gen.MaxTokens = wi.p.info.DefaultMaxTokens
	}
	rec.Gen = recordedGen(pc.Gen)
	var step evals.GenerateFunc = o.Runtime.Generate
	if wi.file != nil && wi.file.journal != nil {
		step = wi.file.journal.gen(o.Runtime, s.ID, wi.repeat)
	}
	gen := func(ctx context.Context, req runtime.Request) (runtime.Response, error) {
		req.ID, req.Task = s.ID, wi.p.info.Name
		return step(ctx, req)
	}
	conv, err := c.Converse(ctx, wi.p.data, s, pc, gen)
	if err != nil {
		return evals.Output{}, "runtime", err
	}
	rec.Messages = conv.Messages
	rec.Response = conv.Output.Text
	rec.FinishReason = conv.Output.FinishReason
	rec.PromptTokens, rec.CompletionTokens = conv.PromptTokens, conv.CompletionTokens
	if conv.Total > 0 {
		rec.Timings = &runtime.Timings{Total: conv.Total}
	}
	return conv.Output, "", nil
}

// replayed reports whether rt replays saved results instead of running a
// model.
func replayed(rt runtime.Runtime) bool {
	r, ok := rt.(runtime.Replayer)
	return ok && r.Replayed()
}
