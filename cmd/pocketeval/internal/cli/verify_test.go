package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
)

// forgeRun sets every score of a task's samples to 1 and records the
// forged file's digest in the manifest, as an attacker covering their
// tracks would, so that only re-scoring can tell (issue 39).
func forgeRun(t *testing.T, dir, task string) {
	t.Helper()
	path := results.SamplesPath(dir, task)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, bytes.ReplaceAll(data, []byte(`"scores":{"acc":0}`), []byte(`"scores":{"acc":1}`)), 0o644)
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.SamplesSHA256[task], err = results.SamplesDigest(dir, task); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyAndGateRefuseForgedScores(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", dir); code != 0 {
			t.Fatal(e)
		}
	}
	if code, out, e := run(t, "verify", a, b); code != 0 || !strings.Contains(out, "ok "+a+": 42 responses re-scored in 2 tasks, 0 records differ") {
		t.Fatalf("verify of honest runs: %d\n%s\n%s", code, out, e)
	}
	forgeRun(t, b, "alpha")
	code, out, _ := run(t, "verify", b)
	if code != ExitError || !strings.Contains(out, "FAILED "+b) || !strings.Contains(out, "alpha.jsonl:") || !strings.Contains(out, "scores.acc is 1, re-scoring gives 0") {
		t.Errorf("verify of a forged run: %d\n%s", code, out)
	}
	code, out, _ = run(t, "verify", "--json", b)
	var doc struct {
		OK   bool `json:"ok"`
		Runs []struct {
			Mismatches []struct {
				Field string `json:"field"`
				Line  int    `json:"line"`
			} `json:"mismatches"`
		} `json:"runs"`
	}
	if code != ExitError || json.Unmarshal([]byte(out), &doc) != nil || doc.OK || len(doc.Runs) != 1 || len(doc.Runs[0].Mismatches) == 0 || doc.Runs[0].Mismatches[0].Line == 0 {
		t.Errorf("verify --json: %d %s", code, out)
	}
	policy := filepath.Join(t.TempDir(), "gate.yaml")
	os.WriteFile(policy, []byte("defaults:\n  max_drop: 1\n"), 0o644)
	code, _, errOut := run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy)
	if code != ExitUsage || !strings.Contains(errOut, "not what their responses score") || !strings.Contains(errOut, "alpha.jsonl:") {
		t.Errorf("gate over a forged candidate: %d %s", code, errOut)
	}
	// A missing run is not a forgery: exit 2 as before.
	if code, _, _ := run(t, "verify", filepath.Join(a, "nope")); code != ExitUsage {
		t.Errorf("verify of a missing directory: %d", code)
	}
}

// TestMergeRefusesInconsistentShard: a shard whose summary disagrees with
// its samples is refused, and nothing is written.
func TestMergeRefusesInconsistentShard(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	var shards []string
	for i := range 2 {
		dir := filepath.Join(base, "s"+string(rune('0'+i)))
		if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--shard", string(rune('0'+i))+"/2", "--out", dir); code != 0 {
			t.Fatal(e)
		}
		shards = append(shards, dir)
	}
	sum, _ := os.ReadFile(filepath.Join(shards[1], results.SummaryFile))
	os.WriteFile(filepath.Join(shards[1], results.SummaryFile), bytes.Replace(sum, []byte(`"scored": `), []byte(`"scored": 1`), 1), 0o644)
	out := filepath.Join(base, "merged")
	code, _, errOut := run(t, append([]string{"merge", "--out", out}, shards...)...)
	if code != ExitUsage || !strings.Contains(errOut, "disagrees") {
		t.Errorf("merge of an inconsistent shard: %d %s", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge created %s", out)
	}
}

// TestCompareFlagsIrreproducibleRuns (issue 35): two runs of the same
// configuration whose responses differ are flagged by compare.
func TestCompareFlagsIrreproducibleRuns(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", dir); code != 0 {
			t.Fatal(e)
		}
	}
	if code, _, errOut := run(t, "compare", a, b); code != 0 || strings.Contains(errOut, "warning") {
		t.Fatalf("identical runs: %d %s", code, errOut)
	}
	// One wrong answer replaced by another wrong one: the scores stay,
	// the response changes.
	recs, _, err := results.ReadSamples(results.SamplesPath(b, "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	var edited bool
	var lines bytes.Buffer
	for _, r := range recs {
		if !edited && r.Scores["acc"] == 0 {
			for _, d := range []string{"0", "1", "2"} {
				if d != r.Target && d != r.Response {
					r.Response, r.Extracted, edited = d, d, true
					break
				}
			}
		}
		line, _ := results.EncodeLine(&r)
		lines.Write(line)
	}
	os.WriteFile(results.SamplesPath(b, "alpha"), lines.Bytes(), 0o644)
	m, _ := results.ReadManifest(b)
	m.SamplesSHA256["alpha"], _ = results.SamplesDigest(b, "alpha")
	results.WriteManifest(b, m)
	code, _, errOut := run(t, "compare", a, b)
	if code != 0 || !strings.Contains(errOut, "same configuration but 1 of 30 responses differ") {
		t.Errorf("compare of irreproducible runs: %d %s", code, errOut)
	}
}
