//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hybridgroup/yzma/pkg/llama"
)

// This file holds the decode scheduler. Every request (a generation, the
// choices of one log-likelihood question, a bench run) becomes a job; jobs
// wait in one queue; a decoder — one llama.cpp context — runs up to
// len(slots) jobs at once, each on its own sequence, and decodes them
// together: one llama_decode per step over the next token of every
// generating sequence plus as many prompt tokens of the others as the
// batch holds. A finished job's slot takes the next queued job at the start
// of the following step (continuous batching).
//
// With batching on there is one decoder with Workers slots over a unified
// KV cache, and a new job may start from any slot's cached tokens: the
// longest common prefix of its prompt with what some sequence holds is
// shared (llama_memory_seq_cp adds the sequence to the cells, nothing is
// copied or recomputed) and only the rest is evaluated. With batching off
// there are Workers decoders of one slot each: every job is computed by
// itself, exactly as alone, and only an identical log-likelihood context,
// computed the same way, is reused.

// job is one request's work on one sequence. A decoder calls its methods
// from its own goroutine only.
type job interface {
	context() context.Context
	// reuse returns the tokens the job would like to find computed at
	// positions 0, 1, ... already (nil: none).
	reuse() []llama.Token
	// next returns the tokens to evaluate next, appended to the slot's
	// sequence at positions len(sl.cache) onwards. It may first trim the
	// sequence (d.truncate). An empty segment means the job is done.
	next(d *decoder, sl *slot) (segment, error)
	// advance is called after a decode that evaluated the segment's first
	// n tokens (now at the end of sl.cache); first is the batch index of
	// the first of them. It reports whether the job is done.
	advance(d *decoder, sl *slot, n int, first int32) (done bool, err error)
	// finish delivers the result, or err; it is called once, last, and
	// must not block.
	finish(err error)
}

// segment is a run of tokens one job evaluates: the rest of a prompt, or
// one sampled token. Logits are computed for toks[out:].
type segment struct {
	toks    []llama.Token
	out     int
	prefill bool // prompt tokens (counted in PrefillStats), not generated ones
}

// slot is one sequence of a decoder's context.
type slot struct {
	seq   llama.SeqId
	ids   []llama.SeqId // {seq}, for batch.Add
	cache []llama.Token // the tokens the sequence holds, at positions 0..len-1
	// trunk means cache is exactly a log-likelihood context computed from
	// an empty sequence by itself: the one cache exact mode reuses.
	trunk bool
	// gridded is how many leading tokens of cache were evaluated in whole
	// grid chunks (exact mode: nBatch prompt tokens starting at a multiple
	// of nBatch, in one decode); a multiple of nBatch.
	gridded int
	job     job
	used    uint64 // step of last use, to evict the least recently used cache
	// want is what the job wanted reused; fresh means it has evaluated
	// nothing yet, so it can still adopt a longer cached prefix; waiting
	// means it holds back this step for another job to compute a prefix
	// they share.
	want    []llama.Token
	fresh   bool
	waiting bool
}

// decoder is one llama.cpp context running jobs in its slots.
type decoder struct {
	r      *Runtime
	lctx   llama.Context
	mem    llama.Memory
	batch  llama.Batch
	nBatch int
	slots  []*slot
	// exact restricts reuse to what is bit-identical to computing anew
	// (batching off); otherwise a job may keep any common prefix.
	exact bool
	// prefixCache lets a job start from another job's cached tokens.
	prefixCache bool
	// gridReuse (exact mode with the prefix cache) lets a job keep the
	// whole grid chunks it shares with what its sequence holds; see
	// grid.go.
	gridReuse bool
	piece     []byte
	step      uint64
	parts     []part
	running   bool // guarded by sched.mu
	// draft runs the draft model for speculative jobs (nil without
	// Options.DraftModel; speculative.go).
	draft *drafter
}

// part is one slot's share of a step's batch.
type part struct {
	sl    *slot
	seg   segment
	n     int
	first int32
}

// sched is the queue of jobs and the decoders that run them. A decoder's
// goroutine runs only while there is work, so an idle Runtime holds no
// goroutine (and a dropped one can be finalised).
type sched struct {
	mu       sync.Mutex
	queue    []job
	closing  bool
	decoders []*decoder
	wg       sync.WaitGroup // running decoder goroutines
	calls    sync.WaitGroup // public calls in progress (they use the model)

	requested atomic.Int64 // prompt tokens the jobs needed evaluated
	computed  atomic.Int64 // prompt tokens actually evaluated
	steps     atomic.Int64 // llama_decode calls
	seqSteps  atomic.Int64 // sequences in them, summed

	// pause is read-locked by every step; tests write-lock it to queue
	// jobs before any of them runs.
	pause sync.RWMutex
}

// enter admits a public call, or returns ErrClosed; a successful enter
// must be matched by leave.
func (s *sched) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ErrClosed
	}
	s.calls.Add(1)
	return nil
}

func (s *sched) leave() { s.calls.Done() }

// submit queues j and waits until it finishes (done is closed) or ctx
// ends. It returns ErrClosed when the runtime is closing, ctx.Err() when ctx
// ended first, else nil: the outcome went through j.finish.
func (s *sched) submit(ctx context.Context, j job, done <-chan struct{}) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrClosed
	}
	s.queue = append(s.queue, j)
	for _, d := range s.decoders {
		if !d.running {
			d.running = true
			s.wg.Add(1)
			go d.loop()
			break
		}
	}
	s.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		// Leave the queue if still in it; a running job sees ctx at its
		// next step and stops there.
		s.mu.Lock()
		if i := slices.Index(s.queue, j); i >= 0 {
			s.queue = slices.Delete(s.queue, i, i+1)
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// close refuses new calls and jobs, fails the queued jobs with ErrClosed
// and waits for the running ones and for every call to return.
func (s *sched) close() {
	s.mu.Lock()
	s.closing = true
	queued := s.queue
	s.queue = nil
	s.mu.Unlock()
	for _, j := range queued {
		j.finish(ErrClosed)
	}
	s.wg.Wait()
	s.calls.Wait()
}

// loop runs steps until the decoder has no job and the queue is empty.
func (d *decoder) loop() {
	s := &d.r.sched
	defer s.wg.Done()
	for {
		s.pause.RLock()
		d.admit()
		busy := d.busy()
		if busy {
			d.runStep()
		}
		s.pause.RUnlock()
		if !busy {
			s.mu.Lock()
			if len(s.queue) == 0 {
				d.running = false
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
		}
	}
}

func (d *decoder) busy() bool {
	for _, sl := range d.slots {
		if sl.job != nil {
			return true
		}
	}
	return false
}

// admit moves queued jobs into free slots.
func (d *decoder) admit() {
	s := &d.r.sched
	for {
		free := 0
		for _, sl := range d.slots {
			if sl.job == nil {
				free++
			}
		}
		s.mu.Lock()
		n := min(free, len(s.queue))
		jobs := slices.Clone(s.queue[:n])
		s.queue = s.queue[n:]
		s.mu.Unlock()
		if n == 0 {
			return
		}
		for _, j := range jobs {
			if err := j.context().Err(); err != nil {
				j.finish(err)
				continue
			}
			d.place(j)
		}
	}
}

// place puts j in a free slot. With the prefix cache, its sequence starts
// with the longest prefix of j.reuse() that any slot holds: the slot's own
// tokens if it is free, else shared from the busy slot into the free slot
// whose cache is worth least.
func (d *decoder) place(j job) {
	want := j.reuse()
	var src *slot
	best := 0
	if d.prefixCache {
		for _, sl := range d.slots {
			n := commonPrefix(sl.cache, want)
			// On a tie prefer a free slot: nothing to share.
			if n > best || (n == best && n > 0 && sl.job == nil && src.job != nil) {
				best, src = n, sl
			}
		}
	}
	target := src
	if target == nil || target.job != nil {
		target = d.victim()
	}
	if d.exact && len(d.slots) > 1 {
		// Exact batching: the free sequence that keeps most of want
		// (whole grid chunks, or the same log-likelihood context).
		most := d.keep(target, want)
		for _, sl := range d.slots {
			if sl.job == nil {
				if n := d.keep(sl, want); n > most {
					most, target = n, sl
				}
			}
		}
	}
	switch {
	case best == 0:
		d.truncate(target, d.keep(target, want))
	case target == src:
		d.truncate(target, best)
	default:
		d.truncate(target, 0)
		llama.MemorySeqCp(d.mem, src.seq, target.seq, 0, llama.Pos(best))
		target.cache = append(target.cache[:0], want[:best]...)
	}
	target.job = j
	target.used = d.step
	target.want, target.fresh, target.waiting = want, true, false
}

// minShare is the shortest shared prefix worth waiting for.
const minShare = 16

// holdBack reports whether a job that has evaluated nothing yet should wait
// a step: another running job, not itself waiting, is computing a prefix
// the two share that is at least minShare tokens longer than what the
// waiting job's sequence already holds. Requests queued together with the
// same few-shot preamble thus compute it once, not once each.
func (d *decoder) holdBack(sl *slot) bool {
	for _, o := range d.slots {
		if o == sl || o.job == nil || o.waiting {
			continue
		}
		if n := commonPrefix(o.want, sl.want); n >= len(sl.cache)+minShare && len(o.cache) < n {
			return true
		}
	}
	return false
}

// adopt gives a job that has evaluated nothing yet the longest prefix of
// what it wants that any sequence now holds, if longer than its own.
func (d *decoder) adopt(sl *slot) {
	best, src := commonPrefix(sl.cache, sl.want), (*slot)(nil)
	for _, o := range d.slots {
		if o != sl {
			if n := commonPrefix(o.cache, sl.want); n > best {
				best, src = n, o
			}
		}
	}
	if src == nil {
		return
	}
	d.truncate(sl, 0)
	llama.MemorySeqCp(d.mem, src.seq, sl.seq, 0, llama.Pos(best))
	sl.cache = append(sl.cache[:0], sl.want[:best]...)
}

// victim returns the free slot whose cache is worth least: an empty one,
// else the least recently used.
func (d *decoder) victim() *slot {
	var v *slot
	for _, sl := range d.slots {
		switch {
		case sl.job != nil:
		case v == nil:
			v = sl
		case len(sl.cache) == 0 && len(v.cache) > 0:
			v = sl
		case (len(sl.cache) == 0) == (len(v.cache) == 0) && sl.used < v.used:
			v = sl
		}
	}
	return v
}

// keep is how much of sl's cache a job wanting want keeps without the
// shared prefix cache: in exact mode an identical log-likelihood trunk,
// else with grid reuse the whole grid chunks the two share (grid.go),
// else nothing.
func (d *decoder) keep(sl *slot, want []llama.Token) int {
	if d.exact && sl.trunk && slices.Equal(sl.cache, want) {
		return len(want)
	}
	if d.gridReuse {
		return d.gridKeep(sl, want)
	}
	return 0
}

// reusable is how many of want's tokens a job continuing on sl keeps: in
// exact mode all when the sequence is exactly that trunk, else none;
// otherwise the common prefix.
func (d *decoder) reusable(sl *slot, want []llama.Token) int {
	if d.exact {
		return d.keep(sl, want)
	}
	return commonPrefix(sl.cache, want)
}

// truncate drops sl's tokens from position n on.
func (d *decoder) truncate(sl *slot, n int) {
	if n >= len(sl.cache) {
		return
	}
	sl.trunk = false
	sl.gridded = min(sl.gridded, n)
	if n == 0 && len(d.slots) == 1 {
		// Empty, exactly as a fresh context is (cell metadata only:
		// stale cells are masked out, as llama-server does).
		llama.MemoryClear(d.mem, false)
	} else {
		llama.MemorySeqRm(d.mem, sl.seq, llama.Pos(n), -1)
	}
	sl.cache = sl.cache[:n]
}

// end finishes sl's job with err and frees the slot.
func (d *decoder) end(sl *slot, err error) {
	j := sl.job
	sl.job = nil
	sl.used = d.step
	if _, ok := j.(*benchJob); ok {
		d.truncate(sl, 0) // synthetic tokens are worth nothing to anyone
	}
	j.finish(err)
}

// runStep builds one batch from every running job and decodes it.
func (d *decoder) runStep() {
	d.step++
	parts := d.parts[:0]
	for _, sl := range d.slots {
		if sl.job == nil {
			continue
		}
		if err := sl.job.context().Err(); err != nil {
			d.end(sl, err)
			continue
		}
		if d.prefixCache && sl.fresh {
			if sl.waiting = d.holdBack(sl); sl.waiting {
				continue
			}
			d.adopt(sl)
		}
		seg, err := sl.job.next(d, sl)
		if err != nil || len(seg.toks) == 0 {
			d.end(sl, err)
			continue
		}
		parts = append(parts, part{sl: sl, seg: seg})
	}
	if d.draft != nil {
		parts = d.speculate(parts)
	}
	// Short segments (the next token of a generating sequence) first, so
	// that a long prompt never holds up decoding; prompts fill the rest
	// of the batch in chunks.
	slices.SortStableFunc(parts, func(a, b part) int { return len(a.seg.toks) - len(b.seg.toks) })
	d.parts = parts
	if !d.exact || len(d.slots) == 1 {
		d.decodeParts(parts)
		return
	}
	// Exact batching: a prompt chunk is decoded by itself, on the grid,
	// as with batching off; only the segments of generating sequences
	// share a decode (their rows are computed as alone on models that
	// pass checkInvariant).
	var gen, prompts []part
	for _, p := range parts {
		if p.seg.prefill {
			prompts = append(prompts, p)
		} else {
			gen = append(gen, p)
		}
	}
	if len(gen) > 0 {
		d.decodeParts(gen)
	}
	for i := range prompts {
		d.decodeParts(prompts[i : i+1])
	}
}

// decodeParts fills the batch with parts, decodes it and advances their
// jobs; parts is overwritten.
func (d *decoder) decodeParts(parts []part) {
	d.batch.Clear()
	kept := parts[:0]
	for _, p := range parts {
		p.n = min(len(p.seg.toks), d.nBatch-int(d.batch.NTokens))
		if d.exact && p.seg.prefill {
			p.n = d.gridChunk(p.sl, p.n)
		}
		if p.n == 0 {
			continue // no room left this step
		}
		p.first = d.batch.NTokens
		pos := len(p.sl.cache)
		var err error
		for k := range p.n {
			if err = d.batch.Add(p.seg.toks[k], llama.Pos(pos+k), p.sl.ids, k >= p.seg.out); err != nil {
				break
			}
		}
		if err != nil {
			d.batch.NTokens = p.first
			d.end(p.sl, fmt.Errorf("fill batch: %w", err))
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return
	}
	d.r.sched.steps.Add(1)
	d.r.sched.seqSteps.Add(int64(len(kept)))
	if err := d.decode(); err != nil {
		for _, p := range kept {
			// Whatever the failed call placed is not part of the
			// sequence.
			llama.MemorySeqRm(d.mem, p.sl.seq, llama.Pos(len(p.sl.cache)), -1)
			d.end(p.sl, err)
		}
		return
	}
	for _, p := range kept {
		if d.exact {
			d.noteGrid(p.sl, p.seg.prefill, p.n)
		}
		p.sl.cache = append(p.sl.cache, p.seg.toks[:p.n]...)
		p.sl.used = d.step
		p.sl.fresh = false
		if p.seg.prefill {
			d.r.sched.computed.Add(int64(p.n))
		}
		if done, err := p.sl.job.advance(d, p.sl, p.n, p.first); err != nil || done {
			d.end(p.sl, err)
		}
	}
}

func (d *decoder) decode() error { return decodeBatch(d.lctx, d.batch) }

// decodeBatch runs llama_decode, naming what went wrong.
func decodeBatch(lctx llama.Context, batch llama.Batch) error {
	mark := engine.logs.mark()
	rc, err := llama.Decode(lctx, batch)
	if err != nil {
		return fmt.Errorf("llama_decode: %w", err)
	}
	switch {
	case rc == 0:
		return nil
	case rc == 1:
		return fmt.Errorf("llama_decode: no room in the KV cache for %d tokens", batch.NTokens)
	default:
		return fmt.Errorf("llama_decode: error %d (%s)", rc, engine.logs.since(mark))
	}
}

// logits returns the logits at batch index i, valid until the next decode.
func (d *decoder) logits(i int32) ([]float32, error) {
	l, err := llama.GetLogitsIth(d.lctx, i, d.r.nVocab)
	if err != nil || l == nil {
		return nil, fmt.Errorf("read logits at batch index %d: no logits (%v)", i, err)
	}
	return l, nil
}

// tokenPiece returns the bytes of one token (special tokens render as
// nothing), valid until the next call.
func (d *decoder) tokenPiece(t llama.Token) []byte {
	n := llama.TokenToPiece(d.r.vocab, t, d.piece, 0, false)
	if n < 0 {
		d.piece = make([]byte, -n)
		n = llama.TokenToPiece(d.r.vocab, t, d.piece, 0, false)
	}
	if n <= 0 {
		return nil
	}
	return d.piece[:n]
}

func commonPrefix(a, b []llama.Token) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
