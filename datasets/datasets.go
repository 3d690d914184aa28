// Package datasets knows where every benchmark's data officially comes from
// and fetches exactly those bytes: a registry of datasets (source repository
// and commit, file paths, sha256, license), verification of a data
// directory, and downloads that are pinned by sha256, atomic (a file appears
// only once its checksum matched) and resumable by re-running.
//
// The package never downloads on its own initiative: `pocketeval run` fails
// on a missing file with the exact `pocketeval datasets download` command.
//
// Files whose checksum is not known in advance (e.g. GSM8K's train split,
// used only for few-shot exemplars) are pinned on first verified download in
// a lock file next to the data (pocketeval.lock.json), trust-on-first-use,
// and verified against that pin afterwards.
package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	mathtasks "github.com/pocketeval/pocketeval/evals/math"
	"github.com/pocketeval/pocketeval/evals/registry"
)

// Dataset is one benchmark's data.
type Dataset struct {
	Name    string `json:"name"` // directory under the data dir, e.g. "gsm8k"
	Title   string `json:"title"`
	License string `json:"license"`
	// Tasks are the pocketeval tasks that read this dataset.
	Tasks []string `json:"tasks"`
	Files []File   `json:"files"`
}

// File is one file of a dataset.
type File struct {
	// Path is relative to the data directory, e.g. "gsm8k/test.jsonl".
	Path string `json:"path"`
	// URL is the official (or byte-identical verified) source.
	URL string `json:"url"`
	// SHA256 is the expected digest; "" means pinned on first download.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
	// Optional files are not needed by default runs (few-shot pools,
	// languages of tasks outside the default set); Note says what they
	// are for.
	Optional bool   `json:"optional,omitempty"`
	Note     string `json:"note,omitempty"`
}

// extras are files beyond the verified copies: official files whose digest
// is pinned on first download.
var extras = map[string][]File{
	"gsm8k": {{
		Path:     "gsm8k/train.jsonl",
		URL:      "https://raw.githubusercontent.com/openai/grade-school-math/3101c7d5072418e28b9008a6636bde82a006892c/grade_school_math/data/train.jsonl",
		Optional: true,
		Note:     "few-shot pool: only gsm8k --num-fewshot N > 0 reads it",
	}},
}

// mgsmBase is the official MGSM commit the copies come from.
const mgsmBase = "https://raw.githubusercontent.com/google-research/url-nlp/452a21ad3dae5668c06ceeac21ff073e1e40f9be/mgsm/"

// mgsmExtras are the MGSM languages (one task each, evals/math) whose files
// are not among the verified copies: fetched from the same official
// commit, their digests pinned on first download.
func mgsmExtras(verified []File) []File {
	have := map[string]bool{}
	for _, f := range verified {
		have[f.Path] = true
	}
	var out []File
	for _, lang := range mathtasks.MGSMLanguages() {
		name := "mgsm_" + lang + ".tsv"
		if !have["mgsm/"+name] {
			out = append(out, File{Path: "mgsm/" + name, URL: mgsmBase + name, Optional: true,
				Note: "data of task mgsm_" + lang + " only"})
		}
	}
	return out
}

// datasetOf names the dataset a task reads: the directory of its primary
// file under the data directory ("mgsm" for "mgsm/mgsm_zh.tsv").
func datasetOf(info evals.TaskInfo) string {
	if len(info.DatasetFiles) == 0 {
		return ""
	}
	dir, _, _ := strings.Cut(info.DatasetFiles[0], "/")
	return dir
}

// Registry returns every known dataset, sorted by name. Each dataset's
// Tasks are the registered tasks (evals/registry) whose primary file lies
// in its directory, so a new task needs no entry here.
func Registry() []Dataset {
	tasks := map[string][]string{}
	for _, t := range registry.All() {
		info := t.Info()
		tasks[datasetOf(info)] = append(tasks[datasetOf(info)], info.Name)
	}
	out := make([]Dataset, 0, len(builtin))
	for _, d := range builtin {
		d.Tasks = tasks[d.Name]
		d.Files = append(append([]File(nil), d.Files...), extras[d.Name]...)
		if d.Name == "mgsm" {
			d.Files = append(d.Files, mgsmExtras(d.Files)...)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the datasets named (dataset names or task names). An
// empty list means all.
func Lookup(names []string) ([]Dataset, error) {
	all := Registry()
	if len(names) == 0 {
		return all, nil
	}
	var out []Dataset
	seen := map[string]bool{}
	for _, n := range names {
		found := false
		for _, d := range all {
			if d.Name == n || contains(d.Tasks, n) {
				if !seen[d.Name] {
					out = append(out, d)
					seen[d.Name] = true
				}
				found = true
				break
			}
		}
		if !found {
			var known []string
			for _, d := range all {
				known = append(known, d.Name)
			}
			return nil, fmt.Errorf("unknown dataset or task %q (datasets: %s)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// ForTask returns the dataset a task reads, if registered.
func ForTask(task string) (Dataset, bool) {
	for _, d := range Registry() {
		if contains(d.Tasks, task) {
			return d, true
		}
	}
	return Dataset{}, false
}

// MissingHint says how to make a task's missing data available, for error
// messages: point pocketeval at the data where it already is, or fetch it.
// dataDir is where pocketeval looked and source where that came from
// ("--data-dir", "$POCKETEVAL_DATA" or "default").
func MissingHint(task, dataDir, source string) string {
	where := "the data directory " + dataDir
	switch source {
	case "default":
		where = "the default data directory " + dataDir + " (neither --data-dir nor $POCKETEVAL_DATA is set)"
	case "--data-dir", "$POCKETEVAL_DATA":
		where = dataDir + " (from " + source + ")"
	}
	if _, ok := ForTask(task); !ok {
		return fmt.Sprintf("fix: pocketeval looked in %s; point --data-dir (or $POCKETEVAL_DATA) at the directory the task's data paths are relative to", where)
	}
	return fmt.Sprintf("fix: pocketeval looked in %s.\n"+
		"     If the data is elsewhere, point pocketeval at it: --data-dir DIR or export POCKETEVAL_DATA=DIR.\n"+
		"     Otherwise fetch it from its official source (needs network; --mirror URL fetches from an internal mirror):\n"+
		"       pocketeval datasets download %s --data-dir %s", where, task, dataDir)
}

// DefaultDir is $POCKETEVAL_DATA, else $XDG_CACHE_HOME/pocketeval/datasets
// (~/.cache/pocketeval/datasets).
func DefaultDir() string {
	if d := os.Getenv("POCKETEVAL_DATA"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "pocketeval", "datasets")
	}
	return "datasets"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
