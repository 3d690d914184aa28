//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

// Runtime runs one GGUF model with llama.cpp. It is safe for concurrent
// use: requests in flight are decoded together (see Options.Batch).
type Runtime struct {
	opts     Options // with defaults applied
	version  string
	loadTime time.Duration

	model   llama.Model
	vocab   llama.Vocab
	nVocab  int
	nCtx    int         // tokens one request may use (prompt and generated)
	bos     llama.Token // llama.TokenNull when the vocabulary has none
	addBOS  bool
	benchTk llama.Token

	flashAttn llama.FlashAttentionType

	chat chat // the chat template (chat.go)
	// onPrompt, when set (tests), sees every prompt's tokens before they
	// are fed to the model.
	onPrompt func([]llama.Token)

	sched sched
	// spec is the draft model for speculative decoding (nil without
	// Options.DraftModel).
	spec *speculation

	info map[string]any // Describe's settings, fixed at Open
	// vocabInfo is Vocab's answer, computed on first use (logits.go).
	vocabInfo vocabOnce

	closeOnce    sync.Once
	loadReported atomic.Bool
}

var (
	_ runtime.Runtime         = (*Runtime)(nil)
	_ runtime.Describer       = (*Runtime)(nil)
	_ runtime.LogLikelihooder = (*Runtime)(nil)
	_ runtime.Bencher         = (*Runtime)(nil)
	_ runtime.ChatTemplater   = (*Runtime)(nil)
)

// Open loads the model and creates the contexts. ctx bounds only the wait
// for the engine; loading itself is not interruptible.
func Open(ctx context.Context, opts Options) (*Runtime, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Model == "" {
		return nil, errors.New("open llamacpp: no model file given")
	}
	if err := checkGGUF(opts.Model); err != nil {
		return nil, fmt.Errorf("open llamacpp: %w", err)
	}
	dir, err := LibDir(opts.LibDir)
	if err != nil {
		return nil, fmt.Errorf("open llamacpp: %w", err)
	}
	version, err := loadEngine(dir)
	if err != nil {
		return nil, fmt.Errorf("open llamacpp: %w", err)
	}
	opts.LibDir = dir
	if opts.Threads <= 0 {
		opts.Threads = 1
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.DefaultMaxTokens <= 0 {
		opts.DefaultMaxTokens = DefaultMaxTokens
	}
	if opts.ContextSize < 0 || opts.BatchSize < 0 {
		return nil, fmt.Errorf("open llamacpp: negative context size %d or batch size %d", opts.ContextSize, opts.BatchSize)
	}
	mode, err := batchMode(&opts.Batch)
	if err != nil {
		return nil, fmt.Errorf("open llamacpp: %w", err)
	}
	if mode == "exact" && opts.Workers > 1 {
		switch {
		case opts.Threads != 1:
			// ggml splits a one-row attention over 512 cells or more
			// between threads and adds the parts in another order than
			// a decode of several sequences does.
			return nil, fmt.Errorf("open llamacpp: %w: batch exact needs 1 thread, not %d (a decode of one sequence splits its attention between threads)", ErrNotBatchInvariant, opts.Threads)
		case opts.DraftModel != "":
			return nil, fmt.Errorf("open llamacpp: %w: batch exact with a draft model is not checked", ErrNotBatchInvariant)
		}
	}
	prefixCache, err := onOff("prefix cache", &opts.PrefixCache)
	if err != nil {
		return nil, fmt.Errorf("open llamacpp: %w", err)
	}
	var flashAttn llama.FlashAttentionType
	switch opts.FlashAttention {
	case "", "auto":
		opts.FlashAttention, flashAttn = "auto", llama.FlashAttentionTypeAuto
	case "on":
		flashAttn = llama.FlashAttentionTypeEnabled
	case "off":
		flashAttn = llama.FlashAttentionTypeDisabled
	default:
		return nil, fmt.Errorf("open llamacpp: flash attention %q is not auto, on or off", opts.FlashAttention)
	}

	start := time.Now()
	mark := engine.logs.mark()
	mp := llama.ModelDefaultParams()
	mp.NGpuLayers = 0
	model, err := llama.ModelLoadFromFile(opts.Model, mp)
	if err != nil {
		return nil, fmt.Errorf("open llamacpp: load model %s: %w (%s)", opts.Model, err, engine.logs.since(mark))
	}
	r := &Runtime{
		version:   version,
		flashAttn: flashAttn,
		model:     model,
		vocab:     llama.ModelGetVocab(model),
	}
	if llama.ModelHasEncoder(model) || !llama.ModelHasDecoder(model) {
		desc := llama.ModelDesc(model)
		r.free()
		return nil, fmt.Errorf("open llamacpp: %s is not a decoder-only model (%s); only decoder-only language models are supported", opts.Model, desc)
	}
	r.nVocab = int(llama.VocabNTokens(r.vocab))
	r.bos = llama.VocabBOS(r.vocab)
	r.addBOS = llama.VocabGetAddBOS(r.vocab) && r.bos != llama.TokenNull

	if opts.ContextSize == 0 {
		opts.ContextSize = DefaultContextSize
		if train := int(llama.ModelNCtxTrain(model)); train > 0 && train < opts.ContextSize {
			opts.ContextSize = train
		}
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = DefaultBatchSize
	}
	opts.BatchSize = min(opts.BatchSize, opts.ContextSize)
	r.opts = opts

	if err := r.setChat(); err != nil {
		r.free()
		return nil, fmt.Errorf("open llamacpp: %w", err)
	}
	r.benchTk = r.pickBenchToken()
	if opts.DraftModel != "" {
		if err := r.openDraft(); err != nil {
			r.free()
			return nil, fmt.Errorf("open llamacpp: %w", err)
		}
	}

	// Batching on: one context, one sequence per worker, sharing a
	// unified KV cache of Workers times the per-request context. Exact:
	// one context of one KV stream per worker. Off: one context of one
	// sequence per worker.
	nDec, nSeq := opts.Workers, 1
	if mode != "off" {
		nDec, nSeq = 1, opts.Workers
	}
	for range nDec {
		d, err := r.newDecoder(nSeq, mode != "on", prefixCache)
		if err != nil {
			r.free()
			return nil, fmt.Errorf("open llamacpp: %w", err)
		}
		r.sched.decoders = append(r.sched.decoders, d)
	}
	if mode == "exact" && nSeq > 1 {
		if err := r.sched.decoders[0].checkInvariant(); err != nil {
			r.free()
			return nil, fmt.Errorf("open llamacpp: %s: %w", opts.Model, err)
		}
	}
	r.nCtx = int(llama.NCtx(r.sched.decoders[0].lctx)) / nSeq
	r.info = r.describe()
	r.loadTime = time.Since(start)
	// A safety net for a Runtime dropped without Close: decoder goroutines
	// run only while a request (whose caller holds r) is in flight, so an
	// unreachable r has none and Close does not block there.
	goruntime.SetFinalizer(r, (*Runtime).Close)
	return r, nil
}

// newDecoder creates a context of nSeq sequences of ContextSize tokens
// each (rounded up to a multiple of 256, as llama.cpp does).
func (r *Runtime) newDecoder(nSeq int, exact, prefixCache bool) (*decoder, error) {
	mark := engine.logs.mark()
	cp := r.contextParams(nSeq)
	lctx, err := llama.InitFromModel(r.model, cp)
	if err != nil {
		return nil, fmt.Errorf("create context (n_ctx %d, %d sequences): %w (%s)", cp.NCtx, nSeq, err, engine.logs.since(mark))
	}
	mem, err := llama.GetMemory(lctx)
	if err != nil {
		llama.Free(lctx)
		return nil, fmt.Errorf("create context: %w", err)
	}
	d := &decoder{
		r:           r,
		lctx:        lctx,
		mem:         mem,
		batch:       llama.BatchInit(int32(r.opts.BatchSize), 0, 1),
		nBatch:      r.opts.BatchSize,
		exact:       exact,
		prefixCache: prefixCache && !exact,
		// Exact reuse keeps whole grid chunks (grid.go); a draft model's
		// own cache is not cut on the grid.
		gridReuse: prefixCache && exact && r.spec == nil,
		piece:     make([]byte, 64),
	}
	if r.spec != nil {
		if d.draft, err = r.newDrafter(nSeq); err != nil {
			llama.BatchFree(d.batch)
			llama.Free(lctx)
			return nil, err
		}
	}
	for i := range nSeq {
		id := llama.SeqId(i)
		d.slots = append(d.slots, &slot{seq: id, ids: []llama.SeqId{id}})
	}
	return d, nil
}

// contextParams are the settings of a context of nSeq sequences of
// ContextSize tokens each (rounded up to a multiple of 256, as llama.cpp
// does), sharing one unified cache when there are several with Batch on,
// else each in a KV stream of its own.
func (r *Runtime) contextParams(nSeq int) llama.ContextParams {
	perSeq := (r.opts.ContextSize + 255) / 256 * 256
	cp := llama.ContextDefaultParams()
	cp.NCtx = uint32(perSeq * nSeq)
	cp.NBatch = uint32(r.opts.BatchSize)
	cp.NUbatch = uint32(r.opts.BatchSize)
	cp.NSeqMax = uint32(nSeq)
	if nSeq > 1 && r.opts.Batch == "on" {
		cp.KVUnified = 1
	}
	cp.NThreads = int32(r.opts.Threads)
	cp.NThreadsBatch = int32(r.opts.Threads)
	cp.Embeddings = 0
	cp.FlashAttentionType = r.flashAttn
	return cp
}

// pickBenchToken returns the token Bench repeats: the first token of "the"
// (an ordinary word in every vocabulary), else the first non-control token.
func (r *Runtime) pickBenchToken() llama.Token {
	if toks := llama.Tokenize(r.vocab, "the", false, false); len(toks) > 0 {
		return toks[0]
	}
	for t := llama.Token(0); int(t) < r.nVocab; t++ {
		if !llama.VocabIsControl(r.vocab, t) && !llama.VocabIsEOG(r.vocab, t) {
			return t
		}
	}
	return 0
}

// Close waits for running requests to finish, fails queued ones with
// ErrClosed, then frees the contexts and the model. It is idempotent; calls
// after the first return nil.
func (r *Runtime) Close() error {
	r.closeOnce.Do(func() {
		goruntime.SetFinalizer(r, nil)
		r.sched.close()
		r.free()
	})
	return nil
}

func (r *Runtime) free() {
	for _, d := range r.sched.decoders {
		if d.draft != nil {
			d.draft.free()
		}
		llama.BatchFree(d.batch)
		llama.Free(d.lctx)
	}
	r.sched.decoders = nil
	if r.spec != nil && r.spec.model != 0 {
		llama.ModelFree(r.spec.model)
		r.spec.model = 0
	}
	if r.model != 0 {
		llama.ModelFree(r.model)
		r.model = 0
	}
}

// Describe reports the engine, model and settings for the run manifest.
func (r *Runtime) Describe() runtime.Info {
	settings := make(map[string]any, len(r.info))
	for k, v := range r.info {
		settings[k] = v
	}
	return runtime.Info{
		Name:     "llamacpp",
		Version:  "llama.cpp " + r.version,
		Model:    absPath(r.opts.Model),
		Settings: settings,
	}
}

// describe records the settings Describe reports, while the model is open.
func (r *Runtime) describe() map[string]any {
	ct := r.ChatTemplate()
	m := map[string]any{
		"chat_template_sha256": ct.SHA256,
		"threads":              r.opts.Threads,
		"ctx_size":             r.nCtx,
		"workers":              r.opts.Workers,
		"batch":                r.batchMode(),
		"prefix_cache":         r.opts.PrefixCache,
		"batch_size":           r.opts.BatchSize,
		"flash_attn":           r.opts.FlashAttention,
		"chat_template":        ct.Source,
		"binding":              BindingVersion,
		"backend":              "cpu",
		"goarch":               goruntime.GOARCH,
		"model_desc":           llama.ModelDesc(r.model),
		"n_params":             llama.ModelNParams(r.model),
		"n_ctx_train":          llama.ModelNCtxTrain(r.model),
		"n_vocab":              r.nVocab,
	}
	if r.spec != nil {
		r.spec.describe(m)
	}
	return m
}

// batchMode describes how requests are decoded, for the manifest.
func (r *Runtime) batchMode() string {
	switch r.opts.Batch {
	case "off":
		return fmt.Sprintf("off: each request alone in one of %d contexts", r.opts.Workers)
	case "exact":
		return fmt.Sprintf("exact: next tokens of up to %d sequences decoded together in one context of per-sequence KV streams, prompts alone; checked batch-invariant", r.opts.Workers)
	}
	return fmt.Sprintf("on: continuous batching of up to %d sequences in one context, unified KV cache", r.opts.Workers)
}

// PrefillStats reports prompt tokens requested and computed since Open.
// A generation requests its prompt; a log-likelihood request all its
// tokens but the last (context and continuation); Bench's prompts count
// as well.
func (r *Runtime) PrefillStats() PrefillStats {
	return PrefillStats{Requested: r.sched.requested.Load(), Computed: r.sched.computed.Load()}
}

// tokenize turns text into tokens, adding BOS when the vocabulary asks for
// it (never twice) and parsing special-token text.
func (r *Runtime) tokenize(text string, addBOS bool) ([]llama.Token, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return nil, errors.New("tokenize: text contains a NUL byte")
	}
	toks := llama.Tokenize(r.vocab, text, false, true)
	if addBOS && r.addBOS && (len(toks) == 0 || toks[0] != r.bos) {
		toks = append([]llama.Token{r.bos}, toks...)
	}
	return toks, nil
}
