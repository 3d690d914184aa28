// Package gate is the release gate: a policy (gate.yaml: per-task maximum
// drops, minimum scores, significance, a suite-average floor, on-device
// budgets) applied to a candidate run against a baseline (Gate), and the
// verdict rendered as JSON, JUnit XML and Markdown.
package gate

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/internal/junit"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/suite"
)

// Policy is a release gate's configuration (gate.yaml).
//
//	alpha: 0.05                  # significance level for require_significance
//	defaults:
//	  max_drop: 2.0              # points (score ×100) the candidate may lose
//	  require_significance: true # a drop fails only if it is significant
//	tasks:
//	  ifeval: {max_drop: 1.0, min_score: 70}
//	  app_decision_option: {min_coverage_at_error: 60, max_ece: 8} # decision tasks
//	suite: pocket11              # the suite whose average is checked (default pocket11)
//	suite_average_floor: 48.0    # the candidate's suite average ×100, as `pocketeval suite` computes it
//	fail_on_errors: true         # failed samples in the candidate fail its task
//	require_tasks: [ifeval]      # tasks that must be present, complete and pass
//	code_verdict_mode: isolated  # code tasks of both runs judged in this mode
type Policy struct {
	// Alpha is 0.05 when the file has none.
	Alpha    float64
	Defaults Rule
	Tasks    map[string]Rule
	// Suite names the suite whose average SuiteAverageFloor bounds (a
	// name or a suite file; pocket11 when a floor is set without one).
	Suite             string
	SuiteAverageFloor *float64
	FailOnErrors      *bool
	RequireTasks      []string
	Budgets           *Budgets
	// CodeVerdictMode, when set, fails every code task (humaneval, mbpp,
	// ...) that either run did not judge in this verdict mode ("isolated":
	// the model's code in its own process, so no program can forge a pass;
	// "official"). Runs record the mode in their manifest.
	CodeVerdictMode string
	// suite is Suite, resolved (when a floor or a suite is set).
	suite *suite.Suite
	// File is the policy file, and named each task the policy names with
	// the field and line that name it first (for CheckTasks).
	File  string
	named map[string]taskRef
}

// taskRef is where a policy names a task.
type taskRef struct {
	field string
	line  int
}

func (p *Policy) taskAt(task, field string, line int) {
	if p.named == nil {
		p.named = map[string]taskRef{}
	}
	if _, ok := p.named[task]; !ok {
		p.named[task] = taskRef{field, line}
	}
}

// UnknownTaskError is a policy that names a task pocketeval does not know:
// a policy error (a typo such as ifevl would otherwise fail as a
// regression, or pass unnoticed).
type UnknownTaskError struct {
	File, Field, Task string
	Line              int
}

func (e *UnknownTaskError) Error() string {
	return fmt.Sprintf("policy %s:%d: field %q: unknown task %q (neither a registered task nor a task of the runs)", e.File, e.Line, e.Field, e.Task)
}

// CheckTasks refuses a policy naming a task that known does not know, in
// the policy's line order.
func (p *Policy) CheckTasks(known func(task string) bool) error {
	var bad []UnknownTaskError
	for t, at := range p.named {
		if !known(t) {
			bad = append(bad, UnknownTaskError{File: p.File, Field: at.field, Task: t, Line: at.line})
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Slice(bad, func(i, j int) bool {
		return bad[i].Line < bad[j].Line || bad[i].Line == bad[j].Line && bad[i].Task < bad[j].Task
	})
	return &bad[0]
}

// Rule is the policy for one task. Nil fields inherit the defaults.
type Rule struct {
	MaxDrop             *float64
	MinScore            *float64
	RequireSignificance *bool
	// MinRelativeScore is the candidate's least score as a percentage of
	// the baseline's (MLPerf Client's "at least x% of the native-precision
	// model"), for gating a quantization against its reference.
	MinRelativeScore *float64
	// MinCoverageAtError and MaxECE are decision tasks' keys (a task
	// file with a decision block, docs/decisions.md), in points: the
	// candidate's coverage_at_error must be at least the first, its ece
	// at most the second. Only in a task's own rule.
	MinCoverageAtError *float64
	MaxECE             *float64
}

// ReadPolicy reads and validates a policy file; taskFile names the task
// files a suite file of the policy lists (see suite.Get).
func ReadPolicy(path string, taskFile suite.TaskFileNamer) (*Policy, error) {
	data, err := regfile.ReadFile(path, regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	return ParsePolicy(path, data, taskFile)
}

// ParsePolicy parses and validates a policy. Every problem is an error
// naming the file, the line and the field: unknown and repeated fields, a
// task listed twice, values of the wrong type or out of range (alpha in
// (0,1) — an explicit 0 is an error, not the default — max_drop >= 0,
// min_score, min_coverage_at_error, max_ece and suite_average_floor in
// [0,100], all finite).
//
// It walks the YAML node tree itself, in time linear in the file: yaml.v3's
// decoder checks a mapping's keys for repeats pairwise, which made a
// policy of 30,000 tasks take half a minute.
func ParsePolicy(file string, data []byte, taskFile suite.TaskFileNamer) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	pp := policyParser{file: file}
	p := &Policy{Alpha: 0.05, File: file}
	if doc.Kind == 0 { // empty file
		return p, nil
	}
	root := resolve(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return p, nil
	}
	err := pp.mapping(root, "", func(key string, k, v *yaml.Node) error {
		read, ok := policyKeys[key]
		if !ok {
			return pp.errorf(k, "", "unknown field %q", key)
		}
		return read(pp, p, v, key)
	})
	if err != nil {
		return nil, err
	}
	if err := p.Budgets.validate(file); err != nil {
		return nil, err
	}
	if p.Suite != "" || p.SuiteAverageFloor != nil {
		name := p.Suite
		if name == "" {
			name = "pocket11"
		}
		if !filepath.IsAbs(name) && strings.ContainsRune(name, '/') {
			name = filepath.Join(filepath.Dir(file), name)
		}
		s, err := suite.Get(name, taskFile)
		if err != nil {
			return nil, fmt.Errorf("policy %s: field \"suite\": %w", file, err)
		}
		p.suite = s
	}
	return p, nil
}

// policyKeys declares the top-level keys of a policy file, each with how
// it is read into the Policy (v is the key's value node, key its name for
// errors). To add a key: a field of Policy, its entry here, and its check
// in Gate.
var policyKeys = map[string]func(pp policyParser, p *Policy, v *yaml.Node, key string) error{
	"alpha": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		a, err := pp.float(v, key)
		if err != nil {
			return err
		}
		if !(a > 0 && a < 1) {
			return pp.errorf(v, key, "must be in (0,1), got %v", a)
		}
		p.Alpha = a
		return nil
	},
	"defaults": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		r, err := pp.rule(v, key)
		p.Defaults = r
		return err
	},
	"tasks": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if tag := resolve(v).Tag; tag == "!!null" {
			return nil
		}
		p.Tasks = map[string]Rule{}
		return pp.mapping(v, key, func(task string, tk, tv *yaml.Node) error {
			r, err := pp.rule(tv, key+"."+task)
			p.Tasks[task] = r
			p.taskAt(task, key+"."+task, tk.Line)
			return err
		})
	},
	"suite": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if err := v.Decode(&p.Suite); err != nil || p.Suite == "" {
			return pp.errorf(v, key, "must be a suite name or a suite file")
		}
		return nil
	},
	"suite_average_floor": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		return set(&p.SuiteAverageFloor, pp.score, v, key)
	},
	"fail_on_errors": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		return set(&p.FailOnErrors, pp.bool, v, key)
	},
	"require_tasks": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if err := v.Decode(&p.RequireTasks); err != nil {
			return pp.errorf(v, key, "must be a list of task names")
		}
		for i, n := range resolve(v).Content {
			if i < len(p.RequireTasks) {
				p.taskAt(p.RequireTasks[i], key, resolve(n).Line)
			}
		}
		return nil
	},
	"code_verdict_mode": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if err := v.Decode(&p.CodeVerdictMode); err != nil || p.CodeVerdictMode != "official" && p.CodeVerdictMode != "isolated" {
			return pp.errorf(v, key, "want official or isolated, got %q", resolve(v).Value)
		}
		return nil
	},
	"budgets": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		return pp.budgets(p, v, key)
	},
}

// policyParser turns YAML nodes into a Policy, naming the file, line and
// field of what is wrong.
type policyParser struct {
	file string
}

func (pp policyParser) errorf(n *yaml.Node, field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field == "" {
		return fmt.Errorf("policy %s:%d: %s", pp.file, n.Line, msg)
	}
	return fmt.Errorf("policy %s:%d: field %q: %s", pp.file, n.Line, field, msg)
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// mapping calls f for each key of a mapping node, refusing a key that
// repeats (one map, so linear).
func (pp policyParser) mapping(n *yaml.Node, field string, f func(key string, k, v *yaml.Node) error) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		if field == "" {
			return pp.errorf(n, field, "a policy is a mapping of fields")
		}
		return pp.errorf(n, field, "must be a mapping")
	}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return pp.errorf(k, field, "keys must be names")
		}
		if line, dup := seen[k.Value]; dup {
			name := k.Value
			if field != "" {
				name = field + "." + k.Value
			}
			return pp.errorf(k, name, "repeats line %d", line)
		}
		seen[k.Value] = k.Line
		if err := f(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// budgets reads the on-device budgets: known keys, each once (the
// values are checked by Budgets.validate).
func (pp policyParser) budgets(p *Policy, v *yaml.Node, field string) error {
	if resolve(v).Tag == "!!null" {
		return nil
	}
	known := map[string]bool{"bench_test": true}
	for _, l := range (&Budgets{}).limits() {
		known[l.name] = true
	}
	if err := pp.mapping(v, field, func(key string, k, _ *yaml.Node) error {
		if !known[key] {
			return pp.errorf(k, field, "unknown field %q", key)
		}
		return nil
	}); err != nil {
		return err
	}
	p.Budgets = &Budgets{}
	if err := resolve(v).Decode(p.Budgets); err != nil {
		return pp.errorf(v, field, "%v", err)
	}
	return nil
}

// rule reads one task's (or the defaults') rule.
func (pp policyParser) rule(n *yaml.Node, field string) (Rule, error) {
	var r Rule
	if resolve(n).Tag == "!!null" {
		return r, nil
	}
	err := pp.mapping(n, field, func(key string, k, v *yaml.Node) error {
		name := field + "." + key
		switch key {
		case "max_drop":
			x, err := pp.float(v, name)
			if err != nil {
				return err
			}
			if !(x >= 0) || math.IsInf(x, 0) {
				return pp.errorf(v, name, "must be a number >= 0, got %v", x)
			}
			r.MaxDrop = &x
		case "min_score":
			return set(&r.MinScore, pp.score, v, name)
		case "require_significance":
			return set(&r.RequireSignificance, pp.bool, v, name)
		case "min_relative_score":
			x, err := pp.float(v, name)
			if err != nil {
				return err
			}
			if !(x >= 0) || math.IsInf(x, 0) {
				return pp.errorf(v, name, "must be a percentage >= 0, got %v", x)
			}
			r.MinRelativeScore = &x
		case "min_coverage_at_error", "max_ece":
			if field == "defaults" {
				return pp.errorf(k, name, "a decision task's key: give it in the task's own rule (tasks: {%s: ...})", "<task>")
			}
			if key == "max_ece" {
				return set(&r.MaxECE, pp.score, v, name)
			}
			return set(&r.MinCoverageAtError, pp.score, v, name)
		default:
			return pp.errorf(k, field, "unknown field %q (a rule has max_drop, min_score, min_relative_score, require_significance, and for decision tasks min_coverage_at_error, max_ece)", key)
		}
		return nil
	})
	return r, err
}

func (pp policyParser) float(n *yaml.Node, field string) (float64, error) {
	n = resolve(n)
	var x float64
	if n.Kind != yaml.ScalarNode || n.Decode(&x) != nil {
		return 0, pp.errorf(n, field, "must be a number, got %q", n.Value)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, pp.errorf(n, field, "must be a finite number, got %s", n.Value)
	}
	return x, nil
}

// set reads an optional field with read and points dst at its value.
func set[T any](dst **T, read func(*yaml.Node, string) (T, error), n *yaml.Node, field string) error {
	x, err := read(n, field)
	if err != nil {
		return err
	}
	*dst = &x
	return nil
}

// score reads a score ×100: a number in [0,100].
func (pp policyParser) score(n *yaml.Node, field string) (float64, error) {
	x, err := pp.float(n, field)
	if err == nil && !(x >= 0 && x <= 100) {
		err = pp.errorf(resolve(n), field, "must be in [0,100] (scores are ×100), got %v", x)
	}
	return x, err
}

func (pp policyParser) bool(n *yaml.Node, field string) (bool, error) {
	n = resolve(n)
	var b bool
	if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
		return false, pp.errorf(n, field, "must be true or false, got %q", n.Value)
	}
	return b, nil
}

func (p *Policy) rule(task string) (maxDrop *float64, minScore *float64, requireSig bool) {
	r := p.Tasks[task]
	maxDrop, minScore = p.Defaults.MaxDrop, p.Defaults.MinScore
	requireSig = p.Defaults.RequireSignificance != nil && *p.Defaults.RequireSignificance
	if r.MaxDrop != nil {
		maxDrop = r.MaxDrop
	}
	if r.MinScore != nil {
		minScore = r.MinScore
	}
	if r.RequireSignificance != nil {
		requireSig = *r.RequireSignificance
	}
	return
}

// minRelative is a task's min_relative_score (its own, else the
// defaults').
func (p *Policy) minRelative(task string) *float64 {
	if r := p.Tasks[task].MinRelativeScore; r != nil {
		return r
	}
	return p.Defaults.MinRelativeScore
}

// TaskVerdict is the gate's decision on one task.
type TaskVerdict struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	// Status is the candidate's task status (results.TaskSummary.Status;
	// "missing" when the candidate or the baseline lacks the task).
	Status string `json:"status"`
	// Baseline and Candidate are the scores ×100, Delta their difference
	// in points, CILo and CIHi its paired 95% interval and P the paired
	// test's p-value; all nil when the task was not measured in both runs.
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Delta     *float64 `json:"delta"`
	CILo      *float64 `json:"delta_ci_lo"`
	CIHi      *float64 `json:"delta_ci_hi"`
	P         *float64 `json:"p"`
	Test      string   `json:"test,omitempty"`
	Pass      bool     `json:"pass"`
	Reasons   []string `json:"reasons,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// Options configure Gate.
type Options struct {
	// Seed makes the paired bootstrap deterministic.
	Seed uint64
	// AllowUnlike gates runs that differ in what decides scores
	// (compare.Unlike) instead of refusing them: the gate then fails, and
	// says why.
	AllowUnlike bool
}

// GateResult is the whole verdict.
type GateResult struct {
	Pass  bool          `json:"pass"`
	Tasks []TaskVerdict `json:"tasks"`
	// Unlike lists how the runs differ in what decides scores (only with
	// Options.AllowUnlike); such a gate fails.
	Unlike []string `json:"unlike,omitempty"`
	// LimitBaseline and LimitCandidate are the runs' --limit (0: every
	// sample); a limited run's numbers are not the benchmark's.
	LimitBaseline  int `json:"limit_baseline"`
	LimitCandidate int `json:"limit_candidate"`
	// Suite names the suite whose average is reported (when the policy
	// has a suite or a floor); Average is the candidate's suite average
	// as `pocketeval suite` computes it, nil when undefined, and
	// AvgMissing says which tasks make it so.
	Suite      string   `json:"suite,omitempty"`
	Average    *float64 `json:"suite_average"`
	AvgMissing []string `json:"suite_average_missing,omitempty"`
	AvgFloor   *float64 `json:"suite_average_floor"`
	Failures   []string `json:"failures"`
	Alpha      float64  `json:"alpha"`
	Baseline   string   `json:"baseline"`
	Candidate  string   `json:"candidate"`
	// Budgets are the policy's on-device budgets (AddBudgets).
	Budgets []BudgetVerdict `json:"budgets,omitempty"`
	// Warnings say what the gate compared but should not be trusted for a
	// release: code tasks judged with official verdicts when the policy
	// does not require isolated ones.
	Warnings []string `json:"warnings,omitempty"`
}

// Gate applies the policy to candidate vs baseline. Scores, minimum
// scores and the suite average are SuiteAverage's numbers (each task's
// headline metric), the ones `suite` and `leaderboard` show; whether a drop
// is significant comes from the paired test over per-sample values of the
// primary metric (Compare). A required task (require_tasks, or a task with
// its own rule) that either run lacks, or in which the candidate scored
// nothing, fails with its own verdict and reason.
func Gate(baseline, candidate *rundir.Run, p *Policy, o Options) (*GateResult, error) {
	seed := o.Seed
	g := &GateResult{Pass: true, Alpha: p.Alpha, Baseline: baseline.Dir, Candidate: candidate.Dir, AvgFloor: p.SuiteAverageFloor, Failures: []string{},
		LimitBaseline: baseline.Manifest.Config.Limit, LimitCandidate: candidate.Manifest.Config.Limit}
	cmp, err := compare.Runs(baseline, candidate, compare.Options{Alpha: p.Alpha, Seed: seed, AllowUnlike: o.AllowUnlike})
	var none *compare.NothingToCompareError
	switch {
	case errors.As(err, &none):
		cmp = &compare.Comparison{Alpha: p.Alpha, Unlike: compare.Unlike(baseline, candidate)}
	case err != nil:
		return nil, err
	}
	if len(cmp.Unlike) > 0 {
		g.Unlike = cmp.Unlike
		g.Pass = false
		g.Failures = append(g.Failures, "the runs are unlike (--allow-unlike): "+strings.Join(cmp.Unlike, "; "))
	}
	entries := make([]suite.Entry, len(cmp.Tasks))
	for i, tc := range cmp.Tasks {
		entries[i] = suite.Entry{Task: tc.Task}
	}
	base, _, err := rundir.SuiteAverage(baseline, entries, rundir.AverageOptions{})
	if err != nil {
		return nil, err
	}
	cand, _, err := rundir.SuiteAverage(candidate, entries, rundir.AverageOptions{})
	if err != nil {
		return nil, err
	}
	failOnErrors := p.FailOnErrors == nil || *p.FailOnErrors
	for i, tc := range cmp.Tasks {
		v := verdict(tc, base[i], cand[i], p)
		checkDecision(&v, candidate.Summary.Tasks[tc.Task], p.Tasks[tc.Task])
		if ts := candidate.Summary.Tasks[tc.Task]; failOnErrors && ts.Errors > 0 {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("%d samples failed in the candidate run; first: %s", ts.Errors, ts.FirstError))
		}
		g.warnOfficialVerdicts(tc.Task, p, baseline, candidate)
		if want := p.CodeVerdictMode; want != "" {
			for _, r := range []struct {
				name string
				run  *rundir.Run
			}{{"baseline", baseline}, {"candidate", candidate}} {
				if got, ok := codeVerdictMode(r.run, tc.Task); ok && got != want {
					v.Pass = false
					v.Reasons = append(v.Reasons, fmt.Sprintf("the %s run judged it with %s verdicts; the policy requires %s", r.name, got, want))
				}
			}
		}
		g.add(v)
	}
	for _, t := range p.required() {
		if !g.has(t) {
			g.add(unmeasured(t, baseline, candidate))
		}
	}
	if p.suite != nil {
		rep, err := rundir.SuiteOf(candidate, p.suite, 0, seed)
		if err != nil {
			return nil, err
		}
		g.Suite, g.Average, g.AvgMissing = p.suite.Name, rep.Average, rep.Missing
		g.checkFloor(p.SuiteAverageFloor)
	}
	return g, nil
}

// unmeasured is the failing verdict of a required task that was not
// measured in both runs, with the reason.
func unmeasured(task string, baseline, candidate *rundir.Run) TaskVerdict {
	v := TaskVerdict{Task: task, Status: "missing"}
	var why []string
	for _, side := range []struct {
		name string
		r    *rundir.Run
	}{{"baseline", baseline}, {"candidate", candidate}} {
		ts, ok := side.r.Summary.Tasks[task]
		switch {
		case !ok:
			why = append(why, "missing from the "+side.name+" run")
		case ts.Scored == 0 && ts.Errors > 0:
			why = append(why, fmt.Sprintf("failed in the %s run: all %d samples failed; first: %s", side.name, ts.Errors, ts.FirstError))
		case ts.Scored == 0:
			why = append(why, "no scored samples in the "+side.name+" run")
		}
		if side.name == "candidate" && ok {
			v.Status, v.Metric = ts.Status(), ts.Headline()
		}
	}
	v.Reasons = []string{"required by the policy but " + strings.Join(why, "; ")}
	return v
}

// required lists the tasks the policy names (require_tasks and the tasks
// with their own rule), sorted and without repeats.
func (p *Policy) required() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range p.RequireTasks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for t := range p.Tasks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// add records a task's verdict; a failed one fails the gate.
func (g *GateResult) add(v TaskVerdict) {
	if !v.Pass {
		g.Pass = false
		g.Failures = append(g.Failures, v.Task+": "+strings.Join(v.Reasons, "; "))
	}
	g.Tasks = append(g.Tasks, v)
}

func (g *GateResult) has(task string) bool {
	for _, v := range g.Tasks {
		if v.Task == task {
			return true
		}
	}
	return false
}

// checkFloor applies the suite-average floor, if any: an average below it,
// or no average at all (a task missing or not complete), fails the gate.
func (g *GateResult) checkFloor(floor *float64) {
	switch {
	case floor == nil:
	case g.Average == nil:
		g.Pass = false
		g.Failures = append(g.Failures, fmt.Sprintf("suite average (%s) is n/a, so the floor %.2f cannot be met; not complete: %s", g.Suite, *floor, strings.Join(g.AvgMissing, "; ")))
	case *g.Average < *floor:
		g.Pass = false
		g.Failures = append(g.Failures, fmt.Sprintf("suite average (%s) %.2f is below the floor %.2f", g.Suite, *g.Average, *floor))
	}
}

// warnOfficialVerdicts warns when a code task of either run was judged
// with official verdicts and the policy does not require isolated ones:
// the official harness's one-process rule passes forged results
// (unittest.mock.ANY, objects with a forged __eq__, subclassed
// containers ...), so such a gate can be gamed (docs/sandbox.md, "Verdict
// modes").
func (g *GateResult) warnOfficialVerdicts(task string, p *Policy, runs ...*rundir.Run) {
	if p.CodeVerdictMode == "isolated" {
		return
	}
	for _, r := range runs {
		if mode, ok := codeVerdictMode(r, task); ok && mode == "official" {
			g.Warnings = append(g.Warnings, fmt.Sprintf("%s: compared with official verdicts, which pass forged results; "+
				"a release gate should set code_verdict_mode: isolated and run code tasks with --verdict-mode isolated", task))
			return
		}
	}
}

// codeVerdictMode is the verdict mode a run judged a code task in, from
// the "code:<task>" record of its manifest; ok is false for other tasks.
// Runs made before the mode was recorded used the official one.
func codeVerdictMode(r *rundir.Run, task string) (mode string, ok bool) {
	rec, ok := r.Manifest.Environment["code:"+task].(map[string]any)
	if !ok {
		return "", false
	}
	if vm, _ := rec["verdict_mode"].(map[string]any); vm != nil {
		if m, _ := vm["mode"].(string); m != "" {
			return m, true
		}
	}
	return "official", true
}

// verdict applies the policy's rule for one task: base and cand are the
// two runs' scores, tc the paired comparison.
func verdict(tc compare.TaskComparison, base, cand rundir.SuiteRow, p *Policy) TaskVerdict {
	v := TaskVerdict{Task: tc.Task, Metric: cand.Metric, Status: cand.Status, Test: tc.Test, Pass: true}
	if base.Score == nil || cand.Score == nil {
		v.Pass = false
		v.Reasons = append(v.Reasons, "no scored samples in the baseline or candidate run")
		return v
	}
	delta := *cand.Score - *base.Score
	v.Baseline, v.Candidate, v.Delta = base.Score, cand.Score, &delta
	if tc.Tested() {
		lo, hi, pv := 100*tc.Lo, 100*tc.Hi, tc.P
		v.CILo, v.CIHi, v.P = &lo, &hi, &pv
		switch {
		case tc.Basis != "":
			v.Notes = append(v.Notes, "interval and p from the paired test on "+tc.Basis)
		case cand.Metric != tc.Metric:
			v.Notes = append(v.Notes, fmt.Sprintf("interval and p from the paired test on per-sample %s", tc.Metric))
		}
	} else {
		v.Notes = append(v.Notes, "no paired test: "+tc.NoTest)
	}
	maxDrop, minScore, requireSig := p.rule(tc.Task)
	if minScore != nil && *cand.Score < *minScore {
		v.Pass = false
		v.Reasons = append(v.Reasons, fmt.Sprintf("score %.2f is below the minimum %.2f", *cand.Score, *minScore))
	}
	if rel := p.minRelative(tc.Task); rel != nil && *base.Score > 0 && 100**cand.Score / *base.Score < *rel {
		v.Pass = false
		v.Reasons = append(v.Reasons, fmt.Sprintf("score %.2f is %.2f%% of the baseline's %.2f, below the required %.2f%%", *cand.Score, 100**cand.Score / *base.Score, *base.Score, *rel))
	}
	if maxDrop != nil && -delta > *maxDrop {
		if !tc.Tested() {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("drop of %.2f points exceeds the allowed %.2f and cannot be tested (%s): failing closed", -delta, *maxDrop, tc.NoTest))
		} else if requireSig && !tc.Significant {
			v.Notes = append(v.Notes, fmt.Sprintf("drop of %.2f points exceeds %.2f but is not significant (p=%.3g ≥ %g): allowed", -delta, *maxDrop, tc.P, p.Alpha))
		} else {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("drop of %.2f points exceeds the allowed %.2f (p=%.3g)", -delta, *maxDrop, tc.P))
		}
	}
	return v
}

// JUnit renders the verdict as JUnit XML: one test case per task.
func (g *GateResult) JUnit() ([]byte, error) {
	type failure = junit.Failure
	type testcase = junit.Case
	var cases []testcase
	if len(g.Unlike) > 0 {
		out := "the runs differ in what decides scores: " + strings.Join(g.Unlike, "; ")
		cases = append(cases, testcase{Name: "comparable_runs", Classname: "pocketeval.gate", SystemOut: out,
			Failure: &failure{Message: "unlike runs (compared with --allow-unlike)", Text: out}})
	}
	limit := g.limitNote()
	for _, v := range g.Tasks {
		tc := testcase{Name: v.Task, Classname: "pocketeval.gate", SystemOut: v.summary()}
		if limit != "" {
			tc.SystemOut += " [" + limit + "]"
		}
		if !v.Pass {
			tc.Failure = &failure{Message: strings.Join(v.Reasons, "; "), Text: tc.SystemOut}
		}
		cases = append(cases, tc)
	}
	if g.AvgFloor != nil {
		tc := testcase{Name: "suite_average", Classname: "pocketeval.gate"}
		switch {
		case g.Average == nil:
			tc.SystemOut = fmt.Sprintf("suite %s: average n/a, floor %.2f; not complete: %s", g.Suite, *g.AvgFloor, strings.Join(g.AvgMissing, "; "))
			tc.Failure = &failure{Message: "suite average is n/a: some of the suite's tasks are missing or not complete", Text: tc.SystemOut}
		default:
			tc.SystemOut = fmt.Sprintf("suite %s: average %.2f, floor %.2f", g.Suite, *g.Average, *g.AvgFloor)
			if *g.Average < *g.AvgFloor {
				tc.Failure = &failure{Message: "suite average below floor", Text: tc.SystemOut}
			}
		}
		cases = append(cases, tc)
	}
	for _, v := range g.Budgets {
		name, out, fail := v.junit()
		tc := testcase{Name: name, Classname: "pocketeval.gate.budgets", SystemOut: out}
		if fail != "" {
			tc.Failure = &failure{Message: fail, Text: out}
		}
		cases = append(cases, tc)
	}
	return junit.Marshal("pocketeval gate", cases)
}

// Markdown renders the verdict for a CI step summary.
func (g *GateResult) Markdown() string {
	var b strings.Builder
	if g.Pass {
		b.WriteString("## ✅ pocketeval gate: pass\n\n")
	} else {
		b.WriteString("## ❌ pocketeval gate: regression\n\n")
	}
	b.WriteString("| task | metric | baseline | candidate | Δ (points) | 95% CI of Δ | p | verdict |\n|---|---|---:|---:|---:|---|---:|---|\n")
	for _, v := range g.Tasks {
		verdict := "pass"
		if !v.Pass {
			verdict = "**FAIL**: " + strings.Join(v.Reasons, "; ")
		} else if len(v.Notes) > 0 {
			verdict = "pass (" + strings.Join(v.Notes, "; ") + ")"
		}
		if v.Delta == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | – | – | – | %s |\n", v.Task, v.Metric, scoreOr(v.Baseline, "–"), scoreOr(v.Candidate, v.Status), verdict)
			continue
		}
		if v.P == nil {
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f | %+.2f | no test | – | %s |\n",
				v.Task, v.Metric, *v.Baseline, *v.Candidate, *v.Delta, verdict)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %s | %s |\n",
			v.Task, v.Metric, *v.Baseline, *v.Candidate, *v.Delta, *v.CILo, *v.CIHi, fmtP(*v.P), verdict)
	}
	b.WriteString(g.budgetRows())
	switch {
	case g.Suite == "":
	case g.Average != nil:
		fmt.Fprintf(&b, "\nSuite average (%s, candidate): **%.2f**", g.Suite, *g.Average)
		if g.AvgFloor != nil {
			fmt.Fprintf(&b, " (floor %.2f)", *g.AvgFloor)
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(&b, "\nSuite average (%s, candidate): **n/a** — every task of the suite must be present and complete; not complete: %s\n", g.Suite, strings.Join(g.AvgMissing, "; "))
	}
	if len(g.Unlike) > 0 {
		fmt.Fprintf(&b, "\n**Unlike runs** (compared with --allow-unlike, so the gate fails): %s\n", strings.Join(g.Unlike, "; "))
	}
	if l := g.limitNote(); l != "" {
		fmt.Fprintf(&b, "\n%s\n", l)
	}
	fmt.Fprintf(&b, "\nSignificance level α = %g; paired tests: exact McNemar for pass/fail metrics, paired bootstrap otherwise.\n", g.Alpha)
	return b.String()
}

// limitNote marks a limited run ("" when neither run is limited).
func (g *GateResult) limitNote() string {
	if g.LimitBaseline == 0 && g.LimitCandidate == 0 {
		return ""
	}
	return fmt.Sprintf("Limited run (--limit: baseline %s, candidate %s): the first samples of each task only, not the benchmark's numbers", limitText(g.LimitBaseline), limitText(g.LimitCandidate))
}

func limitText(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// summary is the verdict's numbers in one line (JUnit system-out).
func (v TaskVerdict) summary() string {
	if v.Delta != nil && v.P == nil {
		return fmt.Sprintf("%s: baseline %.2f, candidate %.2f, delta %+.2f, no paired test %s", v.Metric, *v.Baseline, *v.Candidate, *v.Delta, strings.Join(v.Notes, "; "))
	}
	if v.Delta == nil {
		return fmt.Sprintf("%s: %s (baseline %s, candidate %s)", v.Metric, v.Status, scoreOr(v.Baseline, "–"), scoreOr(v.Candidate, "–"))
	}
	return fmt.Sprintf("%s: baseline %.2f, candidate %.2f, delta %+.2f [%.2f, %.2f], p=%.3g (%s) %s",
		v.Metric, *v.Baseline, *v.Candidate, *v.Delta, *v.CILo, *v.CIHi, *v.P, v.Test, strings.Join(v.Notes, "; "))
}

// scoreOr formats a score, or says why there is none.
func scoreOr(x *float64, none string) string {
	if x == nil {
		return none
	}
	return fmt.Sprintf("%.2f", *x)
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
