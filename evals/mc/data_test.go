package mc

import (
	"context"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// dataDir finds the shared datasets: $POCKETEVAL_DATA, else
// <repo root>/../shared/datasets. It stays because mc_test.go calls it too.
func dataDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Datasets(t)
}

func TestLoadSharedData(t *testing.T) {
	t.Parallel()
	root := sharedtest.Datasets(t)
	tests := []struct {
		task       *Task
		samples    int
		subjects   int
		devPerSubj int
		firstID    string
		firstTgt   string
	}{
		{MMLU(), 14042, 57, 5, "abstract_algebra/0", "B"},
		{CEval(), 1346, 52, 5, "accountant/0", ""},
		{CMMLU(), 11582, 67, 5, "agronomy/0", "B"},
		{ARCChallenge(), 1172, 0, 0, "Mercury_7175875", "C"},
	}
	for _, tt := range tests {
		t.Run(tt.task.Info().Name, func(t *testing.T) {
			t.Parallel()
			d, err := tt.task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Warnings) > 0 {
				t.Errorf("warnings: %v", d.Warnings)
			}
			if got := len(d.Samples); got != tt.samples {
				t.Errorf("samples = %d, want %d", got, tt.samples)
			}
			subjects := map[string]int{}
			ids := map[string]bool{}
			for _, s := range d.Samples {
				subjects[s.Group]++
				if ids[s.ID] {
					t.Fatalf("duplicate id %s", s.ID)
				}
				ids[s.ID] = true
				if len(s.Choices) < 3 || s.Target == "" || s.Input == "" {
					t.Fatalf("incomplete sample %+v", s)
				}
			}
			if tt.subjects > 0 && len(subjects) != tt.subjects {
				t.Errorf("subjects = %d, want %d", len(subjects), tt.subjects)
			}
			if d.Samples[0].ID != tt.firstID {
				t.Errorf("first id = %s, want %s", d.Samples[0].ID, tt.firstID)
			}
			if tt.firstTgt != "" && d.Samples[0].Target != tt.firstTgt {
				t.Errorf("first target = %s, want %s", d.Samples[0].Target, tt.firstTgt)
			}
			if tt.devPerSubj > 0 {
				ex := d.Extra.(*extra)
				total := 0
				for s := range subjects {
					if len(ex.dev[s]) != tt.devPerSubj {
						t.Errorf("subject %s: %d dev examples, want %d", s, len(ex.dev[s]), tt.devPerSubj)
					}
					total += len(ex.dev[s])
				}
				if total != tt.subjects*tt.devPerSubj {
					t.Errorf("dev total = %d", total)
				}
			}
			if len(d.Files) == 0 {
				t.Error("no file digests recorded")
			}
			// Every subject has an official category.
			for s := range subjects {
				if _, ok := tt.task.b.agg.categories(s); !ok {
					t.Errorf("subject %s has no category", s)
				}
			}
		})
	}
}

func BenchmarkLoadMMLU(b *testing.B) {
	root := sharedtest.Datasets(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MMLU().Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: -1}); err != nil {
			b.Fatal(err)
		}
	}
}
