package math

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"

	"github.com/pocketeval/pocketeval/evals"
)

// MissingDataError and DataError are the evals package's data errors.
type (
	MissingDataError = evals.MissingDataError
	DataError        = evals.DataError
)

// datasetPath resolves a task's primary file: the override when set, else
// rel under the data directory.
func datasetPath(cfg evals.LoadConfig, rel string) string {
	if cfg.DatasetFile != "" {
		return cfg.DatasetFile
	}
	return filepath.Join(cfg.DataDir, rel)
}

// readLines reads a whole file, hashes it, and returns its lines (without
// terminators; a final empty line is dropped).
func readLines(task, path, source string) ([][]byte, string, error) {
	data, sum, err := evals.ReadDataFile(task, path, source)
	if err != nil {
		return nil, "", err
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		lines = append(lines, bytes.TrimRight(sc.Bytes(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s: read dataset %s: %w", task, path, err)
	}
	return lines, sum, nil
}

// pickExemplars draws k distinct indices from n, deterministically from
// the run seed and the sample id (so every sample gets its own draw, and
// reruns and any concurrency give the same prompts). excluded (-1 for
// none) is never drawn.
func pickExemplars(seed int64, sampleID string, n, k, excluded int) []int {
	if k <= 0 || n <= 0 {
		return nil
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, sampleID)
	r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	perm := r.Perm(n)
	out := make([]int, 0, k)
	for _, i := range perm {
		if i == excluded {
			continue
		}
		out = append(out, i)
		if len(out) == k {
			break
		}
	}
	return out
}
