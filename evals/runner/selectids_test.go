package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
)

// TestSampleSelection: --samples runs only the named samples, each record
// keeps the generation settings its request carried, a resume with the
// same selection reuses them, and another selection is a different
// configuration (it is in the fingerprint).
func TestSampleSelection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := baseOptions(dir, &fakeRuntime{})
	o.Gen.MaxTokens, o.Gen.Stop = 9, []string{"\n\n"}
	o.SampleIDs = map[string][]string{"alpha": {"3", "17"}, "beta": {"0"}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Generated != 3 {
		t.Fatalf("generated %d samples, want 3", res.Generated)
	}
	recs, _, err := results.ReadSamples(results.SamplesPath(dir, "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "3" || recs[1].ID != "17" {
		t.Fatalf("alpha records %+v, want ids 3 and 17", recs)
	}
	if g := recs[0].Gen; g == nil || g.MaxTokens != 9 || len(g.Stop) != 1 || g.Stop[0] != "\n\n" {
		t.Errorf("record gen = %+v, want the request's max_tokens 9 and stop", g)
	}

	rt := &fakeRuntime{}
	o.Runtime = rt
	if res, err = Run(context.Background(), o); err != nil || rt.calls.Load() != 0 || res.Reused != 3 {
		t.Fatalf("resume: err %v, %d calls, %d reused; want 0 calls, 3 reused", err, rt.calls.Load(), res.Reused)
	}
	o.SampleIDs = map[string][]string{"alpha": {"3"}, "beta": {"0"}}
	_, err = Run(context.Background(), o)
	var mm *ConfigMismatchError
	if !errors.As(err, &mm) || !strings.Contains(err.Error(), "sample_ids") {
		t.Fatalf("another selection: err = %v, want a mismatch naming sample_ids", err)
	}
}

func TestSampleSelectionErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ids   map[string][]string
		limit int
		want  string
	}{
		{map[string][]string{"alpha": {"3"}}, 0, "no sample of task beta"},
		{map[string][]string{"alpha": {"3"}, "beta": {"1"}, "gamma": {"1"}}, 0, "task gamma is not in the run"},
		{map[string][]string{"alpha": {"3", "x9"}, "beta": {"1"}}, 0, `task alpha has no sample "x9"`},
		{map[string][]string{"alpha": {"3"}, "beta": {"1"}}, 5, "--limit"},
	} {
		o := baseOptions(t.TempDir(), &fakeRuntime{})
		o.SampleIDs, o.Limit = c.ids, c.limit
		_, err := Run(context.Background(), o)
		var se *SelectionError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want a SelectionError with %q", c.ids, err, c.want)
		}
	}
}
