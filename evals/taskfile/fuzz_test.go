package taskfile

import (
	"strings"
	"testing"
)

// FuzzParseDocs: a task file's data file (JSON lines, a JSON array, CSV,
// TSV) on any input is an error naming the file, or documents each with
// the line it starts on.
func FuzzParseDocs(f *testing.F) {
	f.Add(".jsonl", []byte("{\"question\": \"1+1?\", \"answer\": 2}\n{\"question\": \"2+2?\", \"answer\": 4.0}\n"))
	f.Add(".json", []byte(`[{"text": "a", "label": 0}, {"text": "b", "label": 1}]`))
	f.Add(".csv", []byte("text,label\n\"a, b\",0\nc,1\n"))
	f.Add(".tsv", []byte("text\tlabel\na\t0\n"))
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		path := "/data/split" + ext
		docs, lines, err := parseDocs(path, data)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(docs) != len(lines) {
			t.Fatalf("%d documents but %d line numbers", len(docs), len(lines))
		}
		for i, l := range lines {
			if l < 1 || i > 0 && l < lines[i-1] {
				t.Errorf("document %d on line %d after line %d", i, l, lines[max(i-1, 0)])
			}
		}
	})
}
