package sandbox

import (
	"strconv"
	"strings"
	"sync"
)

// capture collects a run's stdout and stderr: it keeps the head of each
// stream (keep bytes), counts everything, and calls onCap once when the
// two streams together pass the cap. It never blocks the writer.
type capture struct {
	mu       sync.Mutex
	keep     int
	cap      int64
	total    int64
	capped   bool
	onCap    func()
	out, err stream
}

type stream struct {
	c       *capture
	buf     []byte
	written int64
}

func newCapture(capBytes int64, keep int, onCap func()) *capture {
	c := &capture{keep: keep, cap: capBytes, onCap: onCap}
	c.out.c, c.err.c = c, c
	return c
}

// Write keeps what fits in the head and counts the rest.
func (s *stream) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	if room := c.keep - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(room, len(p))]...)
	}
	s.written += int64(len(p))
	c.total += int64(len(p))
	fire := !c.capped && c.total > c.cap
	if fire {
		c.capped = true
	}
	c.mu.Unlock()
	if fire && c.onCap != nil {
		c.onCap()
	}
	return len(p), nil
}

func (c *capture) exceeded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.capped
}

// text returns the kept head as valid UTF-8 (invalid bytes replaced),
// noting how many bytes were not kept.
func (s *stream) text() string {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	t := strings.ToValidUTF8(string(s.buf), "\uFFFD")
	if dropped := s.written - int64(len(s.buf)); dropped > 0 {
		t += "\n[... " + strconv.FormatInt(dropped, 10) + " more bytes not kept]"
	}
	return t
}
