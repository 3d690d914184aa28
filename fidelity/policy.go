package fidelity

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/internal/junit"
)

// Policy gates a candidate against its reference, with thresholds
// relative to the reference as MLPerf Client sets them ("at least x% of
// the native-precision model"). Nil fields are not checked.
type Policy struct {
	// Token level (Compare): the mean KL divergence and its 99th
	// percentile in nats, top-1 agreement in percent, and the
	// candidate's perplexity above the reference's in percent.
	MaxKLMean         *float64
	MaxKLP99          *float64
	MinTop1Agreement  *float64
	MaxPPLIncreasePct *float64
	// Answer level (Flips): the candidate's score as a percentage of the
	// reference's, for every task (MinRelativeScore), for one task
	// (Tasks), and for the mean of the tasks' scores (Suite).
	MinRelativeScore      *float64
	Tasks                 map[string]float64
	SuiteMinRelativeScore *float64

	// order is each key's position in the file ("tasks.NAME" for a
	// task's own threshold), the order Sort puts the checks in.
	order map[string]int
}

// NeedsTokens and NeedsAnswers say which comparisons the policy reads.
func (p *Policy) NeedsTokens() bool {
	return p.MaxKLMean != nil || p.MaxKLP99 != nil || p.MinTop1Agreement != nil || p.MaxPPLIncreasePct != nil
}

func (p *Policy) NeedsAnswers() bool {
	return p.MinRelativeScore != nil || len(p.Tasks) > 0 || p.SuiteMinRelativeScore != nil
}

// ReadPolicy reads a policy file.
func ReadPolicy(path string) (*Policy, error) {
	b, err := regfile.ReadFile(path, regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	return ParsePolicy(path, b)
}

// ParsePolicy parses a policy: a YAML mapping of the keys max_kl_mean,
// max_kl_p99 (>= 0), min_top1_agreement (percent, in [0,100]),
// max_ppl_increase_pct (any finite number), min_relative_score and
// suite_min_relative_score (percent of the reference's score, >= 0) and
// tasks (task: {min_relative_score: x}). Every problem names the file,
// line and field.
func ParsePolicy(file string, data []byte) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	p := &Policy{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("policy %s: empty: set at least one key", file)
	}
	root := doc.Content[0]
	errf := func(n *yaml.Node, field, format string, args ...any) error {
		return fmt.Errorf("policy %s: line %d: %s: %s", file, n.Line, field, fmt.Sprintf(format, args...))
	}
	if root.Kind != yaml.MappingNode {
		return nil, errf(root, "(top)", "want a mapping of policy keys")
	}
	num := func(n *yaml.Node, field string, lo, hi float64) (*float64, error) {
		var v float64
		if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errf(n, field, "want a finite number, got %q", n.Value)
		}
		if v < lo || v > hi {
			return nil, errf(n, field, "%v outside [%v, %v]", v, lo, hi)
		}
		return &v, nil
	}
	seen := map[string]bool{}
	p.order = map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return nil, errf(k, k.Value, "set twice")
		}
		seen[k.Value] = true
		p.order[k.Value] = len(p.order)
		var err error
		inf := math.Inf(1)
		switch k.Value {
		case "max_kl_mean":
			p.MaxKLMean, err = num(v, k.Value, 0, inf)
		case "max_kl_p99":
			p.MaxKLP99, err = num(v, k.Value, 0, inf)
		case "min_top1_agreement":
			p.MinTop1Agreement, err = num(v, k.Value, 0, 100)
		case "max_ppl_increase_pct":
			p.MaxPPLIncreasePct, err = num(v, k.Value, math.Inf(-1), inf)
		case "min_relative_score":
			p.MinRelativeScore, err = num(v, k.Value, 0, inf)
		case "suite_min_relative_score":
			p.SuiteMinRelativeScore, err = num(v, k.Value, 0, inf)
		case "tasks":
			if v.Kind != yaml.MappingNode {
				return nil, errf(v, "tasks", "want a mapping of task: {min_relative_score: x}")
			}
			p.Tasks = map[string]float64{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				tk, tv := v.Content[j], v.Content[j+1]
				field := "tasks." + tk.Value
				if _, dup := p.Tasks[tk.Value]; dup {
					return nil, errf(tk, field, "listed twice")
				}
				if tv.Kind != yaml.MappingNode || len(tv.Content) != 2 || tv.Content[0].Value != "min_relative_score" {
					return nil, errf(tv, field, "want {min_relative_score: x}")
				}
				x, err := num(tv.Content[1], field+".min_relative_score", 0, inf)
				if err != nil {
					return nil, err
				}
				p.Tasks[tk.Value] = *x
				p.order[field] = len(p.order)
			}
		default:
			return nil, errf(k, k.Value, "unknown field (known: max_kl_mean, max_kl_p99, min_top1_agreement, max_ppl_increase_pct, min_relative_score, suite_min_relative_score, tasks)")
		}
		if err != nil {
			return nil, err
		}
	}
	if !p.NeedsTokens() && !p.NeedsAnswers() {
		return nil, fmt.Errorf("policy %s: sets no threshold", file)
	}
	return p, nil
}

// Case is one checked policy key: one JUnit test case.
type Case struct {
	Name  string  `json:"name"`
	Pass  bool    `json:"pass"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	// Detail says what was compared, with its interval where there is one.
	Detail string `json:"detail"`
}

// CheckTokens checks the token-level keys against a report.
func (p *Policy) CheckTokens(r *TokenReport) []Case {
	var out []Case
	upper := func(name string, limit *float64, x Interval, unit string) {
		if limit != nil {
			out = append(out, Case{Name: name, Pass: x.Value <= *limit, Value: x.Value, Limit: *limit,
				Detail: fmt.Sprintf("%.6g%s (95%% CI %.6g to %.6g) against at most %.6g%s", x.Value, unit, x.Lo, x.Hi, *limit, unit)})
		}
	}
	upper("max_kl_mean", p.MaxKLMean, r.KLMean, " nats")
	upper("max_kl_p99", p.MaxKLP99, r.KLP99, " nats")
	upper("max_ppl_increase_pct", p.MaxPPLIncreasePct, r.PPLIncreasePct, "%")
	if p.MinTop1Agreement != nil {
		x := 100 * r.Top1.Value
		out = append(out, Case{Name: "min_top1_agreement", Pass: x >= *p.MinTop1Agreement, Value: x, Limit: *p.MinTop1Agreement,
			Detail: fmt.Sprintf("%.3f%% (95%% CI %.3f%% to %.3f%%) of %d positions against at least %.3g%%", x, 100*r.Top1.Lo, 100*r.Top1.Hi, r.Positions, *p.MinTop1Agreement)})
	}
	return out
}

// CheckAnswers checks the answer-level keys against Flips' tasks. A task
// the policy names that the runs do not share fails.
func (p *Policy) CheckAnswers(tasks []TaskFlips) []Case {
	var out []Case
	byName := map[string]TaskFlips{}
	for _, t := range tasks {
		byName[t.Task] = t
	}
	rel := func(t TaskFlips) (float64, bool) {
		if t.RefScore == 0 {
			return 0, false
		}
		return 100 * t.CandScore / t.RefScore, true
	}
	check := func(name string, t TaskFlips, limit float64) {
		c := Case{Name: name, Limit: limit}
		v, ok := rel(t)
		switch {
		case !ok:
			c.Detail = fmt.Sprintf("%s: the reference scored 0 (candidate %.2f): no relative score", t.Task, 100*t.CandScore)
			c.Pass = true // nothing to lose
		default:
			c.Value, c.Pass = v, v >= limit
			c.Detail = fmt.Sprintf("%s %s: candidate %.2f = %.2f%% of the reference's %.2f (at least %.3g%%); %d right→wrong, %d wrong→right, p=%.3g (%s)",
				t.Task, t.Metric, 100*t.CandScore, v, 100*t.RefScore, limit, t.RightToWrong, t.WrongToRight, t.Paired.P, t.Paired.Test)
		}
		out = append(out, c)
	}
	names := make([]string, 0, len(p.Tasks))
	for n := range p.Tasks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, t := range tasks {
		if _, own := p.Tasks[t.Task]; !own && p.MinRelativeScore != nil {
			check("min_relative_score:"+t.Task, t, *p.MinRelativeScore)
		}
	}
	for _, n := range names {
		t, ok := byName[n]
		if !ok {
			out = append(out, Case{Name: "min_relative_score:" + n, Limit: p.Tasks[n], Detail: n + ": not in both runs"})
			continue
		}
		check("min_relative_score:"+n, t, p.Tasks[n])
	}
	if p.SuiteMinRelativeScore != nil {
		var ref, cand float64
		for _, t := range tasks {
			ref += t.RefScore
			cand += t.CandScore
		}
		c := Case{Name: "suite_min_relative_score", Limit: *p.SuiteMinRelativeScore}
		if ref > 0 {
			c.Value = 100 * cand / ref
			c.Pass = c.Value >= c.Limit
			c.Detail = fmt.Sprintf("mean over %d tasks: candidate %.2f = %.2f%% of the reference's %.2f (at least %.3g%%)",
				len(tasks), 100*cand/float64(len(tasks)), c.Value, 100*ref/float64(len(tasks)), c.Limit)
		} else {
			c.Detail = "the reference scored 0 on every task: no relative score"
		}
		out = append(out, c)
	}
	return out
}

// Sort puts checks in the order of their keys in the policy file (a
// task's own threshold where its tasks entry stands; min_relative_score's
// checks of the runs' tasks where that key stands, in the runs' order), so
// the report reads as the policy does. Checks of keys the policy did not
// parse (a hand-built Policy) keep their order, last.
func (p *Policy) Sort(cases []Case) {
	pos := func(c Case) int {
		name := c.Name
		if task, ok := strings.CutPrefix(name, "min_relative_score:"); ok {
			if _, own := p.Tasks[task]; own {
				name = "tasks." + task
			} else {
				name = "min_relative_score"
			}
		}
		if i, ok := p.order[name]; ok {
			return i
		}
		return len(p.order)
	}
	sort.SliceStable(cases, func(i, j int) bool { return pos(cases[i]) < pos(cases[j]) })
}

// JUnit renders cases as JUnit XML, one test case per policy key.
func JUnit(cases []Case) ([]byte, error) {
	out := make([]junit.Case, 0, len(cases))
	for _, c := range cases {
		tc := junit.Case{Name: c.Name, Classname: "pocketeval.fidelity", SystemOut: c.Detail}
		if !c.Pass {
			tc.Failure = &junit.Failure{Message: strings.SplitN(c.Detail, ";", 2)[0], Text: c.Detail}
		}
		out = append(out, tc)
	}
	return junit.Marshal("pocketeval fidelity gate", out)
}
