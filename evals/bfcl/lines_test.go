package bfcl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// record is what Load reads of a line, the slow way.
type record struct {
	ID       string          `json:"id"`
	Question json.RawMessage `json:"question"`
	Function json.RawMessage `json:"function"`
}

// checkTopFields requires topFields and fastID, when they read line, to
// read what json.Unmarshal reads; it reports whether they did.
func checkTopFields(t *testing.T, line string) bool {
	t.Helper()
	vals := make([]string, 3)
	var fast record
	if !topFields(line, []string{"id", "question", "function"}, vals) || !fastID(vals[0], &fast.ID) {
		return false
	}
	if vals[1] != "" {
		fast.Question = json.RawMessage(vals[1])
	}
	if vals[2] != "" {
		fast.Function = json.RawMessage(vals[2])
	}
	var slow record
	if err := json.Unmarshal([]byte(line), &slow); err != nil {
		t.Fatalf("%q: read by topFields, json.Unmarshal: %v", line, err)
	}
	if fast.ID != slow.ID || !bytes.Equal(fast.Question, slow.Question) || !bytes.Equal(fast.Function, slow.Function) ||
		(fast.Question == nil) != (slow.Question == nil) || (fast.Function == nil) != (slow.Function == nil) {
		t.Fatalf("%q:\ntopFields      %q %q %q\njson.Unmarshal %q %q %q", line, fast.ID, fast.Question, fast.Function, slow.ID, slow.Question, slow.Function)
	}
	return true
}

var topFieldSeeds = []string{
	`{"id": "a", "question": "q", "function": [{"name": "f"}]}`,
	`{"id":"a","question":[[{"role":"user","content":"x"}]],"function":{"a":[1,2.5e3,-0,true,false,null,"\u00e9\n"]},"other":{}}`,
	`{}`, ` { } `, `{"id": null}`, `{"function": null, "id": "x"}`, `{"id": 1}`, `{"id": "a\"b"}`, `{"id": "\u0041"}`,
	`{"ID": "a"}`, `{"Id": "a", "id": "b"}`, `{"id": "a", "id": "b"}`, `{"i\u0064": "a"}`, `{"question": 1, "quest": 2}`,
	`{"id": "a",}`, `{"id" "a"}`, `{"id": "a"} x`, `["id"]`, `{"id": "a", "x": [1,]}`, `{"id": "a", "x": 01}`,
	`{"id": "a", "x": 1.}`, `{"id": "a", "x": -}`, `{"id": "a", "x": "\x"}`, `{"id": "a", "x": "\u12"}`, "{\"id\": \"a\x01\"}",
	"{\"id\": \"\xff\"}", "{\"x\": \"\xff\", \"id\": \"b\"}", `{"id": "a", "x": tru}`, `{"id": "a", "x": [[[[{}]]]]}`, `{"quéstion": 1}`,
	`{"id": "a", "x": 1e5, "y": 1E+5, "z": -1.5e-5}`, `{"function": "f", "function": "g"}`,
}

func TestTopFieldsAsUnmarshal(t *testing.T) {
	fast := 0
	for _, s := range topFieldSeeds {
		if checkTopFields(t, s) {
			fast++
		}
	}
	if fast < 5 {
		t.Errorf("only %d of %d seeds read by topFields", fast, len(topFieldSeeds))
	}
	deep := `{"id": "a", "x": ` + strings.Repeat("[", maxSkipDepth+5) + strings.Repeat("]", maxSkipDepth+5) + `}`
	checkTopFields(t, deep)
	// every line of the BFCL data files
	root := filepath.Join("..", "..", "..", "shared", "datasets", "bfcl")
	files, _ := filepath.Glob(filepath.Join(root, "v*", "*.json"))
	more, _ := filepath.Glob(filepath.Join(root, "v*", "possible_answer", "*.json"))
	if len(files) == 0 {
		t.Skipf("%s not available", root)
	}
	n := 0
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := eachLine(context.Background(), string(data), func(line int, raw string) error {
			if !checkTopFields(t, raw) {
				t.Errorf("%s:%d: not read by topFields", f, line)
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d lines of %d files", n, len(files)+len(more))
}

func FuzzTopFields(f *testing.F) {
	for _, s := range topFieldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTopFields(t, s) })
}

// TestEachLine: lines numbered from 1, blank ones skipped, "\r\n" and a
// last line without "\n" read.
func TestEachLine(t *testing.T) {
	var got []string
	_ = eachLine(context.Background(), "a\r\n\n  \n b \nc", func(line int, raw string) error {
		got = append(got, string(rune('0'+line))+string(raw))
		return nil
	})
	if strings.Join(got, ",") != "1a,4b,5c" {
		t.Errorf("lines %q", got)
	}
}
