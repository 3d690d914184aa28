package runner

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"sync/atomic"
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

// execute is Run's execute phase: o.Concurrency workers take the work
// items in order, each running one at a time; each finished record is
// appended to its task's samples file as soon as it is scored (taskFile.put).
// A fixed set of workers rather than a goroutine per item: a replayed
// sample costs microseconds, and handing each to a new goroutine woke a
// sleeping thread per sample.
func execute(ctx context.Context, o Options, pl *workPlan) execution {
	var ex execution
	var generated, errs atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	stop := context.AfterFunc(gctx, func() {
		for _, tf := range pl.tasks {
			tf.stop()
		}
	})
	defer stop()
	lines := &lineBuffers{}
	for _, tf := range pl.tasks {
		tf.release = lines.put
	}
	var next atomic.Int64
	var restoreMu sync.Mutex
	for range min(o.Concurrency, len(pl.work)) {
		g.Go(func() error {
			// One record per worker, made again for each item: nothing
			// keeps it once the line is encoded and the summary fields
			// are remembered (strings and maps are kept, not the struct).
			rec := new(results.Record)
			for gctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(pl.work) {
					return nil
				}
				wi := pl.work[i]
				// A dataset let go after planning is loaded again by the
				// worker that takes its task's first item; the lock also
				// orders the other workers' reads of it after the load.
				restoreMu.Lock()
				err := wi.p.restore(gctx)
				restoreMu.Unlock()
				if err != nil {
					return err
				}
				if err := runOne(gctx, o, wi, pl.rendered, rec); err != nil {
					return err // cancellation
				}
				line, err := results.AppendLine(lines.get(), rec, pl.strings)
				if err != nil {
					return err
				}
				if err := wi.file.put(wi.pos, line); err != nil {
					return err
				}
				wi.file.remember(wi.pos, rec)
				generated.Add(1)
				if rec.Error != "" {
					errs.Add(1)
				}
				o.Progress.Done(wi.p.info.Name)
			}
			return nil
		})
	}
	err := g.Wait()
	if ferr := pl.flushPending(); err == nil || errors.Is(err, context.Canceled) {
		err = cmp.Or(ferr, err)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		ex.fatal = err
	}
	ex.generated, ex.errors = int(generated.Load()), int(errs.Load())
	return ex
}

// lineBuffers keeps the buffers of written lines for encoding the next
// records, up to maxFreeLineBytes of them: records are written in bursts
// (those that waited for an earlier one go together), so a run needs as
// many buffers as lines wait, and holds no more.
type lineBuffers struct {
	mu    sync.Mutex
	free  [][]byte
	bytes int
}

// Bounds of lineBuffers: the bytes kept, and the largest buffer kept.
const (
	maxFreeLineBytes = 4 << 20
	maxPooledLine    = 1 << 20
)

// get returns an empty buffer (nil when none is free).
func (lb *lineBuffers) get() []byte {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	n := len(lb.free)
	if n == 0 {
		return nil
	}
	b := lb.free[n-1]
	lb.free[n-1] = nil
	lb.free = lb.free[:n-1]
	lb.bytes -= cap(b)
	return b[:0]
}

// put takes back a written line's buffer.
func (lb *lineBuffers) put(b []byte) {
	if cap(b) > maxPooledLine {
		return
	}
	lb.mu.Lock()
	if lb.bytes+cap(b) <= maxFreeLineBytes {
		lb.free = append(lb.free, b)
		lb.bytes += cap(b)
	}
	lb.mu.Unlock()
}

// runOne makes rec the record of one work item (whatever rec held
// before). It returns an error only for cancellation; runtime and scorer
// failures become the record's Error.
func runOne(ctx context.Context, o Options, wi workItem, rc *renderCache, rec *results.Record) error {
	s := wi.p.data.Samples[wi.idx]
	pc := o.settings().prompt
	pc.Gen.Seed = o.Gen.Seed + int64(wi.repeat)
	// Scores are the scorer's, or an empty map (a failed record's too).
	*rec = results.Record{Task: wi.p.info.Name, ID: s.ID, Repeat: wi.repeat, Index: wi.idx, Target: s.Target}
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
			return nil
		}
	}
	if stage != "render" && ctx.Err() != nil {
		return ctx.Err()
	}
	rec.Error = stage + ": " + err.Error()
	rec.Retryable = stage == "runtime" && runtime.Transient(err)
	rec.Scores = map[string]float64{}
	return nil
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
