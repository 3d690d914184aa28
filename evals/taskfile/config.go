package taskfile

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/lmtemplate"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/scorers/choice"
)

// keyKind says what pocketeval does with a top-level key.
type keyKind int

const (
	keyUsed    keyKind = iota // read and applied
	keyIgnored                // accepted, has no effect on prompts or scores
	keyRefused                // rejected with an error naming the key
)

type keyRule struct {
	kind keyKind
	why  string // for refused and ignored keys
}

// Keys lists every top-level key pocketeval knows, with what it does.
// Keys not listed are refused as unknown.
var keys = map[string]keyRule{
	// lm-eval keys that are applied.
	"task": {}, "task_alias": {}, "tag": {}, "group": {},
	"dataset_path": {}, "dataset_name": {}, "dataset_kwargs": {},
	"training_split": {}, "validation_split": {}, "test_split": {}, "fewshot_split": {},
	"doc_to_text": {}, "doc_to_target": {}, "doc_to_choice": {}, "description": {},
	"target_delimiter": {}, "fewshot_delimiter": {}, "fewshot_config": {}, "num_fewshot": {},
	"output_type": {}, "generation_kwargs": {}, "filter_list": {}, "metric_list": {},
	"repeats": {}, "metadata": {},
	// pocketeval's own keys.
	"dataset_sha256": {}, "answer_rule": {}, "decision": {},
	// lm-eval keys without effect here.
	"should_decontaminate":         {keyIgnored, "decontamination is not run"},
	"doc_to_decontamination_query": {keyIgnored, "decontamination is not run"},
	// lm-eval keys that are refused.
	"process_docs":          {keyRefused, "a Python hook that rewrites documents"},
	"process_results":       {keyRefused, "a Python hook that scores results (only the native hooks run, see hooks.go)"},
	"custom_dataset":        {keyRefused, "a Python hook that builds the dataset"},
	"use_prompt":            {keyRefused, "promptsource templates"},
	"doc_to_image":          {keyRefused, "multimodal input"},
	"doc_to_audio":          {keyRefused, "multimodal input"},
	"gen_prefix":            {keyRefused, "assistant-prefilled prompts"},
	"class":                 {keyRefused, "a Python task class"},
	"unsafe_code":           {keyRefused, "tasks that execute model-written code (use the built-in code tasks)"},
	"task_list":             {keyRefused, "task lists"},
	"aggregate_metric_list": {keyRefused, "a group file's key (a group file has `group` and a `task` list)"},
	"group_alias":           {keyRefused, "a group file's key (a group file has `group` and a `task` list)"},
}

// SupportedKeys, IgnoredKeys and RefusedKeys list the top-level keys by
// what pocketeval does with them (for documentation and `pocketeval
// tasks`).
func SupportedKeys() []string { return keysOf(keyUsed) }

// IgnoredKeys are accepted without effect.
func IgnoredKeys() []string { return keysOf(keyIgnored) }

// RefusedKeys are rejected with an error naming the key.
func RefusedKeys() []string { return keysOf(keyRefused) }

func keysOf(k keyKind) []string {
	var out []string
	for name, r := range keys {
		if r.kind == k {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Output types.
const (
	GenerateUntil        = "generate_until"
	MultipleChoice       = "multiple_choice"
	Loglikelihood        = "loglikelihood"         // loglik.go
	LoglikelihoodRolling = "loglikelihood_rolling" // loglik.go
)

// Config is a decoded task file.
type Config struct {
	File    string
	Name    string
	Alias   string
	Tags    []string
	Version string

	Data DataConfig

	DocToText   docSpec
	DocToTarget docSpec
	// resultCounts is a native process_results hook of a
	// loglikelihood_rolling task (hooks.go): the word and byte counts.
	resultCounts func(doc pyvalue.Value) (words, bytes int, err error)
	DocToChoice  docSpec
	Description  string // template or field name; "" for none

	TargetDelimiter  string
	FewshotDelimiter string
	Fewshot          FewshotConfig
	NumFewshot       int
	numFewshotSet    bool // num_fewshot is written in the file
	OutputType       string
	Gen              GenConfig
	Filters          []FilterSet
	Metrics          []MetricSpec
	// AnswerRule extracts the option of a multiple_choice response in gen
	// mode (answer_rule; pocketeval's rule when the file names none).
	AnswerRule choice.Rule
	Ignored    []string // ignored keys present in the file
	// Decision is the decision block (nil for none): a multiple_choice
	// task evaluated for selective prediction (decision.go).
	Decision *DecisionConfig

	descTmpl *lmtemplate.Template
	lim      jinja.Limits // every template of the file renders under these
}

// DataConfig says where the documents come from.
type DataConfig struct {
	Path      string // dataset_path
	Name      string // dataset_name ("" for none)
	DataFiles map[string][]string
	Train     string
	Valid     string
	Test      string
	FewSplit  string
	SHA256    map[string]string // split (or "" for every file) → hex digest
	task      string            // the task name, for MissingDataError
	dir       string            // the task file's directory
	where     map[string]value  // for error positions
}

// FewshotConfig is lm-eval's fewshot_config with the task's values
// filled in where it has none.
type FewshotConfig struct {
	Sampler          string // "default" or "first_n"
	Split            string
	Samples          []pyvalue.Value
	Indices          []int
	DocToText        docSpec
	DocToTarget      docSpec
	DocToChoice      docSpec
	TargetDelimiter  string
	FewshotDelimiter string
}

// GenConfig is generation_kwargs.
type GenConfig struct {
	Until       []string
	MaxGenToks  int // 0: lm-eval's default (256)
	DoSample    bool
	Temperature float64
	TopP        float64
}

// docSpec is a doc_to_* value: a field name or template (string), an
// integer, or a literal list.
type docSpec struct {
	set   bool
	str   string
	tmpl  *lmtemplate.Template
	isInt bool
	i     int64
	list  []pyvalue.Value
	fn    func(doc pyvalue.Value) (pyvalue.Value, error) // a native `!function` hook
	pos   string                                         // "file:line" for errors
}

// decodeConfig decodes a task file; its templates render under lim.
func decodeConfig(file string, raw map[string]value, lim jinja.Limits) (*Config, error) {
	c := &Config{File: file, TargetDelimiter: " ", FewshotDelimiter: "\n\n", OutputType: GenerateUntil, lim: lim}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		rule, ok := keys[k]
		switch {
		case !ok:
			return nil, v.errorf(k, "unknown key: %w", ErrUnsupported)
		case rule.kind == keyRefused:
			if k == "unsafe_code" && v.node.Value == "false" {
				continue
			}
			if k == "process_results" && v.node.Tag == "!function" {
				h, err := nativeHook(v.file, k, v.node) // readYAML checked it
				if err != nil {
					return nil, err
				}
				c.resultCounts = h.counts
				continue
			}
			return nil, v.errorf(k, "%s: %w", rule.why, ErrUnsupported)
		case rule.kind == keyIgnored:
			c.Ignored = append(c.Ignored, k)
		}
	}
	if v, ok := raw["task"]; ok && v.node.Kind == yaml.SequenceNode {
		return nil, v.errorf("task", "a list of tasks: a group file (a `group` key and a `task` list) is not a task file; select it as a task group")
	}
	str := func(key string, dst *string) error {
		v, ok := raw[key]
		if !ok {
			return nil
		}
		if v.node.Kind != yaml.ScalarNode {
			return v.errorf(key, "want a string")
		}
		if pyNull.MatchString(v.node.Value) && v.node.Style == 0 {
			*dst = ""
			return nil
		}
		*dst = v.node.Value
		return nil
	}
	for key, dst := range map[string]*string{
		"task": &c.Name, "task_alias": &c.Alias, "dataset_path": &c.Data.Path, "dataset_name": &c.Data.Name,
		"training_split": &c.Data.Train, "validation_split": &c.Data.Valid, "test_split": &c.Data.Test,
		"fewshot_split": &c.Data.FewSplit, "target_delimiter": &c.TargetDelimiter,
		"fewshot_delimiter": &c.FewshotDelimiter, "output_type": &c.OutputType, "description": &c.Description,
	} {
		if err := str(key, dst); err != nil {
			return nil, err
		}
	}
	if c.Name == "" {
		return nil, &Error{File: file, Field: "task", Err: errors.New("missing: every task file names its task")}
	}
	if err := evals.CheckTaskName(c.Name); err != nil {
		return nil, raw["task"].wrap("task", err)
	}
	if c.Data.Path == "" {
		return nil, &Error{File: file, Field: "dataset_path", Err: errors.New("missing")}
	}
	switch c.OutputType {
	case GenerateUntil, MultipleChoice, Loglikelihood, LoglikelihoodRolling:
	default:
		v := raw["output_type"]
		return nil, v.errorf("output_type", "unknown output type %q (want generate_until, multiple_choice, loglikelihood or loglikelihood_rolling)", c.OutputType)
	}
	if c.resultCounts != nil && c.OutputType != LoglikelihoodRolling {
		v := raw["process_results"]
		return nil, v.errorf("process_results", "!function %s scores loglikelihood_rolling tasks, not %s: %w", v.node.Value, c.OutputType, ErrUnsupported)
	}
	for _, key := range []string{"tag", "group"} {
		if v, ok := raw[key]; ok {
			tags, err := stringList(v, key)
			if err != nil {
				return nil, err
			}
			c.Tags = append(c.Tags, tags...)
		}
	}
	c.Version = "1"
	if v, ok := raw["metadata"]; ok {
		if v.node.Kind != yaml.MappingNode {
			return nil, v.errorf("metadata", "want a mapping")
		}
		for i := 0; i+1 < len(v.node.Content); i += 2 {
			if v.node.Content[i].Value == "version" {
				c.Version = pyvalue.Str(scalarValue(v.node.Content[i+1]))
			}
		}
	}
	if v, ok := raw["num_fewshot"]; ok {
		x := scalarValue(v.node)
		if !x.IsInt() || x.AsInt() < 0 {
			return nil, v.errorf("num_fewshot", "want a non-negative integer")
		}
		c.NumFewshot = int(x.AsInt())
		c.numFewshotSet = true
	}
	if v, ok := raw["repeats"]; ok {
		if x := scalarValue(v.node); !x.IsInt() || x.AsInt() != 1 {
			return nil, v.errorf("repeats", "only 1 is supported (repeated sampling is a run setting, samples per task): %w", ErrUnsupported)
		}
	}
	var err error
	if c.DocToText, err = decodeDocSpec(raw, "doc_to_text", true, lim); err != nil {
		return nil, err
	}
	if c.DocToTarget, err = decodeDocSpec(raw, "doc_to_target", false, lim); err != nil {
		return nil, err
	}
	if c.DocToChoice, err = decodeDocSpec(raw, "doc_to_choice", false, lim); err != nil {
		return nil, err
	}
	if !c.DocToText.set {
		return nil, &Error{File: file, Field: "doc_to_text", Err: errors.New("missing")}
	}
	if !c.DocToTarget.set {
		return nil, &Error{File: file, Field: "doc_to_target", Err: errors.New("missing")}
	}
	if c.OutputType == MultipleChoice && !c.DocToChoice.set {
		return nil, &Error{File: file, Field: "doc_to_choice", Err: errors.New("missing: multiple_choice tasks list their choices")}
	}
	if c.Description != "" {
		if c.descTmpl, err = lmtemplate.Compile(c.Description, lim); err != nil {
			v := raw["description"]
			return nil, v.wrap("description", err)
		}
	}
	if err := decodeData(c, raw); err != nil {
		return nil, err
	}
	if err := decodeDecision(c, raw); err != nil {
		return nil, err
	}
	if err := decodeFewshot(c, raw); err != nil {
		return nil, err
	}
	if err := decodeGen(c, raw); err != nil {
		return nil, err
	}
	if c.Filters, err = decodeFilters(raw); err != nil {
		return nil, err
	}
	if c.AnswerRule, err = decodeAnswerRule(c, raw); err != nil {
		return nil, err
	}
	if c.Metrics, err = decodeMetrics(c, raw); err != nil {
		return nil, err
	}
	return c, nil
}

func stringList(v value, key string) ([]string, error) {
	switch v.node.Kind {
	case yaml.ScalarNode:
		return []string{v.node.Value}, nil
	case yaml.SequenceNode:
		var out []string
		for _, n := range v.node.Content {
			if n.Kind != yaml.ScalarNode {
				return nil, v.errorf(key, "want a string or a list of strings")
			}
			out = append(out, n.Value)
		}
		return out, nil
	}
	return nil, v.errorf(key, "want a string or a list of strings")
}

func decodeDocSpec(raw map[string]value, key string, textOnly bool, lim jinja.Limits) (docSpec, error) {
	v, ok := raw[key]
	if !ok {
		return docSpec{}, nil
	}
	return docSpecOf(v, key, textOnly, lim)
}

func docSpecOf(v value, key string, textOnly bool, lim jinja.Limits) (docSpec, error) {
	d := docSpec{set: true, pos: fmt.Sprintf("%s:%d", v.file, v.node.Line)}
	if v.node.Tag == "!function" {
		h, err := nativeHook(v.file, key, v.node)
		if err != nil {
			return d, err
		}
		d.fn = h.doc
		return d, nil
	}
	switch v.node.Kind {
	case yaml.ScalarNode:
		x := scalarValue(v.node)
		switch {
		case x.IsString():
			d.str = x.AsString()
			t, err := lmtemplate.Compile(d.str, lim)
			if err != nil {
				return d, v.wrap(key, err)
			}
			d.tmpl = t
		case x.IsInt():
			d.isInt, d.i = true, x.AsInt()
		case x.IsNone():
			d.set = false
		default:
			return d, v.errorf(key, "want a field name, a template or an integer, not %s", pyvalue.Repr(x))
		}
	case yaml.SequenceNode, yaml.MappingNode:
		if textOnly {
			return d, v.errorf(key, "want a field name or a template")
		}
		x, err := toValue(v.node)
		if err != nil {
			return d, v.wrap(key, err)
		}
		if x.IsDict() {
			// lm-eval takes a dict's values as the choices.
			var items []pyvalue.Value
			for _, k := range x.AsDict().OrderedKeys() {
				it, _ := x.AsDict().Get(k)
				items = append(items, it)
			}
			x = pyvalue.NewList(items)
		}
		d.list = x.AsList().Items
	default:
		return d, v.errorf(key, "unsupported value")
	}
	return d, nil
}

func decodeFewshot(c *Config, raw map[string]value) error {
	f := FewshotConfig{
		Sampler: "default", Split: c.Data.FewSplit,
		DocToText: c.DocToText, DocToTarget: c.DocToTarget, DocToChoice: c.DocToChoice,
		TargetDelimiter: c.TargetDelimiter, FewshotDelimiter: c.FewshotDelimiter,
	}
	if v, ok := raw["fewshot_config"]; ok {
		es, err := v.entries("fewshot_config")
		if err != nil {
			return err
		}
		for _, e := range es {
			k, n, sub, field := e.key, e.v.node, e.v, e.field
			var err error
			switch k {
			case "sampler":
				f.Sampler = n.Value
				if f.Sampler != "default" && f.Sampler != "first_n" {
					return sub.errorf(field, "sampler %q: %w (default and first_n are)", f.Sampler, ErrUnsupported)
				}
			case "split":
				f.Split = n.Value
			case "samples":
				if n.Kind != yaml.SequenceNode {
					return sub.errorf(field, "want a list of documents")
				}
				for _, s := range n.Content {
					doc, err := toValue(s)
					if err != nil || !doc.IsDict() {
						return sub.errorf(field, "each sample is a mapping of fields")
					}
					f.Samples = append(f.Samples, doc)
				}
			case "fewshot_indices":
				x, err := toValue(n)
				if err != nil || !x.IsList() {
					return sub.errorf(field, "want a list of integers")
				}
				for _, it := range x.AsList().Items {
					if !it.IsInt() {
						return sub.errorf(field, "want a list of integers")
					}
					f.Indices = append(f.Indices, int(it.AsInt()))
				}
			case "doc_to_text":
				f.DocToText, err = docSpecOf(sub, field, true, c.lim)
			case "doc_to_target":
				f.DocToTarget, err = docSpecOf(sub, field, false, c.lim)
			case "doc_to_choice":
				f.DocToChoice, err = docSpecOf(sub, field, false, c.lim)
			case "target_delimiter":
				f.TargetDelimiter = n.Value
			case "fewshot_delimiter":
				f.FewshotDelimiter = n.Value
			case "process_docs", "gen_prefix":
				return sub.errorf(field, "%w", ErrUnsupported)
			default:
				return sub.errorf(field, "unknown key: %w", ErrUnsupported)
			}
			if err != nil {
				return err
			}
		}
	}
	c.Fewshot = f
	return nil
}

func decodeGen(c *Config, raw map[string]value) error {
	g := GenConfig{Until: []string{c.FewshotDelimiter}}
	v, ok := raw["generation_kwargs"]
	if !ok {
		c.Gen = g
		return nil
	}
	es, err := v.entries("generation_kwargs")
	if err != nil {
		return err
	}
	for _, e := range es {
		k, n, sub, field := e.key, e.v.node, e.v, e.field
		x, err := toValue(n)
		if err != nil {
			return sub.wrap(field, err)
		}
		switch k {
		case "until":
			g.Until = nil
			switch {
			case x.IsString():
				g.Until = []string{x.AsString()}
			case x.IsList():
				for _, it := range x.AsList().Items {
					if !it.IsString() {
						return sub.errorf(field, "want strings")
					}
					g.Until = append(g.Until, it.AsString())
				}
			default:
				return sub.errorf(field, "want a string or a list of strings")
			}
		case "max_gen_toks":
			if !x.IsInt() || x.AsInt() <= 0 {
				return sub.errorf(field, "want a positive integer")
			}
			g.MaxGenToks = int(x.AsInt())
		case "do_sample":
			if !x.IsBool() {
				return sub.errorf(field, "want true or false")
			}
			g.DoSample = x.AsBool()
		case "temperature", "top_p":
			var f float64
			switch {
			case x.IsInt():
				f = float64(x.AsInt())
			case x.IsFloat():
				f = x.AsFloat()
			default:
				return sub.errorf(field, "want a number")
			}
			if k == "temperature" {
				g.Temperature = f
			} else {
				g.TopP = f
			}
		default:
			return sub.errorf(field, "%w (until, max_gen_toks, do_sample, temperature and top_p are)", ErrUnsupported)
		}
	}
	c.Gen = g
	return nil
}

// position formats a value's place for messages.
func (d docSpec) describe() string {
	switch {
	case d.tmpl != nil:
		return strings.TrimSpace(d.str)
	case d.isInt:
		return fmt.Sprint(d.i)
	}
	return pyvalue.Repr(pyvalue.NewList(d.list))
}
