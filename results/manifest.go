package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// Run statuses recorded in the manifest.
const (
	StatusRunning     = "running"
	StatusInterrupted = "interrupted"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
)

// IncompleteError is a result directory whose run has not finished (its
// manifest says "running"): reports refuse it, since its samples carry no
// digest to check them by.
type IncompleteError struct {
	Dir    string
	Status string
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("load run %s: the manifest's status is %q: not a finished run, so not a result", e.Dir, e.Status)
}

// Manifest records how a run was made.
type Manifest struct {
	SchemaVersion int       `json:"schema_version"`
	Pocketeval    BuildInfo `json:"pocketeval"`
	Command       []string  `json:"command"`
	// Config is everything that determines the scores; resuming requires
	// an identical Config.
	Config Config `json:"config"`
	// Runtime as the engine describes itself (version, settings).
	Runtime runtime.Info `json:"runtime"`
	Host    Host         `json:"host"`
	// Environment holds facts about the evaluation environment, e.g. the
	// sandbox's active isolation layers.
	Environment map[string]any `json:"environment,omitempty"`
	Status      string         `json:"status"`
	Start       time.Time      `json:"start"`
	End         *time.Time     `json:"end,omitempty"`
	// Resumes counts how many times the run was continued.
	Resumes int `json:"resumes,omitempty"`
	// Segments lists every invocation that worked on the run, the first
	// and each resume, with the settings that change speed but not
	// outputs (threads, concurrency), which may differ between them; a
	// merged run lists its shards' segments, each with its shard, in
	// order of start.
	Segments []Segment `json:"segments,omitempty"`
	// Resources are the process's memory figures for in-process runtimes.
	Resources *Resources `json:"resources,omitempty"`
	// Reproducible says whether every response of the run is reproducible
	// bit for bit by the same command (nil: not recorded, a manifest
	// older than the field).
	Reproducible *Reproducibility `json:"reproducible,omitempty"`
	// SamplesSHA256 maps each task to the sha256 of its samples file as
	// the run (or merge) left it when it ended (nil: not recorded); see
	// CheckDigests.
	SamplesSHA256 map[string]string `json:"samples_sha256,omitempty"`
}

// Segment is one invocation that worked on a run.
type Segment struct {
	Start time.Time  `json:"start"`
	End   *time.Time `json:"end,omitempty"`
	// Command is the invocation's command line.
	Command []string `json:"command"`
	// Pocketeval is the binary that ran it.
	Pocketeval BuildInfo `json:"pocketeval"`
	// Concurrency is --concurrency; Threads the engine threads per worker
	// (in-process runtimes; 0 when they do not apply).
	Concurrency int `json:"concurrency"`
	Threads     int `json:"threads,omitempty"`
	// Runtime is the engine as it described itself in this invocation
	// (version, settings).
	Runtime runtime.Info `json:"runtime"`
	Host    Host         `json:"host"`
	// Generated counts the samples this invocation produced, Errors those
	// of them that failed.
	Generated int `json:"generated"`
	Errors    int `json:"errors,omitempty"`
	// Status is how the invocation ended (a run status).
	Status string `json:"status"`
	// Shard is the shard (i/N) the invocation ran, in a run merged from
	// shards; empty otherwise.
	Shard string `json:"shard,omitempty"`
}

// Resources records memory use of the evaluating process, measured as in
// the MNN-Pocket report: the peak resident set over the pre-load baseline.
// Only meaningful for in-process runtimes (InProcess).
type Resources struct {
	InProcess      bool    `json:"in_process"`
	BaselineRSSMB  float64 `json:"baseline_rss_mb"`
	PeakRSSMB      float64 `json:"peak_rss_mb"`
	PeakIncreaseMB float64 `json:"peak_rss_increase_mb"`
}

// BuildInfo identifies the pocketeval binary.
type BuildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"vcs_revision,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// Config is the part of a run that determines its scores.
type Config struct {
	Runtime string `json:"runtime"`
	Model   Model  `json:"model"`
	// Tasks in run order.
	Tasks []TaskConfig `json:"tasks"`
	// Groups are the task groups whose metrics the summary aggregates
	// (lm-eval group files), in order.
	Groups         []Group           `json:"groups,omitempty"`
	Generation     runtime.GenConfig `json:"generation"`
	Seed           int64             `json:"seed"`
	NumFewshot     int               `json:"num_fewshot"` // -1: task defaults
	Chat           bool              `json:"chat"`
	StripThinking  bool              `json:"strip_thinking"`
	Mode           string            `json:"mode,omitempty"` // "gen" or "loglik"
	SamplesPerTask int               `json:"samples_per_task"`
	Limit          int               `json:"limit,omitempty"`
	// SampleIDs is the --samples selection: per task, the ids run. It is
	// part of the fingerprint, so a resumed run keeps its selection.
	SampleIDs map[string][]string `json:"sample_ids,omitempty"`
	Shard     Shard               `json:"shard"`
	// SkipBadRecords records --skip-bad-records: malformed dataset
	// records were skipped (each listed in the summary's warnings) rather
	// than refused.
	SkipBadRecords bool `json:"skip_bad_records,omitempty"`
	// ChatTemplate is the chat template the runtime rendered chat requests
	// with (in-process runtimes); nil for raw prompts and for servers that
	// apply their own.
	ChatTemplate *runtime.ChatTemplateInfo `json:"chat_template,omitempty"`
	// RuntimeSettings are the runtime's own settings that change what it
	// generates (llamacpp's context size, MNN's precision, the openai
	// endpoint), as the runtime declares them; speed-only settings are
	// in the manifest's segments.
	RuntimeSettings map[string]any `json:"runtime_settings,omitempty"`
	// UnsafeNoSandbox records that model-written code ran without
	// isolation, which can change verdicts.
	UnsafeNoSandbox bool `json:"unsafe_no_sandbox,omitempty"`
	// ModifiedData lists the official dataset files (path relative to the
	// data directory → the sha256 read) that did not match the registry's
	// pin and that the run was told to use anyway (--allow-modified-data):
	// its scores are not the benchmark's.
	ModifiedData map[string]string `json:"modified_data,omitempty"`
}

// Model identifies the model evaluated.
type Model struct {
	Path string `json:"path"`
	// Files maps each model file (relative to Path when Path is a
	// directory, else the base name) to its sha256.
	Files map[string]string `json:"files,omitempty"`
}

// identity is what identifies the model's outputs: its files' digests
// when it has files (the same model moved or reached by another path is the
// same model), else its path or name (a served model).
func (m Model) identity() Model {
	if len(m.Files) > 0 {
		m.Path = ""
	}
	return m
}

// TaskConfig identifies a task and its data.
type TaskConfig struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// DatasetFiles maps each dataset file read to its sha256.
	DatasetFiles map[string]string `json:"dataset_files"`
	// PromptHash is the sha256 of the task's rendering of its first
	// sample under the run's settings: it changes when the template does.
	PromptHash string `json:"prompt_template_hash"`
	Samples    int    `json:"samples"` // selected samples (after limit and shard)
	// Options are the task's run options that differ from its defaults
	// (evals.Optioner: IFEval's langdetect seed, code tasks' verdict
	// mode); merge rebuilds the task with them.
	Options map[string]string `json:"options,omitempty"`
}

// Shard selects a deterministic subset of samples: those whose key hashes
// to Index modulo Count. The zero value (Count 0 or 1) selects everything.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Active reports whether the shard selects a strict subset.
func (s Shard) Active() bool { return s.Count > 1 }

// String formats the shard as i/N.
func (s Shard) String() string {
	if !s.Active() {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Host describes the machine.
type Host struct {
	CPU      string  `json:"cpu"`
	Cores    int     `json:"cores"`
	OS       string  `json:"os"`
	Arch     string  `json:"arch"`
	Kernel   string  `json:"kernel,omitempty"`
	MemoryMB int     `json:"memory_mb,omitempty"`
	LoadAvg  float64 `json:"load_average_1m,omitempty"`
}

// Fingerprint is a stable hash of a Config, ignoring fields that do not
// change the scores of finished samples (the limit: a resumed run may
// extend it; skipping bad records: a run that loaded without skipping
// selects the same samples; the path of a model whose files are hashed).
func (c Config) Fingerprint() string {
	c.Limit = 0
	c.SkipBadRecords = false
	c.Model = c.Model.identity()
	c.Tasks = append([]TaskConfig(nil), c.Tasks...) // c shares the caller's array
	for i := range c.Tasks {
		c.Tasks[i].Samples = 0
	}
	data, _ := json.Marshal(c)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Diff lists human-readable differences between two configs (for the
// "different configuration" refusal).
func (c Config) Diff(o Config) []string {
	var out []string
	add := func(what string, a, b any) {
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		if string(aj) != string(bj) {
			out = append(out, fmt.Sprintf("%s: %s (existing) vs %s (now)", what, aj, bj))
		}
	}
	add("runtime", c.Runtime, o.Runtime)
	add("model", c.Model.identity(), o.Model.identity())
	add("generation", c.Generation, o.Generation)
	add("seed", c.Seed, o.Seed)
	add("groups", c.Groups, o.Groups)
	add("num_fewshot", c.NumFewshot, o.NumFewshot)
	add("chat", c.Chat, o.Chat)
	add("strip_thinking", c.StripThinking, o.StripThinking)
	add("mode", c.Mode, o.Mode)
	add("samples_per_task", c.SamplesPerTask, o.SamplesPerTask)
	add("shard", c.Shard, o.Shard)
	add("sample_ids", c.SampleIDs, o.SampleIDs)
	add("chat_template", c.ChatTemplate, o.ChatTemplate)
	add("runtime_settings", c.RuntimeSettings, o.RuntimeSettings)
	add("unsafe_no_sandbox", c.UnsafeNoSandbox, o.UnsafeNoSandbox)
	add("modified_data", c.ModifiedData, o.ModifiedData)
	ct := map[string]TaskConfig{}
	for _, t := range c.Tasks {
		t.Samples = 0
		ct[t.Name] = t
	}
	for _, t := range o.Tasks {
		t.Samples = 0
		old, ok := ct[t.Name]
		if !ok {
			out = append(out, fmt.Sprintf("task %s: not in the existing run", t.Name))
			continue
		}
		add("task "+t.Name, old, t)
	}
	return out
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(filepath.Join(dir, ManifestFile), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// WriteManifest writes dir/manifest.json atomically.
func WriteManifest(dir string, m *Manifest) error {
	m.SchemaVersion = SchemaVersion
	return WriteJSONAtomic(filepath.Join(dir, ManifestFile), m)
}
