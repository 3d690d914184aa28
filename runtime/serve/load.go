package serve

import (
	"math"
	"sync"
	"time"
)

// load tracks how long generations take, for the Retry-After of a 429:
// the time the queue ahead of a refused request needs to drain.
type load struct {
	mu      sync.Mutex
	running []time.Time   // start times of the generations in flight
	avg     time.Duration // moving average of finished generations; 0 before the first
	// promised is the latest retry time told to a refused client: the
	// next one is told a later time, so a burst of refused clients comes
	// back spread out rather than all at once into a queue with room for
	// a few.
	promised time.Time
}

func (l *load) start(now time.Time) {
	l.mu.Lock()
	l.running = append(l.running, now)
	l.mu.Unlock()
}

// done ends the oldest generation in flight (which one ended does not
// matter to the estimate; the oldest keeps it conservative).
func (l *load) done(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.running) == 0 {
		return
	}
	d := now.Sub(l.running[0])
	l.running = l.running[1:]
	if l.avg == 0 {
		l.avg = d
	} else {
		l.avg = (3*l.avg + d) / 4
	}
}

// retryAfter estimates, in whole seconds (at least 1), when a request
// refused now would find room: the queue ahead of it (queue waiting plus
// the generations in flight) drains at slots generations at a time, each
// taking the average finished generation — or, before any has finished,
// at least as long as the longest one running. A client refused while an
// earlier one's retry time is still ahead is told one generation (per
// slot) after it.
func (l *load) retryAfter(now time.Time, slots, queue int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	per := l.avg
	for _, t := range l.running {
		per = max(per, now.Sub(t))
	}
	step := time.Duration(float64(per) / float64(max(slots, 1)))
	at := now.Add(step * time.Duration(queue+len(l.running)))
	if l.promised.After(now) {
		at = later(at, l.promised.Add(max(step, time.Second)))
	}
	secs := math.Ceil(at.Sub(now).Seconds())
	secs = min(max(secs, 1), 3600)
	l.promised = now.Add(time.Duration(secs) * time.Second)
	return int(secs)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
