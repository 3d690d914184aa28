package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sampleSeeds = []string{
	`{"task":"gsm8k","id":"0","index":0,"response":"The answer is 18.","extracted":"18","target":"18","scores":{"exact_match_flexible":1,"exact_match_strict":1},"finish_reason":"stop"}` + "\n",
	`{"task":"gsm8k","id":"1","index":1,"response":"","scores":null,"error":"openai: giving up after 3 attempts"}` + "\n" + `{"task":"gsm8k","id":"1","index":1,"response":"7","scores":{"exact_match_flexible":0}}` + "\n",
	`{"task":"ifeval","id":"1000","repeat":2,"index":0,"response":"x","scores":{"prompt_level_strict_acc":1},"timings":{"total_ms":12}}` + "\n" + `{"task":"ifeval","id":"10`,
}

// FuzzReadSamples: a samples file either is an error naming the file and
// line, or gives records with non-empty, unique keys, accounts for every
// byte (complete lines plus a torn tail), and reads back the same after
// RewriteSorted.
func FuzzReadSamples(f *testing.F) {
	for _, s := range sampleSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "gsm8k.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		recs, rep, err := ReadSamples(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if rep.GoodBytes+int64(rep.TornBytes) != int64(len(data)) {
			t.Errorf("good %d + torn %d bytes != %d", rep.GoodBytes, rep.TornBytes, len(data))
		}
		seen := map[Key]bool{}
		for _, r := range recs {
			if r.ID == "" || seen[r.Key()] {
				t.Errorf("record key %v empty or repeated", r.Key())
			}
			seen[r.Key()] = true
		}
		again := filepath.Join(dir, "again.jsonl")
		if err := RewriteSorted(again, recs); err != nil {
			t.Fatalf("RewriteSorted: %v", err)
		}
		back, rep2, err := ReadSamples(again)
		if err != nil || len(back) != len(recs) || rep2.TornBytes != 0 || rep2.Duplicates != 0 {
			t.Errorf("rewritten file reads back %d records (torn %d, duplicates %d, %v), want %d", len(back), rep2.TornBytes, rep2.Duplicates, err, len(recs))
		}
	})
}

// FuzzReadManifestSummary: manifest.json and summary.json on any input
// read or fail with an error naming the file.
func FuzzReadManifestSummary(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"pocketeval_version":"dev","created":"2026-01-01T00:00:00Z","config":{"tasks":[{"name":"gsm8k","version":"1"}]}}`))
	f.Add([]byte(`{"schema_version":1,"tasks":{"gsm8k":{"metrics":{"exact_match_flexible":{"mean":0.5,"stderr":0.1,"n":2}},"primary":"exact_match_flexible","samples":2,"failed":0}}}`))
	f.Add([]byte(`{"schema_version":99}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, name := range []string{ManifestFile, SummaryFile} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ReadManifest(dir); err != nil && !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) {
			t.Errorf("manifest error does not name the file: %v", err)
		}
		if _, err := ReadSummary(dir); err != nil && !strings.Contains(err.Error(), filepath.Join(dir, SummaryFile)) {
			t.Errorf("summary error does not name the file: %v", err)
		}
	})
}
