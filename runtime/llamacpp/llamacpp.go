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

// Runtime runs one GGUF model with a pool of llama.cpp contexts. It is safe
// for concurrent use.
type Runtime struct {
	opts     Options // with defaults applied
	version  string
	loadTime time.Duration

	model   llama.Model
	vocab   llama.Vocab
	nVocab  int
	nCtx    int
	bos     llama.Token // llama.TokenNull when the vocabulary has none
	addBOS  bool
	benchTk llama.Token

	flashAttn llama.FlashAttentionType

	chat chat // the chat template (chat.go)
	// onPrompt, when set (tests), sees every prompt's tokens before they
	// are fed to the model.
	onPrompt func([]llama.Token)

	pool    chan *worker
	workers []*worker
	closing chan struct{}

	info map[string]any // Describe's settings, fixed at Open

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

// worker is one llama.cpp context with its own batch; only the goroutine
// that took it from the pool touches it.
type worker struct {
	lctx  llama.Context
	mem   llama.Memory
	batch llama.Batch
	chunk int // batch capacity in tokens
	piece []byte
	// prefix is what the KV cache holds when prefixValid: the context
	// part LogLikelihood may reuse.
	prefix      []llama.Token
	prefixValid bool
}

// seq0 is the sequence-id list of every token: one sequence per context.
var seq0 = []llama.SeqId{0}

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
		closing:   make(chan struct{}),
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

	r.pool = make(chan *worker, opts.Workers)
	for range opts.Workers {
		w, err := r.newWorker()
		if err != nil {
			r.free()
			return nil, fmt.Errorf("open llamacpp: %w", err)
		}
		r.workers = append(r.workers, w)
		r.pool <- w
	}
	r.nCtx = int(llama.NCtx(r.workers[0].lctx))
	r.info = r.describe()
	r.loadTime = time.Since(start)
	// A safety net for a Runtime dropped without Close; nothing can hold a
	// worker once r is unreachable, so Close does not block there.
	goruntime.SetFinalizer(r, (*Runtime).Close)
	return r, nil
}

func (r *Runtime) newWorker() (*worker, error) {
	mark := engine.logs.mark()
	cp := llama.ContextDefaultParams()
	cp.NCtx = uint32(r.opts.ContextSize)
	cp.NBatch = uint32(r.opts.BatchSize)
	cp.NUbatch = uint32(r.opts.BatchSize)
	cp.NSeqMax = 1
	cp.NThreads = int32(r.opts.Threads)
	cp.NThreadsBatch = int32(r.opts.Threads)
	cp.Embeddings = 0
	cp.FlashAttentionType = r.flashAttn
	lctx, err := llama.InitFromModel(r.model, cp)
	if err != nil {
		return nil, fmt.Errorf("create context (n_ctx %d): %w (%s)", r.opts.ContextSize, err, engine.logs.since(mark))
	}
	mem, err := llama.GetMemory(lctx)
	if err != nil {
		llama.Free(lctx)
		return nil, fmt.Errorf("create context: %w", err)
	}
	return &worker{
		lctx:  lctx,
		mem:   mem,
		batch: llama.BatchInit(int32(r.opts.BatchSize), 0, 1),
		chunk: r.opts.BatchSize,
		piece: make([]byte, 64),
	}, nil
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

// acquire borrows a worker, waiting for one to be free.
func (r *Runtime) acquire(ctx context.Context) (*worker, error) {
	select {
	case <-r.closing:
		return nil, ErrClosed
	default:
	}
	select {
	case w := <-r.pool:
		return w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.closing:
		return nil, ErrClosed
	}
}

func (r *Runtime) release(w *worker) { r.pool <- w }

// Close waits for running requests to finish, then frees the contexts and
// the model. It is idempotent; calls after the first return nil.
func (r *Runtime) Close() error {
	r.closeOnce.Do(func() {
		goruntime.SetFinalizer(r, nil)
		close(r.closing)
		for range r.workers {
			<-r.pool
		}
		r.free()
	})
	return nil
}

func (r *Runtime) free() {
	for _, w := range r.workers {
		llama.BatchFree(w.batch)
		llama.Free(w.lctx)
	}
	r.workers = nil
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
	return map[string]any{
		"chat_template_sha256": ct.SHA256,
		"threads":              r.opts.Threads,
		"ctx_size":             r.nCtx,
		"workers":              r.opts.Workers,
		"batch_size":           r.opts.BatchSize,
		"flash_attn":           r.opts.FlashAttention,
		"chat_template":        ct.Source,
		"lib_dir":              r.opts.LibDir,
		"binding":              BindingVersion,
		"backend":              "cpu",
		"goarch":               goruntime.GOARCH,
		"model_desc":           llama.ModelDesc(r.model),
		"n_params":             llama.ModelNParams(r.model),
		"n_ctx_train":          llama.ModelNCtxTrain(r.model),
		"n_vocab":              r.nVocab,
	}
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

// tokenPiece returns the bytes of one token (special tokens render as nothing).
func (w *worker) tokenPiece(vocab llama.Vocab, t llama.Token) []byte {
	n := llama.TokenToPiece(vocab, t, w.piece, 0, false)
	if n < 0 {
		w.piece = make([]byte, -n)
		n = llama.TokenToPiece(vocab, t, w.piece, 0, false)
	}
	if n <= 0 {
		return nil
	}
	return w.piece[:n]
}

// reset empties the worker's KV cache. Only the cell metadata is cleared,
// as llama-server does: stale cells are masked out of attention, and
// zeroing the buffers would cost a memset of the whole cache (hundreds of
// MB at 4096 tokens for a 0.6B model) per request.
func (w *worker) reset() error {
	w.prefixValid = false
	if err := llama.MemoryClear(w.mem, false); err != nil {
		return fmt.Errorf("clear kv cache: %w", err)
	}
	return nil
}

// eval decodes toks at positions start, start+1, ... in chunks of the batch
// size. For every position p >= from it requests logits and calls fn(p,
// logits) once the chunk holding p is decoded; logits is only valid during
// the call. ctx is checked before each chunk.
func (w *worker) eval(ctx context.Context, toks []llama.Token, start, from, nVocab int, fn func(pos int, logits []float32) error) error {
	chunk := w.chunk
	for off := 0; off < len(toks); off += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(off+chunk, len(toks))
		w.batch.Clear()
		for i := off; i < end; i++ {
			pos := start + i
			if err := w.batch.Add(toks[i], llama.Pos(pos), seq0, pos >= from); err != nil {
				return fmt.Errorf("fill batch: %w", err)
			}
		}
		if err := w.decode(); err != nil {
			return err
		}
		if fn == nil {
			continue
		}
		for i := off; i < end; i++ {
			pos := start + i
			if pos < from {
				continue
			}
			logits, err := llama.GetLogitsIth(w.lctx, int32(i-off), nVocab)
			if err != nil || logits == nil {
				return fmt.Errorf("read logits at position %d: no logits (%v)", pos, err)
			}
			if err := fn(pos, logits); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *worker) decode() error {
	mark := engine.logs.mark()
	rc, err := llama.Decode(w.lctx, w.batch)
	if err != nil {
		return fmt.Errorf("llama_decode: %w", err)
	}
	switch {
	case rc == 0:
		return nil
	case rc == 1:
		return fmt.Errorf("llama_decode: no room in the KV cache for %d tokens", w.batch.NTokens)
	default:
		return fmt.Errorf("llama_decode: error %d (%s)", rc, engine.logs.since(mark))
	}
}
