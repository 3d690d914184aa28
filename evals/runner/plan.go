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
	// finishes before earlier ones waits for them. While maxWaiting
	// records or maxWaitingBytes wait, the workers that finish more
	// records of the file wait too (a fast runtime outruns one slow
	// request by thousands of records); once the first waiting record
	// has waited maxWait, every waiting record is written and order is
	// given up for the file.
	//
	// Writing is group commit: the worker that makes records ready (in
	// order) writes them; records that become ready while it is writing
	// are queued in ready and it writes them all with its next write(2),
	// as soon as the one under way returns. The others never wait for
	// the file.
	mu           sync.Mutex
	next         int            // position of the next record in order
	pending      map[int][]byte // encoded records waiting, by position
	pendingBytes int
	oldest       time.Time // when the first waiting record finished
	unordered    bool
	ready        [][]byte   // lines to write next, in order
	spare        [][]byte   // ready's other buffer
	writing      bool       // a worker is writing ready's lines
	room         *sync.Cond // signalled when waiting records were written
	waiters      int        // workers waiting for room
	werr         error      // the first write error
	stopped      bool       // the run is ending: nobody waits for room
	// release takes back a line's buffer once it is written (nil: drop).
	release func([]byte)
	count   int // work items of this run in the file
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
	maxWaiting      = 256
	maxWaitingBytes = 2 << 20
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

// put hands the encoded record of the work item at position pos to the
// file, which owns line from then on (it is given to release once
// written). The record is written at once if it is next in order, else
// it waits for the records before it (see taskFile); put returns the
// file's first write error.
func (tf *taskFile) put(pos int, line []byte) error {
	tf.mu.Lock()
	if tf.werr != nil {
		err := tf.werr
		tf.mu.Unlock()
		return err
	}
	for !tf.unordered && !tf.stopped && pos != tf.next && (len(tf.pending) >= maxWaiting || tf.pendingBytes+len(line) > maxWaitingBytes) {
		if time.Since(tf.oldest) > maxWait {
			tf.giveUpOrder()
			break
		}
		tf.waitRoom()
	}
	switch {
	case tf.unordered:
		tf.ready = append(tf.ready, line)
	case pos != tf.next:
		if len(tf.pending) == 0 {
			tf.oldest = time.Now()
		}
		tf.pending[pos] = line
		tf.pendingBytes += len(line)
		if time.Since(tf.oldest) > maxWait {
			tf.giveUpOrder()
		}
	default:
		tf.ready = append(tf.ready, line)
		for tf.next++; tf.pending[tf.next] != nil; tf.next++ {
			l := tf.pending[tf.next]
			tf.ready = append(tf.ready, l)
			tf.pendingBytes -= len(l)
			delete(tf.pending, tf.next)
		}
		if len(tf.pending) > 0 {
			tf.oldest = time.Now() // roughly: the rest finished after the gap closed
		}
		if tf.waiters > 0 {
			tf.room.Broadcast()
		}
	}
	return tf.writeReady()
}

// writeReady writes the ready lines unless another worker is writing
// (which then writes them as soon as its write returns), and goes on
// while more became ready meanwhile. The caller holds tf.mu; writeReady
// releases it.
func (tf *taskFile) writeReady() error {
	if tf.writing || len(tf.ready) == 0 {
		tf.mu.Unlock()
		return nil
	}
	tf.writing = true
	var err error
	for len(tf.ready) > 0 && err == nil {
		batch := tf.ready
		tf.ready = tf.spare[:0]
		tf.mu.Unlock()
		err = tf.w.AppendLines(batch)
		if tf.release != nil {
			for _, l := range batch {
				tf.release(l)
			}
		}
		clear(batch)
		tf.mu.Lock()
		tf.spare = batch[:0]
		if err != nil && tf.werr == nil {
			tf.werr = err
		}
	}
	tf.writing = false
	tf.mu.Unlock()
	return err
}

// waitRoom waits until waiting records were written or the first of
// them has waited maxWait; the caller holds tf.mu.
func (tf *taskFile) waitRoom() {
	if tf.room == nil {
		tf.room = sync.NewCond(&tf.mu)
	}
	tf.waiters++
	t := time.AfterFunc(maxWait-time.Since(tf.oldest)+time.Millisecond, func() {
		tf.mu.Lock()
		tf.room.Broadcast()
		tf.mu.Unlock()
	})
	tf.room.Wait()
	t.Stop()
	tf.waiters--
}

// stop ends the waits for room: the run is ending (cancelled, or a
// worker failed), so the records before the waiting ones may never come.
func (tf *taskFile) stop() {
	tf.mu.Lock()
	tf.stopped = true
	if tf.waiters > 0 {
		tf.room.Broadcast()
	}
	tf.mu.Unlock()
}

// giveUpOrder makes every waiting record ready, in position order, and
// writes the file's later records as they come; the caller holds tf.mu.
func (tf *taskFile) giveUpOrder() {
	tf.unordered = true
	tf.queuePending()
	if tf.waiters > 0 {
		tf.room.Broadcast()
	}
}

// queuePending moves every waiting record to ready, in position order;
// the caller holds tf.mu.
func (tf *taskFile) queuePending() {
	keys := make([]int, 0, len(tf.pending))
	for k := range tf.pending {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		tf.ready = append(tf.ready, tf.pending[k])
		delete(tf.pending, k)
	}
	tf.pendingBytes = 0
}

// flushPending writes the records still waiting (those after one that
// never finished: cancelled, or a write failed). No worker is running.
func (pl *workPlan) flushPending() error {
	var first error
	for _, tf := range pl.tasks {
		tf.mu.Lock()
		tf.queuePending()
		werr := tf.werr
		if werr != nil {
			tf.ready = tf.ready[:0]
			tf.mu.Unlock()
		} else {
			werr = tf.writeReady()
		}
		if werr != nil && first == nil {
			first = werr
		}
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
