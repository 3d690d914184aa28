package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// pipelineFile is a taskFile writing to a fresh samples file, and a reader
// of the ids written so far.
func pipelineFile(t *testing.T) (*taskFile, func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "samples", "s.jsonl")
	w, err := results.OpenSampleWriter(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tf := &taskFile{w: w, pending: map[int][]byte{}}
	ids := func() string {
		t.Helper()
		recs, _, err := results.ReadSamples(path)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, r := range recs {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	return tf, ids
}

func pipelineLine(pos int) []byte {
	return []byte(fmt.Sprintf(`{"task":"t","id":"%d","index":%d,"scores":{}}`+"\n", pos, pos))
}

// TestGroupCommit: a record that becomes ready while another worker is
// writing is not written by its own worker, which goes on at once; the
// writing worker writes it, with the others queued meanwhile, as soon as
// its write returns — and gives every written line back.
func TestGroupCommit(t *testing.T) {
	tf, ids := pipelineFile(t)
	var released int
	tf.release = func([]byte) { released++ }
	tf.mu.Lock()
	tf.writing = true // another worker is in write(2)
	tf.mu.Unlock()
	for pos := range 3 {
		if err := tf.put(pos, pipelineLine(pos)); err != nil {
			t.Fatal(err)
		}
	}
	if got := ids(); got != "" || len(tf.ready) != 3 {
		t.Fatalf("while another worker writes: file %q, %d queued; want nothing written, 3 queued", got, len(tf.ready))
	}
	// The other worker's write returns: it writes what was queued.
	tf.mu.Lock()
	tf.writing = false
	if err := tf.writeReady(); err != nil {
		t.Fatal(err)
	}
	if got := ids(); got != "0,1,2" || len(tf.ready) != 0 || released != 3 {
		t.Errorf("after the write: file %q, %d queued, %d released; want 0,1,2, none, 3", got, len(tf.ready), released)
	}
}

// TestWaitForRoom: a worker that finishes a record while maxWaiting
// records already wait for an earlier one waits too (order is kept),
// and goes on once the earlier record is written.
func TestWaitForRoom(t *testing.T) {
	tf, ids := pipelineFile(t)
	for pos := 1; pos <= maxWaiting; pos++ {
		if err := tf.put(pos, pipelineLine(pos)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error)
	go func() { done <- tf.put(maxWaiting+1, pipelineLine(maxWaiting+1)) }()
	for {
		tf.mu.Lock()
		waiting, unordered := tf.waiters > 0, tf.unordered
		tf.mu.Unlock()
		if unordered {
			// The machine was too slow: the first record waited
			// maxWait before the worker was seen waiting.
			<-done
			t.Skip("the waiting worker was not observed within maxWait")
		}
		if waiting {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if got := ids(); got != "" {
		t.Fatalf("records were written while the first was missing: %q", got)
	}
	if err := tf.put(0, pipelineLine(0)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := make([]string, maxWaiting+2)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	if got := ids(); got != strings.Join(want, ",") && !tf.unordered {
		t.Errorf("file not in order although order was kept: %.80s…", got)
	}
	if n := len(strings.Split(ids(), ",")); n != maxWaiting+2 {
		t.Errorf("%d records written, want %d", n, maxWaiting+2)
	}
}

// TestStopEndsWait: a run that ends (cancelled, or a worker failed) ends
// the waits for records that will never come; the waiting record is kept
// for flushPending.
func TestStopEndsWait(t *testing.T) {
	tf, ids := pipelineFile(t)
	for pos := 1; pos <= maxWaiting; pos++ {
		if err := tf.put(pos, pipelineLine(pos)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error)
	go func() { done <- tf.put(maxWaiting+1, pipelineLine(maxWaiting+1)) }()
	tf.stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := (&workPlan{tasks: []*taskFile{tf}}).flushPending(); err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(ids(), ",")); n != maxWaiting+1 {
		t.Errorf("%d records written, want %d", n, maxWaiting+1)
	}
}

// checkedTask is fakeTask whose prompts are counted and whose sample bad
// does not render; it checks its prompts without rendering them.
type checkedTask struct {
	fakeTask
	prompts *atomic.Int64
	bad     string
}

func (t checkedTask) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	t.prompts.Add(1)
	if err := t.CheckPrompt(d, s, cfg); err != nil {
		return runtime.Request{}, err
	}
	return t.fakeTask.Prompt(d, s, cfg)
}

func (t checkedTask) CheckPrompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) error {
	if s.ID == t.bad {
		return errors.New("no exemplars")
	}
	return nil
}

// promptMatcher is fakeRuntime that tells whether it matches prompts and
// answers preflight questions, recording them.
type promptMatcher struct {
	fakeRuntime
	matches    bool
	mu         sync.Mutex
	preflights []runtime.Request
}

func (r *promptMatcher) MatchesPrompts() bool { return r.matches }

func (r *promptMatcher) Preflight(req runtime.Request) error {
	r.mu.Lock()
	r.preflights = append(r.preflights, req)
	r.mu.Unlock()
	return nil
}

// TestPromptCheckerRendersOnce: with a runtime that matches no prompt, a
// task that checks its prompts is not rendered for the checks before the
// run (the preflight requests carry no prompt) but once, when its sample
// runs, and the run writes what it writes when the checks render; a
// prompt that does not render refuses the run the same way in both.
func TestPromptCheckerRendersOnce(t *testing.T) {
	t.Parallel()
	run := func(matches bool, bad string) (string, *promptMatcher, int64, error) {
		var n atomic.Int64
		rt := &promptMatcher{matches: matches}
		o := baseOptions(t.TempDir(), rt)
		o.Tasks = []evals.Task{checkedTask{fakeTask{"alpha", 40}, &n, bad}, checkedTask{fakeTask{"beta", 25}, &n, bad}}
		o.Concurrency = 2
		if _, err := Run(context.Background(), o); err != nil {
			return "", rt, n.Load(), err
		}
		return stripTimings(t, o.OutDir), rt, n.Load(), nil
	}
	out, rt, renders, err := run(false, "")
	if err != nil {
		t.Fatal(err)
	}
	want, rtm, rendersm, err := run(true, "")
	if err != nil {
		t.Fatal(err)
	}
	if out != want {
		t.Error("the run without rendering for the checks wrote other results")
	}
	if len(rt.preflights) != 65 || len(rtm.preflights) != 65 {
		t.Fatalf("%d and %d preflight requests for 65 samples", len(rt.preflights), len(rtm.preflights))
	}
	for i, req := range rt.preflights {
		if req.Messages != nil || req.Prompt != "" || req.ID == "" || req.Task == "" {
			t.Fatalf("preflight request %d: %+v, want task and id without a prompt", i, req)
		}
		if rtm.preflights[i].Messages == nil {
			t.Fatalf("preflight request %d of the prompt-matching runtime has no prompt", i)
		}
	}
	// Here every prompt fits the render cache, so the checks' renders
	// are all used: as many renders either way.
	if renders != rendersm {
		t.Errorf("%d renders without the checks rendering, %d with", renders, rendersm)
	}
	_, _, _, err1 := run(false, "7")
	_, _, _, err2 := run(true, "7")
	var pe *PreflightError
	if !errors.As(err1, &pe) || err1.Error() != errText(err2) {
		t.Errorf("a prompt that does not render: %v; with rendering: %v", err1, err2)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
