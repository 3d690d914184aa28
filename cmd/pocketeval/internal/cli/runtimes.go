package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/mnn"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

// RuntimeOptions select and configure a runtime for the commands that open
// one (run, serve, bench): --runtime, the settings every runtime shares,
// and each runtime's own flags, which the runtime declares itself
// (runtime/drivers). The zero value works: a runtime's own flags then take
// their defaults.
type RuntimeOptions struct {
	Name  string // --runtime
	Model string // --model: a file, a package directory, or a model name
	// Threads for in-process engines (--threads); 0 means 1 on this class
	// of machine (engines spin and thrash when oversubscribed).
	Threads int
	// Workers is how many requests the runtime serves at once (engine
	// contexts for in-process runtimes), set by the command.
	Workers int
	// Drivers are the runtimes to choose from; nil means drivers.All().
	Drivers []drivers.Driver
	// Warn prints a line while the runtime works (drivers.Common.Warn),
	// set by the command; nil prints nothing.
	Warn func(msg string)

	// Chat templates, for runtimes that render them
	// (drivers.Caps.ChatTemplates): --chat-template FILE overrides the
	// model's; --thinking on|off|model-default; TemplateNow pins
	// strftime_now (set by run when resuming).
	ChatTemplateFile string
	Thinking         string
	TemplateNow      time.Time

	// Speculative (--speculative MODE) turns on the runtime's speculative
	// decoding, whose modes each runtime names (drivers.Speculator);
	// SpeculativeVerify (--speculative-verify) also decodes every greedy
	// request without it and fails those whose text differs.
	Speculative       string
	SpeculativeVerify bool

	// IgnoreLimits (--ignore-limits) skips the checks of --threads,
	// --concurrency (or --parallel) and --ctx-size against the machine
	// and the model (drivers.CheckLimits); Machine is the capacity they
	// are checked against, nil meaning drivers.ThisMachine().
	IgnoreLimits bool
	Machine      *drivers.Machine

	// own holds each runtime's own flags by runtime name (filled by
	// AddFlags, else on first use with defaults), and ownSets the flag
	// sets they registered.
	own     map[string]drivers.Flags
	ownSets map[string]*pflag.FlagSet
	// owner maps each runtime-specific flag to the runtimes that define
	// it, and fs is the set they were registered on, to refuse a flag of
	// another runtime.
	owner map[string][]string
	fs    *pflag.FlagSet
}

// AddFlags registers --runtime, the shared flags and every runtime's own
// flags on fs. Several runtimes may define the same flag (--prefix-cache)
// with the same type and default: it is registered once, its help joins
// theirs, and the selected runtime receives its value (driver).
func (o *RuntimeOptions) AddFlags(fs *pflag.FlagSet) {
	o.own, o.ownSets, o.owner, o.fs = map[string]drivers.Flags{}, map[string]*pflag.FlagSet{}, map[string][]string{}, fs
	var names, modes []string
	for _, d := range o.list() {
		names = append(names, d.Name)
		f := d.NewFlags()
		if sp, ok := f.(drivers.Speculator); ok {
			modes = append(modes, sp.SpeculativeHelp())
		}
		own := pflag.NewFlagSet(d.Name, pflag.ContinueOnError)
		f.AddFlags(own)
		own.VisitAll(func(fl *pflag.Flag) {
			if prev := o.owner[fl.Name]; len(prev) > 0 {
				reg := fs.Lookup(fl.Name)
				if reg.Value.Type() != fl.Value.Type() || reg.DefValue != fl.DefValue {
					panic(fmt.Sprintf("runtimes %s and %s define --%s differently", strings.Join(prev, ", "), d.Name, fl.Name))
				}
				reg.Usage += "; " + fl.Usage
			}
			o.owner[fl.Name] = append(o.owner[fl.Name], d.Name)
		})
		fs.AddFlagSet(own)
		o.own[d.Name], o.ownSets[d.Name] = f, own
	}
	fs.StringVar(&o.Name, "runtime", o.Name, "runtime: "+strings.Join(names, ", "))
	fs.StringVar(&o.Model, "model", o.Model, "model file (GGUF), MNN package directory or config.json, or model name for openai")
	fs.IntVar(&o.Threads, "threads", 1, "engine threads per worker (in-process runtimes)")
	fs.StringVar(&o.ChatTemplateFile, "chat-template", "", "Jinja chat template `FILE` replacing the model's (runtimes that render templates: llamacpp, mnn)")
	fs.StringVar(&o.Thinking, "thinking", "model-default", "reasoning mode for templates with enable_thinking: on, off or model-default (openai: asked of the server in chat_template_kwargs)")
	fs.StringVar(&o.Speculative, "speculative", o.Speculative, "speculative decoding `MODE`, by runtime: "+strings.Join(modes, "; "))
	fs.BoolVar(&o.SpeculativeVerify, "speculative-verify", o.SpeculativeVerify,
		"with --speculative: also decode every greedy request without it and fail each whose text differs")
	fs.BoolVar(&o.IgnoreLimits, "ignore-limits", false, "skip the checks of --threads, --concurrency/--parallel and --ctx-size against this machine's cores and memory and the model's trained context")
}

func (o *RuntimeOptions) list() []drivers.Driver {
	if o.Drivers == nil {
		return drivers.All()
	}
	return o.Drivers
}

// driver returns the selected runtime and its own flags.
func (o *RuntimeOptions) driver() (drivers.Driver, drivers.Flags, error) {
	d, err := drivers.Lookup(o.list(), o.Name)
	if err != nil {
		return d, nil, &FlagError{err: err}
	}
	if o.own == nil {
		o.own = map[string]drivers.Flags{}
	}
	f, ok := o.own[d.Name]
	if !ok {
		f = d.NewFlags()
		o.own[d.Name] = f
	}
	// A flag the runtime shares with another was registered as the
	// other's: pass its value on.
	if own := o.ownSets[d.Name]; own != nil && o.fs != nil {
		var err error
		own.VisitAll(func(fl *pflag.Flag) {
			if reg := o.fs.Lookup(fl.Name); reg != nil && reg != fl && reg.Changed && err == nil {
				err = fl.Value.Set(reg.Value.String())
			}
		})
		if err != nil {
			return d, nil, &FlagError{err: err}
		}
	}
	return d, f, nil
}

// common is what every runtime receives: the shared settings and, for
// runtimes that render chat templates, the template override and thinking
// mode.
func (o *RuntimeOptions) common() (drivers.Common, error) {
	c := drivers.Common{Model: o.Model, Threads: max(o.Threads, 1), Workers: max(o.Workers, 1), TemplateNow: o.TemplateNow, IgnoreLimits: o.IgnoreLimits,
		Speculative: o.Speculative, SpeculativeVerify: o.SpeculativeVerify, Warn: o.Warn}
	if o.Machine != nil {
		c.Machine = *o.Machine
	} else {
		c.Machine = drivers.ThisMachine()
	}
	var err error
	c.ChatTemplate, c.ChatTemplateSource, c.Thinking, err = o.chatTemplateOptions()
	return c, err
}

// Validate checks the runtime's flags before anything is opened: the
// runtime exists, no other runtime's flag was set, and the runtime accepts
// its own. Errors are *FlagError.
func (o *RuntimeOptions) Validate() error {
	d, f, err := o.driver()
	if err != nil {
		return err
	}
	if err := checkTemplateFlags(*o); err != nil {
		return err
	}
	if o.Threads < 0 {
		return FlagErrorf("--threads must be >= 1, got %d", o.Threads)
	}
	if o.fs != nil {
		var foreign []string
		for name, owners := range o.owner {
			if !slices.Contains(owners, d.Name) && o.fs.Changed(name) {
				foreign = append(foreign, fmt.Sprintf("--%s (%s)", name, strings.Join(owners, ", ")))
			}
		}
		if len(foreign) > 0 {
			sort.Strings(foreign)
			return FlagErrorf("%s: not flags of --runtime %s", strings.Join(foreign, ", "), d.Name)
		}
	}
	if _, ok := f.(drivers.Speculator); !ok && (o.Speculative != "" || o.SpeculativeVerify) {
		var able []string
		for _, x := range o.list() {
			if _, ok := x.NewFlags().(drivers.Speculator); ok {
				able = append(able, x.Name)
			}
		}
		return FlagErrorf("--speculative: --runtime %s has no speculative decoding (runtimes that do: %s)", d.Name, strings.Join(able, ", "))
	}
	c, err := o.common()
	if err != nil {
		return err
	}
	if cc, ok := f.(drivers.ContextCounter); ok {
		c.Contexts = cc.Contexts(c)
	}
	if err := drivers.CheckLimits(d.Caps, c); err != nil {
		return &FlagError{err: err}
	}
	if err := f.Validate(c); err != nil {
		return &FlagError{err: err}
	}
	return nil
}

// Caps returns what the selected runtime can do (zero for an unknown one).
func (o *RuntimeOptions) Caps() drivers.Caps {
	d, _ := drivers.Lookup(o.list(), o.Name)
	return d.Caps
}

// Require refuses a runtime that is unknown or lacks a capability a
// command needs (has), naming the runtimes that have it; what says what the
// command does ("synthetic benchmarks").
func (o *RuntimeOptions) Require(what string, has func(drivers.Caps) bool) error {
	d, _, err := o.driver()
	if err != nil {
		return err
	}
	if has(d.Caps) {
		return nil
	}
	var able []string
	for _, x := range o.list() {
		if has(x.Caps) {
			able = append(able, x.Name)
		}
	}
	return FlagErrorf("--runtime %s has no %s (runtimes that do: %s)", d.Name, what, strings.Join(able, ", "))
}

// DescribeModel identifies the evaluated model for the manifest.
func (o *RuntimeOptions) DescribeModel() (results.Model, error) {
	_, f, err := o.driver()
	if err != nil {
		return results.Model{}, err
	}
	c, err := o.common()
	if err != nil {
		return results.Model{}, err
	}
	m, err := f.Model(c)
	return results.Model{Path: m.Path, Files: m.Files}, err
}

// OutputSettings are the selected runtime's settings that change its
// outputs (drivers.OutputSettings), for the run's configuration; nil when
// it declares none.
func (o *RuntimeOptions) OutputSettings() map[string]any {
	_, f, err := o.driver()
	if err != nil {
		return nil
	}
	if s, ok := f.(drivers.OutputSettings); ok {
		return s.Settings()
	}
	return nil
}

// Nondeterminism is what may make the selected runtime's responses differ
// between two runs of the same command (drivers.Reproducer); "" when they
// are reproducible bit for bit.
func (o *RuntimeOptions) Nondeterminism() string {
	_, f, err := o.driver()
	if err != nil {
		return ""
	}
	c, err := o.common()
	if err != nil {
		return ""
	}
	if r, ok := f.(drivers.Reproducer); ok {
		return r.Nondeterminism(c)
	}
	return ""
}

// RawPrompts reports why every request to the open runtime rt must be a raw
// prompt, or "".
func (o *RuntimeOptions) RawPrompts(rt runtime.Runtime) string {
	_, f, err := o.driver()
	if err != nil {
		return ""
	}
	if pf, ok := f.(drivers.PromptForm); ok {
		return pf.RawPrompts(rt)
	}
	return ""
}

// InputWarnings are the selected runtime's warnings about how it read its
// input (drivers.InputWarner), once it is open.
func (o *RuntimeOptions) InputWarnings(rt runtime.Runtime) []string {
	_, f, err := o.driver()
	if err != nil {
		return nil
	}
	if w, ok := f.(drivers.InputWarner); ok {
		return w.InputWarnings(rt)
	}
	return nil
}

// OpenRuntime validates the options and opens the runtime they select.
func OpenRuntime(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o.open(ctx)
}

// open opens the runtime the options select; they have been validated.
func (o RuntimeOptions) open(ctx context.Context) (runtime.Runtime, error) {
	_, f, _ := o.driver()
	c, err := o.common()
	if err != nil {
		return nil, err
	}
	rt, err := openCancellable(ctx, func() (runtime.Runtime, error) { return f.Open(ctx, c) })
	if err != nil {
		err = fmt.Errorf("open runtime %s: %w", o.Name, err)
		if inputError(err) {
			return nil, &ExitCodeError{Code: ExitUsage, Err: err}
		}
		return nil, err
	}
	return rt, nil
}

// openCancellable runs open, a runtime load that may be a C call no
// context cuts short (llama.cpp's or MNN's model load), and stops waiting
// for it when ctx ends: the first SIGINT or SIGTERM during a load then
// stops the command at once (exit 130) instead of after the load. The
// abandoned load goes on unobserved until the process exits; a runtime
// it still returns is closed, and nothing is written for it.
func openCancellable(ctx context.Context, open func() (runtime.Runtime, error)) (runtime.Runtime, error) {
	type opened struct {
		rt  runtime.Runtime
		err error
	}
	done := make(chan opened, 1)
	go func() {
		rt, err := open()
		done <- opened{rt, err}
	}()
	select {
	case o := <-done:
		return o.rt, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.rt != nil {
				o.rt.Close()
			}
		}()
		return nil, fmt.Errorf("interrupted while loading: %w", ctx.Err())
	}
}

// mnnOptions maps the options (and extra MNN config keys, which may be
// nil) to mnn.Options, for bench's --mnn-config.
func mnnOptions(o RuntimeOptions, extra map[string]any) mnn.Options {
	o.Name = "mnn"
	_, f, _ := o.driver()
	c, _ := o.common() // bench validated the flags
	opts := f.(*drivers.MNNFlags).Options(c, extra)
	// Engines are configured as llm_bench configures them (reuse_kv
	// false); bench requests start from an empty cache either way.
	opts.PrefixCache = "off"
	return opts
}

// inputError reports errors that name a bad input file (a malformed
// predictions line, a file that is not a regular file): refused before
// anything runs, exit 2.
func inputError(err error) bool {
	var pe *replay.ParseError
	var re *regfile.Error
	return errors.As(err, &pe) || errors.As(err, &re) || regfile.IsUnusable(err)
}
