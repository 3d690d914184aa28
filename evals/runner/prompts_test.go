package runner

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// recordingRuntime keeps every request it is sent.
type recordingRuntime struct {
	fakeRuntime
	mu   sync.Mutex
	reqs []runtime.Request
}

func (r *recordingRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.fakeRuntime.Generate(ctx, req)
}

// TestPromptsAreRunsRequests: Prompts renders the requests Run sends, in
// Run's order, and writes nothing.
func TestPromptsAreRunsRequests(t *testing.T) {
	t.Parallel()
	rec := &recordingRuntime{}
	o := baseOptions(t.TempDir(), rec)
	o.Concurrency = 1
	o.Limit = 3
	o.Gen.MaxTokens = 7
	o.SamplesPerTask = 2
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o.OutDir = t.TempDir() + "/never"
	o.Runtime = nil
	got, err := Prompts(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*3*2 || !reflect.DeepEqual(got, rec.reqs) {
		t.Errorf("Prompts gave %d requests, Run sent %d; first %+v vs %+v", len(got), len(rec.reqs), got[0], rec.reqs[0])
	}
	o.Tasks = []evals.Task{}
	if _, err := Prompts(context.Background(), o); err == nil {
		t.Error("no tasks: no error")
	}
}
