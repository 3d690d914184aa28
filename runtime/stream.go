package runtime

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"unicode/utf8"
)

// TextStream turns an engine's growing output into the deltas a streaming
// client may be sent: text that can no longer change. It holds back a
// tail that may still turn out to begin a stop sequence (the text ends
// before the stop) and an incomplete UTF-8 sequence, and sends only up to
// the end of a complete, valid character, so that the deltas joined are
// exactly the response's final text (Final sends the rest).
type TextStream struct {
	emit  func(string)
	stops []string
	sent  int // bytes of the output sent
	text  strings.Builder
}

// NewTextStream returns a TextStream that calls emit with each delta;
// stops are the request's stop sequences.
func NewTextStream(emit func(string), stops []string) *TextStream {
	return &TextStream{emit: emit, stops: stops}
}

// Update is called with the whole output so far after each decoded token
// once the stop sequences were searched for in it and none was found (a
// found stop ends the text before it: what it removes was never sent).
func (s *TextStream) Update(out []byte) {
	if s == nil {
		return
	}
	safe := len(out) - heldForStop(out, s.stops)
	// Back off to the end of the last valid character.
	for safe > s.sent {
		r, size := utf8.DecodeLastRune(out[:safe])
		if r != utf8.RuneError || size > 1 {
			break
		}
		safe--
	}
	if safe <= s.sent {
		return
	}
	d := string(bytes.ToValidUTF8(out[s.sent:safe], []byte("\uFFFD")))
	s.sent = safe
	s.text.WriteString(d)
	s.emit(d)
}

// Final sends what text, the response's final text, adds to what was
// sent. text starts with the deltas sent, as Update keeps it.
func (s *TextStream) Final(text string) {
	if s == nil {
		return
	}
	if rest, ok := strings.CutPrefix(text, s.text.String()); ok && rest != "" {
		s.text.WriteString(rest)
		s.emit(rest)
	}
}

// heldForStop is the length of out's longest suffix that is a proper
// prefix of a stop sequence.
func heldForStop(out []byte, stops []string) int {
	held := 0
	for _, st := range stops {
		for n := min(len(st)-1, len(out)); n > held; n-- {
			if bytes.HasSuffix(out, []byte(st[:n])) {
				held = n
				break
			}
		}
	}
	return held
}

// Stream runs generate, which reports text through onText from whatever
// goroutine decodes it, and calls emit with that text on the calling
// goroutine, so a slow client never stalls an engine's decode loop (other
// sequences share it). When emit fails (the client went away) generation
// is cancelled and emit's error is returned.
func Stream(ctx context.Context, emit func(string) error, generate func(ctx context.Context, onText func(string)) (Response, error)) (Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		pending strings.Builder
	)
	notify := make(chan struct{}, 1)
	onText := func(d string) {
		mu.Lock()
		pending.WriteString(d)
		mu.Unlock()
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	type result struct {
		resp Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := generate(ctx, onText)
		done <- result{resp, err}
	}()
	var emitErr error
	flush := func() {
		mu.Lock()
		d := pending.String()
		pending.Reset()
		mu.Unlock()
		if d == "" || emitErr != nil {
			return
		}
		if emitErr = emit(d); emitErr != nil {
			cancel()
		}
	}
	for {
		select {
		case <-notify:
			flush()
		case res := <-done:
			flush()
			if emitErr != nil {
				return Response{}, emitErr
			}
			return res.resp, res.err
		}
	}
}
