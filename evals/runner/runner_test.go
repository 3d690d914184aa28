package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// fakeTask has n samples; sample i asks "q<i>" and expects digit i%10.
type fakeTask struct {
	name string
	n    int
}

func (t fakeTask) Info() evals.TaskInfo {
	return evals.TaskInfo{Name: t.name, Version: "1", PrimaryMetric: "acc", Metrics: []string{"acc"}, DatasetFiles: []string{"fake.jsonl"}}
}

func (t fakeTask) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	d := &evals.Dataset{Files: map[string]string{"fake.jsonl": "00"}}
	for i := 0; i < t.n; i++ {
		d.Samples = append(d.Samples, evals.Sample{ID: strconv.Itoa(i), Input: fmt.Sprintf("q%d", i), Target: strconv.Itoa(i % 10)})
	}
	return d, nil
}

func (t fakeTask) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	return runtime.Request{Messages: []runtime.Message{{Role: "user", Content: s.Input}}, Gen: cfg.Gen}, nil
}

func (t fakeTask) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	ans := strings.TrimPrefix(out.Text, "answer ")
	v := 0.0
	if ans == s.Target {
		v = 1
	}
	return evals.Score{Values: map[string]float64{"acc": v}, Extracted: ans}, nil
}

// fakeRuntime answers deterministically from the prompt; it can be slowed
// down and made to fail some requests.
type fakeRuntime struct {
	delay time.Duration
	calls atomic.Int64
	fail  func(prompt string) bool
}

func (r *fakeRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	r.calls.Add(1)
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return runtime.Response{}, ctx.Err()
		}
	}
	p := req.Messages[len(req.Messages)-1].Content
	if r.fail != nil && r.fail(p) {
		return runtime.Response{}, errors.New("injected failure")
	}
	h := fnv.New32a()
	h.Write([]byte(p))
	text := fmt.Sprintf("<think>hmm</think>answer %d", h.Sum32()%10)
	return runtime.Response{Text: text, FinishReason: runtime.FinishStop, PromptTokens: 3, CompletionTokens: 2,
		Timings: runtime.Timings{Total: time.Millisecond, DecodeTokPerSec: 100}}, nil
}

func (r *fakeRuntime) Close() error { return nil }

func baseOptions(dir string, rt runtime.Runtime) Options {
	return Options{
		Tasks: []evals.Task{fakeTask{"alpha", 40}, fakeTask{"beta", 25}}, Runtime: rt, RuntimeName: "fake",
		OutDir: dir, Concurrency: 4, StripThinking: true, Chat: true, NumFewshot: -1,
	}
}

// stripTimings returns the summary and sample files with timing fields
// removed, for byte comparisons.
func stripTimings(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	sum, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(sum, &m)
	for _, ts := range m["tasks"].(map[string]any) {
		delete(ts.(map[string]any), "timing")
	}
	out, _ := json.Marshal(m)
	b.Write(out)
	for _, task := range []string{"alpha", "beta"} {
		recs, _, err := results.ReadSamples(results.SamplesPath(dir, task))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r.Timings = nil
			line, _ := json.Marshal(r)
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestRunIndependentOfConcurrency(t *testing.T) {
	t.Parallel()
	var outs []string
	for _, c := range []int{1, 4, 16} {
		dir := t.TempDir()
		o := baseOptions(dir, &fakeRuntime{})
		o.Concurrency = c
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Summary.Complete || res.Generated != 65 {
			t.Fatalf("concurrency %d: complete=%v generated=%d", c, res.Summary.Complete, res.Generated)
		}
		outs = append(outs, stripTimings(t, dir))
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			t.Errorf("results at different concurrency differ:\n%s\n---\n%s", outs[0], outs[i])
		}
	}
}

func TestSummaryValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := baseOptions(dir, &fakeRuntime{})
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// Recompute the expected accuracy independently.
	for _, task := range []fakeTask{{"alpha", 40}, {"beta", 25}} {
		correct := 0
		for i := 0; i < task.n; i++ {
			h := fnv.New32a()
			h.Write([]byte(fmt.Sprintf("q%d", i)))
			if int(h.Sum32()%10) == i%10 {
				correct++
			}
		}
		got := res.Summary.Tasks[task.name]
		want := float64(correct) / float64(task.n)
		if got.Primary != want || got.Metrics["acc"].N != task.n {
			t.Errorf("%s: primary %v n %d, want %v n %d", task.name, got.Primary, got.Metrics["acc"].N, want, task.n)
		}
		if got.TruncationRate == nil || *got.TruncationRate != 0 {
			t.Errorf("%s: truncation rate %v", task.name, got.TruncationRate)
		}
	}
	recs, _, _ := results.ReadSamples(results.SamplesPath(dir, "alpha"))
	if recs[0].Scored == nil || strings.Contains(*recs[0].Scored, "think") || !strings.Contains(recs[0].Response, "<think>") {
		t.Errorf("thinking not stripped and recorded: %+v", recs[0])
	}
	m, err := results.ReadManifest(dir)
	if err != nil || m.Status != results.StatusComplete || len(m.Config.Tasks) != 2 || m.Config.Tasks[0].PromptHash == "" {
		t.Errorf("manifest: %+v, %v", m, err)
	}
}

func TestResumeSkipsFinishedAndRetriesErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rt := &fakeRuntime{fail: func(p string) bool { return p == "q7" || p == "q13" }}
	res, err := Run(context.Background(), baseOptions(dir, rt))
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 4 || res.Summary.Tasks["alpha"].Errors != 2 { // q7, q13 in both tasks
		t.Fatalf("errors = %d (alpha %d), want 4 (2)", res.Errors, res.Summary.Tasks["alpha"].Errors)
	}
	rt2 := &fakeRuntime{}
	res2, err := Run(context.Background(), baseOptions(dir, rt2))
	if err != nil {
		t.Fatal(err)
	}
	if rt2.calls.Load() != 4 || !res2.Resumed || res2.Reused != 61 || res2.Errors != 0 {
		t.Fatalf("resume: calls %d resumed %v reused %d errors %d", rt2.calls.Load(), res2.Resumed, res2.Reused, res2.Errors)
	}
	if m, err := results.ReadManifest(dir); err != nil || m.Resumes != 1 || m.Config.Tasks[0].Samples != 40 {
		t.Errorf("resumed manifest: %+v, %v; want 1 resume and 40 samples of alpha", m, err)
	}
	fresh := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(fresh, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	if a, b := stripTimings(t, dir), stripTimings(t, fresh); a != b {
		t.Errorf("resumed run differs from a fresh one:\n%s\n---\n%s", a, b)
	}
}

func TestDifferentConfigRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	o := baseOptions(dir, &fakeRuntime{})
	o.Gen.MaxTokens = 77
	_, err := Run(context.Background(), o)
	var mm *ConfigMismatchError
	if !errors.As(err, &mm) || !strings.Contains(err.Error(), "generation") {
		t.Fatalf("err = %v, want a configuration mismatch naming generation", err)
	}
	rerunForced(t, o)
}

// rerunForced runs o again with --force and checks that every sample was
// generated anew.
func rerunForced(t *testing.T, o Options) {
	t.Helper()
	o.Force = true
	rt := &fakeRuntime{}
	o.Runtime = rt
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if rt.calls.Load() != 65 {
		t.Errorf("--force regenerated %d samples, want 65", rt.calls.Load())
	}
}

// TestForceOverUnreadableManifest: without --force a manifest that cannot
// be read stops the run (nothing in the directory is touched); with
// --force the run starts over without reading it.
func TestForceOverUnreadableManifest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	want := stripTimings(t, dir)
	manifest := filepath.Join(dir, results.ManifestFile)
	if err := os.WriteFile(manifest, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, err := os.ReadFile(results.SamplesPath(dir, "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err == nil || !strings.Contains(err.Error(), "read existing result directory") {
		t.Fatalf("err = %v, want the unreadable manifest refused", err)
	}
	if got, _ := os.ReadFile(results.SamplesPath(dir, "alpha")); !bytes.Equal(got, samples) {
		t.Error("the refused run changed the samples")
	}
	rerunForced(t, baseOptions(dir, &fakeRuntime{}))
	if got := stripTimings(t, dir); got != want {
		t.Errorf("the forced run differs from the first:\n%s\n---\n%s", got, want)
	}
}

func TestTornLineAndDuplicates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	want := stripTimings(t, dir)
	// Simulate a crash after a retry: a failed attempt of the first
	// sample before its result, the last two lines lost and half a line
	// left.
	path := results.SamplesPath(dir, "alpha")
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1] // trailing empty
	var failed map[string]any
	json.Unmarshal([]byte(lines[0]), &failed)
	failed["error"], failed["scores"] = "runtime: connection reset", map[string]any{}
	retried, _ := json.Marshal(failed)
	broken := string(retried) + "\n" + strings.Join(lines[:len(lines)-2], "") + lines[len(lines)-2][:10]
	os.WriteFile(path, []byte(broken), 0o644)
	markRunning(t, dir) // as a crash leaves it
	var warned []string
	o := baseOptions(dir, &fakeRuntime{})
	o.Warn = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Generated != 2 {
		t.Errorf("generated %d, want 2", res.Generated)
	}
	if len(warned) == 0 || !strings.Contains(warned[0], "incomplete last line") {
		t.Errorf("no warning about the torn line: %v", warned)
	}
	if got := stripTimings(t, dir); got != want {
		t.Errorf("after repair:\n%s\nwant\n%s", got, want)
	}
}

func TestInterruptKeepsFinished(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	rt := &fakeRuntime{delay: 2 * time.Millisecond}
	o := baseOptions(dir, rt)
	o.Progress = &cancelAfter{n: 10, cancel: cancel}
	res, err := Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.Summary.Complete {
		t.Error("an interrupted run's summary says complete")
	}
	m, _ := results.ReadManifest(dir)
	if m.Status != results.StatusInterrupted {
		t.Errorf("status %q", m.Status)
	}
	rt2 := &fakeRuntime{}
	res2, err := Run(context.Background(), baseOptions(dir, rt2))
	if err != nil {
		t.Fatal(err)
	}
	if int(rt2.calls.Load())+res2.Reused != 65 || res2.Reused < 10 {
		t.Errorf("resume after interrupt: generated %d reused %d", rt2.calls.Load(), res2.Reused)
	}
}

type cancelAfter struct {
	n      int32
	seen   atomic.Int32
	cancel func()
}

func (c *cancelAfter) Start(int, int) {}
func (c *cancelAfter) Done(string) {
	if c.seen.Add(1) == c.n {
		c.cancel()
	}
}
func (c *cancelAfter) Finish() {}

func TestShardsCoverEverythingOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for _, dir := range runShards(t, 3, func(dir string) Options { return baseOptions(dir, &fakeRuntime{}) }) {
		for _, task := range []string{"alpha", "beta"} {
			recs, _, _ := results.ReadSamples(results.SamplesPath(dir, task))
			for _, r := range recs {
				seen[task+"/"+r.ID]++
			}
		}
	}
	if len(seen) != 65 {
		t.Errorf("shards covered %d samples, want 65", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s in %d shards", k, n)
		}
	}
}

// TestKill9 runs the runner in a child process, kills it with SIGKILL in
// the middle, and checks that a second run produces the same result as an
// uninterrupted one with no duplicate lines.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	for attempt := 0; attempt < 3; attempt++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), "RUNNER_HELPER_DIR="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until some lines exist, then kill.
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			b, _ := os.ReadFile(results.SamplesPath(dir, "alpha"))
			if bytes.Count(b, []byte("\n")) >= 5+attempt*5 {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	if _, err := os.Stat(filepath.Join(dir, results.SummaryFile)); err == nil {
		b, _ := os.ReadFile(filepath.Join(dir, results.SummaryFile))
		var s results.Summary
		json.Unmarshal(b, &s)
		if s.Complete {
			// Only possible if the child finished before the kill.
			t.Log("child finished before it was killed")
		}
	}
	if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(fresh, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	if a, b := stripTimings(t, dir), stripTimings(t, fresh); a != b {
		t.Errorf("after kill -9 and resume:\n%s\nwant\n%s", a, b)
	}
	data, _ := os.ReadFile(results.SamplesPath(dir, "alpha"))
	if n := bytes.Count(data, []byte("\n")); n != 40 {
		t.Errorf("alpha has %d lines, want 40 (no duplicates)", n)
	}
}

func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("RUNNER_HELPER_DIR")
	if dir == "" {
		return
	}
	o := baseOptions(dir, &fakeRuntime{delay: 3 * time.Millisecond})
	o.Concurrency = 3
	Run(context.Background(), o)
	os.Exit(0)
}

// TestResumeRefusesStrayRecords: a resume refuses, before generating
// anything, a samples file holding a record that is not one of the task's
// samples (an id the dataset lacks, another task's record, a wrong index)
// or a second result for a sample, naming the file and line; it used to
// keep them. Issue 21.
func TestResumeRefusesStrayRecords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, line, want string
	}{
		{"unknown id", `{"task":"alpha","id":"zz","index":3,"response":"x","scores":{"acc":1}}`, `alpha.jsonl:31: field "id": sample "zz" is not in the dataset of alpha`},
		{"other task", `{"task":"beta","id":"35","index":35,"response":"x","scores":{"acc":1}}`, `alpha.jsonl:31: field "task": record of task "beta"`},
		{"wrong index", `{"task":"alpha","id":"35","index":7,"response":"x","scores":{"acc":1}}`, `alpha.jsonl:31: field "index": sample 35 is at index 35 of the dataset, not 7`},
		{"second result", `{"task":"alpha","id":"3","index":3,"response":"x","scores":{"acc":1}}`, `alpha.jsonl:31: field "id": second record of sample 3`},
		{"score out of range", `{"task":"alpha","id":"35","index":35,"response":"x","scores":{"acc":5}}`, `alpha.jsonl:31: field "scores.acc": 5 is outside [0, 1]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o := baseOptions(dir, &fakeRuntime{})
			o.Limit = 30 // samples 30-39 have no record
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			path := results.SamplesPath(dir, "alpha")
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(c.line + "\n")
			f.Close()
			rt := &fakeRuntime{}
			o.Runtime = rt
			_, err = Run(context.Background(), o)
			var se *results.SampleError
			var re *ResumeError
			if !errors.As(err, &se) || !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refused, nothing written") {
				t.Errorf("resume: %v, want a *ResumeError around a *SampleError %q", err, c.want)
			}
			if n := rt.calls.Load(); n != 0 {
				t.Errorf("resume generated %d samples before refusing", n)
			}
		})
	}
}

// TestSecondWriterRefused: a run into a directory another run holds is
// refused with the holder's pid before anything is read or written.
// Issue 21: two runs into one --out interleaved their lines.
func TestSecondWriterRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock, err := results.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	rt := &fakeRuntime{}
	_, err = Run(context.Background(), baseOptions(dir, rt))
	var le *results.LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Errorf("second writer: %v, want a *results.LockedError naming pid %d", err, os.Getpid())
	}
	if _, serr := os.Stat(filepath.Join(dir, results.ManifestFile)); !os.IsNotExist(serr) || rt.calls.Load() != 0 {
		t.Errorf("the refused run touched the directory (manifest: %v, %d calls)", serr, rt.calls.Load())
	}
	lock.Unlock()
	if _, err := Run(context.Background(), baseOptions(dir, rt)); err != nil {
		t.Errorf("after the first writer is gone: %v", err)
	}
}

// TestRecordsWrittenInOrder: records finishing out of order wait for the
// ones before them, so the file comes out in work order; once one has
// waited too long, all are written and order is given up (finishing then
// sorts the file).
func TestRecordsWrittenInOrder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := results.OpenSampleWriter(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	tf := &taskFile{w: w, pending: map[int][]byte{}}
	put := func(pos int) {
		t.Helper()
		if err := tf.put(pos, []byte(fmt.Sprintf(`{"task":"t","id":"%d","index":%d,"scores":{}}`+"\n", pos, pos))); err != nil {
			t.Fatal(err)
		}
	}
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
	for _, pos := range []int{1, 2, 0, 4, 3} {
		put(pos)
	}
	if got := ids(); got != "0,1,2,3,4" || len(tf.pending) != 0 {
		t.Errorf("after 1,2,0,4,3: file %s, %d waiting; want 0,1,2,3,4 and none", got, len(tf.pending))
	}
	for _, pos := range []int{6, 7, 8} {
		put(pos) // 5 is slow: these wait
	}
	if got := ids(); got != "0,1,2,3,4" {
		t.Errorf("records after a gap were written: %s", got)
	}
	tf.oldest = time.Now().Add(-2 * maxWait)
	put(9) // the first has waited too long: all are written now, in order
	if got := ids(); got != "0,1,2,3,4,6,7,8,9" || !tf.unordered {
		t.Errorf("after the cap: file %s, unordered %v", got, tf.unordered)
	}
	put(5)
	if got := ids(); got != "0,1,2,3,4,6,7,8,9,5" {
		t.Errorf("unordered file: %s", got)
	}
	// Waiting records are written when execution ends.
	tf2 := &taskFile{w: w, pending: map[int][]byte{}}
	if err := tf2.put(1, []byte(`{"task":"t","id":"late","index":11,"scores":{}}`+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := (&workPlan{tasks: []*taskFile{tf2}}).flushPending(); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !strings.HasSuffix(got, ",late") {
		t.Errorf("flushPending: file %s", got)
	}
}

// markRunning sets a finished run's manifest back to running, as a crash
// (kill -9) in a later invocation leaves it, so that its samples files may
// differ from the digests of the run's end.
func markRunning(t *testing.T, dir string) {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Status = results.StatusRunning
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// releasingTask counts the calls of Release.
type releasingTask struct {
	fakeTask
	released *atomic.Int64
}

func (t releasingTask) Release() { t.released.Add(1) }

// TestReleaseFinishedTask: a task that holds memory for its scoring
// (evals.Releaser) is told once when the run has written all its records.
func TestReleaseFinishedTask(t *testing.T) {
	var n atomic.Int64
	o := baseOptions(t.TempDir(), &fakeRuntime{})
	o.Tasks = []evals.Task{releasingTask{fakeTask{"alpha", 40}, &n}, fakeTask{"beta", 25}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 1 {
		t.Fatalf("Release called %d times, want 1", got)
	}
}

// loadCountingTask counts its loads; from load number changeAt on its
// dataset's digest differs.
type loadCountingTask struct {
	fakeTask
	loads    *atomic.Int64
	changeAt int64
}

func (t loadCountingTask) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	d, err := t.fakeTask.Load(ctx, cfg)
	if n := t.loads.Add(1); t.changeAt > 0 && n >= t.changeAt {
		d.Files = map[string]string{"fake.jsonl": "01"}
	}
	return d, err
}

// TestReleaseWaitingDatasets: a task after the first has its dataset let
// go during the run and loaded again when its work starts, unless the
// largest dataset's phase holds more than keeping it adds; the results
// are those of a run that kept it, and a dataset that changed in between
// is refused.
func TestReleaseWaitingDatasets(t *testing.T) {
	var loads atomic.Int64
	dir := t.TempDir()
	o := baseOptions(dir, &fakeRuntime{})
	o.Tasks = []evals.Task{fakeTask{"alpha", 40}, loadCountingTask{fakeTask{"beta", 25}, &loads, 0}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := loads.Load(); got != 2 {
		t.Errorf("beta loaded %d times, want 2", got)
	}
	kept := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(kept, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	if a, b := stripTimings(t, dir), stripTimings(t, kept); a != b {
		t.Errorf("results differ from a run that kept the dataset:\n%s\n%s", a, b)
	}

	// A dataset that the largest one's phase outweighs anyway is kept
	// (beta's during alpha's phase); one that would add to it is not.
	var betaLoads, gammaLoads atomic.Int64
	o = baseOptions(t.TempDir(), &fakeRuntime{})
	o.Tasks = []evals.Task{fakeTask{"alpha", 40}, loadCountingTask{fakeTask{"beta", 5}, &betaLoads, 0}, loadCountingTask{fakeTask{"gamma", 60}, &gammaLoads, 0}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if b, g := betaLoads.Load(), gammaLoads.Load(); b != 1 || g != 2 {
		t.Errorf("beta loaded %d times, gamma %d; want 1 and 2", b, g)
	}

	loads.Store(0)
	o = baseOptions(t.TempDir(), &fakeRuntime{})
	o.Tasks = []evals.Task{fakeTask{"alpha", 40}, loadCountingTask{fakeTask{"beta", 25}, &loads, 2}}
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "changed during the run") {
		t.Fatalf("a dataset changed during the run: %v", err)
	}
}
