package gate

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/internal/yamlwalk"

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
	root, err := yamlwalk.Root(data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	pp := policyParser{yamlwalk.Walker{Doc: "policy", File: file}}
	p := &Policy{Alpha: 0.05, File: file}
	if root == nil || root.Kind == yaml.ScalarNode && root.Tag == "!!null" { // empty file
		return p, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, pp.Errorf(root, "", "a policy is a mapping of fields")
	}
	err = pp.Mapping(root, "", func(key string, k, v *yaml.Node) error {
		read, ok := policyKeys[key]
		if !ok {
			return pp.Errorf(k, "", "unknown field %q", key)
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
		a, err := pp.Float(v, key)
		if err != nil {
			return err
		}
		if !(a > 0 && a < 1) {
			return pp.Errorf(v, key, "must be in (0,1), got %v", a)
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
		if tag := yamlwalk.Resolve(v).Tag; tag == "!!null" {
			return nil
		}
		p.Tasks = map[string]Rule{}
		return pp.Mapping(v, key, func(task string, tk, tv *yaml.Node) error {
			r, err := pp.rule(tv, key+"."+task)
			p.Tasks[task] = r
			p.taskAt(task, key+"."+task, tk.Line)
			return err
		})
	},
	"suite": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if err := v.Decode(&p.Suite); err != nil || p.Suite == "" {
			return pp.Errorf(v, key, "must be a suite name or a suite file")
		}
		return nil
	},
	"suite_average_floor": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		return yamlwalk.Set(&p.SuiteAverageFloor, pp.score, v, key)
	},
	"fail_on_errors": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		return yamlwalk.Set(&p.FailOnErrors, pp.Bool, v, key)
	},
	"require_tasks": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if err := v.Decode(&p.RequireTasks); err != nil {
			return pp.Errorf(v, key, "must be a list of task names")
		}
		for i, n := range yamlwalk.Resolve(v).Content {
			if i < len(p.RequireTasks) {
				p.taskAt(p.RequireTasks[i], key, yamlwalk.Resolve(n).Line)
			}
		}
		return nil
	},
	"code_verdict_mode": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		if err := v.Decode(&p.CodeVerdictMode); err != nil || p.CodeVerdictMode != "official" && p.CodeVerdictMode != "isolated" {
			return pp.Errorf(v, key, "want official or isolated, got %q", yamlwalk.Resolve(v).Value)
		}
		return nil
	},
	"budgets": func(pp policyParser, p *Policy, v *yaml.Node, key string) error {
		return pp.budgets(p, v, key)
	},
}

// policyParser turns YAML nodes into a Policy, naming the file, line and
// field of what is wrong (the walking is yamlwalk's; the schema is here).
type policyParser struct {
	yamlwalk.Walker
}

// budgets reads the on-device budgets: known keys, each once (the
// values are checked by Budgets.validate).
func (pp policyParser) budgets(p *Policy, v *yaml.Node, field string) error {
	if yamlwalk.Resolve(v).Tag == "!!null" {
		return nil
	}
	known := map[string]bool{"bench_test": true}
	for _, l := range (&Budgets{}).limits() {
		known[l.name] = true
	}
	if err := pp.Mapping(v, field, func(key string, k, _ *yaml.Node) error {
		if !known[key] {
			return pp.Errorf(k, field, "unknown field %q", key)
		}
		return nil
	}); err != nil {
		return err
	}
	p.Budgets = &Budgets{}
	if err := yamlwalk.Resolve(v).Decode(p.Budgets); err != nil {
		return pp.Errorf(v, field, "%v", err)
	}
	return nil
}

// rule reads one task's (or the defaults') rule.
func (pp policyParser) rule(n *yaml.Node, field string) (Rule, error) {
	var r Rule
	if yamlwalk.Resolve(n).Tag == "!!null" {
		return r, nil
	}
	err := pp.Mapping(n, field, func(key string, k, v *yaml.Node) error {
		name := field + "." + key
		switch key {
		case "max_drop":
			x, err := pp.Float(v, name)
			if err != nil {
				return err
			}
			if !(x >= 0) || math.IsInf(x, 0) {
				return pp.Errorf(v, name, "must be a number >= 0, got %v", x)
			}
			r.MaxDrop = &x
		case "min_score":
			return yamlwalk.Set(&r.MinScore, pp.score, v, name)
		case "require_significance":
			return yamlwalk.Set(&r.RequireSignificance, pp.Bool, v, name)
		case "min_relative_score":
			x, err := pp.Float(v, name)
			if err != nil {
				return err
			}
			if !(x >= 0) || math.IsInf(x, 0) {
				return pp.Errorf(v, name, "must be a percentage >= 0, got %v", x)
			}
			r.MinRelativeScore = &x
		case "min_coverage_at_error", "max_ece":
			if field == "defaults" {
				return pp.Errorf(k, name, "a decision task's key: give it in the task's own rule (tasks: {%s: ...})", "<task>")
			}
			if key == "max_ece" {
				return yamlwalk.Set(&r.MaxECE, pp.score, v, name)
			}
			return yamlwalk.Set(&r.MinCoverageAtError, pp.score, v, name)
		default:
			return pp.Errorf(k, field, "unknown field %q (a rule has max_drop, min_score, min_relative_score, require_significance, and for decision tasks min_coverage_at_error, max_ece)", key)
		}
		return nil
	})
	return r, err
}

// score reads a score ×100: a number in [0,100].
func (pp policyParser) score(n *yaml.Node, field string) (float64, error) {
	x, err := pp.Float(n, field)
	if err == nil && !(x >= 0 && x <= 100) {
		err = pp.Errorf(yamlwalk.Resolve(n), field, "must be in [0,100] (scores are ×100), got %v", x)
	}
	return x, err
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
