package cli

import (
	"strings"
	"testing"
	"time"
)

// TestProgressResumed: a run resumed with 60 of 100 samples done reports
// the rate and time left of the samples it does itself (1 per second: 30 s
// left after 10 more), not 60 samples done in no time.
func TestProgressResumed(t *testing.T) {
	io, _, _, errb := TestStreams()
	p := newProgress(io)
	clock := time.Unix(1700000000, 0)
	p.now = func() time.Time { return clock }
	p.Start(100, 60)
	for range 10 {
		clock = clock.Add(time.Second)
		p.Done("gsm8k")
	}
	want := "progress: 70/100 samples (gsm8k), 1.00 samples/s, 30s left\n"
	if errb.String() != want {
		t.Errorf("got %q, want %q", errb.String(), want)
	}
}

// TestProgressBarResumed: on a terminal the bar counts the remaining
// samples, so its rate is the work being done.
func TestProgressBarResumed(t *testing.T) {
	io, _, _, errb := TestStreams()
	io.StderrTTY = true
	p := newProgress(io)
	p.Start(100, 60)
	p.Done("gsm8k")
	p.Finish()
	out := errb.String()
	if !strings.Contains(out, "resumed: 60 of 100 were done") || strings.Contains(out, "/100") || !strings.Contains(out, "/40") {
		t.Errorf("bar output %q: want the 40 remaining samples counted, with the resumed ones named", out)
	}
}
