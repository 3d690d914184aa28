package runner

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/results"
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
