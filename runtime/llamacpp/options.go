package llamacpp

// This file holds what does not touch the engine, so that it builds with
// the nollamacpp tag too (see omit.go).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// ErrUnavailable is returned by Open in binaries built with the nollamacpp
// tag.
var ErrUnavailable = errors.New("the llamacpp runtime is not in this build (built with -tags nollamacpp)")

// LibEnv names the environment variable holding the directory of the
// llama.cpp shared libraries (libllama.so, libggml.so, libggml-base.so and
// the libggml-cpu-*.so backends), as printed by scripts/setup-llamacpp.sh.
const LibEnv = "POCKETEVAL_LLAMA_LIB"

// ErrLibraryMissing is returned (wrapped) when the llama.cpp libraries are
// not installed where the runtime looks for them.
var ErrLibraryMissing = errors.New("llama.cpp libraries not found (run scripts/setup-llamacpp.sh and set " + LibEnv + " to the directory it prints)")

// requiredLibs are the files the loader opens by these exact names.
var requiredLibs = []string{"libllama.so", "libggml.so", "libggml-base.so"}

// DefaultLibDir returns where scripts/setup-llamacpp.sh puts the libraries
// when no directory is given: $XDG_CACHE_HOME/pocketeval/llamacpp/lib, else
// $HOME/.cache/pocketeval/llamacpp/lib. It returns "" when neither variable
// is set.
func DefaultLibDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "pocketeval", "llamacpp", "lib")
	}
	if h := os.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "pocketeval", "llamacpp", "lib")
	}
	return ""
}

// LibDir resolves the library directory: dir if non-empty, else
// $POCKETEVAL_LLAMA_LIB, else DefaultLibDir. It checks that the libraries
// the loader needs are there and wraps ErrLibraryMissing when they are not.
func LibDir(dir string) (string, error) {
	source := "Options.LibDir"
	if dir == "" {
		dir, source = os.Getenv(LibEnv), "$"+LibEnv
	}
	if dir == "" {
		dir, source = DefaultLibDir(), "the default location"
	}
	if dir == "" {
		return "", fmt.Errorf("locate llama.cpp libraries: neither %s nor HOME is set: %w", LibEnv, ErrLibraryMissing)
	}
	for _, name := range requiredLibs {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("locate llama.cpp libraries: %s (from %s) has no %s: %w", dir, source, name, ErrLibraryMissing)
		}
	}
	return dir, nil
}

// BindingVersion is the yzma release this package is written against.
const BindingVersion = "github.com/hybridgroup/yzma@v1.28.0"

// Defaults applied by Open to zero Options fields.
const (
	DefaultContextSize = 4096
	DefaultBatchSize   = 512
	DefaultMaxTokens   = 1024
)

// Errors callers may branch on (all returned wrapped).
var (
	// ErrClosed is returned by calls on a closed Runtime.
	ErrClosed = errors.New("llamacpp runtime is closed")
	// ErrPromptTooLong is returned when a prompt does not fit in the
	// context with room for one generated token.
	ErrPromptTooLong = errors.New("prompt longer than the context")
	// ErrNotBatchInvariant is returned by Open for Batch "exact" when
	// decoding requests together would change a bit of their logits:
	// the model's kernels are not batch-invariant, or Threads is not 1.
	ErrNotBatchInvariant = errors.New("batched decoding would change the results")
	// ErrNotGGUF is returned by Open for a file that is not GGUF.
	ErrNotGGUF = errors.New("not a GGUF file")
)

// Options configure Open. The zero value of every field but Model is usable.
type Options struct {
	// Model is the path of a GGUF file. Required.
	Model string
	// LibDir is the directory of the llama.cpp libraries. Empty means
	// $POCKETEVAL_LLAMA_LIB, else DefaultLibDir().
	LibDir string
	// Threads per context for decoding and prefill. 0 means 1: on small
	// shared machines ggml's spinning threads thrash when oversubscribed.
	Threads int
	// ContextSize is each context's size in tokens. 0 means 4096, capped at
	// the model's training context. llama.cpp rounds it up to a multiple
	// of 256; Describe reports the size in effect.
	ContextSize int
	// Workers is how many requests run at once: sequences decoded
	// together in one context (Batch on), or independent contexts (Batch
	// off). Either way the KV cache holds Workers times ContextSize
	// tokens. 0 means 1.
	Workers int
	// Batch is "on", "exact" or "off"; empty means on. On, the requests
	// in flight share one context (Threads threads) over a unified KV
	// cache and every step is one llama_decode over all of them: the next
	// token of each generating sequence plus chunks of new prompts
	// (continuous batching). A request's result can then depend, in the
	// last bits of its logits, on what it was batched with: ggml computes
	// a product with one row and with several by other kernels for F32
	// and F16 weights (TestBatchInvarianceProbe). Exact batches only what
	// leaves every bit as computed alone: one context of Workers
	// per-sequence KV streams, each prompt chunk decoded by itself on the
	// grid of Batch off (grid.go), and each step's next tokens of all
	// generating sequences in one llama_decode; Open refuses it
	// (ErrNotBatchInvariant) unless Threads is 1 and a check of the
	// model's kernels finds a token's logits decoded beside up to
	// Workers-1 others equal to those decoded alone, bit for bit
	// (quantized Q4_0 and Q8_0 models pass on x86; F32 and F16 ones do
	// not). Off, each request is computed alone in its own context
	// (Threads threads each), exactly as at Workers 1.
	Batch string
	// PrefixCache is "on" or "off"; empty means on. On (with Batch on), a
	// request starts from the longest prefix of its prompt that any
	// sequence holds (a few-shot preamble, a shared question) and
	// evaluates only the rest. With Batch off only an identical
	// log-likelihood context is reused, which changes no number.
	PrefixCache string
	// BatchSize is the most tokens one llama_decode evaluates (llama.cpp
	// n_batch and n_ubatch), so also the prefill chunk; cancellation is
	// checked between decodes. 0 means 512, capped at ContextSize.
	BatchSize int
	// ChatTemplate overrides the model's chat template with this Jinja
	// source (rendered by package chattemplate). Empty means the model's
	// tokenizer.chat_template, else ChatML.
	ChatTemplate string
	// ChatTemplateSource labels ChatTemplate in the manifest, e.g.
	// "file:tmpl.jinja"; empty means "option".
	ChatTemplateSource string
	// Thinking sets enable_thinking for templates that read it; the zero
	// value leaves the template's default.
	Thinking chattemplate.Thinking
	// TemplateNow is the instant strftime_now formats in templates that
	// read the date (Llama 3.x); the zero value means the time of Open. A
	// resumed run passes the recorded one.
	TemplateNow time.Time
	// DefaultMaxTokens applies to requests with Gen.MaxTokens 0. 0 means
	// 1024.
	DefaultMaxTokens int
	// FlashAttention is "auto" (llama.cpp's default: on where the backend
	// supports it), "on" or "off". Empty means auto. On CPU with very small
	// heads (stories260K) "off" was measured up to 3x faster at prefill.
	FlashAttention string

	// DraftModel is a GGUF file of a smaller model with the target's
	// vocabulary; set, greedy requests (temperature 0) and Bench decode
	// with speculative decoding (see speculative.go): the draft model
	// proposes up to DraftMax tokens, the target checks them in one
	// llama_decode and keeps the longest prefix that matches its own
	// greedy choices plus its next token. Sampled requests decode as
	// without it. Empty means no speculative decoding.
	DraftModel string
	// DraftMax is the most tokens drafted per step. 0 means 3
	// (llama.cpp's default).
	DraftMax int
	// DraftMin is the shortest draft used: a shorter one (cut by
	// DraftPMin, an end-of-generation token or the request's budget) is
	// dropped and the step decodes one token. 0 uses any draft.
	DraftMin int
	// DraftPMin stops a draft at the first token the draft model gives a
	// probability below it (llama.cpp's --draft-p-min). 0 never stops.
	DraftPMin float64
}

// DefaultDraftMax is the number of tokens drafted per step when
// Options.DraftMax is 0, as in llama.cpp.
const DefaultDraftMax = 3

// PrefillStats counts prompt tokens: how many the requests so far needed
// evaluated, and how many were evaluated (the rest came from the cache).
type PrefillStats struct {
	Requested int64
	Computed  int64
}

// onOff checks an on/off option, setting empty to "on", and reports
// whether it is on.
// batchMode checks Batch, setting the default.
func batchMode(v *string) (string, error) {
	switch *v {
	case "", "on":
		*v = "on"
	case "off", "exact":
	default:
		return "", fmt.Errorf("batch %q is not on, exact or off", *v)
	}
	return *v, nil
}

func onOff(name string, v *string) (bool, error) {
	switch *v {
	case "", "on":
		*v = "on"
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%s %q is not on or off", name, *v)
}

// checkGGUF reports a missing file or one without the GGUF magic before
// llama.cpp sees it, so the error says what is wrong.
func checkGGUF(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open model: %w", err)
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("open model %s: %w (file shorter than 4 bytes)", path, ErrNotGGUF)
		}
		return fmt.Errorf("open model %s: %w", path, err)
	}
	if string(magic[:]) != "GGUF" {
		return fmt.Errorf("open model %s: %w (starts with %q, want \"GGUF\")", path, ErrNotGGUF, magic[:])
	}
	return nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// argmax returns the index of the largest logit (the first on ties).
func argmax(logits []float32) int {
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	return best
}

// validUTF8 turns generated bytes into text: an incomplete rune at the end
// (cut by the token limit) is dropped, other invalid bytes become U+FFFD.
func validUTF8(b []byte) string {
	b = trimPartialRune(b)
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// trimPartialRune drops a trailing prefix of a multi-byte UTF-8 sequence.
func trimPartialRune(b []byte) []byte {
	// A rune is at most 4 bytes: look back at most 3 for its lead byte.
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		c := b[i]
		if c < 0x80 {
			return b // ASCII: nothing pending
		}
		if c >= 0xC0 { // lead byte
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			if len(b)-i < need {
				return b[:i]
			}
			return b
		}
		// continuation byte: keep looking for the lead
	}
	return b
}

// wrapUnlessCtx returns context errors bare, as ctx.Err() returns them
// (callers may compare with ==), and names the operation in every other
// error.
func wrapUnlessCtx(op string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return fmt.Errorf("%s: %w", op, err)
}

func checkGen(g runtime.GenConfig) error {
	switch {
	case g.MaxTokens < 0:
		return fmt.Errorf("max_tokens %d is negative", g.MaxTokens)
	case g.Temperature < 0 || math.IsNaN(g.Temperature):
		return fmt.Errorf("temperature %v is negative", g.Temperature)
	case g.TopP < 0 || g.TopP > 1 || math.IsNaN(g.TopP):
		return fmt.Errorf("top_p %v is outside [0, 1]", g.TopP)
	}
	return nil
}

// samplerSeed maps a request seed to llama.cpp's 32-bit seed. 0xFFFFFFFF
// means "pick a random seed" to llama.cpp, so it is moved to 0xFFFFFFFE to
// keep every seed reproducible.
func samplerSeed(seed int64) uint32 {
	s := uint32(seed)
	if s == math.MaxUint32 {
		s--
	}
	return s
}

func perSecond(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// findStop returns where the earliest stop string starts in out, or -1.
// Only matches that end after prev (the length before the newest piece)
// are new, so the search starts just far enough back to catch a stop
// string straddling the old and new bytes.
func findStop(out []byte, prev int, stops [][]byte) int {
	cut := -1
	for _, s := range stops {
		from := max(0, prev-len(s)+1)
		if i := bytes.Index(out[from:], s); i >= 0 && (cut < 0 || from+i < cut) {
			cut = from + i
		}
	}
	return cut
}

// splitTrailingSpace moves the context's trailing whitespace to the front
// of the continuation, as lm-evaluation-harness does before tokenising, so
// " answer"-style continuations tokenise the way the model saw them.
func splitTrailingSpace(context, continuation string) (string, string) {
	trimmed := strings.TrimRightFunc(context, isSpace)
	return trimmed, context[len(trimmed):] + continuation
}

// isSpace matches Python's str.isspace closely enough for the ASCII and
// Unicode spaces that end prompts.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}
