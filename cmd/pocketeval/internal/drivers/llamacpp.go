package drivers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/speculative"
)

// llamacppDriver loads a GGUF file in process with llama.cpp: Workers
// requests in flight of --ctx-size tokens each (0: 4096, capped at the
// model's training context), each alone in its own context of Threads
// threads, or with --batch on decoded together in one context of one
// thread where that changes no bit (llamacpp's exact batching). The libraries come from
// $POCKETEVAL_LLAMA_LIB or scripts/setup-llamacpp.sh's default location.
func llamacppDriver() Driver {
	return Driver{
		Name:     "llamacpp",
		Summary:  "a GGUF model in process through llama.cpp",
		Caps:     Caps{InProcess: true, Bench: true, LocalModel: true, ChatTemplates: true},
		NewFlags: func() Flags { return &llamacppFlags{DraftMax: llamacpp.DefaultDraftMax} },
	}
}

type llamacppFlags struct {
	ContextSize int    // --ctx-size
	Batch       string // --batch on|off
	PrefixCache string // --prefix-cache on|off
	FlashAttn   string // --flash-attn auto|on|off
	// threads is --threads as Validate saw it (Settings records it when
	// it changes outputs).
	threads int
	// Speculative decoding with --speculative draft: --draft-model,
	// --draft-max, --draft-min, --draft-p-min (llamacpp.Options).
	DraftModel string
	DraftMax   int
	DraftMin   int
	DraftPMin  float64
}

var _ Speculator = (*llamacppFlags)(nil)

// llamacppSpeculativeModes are the values of --speculative for llamacpp.
var llamacppSpeculativeModes = []string{"draft"}

// SpeculativeHelp: llamacpp's one mode is a draft model.
func (f *llamacppFlags) SpeculativeHelp() string {
	return "llamacpp: draft (a smaller model of the same vocabulary, --draft-model; greedy requests only)"
}

func (f *llamacppFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.ContextSize, "ctx-size", f.ContextSize, "context size in tokens for llamacpp (0 = min(4096, the model's training context))")
	fs.StringVar(&f.Batch, "batch", "off", "llamacpp: off computes each request alone in its own context; on decodes the next tokens of concurrent requests together in one context, with --threads 1, and is refused (exit 2) for a model whose kernels would change a bit of the results that way (F32 and F16 weights; Q4_0 and Q8_0 pass): either way every response is the one computed alone")
	fs.StringVar(&f.FlashAttn, "flash-attn", "auto", "llamacpp: flash attention, auto (llama.cpp's choice: on where the backend has it), on or off; off was measured 3.6x faster at prefill for very small heads (stories260K)")
	fs.StringVar(&f.PrefixCache, "prefix-cache", "auto", "llamacpp: auto is on: keep the whole 512-token chunks of a prompt a context holds (exact); off evaluates every prompt whole")
	fs.StringVar(&f.DraftModel, "draft-model", f.DraftModel, "llamacpp --speculative draft: the draft model, a GGUF `FILE` with the target's vocabulary")
	fs.IntVar(&f.DraftMax, "draft-max", f.DraftMax, "llamacpp --speculative draft: most tokens drafted per step")
	fs.IntVar(&f.DraftMin, "draft-min", f.DraftMin, "llamacpp --speculative draft: drop drafts shorter than this (0: use any)")
	fs.Float64Var(&f.DraftPMin, "draft-p-min", f.DraftPMin, "llamacpp --speculative draft: stop a draft at a token the draft model gives less probability (0: never)")
}

// Contexts is one with --batch on (every request a sequence of one
// context), else one per request.
func (f *llamacppFlags) Contexts(c Common) int {
	if f.Batch == "on" {
		return 1
	}
	return max(c.Workers, 1)
}

func (f *llamacppFlags) Validate(c Common) error {
	f.threads = c.Threads
	if c.Model == "" {
		return errors.New("--model is required for --runtime llamacpp (a GGUF file)")
	}
	// A missing path may be a model name still to resolve; a directory
	// is never a GGUF file.
	if st, err := os.Stat(c.Model); err == nil && st.IsDir() {
		return fmt.Errorf("--model %s is a directory: --runtime llamacpp loads a GGUF file (an MNN package directory is --runtime mnn)", c.Model)
	} else if err == nil {
		// A named pipe or device would hang llama.cpp's read.
		if err := regfile.Check(c.Model, 0); err != nil {
			return fmt.Errorf("--model: %w", err)
		}
	}
	if f.ContextSize < 0 {
		return fmt.Errorf("--ctx-size must not be negative, got %d", f.ContextSize)
	}
	switch f.Batch {
	case "", "off":
	case "on":
		// The checks Open cannot make before loading the model.
		if c.Threads > 1 {
			return fmt.Errorf("--batch on needs --threads 1, got %d: llama.cpp splits a lone sequence's attention over 512 cells or more between threads and adds the parts in another order than a batched decode does, so the responses would change (use --batch off with several threads)", c.Threads)
		}
		if c.Speculative != "" {
			return errors.New("--batch on with --speculative: batched decoding is checked to change no response only without a draft model; use --batch off")
		}
	default:
		return fmt.Errorf("--batch must be on or off, got %q", f.Batch)
	}
	if f.PrefixCache != "" && f.PrefixCache != "on" && f.PrefixCache != "off" && f.PrefixCache != "auto" {
		return fmt.Errorf("--prefix-cache must be on, off or auto, got %q", f.PrefixCache)
	}
	switch f.FlashAttn {
	case "", "auto", "on", "off":
	default:
		return fmt.Errorf("--flash-attn must be auto, on or off, got %q", f.FlashAttn)
	}
	if err := f.checkDraft(c); err != nil {
		return err
	}
	return checkGGUFLimits(c, f.ContextSize)
}

// checkDraft checks --speculative and the draft flags together.
func (f *llamacppFlags) checkDraft(c Common) error {
	if err := checkSpeculative(c, llamacppSpeculativeModes); err != nil {
		return err
	}
	switch {
	case c.Speculative == "" && (f.DraftModel != "" || f.DraftMax != 0 && f.DraftMax != llamacpp.DefaultDraftMax || f.DraftMin != 0 || f.DraftPMin != 0):
		return errors.New("--draft-model, --draft-max, --draft-min and --draft-p-min need --speculative draft")
	case c.Speculative == "":
		return nil
	case f.DraftModel == "":
		return errors.New("--speculative draft needs --draft-model FILE (a GGUF model with the target's vocabulary)")
	case f.DraftMax < 0:
		return fmt.Errorf("--draft-max must be at least 1, got %d", f.DraftMax)
	case f.DraftMin < 0 || f.DraftMin > cmp.Or(f.DraftMax, llamacpp.DefaultDraftMax):
		return fmt.Errorf("--draft-min must be between 0 and --draft-max (%d), got %d", cmp.Or(f.DraftMax, llamacpp.DefaultDraftMax), f.DraftMin)
	case f.DraftPMin < 0 || f.DraftPMin >= 1 || math.IsNaN(f.DraftPMin):
		return fmt.Errorf("--draft-p-min must be in [0, 1), got %v", f.DraftPMin)
	}
	return nil
}

// Open opens the model, with the draft model for --speculative draft, and
// with --speculative-verify wraps it in a speculative.Verifier over a
// second runtime of the same settings without the draft.
func (f *llamacppFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	o := llamacpp.Options{
		Model: c.Model, Threads: c.Threads, ContextSize: f.ContextSize, Workers: c.Workers,
		Batch: f.engineBatch(), PrefixCache: f.prefixCache(), FlashAttention: f.FlashAttn,
		ChatTemplate: c.ChatTemplate, ChatTemplateSource: c.ChatTemplateSource, Thinking: c.Thinking, TemplateNow: c.TemplateNow,
	}
	plain := o
	if c.Speculative == "draft" {
		o.DraftModel, o.DraftMax, o.DraftMin, o.DraftPMin = f.DraftModel, f.DraftMax, f.DraftMin, f.DraftPMin
	}
	rt, err := llamacpp.Open(ctx, o)
	if err != nil {
		// An empty, cut or corrupt GGUF file is an unusable input (exit
		// 2), not an engine failure: its header says which.
		if _, herr := gguf.ReadFile(c.Model); regfile.IsUnusable(herr) {
			return nil, regfile.Unusable(c.Model, fmt.Errorf("--model: not a usable GGUF file: %v (%w)", herr, err))
		}
		// A model whose kernels would change results when batched is
		// refused before any work, as an unusable input (exit 2).
		if errors.Is(err, llamacpp.ErrNotBatchInvariant) {
			return nil, regfile.Unusable(c.Model, fmt.Errorf("--batch on refused for this model: %w; use --batch off", err))
		}
		return nil, err // not a typed nil inside the interface
	}
	if !c.SpeculativeVerify {
		return rt, nil
	}
	ref, err := llamacpp.Open(ctx, plain)
	if err != nil {
		rt.Close()
		return nil, err
	}
	return speculative.New(ref, rt), nil
}

// Settings: the context size decides which prompts fit and where long
// generations stop.
// prefixCache resolves auto to on: with batching off the reuse is exact.
func (f *llamacppFlags) prefixCache() string {
	if f.PrefixCache == "auto" {
		return "on"
	}
	return f.PrefixCache
}

// engineBatch is the engine's batching mode for --batch: on is
// llamacpp's "exact" batching, which the runtime checks changes no bit.
func (f *llamacppFlags) engineBatch() string {
	if f.Batch == "on" {
		return "exact"
	}
	return "off"
}

// Nondeterminism: none. Each request is computed alone, or (--batch on)
// in decodes checked to give each sequence the bits it gets alone, and
// the prefix cache keeps only what computing anew gives bit for bit.
func (f *llamacppFlags) Nondeterminism(c Common) string { return "" }

// Settings: the context size; --flash-attn when not auto; and --threads
// above 1 unless flash attention is off. llama.cpp's CPU flash attention
// splits the attention of one query over a long context (hundreds of
// cells) between the threads and adds the parts in an order that depends
// on their number, so the last bits of the logits, and now and then a
// greedy token, depend on --threads (stories260K, 6 GSM8K answers of 900
// tokens: 5 differ between 1 and 2 threads with auto, none with off).
// Without it every dot product is one thread's, whatever their number.
func (f *llamacppFlags) Settings() map[string]any {
	m := map[string]any{"ctx_size": f.ContextSize}
	if f.FlashAttn != "" && f.FlashAttn != "auto" {
		m["flash_attn"] = f.FlashAttn
	}
	if f.threads > 1 && f.FlashAttn != "off" {
		m["threads"] = f.threads
	}
	return m
}

func (f *llamacppFlags) Model(c Common) (Model, error) { return LocalModel(c.Model) }
