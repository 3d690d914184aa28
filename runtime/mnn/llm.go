package mnn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/runtime"
)

// engine is one loaded MNN Llm instance, as the shim exposes it. It is not
// safe for concurrent use; the Runtime's pool hands each to one goroutine
// at a time. The cgo build implements it; tests use a fake.
type engine interface {
	// Template renders chat messages with the package's chat template,
	// ending with the generation prompt.
	Template(msgs []runtime.Message) (string, error)
	// Tokenize encodes text without a template.
	Tokenize(text string) ([]int, error)
	// Prefill starts a request from the first keep entries of the KV
	// cache, which must be those of ids[:keep] (0: from an empty cache,
	// clearing the request state), and runs the rest of ids.
	Prefill(ids []int, keep int) (stats, error)
	// Step runs one decoding step: it samples a token and runs its
	// forward pass, or, with speculative decoding, verifies a draft and
	// may decode several tokens. pieces holds the bytes of each non-stop
	// token decoded (possibly partial UTF-8); st.Stopped says whether the
	// step ended on a stop token.
	Step() (pieces [][]byte, st stats, err error)
	// Reset clears history and the KV cache.
	Reset()
	// Bench runs response(ids, maxNew) without output, like llm_bench.
	Bench(ids []int, maxNew int) (stats, error)
	// Loglik sums log P(ids[i] | ids[:i]) over i in [start, len(ids)),
	// running ids[keep:] from the first keep cached entries as Prefill
	// does (keep < start).
	Loglik(ids []int, start, keep int) (logprob float64, greedy bool, err error)
	// Forward runs ids and returns the last position's logits, valid
	// until the next call. With keep >= 0 ids is a new prompt started as
	// Prefill starts it; with keep < 0 ids continue the cached context.
	Forward(ids []int, keep int) ([]float32, error)
	// Piece returns token id's bytes (possibly partial UTF-8).
	Piece(id int) []byte
	// IsStop reports whether id is a stop token.
	IsStop(id int) bool
	Close() error
}

// stats are one request's figures from the engine.
type stats struct {
	PromptTokens int
	GenTokens    int  // sampled tokens including a final stop token
	Stopped      bool // the last sampled token is a stop token
	Load         time.Duration
	Prefill      time.Duration
	Decode       time.Duration
	// FirstPiece is the time from the start of the Prefill (or Bench)
	// call to the first decoded bytes; negative if none.
	FirstPiece time.Duration
	// LastToken is the last sampled token id (-1 if none).
	LastToken int
	// CtxLen is the number of tokens kept in the context and KVLen the
	// KV entries after the last forward pass, which include the draft
	// tokens a speculative step verified and will drop: KVLen minus the
	// CtxLen before a step is the number of tokens that step's forward
	// pass checked.
	CtxLen int
	KVLen  int
}

// decoded is the number of non-stop tokens sampled.
func (s stats) decoded() int {
	if s.Stopped && s.GenTokens > 0 {
		return s.GenTokens - 1
	}
	return s.GenTokens
}

// benchToken is the token id llm_bench repeats to build its synthetic prompt.
const benchToken = 16

// Runtime is an MNN runtime: a pool of engine instances.
type Runtime struct {
	opts      Options
	pkg       Package
	version   string
	maxTokens int
	loadTime  time.Duration // wall time to load all workers

	pool *pool // prefix.go
	all  []engine

	chatCfg chatConfig // chat.go

	vocabInfo vocabState // logits.go

	mu         sync.Mutex
	closed     bool
	loadOnce   sync.Once
	closedChan chan struct{}
}

var (
	_ runtime.Runtime         = (*Runtime)(nil)
	_ runtime.Describer       = (*Runtime)(nil)
	_ runtime.LogLikelihooder = (*Runtime)(nil)
	_ runtime.Bencher         = (*Runtime)(nil)
	_ runtime.ChatTemplater   = (*Runtime)(nil)
)

// newRuntime wraps loaded engines.
func newRuntime(opts Options, pkg Package, version string, load time.Duration, engines []engine) *Runtime {
	r := &Runtime{
		opts: opts, pkg: pkg, version: version, loadTime: load,
		pool: newPool(engines, opts.PrefixCache == "on"), all: engines,
		closedChan: make(chan struct{}),
	}
	r.maxTokens = opts.MaxTokens
	if r.maxTokens == 0 {
		r.maxTokens = pkg.MaxNewTokens
	}
	if r.maxTokens == 0 {
		r.maxTokens = 512
	}
	return r
}

// errClosed is returned by calls on a closed Runtime.
var errClosed = errors.New("mnn runtime is closed")

// Generate runs one request on an idle engine — with the prefix cache the
// one holding the longest prefix of its prompt — greedily with MNN's
// decode loop at temperature 0, otherwise sampling in Go (see sample).
func (r *Runtime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return r.generateText(ctx, req, nil)
}

// GenerateStream is Generate that calls emit with the text as it is
// decoded (held back where a stop sequence or a character may still be
// incomplete), so `pocketeval serve` streams tokens as they come.
func (r *Runtime) GenerateStream(ctx context.Context, req runtime.Request, emit func(string) error) (runtime.Response, error) {
	return runtime.Stream(ctx, emit, func(ctx context.Context, onText func(string)) (runtime.Response, error) {
		return r.generateText(ctx, req, runtime.NewTextStream(onText, req.Gen.Stop))
	})
}

// generateText is Generate, telling text (nil: not streamed) the output
// as it grows.
func (r *Runtime) generateText(ctx context.Context, req runtime.Request, text *runtime.TextStream) (runtime.Response, error) {
	if err := checkRequest(req); err != nil {
		return runtime.Response{}, fmt.Errorf("mnn generate: %w", err)
	}
	s, err := r.pool.acquire(ctx, r.closedChan)
	if err != nil {
		if err == ctx.Err() {
			return runtime.Response{}, err
		}
		return runtime.Response{}, fmt.Errorf("mnn generate: %w", err)
	}
	ids, rendered, err := r.promptTokens(ctx, s.e, req)
	var resp runtime.Response
	if err == nil {
		s = r.pool.route(s, ids)
		resp, err = r.generate(ctx, s, req, ids, rendered, text)
		if err == nil {
			text.Final(resp.Text)
			r.parseToolCalls(req, &resp)
		}
	}
	if err != nil {
		r.pool.record(s, nil) // the cache's content is unknown
	}
	r.pool.release(s)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return runtime.Response{}, ctx.Err()
		}
		return runtime.Response{}, fmt.Errorf("mnn generate: %w", err)
	}
	return resp, nil
}

// checkRequest rejects what the runtime cannot honour.
func checkRequest(req runtime.Request) error {
	switch {
	case req.IsChat() && req.Prompt != "":
		return errors.New("request sets both messages and prompt")
	case !req.IsChat() && req.Prompt == "":
		return errors.New("request has neither messages nor prompt")
	case req.Gen.Temperature < 0 || math.IsNaN(req.Gen.Temperature):
		return fmt.Errorf("temperature must not be negative, got %g", req.Gen.Temperature)
	case req.Gen.TopP < 0 || req.Gen.TopP > 1:
		return fmt.Errorf("top_p must be in [0, 1], got %g", req.Gen.TopP)
	case req.Gen.MaxTokens < 0:
		return fmt.Errorf("max tokens must not be negative, got %d", req.Gen.MaxTokens)
	}
	return nil
}

// promptTokens renders and tokenizes req's prompt with e; rendered is the
// chat template's output (empty for a raw prompt). ctx stops the render.
func (r *Runtime) promptTokens(ctx context.Context, e engine, req runtime.Request) (ids []int, rendered string, err error) {
	if req.IsChat() {
		ids, rendered, err = r.chatTokens(ctx, e, req)
	} else if ids, err = e.Tokenize(req.Prompt); err != nil {
		err = fmt.Errorf("tokenize prompt: %w", err)
	}
	if err == nil && len(ids) == 0 {
		err = errors.New("prompt encodes to no tokens")
	}
	return ids, rendered, err
}

// generate runs the request whose prompt is ids on s. With the prefix
// cache it runs only what s's cache does not hold; afterwards the cache
// holds the prompt (and what was decoded after it).
func (r *Runtime) generate(ctx context.Context, s *slot, req runtime.Request, ids []int, rendered string, text *runtime.TextStream) (runtime.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return runtime.Response{}, err
	}
	maxTokens := req.Gen.MaxTokens
	if maxTokens == 0 {
		maxTokens = r.maxTokens
	}
	keep := r.pool.keep(s, ids, len(ids)-1)
	r.pool.ran(len(ids), len(ids)-keep)
	if req.Gen.Temperature > 0 {
		resp, err := r.sample(ctx, s, req, ids, keep, maxTokens, start, text)
		resp.RenderedPrompt = rendered
		return resp, err
	}
	e := s.e
	prefillStart := time.Now()
	st, err := e.Prefill(ids, keep)
	if err != nil {
		return runtime.Response{}, fmt.Errorf("prefill %d tokens: %w", len(ids), err)
	}
	r.pool.record(s, ids)
	var (
		out     []byte
		tokens  int
		finish  = runtime.FinishLength
		maxStop = 0
	)
	for _, s := range req.Gen.Stop {
		maxStop = max(maxStop, len(s))
	}
	// With speculative decoding one step can decode several tokens; the
	// loop still stops at exactly maxTokens tokens and at the first stop
	// string, so the text is what plain decoding gives.
decode:
	for tokens < maxTokens {
		if err := ctx.Err(); err != nil {
			return runtime.Response{}, err
		}
		var pieces [][]byte
		pieces, st, err = e.Step()
		if err != nil {
			return runtime.Response{}, fmt.Errorf("decode token %d: %w", tokens+1, err)
		}
		for _, piece := range pieces {
			tokens++
			from := max(0, len(out)-maxStop)
			out = append(out, piece...)
			if cut, ok := findStop(out, from, req.Gen.Stop); ok {
				out = out[:cut]
				finish = runtime.FinishStop
				break decode
			}
			text.Update(out)
			if tokens == maxTokens {
				break decode
			}
		}
		if st.Stopped {
			finish = runtime.FinishStop
			break
		}
		if len(pieces) == 0 {
			return runtime.Response{}, fmt.Errorf("decode token %d: the engine decoded nothing and did not stop", tokens+1)
		}
	}
	resp := runtime.Response{
		Text:             strings.ToValidUTF8(string(out), string(utf8.RuneError)),
		RenderedPrompt:   rendered,
		FinishReason:     finish,
		PromptTokens:     len(ids),
		CompletionTokens: tokens,
	}
	resp.Timings.Total = time.Since(start)
	if st.FirstPiece >= 0 && tokens > 0 {
		resp.Timings.TimeToFirstToken = prefillStart.Sub(start) + st.FirstPiece
	}
	if st.Prefill > 0 {
		// The engine's speed: the tokens it ran, not those it found cached.
		resp.Timings.PrefillTokPerSec = float64(len(ids)-keep) / st.Prefill.Seconds()
	}
	if n := st.decoded(); n > 0 && st.Decode > 0 {
		resp.Timings.DecodeTokPerSec = float64(n) / st.Decode.Seconds()
	}
	return resp, nil
}

// findStop returns the offset of the earliest stop string that ends at or
// after from in out.
func findStop(out []byte, from int, stops []string) (int, bool) {
	best, found := 0, false
	s := string(out)
	for _, stop := range stops {
		if stop == "" {
			continue
		}
		lo := max(0, from-len(stop)+1)
		if i := strings.Index(s[lo:], stop); i >= 0 && (!found || lo+i < best) {
			best, found = lo+i, true
		}
	}
	return best, found
}

// LogLikelihood scores each continuation with one all-logits forward pass
// over context+continuation, spreading requests over idle engines. With
// the prefix cache, consecutive requests with the same context (the
// choices of one question) run in turn on one engine, which computes the
// context once, and the engine is the one holding the longest prefix of
// it. Context and continuation are split the way lm-evaluation-harness
// does: trailing whitespace of the context moves to the continuation, the
// continuation's tokens are those of the whole text after the context's
// tokens.
func (r *Runtime) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	out := make([]runtime.LoglikResult, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, len(r.all))
	for from := 0; from < len(reqs); {
		to := from + 1
		for r.pool.cache && to < len(reqs) && reqs[to].Context == reqs[from].Context {
			to++
		}
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(from, to int) {
			defer func() { <-sem; wg.Done() }()
			r.loglikJob(ctx, reqs, from, to, out, errs)
		}(from, to)
		from = to
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("mnn loglikelihood: request %d: %w", i, err)
		}
	}
	return out, nil
}

// loglikJob scores reqs[from:to] one after another on one engine.
func (r *Runtime) loglikJob(ctx context.Context, reqs []runtime.LoglikRequest, from, to int, out []runtime.LoglikResult, errs []error) {
	s, err := r.pool.acquire(ctx, r.closedChan)
	if err != nil {
		errs[from] = err
		return
	}
	defer func() { r.pool.release(s) }()
	for i := from; i < to; i++ {
		whole, start, err := loglikTokens(s.e, reqs[i])
		if err != nil {
			errs[i] = err
			return
		}
		if i == from {
			s = r.pool.route(s, whole)
		}
		keep := r.pool.keep(s, whole, start-1)
		r.pool.ran(len(whole), len(whole)-keep)
		lp, greedy, err := s.e.Loglik(whole, start, keep)
		if err != nil {
			r.pool.record(s, nil)
			errs[i] = err
			return
		}
		r.pool.record(s, whole)
		out[i] = runtime.LoglikResult{LogProb: lp, IsGreedy: greedy, Tokens: len(whole) - start}
	}
}

// loglikTokens tokenizes q's context and continuation: whole are the
// tokens of both, start the number of the context's.
func loglikTokens(e engine, q runtime.LoglikRequest) (whole []int, start int, err error) {
	c, cont := splitContext(q.Context, q.Continuation)
	if cont == "" {
		return nil, 0, errors.New("empty continuation")
	}
	if whole, err = e.Tokenize(c + cont); err != nil {
		return nil, 0, fmt.Errorf("tokenize: %w", err)
	}
	ctxIDs, err := e.Tokenize(c)
	if err != nil {
		return nil, 0, fmt.Errorf("tokenize context: %w", err)
	}
	start = len(ctxIDs)
	switch {
	case start == 0:
		return nil, 0, fmt.Errorf("empty context: the tokenizer adds no prefix token to condition on: %w", runtime.ErrNotSupported)
	case start >= len(whole):
		return nil, 0, fmt.Errorf("continuation %q adds no tokens after the context", cont)
	}
	return whole, start, nil
}

// splitContext moves trailing whitespace from the context to the
// continuation.
func splitContext(c, cont string) (string, string) {
	t := strings.TrimRightFunc(c, unicode.IsSpace)
	return t, c[len(t):] + cont
}

// Bench runs one llm_bench-style measurement on the first idle engine:
// NPrompt copies of token 16 (or a single token when NPrompt is 0) and up
// to NGen decoded tokens on the same KV cache. By default it is
// llm_bench's one call, response(ids, NGen); with req.Stepwise it decodes
// one engine step at a time as Generate does, and counts the speculative
// decoding figures (a step may decode a few tokens more than NGen).
func (r *Runtime) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	if req.NPrompt < 0 || req.NGen < 0 || req.NPrompt+req.NGen == 0 {
		return runtime.BenchResult{}, fmt.Errorf("mnn bench: need a positive prompt or generation length, got p=%d n=%d", req.NPrompt, req.NGen)
	}
	s, err := r.pool.acquire(ctx, r.closedChan)
	if err != nil {
		return runtime.BenchResult{}, fmt.Errorf("mnn bench: %w", err)
	}
	e := s.e
	r.pool.record(s, nil) // a bench run starts from an empty cache and leaves nothing reusable
	defer r.pool.release(s)
	n := max(req.NPrompt, 1)
	ids := make([]int, n)
	for i := range ids {
		ids[i] = benchToken
	}
	var res runtime.BenchResult
	var st stats
	switch {
	case req.Depth > 0:
		res, st, err = r.benchAtDepth(ctx, e, req) // bench_depth.go
	case req.Stepwise:
		res, st, err = benchStepwise(ctx, e, ids, 0, req.NGen)
	default:
		st, err = e.Bench(ids, req.NGen)
	}
	if err != nil {
		return runtime.BenchResult{}, fmt.Errorf("mnn bench p=%d n=%d: %w", req.NPrompt, req.NGen, err)
	}
	res.GenTokens, res.DecodeTime = st.decoded(), st.Decode
	if req.NPrompt > 0 {
		res.PromptTokens = st.PromptTokens
		res.PrefillTime = st.Prefill
		if st.FirstPiece >= 0 {
			res.FirstTokenLag = st.FirstPiece
		}
	}
	r.loadOnce.Do(func() { res.LoadTime = r.loadTime })
	return res, nil
}

// benchStepwise prefills ids after the first keep cached ones, then
// decodes step by step until nGen tokens or a stop token, counting per
// step the tokens the forward pass checked (KV entries added) and kept
// (context growth).
func benchStepwise(ctx context.Context, e engine, ids []int, keep, nGen int) (runtime.BenchResult, stats, error) {
	var res runtime.BenchResult
	st, err := e.Prefill(ids, keep)
	if err != nil {
		return res, st, err
	}
	prefill, prompt := st.Prefill, st.PromptTokens
	for decoded := 0; decoded < nGen && !st.Stopped; {
		if err := ctx.Err(); err != nil {
			return res, st, err
		}
		before := st
		var pieces [][]byte
		if pieces, st, err = e.Step(); err != nil {
			return res, st, err
		}
		if checked := st.KVLen - before.CtxLen; checked > 0 {
			res.VerifySteps++
			res.Drafted += checked - 1
			res.Accepted += st.CtxLen - before.CtxLen - 1
		}
		if len(pieces) == 0 && !st.Stopped {
			return res, st, errors.New("a decoding step decoded nothing and did not stop")
		}
		decoded += len(pieces)
	}
	st.Prefill, st.PromptTokens = prefill, prompt
	return res, st, nil
}

// prefixCacheReason is what the manifest says about the prefix cache
// setting: why reuse is not the command line's default.
var prefixCacheReason = map[string]string{
	"off": "every prompt computed from an empty KV cache; prefix reuse is not the default because it is not bit-exact: " + prefixNotExact,
	"on":  "requests continue from the longest cached prefix; not bit-exact: " + prefixNotExact,
}

const prefixNotExact = "the rest of a prompt runs with other matrix shapes than the whole prompt, and MNN's CPU kernels are not shape-invariant " +
	"(identical on the tiny test packages, TestEnginePrefixCache; max |Δlogit| 1.5e-3 on a Pocket-shaped int4 package, docs/mnn.md §7)"

// Describe reports the engine version and settings for the run manifest.
func (r *Runtime) Describe() runtime.Info {
	settings := map[string]any{
		"threads":             r.opts.Threads,
		"backend":             r.opts.Backend,
		"precision":           r.opts.Precision,
		"memory":              r.opts.Memory,
		"workers":             len(r.all),
		"max_tokens":          r.maxTokens,
		"sampler":             "greedy (temperature 0); seeded temperature/top-p sampling in Go otherwise",
		"prefix_cache":        r.opts.PrefixCache,
		"prefix_cache_reason": prefixCacheReason[r.opts.PrefixCache],
		"batch":               fmt.Sprintf("off: one sequence per engine, %d engines (MNN has no multi-sequence batching)", len(r.all)),
	}
	if n, err := r.MaxLength(); err == nil {
		settings["max_length"] = n // the window of loglikelihood_rolling
	}
	for k, v := range r.opts.Config {
		settings[k] = v
	}
	return runtime.Info{Name: "mnn", Version: r.version, Model: r.pkg.Config, Settings: settings}
}

// Close waits for running requests to finish and releases every engine.
// It is idempotent.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.closedChan)
	var errs []error
	for _, s := range r.pool.wait(len(r.all)) {
		if err := s.e.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close mnn runtime: %w", err)
	}
	return nil
}
