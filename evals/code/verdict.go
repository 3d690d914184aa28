package code

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
)

// Verdict modes (Options.VerdictMode, --verdict-mode).
const (
	// VerdictOfficial runs each program as one process, as the official
	// harnesses do: the numbers published with them are reproduced. A
	// program sharing the interpreter with its tests can forge a pass
	// (docs/sandbox.md lists how).
	VerdictOfficial = string(results.VerdictOfficial)
	// VerdictIsolated runs the tests and the model's code in two sandboxed
	// processes (sandbox/isolated): the tests call the model's functions
	// through plain-data proxies, and nothing inside the model's program
	// can change the verdict. For release gates.
	VerdictIsolated = string(results.VerdictIsolated)
)

// VerdictModes lists the verdict modes.
var VerdictModes = []string{VerdictOfficial, VerdictIsolated}

// ValidateVerdictMode reports whether mode is a verdict mode ("" is the
// official one).
func ValidateVerdictMode(mode string) error {
	switch mode {
	case "", VerdictOfficial, VerdictIsolated:
		return nil
	}
	return fmt.Errorf("verdict mode %q: want %s", mode, strings.Join(VerdictModes, " or "))
}

// VerdictMode returns the task's verdict mode.
func (t *Task) VerdictMode() string {
	if t.opts.VerdictMode == "" {
		return VerdictOfficial
	}
	return t.opts.VerdictMode
}

// WithVerdictMode returns a copy of t that judges programs in mode. An
// executor that cannot run isolated programs is wrapped to run one at a
// time (Setup builds one sized to the run's workers instead).
func (t *Task) WithVerdictMode(mode string) (*Task, error) {
	if err := ValidateVerdictMode(mode); err != nil {
		return nil, err
	}
	c := *t
	c.opts.VerdictMode = mode
	if c.exec != nil {
		return c.WithExecutor(c.exec), nil
	}
	return &c, nil
}

// Task options (evals.Optioner): the verdict mode, and the time-limit
// policy, when they are not the defaults. Each changes which programs pass,
// so a run records them and resuming with others is refused.
const (
	OptionVerdictMode     = "verdict_mode"
	OptionTimeLimitMode   = "time_limit_mode"
	OptionTimeLimitFloor  = "time_limit_floor"
	OptionTimeLimitFactor = "time_limit_factor"
)

// OptionKeys implements evals.Optioner.
func (t *Task) OptionKeys() []string {
	return []string{OptionTimeLimitFactor, OptionTimeLimitFloor, OptionTimeLimitMode, OptionVerdictMode}
}

// TaskOptions implements evals.Optioner: the verdict mode and the
// time-limit policy where they differ from the defaults.
func (t *Task) TaskOptions() map[string]string {
	opts := map[string]string{}
	if t.VerdictMode() != VerdictOfficial {
		opts[OptionVerdictMode] = t.VerdictMode()
	}
	tl, def := t.TimeLimits(), TimeLimits{}.withDefaults()
	if tl.Mode != def.Mode {
		opts[OptionTimeLimitMode] = tl.Mode
	}
	if tl.Floor != def.Floor {
		opts[OptionTimeLimitFloor] = tl.Floor.String()
	}
	if tl.Factor != def.Factor {
		opts[OptionTimeLimitFactor] = strconv.FormatFloat(tl.Factor, 'g', -1, 64)
	}
	if len(opts) == 0 {
		return nil
	}
	return opts
}

// WithTaskOptions implements evals.Optioner: the task judging in the
// verdict mode and with the time-limit policy of opts (the defaults for
// what is absent).
func (t *Task) WithTaskOptions(opts map[string]string) (evals.Task, error) {
	mode := VerdictOfficial
	tl := t.opts.TimeLimits
	tl.Mode, tl.Floor, tl.Factor = "", 0, 0
	for k, v := range opts {
		var err error
		switch k {
		case OptionVerdictMode:
			mode = v
		case OptionTimeLimitMode:
			tl.Mode = v
		case OptionTimeLimitFloor:
			tl.Floor, err = time.ParseDuration(v)
		case OptionTimeLimitFactor:
			tl.Factor, err = strconv.ParseFloat(v, 64)
		default:
			return nil, fmt.Errorf("task %s: unknown option %q (known: %s, %s, %s, %s)", t.Info().Name, k,
				OptionVerdictMode, OptionTimeLimitMode, OptionTimeLimitFloor, OptionTimeLimitFactor)
		}
		if err != nil {
			return nil, fmt.Errorf("task %s: option %s: %w", t.Info().Name, k, err)
		}
	}
	if err := tl.Validate(); err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Info().Name, err)
	}
	nt, err := t.WithTimeLimits(tl).WithVerdictMode(mode)
	if err != nil {
		return nil, fmt.Errorf("task %s: option %s: %w", t.Info().Name, OptionVerdictMode, err)
	}
	return nt, nil
}

// isolatedExecutor wraps ex for the isolated mode unless it runs isolated
// programs already; pairs is how many isolated programs run at once (ex
// must run twice as many programs at once).
func isolatedExecutor(ex sandbox.Executor, pairs int) sandbox.Executor {
	if _, ok := ex.(codescore.IsolatedRunner); ok {
		return ex
	}
	return isolated.New(ex, pairs, sandbox.Limits{})
}

// isolatedWorkers is the number of isolated programs run at once for
// env.Workers (0: the number of CPUs); the pool needs twice as many
// workers, and each pair keeps about one CPU busy.
func isolatedWorkers(workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return workers
}

// verdictRecord describes the verdict mode for the run manifest.
func (t *Task) verdictRecord() map[string]any {
	if t.VerdictMode() == VerdictIsolated {
		return map[string]any{"mode": VerdictIsolated, "rule": "tests in a trusted sandboxed process; the model's code alone in " +
			"a second one, called through plain-data proxies (None, bool, int, float, complex, str, bytes, list, tuple, " +
			"dict, set, frozenset, and Counter, OrderedDict, defaultdict, deque, Fraction, Decimal rebuilt by the tests' process; " +
			"exact types); anything else fails; the tests' process decides"}
	}
	return map[string]any{"mode": VerdictOfficial, "rule": "the program and its tests in one process, as the official harness runs them"}
}
