package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress shows a progress bar on a terminal; otherwise it prints a line
// every few seconds so logs show the run is alive.
type progress struct {
	io *IOStreams

	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	total   int
	done    int
	lastLog time.Time
}

func newProgress(io *IOStreams) *progress { return &progress{io: io} }

func (p *progress) Start(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done = total, done
	if p.io.StderrTTY && total > done {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.io.ErrOut),
			progressbar.OptionSetDescription("evaluating"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("samples"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		p.bar.Set(done)
	}
	p.lastLog = time.Now()
}

func (p *progress) Done(task string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.bar != nil {
		p.bar.Add(1)
		return
	}
	if time.Since(p.lastLog) > 10*time.Second {
		fmt.Fprintf(p.io.ErrOut, "progress: %d/%d samples (%s)\n", p.done, p.total, task)
		p.lastLog = time.Now()
	}
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
