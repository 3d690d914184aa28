package choice

import (
	"math"
	"testing"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	opts := []string{"Planetary density will decrease.", "Planetary years will become longer.", "Planetary days will become shorter.", "Planetary gravity will become stronger."}
	tests := []struct {
		name       string
		text       string
		wantStrict string // "" = no strict extraction
		want       string // flexible; "" = extraction failure
		method     string
	}{
		{"answer colon", "Answer: B", "B", "B", MethodAnswerStatement},
		{"answer colon lower keyword", "answer:C", "C", "C", MethodAnswerStatement},
		{"the answer is", "Let me think. Days get shorter, so the answer is C.", "C", "C", MethodAnswerStatement},
		{"the answer is bracketed", "So the answer is (D).", "D", "D", MethodAnswerStatement},
		{"markdown bold", "**Answer:** B", "B", "B", MethodAnswerStatement},
		{"correct answer option", "The correct answer is option A because...", "A", "A", MethodAnswerStatement},
		{"answer is not then is", "The answer is not A. The answer is C.", "C", "C", MethodAnswerStatement},
		{"first statement wins over runaway", "Answer: B\n\nQuestion: next one\nAnswer: D", "B", "B", MethodAnswerStatement},
		{"answer without colon or verb is not a statement", "The answer A is wrong; it must be (C).", "", "C", MethodMention},
		{"answer is colon bold option", "The correct answer is: **B. Planetary years will become longer.**", "B", "B", MethodAnswerStatement},
		{"answer on next line", "Final Answer:\nD", "D", "D", MethodAnswerStatement},
		{"would be", "So the answer would be A.", "A", "A", MethodAnswerStatement},
		{"correct option colon", "Correct option: C", "", "C", MethodMention},
		{"answer word then prose", "Answer: Because the planet spins faster, C", "", "C", MethodLoneLetter},
		{"zh colon", "答案：B", "B", "B", MethodAnswerStatement},
		{"zh shi", "根据题意，正确答案是C。", "C", "C", MethodAnswerStatement},
		{"zh wei bracket", "所以答案为（A）", "A", "A", MethodAnswerStatement},
		{"zh full-width letter", "答案：Ｄ", "D", "D", MethodAnswerStatement},
		{"zh lower-case letter", "答案是b", "B", "B", MethodAnswerStatement},
		{"zh markdown", "**答案：** **C**", "C", "C", MethodAnswerStatement},
		{"zh option word", "答案为选项 D。", "D", "D", MethodAnswerStatement},
		{"zh explanation is not an answer", "答案解析：A项错误。", "", "", ""},
		{"ruled out letters are skipped", "A is wrong and B is incorrect, so C.", "", "C", MethodLoneLetter},
		{"zh ruled out letters are skipped", "A项错误，B不正确，只剩D", "", "D", MethodLoneLetter},
		{"zh ying xuan", "答案应选B。", "B", "B", MethodAnswerStatement},
		{"zh select", "分析可知，故选D。", "", "D", MethodChineseSelect},
		{"zh option correct", "选项B正确。", "", "B", MethodChineseSelect},
		{"zh item correct", "A项错误，C项正确。", "", "C", MethodChineseSelect},
		{"zh option mention", "我认为是选项B。", "", "B", MethodMention},
		{"lone letter", "B", "", "B", MethodLeadingLetter},
		{"bold letter", "**C**", "", "C", MethodLeadingLetter},
		{"bold letter with text", "**C. Planetary days will become shorter.**", "", "C", MethodLeadingLetter},
		{"instruction echoed", "Answer: X", "", "", ""},
		{"lone letter padded", "  C\n", "", "C", MethodLeadingLetter},
		{"letter dot text", "B. Planetary years will become longer.", "", "B", MethodLeadingLetter},
		{"bracketed leading", "(D) Planetary gravity", "", "D", MethodLeadingLetter},
		{"letter paren", "A) density", "", "A", MethodLeadingLetter},
		{"mention in prose", "I would pick (C) here.", "", "C", MethodMention},
		{"option text exact", "planetary days will become shorter", "", "C", MethodOptionText},
		{"option text inside prose", "I believe planetary days will become shorter.", "", "C", MethodOptionText},
		{"lone capital in prose", "It has to be C, given the faster spin.", "", "C", MethodLoneLetter},
		{"article is not a letter", "A faster spin means shorter days.", "", "", ""},
		{"two mentions ambiguous", "Either (A) or (B).", "", "", ""},
		{"letter out of range", "Answer: F", "", "", ""},
		{"empty", "", "", "", ""},
		{"refusal", "I don't know.", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ExtractStrict(tt.text, len(opts))
			if s.Letter != tt.wantStrict {
				t.Errorf("ExtractStrict(%q) = %q, want %q", tt.text, s.Letter, tt.wantStrict)
			}
			f := Extract(tt.text, opts)
			if f.Letter != tt.want || f.Method != tt.method {
				t.Errorf("Extract(%q) = %q via %q, want %q via %q", tt.text, f.Letter, f.Method, tt.want, tt.method)
			}
			if f.Found() != (tt.want != "") {
				t.Errorf("Found() = %v", f.Found())
			}
		})
	}
}

func TestExtractOptionTextPrefersLongest(t *testing.T) {
	t.Parallel()
	opts := []string{"True, True", "False, False", "True, False", "False, True"}
	if got := Extract("True, False", opts); got.Letter != "C" {
		t.Fatalf("exact option text: got %q, want C", got.Letter)
	}
	zh := []string{"农业生产工具", "土地", "劳动力", "资金"}
	if got := Extract("最主要的生产资料是土地。", zh); got.Letter != "B" {
		t.Fatalf("zh option text: got %q (%s), want B", got.Letter, got.Method)
	}
}

func TestLetterIndex(t *testing.T) {
	t.Parallel()
	check := func(in string, want int) {
		t.Helper()
		if got := LetterIndex(in); got != want {
			t.Errorf("LetterIndex(%q) = %d, want %d", in, got, want)
		}
	}
	check("A", 0)
	check(" d ", 3)
	check("AB", -1)
	check("1", -1)
	check("", -1)
}

func TestPickLoglik(t *testing.T) {
	t.Parallel()
	res := func(lps ...float64) []float64 { return lps }
	tests := []struct {
		name     string
		results  []float64
		texts    []string
		wantIdx  int
		wantNorm int
		wantErr  bool
	}{
		// Raw: B (-3) beats A (-4); per character A (-4/8) beats B (-3/2).
		{"norm differs", res(-4, -3, -9), []string{"abcdefgh", "ab", "abc"}, 1, 0, false},
		{"tie goes first", res(-2, -2), []string{"x", "y"}, 0, 0, false},
		{"multibyte counts characters", res(-6, -4), []string{"土地资金", "劳动"}, 1, 0, false},
		{"count mismatch", res(-1), []string{"a", "b"}, 0, 0, true},
		{"nan", res(math.NaN(), -1), []string{"a", "b"}, 0, 0, true},
		{"empty", nil, nil, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PickLoglik(tt.results, tt.texts)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if p.Index != tt.wantIdx || p.NormIndex != tt.wantNorm {
				t.Errorf("got acc %d norm %d, want %d %d", p.Index, p.NormIndex, tt.wantIdx, tt.wantNorm)
			}
		})
	}
}
