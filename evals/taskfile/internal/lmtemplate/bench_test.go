package lmtemplate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
)

// BenchmarkCorpus renders every case of testdata/corpus.jsonl (compiled
// once): the task-file templates of the repository over their documents.
func BenchmarkCorpus(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "corpus.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	t := &testing.T{}
	cases := readCorpus(t, raw)
	var tmpls []*Template
	var docs []pyvalue.Value
	for _, c := range cases {
		tm, err := Compile(c.Template, jinja.DefaultLimits)
		if err != nil {
			if c.Output != nil {
				b.Fatal(err)
			}
			continue // jinja2 refuses it too
		}
		tmpls = append(tmpls, tm)
		docs = append(docs, docOf(t, c.Doc))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, tm := range tmpls {
			tm.Render(docs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tmpls)), "ns/render")
}
