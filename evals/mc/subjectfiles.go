package mc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
)

// isSubjectFiles reports whether --dataset-file names subject files in the
// benchmark's CSV schema rather than a dataset root: one .csv file, or a
// directory of them without the benchmark's split directories.
func isSubjectFiles(b *benchmark, root string) (bool, error) {
	st, err := evals.StatDataPath(b.name, root, b.source)
	if err != nil {
		return false, err
	}
	if !st.IsDir() {
		return strings.HasSuffix(strings.ToLower(root), ".csv"), nil
	}
	for _, d := range []string{b.testDir, filepath.Join("data", b.testDir)} {
		if _, err := os.Stat(filepath.Join(root, d)); err == nil {
			return false, nil
		}
	}
	return true, nil
}

// loadSubjectFiles reads subject files given with --dataset-file: one CSV
// file, or every *.csv of a directory, in the columns the benchmark's own
// files use (parseSubjectCSV). The subject is the file name without the
// benchmark's suffix (abstract_algebra_test.csv → abstract_algebra), so
// sample ids are the built-in task's (subject/index) and predictions made
// for it replay. There is no dev split: prompts are zero-shot, and asking
// for shots is an error.
func loadSubjectFiles(ctx context.Context, b *benchmark, root string, cfg evals.LoadConfig) (*evals.Dataset, error) {
	if cfg.NumFewshot > 0 {
		return nil, &evals.FewShotError{Task: b.name, Requested: cfg.NumFewshot, Allowed: []int{0}, Why: fmt.Sprintf("%s has no dev split (subject files); give the dataset root for few-shot prompts", root)}
	}
	files := []string{root}
	if st, err := os.Stat(root); err == nil && st.IsDir() {
		entries, err := os.ReadDir(root)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", root, err)
		}
		files = files[:0]
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), ".csv") {
				files = append(files, filepath.Join(root, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("dataset %s: no %s directory and no *.csv subject files (official source: %s)", root, b.testDir, b.source)
		}
	}
	sort.Strings(files)
	d := &evals.Dataset{Files: map[string]string{}, Extra: &extra{zeroShot: true}}
	seen := map[string]string{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		raw, sum, err := evals.ReadDataFile(b.name, f, b.source)
		if err != nil {
			return nil, err
		}
		d.Files[f] = sum
		base := filepath.Base(f)
		subject := strings.TrimSuffix(base, b.testSuffix)
		if subject == base {
			subject = strings.TrimSuffix(base, filepath.Ext(base))
		}
		if prev, dup := seen[subject]; dup {
			return nil, fmt.Errorf("dataset %s: %s and %s are both subject %q", root, prev, f, subject)
		}
		seen[subject] = f
		samples, err := parseSubjectCSV(raw, f, subject)
		if err != nil {
			return nil, err
		}
		if _, ok := b.agg.categories(subject); !ok {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: subject %q has no official category", f, subject))
		}
		d.Samples = append(d.Samples, samples...)
	}
	d.Warnings = append(d.Warnings, fmt.Sprintf("%s: subject files without a dev split; prompts are zero-shot", root))
	return d, nil
}
