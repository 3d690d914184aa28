package results

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
)

// Reproducibility says whether a run's responses are reproducible bit for
// bit: the same command (any concurrency, any thread count, resumed or
// not) giving byte-identical samples but for their timings.
type Reproducibility struct {
	// Exact is true when every invocation that worked on the run used
	// settings under which its runtime reproduces each response exactly.
	Exact bool `json:"exact"`
	// Why says what made responses vary when Exact is false.
	Why string `json:"why,omitempty"`
}

// Combine is the reproducibility of a run continued under why ("" when
// the new invocation is exact): exact only when both parts are.
func (r *Reproducibility) Combine(why string) *Reproducibility {
	switch {
	case r != nil && !r.Exact:
		return r
	case why != "":
		return &Reproducibility{Why: why}
	}
	return &Reproducibility{Exact: true}
}

// DigestError is a samples file whose content is not the one its
// manifest recorded: it was edited after the run ended.
type DigestError struct {
	Dir, Task  string
	Want, Have string
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("%s; run `pocketeval verify %s` to re-score it", e.Fact(), e.Dir)
}

// Fact is the error without its advice (verify, which re-scores the file,
// gives its own).
func (e *DigestError) Fact() string {
	return fmt.Sprintf("%s: samples/%s.jsonl was changed after the run ended (sha256 %.12s, the manifest recorded %.12s)", e.Dir, e.Task, e.Have, e.Want)
}

// SamplesDigest is the sha256 (hex) of a task's samples file, read as a
// regular file; a missing file has the digest of no bytes.
func SamplesDigest(dir, task string) (string, error) {
	h := sha256.New()
	// A samples directory that is a symbolic link is refused before a
	// byte behind it is read.
	if err := checkSamplesDir(SamplesPath(dir, task), false); err != nil {
		return "", err
	}
	f, err := openResultFile(SamplesPath(dir, task), os.O_RDONLY, 0)
	switch {
	case err == nil:
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
	case !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Digests returns the samples digests of tasks, for a manifest.
func Digests(dir string, tasks []string) (map[string]string, error) {
	return DigestsKnown(dir, tasks, nil)
}

// DigestsKnown is Digests for a caller that already knows some files'
// digests (known, by task; a SampleWriter's Digest): only the others are
// read.
func DigestsKnown(dir string, tasks []string, known map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(tasks))
	for _, t := range tasks {
		if d, ok := known[t]; ok {
			out[t] = d
			continue
		}
		d, err := SamplesDigest(dir, t)
		if err != nil {
			return nil, err
		}
		out[t] = d
	}
	return out, nil
}

// CheckDigests refuses a samples file whose digest is not the one m
// recorded (*DigestError). A manifest without digests (written before
// they were recorded) and a task it has none for pass.
func CheckDigests(dir string, m *Manifest) error {
	for _, task := range slices.Sorted(maps.Keys(m.SamplesSHA256)) {
		have, err := SamplesDigest(dir, task)
		if err != nil {
			return err
		}
		if want := m.SamplesSHA256[task]; have != want {
			return &DigestError{Dir: dir, Task: task, Want: want, Have: have}
		}
	}
	return nil
}
