package cli

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/gate"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/sandbox"
)

// advice words, in flags, what the user can do about an error the
// libraries return: they carry the facts in typed errors and name no flag
// (the libraries serve other callers too); the command line knows its
// flags. Execute prints it under the error. "" when there is nothing to add.
func advice(err error) string {
	var fixes []string
	var mm *runner.ConfigMismatchError
	var re *runner.ResumeError
	var ne *runner.OutNotEmptyError
	var le *results.LockedError
	switch {
	case errors.As(err, &mm):
		fixes = append(fixes, "use --force to start over, or choose another --out")
	case errors.As(err, &re):
		fixes = append(fixes, "start over with --force, or choose another --out")
	case errors.As(err, &ne):
		fixes = append(fixes, "choose an empty --out")
	case errors.As(err, &le):
		fixes = append(fixes, "or choose another --out")
	}
	var fse *evals.FewShotError
	if errors.As(err, &fse) {
		counts := make([]string, len(fse.Allowed))
		for i, n := range fse.Allowed {
			counts[i] = strconv.Itoa(n)
		}
		fixes = append(fixes, "use --num-fewshot "+strings.Join(counts, " or ")+", or leave it unset for the task's default")
	}
	var ode *evals.OptionalDataError
	if errors.As(err, &ode) {
		fixes = append(fixes, "`pocketeval datasets download --optional "+ode.Task+"` fetches it")
	}
	var mde *evals.MissingDataError
	if errors.As(err, &mde) && mde.Schema != "" {
		fixes = append(fixes, "--dataset-file takes any "+mde.Schema+"-schema file")
	}
	var ue *compare.UnlikeError
	if errors.As(err, &ue) {
		fixes = append(fixes, "compare runs made with the same settings, or pass --allow-unlike to compare them anyway, marked as unlike")
	}
	var ae *compare.AlignmentError
	if errors.As(err, &ae) && ae.Unpaired {
		fixes = append(fixes, "compare runs with the same --limit/--shard, and re-run failed samples")
	}
	var tn *chattemplate.ToolsNotRenderedError
	if errors.As(err, &tn) {
		fixes = append(fixes, "use a template with tool support, e.g. --chat-template")
	}
	var ie *results.IncompleteError
	if errors.As(err, &ie) {
		fixes = append(fixes, "finish it with the same `pocketeval run ... --out "+ie.Dir+"`, which re-scores every response it reuses")
	}
	if errors.Is(err, sandbox.ErrInsufficientIsolation) {
		fixes = append(fixes, "--unsafe-no-sandbox runs model-written code without isolation")
	}
	return strings.Join(fixes, "\n")
}

// withAdvice is err's message followed by its advice, if any.
func withAdvice(err error) string {
	if a := advice(err); a != "" {
		return err.Error() + "\n" + a
	}
	return err.Error()
}

// gateHints word the flags the gate's report lines point to.
var gateHints = gate.Hints{
	AllowUnlike:      "--allow-unlike",
	Limit:            "--limit",
	IsolatedVerdicts: "run code tasks with --verdict-mode isolated",
	Measures: map[gate.Measure]string{
		gate.MeasureSpeed:           "bench --json, gate --bench FILE",
		gate.MeasureEnergy:          "bench --energy battery|rapl --json, or energy --json from the device",
		gate.MeasureBatteryEnergy:   "bench --energy battery --json, or energy --json from the device",
		gate.MeasureBatteryCapacity: "--battery-mah and --battery-volts",
	},
}
