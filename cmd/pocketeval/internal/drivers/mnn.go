package drivers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/mnn"
	"github.com/pocketeval/pocketeval/runtime/speculative"
)

// mnnDriver loads an MNN LLM package in process: Workers engine instances
// with Threads threads each. Without the mnn build tag mnn.Open returns an
// error naming the tag.
func mnnDriver() Driver {
	return Driver{
		Name:     "mnn",
		Summary:  "an MNN LLM package in process (build with -tags mnn)",
		Caps:     Caps{InProcess: true, Bench: true, LocalModel: true, UnseededSampling: true, ChatTemplates: true},
		NewFlags: func() Flags { return &MNNFlags{Backend: "cpu", Precision: "low", Memory: "low", PrefixCache: "auto"} },
	}
}

// MNNFlags are the mnn runtime's own flags.
type MNNFlags struct {
	Backend   string // --backend (cpu, opencl, metal...)
	Precision string // --precision (low, normal, high)
	Memory    string // --memory-mode (low, normal, high)
	// Config is --mnn-config: a JSON object of other MNN config keys,
	// merged before load.
	Config string
	// PrefixCache is --prefix-cache on|off|auto (mnn.Options.PrefixCache);
	// auto is off: MNN's reuse is not exact.
	PrefixCache string
}

var _ Speculator = (*MNNFlags)(nil)

// SpeculativeHelp: the shared --speculative is MNN's speculative_type.
// With --speculative-verify a second set of engines without it checks
// every greedy answer (speculative.Verifier).
func (f *MNNFlags) SpeculativeHelp() string {
	return "mnn: " + strings.Join(mnnSpeculativeTypes, ", ") + " (MNN's speculative_type; mtp, eagle and dflash need their draft files in the package)"
}

// mnnSpeculativeTypes are the speculative_type values MNN 3.6.1's
// GenerationStrategyFactory knows; any other value silently decodes
// plainly, so it is refused here.
var mnnSpeculativeTypes = []string{"lookahead", "mtp", "eagle", "dflash"}

func (f *MNNFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Backend, "backend", f.Backend, "MNN backend")
	fs.StringVar(&f.Precision, "precision", f.Precision, "MNN precision: low, normal, high")
	fs.StringVar(&f.Memory, "memory-mode", f.Memory, "MNN memory mode: low, normal, high")
	fs.StringVar(&f.Config, "mnn-config", f.Config, "extra MNN config `JSON` merged before load, e.g. '{\"attention_mode\":10}'")
	fs.StringVar(&f.PrefixCache, "prefix-cache", f.PrefixCache,
		"mnn: auto is off: every prompt whole from an empty cache, reproducible bit for bit; on runs each request on the engine whose KV cache holds the longest prefix of its prompt and computes only the rest, faster but a response may change with the order requests reach the engines")
}

func (f *MNNFlags) Validate(c Common) error {
	if c.Model == "" {
		return errors.New("--model is required for --runtime mnn (a package directory or its config.json)")
	}
	if _, err := f.ConfigMap(); err != nil {
		return err
	}
	if f.PrefixCache != "on" && f.PrefixCache != "off" && f.PrefixCache != "auto" {
		return fmt.Errorf("--prefix-cache must be on, off or auto, got %q", f.PrefixCache)
	}
	return checkSpeculative(c, mnnSpeculativeTypes)
}

// ConfigMap parses --mnn-config (nil when unset).
func (f *MNNFlags) ConfigMap() (map[string]any, error) {
	if f.Config == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(f.Config), &m); err != nil || m == nil {
		return nil, fmt.Errorf("--mnn-config: want a JSON object: %v", err)
	}
	return m, nil
}

// Open loads the package with --speculative's speculative_type, wrapped in
// a speculative.Verifier over a second, plain set of engines with
// --speculative-verify.
func (f *MNNFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	var spec map[string]any
	if c.Speculative != "" {
		spec = map[string]any{"speculative_type": c.Speculative}
	}
	rt, err := mnn.Open(ctx, c.Model, f.Options(c, spec))
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	if !c.SpeculativeVerify {
		return rt, nil
	}
	ref, err := mnn.Open(ctx, c.Model, f.Options(c, nil))
	if err != nil {
		rt.Close()
		return nil, err
	}
	return speculative.New(ref, rt), nil
}

// Options maps the flags (and extra MNN config keys, which may be nil and
// win over --mnn-config) to mnn.Options.
func (f *MNNFlags) Options(c Common, extra map[string]any) mnn.Options {
	cfg, _ := f.ConfigMap() // Validate checked it
	if len(extra) > 0 {
		if cfg == nil {
			cfg = map[string]any{}
		}
		maps.Copy(cfg, extra)
	}
	return mnn.Options{
		Threads: c.Threads, Backend: f.Backend, Precision: f.Precision, Memory: f.Memory,
		Workers: c.Workers, Config: cfg, PrefixCache: f.prefixCache(),
		ChatTemplate: c.ChatTemplate, ChatTemplateSource: c.ChatTemplateSource, Thinking: c.Thinking, TemplateNow: c.TemplateNow,
	}
}

// prefixCache resolves auto to off.
func (f *MNNFlags) prefixCache() string {
	if f.PrefixCache == "auto" {
		return "off"
	}
	return f.PrefixCache
}

// Nondeterminism: a request continuing from another's cache was computed
// in other chunks, and which engine holds what depends on timing and
// resume.
func (f *MNNFlags) Nondeterminism(c Common) string {
	if f.prefixCache() == "on" {
		return "--prefix-cache on: a request continues from the KV cache an earlier request left, computed in other chunks, so its logits depend in their last bits on which engine ran what before it (timing, concurrency, resume) and a greedy response can differ between two runs of this command (--prefix-cache off, the default, reproduces every response exactly)"
	}
	return ""
}

// Settings: backend, precision and memory mode change the numerics.
func (f *MNNFlags) Settings() map[string]any {
	return map[string]any{"backend": f.Backend, "precision": f.Precision, "memory_mode": f.Memory}
}

func (f *MNNFlags) Model(c Common) (Model, error) { return LocalModel(c.Model) }
