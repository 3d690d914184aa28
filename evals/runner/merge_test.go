package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
)

func lookupFake(name string) (evals.Task, error) {
	switch name {
	case "alpha":
		return fakeTask{"alpha", 40}, nil
	case "beta":
		return fakeTask{"beta", 25}, nil
	}
	return nil, fmt.Errorf("unknown task %q", name)
}

func TestThreeShardsMergeEqualsWholeRun(t *testing.T) {
	t.Parallel()
	whole := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(whole, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		o := baseOptions(dir, &fakeRuntime{})
		o.Shard = results.Shard{Index: i, Count: 3}
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, dir)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookupFake}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.SummaryFile, "samples/alpha.jsonl", "samples/beta.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the whole run and the merged shards:\n%s\n---\n%s", f, a, b)
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	t.Parallel()
	mk := func(i, n int, mutate func(*Options)) string {
		dir := t.TempDir()
		o := baseOptions(dir, &fakeRuntime{})
		o.Shard = results.Shard{Index: i, Count: n}
		if mutate != nil {
			mutate(&o)
		}
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	s0, s1 := mk(0, 2, nil), mk(1, 2, nil)
	check := func(dirs []string, want string) {
		t.Helper()
		_, err := Merge(context.Background(), MergeOptions{Dirs: dirs, Out: filepath.Join(t.TempDir(), "m"), Lookup: lookupFake})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Merge(%v) = %v, want error containing %q", dirs, err, want)
		}
	}
	check([]string{s0}, "missing shards 1/2")
	check([]string{s0, s0}, "both shard 0/2")
	check([]string{s0, mk(1, 2, func(o *Options) { o.Gen.MaxTokens = 9 })}, "different configurations")
	check([]string{s0, mk(1, 3, nil)}, "different shard counts")
	// A shard still running is refused.
	m, _ := results.ReadManifest(s1)
	m.Status = results.StatusRunning
	results.WriteManifest(s1, m)
	check([]string{s0, s1}, "not complete")
}
