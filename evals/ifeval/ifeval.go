// Package ifeval provides the IFEval tasks: `ifeval`, Google's 541
// verifiable-instruction prompts scored exactly like the official
// instruction_following_eval, and `ifeval_zh`, the Chinese version
// (Marco-Bench-MIF zh, or any file in the same schema) scored with
// Chinese-aware rules (docs/ifeval-zh.md).
//
// Metrics: prompt-level strict accuracy (the primary metric: every
// instruction of the prompt followed), prompt-level loose accuracy, and the
// instruction-level strict and loose accuracies, which are micro-averages
// over all instructions and therefore come from Aggregate, not from the
// per-sample means. Every sample's Score.Details lists the instruction ids
// and the strict and loose verdict of each, for audit.
package ifeval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	scorer "github.com/pocketeval/pocketeval/scorers/ifeval"
	"github.com/pocketeval/pocketeval/scorers/langdetect"
)

// Metric names.
const (
	MetricPromptStrict = "prompt_level_strict_acc"
	MetricPromptLoose  = "prompt_level_loose_acc"
	MetricInstStrict   = "inst_level_strict_acc"
	MetricInstLoose    = "inst_level_loose_acc"
)

// Meta keys of an IFEval sample.
const (
	MetaInstructionIDs = "instruction_id_list"
	MetaKwargs         = "kwargs"
)

// Task is an IFEval task. The zero value is not usable; use EN or ZH, or
// their WithLangdetectSeed.
type Task struct {
	name        string
	version     string
	file        string // primary file relative to the data directory
	source      string
	description string
	// standIn: a missing data file says that any file in IFEval's schema
	// may stand in for it (LoadConfig.DatasetFile; a private copy).
	standIn bool
	lang    scorer.Lang
	seed    uint64 // langdetect's DetectorFactory.seed
}

var (
	// EN is the official IFEval.
	EN = &Task{
		name:        "ifeval",
		version:     "2",
		file:        "ifeval/input_data.jsonl",
		source:      "google-research/google-research instruction_following_eval/data/input_data.jsonl (HF google/IFEval)",
		description: "IFEval: 541 prompts with 25 types of verifiable instructions; official strict and loose scoring",
		lang:        scorer.English,
	}
	// ZH is IFEval-zh on Marco-Bench-MIF's localized Chinese prompts.
	ZH = &Task{
		name:        "ifeval_zh",
		version:     "2",
		file:        "ifeval_zh/marco_bench_mif/zh_local.jsonl",
		source:      "AIDC-AI/Marco-Bench-MIF Marco-Bench-MIF/zh_local.jsonl (HF AIDC-AI/Marco-Bench-MIF)",
		standIn:     true,
		description: "IFEval-zh: IFEval's 25 instruction types on Chinese prompts, with Chinese-aware counting (docs/ifeval-zh.md)",
		lang:        scorer.Chinese,
	}
)

var (
	_ evals.Task       = (*Task)(nil)
	_ evals.Aggregator = (*Task)(nil)
	_ evals.Setupper   = (*Task)(nil)
	_ evals.Optioner   = (*Task)(nil)
)

// WithLangdetectSeed returns the task with its language checks
// (language:response_language, change_case:english_capital and
// english_lowercase) drawing as langdetect does after
// DetectorFactory.seed = seed, so that their verdicts are those of the
// official scorer run with that seed; EN and ZH use seed 0 (docs/ifeval.md).
// A seed other than 0 is part of the task version ("2+langdetect-seed.7"),
// so that the manifest records it and a run is never resumed with another.
func (t *Task) WithLangdetectSeed(seed uint64) evals.Task {
	c := *t
	c.seed = seed
	c.version = strings.SplitN(t.version, "+", 2)[0]
	if seed != 0 {
		c.version += "+langdetect-seed." + strconv.FormatUint(seed, 10)
	}
	return &c
}

// OptionLangdetectSeed is the task option (evals.Optioner) that records a
// langdetect seed other than 0.
const OptionLangdetectSeed = "langdetect_seed"

// OptionKeys implements evals.Optioner.
func (t *Task) OptionKeys() []string { return []string{OptionLangdetectSeed} }

// TaskOptions implements evals.Optioner: the langdetect seed when it is not
// 0.
func (t *Task) TaskOptions() map[string]string {
	if t.seed == 0 {
		return nil
	}
	return map[string]string{OptionLangdetectSeed: strconv.FormatUint(t.seed, 10)}
}

// WithTaskOptions implements evals.Optioner: the task with the seed of
// opts (0 when absent).
func (t *Task) WithTaskOptions(opts map[string]string) (evals.Task, error) {
	var seed uint64
	for k, v := range opts {
		if k != OptionLangdetectSeed {
			return nil, fmt.Errorf("task %s: unknown option %q (known: %s)", t.name, k, OptionLangdetectSeed)
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("task %s: option %s: %w", t.name, k, err)
		}
		seed = n
	}
	return t.WithLangdetectSeed(seed), nil
}

// Setup implements evals.Setupper: it records the langdetect seed in the
// run manifest's environment ("<task>.langdetect_seed").
func (t *Task) Setup(_ context.Context, env evals.Env) (evals.Task, io.Closer, error) {
	env.Record(t.name+".langdetect_seed", t.seed)
	return t, nil, nil
}

func (t *Task) config() scorer.Config {
	return scorer.Config{Lang: t.lang, LangdetectSeed: t.seed}
}

// Info implements evals.Task.
func (t *Task) Info() evals.TaskInfo {
	return evals.TaskInfo{
		Name:             t.name,
		Version:          t.version,
		DatasetFiles:     []string{t.file},
		Source:           t.source,
		PrimaryMetric:    MetricPromptStrict,
		Metrics:          []string{MetricPromptStrict, MetricPromptLoose, MetricInstStrict, MetricInstLoose},
		Description:      t.description,
		DefaultMaxTokens: 1280,
	}
}

// MissingDataError and DataError are the evals package's data errors.
type (
	MissingDataError = evals.MissingDataError
	DataError        = evals.DataError
)

// record is one line of an IFEval-schema file.
type record struct {
	Key               *json.Number      `json:"key"`
	Prompt            *string           `json:"prompt"`
	InstructionIDList []string          `json:"instruction_id_list"`
	Kwargs            []json.RawMessage `json:"kwargs"`
}

// Load implements evals.Task. Malformed records (invalid JSON, missing
// fields, unknown instructions, unusable kwargs) are skipped and reported
// in Dataset.Warnings as file:line problems; a file with no usable record
// is an error.
func (t *Task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	path := cfg.DatasetFile
	if path == "" {
		path = filepath.Join(cfg.DataDir, t.file)
	}
	data, sum, err := evals.ReadDataFile(t.name, path, t.source)
	if err != nil {
		var missing *evals.MissingDataError
		if errors.As(err, &missing) && t.standIn {
			missing.Schema = "IFEval"
		}
		return nil, err
	}
	ds := &evals.Dataset{Files: map[string]string{path: sum}}
	seen := map[string]int{}
	// ReadDataFile refused lines longer than evals.MaxLineBytes.
	line := 0
	// One copy of the file as a string: the records' strings are parts of
	// it, not copies of their own.
	for rest := string(data); len(rest) > 0; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line++
		raw := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		raw = strings.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		s, derr := t.parseRecord(path, line, raw)
		if derr == nil {
			if prev, dup := seen[s.ID]; dup {
				derr = &DataError{Path: path, Line: line, Field: "key", Err: fmt.Errorf("duplicate key %s (first on line %d)", s.ID, prev)}
			}
		}
		if derr != nil {
			if err := skipRecord(ds, derr, sum, cfg.SkipBadRecords); err != nil {
				return nil, fmt.Errorf("%s: %w", t.name, err)
			}
			continue
		}
		seen[s.ID] = line
		ds.Samples = append(ds.Samples, s)
	}
	if len(ds.Samples) == 0 {
		return nil, fmt.Errorf("%s: dataset %s: no usable record (%d problems, first: %s)", t.name, path, len(ds.Warnings), firstOr(ds.Warnings, "empty file"))
	}
	return ds, nil
}

func firstOr(ss []string, def string) string {
	if len(ss) > 0 {
		return ss[0]
	}
	return def
}

func (t *Task) parseRecord(path string, line int, raw string) (evals.Sample, error) {
	if key, prompt, ids, kwargs, ok := fastRecord(raw); ok {
		return t.sample(path, line, key, prompt, ids, kwargs)
	}
	return t.parseRecordJSON(path, line, []byte(raw))
}

// parseRecordJSON is parseRecord with encoding/json, for the records that
// fastRecord leaves to it; it words every error.
func (t *Task) parseRecordJSON(path string, line int, raw []byte) (evals.Sample, error) {
	var r record
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "", Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	if f := repeatedField(raw); f != "" {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: f, Err: errors.New("appears twice in the record")}
	}
	if r.Key == nil {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "key", Err: errors.New("missing")}
	}
	if r.Prompt == nil {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "prompt", Err: errors.New("missing")}
	}
	if len(r.InstructionIDList) == 0 {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "instruction_id_list", Err: errors.New("missing or empty")}
	}
	if len(r.Kwargs) != len(r.InstructionIDList) {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "kwargs", Err: fmt.Errorf("%d entries for %d instructions", len(r.Kwargs), len(r.InstructionIDList))}
	}
	kwargs := make([]map[string]any, len(r.Kwargs))
	for i, k := range r.Kwargs {
		m, err := decodeKwargs(k)
		if err != nil {
			return evals.Sample{}, &DataError{Path: path, Line: line, Field: fmt.Sprintf("kwargs[%d]", i), Err: err}
		}
		kwargs[i] = m
	}
	return t.sample(path, line, r.Key.String(), *r.Prompt, r.InstructionIDList, kwargs)
}

// sample checks a decoded record's instructions, builds their checkers and
// keeps them with the sample for Score.
func (t *Task) sample(path string, line int, key, prompt string, ids []string, kwargs []map[string]any) (evals.Sample, error) {
	if len(ids) == 0 {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "instruction_id_list", Err: errors.New("missing or empty")}
	}
	if len(kwargs) != len(ids) {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "kwargs", Err: fmt.Errorf("%d entries for %d instructions", len(kwargs), len(ids))}
	}
	cfg := t.config()
	p, err := compile(ids, kwargs, cfg)
	if err != nil {
		return evals.Sample{}, &DataError{Path: path, Line: line, Field: "instruction_id_list/kwargs", Err: err}
	}
	return evals.Sample{
		ID:    key,
		Input: prompt,
		Meta: map[string]any{
			MetaInstructionIDs: ids,
			MetaKwargs:         kwargs,
			metaCompiled:       &compiled{cfg: cfg, prompt: p},
		},
	}, nil
}

// metaCompiled is the Meta key under which Load keeps a sample's compiled
// checkers, so that Score does not build them again. It is not part of
// any output (Meta is never written); a sample without it, or compiled
// under another configuration (a task copy with another langdetect seed),
// is compiled in Score.
const metaCompiled = "ifeval.compiled"

type compiled struct {
	cfg    scorer.Config
	prompt *scorer.Prompt
}

// decodeKwargs decodes one kwargs object; null values (the HF schema lists
// every kwarg of every instruction, null when unused) are dropped.
func decodeKwargs(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out, nil
}

func compile(ids []string, kwargs []map[string]any, cfg scorer.Config) (*scorer.Prompt, error) {
	ins := make([]scorer.Instruction, len(ids))
	for i, id := range ids {
		ins[i] = scorer.Instruction{ID: id, Kwargs: kwargs[i]}
	}
	return scorer.Compile(ins, cfg)
}

// Prompt implements evals.Task: the IFEval prompt verbatim, as the single
// user message in chat mode (no system prompt) and as the raw prompt
// otherwise, so that replayed official responses match by prompt text.
func (t *Task) Prompt(_ *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	req := runtime.Request{ID: s.ID, Task: t.name, Gen: cfg.Gen}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = t.Info().DefaultMaxTokens
	}
	if cfg.Chat {
		req.Messages = []runtime.Message{{Role: "user", Content: s.Input}}
	} else {
		req.Prompt = s.Input
	}
	return req, nil
}

// sampleInstructions reads the instruction list back from a sample's Meta
// (as Load stores it, or as decoded from JSON).
func sampleInstructions(s evals.Sample) ([]string, []map[string]any, error) {
	var ids []string
	switch v := s.Meta[MetaInstructionIDs].(type) {
	case []string:
		ids = v
	case []any:
		for _, e := range v {
			id, ok := e.(string)
			if !ok {
				return nil, nil, fmt.Errorf("sample %s: meta %s: want strings, got %T", s.ID, MetaInstructionIDs, e)
			}
			ids = append(ids, id)
		}
	default:
		return nil, nil, fmt.Errorf("sample %s: meta %s missing", s.ID, MetaInstructionIDs)
	}
	var kws []map[string]any
	switch v := s.Meta[MetaKwargs].(type) {
	case []map[string]any:
		kws = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok && e != nil {
				return nil, nil, fmt.Errorf("sample %s: meta %s: want objects, got %T", s.ID, MetaKwargs, e)
			}
			kws = append(kws, m)
		}
	default:
		return nil, nil, fmt.Errorf("sample %s: meta %s missing", s.ID, MetaKwargs)
	}
	if len(kws) != len(ids) {
		return nil, nil, fmt.Errorf("sample %s: %d kwargs for %d instructions", s.ID, len(kws), len(ids))
	}
	return ids, kws, nil
}

// Release implements evals.Releaser: the language-detection tables of
// the language checks are let go (langdetect.Evict) once the run has
// scored the task; a later check reads them back.
func (t *Task) Release() { langdetect.Evict() }

// Score implements evals.Task. Values holds the prompt-level verdicts
// prompt_level_strict_acc and prompt_level_loose_acc (1/0). The
// instruction-level metrics are micro-averages, which a mean over samples
// cannot give, so Score leaves them out of Values and Aggregate computes
// them from Details: the instruction ids, the aligned strict and loose
// verdicts, and their counts (inst_strict_followed, inst_loose_followed,
// inst_total).
func (t *Task) Score(_ context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	ids, kws, err := sampleInstructions(s)
	if err != nil {
		return evals.Score{}, fmt.Errorf("%s: score: %w", t.name, err)
	}
	cfg := t.config()
	var p *scorer.Prompt
	if c, ok := s.Meta[metaCompiled].(*compiled); ok && c.cfg == cfg && len(c.prompt.IDs) == len(ids) {
		p = c.prompt
	} else if p, err = compile(ids, kws, cfg); err != nil {
		return evals.Score{}, fmt.Errorf("%s: score sample %s: %w", t.name, s.ID, err)
	}
	res := p.Evaluate(out.Text)
	return evals.Score{
		Values: map[string]float64{
			MetricPromptStrict: evals.Indicator(res.AllStrict()),
			MetricPromptLoose:  evals.Indicator(res.AllLoose()),
		},
		Details: map[string]any{
			"instruction_id_list":            ids,
			"follow_instruction_list_strict": res.Strict,
			"follow_instruction_list_loose":  res.Loose,
			"inst_strict_followed":           count(res.Strict),
			"inst_loose_followed":            count(res.Loose),
			"inst_total":                     len(ids),
		},
	}, nil
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Aggregate implements evals.Aggregator: the instruction-level accuracies
// as micro-averages (followed instructions / all instructions), the
// prompt-level accuracies, and a breakdown per instruction id and per
// instruction family ("keywords", "length_constraints", ...), strict and
// loose, as the official report prints them. Samples with repeats are all
// counted.
func (t *Task) Aggregate(results []evals.SampleResult) evals.Aggregates {
	var prompts, promptStrict, promptLoose, instTotal, instStrict, instLoose int
	var byID evals.Groups // per instruction and per instruction family
	add := func(key string, strict, loose bool) {
		byID.Add(key, map[string]float64{"strict_acc": evals.Indicator(strict), "loose_acc": evals.Indicator(loose)})
	}
	var notes []string
	var instStrictUnits, instLooseUnits []float64
	for _, r := range results {
		ids, okIDs := detailStrings(r.Score.Details["instruction_id_list"])
		strict, okS := detailBools(r.Score.Details["follow_instruction_list_strict"])
		loose, okL := detailBools(r.Score.Details["follow_instruction_list_loose"])
		if !okIDs || !okS || !okL || len(strict) != len(ids) || len(loose) != len(ids) {
			notes = append(notes, fmt.Sprintf("sample %s has no per-instruction details; left out", r.Sample.ID))
			continue
		}
		prompts++
		if all(strict) {
			promptStrict++
		}
		if all(loose) {
			promptLoose++
		}
		for i, id := range ids {
			instTotal++
			instStrictUnits = append(instStrictUnits, evals.Indicator(strict[i]))
			instLooseUnits = append(instLooseUnits, evals.Indicator(loose[i]))
			if strict[i] {
				instStrict++
			}
			if loose[i] {
				instLoose++
			}
			add(id, strict[i], loose[i])
			family, _, _ := strings.Cut(id, ":")
			add(family, strict[i], loose[i])
		}
	}
	agg := evals.Aggregates{Metrics: map[string]float64{}, Breakdown: byID.Breakdown(nil)}
	if prompts > 0 {
		agg.Metrics[MetricPromptStrict] = float64(promptStrict) / float64(prompts)
		agg.Metrics[MetricPromptLoose] = float64(promptLoose) / float64(prompts)
	}
	if instTotal > 0 {
		agg.Metrics[MetricInstStrict] = float64(instStrict) / float64(instTotal)
		agg.Metrics[MetricInstLoose] = float64(instLoose) / float64(instTotal)
		// Intervals over instructions (as lm-evaluation-harness computes
		// the instruction-level standard error).
		agg.Units = map[string][]float64{MetricInstStrict: instStrictUnits, MetricInstLoose: instLooseUnits}
	}
	agg.Notes = append([]string{
		fmt.Sprintf("prompt-level: %d/%d strict, %d/%d loose", promptStrict, prompts, promptLoose, prompts),
		fmt.Sprintf("instruction-level (micro over instructions): %d/%d strict, %d/%d loose", instStrict, instTotal, instLoose, instTotal),
		fmt.Sprintf("scorer: pocketeval %s IFEval checkers (docs/%s), langdetect seed %d", t.lang, docName(t.lang), t.seed),
	}, notes...)
	return agg
}

func docName(l scorer.Lang) string {
	if l == scorer.Chinese {
		return "ifeval-zh.md"
	}
	return "ifeval.md"
}

func all(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// detailStrings and detailBools read Details as Score produces them or as
// decoded back from samples JSONL.
func detailStrings(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func detailBools(v any) ([]bool, bool) {
	switch x := v.(type) {
	case []bool:
		return x, true
	case []any:
		out := make([]bool, len(x))
		for i, e := range x {
			b, ok := e.(bool)
			if !ok {
				return nil, false
			}
			out[i] = b
		}
		return out, true
	}
	return nil, false
}
