package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/regfile"
)

// fileTask is fakeTask reading its dataset file through
// evals.ReadDataFile; before its load number changeAt it appends to the
// file (a file changed during the run).
type fileTask struct {
	fakeTask
	path     string
	loads    *atomic.Int64
	changeAt int64
}

func (t fileTask) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	if n := t.loads.Add(1); n == t.changeAt {
		f, err := os.OpenFile(t.path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		f.WriteString("{}\n")
		f.Close()
	}
	d, err := t.fakeTask.Load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	_, sum, err := evals.ReadDataFile(t.name, t.path, "test")
	if err != nil {
		return nil, err
	}
	d.Files = map[string]string{t.path: sum}
	return d, nil
}

// TestRestoreHashesOnce: a dataset let go and loaded again is not hashed
// a second time when its file is unchanged (the digest the first load
// computed is taken), and a file that changed in between is still
// refused.
func TestRestoreHashesOnce(t *testing.T) {
	defer regfile.SetRacyMargin(regfile.SetRacyMargin(-time.Hour)) // files written just now count
	data := filepath.Join(t.TempDir(), "beta.jsonl")
	if err := os.WriteFile(data, []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var loads atomic.Int64
	o := baseOptions(t.TempDir(), &fakeRuntime{})
	o.Tasks = []evals.Task{fakeTask{"alpha", 40}, fileTask{fakeTask{"beta", 25}, data, &loads, 0}}
	before := regfile.DigestsComputed()
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := loads.Load(); got != 2 {
		t.Fatalf("beta loaded %d times, want 2 (let go and loaded again)", got)
	}
	if got := regfile.DigestsComputed() - before; got != 1 {
		t.Errorf("the dataset file was hashed %d times, want 1", got)
	}

	loads.Store(0)
	o = baseOptions(t.TempDir(), &fakeRuntime{})
	o.Tasks = []evals.Task{fakeTask{"alpha", 40}, fileTask{fakeTask{"beta", 25}, data, &loads, 2}}
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "changed during the run") {
		t.Fatalf("a dataset file changed during the run: %v", err)
	}
}
