package replay

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

var predictionSeeds = []string{
	`{"task": "gsm8k", "id": "0", "response": "The answer is 18.", "finish_reason": "stop"}`,
	`{"task": "gsm8k", "id": 3, "repeat": 1, "response": "7"}`,
	`{"prompt": "Write a haiku.", "response": "Leaves fall"}`,
	`{"task_id": "HumanEval/0", "completion": "    return a + b\n"}`,
	`{"task": "arc_challenge", "id": "Mercury_1", "response": "", "loglik_requests": [{"context": "Q", "continuation": " A"}], "loglik_results": [{"logprob": -1.5, "is_greedy": true, "tokens": 1}]}`,
}

// FuzzParseLine: a predictions line either parses into a prediction whose
// fields are what encoding/json reads from the same line, or is a
// *ParseError naming the file and the line.
func FuzzParseLine(f *testing.F) {
	for _, s := range predictionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := parseLine(line, "preds.jsonl", 7, false, interner{})
		// Read lazily (the response left in the file), the line is
		// accepted or refused alike.
		if _, lerr := parseLine(line, "preds.jsonl", 7, true, interner{}); (lerr == nil) != (err == nil) {
			t.Fatalf("parsed eagerly: %v; lazily: %v", err, lerr)
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "preds.jsonl" || pe.Line != 7 {
				t.Fatalf("error %v is not a *ParseError at preds.jsonl:7", err)
			}
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatalf("accepted a line encoding/json refuses (%v): %q", err, line)
		}
		want := func(field, got string) {
			v, ok := doc[field]
			if !ok || v == nil {
				if got != "" && !(field == "finish_reason" && got == "stop") {
					t.Errorf("%s = %q, but the line has none", field, got)
				}
				return
			}
			if s, isStr := v.(string); isStr && s != got && utf8.ValidString(got) {
				t.Errorf("%s = %q, encoding/json reads %q", field, got, s)
			}
		}
		switch p.Form {
		case FormHumanEval:
			want("task_id", p.ID)
			want("completion", p.Response)
		case FormPocketeval:
			want("task", p.Task)
			want("response", p.Response)
			if _, isStr := doc["id"].(string); isStr {
				want("id", p.ID)
			}
		case FormIFEval:
			want("prompt", p.Prompt)
			want("response", p.Response)
		default:
			t.Fatalf("prediction of unknown form %q", p.Form)
		}
	})
}

// FuzzRead: a predictions file never panics; an error names the file.
func FuzzRead(f *testing.F) {
	f.Add([]byte(strings.Join(predictionSeeds, "\n") + "\n"))
	f.Add([]byte(predictionSeeds[0] + "\n" + predictionSeeds[0] + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Read(strings.NewReader(string(data)), "preds.jsonl")
		if err != nil && !strings.Contains(err.Error(), "preds.jsonl") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}

// TestDuplicateKeyRefused: a line naming a field twice is refused — gjson
// would serve the first value and encoding/json the last, so the line has
// no one meaning. Found by FuzzParseLine.
func TestDuplicateKeyRefused(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"task":"gsm8k","id":"1","id":"2","response":"x"}`,
		`{"task":"gsm8k","id":"1","response":"7","response":"8"}`,
		`{"prompt":"a","response":"x","prompt":"b"}`,
	} {
		_, err := parseLine([]byte(line), "preds.jsonl", 3, true, interner{})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 3 || pe.Field == "" || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: err = %v, want a *ParseError naming the repeated field", line, err)
		}
	}
}

// FuzzUnquote: a JSON string literal decodes as gjson decodes it.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u65e5\ud83d\ude00"`, `"\ud800 lone \udc00 \ud800\u0041"`, `"x\uD83D\uDE00y"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v := gjson.Parse(raw)
		if !gjson.Valid(raw) || v.Type != gjson.String || v.Raw != raw {
			return
		}
		if got, want := unquote(raw), v.String(); got != want {
			t.Fatalf("unquote(%s) = %q, gjson %q", raw, got, want)
		}
	})
}
