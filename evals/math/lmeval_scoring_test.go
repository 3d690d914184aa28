package math

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/scorers/mathx"
)

// lmevalScoring is testdata/lmeval/scoring.json: lm-eval's strict-match
// and flexible-extract verdicts on synthetic responses around the answer
// extraction edge cases (gen_scoring.py).
type lmevalScoring struct {
	Commit      string `json:"lm_eval_commit"`
	GSM8KSHA256 string `json:"gsm8k_test_sha256"`
	MGSMSHA256  string `json:"mgsm_en_sha256"`
	Cases       []struct {
		Task     string        `json:"task"`
		Doc      int           `json:"doc"`
		Family   string        `json:"family"`
		Response string        `json:"response"`
		Strict   lmevalVerdict `json:"strict-match"`
		Flexible lmevalVerdict `json:"flexible-extract"`
	} `json:"cases"`
}

type lmevalVerdict struct {
	Extracted  string `json:"extracted"`
	ExactMatch bool   `json:"exact_match"`
}

// scoringTask maps an lm-eval task name to pocketeval's task and the
// samples whose golds lm-eval's documents carry.
func scoringTask(t *testing.T, name string, gsm8k, mgsm []evals.Sample) (evals.Task, []evals.Sample) {
	switch {
	case name == "gsm8k":
		return GSM8K{}, gsm8k
	case name == "gsm8k_cot_llama":
		return GSM8K{}, gsm8k
	case strings.HasPrefix(name, "mgsm_native_cot_"):
		return MGSM{Lang: strings.TrimPrefix(name, "mgsm_native_cot_")}, mgsm
	}
	t.Fatalf("scoring.json: unknown task %q", name)
	return nil, nil
}

// Deviations are the documented ways pocketeval's verdict differs from
// lm-eval's (docs/math.md, "Agreement with lm-eval"); every other case must
// agree. Each is recognised from the case itself, never from its family
// name, so a new disagreement of another kind fails the test.
const (
	devReasoning  = "reasoning dropped"           // <think>…</think> is not read
	devMGSMPunct  = "MGSM punctuation"            // lm-eval's ignore_punctuation: -18 = 18, 70.000 = 70000
	devMinus      = "Unicode minus"               // −18 is negative
	devValues     = "numbers compared as values"  // 18.00 = 18
	devFullWidth  = "full-width digits"           // １８ = 18
	devSeparators = "no-break space thousands"    // 70 000 = 70000
	devDash       = "hyphen between numbers"      // 25-18 ends in 18, not -18
	devFraction   = "fractions"                   // 18/1 = 18
	devStrictCue  = "strict cue forms"            // "####", "The answer is", "The final answer is: **N**", "答案是N"
	devFlexOrder  = "flexible prefers box or cue" // \boxed{N}, then the last cue, before the last number
)

// deviation names the documented deviation that explains a disagreement,
// or "" when none does.
func deviation(task, filter, response, gold, lmExtracted string, lmOK, ours bool, ourAnswer, ourMethod string, cues []string) string {
	goldN, _ := mathx.ParseNumber(gold)
	lmN, lmParsed := mathx.ParseNumber(lmExtracted)
	ourN, _ := mathx.ParseNumber(ourAnswer)
	switch {
	case strings.Contains(response, "<think>"):
		return devReasoning
	case !ours && lmOK && strings.HasPrefix(task, "mgsm") && lmParsed && !lmN.Equal(goldN):
		return devMGSMPunct
	case !ours && lmOK && strings.Contains(response, "\u2212"):
		return devMinus
	case filter == "flexible" && !ours && lmOK && cueMethod(ourMethod) && lmParsed && !lmN.Equal(ourN):
		// "#### 25 - 7 = 18": the cue's 25, lm-eval's last number 18.
		return devFlexOrder
	case !ours || lmOK:
		return ""
	// From here pocketeval accepts an answer lm-eval rejects.
	case lmParsed && lmN.Equal(ourN):
		return devValues
	case strings.ContainsAny(response, "０１２３４５６７８９"):
		return devFullWidth
	case strings.Contains(response, "\u00a0"):
		return devSeparators
	case strings.HasPrefix(lmExtracted, "-") && strings.Contains(response, "-"+strings.TrimPrefix(lmExtracted, "-")):
		return devDash
	case strings.Contains(response, ourAnswer+"/1"):
		return devFraction
	case filter == "strict" && lmExtracted == "[invalid]":
		// lm-eval's strict regex found nothing; pocketeval read a cue
		// form or a cue of the task's other prompt style.
		low := strings.ToLower(response)
		for _, c := range append([]string{"####"}, cues...) {
			if strings.Contains(low, strings.ToLower(c)) {
				return devStrictCue
			}
		}
	case filter == "flexible" && cueMethod(ourMethod):
		return devFlexOrder
	}
	return ""
}

// cueMethod reports whether a flexible extraction came from a box or a cue
// rather than from the last number.
func cueMethod(m string) bool {
	return m == mathx.MethodBoxed || m == mathx.MethodCue || m == mathx.MethodHash
}

func TestLMEvalScoring(t *testing.T) {
	var g lmevalScoring
	readJSON(t, filepath.Join("testdata", "lmeval", "scoring.json"), &g)
	data := sharedtest.Datasets(t)
	for rel, want := range map[string]string{"gsm8k/test.jsonl": g.GSM8KSHA256, "mgsm/mgsm_en.tsv": g.MGSMSHA256} {
		if got, ok := fileSHA256(t, filepath.Join(data, rel)); !ok || got != want {
			t.Skipf("%s is not the file scoring.json was made from", rel)
		}
	}
	ctx := context.Background()
	load := func(task evals.Task) []evals.Sample {
		d, err := task.Load(ctx, evals.LoadConfig{DataDir: data, NumFewshot: -1})
		if err != nil {
			t.Fatal(err)
		}
		return d.Samples
	}
	gsm8k, mgsm := load(GSM8K{}), load(MGSM{Lang: "en"})
	counts := map[string]int{}
	agree := map[string]int{}
	for _, c := range g.Cases {
		task, samples := scoringTask(t, c.Task, gsm8k, mgsm)
		cues := []string{"The final answer is", "The answer is"}
		if m, ok := task.(MGSM); ok {
			cues = m.lang().Cues
		}
		s := samples[c.Doc]
		sc, err := task.Score(ctx, s, evals.Output{Text: c.Response})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name, answer, method string
			got                  float64
			want                 lmevalVerdict
		}{
			{"strict", sc.Details["strict_answer"].(string), mathx.MethodCue, sc.Values[MetricStrict], c.Strict},
			{"flexible", sc.Extracted, sc.Details["flexible_method"].(string), sc.Values[MetricFlexible], c.Flexible},
		} {
			if (f.got == 1) == f.want.ExactMatch {
				agree[f.name]++
				continue
			}
			d := deviation(c.Task, f.name, c.Response, s.Target, f.want.Extracted, f.want.ExactMatch, f.got == 1, f.answer, f.method, cues)
			if d == "" {
				t.Errorf("%s %s doc %d (%s): gold %s, %q: lm-eval %q exact_match=%v, pocketeval %q %v",
					c.Task, f.name, c.Doc, c.Family, s.Target, c.Response, f.want.Extracted, f.want.ExactMatch, f.answer, f.got)
				continue
			}
			counts[d]++
		}
	}
	checkDeviationDoc(t, counts)
	names := make([]string, 0, len(counts))
	for d := range counts {
		names = append(names, d)
	}
	sort.Strings(names)
	t.Logf("lm-eval %s: %d cases; strict agrees on %d, flexible on %d", g.Commit, len(g.Cases), agree["strict"], agree["flexible"])
	for _, d := range names {
		t.Logf("%5d documented deviations: %s", counts[d], d)
	}
}

// TestDeviationUnexplained checks that disagreements of other kinds are
// not taken for documented deviations.
func TestDeviationUnexplained(t *testing.T) {
	cues := []string{"The final answer is", "The answer is"}
	tests := []struct {
		name, task, filter, response, lm string
		lmOK, ours                       bool
		answer, method, want             string
	}{
		{"first cue where lm-eval takes the last", "gsm8k_cot_llama", "strict", "The final answer is 25. No: The final answer is 18.", "18.", true, false, "25", mathx.MethodCue, ""},
		{"last number over lm-eval's", "gsm8k", "flexible", "18 apples and 25 pears", "25", false, true, "18", mathx.MethodLastNumber, ""},
		{"strict without a cue", "gsm8k", "strict", "So 18.", "[invalid]", false, true, "18", mathx.MethodCue, ""},
		{"strict misses lm-eval's cue", "mgsm_native_cot_en", "strict", "The answer is 18.", "18.", true, false, "", mathx.MethodCue, ""},
		{"MGSM sign", "mgsm_native_cot_en", "strict", "The answer is -18.", "-18.", true, false, "-18", mathx.MethodCue, devMGSMPunct},
		{"first cue where lm-eval takes the last, gold first", "gsm8k_cot_llama", "strict", "The final answer is 18. No: The final answer is 25.", "25.", false, true, "18", mathx.MethodCue, ""},
		{"last number where lm-eval's is the same", "gsm8k", "flexible", "#### 18 - 7 = 11", "11", true, false, "11", mathx.MethodLastNumber, ""},
		{"cue over last number", "gsm8k", "flexible", "#### 25 - 7 = 18", "18", true, false, "25", mathx.MethodHash, devFlexOrder},
		{"cue form", "gsm8k", "strict", "The final answer is: 18", "[invalid]", false, true, "18", mathx.MethodCue, devStrictCue},
	}
	for _, tt := range tests {
		if got := deviation(tt.task, tt.filter, tt.response, "18", tt.lm, tt.lmOK, tt.ours, tt.answer, tt.method, cues); got != tt.want {
			t.Errorf("%s: deviation = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// checkDeviationDoc requires docs/math.md's table of deviations to give
// each deviation's count.
func checkDeviationDoc(t *testing.T, counts map[string]int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "math.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 4 {
			rows[cells[0]] = strings.ReplaceAll(cells[3], ",", "")
		}
	}
	for d, n := range counts {
		if got := rows[d]; got != strconv.Itoa(n) {
			t.Errorf("docs/math.md: deviation %q counted %q, the test finds %d", d, got, n)
		}
	}
}
