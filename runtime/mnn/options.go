package mnn

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// ErrUnavailable is returned (wrapped) by Open when pocketeval was built
// without MNN.
var ErrUnavailable = errors.New("built without MNN: rebuild with -tags mnn and MNN installed (MNN_ROOT, default /opt/mnn; see docs/mnn.md)")

// Options configure Open. The zero value means one worker with one CPU
// thread, precision "low" and memory mode "low" — the settings MNN's
// llm_bench uses by default, except threads.
type Options struct {
	// Threads is the engine's thread_num per worker; 0 means 1. On a
	// shared machine keep Threads × Workers at or below the free cores:
	// MNN's workers spin, and oversubscription collapses throughput.
	Threads int
	// Backend is MNN's backend_type; "" means "cpu".
	Backend string
	// Precision is "low", "normal" or "high"; "" means "low".
	Precision string
	// Memory is "low", "normal" or "high"; "" means "low" (weights of
	// quantized models are dequantized at run time).
	Memory string
	// Workers is how many engine instances to load (each holds its own
	// weights and KV cache); 0 means 1.
	Workers int
	// MaxTokens is the token limit for requests that set none; 0 means the
	// package's max_new_tokens, or 512 if it has none.
	MaxTokens int
	// ChatTemplate overrides the package's chat template with this Jinja
	// source; ChatTemplateSource labels it for the manifest ("" means
	// "option"). Empty means the package's own (see chat.go).
	ChatTemplate       string
	ChatTemplateSource string
	// Thinking sets enable_thinking for templates that read it; the zero
	// value keeps the template's (or the package context's) default.
	Thinking chattemplate.Thinking
	// TemplateNow is what strftime_now formats; zero means the first
	// chat request's time.
	TemplateNow time.Time
	// PrefixCache is "on" or "off"; empty means on. On, each engine keeps
	// the KV cache of its last request, a request goes to the idle engine
	// whose cache holds the longest prefix of its prompt and runs only the
	// rest (see prefix.go); the engines load with reuse_kv. A few-shot
	// preamble or a multiple-choice question is then computed once per
	// engine, at the price of logits that can differ in their last bits
	// from a computation from an empty cache. Off, every request is
	// computed from an empty cache, as at Workers 1: for exact
	// reproduction.
	PrefixCache string
	// Config holds extra MNN config keys merged after the ones above and
	// before load (for example "attention_mode" or "dynamic_option"). nil
	// adds nothing. reuse_kv is not among them: PrefixCache sets it.
	Config map[string]any
}

var levels = map[string]bool{"low": true, "normal": true, "high": true}

// withDefaults returns o with zero fields replaced by defaults, or an error
// naming the first invalid field.
func (o Options) withDefaults() (Options, error) {
	if o.Threads == 0 {
		o.Threads = 1
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Backend == "" {
		o.Backend = "cpu"
	}
	if o.Precision == "" {
		o.Precision = "low"
	}
	if o.Memory == "" {
		o.Memory = "low"
	}
	if o.PrefixCache == "" {
		o.PrefixCache = "on"
	}
	if _, ok := o.Config["reuse_kv"]; ok {
		return o, errors.New("config key reuse_kv is set by the runtime's prefix-cache option (on|off), not directly")
	}
	if _, _, err := configMaxAllTokens(o.Config); err != nil {
		return o, err
	}
	switch {
	case o.Threads < 0:
		return o, fmt.Errorf("threads must be positive, got %d", o.Threads)
	case o.Workers < 0:
		return o, fmt.Errorf("workers must be positive, got %d", o.Workers)
	case o.MaxTokens < 0:
		return o, fmt.Errorf("max tokens must not be negative, got %d", o.MaxTokens)
	case !levels[o.Precision]:
		return o, fmt.Errorf("precision must be low, normal or high, got %q", o.Precision)
	case !levels[o.Memory]:
		return o, fmt.Errorf("memory mode must be low, normal or high, got %q", o.Memory)
	case o.PrefixCache != "on" && o.PrefixCache != "off":
		return o, fmt.Errorf("prefix cache must be on or off, got %q", o.PrefixCache)
	}
	return o, nil
}

// engineConfig is the JSON merged into the package config before load:
// runtime settings, greedy sampling, synchronous execution (accurate
// timings, as llm_bench sets) and KV reuse between requests only with the
// prefix cache (reuse_kv: MNN then keeps the cache at the start of a
// request, and the shim drops what the new prompt does not share).
func (o Options) engineConfig() (string, error) {
	m := map[string]any{
		"thread_num":   o.Threads,
		"backend_type": o.Backend,
		"precision":    o.Precision,
		"memory":       o.Memory,
		"sampler_type": "greedy",
		"async":        false,
		"all_logits":   false,
	}
	for k, v := range o.Config {
		m[k] = v
	}
	m["reuse_kv"] = o.PrefixCache == "on"
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode MNN config: %w", err)
	}
	return string(b), nil
}

// Package describes an MNN LLM package on disk.
type Package struct {
	Config string // path of config.json
	Dir    string // the directory files are resolved against
	// MaxNewTokens is the package's max_new_tokens (0 if unset).
	MaxNewTokens int
	// MaxAllTokens is the package's max_all_tokens, MNN's limit on the
	// tokens of a whole sequence (0 if unset: MNN's default is 2048).
	MaxAllTokens int
	// Files are the package files the engine will read, sorted.
	Files []string
}

// packageConfig holds the config.json keys that name files.
type packageConfig struct {
	BaseDir       string `json:"base_dir"`
	LlmModel      string `json:"llm_model"`
	LlmWeight     string `json:"llm_weight"`
	TokenizerFile string `json:"tokenizer_file"`
	EmbeddingFile string `json:"embedding_file"`
	MaxNewTokens  int    `json:"max_new_tokens"`
	MaxAllTokens  int    `json:"max_all_tokens"`
}

// ResolvePackage finds the config.json of the package at path (the
// directory or the file itself) and checks that the files MNN requires
// exist: llm.mnn, llm.mnn.weight and the tokenizer, under their configured
// names. MNN itself only reports a missing file on stdout.
func ResolvePackage(path string) (Package, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Package{}, fmt.Errorf("open MNN package: %w", err)
	}
	cfgPath := path
	if fi.IsDir() {
		cfgPath = filepath.Join(path, "config.json")
	}
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		return Package{}, fmt.Errorf("open MNN package: %w", err)
	}
	var pc packageConfig
	if err := json.Unmarshal(data, &pc); err != nil {
		return Package{}, fmt.Errorf("open MNN package: %s: %w", cfgPath, err)
	}
	dir := filepath.Dir(cfgPath)
	if pc.BaseDir != "" {
		if filepath.IsAbs(pc.BaseDir) {
			dir = pc.BaseDir
		} else {
			dir = filepath.Join(dir, pc.BaseDir)
		}
	}
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	p := Package{Config: cfgPath, Dir: dir, MaxNewTokens: pc.MaxNewTokens, MaxAllTokens: pc.MaxAllTokens}
	required := []struct{ key, name string }{
		{"llm_model", def(pc.LlmModel, "llm.mnn")},
		{"llm_weight", def(pc.LlmWeight, "llm.mnn.weight")},
		{"tokenizer_file", def(pc.TokenizerFile, "tokenizer.txt")},
	}
	for _, r := range required {
		f := filepath.Join(dir, r.name)
		if _, err := os.Stat(f); err != nil {
			return Package{}, fmt.Errorf("open MNN package: %s: %s: %w", cfgPath, r.key, err)
		}
		p.Files = append(p.Files, f)
	}
	p.Files = append(p.Files, cfgPath)
	for _, opt := range []string{"llm_config.json", def(pc.EmbeddingFile, "embeddings_bf16.bin")} {
		if f := filepath.Join(dir, opt); fileExists(f) {
			p.Files = append(p.Files, f)
		}
	}
	sort.Strings(p.Files)
	return p, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
