// Package drivers lists the runtimes pocketeval can open and lets each one
// declare, itself, what commands need to know about it: its own flags and
// their validation, how it opens, how the evaluated model is described in
// the manifest, and what it can do (Caps). Commands branch on Caps, never
// on a runtime's name.
//
// Every runtime contributes its driver from its own file here, so adding a
// runtime never touches the commands or another runtime's code (the same
// pattern as evals/registry for tasks).
package drivers

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// Driver is one runtime as commands see it.
type Driver struct {
	// Name is the value of --runtime.
	Name string
	// Summary is a one-line description for help text.
	Summary string
	// Caps say what the runtime can do.
	Caps Caps
	// NewFlags returns the runtime's own flags for one command, set to
	// their defaults.
	NewFlags func() Flags
}

// Caps are what a runtime can do; commands decide by these, never by name.
// Log-likelihood scoring is not among them: every runtime implements it,
// but whether an instance can serve it (a server without logprobs,
// predictions without log-likelihoods) is asked of the open runtime by the
// runner.
type Caps struct {
	// InProcess: the engine runs inside this process, so --threads applies
	// and the process's memory is the model's.
	InProcess bool
	// Bench: the runtime implements runtime.Bencher (pocketeval bench).
	Bench bool
	// LocalModel: --model is a local file or package directory, hashed
	// into the manifest; a name from the models registry is downloaded on
	// first use.
	LocalModel bool
	// UnseededSampling: sampling takes no seed, so sampled runs are not
	// reproducible.
	UnseededSampling bool
	// ChatTemplates: the runtime renders chat templates itself, so
	// --chat-template and --thinking apply (a server applies its own).
	ChatTemplates bool
	// ServerThinking: the runtime's server renders the chat template and
	// the runtime asks it for the reasoning mode in each request (OpenAI
	// chat_template_kwargs), so --thinking applies although
	// --chat-template does not.
	ServerThinking bool
	// Instant: answers cost nothing (saved predictions), so run scores
	// one sample per core unless --concurrency or --samples-per-task is
	// given.
	Instant bool
}

// Common are the settings every runtime shares: --model, --threads, and
// how many requests run at once (from --concurrency or --parallel).
type Common struct {
	// Model is --model: a file, a package directory or a model name.
	Model string
	// Threads per engine context for in-process runtimes; 0 means 1.
	Threads int
	// Workers is how many requests the runtime must serve at once (engine
	// contexts for in-process runtimes); 0 means 1.
	Workers int
	// ChatTemplate overrides the model's chat template with this Jinja
	// source ("" keeps the model's), labelled ChatTemplateSource in the
	// manifest; Thinking sets enable_thinking; TemplateNow pins what
	// strftime_now formats (a resumed run's date). Only for runtimes with
	// Caps.ChatTemplates (Thinking also with Caps.ServerThinking).
	ChatTemplate       string
	ChatTemplateSource string
	Thinking           chattemplate.Thinking
	TemplateNow        time.Time
	// Machine is the capacity the settings are checked against
	// (CheckLimits, and each runtime's Validate); the zero value checks
	// nothing. IgnoreLimits (--ignore-limits) skips those checks.
	Machine      Machine
	IgnoreLimits bool
	// Warn prints a line to the user while a command runs (a retry and
	// what it waits for); nil prints nothing.
	Warn func(msg string)
	// Contexts is how many engine contexts of Threads threads serve the
	// Workers requests, when not one each (0: Workers); set from the
	// runtime's flags when they implement ContextCounter.
	Contexts int
	// Speculative is --speculative, the runtime's speculative decoding
	// mode ("" for none); each runtime with Speculator flags says which
	// modes it has and checks the value in Validate. SpeculativeVerify is
	// --speculative-verify: also decode every greedy request without it
	// and fail those whose text differs (runtime/speculative.Verifier).
	Speculative       string
	SpeculativeVerify bool
}

// Speculator is implemented by the flags of runtimes with speculative
// decoding; commands refuse --speculative for the others.
// SpeculativeHelp names the runtime's modes for --speculative's help.
type Speculator interface {
	SpeculativeHelp() string
}

// checkSpeculative checks --speculative against a runtime's modes and
// that --speculative-verify comes with it.
func checkSpeculative(c Common, modes []string) error {
	if c.Speculative != "" && !slices.Contains(modes, c.Speculative) {
		return fmt.Errorf("--speculative %q: want one of %s", c.Speculative, strings.Join(modes, ", "))
	}
	if c.SpeculativeVerify && c.Speculative == "" {
		return fmt.Errorf("--speculative-verify needs --speculative %s", strings.Join(modes, "|"))
	}
	return nil
}

// ContextCounter is implemented by the flags of in-process runtimes that
// may serve several requests with one engine context (llamacpp's batched
// decoding): Contexts reports how many contexts serve c.Workers requests.
type ContextCounter interface {
	Contexts(c Common) int
}

// Flags are one runtime's own flags for one command.
type Flags interface {
	// AddFlags registers the flags on fs, with their current values as
	// defaults.
	AddFlags(fs *pflag.FlagSet)
	// Validate checks the flags with the common settings before anything
	// is opened. Its errors are usage errors.
	Validate(c Common) error
	// Open opens the runtime; Validate has passed.
	Open(ctx context.Context, c Common) (runtime.Runtime, error)
	// Model identifies what is evaluated, for the manifest.
	Model(c Common) (Model, error)
}

// OutputSettings is implemented by Flags with settings that change what
// the runtime generates, not only how fast (llamacpp's --ctx-size, MNN's
// --precision, the openai --endpoint). Settings returns them as the run's
// configuration records them: resuming a run with different values is
// refused. Settings that only change speed (threads, workers) are not
// among them.
type OutputSettings interface {
	Settings() map[string]any
}

// PromptForm is implemented by Flags whose runtime, once open, knows that
// every request must be a raw prompt (replayed human-eval completions are
// completions of the raw prompt). RawPrompts returns the reason, or "".
type PromptForm interface {
	RawPrompts(rt runtime.Runtime) string
}

// InputWarner is implemented by Flags whose runtime, once open, may have
// read its input with a loss worth a warning (a replayed predictions
// file's lone surrogate escapes). InputWarnings returns the warnings.
type InputWarner interface {
	InputWarnings(rt runtime.Runtime) []string
}

// All returns every runtime, sorted by name.
func All() []Driver {
	all := []Driver{llamacppDriver(), mnnDriver(), openaiDriver(), replayDriver()}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// UnknownError names a runtime that does not exist ("" when none was
// given), with the known ones.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("--runtime is required (one of %s)", strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("unknown runtime %q (one of %s)", e.Name, strings.Join(e.Known, ", "))
}

// Lookup returns the runtime called name from list.
func Lookup(list []Driver, name string) (Driver, error) {
	var known []string
	for _, d := range list {
		if d.Name == name {
			return d, nil
		}
		known = append(known, d.Name)
	}
	return Driver{}, &UnknownError{Name: name, Known: known}
}

// Model identifies what a run evaluates: a path or a served model's name,
// and the sha256 of each model file (relative to Path when it is a
// directory, else the base name). The command records it in the manifest
// (results.Model); the drivers do not know the result format.
type Model struct {
	Path  string
	Files map[string]string
}

// LocalModel describes a model on disk for the manifest: its path and the
// sha256 of each file (relative to path when it is a directory, else the
// base name).
func LocalModel(path string) (Model, error) {
	m := Model{Path: path}
	if path == "" {
		return m, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return m, fmt.Errorf("model %s: %w", path, err)
	}
	m.Files = map[string]string{}
	if !st.IsDir() {
		h, err := regfile.SHA256(path)
		if err != nil {
			return m, err
		}
		m.Files[filepath.Base(path)] = h
		return m, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		h, err := regfile.SHA256(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		m.Files[rel] = h
		return nil
	})
	return m, err
}

// Reproducer is implemented by Flags whose settings decide whether the
// runtime's outputs are reproducible bit for bit: the same request giving
// the same tokens whatever runs beside it, at any concurrency, in any
// order and after a resume. Nondeterminism returns "" when they are, else
// what makes them vary (it is printed by run and recorded in the manifest).
// A runtime whose Flags do not implement it is taken as reproducible.
type Reproducer interface {
	Nondeterminism(c Common) string
}

// checkInputFile refuses, before anything opens it, a file flag whose
// path is missing or is not a regular file (a directory, a named pipe
// that would block the read, a device).
func checkInputFile(flag, path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such file", flag, path)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s %s is %s, not a regular file: refused, nothing read", flag, path, regfile.Kind(st.Mode()))
	}
	return nil
}
