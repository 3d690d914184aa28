package bbh

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// FuzzReadTask: a BBH task file on any input gives an error naming the
// file or samples with unique ids.
func FuzzReadTask(f *testing.F) {
	f.Add([]byte(`{"canary": "x", "examples": [{"input": "not ( True ) and ( True ) is", "target": "False"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "boolean_expressions.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		samples, err := readTask(path, "boolean_expressions", &evals.Dataset{Files: map[string]string{}})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range samples {
			if s.ID == "" || seen[s.ID] {
				t.Errorf("id %q empty or repeated", s.ID)
			}
			seen[s.ID] = true
		}
	})
}

// FuzzParsePrompt: any prompt file parses or fails without panicking.
func FuzzParsePrompt(f *testing.F) {
	f.Add("BIG-Bench Hard canary\n-----\nEvaluate the result.\n\nQ: True and False is\nA: Let's think step by step.\nFalse. So the answer is False.\n\nQ: not True is\nA: Let's think step by step.\nSo the answer is False.")
	f.Fuzz(func(t *testing.T, raw string) {
		_, _ = parsePrompt(raw)
	})
}

// refExtractFlexible is extractFlexible running its regular expressions
// on every response (no prefilter).
func refExtractFlexible(response string, mc bool) (string, bool) {
	response, _, _ = strings.Cut(response, "\n\nQ:")
	if loc := reAnswerIs.FindStringIndex(response); loc != nil {
		after := response[loc[1]:]
		after, _, _ = strings.Cut(after, "\n")
		return after, true
	}
	if mc {
		if m := reLastOption.FindAllStringSubmatch(response, -1); m != nil {
			return "(" + m[len(m)-1][1] + ")", true
		}
	}
	if r := strings.TrimSpace(response); r != "" && !strings.Contains(r, "\n") && len(r) <= maxBareAnswer {
		return r, true
	}
	return "", false
}

// TestExtractFlexiblePrefilter: the prefilters never change what the
// flexible extraction finds.
func TestExtractFlexiblePrefilter(t *testing.T) {
	pieces := []string{"the", "The", " ", "  ", "\n", "\t", "answer", "ANSWER", "Answer", "anſwer", "answeR", "nswer", "is", "IS", "iſ", "final", ":", "(", ")", "(A)", "(R)", "(S)", "B", "x", "Q:", "\n\nQ:", ".", "日本", "\u017f"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		for _, mc := range []bool{false, true} {
			got, gok := extractFlexible(text, mc)
			want, wok := refExtractFlexible(text, mc)
			if got != want || gok != wok {
				t.Fatalf("extractFlexible(%q, %v) = %q %v, reference %q %v", text, mc, got, gok, want, wok)
			}
		}
	}
}
