package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// This file re-scores stored responses. The samples of a result directory
// are authoritative for every reader, so a record whose scores were edited
// (every score set to 1, a response changed under its old score) would be
// taken as measured; re-scoring each stored response with the task of the
// recorded version, on the recorded data and settings, and comparing what
// it gives with what is stored finds every such record. Verify does it for
// a directory; a resume does it for the records it reuses, and Merge for
// its shards', before anything is written.

// Mismatch is a stored record that re-scoring does not reproduce.
type Mismatch struct {
	Task   string `json:"task"`
	ID     string `json:"id"`
	Repeat int    `json:"repeat,omitempty"`
	// Path and Line locate the record.
	Path string `json:"path"`
	Line int    `json:"line"`
	// Field is what differs: "scores.<metric>", "extracted",
	// "extraction_failed", "target", "prompt", "messages" or "scored_text".
	Field    string `json:"field"`
	Stored   string `json:"stored"`
	Rescored string `json:"rescored"`
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s:%d: %s sample %s: %s is %s, re-scoring gives %s", m.Path, m.Line, m.Task, m.ID, m.Field, m.Stored, m.Rescored)
}

// MismatchError is a refusal because stored records are not what their
// responses score: a forged or mixed-up result.
type MismatchError struct {
	Op         string // "resume DIR", "merge"
	Mismatches []Mismatch
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d stored record(s) are not what their responses score (edited or from another version); refused, nothing written:", e.Op, len(e.Mismatches))
	for i, m := range e.Mismatches {
		if i == 5 {
			fmt.Fprintf(&b, "\n  … and %d more (pocketeval verify lists them all)", len(e.Mismatches)-i)
			break
		}
		b.WriteString("\n  " + m.String())
	}
	return b.String()
}

// rescore re-scores the records of a prepared task that carry no error
// and returns every disagreement, in record order. conc bounds the
// scorers running at once (0: one per core); done, when not nil, is told
// of each record checked (or skipped: it failed).
func rescore(ctx context.Context, p *prepared, s settings, stripThinking bool, path string, recs []results.Record, conc int, done func()) ([]Mismatch, error) {
	if done == nil {
		done = func() {}
	}
	if conc <= 0 {
		conc = goruntime.GOMAXPROCS(0)
	}
	found := make([][]Mismatch, len(recs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i, r := range recs {
		if r.Error != "" {
			done()
			continue // failed: no score to check, and retried on resume
		}
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			defer done()
			ms, err := rescoreOne(gctx, p, s, stripThinking, r)
			for k := range ms {
				ms[k].Path, ms[k].Line = path, r.Line
			}
			found[i] = ms
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Concat(found...), nil
}

// rescoreOne re-renders and re-scores one record (whose index was checked
// against the dataset, checkKnown).
func rescoreOne(ctx context.Context, p *prepared, s settings, stripThinking bool, r results.Record) ([]Mismatch, error) {
	smp := p.data.Samples[r.Index]
	pc := s.prompt
	pc.Gen.Seed = s.seed + int64(r.Repeat)
	var ms []Mismatch
	diff := func(field, stored, rescored string) {
		if stored != rescored {
			ms = append(ms, Mismatch{Task: p.info.Name, ID: r.ID, Repeat: r.Repeat, Field: field, Stored: stored, Rescored: rescored})
		}
	}
	diff("target", strconv.Quote(r.Target), strconv.Quote(smp.Target))
	var out evals.Output
	if p.loglik {
		reqs, err := p.task.(evals.LoglikTask).LoglikRequests(p.data, smp, pc)
		if err != nil {
			return nil, fmt.Errorf("re-render %s sample %s: %w", p.info.Name, r.ID, err)
		}
		diff("loglik_requests", jsonText(r.Loglik), jsonText(reqs))
		out = evals.Output{Loglik: r.LoglikResults}
	} else {
		req, err := p.task.Prompt(p.data, smp, pc)
		if err != nil {
			return nil, fmt.Errorf("re-render %s sample %s: %w", p.info.Name, r.ID, err)
		}
		diff("prompt", strconv.Quote(r.Prompt), strconv.Quote(req.Prompt))
		msgs := r.Messages
		if _, ok := p.task.(evals.Conversational); ok && len(msgs) > len(req.Messages) {
			// A conversation's record holds the whole conversation,
			// which starts with the request Prompt renders.
			msgs = msgs[:len(req.Messages)]
		}
		diff("messages", jsonText(msgs), jsonText(req.Messages))
		out = evals.Output{Raw: r.Response, Text: r.Response, FinishReason: r.FinishReason, Prompt: r.Prompt, ToolCalls: r.ToolCalls, CallText: r.RawResponse}
		th := evals.SplitThinking(r.Response, evals.PromptOpensThinking(r.RenderedPrompt), r.FinishReason == runtime.FinishLength)
		stored, rescored := "none", "none"
		if r.Scored != nil {
			stored = strconv.Quote(*r.Scored)
		}
		if stripThinking {
			out.Text = th.Answer
			if out.Text != r.Response {
				rescored = strconv.Quote(out.Text)
			}
		}
		diff("scored_text", stored, rescored)
	}
	score, err := p.task.Score(ctx, smp, out)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The run scored it; re-scoring cannot: that is a disagreement too.
		diff("scores", jsonText(r.Scores), "an error: "+err.Error())
		return ms, nil
	}
	for _, k := range slices.Sorted(maps.Keys(joinKeys(r.Scores, score.Values))) {
		diff("scores."+k, scoreText(r.Scores, k), scoreText(score.Values, k))
	}
	diff("extracted", strconv.Quote(r.Extracted), strconv.Quote(score.Extracted))
	diff("extraction_failed", strconv.FormatBool(r.ExtractionFailed), strconv.FormatBool(score.ExtractionFailed))
	return ms, nil
}

func joinKeys(a, b map[string]float64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func scoreText(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return "absent"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Dir is the result directory.
	Dir string
	// Lookup resolves a task name from the manifest to a task.
	Lookup func(name string) (evals.Task, error)
	// DataDir is the dataset root.
	DataDir string
	// Concurrency bounds the scorers running at once (0: one per core).
	Concurrency int
	// Warn prints a warning (nil: discard).
	Warn func(format string, args ...any)
	// Progress is told of every record re-scored, out of the records
	// the manifest selects (nil: none).
	Progress Progress
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	Dir   string         `json:"dir"`
	Tasks []VerifiedTask `json:"tasks"`
	// Mismatches are the records re-scoring does not reproduce, in task
	// and record order.
	Mismatches []Mismatch `json:"mismatches"`
}

// VerifiedTask counts one task's records.
type VerifiedTask struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Checked records were re-scored; Failed ones carry an error and have
	// no score to check.
	Checked    int `json:"checked"`
	Failed     int `json:"failed"`
	Mismatches int `json:"mismatches"`
}

// Verify re-scores every stored response of the result directory with the
// task of the recorded version, on the recorded data (sha256 checked) and
// settings, and reports every record whose stored target, request, scores
// or extraction differ from what re-scoring gives. A task whose version,
// data or prompts are not the recorded ones is an error: its records
// cannot be checked here.
func Verify(ctx context.Context, o VerifyOptions) (*VerifyReport, error) {
	if o.Warn == nil {
		o.Warn = func(string, ...any) {}
	}
	man, err := results.ReadManifest(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", o.Dir, err)
	}
	cfg := man.Config
	s := configSettings(cfg, o.DataDir)
	s.shard = cfg.Shard
	rep := &VerifyReport{Dir: o.Dir, Mismatches: []Mismatch{}}
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	total := 0
	for _, tc := range cfg.Tasks {
		total += tc.Samples * max(cfg.SamplesPerTask, 1)
	}
	o.Progress.Start(total, 0)
	defer o.Progress.Finish()
	for _, tc := range cfg.Tasks {
		p, err := prepareRecorded(ctx, o.Lookup, tc, s, cfg.UnsafeNoSandbox, o.Warn)
		if err != nil {
			return nil, fmt.Errorf("verify %s: %w", o.Dir, err)
		}
		ms, vt, err := verifyTask(ctx, p, s, cfg.StripThinking, o.Dir, o.Concurrency, func() { o.Progress.Done(tc.Name) })
		p.closeSetup()
		if err != nil {
			return nil, fmt.Errorf("verify %s: %w", o.Dir, err)
		}
		rep.Tasks = append(rep.Tasks, vt)
		rep.Mismatches = append(rep.Mismatches, ms...)
	}
	return rep, nil
}

// verifyTask reads and re-scores one task's records in dir.
func verifyTask(ctx context.Context, p *prepared, s settings, strip bool, dir string, conc int, done func()) ([]Mismatch, VerifiedTask, error) {
	vt := VerifiedTask{Name: p.info.Name, Version: p.info.Version}
	path := results.SamplesPath(dir, p.info.Name)
	recs, _, err := results.ReadTaskSamples(dir, p.info.Name)
	if err == nil {
		err = checkKnown(path, p, recs)
	}
	if err != nil {
		return nil, vt, err
	}
	ms, err := rescore(ctx, p, s, strip, path, recs, conc, done)
	if err != nil {
		return nil, vt, err
	}
	for _, r := range recs {
		if r.Error != "" {
			vt.Failed++
		} else {
			vt.Checked++
		}
	}
	seen := map[results.Key]bool{}
	for _, m := range ms {
		seen[results.Key{ID: m.ID, Repeat: m.Repeat}] = true
	}
	vt.Mismatches = len(seen)
	return ms, vt, nil
}

// closeSetup releases what the task's Setup acquired.
func (p *prepared) closeSetup() {
	if p.closer != nil {
		p.closer()
		p.closer = nil
	}
}
