package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
)

// forge rewrites a task's samples file of dir with every score set to 1,
// as an attacker editing a result directory would (issue 39).
func forge(t *testing.T, dir, task string) {
	t.Helper()
	path := results.SamplesPath(dir, task)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(`"scores":{"acc":0}`), []byte(`"scores":{"acc":1}`))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file of dir with its content, to show that a refused
// command changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != results.LockFile {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestVerifyFindsForgedScores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(context.Background(), VerifyOptions{Dir: dir, Lookup: lookupFake})
	if err != nil || len(rep.Mismatches) != 0 || len(rep.Tasks) != 2 || rep.Tasks[0].Checked != 40 {
		t.Fatalf("an honest run: %+v, %v", rep, err)
	}
	forge(t, dir, "alpha")
	rep, err = Verify(context.Background(), VerifyOptions{Dir: dir, Lookup: lookupFake})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Mismatches) == 0 || rep.Tasks[0].Mismatches != len(rep.Mismatches) || rep.Tasks[1].Mismatches != 0 {
		t.Fatalf("forged scores not found: %+v", rep)
	}
	m := rep.Mismatches[0]
	if m.Field != "scores.acc" || m.Stored != "1" || m.Rescored != "0" || m.Line == 0 || !strings.HasSuffix(m.Path, "alpha.jsonl") {
		t.Errorf("mismatch %+v", m)
	}
	// A changed response under its old score.
	path := results.SamplesPath(dir, "beta")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte(`\u003eanswer `), []byte(`\u003eanswer x`), 1), 0o644)
	rep, _ = Verify(context.Background(), VerifyOptions{Dir: dir, Lookup: lookupFake})
	if rep.Tasks[1].Mismatches != 1 {
		t.Errorf("a changed response: %+v", rep.Tasks[1])
	}
}

// TestResumeRefusesForgedScores: a resume over forged scores is refused
// and changes nothing: the summary stays, the manifest is not marked
// running.
func TestResumeRefusesForgedScores(t *testing.T) {
	t.Parallel()
	for _, running := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{})); err != nil {
			t.Fatal(err)
		}
		forge(t, dir, "alpha")
		if running {
			markRunning(t, dir) // no digest check: only re-scoring finds it
		}
		before := snapshot(t, dir)
		_, err := Run(context.Background(), baseOptions(dir, &fakeRuntime{}))
		var de *results.DigestError
		var me *MismatchError
		switch {
		case !running && !errors.As(err, &de):
			t.Errorf("resume over an edited file of a finished run: %v, want a *results.DigestError", err)
		case running && (!errors.As(err, &me) || !strings.Contains(err.Error(), "alpha.jsonl:")):
			t.Errorf("resume over forged scores: %v, want a *MismatchError naming the file and line", err)
		}
		if !sameFiles(before, snapshot(t, dir)) {
			t.Errorf("running=%v: the refused resume changed the directory", running)
		}
	}
}

// TestMergeRefusesForgedShard: a shard whose scores were edited (and its
// summary with them) is refused, and --out is left untouched.
func TestMergeRefusesForgedShard(t *testing.T) {
	t.Parallel()
	shards := runShards(t, 2, func(dir string) Options { return baseOptions(dir, &fakeRuntime{}) })
	forge(t, shards[1], "alpha")
	out := filepath.Join(t.TempDir(), "m")
	_, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookupFake})
	var me *MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "alpha.jsonl:") {
		t.Fatalf("merge of a forged shard: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge created %s (%v)", out, err)
	}
	if _, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookupFake, NoRescore: true}); err != nil {
		t.Errorf("--no-rescore: %v", err)
	}
}
