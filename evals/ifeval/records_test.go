package ifeval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// TestBadRecordsRefused: a record with a duplicate key, a field given
// twice, an unknown instruction id, a kwarg of the wrong type, a missing
// prompt or kwargs that do not match the instructions is refused with
// file, line and field, unless SkipBadRecords; the run used to drop it and
// exit 0 with the warning only inside summary.json. Issue 21.
func TestBadRecordsRefused(t *testing.T) {
	t.Parallel()
	good := `{"key": 1, "prompt": "Say hi. No commas.", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`
	for _, c := range []struct{ name, line, want string }{
		{"duplicate key", `{"key": 1, "prompt": "again", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`, `:2: field "key": duplicate key 1 (first on line 1)`},
		{"field twice", `{"key": 2, "prompt": "a", "prompt": "b", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`, `:2: field "prompt": appears twice in the record`},
		{"unknown instruction", `{"key": 3, "prompt": "p", "instruction_id_list": ["made:up"], "kwargs": [{}]}`, `:2: field "instruction_id_list/kwargs": instruction 0: unknown IFEval instruction "made:up"`},
		{"kwarg type", `{"key": 4, "prompt": "p", "instruction_id_list": ["length_constraints:number_words"], "kwargs": [{"relation": "at least", "num_words": "300"}]}`, `:2: field "instruction_id_list/kwargs"`},
		{"missing prompt", `{"key": 5, "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`, `:2: field "prompt": missing`},
		{"kwargs mismatch", `{"key": 6, "prompt": "p", "instruction_id_list": ["punctuation:no_comma", "change_case:english_lowercase"], "kwargs": [{}]}`, `:2: field "kwargs": 1 entries for 2 instructions`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ifeval.jsonl")
			if err := os.WriteFile(path, []byte(good+"\n"+c.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := EN.Load(context.Background(), evals.LoadConfig{DatasetFile: path})
			var de *DataError
			if !errors.As(err, &de) || !de.Skippable || !strings.Contains(err.Error(), path+c.want) {
				t.Errorf("Load = %v, want a *DataError %q", err, path+c.want)
			}
			ds, err := EN.Load(context.Background(), evals.LoadConfig{DatasetFile: path, SkipBadRecords: true})
			if err != nil || len(ds.Samples) != 1 || len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0], path+":2:") {
				t.Errorf("with SkipBadRecords: %v, %+v", err, ds)
			}
		})
	}
}
