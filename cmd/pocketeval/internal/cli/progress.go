package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/pocketeval/pocketeval/evals/runner"
)

// progress shows a progress bar on a terminal; otherwise it prints a line
// every few seconds so logs show the run is alive. Rate and time left are
// those of the work this process does: samples a resumed run found done
// are not counted as done in no time.
type progress struct {
	io  *IOStreams
	now func() time.Time
	// desc names the work on the bar ("evaluating"), unit its items
	// ("samples").
	desc, unit string

	mu        sync.Mutex
	bar       *progressbar.ProgressBar
	total     int
	done      int
	resumed   int // samples done before this process started
	started   time.Time
	lastLog   time.Time
	logPeriod time.Duration
}

func newProgress(io *IOStreams) *progress {
	return newProgressOf(io, "evaluating", "samples")
}

// newProgressOf is a progress of other work than a run's: desc names it
// on the bar, unit counts its items.
func newProgressOf(io *IOStreams, desc, unit string) *progress {
	return &progress{io: io, now: time.Now, logPeriod: 10 * time.Second, desc: desc, unit: unit}
}

// quietProgress is the progress of a command whose --quiet or --json asks
// for none.
type quietProgress struct{}

func (quietProgress) Start(int, int) {}
func (quietProgress) Done(string)    {}
func (quietProgress) Finish()        {}

// progressFor is what a command with --quiet and --json shows: nothing
// when either is set, else the line (or bar) run prints.
func progressFor(io *IOStreams, off bool, desc, unit string) runner.Progress {
	if off {
		return quietProgress{}
	}
	return newProgressOf(io, desc, unit)
}

func (p *progress) Start(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done, p.resumed = total, done, done
	p.started = p.now()
	if p.io.StderrTTY && total > done {
		desc := p.desc
		if done > 0 {
			desc = fmt.Sprintf("%s (resumed: %d of %d were done)", p.desc, done, total)
		}
		p.bar = progressbar.NewOptions(total-done,
			progressbar.OptionSetWriter(p.io.ErrOut),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(p.unit),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.lastLog = p.started
}

func (p *progress) Done(task string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.bar != nil {
		p.bar.Add(1)
		return
	}
	if now := p.now(); now.Sub(p.lastLog) >= p.logPeriod {
		fmt.Fprintf(p.io.ErrOut, "progress: %d/%d %s (%s)%s\n", p.done, p.total, p.unit, task, p.rate(now))
		p.lastLog = now
	}
}

// rate is ", R samples/s, T left" over the samples this process has done.
func (p *progress) rate(now time.Time) string {
	n, el := p.done-p.resumed, now.Sub(p.started).Seconds()
	if n <= 0 || el <= 0 {
		return ""
	}
	r := float64(n) / el
	left := time.Duration(float64(p.total-p.done) / r * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf(", %.2f %s/s, %s left", r, p.unit, left)
}

func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

// Warn prints a warning without breaking the bar.
func (p *progress) Warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintf(p.io.ErrOut, "warning: %s\n", msg)
}

// byteProgress returns a download progress callback: a bar on a terminal,
// otherwise a line per file.
func byteProgress(io *IOStreams) func(path string, done, total int64) {
	var mu sync.Mutex
	bars := map[string]*progressbar.ProgressBar{}
	announced := map[string]bool{}
	return func(path string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if !io.StderrTTY {
			if !announced[path] {
				announced[path] = true
				fmt.Fprintf(io.ErrOut, "downloading %s\n", path)
			}
			return
		}
		b, ok := bars[path]
		if !ok {
			b = progressbar.NewOptions64(total, progressbar.OptionSetWriter(io.ErrOut),
				progressbar.OptionSetDescription(path), progressbar.OptionShowBytes(true),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			bars[path] = b
		}
		b.Set64(done)
	}
}
