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
)

// Dataset is one benchmark's data.
type Dataset struct {
	Name    string // directory under the data dir, e.g. "gsm8k"
	Title   string
	License string
	// Tasks are the pocketeval tasks that read this dataset.
	Tasks []string
	Files []File
}

// File is one file of a dataset.
type File struct {
	// Path is relative to the data directory, e.g. "gsm8k/test.jsonl".
	Path string
	// URL is the official (or byte-identical verified) source.
	URL string
	// SHA256 is the expected digest; "" means pinned on first download.
	SHA256 string
	Size   int64
	// Optional files are not needed by default runs (few-shot pools).
	Optional bool
}

// taskMap says which tasks read which dataset.
var taskMap = map[string][]string{
	"ifeval":        {"ifeval"},
	"ifeval_zh":     {"ifeval_zh"},
	"humaneval":     {"humaneval"},
	"mgsm":          {"mgsm_en", "mgsm_zh", "mgsm_bn", "mgsm_de", "mgsm_es", "mgsm_fr", "mgsm_ja", "mgsm_ru", "mgsm_sw", "mgsm_te", "mgsm_th"},
	"gsm8k":         {"gsm8k"},
	"mmlu":          {"mmlu"},
	"ceval":         {"ceval"},
	"cmmlu":         {"cmmlu"},
	"mbpp":          {"mbpp", "mbpp_full"},
	"arc_challenge": {"arc_challenge"},
	"bbh":           {"bbh"},
	"math500":       {"math500"},
}

// extras are files beyond the verified copies: official files whose digest
// is pinned on first download.
var extras = map[string][]File{
	"gsm8k": {{
		Path:     "gsm8k/train.jsonl",
		URL:      "https://raw.githubusercontent.com/openai/grade-school-math/3101c7d5072418e28b9008a6636bde82a006892c/grade_school_math/data/train.jsonl",
		Optional: true,
	}},
}

func init() {
	// The other MGSM languages, from the same official commit; their
	// digests are pinned on first download.
	for _, lang := range []string{"bn", "de", "es", "fr", "ja", "ru", "sw", "te", "th"} {
		extras["mgsm"] = append(extras["mgsm"], File{
			Path:     "mgsm/mgsm_" + lang + ".tsv",
			URL:      "https://raw.githubusercontent.com/google-research/url-nlp/452a21ad3dae5668c06ceeac21ff073e1e40f9be/mgsm/mgsm_" + lang + ".tsv",
			Optional: true,
		})
	}
}

// Registry returns every known dataset, sorted by name.
func Registry() []Dataset {
	out := make([]Dataset, 0, len(builtin))
	for _, d := range builtin {
		d.Tasks = taskMap[d.Name]
		d.Files = append(append([]File(nil), d.Files...), extras[d.Name]...)
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

// MissingHint explains how to fetch a task's data, for error messages.
func MissingHint(task, dataDir string) string {
	d, ok := ForTask(task)
	if !ok {
		return ""
	}
	src := ""
	if len(d.Files) > 0 {
		src = " (official source: " + d.Files[0].URL + ")"
	}
	opt := ""
	for _, f := range d.Files {
		if f.Optional {
			opt = " (add --optional for few-shot pools and extra languages)"
			break
		}
	}
	return fmt.Sprintf("fetch it with: pocketeval datasets download %s --data-dir %s%s%s", d.Name, dataDir, opt, src)
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
