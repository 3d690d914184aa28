package runner

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
)

// workPlan is what Run's plan phase found: per task its samples file and
// writer, the work left, and how much was already done.
type workPlan struct {
	tasks []*taskFile
	work  []workItem
	// total counts every work item of the selection; done those finished
	// by an earlier run.
	total, done int
	// rendered has the requests the checks rendered, for execute.
	rendered *renderCache
	// strings keeps the encodings of message texts records share.
	strings *results.StringCache
}

// taskFile is one task's samples file, open for appending.
type taskFile struct {
	p    *prepared
	path string
	w    *results.SampleWriter

	// Records are written in work-item order when they finish close
	// enough to it, so that a run at concurrency > 1 leaves its file
	// already sorted and finishing need not rewrite it: a record that
	// finishes before earlier ones waits for them, unless that would make
	// more than maxWaiting records or maxWaitingBytes wait, or make one
	// wait longer than maxWait; then every waiting record is written and
	// order is given up for the file.
	mu           sync.Mutex
	next         int            // position of the next record in order
	pending      map[int][]byte // encoded records waiting, by position
	pendingBytes int
	oldest       time.Time // when the first waiting record finished
	unordered    bool
	count        int // work items of this run in the file
	// fresh: the file had no records when the run began, so the records
	// this run wrote (mem, by position; an empty ID where none was
	// written) are all of them, and the summary is built from memory
	// instead of reading the file back (summaryRecords).
	fresh bool
	// mem is allocated when the task's first record is remembered
	// (memory), so that a run holds the records of the task it is
	// working on, not of every task from the start.
	mem     []memRecord
	memOnce sync.Once
	// shared holds the maps records share (sharedMaps).
	shared *sharedMaps
	// filled counts the records in mem; the goroutine that fills the last
	// one summarises the task at once (early) and lets mem go, so that a
	// run keeps the records of about one task at a time.
	filled  atomic.Int64
	repeats int
	early   *earlySummary
	// journal records the steps of a conversational task's
	// conversations (nil for other tasks).
	journal *journal
	// digest is the file's sha256 as its writer wrote it (digestOK),
	// taken when the writer is closed.
	digest   string
	digestOK bool
}

// earlySummary is a task's summary computed when its last record was
// written.
type earlySummary struct {
	ts      *results.TaskSummary
	missing int
}

// Limits on records waiting for earlier ones (see taskFile).
const (
	maxWaiting      = 1024
	maxWaitingBytes = 8 << 20
	maxWait         = time.Second
)

// workItem is one generation: a selected sample and a repeat.
type workItem struct {
	p      *prepared
	file   *taskFile
	idx    int // dataset index
	repeat int
	pos    int // position among the task's work items
}

// put writes the encoded record of the work item at position pos, in
// order if it can. kept reports that line waits in memory for earlier
// records (the caller must not reuse it); otherwise it was written.
func (tf *taskFile) put(pos int, line []byte) (kept bool, err error) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	switch {
	case tf.unordered:
		return false, tf.w.AppendLine(line)
	case pos != tf.next:
		if len(tf.pending) == 0 {
			tf.oldest = time.Now()
		}
		tf.pending[pos] = line
		tf.pendingBytes += len(line)
		if len(tf.pending) <= maxWaiting && tf.pendingBytes <= maxWaitingBytes && time.Since(tf.oldest) <= maxWait {
			return true, nil
		}
		tf.unordered = true
		return true, tf.flush()
	}
	if err := tf.w.AppendLine(line); err != nil {
		return false, err
	}
	for tf.next++; tf.pending[tf.next] != nil; tf.next++ {
		if err := tf.w.AppendLine(tf.pending[tf.next]); err != nil {
			return false, err
		}
		tf.pendingBytes -= len(tf.pending[tf.next])
		delete(tf.pending, tf.next)
	}
	if len(tf.pending) > 0 {
		tf.oldest = time.Now() // roughly: the rest finished after the gap closed
	}
	return false, nil
}

// flush writes every waiting record, in position order; the caller holds
// tf.mu.
func (tf *taskFile) flush() error {
	keys := make([]int, 0, len(tf.pending))
	for k := range tf.pending {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		if err := tf.w.AppendLine(tf.pending[k]); err != nil {
			return err
		}
		delete(tf.pending, k)
	}
	tf.pendingBytes = 0
	return nil
}

// flushPending writes the records still waiting (those after one that
// never finished: cancelled, or a write failed).
func (pl *workPlan) flushPending() error {
	var first error
	for _, tf := range pl.tasks {
		tf.mu.Lock()
		if err := tf.flush(); err != nil && first == nil {
			first = err
		}
		tf.mu.Unlock()
	}
	return first
}

// plan is Run's plan phase: for each task it reads the records an earlier
// run left (warning about a torn last line), opens the samples file for
// appending, and lists the work items without a finished record. A record
// that is not one of the task's samples — another task's, an id the
// dataset lacks, an index that is not its sample's — is refused with its
// file and line before anything is generated: resume never carries a
// stray record into a result.
func plan(o Options, preps preparedTasks) (*workPlan, error) {
	pl := &workPlan{strings: results.NewStringCache()}
	for _, p := range preps {
		tf := &taskFile{p: p, path: results.SamplesPath(o.OutDir, p.info.Name), pending: map[int][]byte{}, shared: &sharedMaps{}}
		recs, rep, err := results.ReadTaskSamples(o.OutDir, p.info.Name)
		if err == nil {
			err = checkKnown(tf.path, p, recs)
		}
		if err != nil {
			pl.close()
			var se *results.SampleError
			if errors.As(err, &se) {
				return nil, &ResumeError{Dir: o.OutDir, Err: fmt.Errorf("%w (remove the line)", err)}
			}
			return nil, fmt.Errorf("resume %s: %w", o.OutDir, err)
		}
		if rep.TornBytes > 0 {
			o.Warn("%s: ignored an incomplete last line (%d bytes) left by an interrupted run", tf.path, rep.TornBytes)
		}
		if tf.w, err = results.OpenSampleWriter(tf.path, rep.GoodBytes); err != nil {
			pl.close()
			return nil, err
		}
		tf.fresh = len(recs) == 0 && rep.GoodBytes == 0
		pl.tasks = append(pl.tasks, tf)
		if _, ok := p.task.(evals.Conversational); ok && !replayed(o.Runtime) {
			if tf.journal, err = openJournal(o.OutDir, p.info.Name); err != nil {
				pl.close()
				return nil, err
			}
		}
		finished := map[results.Key]bool{}
		for _, r := range recs {
			if r.Error == "" {
				finished[r.Key()] = true
			}
		}
		for _, wi := range p.items(o.SamplesPerTask) {
			pl.total++
			if finished[results.Key{ID: p.data.Samples[wi.idx].ID, Repeat: wi.repeat}] {
				pl.done++
				continue
			}
			wi.file, wi.pos = tf, tf.count
			tf.count++
			pl.work = append(pl.work, wi)
		}
		if tf.fresh {
			tf.repeats = o.SamplesPerTask
		}
	}
	return pl, nil
}

// close closes every samples file still open.
func (pl *workPlan) close() {
	for _, tf := range pl.tasks {
		if tf.w != nil {
			if err := tf.w.Close(); err == nil {
				tf.digest, tf.digestOK = tf.w.Digest()
			}
			tf.w = nil
		}
		tf.journal.close()
		tf.journal = nil
	}
}

// checkKnown refuses a record whose sample is not in the task's dataset at
// the index it claims.
func checkKnown(path string, p *prepared, recs []results.Record) error {
	index := make(map[string]int, len(p.data.Samples))
	for i, s := range p.data.Samples {
		index[s.ID] = i
	}
	for _, r := range recs {
		i, ok := index[r.ID]
		switch {
		case !ok:
			return &results.SampleError{Path: path, Line: r.Line, Field: "id", Err: fmt.Errorf("sample %q is not in the dataset of %s", r.ID, p.info.Name)}
		case r.Index != i:
			return &results.SampleError{Path: path, Line: r.Line, Field: "index", Err: fmt.Errorf("sample %s is at index %d of the dataset, not %d", r.ID, i, r.Index)}
		}
	}
	return nil
}
