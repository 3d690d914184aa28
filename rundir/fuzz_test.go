package rundir_test

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
)

// FuzzLoadRun: whatever a run directory's manifest, summary and samples
// file hold, Load either refuses it or gives a finished run whose records
// all read back, with valid UTF-8 responses; it never panics.
func FuzzLoadRun(f *testing.F) {
	seed := rundirtest.FakeRun(f, "m.gguf", map[string][]float64{"gsm8k": {1, 0, 1}}, 10, 100)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(seed, name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	man, sum, samples := read(results.ManifestFile), read(results.SummaryFile), read(filepath.Join(results.SamplesDir, "gsm8k.jsonl"))
	f.Add(man, sum, samples)
	f.Add(man, sum, []byte("{\"task\":\"gsm8k\",\"id\":\"0\",\"response\":\"\xff\"}\n"))
	f.Add([]byte(`{"status":"running","config":{"tasks":[{"name":"../../x"}]}}`), sum, samples)
	f.Fuzz(func(t *testing.T, man, sum, samples []byte) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, results.SamplesDir), 0o755)
		os.WriteFile(filepath.Join(dir, results.ManifestFile), man, 0o644)
		os.WriteFile(filepath.Join(dir, results.SummaryFile), sum, 0o644)
		os.WriteFile(filepath.Join(dir, results.SamplesDir, "gsm8k.jsonl"), samples, 0o644)
		r, err := rundir.Load(dir)
		if err != nil {
			return
		}
		if r.Manifest.Status == results.StatusRunning {
			t.Fatalf("a running manifest loaded")
		}
		for _, task := range r.Tasks() {
			recs, err := r.Records(task)
			if err != nil {
				t.Fatalf("loaded, but records of %q: %v", task, err)
			}
			for _, rec := range recs {
				if !utf8.ValidString(rec.Response) {
					t.Fatalf("record %s: invalid UTF-8 response", rec.ID)
				}
			}
		}
	})
}
