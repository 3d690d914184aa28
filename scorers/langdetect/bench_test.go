package langdetect

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// BenchmarkDetectGPT4 detects the language of the 541 GPT-4 IFEval
// responses (profiles loaded beforehand), single-threaded.
func BenchmarkDetectGPT4(b *testing.B) {
	path := filepath.Join(sharedtest.Conformance(b), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl")
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct{ Response string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, r.Response)
	}
	d := New(0)
	d.Detect("warm up")
	b.ResetTimer()
	for range b.N {
		for _, s := range texts {
			d.Detect(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
}

// BenchmarkLoad measures reading the embedded profiles.
func BenchmarkLoad(b *testing.B) {
	for range b.N {
		files, err := archiveFiles()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := buildModel(files); err != nil {
			b.Fatal(err)
		}
	}
}
