package energy

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/internal/wait"
	"github.com/pocketeval/pocketeval/stats"
)

// DefaultInterval is the sampling interval: 10 readings a second, the
// slowest rate Sampler accepts.
const DefaultInterval = 100 * time.Millisecond

// Sampler reads a Source on a background goroutine.
type Sampler struct {
	Source Source
	// Interval between background readings; 0 means DefaultInterval.
	// Longer than DefaultInterval is an error.
	Interval time.Duration
}

func (s *Sampler) interval() (time.Duration, error) {
	switch {
	case s.Interval == 0:
		return DefaultInterval, nil
	case s.Interval < 0 || s.Interval > DefaultInterval:
		return 0, fmt.Errorf("energy sampling interval %v: want at most %v (at least 10 Hz)", s.Interval, DefaultInterval)
	}
	return s.Interval, nil
}

// Window is one sampling window in progress.
type Window struct {
	src   Source
	start time.Time
	stop  chan struct{}
	done  chan struct{}

	mu       sync.Mutex
	readings []Reading
	err      error
}

// Start takes a reading and starts sampling in the background until Stop.
func (s *Sampler) Start() (*Window, error) {
	iv, err := s.interval()
	if err != nil {
		return nil, err
	}
	w := &Window{src: s.Source, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if err := w.read(); err != nil {
		return nil, fmt.Errorf("energy: first reading: %w", err)
	}
	go w.loop(iv)
	return w, nil
}

func (w *Window) loop(iv time.Duration) {
	defer close(w.done)
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if err := w.read(); err != nil {
				w.mu.Lock()
				if w.err == nil {
					w.err = err
				}
				w.mu.Unlock()
			}
		}
	}
}

func (w *Window) read() error {
	r, err := w.src.Read()
	if err != nil {
		return err
	}
	r.At = time.Since(w.start).Seconds()
	w.mu.Lock()
	w.readings = append(w.readings, r)
	w.mu.Unlock()
	return nil
}

// Stop ends sampling, takes a last reading and returns the trace. A
// failed background reading is returned as an error.
func (w *Window) Stop() (Trace, error) {
	close(w.stop)
	<-w.done
	err := w.read()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		err = w.err
	}
	tr := Trace{Readings: w.readings}
	if n := len(tr.Readings); n > 0 {
		tr.Seconds = tr.Readings[n-1].At - tr.Readings[0].At
	}
	if err != nil {
		return tr, fmt.Errorf("energy: reading during the window: %w", err)
	}
	return tr, nil
}

// Trace is what one window recorded.
type Trace struct {
	// Seconds is the window's length: from the first to the last reading
	// (their At is counted from the window's opening).
	Seconds  float64   `json:"s"`
	Readings []Reading `json:"readings"`
}

// Joules is the energy over the trace: the trapezoid integral of a power
// source's watts, or the sum of a counter source's wrap-corrected
// differences over all its domains.
func (t Trace) Joules(d Description) float64 {
	var e float64
	for i := 1; i < len(t.Readings); i++ {
		a, b := t.Readings[i-1], t.Readings[i]
		if !d.Counter {
			e += (a.Watts + b.Watts) / 2 * (b.At - a.At)
			continue
		}
		for k := range b.Counters {
			if k < len(a.Counters) && k < len(d.Ranges) {
				e += float64(CounterDelta(a.Counters[k], b.Counters[k], d.Ranges[k])) * 1e-6
			}
		}
	}
	return e
}

// MaxGap is the longest time between two successive readings.
func (t Trace) MaxGap() float64 {
	var g float64
	for i := 1; i < len(t.Readings); i++ {
		g = math.Max(g, t.Readings[i].At-t.Readings[i-1].At)
	}
	return g
}

// Round is one measured round: an idle window, then the workload.
type Round struct {
	IdleSeconds float64 `json:"idle_s"`
	IdleJoules  float64 `json:"idle_j"`
	// IdleWatts is IdleJoules / IdleSeconds, the baseline power.
	IdleWatts  float64 `json:"idle_w"`
	RunSeconds float64 `json:"run_s"`
	RunJoules  float64 `json:"run_j"`
	// IncrementJoules is RunJoules − IdleWatts × RunSeconds.
	IncrementJoules float64 `json:"increment_j"`
	// Samples is the number of readings in the run window and
	// MaxGapSeconds the longest time between two of them.
	Samples       int     `json:"samples"`
	MaxGapSeconds float64 `json:"max_gap_s"`
}

// NewRound computes a round from its two traces.
func NewRound(d Description, idle, run Trace) Round {
	r := Round{
		IdleSeconds: idle.Seconds, IdleJoules: idle.Joules(d),
		RunSeconds: run.Seconds, RunJoules: run.Joules(d),
		Samples: len(run.Readings), MaxGapSeconds: run.MaxGap(),
	}
	if r.IdleSeconds > 0 {
		r.IdleWatts = r.IdleJoules / r.IdleSeconds
	}
	r.IncrementJoules = r.RunJoules - r.IdleWatts*r.RunSeconds
	return r
}

// Meter measures rounds with a Sampler.
type Meter struct {
	Sampler
	// Sleep waits for d or until ctx ends; nil means a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Round records an idle window of length idle, then runs run under a
// second window. Warnings (the battery stopped discharging) come back with
// the round.
func (m *Meter) Round(ctx context.Context, idle time.Duration, run func() error) (Round, []string, error) {
	sl := m.Sleep
	if sl == nil {
		sl = wait.Sleep
	}
	iw, err := m.Start()
	if err != nil {
		return Round{}, nil, err
	}
	if err := sl(ctx, idle); err != nil {
		iw.Stop()
		return Round{}, nil, err
	}
	it, err := iw.Stop()
	if err != nil {
		return Round{}, nil, err
	}
	rw, err := m.Start()
	if err != nil {
		return Round{}, nil, err
	}
	runErr := run()
	rt, err := rw.Stop()
	if runErr != nil {
		return Round{}, nil, runErr
	}
	if err != nil {
		return Round{}, nil, err
	}
	var warns []string
	if s, ok := m.Source.(StatusReader); ok {
		if st, err := s.Status(); err == nil && st != "Discharging" {
			warns = append(warns, fmt.Sprintf("battery status became %q during the measurement: readings include charge current", st))
		}
	}
	return NewRound(m.Source.Describe(), it, rt), warns, nil
}

// Stat is a mean and sample standard deviation.
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// NewStat summarises v (SD is 0 for fewer than two values).
func NewStat(v []float64) Stat { return Stat{Mean: stats.Mean(v), SD: stats.SD(v)} }

// Result summarises the rounds of one workload.
type Result struct {
	Source     Description `json:"source"`
	IntervalMS float64     `json:"interval_ms"`
	// Inferences is how many inferences each round ran.
	Inferences int     `json:"inferences_per_round"`
	Rounds     []Round `json:"rounds"`
	// JoulesPerInference is the incremental energy per inference over
	// the rounds.
	JoulesPerInference Stat `json:"j_per_inference"`
	// Battery and BatteryPctPer100 (percent of the battery used by 100
	// inferences) are set when the capacity is known.
	Battery          *Capacity `json:"battery,omitempty"`
	BatteryPctPer100 *Stat     `json:"battery_pct_per_100,omitempty"`
	Warnings         []string  `json:"warnings,omitempty"`
}

// Summarize builds the Result of rounds that ran inferences each.
func Summarize(d Description, interval time.Duration, inferences int, rounds []Round, battery *Capacity) Result {
	if inferences <= 0 {
		inferences = 1
	}
	if interval == 0 {
		interval = DefaultInterval
	}
	res := Result{Source: d, IntervalMS: float64(interval) / float64(time.Millisecond), Inferences: inferences, Rounds: rounds, Battery: battery}
	per := make([]float64, len(rounds))
	for i, r := range rounds {
		per[i] = r.IncrementJoules / float64(inferences)
	}
	res.JoulesPerInference = NewStat(per)
	if battery != nil && battery.Joules > 0 {
		pct := make([]float64, len(per))
		for i, j := range per {
			pct[i] = battery.PercentPer100(j)
		}
		s := NewStat(pct)
		res.BatteryPctPer100 = &s
	}
	for i, r := range rounds {
		if r.IncrementJoules < 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("round %d: the workload drew less than the idle baseline (%.3g J): the meter is too coarse or the baseline drifted", i+1, r.IncrementJoules))
		}
	}
	return res
}
