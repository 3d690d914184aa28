//go:build !nollamacpp

package llamacpp

// This file holds speculative decoding with a draft model
// (Options.DraftModel), inside the decode scheduler (sched.go).
//
// Every decoder gets a drafter: a context of the draft model with one
// sequence per slot. At each step, before the target's batch is built,
// the drafter runs for the step's speculative jobs (greedy generations and
// Bench runs), all sequences together in each draft llama_decode:
//
//   - a prompt being prefilled by the target is evaluated by the draft
//     model too, in the same step, so decoding starts with both ready;
//   - a generating job's next token (sampled but not yet evaluated) is fed
//     to the draft model, which then proposes up to DraftMax tokens
//     greedily, one draft llama_decode per drafted position.
//
// The job's one-token segment becomes [next, draft...], evaluated by the
// target in the step's llama_decode with logits at every position. The
// job then takes the target's own greedy token after each position while
// it equals the drafted one that follows (decoder.verify): k accepted
// drafts give k+1 tokens for one target pass. The cells of rejected drafts
// are removed from the target's sequence (llama_memory_seq_rm); the draft
// sequence is brought back to the target's tokens at its next use, keeping
// the prefix they share (drafter.sync).
//
// At temperature 0 the text is, token for token, what plain greedy
// decoding gives — up to the numerics of evaluating several tokens in one
// call: llama.cpp is not batch-invariant, so a verified token's logits can
// differ in the last bits from one-at-a-time decoding (docs/speculative.md
// measures how often that changes a greedy choice). Sampled requests are
// decoded without drafts.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/hybridgroup/yzma/pkg/llama"
)

// ErrDraftVocab is returned (wrapped) by Open when the draft model's
// vocabulary is not the target's.
var ErrDraftVocab = errors.New("the draft model's vocabulary differs from the target's")

// speculation is the runtime's draft model and settings.
type speculation struct {
	path   string
	model  llama.Model
	vocab  llama.Vocab
	nVocab int // the draft's vocabulary size (may differ from the target's)
	max    int
	min    int
	pMin   float64

	// Totals since Open (SpeculativeStats).
	steps, drafted, accepted atomic.Int64
}

// SpeculativeStats counts speculative decoding since Open: decode steps
// of speculative jobs (target forward passes after the prefill), drafted
// tokens the target checked in them, and how many it accepted.
type SpeculativeStats struct {
	Steps, Drafted, Accepted int64
}

// SpeculativeStats reports the totals since Open (zero without a draft
// model).
func (r *Runtime) SpeculativeStats() SpeculativeStats {
	if r.spec == nil {
		return SpeculativeStats{}
	}
	return SpeculativeStats{Steps: r.spec.steps.Load(), Drafted: r.spec.drafted.Load(), Accepted: r.spec.accepted.Load()}
}

// describe adds the speculative settings to Describe's.
func (sp *speculation) describe(m map[string]any) {
	m["speculative"] = "draft: greedy requests and bench decode with drafts; sampled requests decode without"
	m["draft_model"] = absPath(sp.path)
	m["draft_model_desc"] = llama.ModelDesc(sp.model)
	m["draft_n_params"] = llama.ModelNParams(sp.model)
	m["draft_max"] = sp.max
	m["draft_min"] = sp.min
	m["draft_p_min"] = sp.pMin
}

// openDraft loads Options.DraftModel and checks it against the target.
func (r *Runtime) openDraft() error {
	o := r.opts
	switch {
	case o.DraftMax < 0 || o.DraftMin < 0:
		return fmt.Errorf("draft: negative draft length (max %d, min %d)", o.DraftMax, o.DraftMin)
	case o.DraftPMin < 0 || o.DraftPMin >= 1 || math.IsNaN(o.DraftPMin):
		return fmt.Errorf("draft: p-min %v is outside [0, 1)", o.DraftPMin)
	}
	sp := &speculation{path: o.DraftModel, max: o.DraftMax, min: o.DraftMin, pMin: o.DraftPMin}
	if sp.max == 0 {
		sp.max = DefaultDraftMax
	}
	if sp.min > sp.max {
		return fmt.Errorf("draft: min length %d is above max %d", sp.min, sp.max)
	}
	if err := checkGGUF(o.DraftModel); err != nil {
		return fmt.Errorf("draft: %w", err)
	}
	mark := engine.logs.mark()
	mp := llama.ModelDefaultParams()
	mp.NGpuLayers = 0
	model, err := llama.ModelLoadFromFile(o.DraftModel, mp)
	if err != nil {
		return fmt.Errorf("draft: load model %s: %w (%s)", o.DraftModel, err, engine.logs.since(mark))
	}
	sp.model, sp.vocab = model, llama.ModelGetVocab(model)
	r.spec = sp // freed by r.free from here on
	if llama.ModelHasEncoder(model) || !llama.ModelHasDecoder(model) {
		return fmt.Errorf("draft: %s is not a decoder-only model (%s)", o.DraftModel, llama.ModelDesc(model))
	}
	sp.nVocab = int(llama.VocabNTokens(sp.vocab))
	if err := compatibleVocab(r.vocab, sp.vocab); err != nil {
		return fmt.Errorf("draft: %s: %w", o.DraftModel, err)
	}
	return nil
}

// Vocabulary compatibility, as llama.cpp's common_speculative_are_compatible
// decides it: the same tokenizer type, the same BOS and EOS handling,
// sizes within vocabSizeSlack of each other (padding), and the same text
// for every token both have from vocabCheckFrom on (the first few ids are
// special tokens that may differ harmlessly).
const (
	vocabSizeSlack = 128
	vocabCheckFrom = 5
)

// compatibleVocab returns an error wrapping ErrDraftVocab that names the
// first difference, or nil.
func compatibleVocab(tgt, dft llama.Vocab) error {
	if a, b := llama.GetVocabType(tgt), llama.GetVocabType(dft); a != b {
		return fmt.Errorf("%w: tokenizer type %s in the target, %s in the draft", ErrDraftVocab, vocabTypeName(a), vocabTypeName(b))
	}
	special := []struct {
		name     string
		add      func(llama.Vocab) bool
		tok      func(llama.Vocab) llama.Token
		checkTok bool
	}{
		{name: "BOS", add: llama.VocabGetAddBOS, tok: llama.VocabBOS},
		{name: "EOS", add: llama.VocabGetAddEOS, tok: llama.VocabEOS},
	}
	for _, s := range special {
		at, ad := s.add(tgt), s.add(dft)
		if at != ad {
			return fmt.Errorf("%w: the target adds %s: %v, the draft: %v", ErrDraftVocab, s.name, at, ad)
		}
		if at && s.tok(tgt) != s.tok(dft) {
			return fmt.Errorf("%w: %s is token %d in the target, %d in the draft", ErrDraftVocab, s.name, s.tok(tgt), s.tok(dft))
		}
	}
	nt, nd := int(llama.VocabNTokens(tgt)), int(llama.VocabNTokens(dft))
	if nt-nd > vocabSizeSlack || nd-nt > vocabSizeSlack {
		return fmt.Errorf("%w: %d tokens in the target, %d in the draft (at most %d apart)", ErrDraftVocab, nt, nd, vocabSizeSlack)
	}
	for i := llama.Token(vocabCheckFrom); int(i) < min(nt, nd); i++ {
		if a, b := llama.VocabGetText(tgt, i), llama.VocabGetText(dft, i); a != b {
			return fmt.Errorf("%w: token %d is %q in the target, %q in the draft", ErrDraftVocab, i, a, b)
		}
	}
	return nil
}

func vocabTypeName(t llama.VocabType) string {
	if names := []string{"none", "SPM", "BPE", "WPM", "UGM", "RWKV", "PLaMo-2"}; int(t) >= 0 && int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type %d", t)
}

// drafter is the draft model's side of one decoder: a context with one
// sequence per slot (sequence ids as the slots'). A decoder uses it from
// its own goroutine only.
type drafter struct {
	r      *Runtime
	sp     *speculation
	lctx   llama.Context
	mem    llama.Memory
	batch  llama.Batch
	nBatch int
	// shared: the sequences share one cache, so a sequence may take over
	// another's prefix (llama_memory_seq_cp) instead of computing it.
	shared bool
	seqs   [][]llama.Token // the tokens each sequence holds, at positions 0..len-1
	ids    [][]llama.SeqId
	work   []draftWork
}

// newDrafter creates a draft context like the decoder's: nSeq sequences of
// ContextSize tokens each, the target's threads and batch size.
func (r *Runtime) newDrafter(nSeq int) (*drafter, error) {
	mark := engine.logs.mark()
	cp := r.contextParams(nSeq)
	lctx, err := llama.InitFromModel(r.spec.model, cp)
	if err != nil {
		return nil, fmt.Errorf("create draft context (n_ctx %d, %d sequences): %w (%s)", cp.NCtx, nSeq, err, engine.logs.since(mark))
	}
	mem, err := llama.GetMemory(lctx)
	if err != nil {
		llama.Free(lctx)
		return nil, fmt.Errorf("create draft context: %w", err)
	}
	dr := &drafter{
		r: r, sp: r.spec, lctx: lctx, mem: mem,
		batch:  llama.BatchInit(int32(r.opts.BatchSize), 0, 1),
		nBatch: r.opts.BatchSize, shared: nSeq > 1,
		seqs: make([][]llama.Token, nSeq),
	}
	for i := range nSeq {
		dr.ids = append(dr.ids, []llama.SeqId{llama.SeqId(i)})
	}
	return dr, nil
}

func (dr *drafter) free() {
	llama.BatchFree(dr.batch)
	llama.Free(dr.lctx)
}

// draftAction is what a speculative job wants of the draft model for one
// step's segment. The zero value is nothing.
type draftAction struct {
	// prompt: the segment is prompt tokens; the draft model evaluates the
	// sequence's tokens and them too.
	prompt bool
	// limit > 0: the segment is the next token of a generation; draft up
	// to limit tokens after it (fewer when Options.DraftMax is lower).
	limit int
}

// speculativeJob is implemented by jobs that decode with drafts: greedy
// generations and Bench runs.
type speculativeJob interface {
	drafts(sl *slot, seg segment) draftAction
}

// draftWork is one sequence's share of a draft phase.
type draftWork struct {
	part  int           // index in the step's parts
	seq   int           // the draft (and target) sequence
	hold  []llama.Token // what the sequence must hold before last
	last  llama.Token   // the token to draft after (limit > 0)
	limit int
	feed  []llama.Token // what to evaluate: hold's missing tail, then last
	pos   int           // position of feed[0]
	fed   int           // feed tokens placed in batches so far
	idx   int32         // batch index of the logits to draft from
	draft []llama.Token
	done  bool // drafting has stopped
}

// speculate runs the draft model for the step's parts (see the top of this
// file) and appends the drafted tokens to the generation segments. A
// failed draft decode ends the jobs that took part; the parts still in the
// step are returned.
func (d *decoder) speculate(parts []part) []part {
	dr := d.draft
	work := dr.work[:0]
	for i := range parts {
		p := &parts[i]
		sj, ok := p.sl.job.(speculativeJob)
		if !ok {
			continue
		}
		a := sj.drafts(p.sl, p.seg)
		switch {
		case a.prompt:
			work = append(work, draftWork{part: i, seq: int(p.sl.seq), hold: slices.Concat(p.sl.cache, p.seg.toks)})
		case a.limit > 0 && len(p.seg.toks) == 1:
			work = append(work, draftWork{part: i, seq: int(p.sl.seq), hold: p.sl.cache, last: p.seg.toks[0], limit: min(a.limit, dr.sp.max)})
		}
	}
	dr.work = work
	if len(work) == 0 {
		return parts
	}
	if err := dr.run(work); err != nil {
		failed := map[int]bool{}
		for _, w := range work {
			dr.clear(w.seq)
			failed[w.part] = true
			d.end(parts[w.part].sl, fmt.Errorf("draft model: %w", err))
		}
		kept := parts[:0]
		for i, p := range parts {
			if !failed[i] {
				kept = append(kept, p)
			}
		}
		return kept
	}
	for _, w := range work {
		if w.limit == 0 || len(w.draft) == 0 || len(w.draft) < dr.sp.min {
			continue
		}
		parts[w.part].seg.toks = slices.Concat([]llama.Token{w.last}, w.draft)
	}
	return parts
}

// run brings every work item's sequence to its hold tokens, evaluates its
// last token and drafts after it, all sequences together in each
// llama_decode.
func (dr *drafter) run(work []draftWork) error {
	for i := range work {
		w := &work[i]
		w.pos = dr.sync(w.seq, w.hold)
		w.feed = w.hold[w.pos:]
		if w.limit > 0 {
			w.feed = slices.Concat(w.feed, []llama.Token{w.last})
		}
	}
	// Evaluate the feeds, in chunks of up to nBatch tokens over all
	// sequences; a drafting sequence's first draft comes from the logits
	// of its last fed token, read after the decode that evaluated it.
	for {
		dr.batch.Clear()
		for i := range work {
			w := &work[i]
			for w.fed < len(w.feed) && int(dr.batch.NTokens) < dr.nBatch {
				logits := w.limit > 0 && w.fed == len(w.feed)-1
				if logits {
					w.idx = dr.batch.NTokens
				}
				if err := dr.add(w.seq, w.feed[w.fed], w.pos+w.fed, logits); err != nil {
					return err
				}
				w.fed++
			}
		}
		if dr.batch.NTokens == 0 {
			break
		}
		if err := decodeBatch(dr.lctx, dr.batch); err != nil {
			return err
		}
		for i := range work {
			w := &work[i]
			if w.limit > 0 && !w.done && len(w.draft) == 0 && w.fed == len(w.feed) {
				if err := dr.extend(w); err != nil {
					return err
				}
			}
		}
	}
	// Then one decode per drafted position: each still-drafting
	// sequence's newest draft token.
	for {
		dr.batch.Clear()
		for i := range work {
			w := &work[i]
			if w.limit == 0 || w.done || int(dr.batch.NTokens) >= dr.nBatch {
				continue
			}
			w.idx = dr.batch.NTokens
			if err := dr.add(w.seq, w.draft[len(w.draft)-1], w.pos+len(w.feed)+len(w.draft)-1, true); err != nil {
				return err
			}
		}
		if dr.batch.NTokens == 0 {
			return nil
		}
		if err := decodeBatch(dr.lctx, dr.batch); err != nil {
			return err
		}
		for i := range work {
			w := &work[i]
			if w.limit > 0 && !w.done && len(dr.seqs[w.seq]) == w.pos+len(w.feed)+len(w.draft) {
				if err := dr.extend(w); err != nil {
					return err
				}
			}
		}
	}
}

// add places token t of sequence seq at pos in the batch and records it as
// held.
func (dr *drafter) add(seq int, t llama.Token, pos int, logits bool) error {
	if err := dr.batch.Add(t, llama.Pos(pos), dr.ids[seq], logits); err != nil {
		return fmt.Errorf("fill draft batch: %w", err)
	}
	dr.seqs[seq] = append(dr.seqs[seq], t)
	return nil
}

// extend takes the draft model's greedy token from w's logits and decides
// whether drafting goes on: it stops at limit tokens, after an
// end-of-generation token, before a token the draft model is less sure of
// than DraftPMin, and before a token the target's vocabulary lacks.
func (dr *drafter) extend(w *draftWork) error {
	logits, err := llama.GetLogitsIth(dr.lctx, w.idx, dr.sp.nVocab)
	if err != nil || logits == nil {
		return fmt.Errorf("read draft logits at batch index %d: no logits (%v)", w.idx, err)
	}
	t := argmax(logits)
	if t >= dr.r.nVocab || (dr.sp.pMin > 0 && topProb(logits, t) < dr.sp.pMin) {
		w.done = true
		return nil
	}
	w.draft = append(w.draft, llama.Token(t))
	w.done = len(w.draft) >= w.limit || llama.VocabIsEOG(dr.r.vocab, llama.Token(t))
	return nil
}

// topProb is the softmax probability of logits[best], the largest logit.
func topProb(logits []float32, best int) float64 {
	top := float64(logits[best])
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l) - top)
	}
	return 1 / sum
}

// sync makes seq hold a prefix of hold and returns its length: the longest
// prefix it shares with what seq holds or, in a shared cache, with what any
// sequence holds (then taken over from it).
func (dr *drafter) sync(seq int, hold []llama.Token) int {
	keep, src := commonPrefix(dr.seqs[seq], hold), -1
	if dr.shared {
		for o := range dr.seqs {
			if n := commonPrefix(dr.seqs[o], hold); o != seq && n > keep {
				keep, src = n, o
			}
		}
	}
	if src >= 0 {
		llama.MemorySeqRm(dr.mem, llama.SeqId(seq), 0, -1)
		llama.MemorySeqCp(dr.mem, llama.SeqId(src), llama.SeqId(seq), 0, llama.Pos(keep))
		dr.seqs[seq] = append(dr.seqs[seq][:0], hold[:keep]...)
		return keep
	}
	if keep < len(dr.seqs[seq]) {
		llama.MemorySeqRm(dr.mem, llama.SeqId(seq), llama.Pos(keep), -1)
		dr.seqs[seq] = dr.seqs[seq][:keep]
	}
	return keep
}

// clear empties seq (after a failed decode its cells are unknown).
func (dr *drafter) clear(seq int) {
	llama.MemorySeqRm(dr.mem, llama.SeqId(seq), 0, -1)
	dr.seqs[seq] = dr.seqs[seq][:0]
}

// draftCounts are one job's speculative decoding counts.
type draftCounts struct{ steps, drafted, accepted int }

// verify reads the target's tokens after a decode step that evaluated the
// last n tokens of sl (the job's next token, then n-1 drafted ones) with
// logits from batch index first on. It samples the token after the first
// and, while each sampled token equals the drafted token that follows,
// the token after that one: all it returns are the target's own choices,
// len-1 of them accepted drafts. The cells of the rejected drafts are
// removed from the sequence. c (when not nil) and the runtime's totals
// count the step.
func (d *decoder) verify(sl *slot, n int, first int32, sample func(int32) (llama.Token, error), c *draftCounts) ([]llama.Token, error) {
	ev := sl.cache[len(sl.cache)-n:]
	toks := make([]llama.Token, 0, n)
	for i := range n {
		if i > 0 && toks[i-1] != ev[i] {
			break
		}
		t, err := sample(first + int32(i))
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
	}
	if n > len(toks) {
		d.truncate(sl, len(sl.cache)-n+len(toks))
	}
	if c != nil {
		c.steps++
		c.drafted += n - 1
		c.accepted += len(toks) - 1
		if sp := d.r.spec; sp != nil {
			sp.steps.Add(1)
			sp.drafted.Add(int64(n - 1))
			sp.accepted.Add(int64(len(toks) - 1))
		}
	}
	return toks, nil
}
