package bbh

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// jsonExamples is readTask's encoding/json decoding: the inputs and
// targets, or ok == false when it fails or a field is missing.
func jsonExamples(raw []byte) (inputs, targets []string, ok bool) {
	var file struct {
		Examples []struct {
			Input  *string `json:"input"`
			Target *string `json:"target"`
		} `json:"examples"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, nil, false
	}
	for _, e := range file.Examples {
		if e.Input == nil || e.Target == nil {
			return nil, nil, false
		}
		inputs = append(inputs, *e.Input)
		targets = append(targets, *e.Target)
	}
	return inputs, targets, true
}

// checkFast: where fastExamples reads a file, encoding/json reads it
// without error and to the same strings.
func checkFast(t *testing.T, raw []byte) bool {
	t.Helper()
	in, tg, ok := fastExamples(raw)
	if !ok {
		return false
	}
	jin, jtg, jok := jsonExamples(raw)
	if !jok {
		t.Fatalf("fastExamples read %q, encoding/json refuses it", raw)
	}
	if !slices.Equal(in, jin) || !slices.Equal(tg, jtg) {
		t.Fatalf("%q:\nfast %q %q\njson %q %q", raw, in, tg, jin, jtg)
	}
	return true
}

var fastSeeds = []string{
	`{"canary": "x", "examples": [{"input": "not ( True ) and ( True ) is", "target": "False"}]}`,
	`{"examples": []}`,
	`{}`,
	` {"examples":[{"target":"a\n\"b\"\\\/\b\f\r\t","input":"\u00e9\u4e2d\u0000"}] , "x":{"a":[["b"],{}]}} `,
	`{"examples": [{"input": "a", "target": "b", "Input": "c"}]}`,
	`{"examples": [{"input": "a", "target": "b", "input": "c"}]}`,
	`{"Examples": [{"input": "a", "target": "b"}]}`,
	`{"examples": [{"ınput": "a", "target": "b"}]}`,
	`{"examples": [{"input": "\ud83d\ude00", "target": "b"}]}`,
	`{"examples": [{"input": "a", "target": null}]}`,
	`{"examples": [{"input": "a", "target": "b", "n": 1}]}`,
	`{"examples": [{"input": "a", "target": "b"}], "examples": []}`,
	`{"examples": [{"input": "a", "target": "b"},]}`,
	`{"examples": [{"input": "a"}]}`,
	"{\"examples\": [{\"input\": \"a\xff\", \"target\": \"b\"}]}",
	"{\"examples\": [{\"input\": \"a\tb\", \"target\": \"b\"}]}",
	`{"examples": [{"input": "a", "target": "b"}]} x`,
	`{"examples": [{"input": "a", "target": "b"}]`,
	`[]`,
	`{"examples": [{"input": "a", "target": "\u12"}]}`,
	`{"examples": [{"input": "a", "target": "\x"}]}`,
}

// TestFastExamplesMatchesJSON: every shared BBH file is read by
// fastExamples, to encoding/json's strings; the seeds' unusual forms
// either match encoding/json too or are left to it.
func TestFastExamplesMatchesJSON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedtest.Datasets(t), "bbh", "bbh", "*.json"))
	if len(files) != numTasks {
		t.Fatalf("%d task files, want %d", len(files), numTasks)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !checkFast(t, raw) {
			t.Errorf("%s: not read by fastExamples", f)
		}
	}
	read := 0
	for _, s := range fastSeeds {
		if checkFast(t, []byte(s)) {
			read++
		}
	}
	if read < 3 {
		t.Errorf("fastExamples read %d seeds, want at least 3", read)
	}
}

// FuzzFastExamples: fastExamples reads only what encoding/json reads, to
// the same strings.
func FuzzFastExamples(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkFast(t, raw) })
}
