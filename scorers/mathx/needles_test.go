package mathx

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// withoutNeedles is e with every needle test off: each pattern runs on
// every text, as before the tests existed (the reference).
func withoutNeedles(e *NumericExtractor) *NumericExtractor {
	c := *e
	c.strictNeed = make([]needles, len(e.strictNeed))
	c.flexibleNeed = make([]needles, len(e.flexibleNeed))
	return &c
}

// needleCues are the cue sets the tasks use (gsm8k, mgsm's languages) and
// cues with folding letters.
var needleCues = [][]string{
	{"The final answer is", "The answer is"},
	{"答案是"}, {"Ответ —", "Ответ:"}, {"La réponse est"}, {"Die Antwort lautet"}, {"答えは"},
	{"উত্তর হল", "The answer is"}, {"Jibu ni"}, {"Kask is"}, {"ÉTÉ"}, {""},
}

// needleFragments build texts near the patterns' edges: cues in other
// cases and spellings, the characters (?i) folds with k and s, colons,
// line starts, numbers and boxes.
var needleFragments = []string{
	"The answer is", "the ANSWER is", "The final answer is", "final answer:", "Final Answer：", "answer:",
	"Answer: ", "A:", "A：", "\nA: ", "\n  answer :", "#### ", "####", "答案是", "答案为", "答案：", "最终答案是",
	"最终答案:", "Ответ —", "ОТВЕТ:", "ответ:", "La réponse est", "LA RÉPONSE EST", "la Réponse est",
	"Die Antwort lautet", "答えは", "উত্তর হল", "Jibu ni", "KASK IS", "\u212aask is", "ſ", "the an\u017fwer is",
	"ANſWER:", "ÉTÉ", "été", "42", "-3", "$1,234", "3.5", "1/2", "\\boxed{7}", "\\boxed{x}", " ", "\n", ".",
	"**", "$", "\\(", "word", "三", "</think>", "<think>", "， ", "\u00a0", "１２",
}

// TestNeedlesChangeNothing: with the needle tests, Strict and Flexible
// give what they give when every pattern runs, on random texts made of
// the fragments that sit at the tests' edges.
func TestNeedlesChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 51))
	for _, cues := range needleCues {
		for _, last := range []bool{false, true} {
			e := NewNumericExtractor(cues...)
			if last {
				e = e.StrictLastCue()
			}
			ref := withoutNeedles(e)
			for range 3000 {
				var b strings.Builder
				for range 1 + rng.IntN(12) {
					b.WriteString(needleFragments[rng.IntN(len(needleFragments))])
					if rng.IntN(3) == 0 {
						b.WriteByte(' ')
					}
				}
				s := b.String()
				if got, want := e.Strict(s), ref.Strict(s); got.Answer != want.Answer || got.Method != want.Method || got.OK != want.OK {
					t.Fatalf("cues %q: Strict(%q) = %+v, every pattern gives %+v", cues, s, got, want)
				}
				if got, want := e.Flexible(s), ref.Flexible(s); got.Answer != want.Answer || got.Method != want.Method || got.OK != want.OK || got.FromThinking != want.FromThinking {
					t.Fatalf("cues %q: Flexible(%q) = %+v, every pattern gives %+v", cues, s, got, want)
				}
			}
		}
	}
}

// FuzzNeedles is TestNeedlesChangeNothing on arbitrary texts.
func FuzzNeedles(f *testing.F) {
	for _, s := range needleFragments {
		f.Add(s + " 12")
	}
	e := NewNumericExtractor("The final answer is", "The answer is", "La réponse est", "Ответ:")
	ref := withoutNeedles(e)
	el, refl := e.StrictLastCue(), ref.StrictLastCue()
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := e.Strict(s), ref.Strict(s); got.Answer != want.Answer || got.Method != want.Method {
			t.Errorf("Strict(%q) = %+v, every pattern gives %+v", s, got, want)
		}
		if got, want := el.Strict(s), refl.Strict(s); got.Answer != want.Answer || got.Method != want.Method {
			t.Errorf("last cue: Strict(%q) = %+v, every pattern gives %+v", s, got, want)
		}
		if got, want := e.Flexible(s), ref.Flexible(s); got.Answer != want.Answer || got.Method != want.Method || got.FromThinking != want.FromThinking {
			t.Errorf("Flexible(%q) = %+v, every pattern gives %+v", s, got, want)
		}
	})
}

func TestCueNeedles(t *testing.T) {
	for c, want := range map[string]string{
		"The answer is": "the answer is", "答案是": "答案是", "La réponse est": "ponse est", "Ответ:": ":", "": "",
	} {
		got := ""
		if ns := cueNeedles(c); ns != nil {
			got = ns[0]
		}
		if got != want {
			t.Errorf("cueNeedles(%q) = %q, want %q", c, got, want)
		}
	}
	if len(foldEscapes) != 2 {
		t.Errorf("foldEscapes = %q, want ſ and K", foldEscapes)
	}
}

// refCleanForNumbers is cleanForNumbers without its shortcuts: every
// replacer runs on every text.
func refCleanForNumbers(s string) string {
	if strings.ContainsAny(s, "\u00a0\u202f\u2009") {
		for narrowThousands.MatchString(s) {
			s = narrowThousands.ReplaceAllString(s, "$1$2")
		}
	}
	s = widthFolder.Replace(s)
	if strings.Contains(s, "答案") {
		s = hanziToDigits(s)
	}
	if strings.Contains(s, "<<") {
		s = calcAnnotation.ReplaceAllString(s, "")
	}
	s = latexNumberNoise.Replace(s)
	if strings.Contains(s, `\frac`) {
		s = texFracShort.ReplaceAllString(s, `\frac{$1}{$2}`)
		s = texFrac.ReplaceAllString(s, "$1$2/$3")
	}
	return s
}

// cleanFragments hold every character FoldWidth folds and every fragment
// latexNumberNoise replaces, and their near misses.
var cleanFragments = []string{
	"０", "１", "９", "．", "，", "－", "−", "–", "—", "＄", "％", "／", "＋", "＝", "：", "\u00a0", "\u2009", "\u202f",
	"\u00a1", "\u2010", "\uff01", `\$`, `\%`, `{,}`, `\!`, `\,`, `\;`, `\left`, `\right`, `\dfrac`, `\tfrac`, `\frac12`,
	`\frac{3}{4}`, "{", "}", `\`, "<<2*3=6>>", "答案是三", "1", "000", " ", "a", "é", "日本",
}

// TestCleanForNumbersShortcuts: FoldWidth and cleanForNumbers give what
// the replacers give on every text, on random texts of the fragments
// they replace.
func TestCleanForNumbersShortcuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 7))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(cleanFragments[rng.IntN(len(cleanFragments))])
		}
		s := b.String()
		if got, want := FoldWidth(s), widthFolder.Replace(s); got != want {
			t.Fatalf("FoldWidth(%q) = %q, the replacer gives %q", s, got, want)
		}
		if got, want := cleanForNumbers(s), refCleanForNumbers(s); got != want {
			t.Fatalf("cleanForNumbers(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzCleanForNumbers(f *testing.F) {
	for _, s := range cleanFragments {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanForNumbers(s), refCleanForNumbers(s); got != want {
			t.Errorf("cleanForNumbers(%q) = %q, want %q", s, got, want)
		}
	})
}

func TestContainsFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aAbBnNsSwWeErR :答案"
	for range 20000 {
		var s, n strings.Builder
		for range rng.IntN(12) {
			s.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		for range 1 + rng.IntN(3) {
			n.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		needle := lowerASCII(n.String())
		if got, want := containsFold(s.String(), needle), strings.Contains(lowerASCII(s.String()), needle); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, want %v", s.String(), needle, got, want)
		}
	}
}

// mathFragments are pieces of MATH answers near MathFlexible's needles.
var mathFragments = []string{
	"The final answer is", "final answer:", "ANSWER：", "answer", "anſwer:", "the answer is", "答案是", "答案：",
	"$", "$$", `\(`, `\)`, "x = 5", `\frac{1}{2}`, "\\boxed{3}", "\\boxed{", "}", "42", ".", ". ", "\n", " ", "*",
	"</think>", "<think>", "。", "3.5", "-1", "\u212a",
}

// TestMathNeedlesChangeNothing: MathFlexible with its needles gives what
// it gives when every pattern runs.
func TestMathNeedlesChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 51))
	for range 30000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(mathFragments[rng.IntN(len(mathFragments))])
		}
		s := b.String()
		if got, want := mathFlexible(s, true), mathFlexible(s, false); got != want {
			t.Fatalf("MathFlexible(%q) = %+v, every pattern gives %+v", s, got, want)
		}
	}
}

func FuzzMathNeedles(f *testing.F) {
	for _, s := range mathFragments {
		f.Add("x " + s + " 7")
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := mathFlexible(s, true), mathFlexible(s, false); got != want {
			t.Errorf("MathFlexible(%q) = %+v, every pattern gives %+v", s, got, want)
		}
	})
}

// TestMathFlexibleParenSpanAfterCue: a \(…\) span after an answer cue is
// the answer (slicing by the unmatched $ group panicked).
func TestMathFlexibleParenSpanAfterCue(t *testing.T) {
	if got := MathFlexible(`The answer is \(\frac{1}{2}\).`); got.Text != `\frac{1}{2}` || got.Method != MethodCue {
		t.Errorf("MathFlexible = %+v, want \\frac{1}{2} by cue", got)
	}
}
