// Package datasets knows where every benchmark's data officially comes from
// and fetches exactly those bytes: a registry of datasets (source repository
// and commit, file paths, sha256, license), verification of a data
// directory, and downloads that are pinned by sha256, atomic (a file appears
// only once its checksum matched) and resumable by re-running.
//
// The package never downloads on its own initiative: `pocketeval run` fails
// on a missing file with the exact `pocketeval datasets download` command.
// It knows datasets only, not the tasks that read them: tasks declare
// their files (evals.TaskInfo.DatasetFiles), and the `datasets` command
// joins the two.
//
// Files whose checksum is not known in advance (e.g. GSM8K's train split,
// used only for few-shot exemplars) are pinned on first verified download in
// a lock file next to the data (pocketeval.lock.json), trust-on-first-use,
// and verified against that pin afterwards.
package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// Dataset is one benchmark's data.
type Dataset struct {
	Name    string `json:"name"` // directory under the data dir, e.g. "gsm8k"
	Title   string `json:"title"`
	License string `json:"license"`
	// Tasks are the pocketeval tasks that read this dataset. Registry
	// leaves it empty: the caller that knows the tasks fills it.
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
	// FewShotFor names the task whose few-shot examples a few-shot pool
	// holds (read only when few-shot examples are asked for).
	FewShotFor string `json:"-"`
}

// extras are files beyond the verified copies: official files whose digest
// is pinned on first download.
var extras = map[string][]File{
	"gsm8k": {{
		Path:       "gsm8k/train.jsonl",
		URL:        "https://raw.githubusercontent.com/openai/grade-school-math/3101c7d5072418e28b9008a6636bde82a006892c/grade_school_math/data/train.jsonl",
		Optional:   true,
		Note:       "few-shot pool",
		FewShotFor: "gsm8k",
	}},
}

// mgsmBase is the official MGSM commit the copies come from.
const mgsmBase = "https://raw.githubusercontent.com/google-research/url-nlp/452a21ad3dae5668c06ceeac21ff073e1e40f9be/mgsm/"

// mgsmLanguages are the languages of the official MGSM release, one file
// (and one pocketeval task, mgsm_<lang>) each.
var mgsmLanguages = []string{"bn", "de", "en", "es", "fr", "ja", "ru", "sw", "te", "th", "zh"}

// mgsmExtras are the MGSM languages whose files are not among the verified
// copies: fetched from the same official commit, their digests pinned on
// first download.
func mgsmExtras(verified []File) []File {
	have := map[string]bool{}
	for _, f := range verified {
		have[f.Path] = true
	}
	var out []File
	for _, lang := range mgsmLanguages {
		name := "mgsm_" + lang + ".tsv"
		if !have["mgsm/"+name] {
			out = append(out, File{Path: "mgsm/" + name, URL: mgsmBase + name, Optional: true,
				Note: "data of task mgsm_" + lang + " only"})
		}
	}
	return out
}

// Registry returns every known dataset, sorted by name, without Tasks.
func Registry() []Dataset {
	out := make([]Dataset, 0, len(builtin))
	for _, d := range builtin {
		d.Files = append(append([]File(nil), d.Files...), extras[d.Name]...)
		if d.Name == "mgsm" {
			d.Files = append(d.Files, mgsmExtras(d.Files)...)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// UnknownError is a name Lookup does not know; Known lists the datasets.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown dataset %q (datasets: %s)", e.Name, strings.Join(e.Known, ", "))
}

// Lookup returns the datasets of reg (Registry, perhaps with Tasks)
// named, in the order named and without repeats: a name is a dataset's, or
// one of its Tasks. An empty list means all; an unknown name is an
// *UnknownError.
func Lookup(reg []Dataset, names []string) ([]Dataset, error) {
	if len(names) == 0 {
		return reg, nil
	}
	var out []Dataset
	seen := map[string]bool{}
	for _, n := range names {
		i := slices.IndexFunc(reg, func(d Dataset) bool { return d.Name == n || slices.Contains(d.Tasks, n) })
		if i < 0 {
			known := make([]string, len(reg))
			for k, d := range reg {
				known[k] = d.Name
			}
			return nil, &UnknownError{Name: n, Known: known}
		}
		if d := reg[i]; !seen[d.Name] {
			out = append(out, d)
			seen[d.Name] = true
		}
	}
	return out, nil
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

// Modified is an official dataset file whose content is not the one the
// registry pins: edited in place, or another version.
type Modified struct {
	Path      string // relative to the data directory
	Want, Got string // sha256
}

// CheckPins hashes the files of reg that lie in dataDir at one of paths
// or under one of them (a task's DatasetFiles: files or directories) and
// have a pinned digest, and returns those whose content differs from the
// pin, by path. A missing file is left for the task's loader to report.
func CheckPins(dataDir string, reg []Dataset, paths []string) ([]Modified, error) {
	var out []Modified
	seen := map[string]bool{}
	for _, d := range reg {
		for _, f := range d.Files {
			if f.SHA256 == "" || seen[f.Path] || !underAny(f.Path, paths) {
				continue
			}
			seen[f.Path] = true
			// Remembered (regfile.SHA256Known): the task's load does not
			// hash the file again.
			got, err := regfile.SHA256Known(filepath.Join(dataDir, filepath.FromSlash(f.Path)))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if got != f.SHA256 {
				out = append(out, Modified{Path: f.Path, Want: f.SHA256, Got: got})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		d = strings.TrimSuffix(d, "/")
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
