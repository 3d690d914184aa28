package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// TestSummaryFromMemory checks that the summary a run builds from the
// records it kept in memory is the one its samples files give when read
// back (what a crashed or resumed run relies on): for the fake tasks with
// failing requests and repeats, and, with the shared datasets, for real
// tasks whose aggregates read sample details.
func TestSummaryFromMemory(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, o Options) {
		t.Helper()
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		// The digests the writers computed are those of the files.
		if err := results.CheckDigests(o.OutDir, res.Manifest); err != nil {
			t.Error(err)
		}
		p, err := Prepare(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, pp := range p.preps {
			name := pp.info.Name
			recs, err := results.ReadTaskForSummary(o.OutDir, name, false)
			if err != nil {
				t.Fatal(err)
			}
			disk, _ := summarizeTask(pp, p.o.SamplesPerTask, recs)
			want, _ := json.Marshal(disk)
			got, _ := json.Marshal(res.Summary.Tasks[name])
			if string(got) != string(want) {
				t.Errorf("%s: summary from memory\n%s\nfrom the samples file\n%s", name, got, want)
			}
		}
	}
	t.Run("fake", func(t *testing.T) {
		t.Parallel()
		o := baseOptions(t.TempDir(), &fakeRuntime{fail: func(p string) bool { return strings.HasSuffix(p, "7") }})
		o.KeepGoing, o.SamplesPerTask, o.Concurrency = true, 2, 3
		check(t, o)
	})
	t.Run("tasks", func(t *testing.T) {
		t.Parallel()
		data := sharedtest.Datasets(t)
		tasks, err := registry.Lookup(registry.All(), []string{"ifeval", "gsm8k", "math500", "mmlu", "cmmlu", "bbh"})
		if err != nil {
			t.Fatal(err)
		}
		check(t, Options{
			Tasks: tasks, Runtime: &runtimetest.Fake{EOSEvery: 60}, RuntimeName: "stand-in", OutDir: t.TempDir(), DataDir: data,
			Concurrency: 2, NumFewshot: -1, Chat: true, StripThinking: true, Limit: 30,
		})
	})
}
