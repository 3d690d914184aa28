package mathx

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// StripThinking removes a reasoning section from a response. It returns the
// text after the last "</think>" — which also handles responses whose
// opening <think> tag was part of the prompt and so never appears — and
// reports whether a section was removed. A response with an opening
// <think> that never closes (cut off while thinking) yields "" and true.
func StripThinking(s string) (answer string, stripped bool) {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		return s[i+len("</think>"):], true
	}
	if strings.Contains(s, "<think>") {
		return "", true
	}
	return s, false
}

// Extraction methods, recorded for audit.
const (
	MethodHash       = "hash"        // "#### N"
	MethodCue        = "cue"         // an answer phrase: "The answer is N"
	MethodBoxed      = "boxed"       // \boxed{N}
	MethodLastNumber = "last_number" // the last number in the response
	MethodLastMath   = "last_math"   // the last inline math span ($…$)
)

// Extraction is the outcome of extracting a numeric answer.
type Extraction struct {
	Number Number
	// Answer is Number in canonical text form ("" when !OK).
	Answer string
	// Method says which rule found it (Method* constants).
	Method string
	OK     bool
	// FromThinking is set when the answer was only found inside an
	// unfinished or unstripped reasoning section.
	FromThinking bool
}

// NumericExtractor pulls numeric answers out of chain-of-thought text. It
// is immutable and safe for concurrent use.
type NumericExtractor struct {
	strict   []*regexp.Regexp // cue patterns accepted by Strict
	flexible []*regexp.Regexp // cue patterns accepted by Flexible
	// strictNeed and flexibleNeed hold, for each pattern, substrings one
	// of which every match contains (needles; nil: no test), so that a
	// response without any skips the pattern.
	strictNeed, flexibleNeed []needles
	lastCue                  bool // Strict takes the last cue (StrictLastCue)
}

// answerTail is what may sit between an answer cue and the number:
// spaces, a colon, markdown emphasis, an opening $ or \( or \boxed{.
const answerTail = `[\s:：*_"“”'「」]*(?:\\\(|\\\[|\$)?\s*(?:\\boxed\{|\\textbf\{|\*\*)?\s*`

// capturedNumber is numberPattern as one capturing group.
const capturedNumber = `(` + numberPattern + `)`

// genericCues are answer phrases every flexible extraction accepts, in any
// language the suite covers, beyond a task's own cues.
var genericCues = []string{
	`(?i)the\s+final\s+answer\s+is`,
	`(?i)the\s+answer\s+is`,
	`(?i)final\s+answer\s*[:：]`,
	`(?im)^[\s*#>]*answer\s*[:：]`, // a line "Answer: N", not an echoed "Step-by-Step Answer:"
	`(?m)^\s*A\s*[:：]`,
	`答案是`, `答案为`, `答案[:：]`, `最终答案是`, `最终答案为`, `最终答案[:：]`,
}

// genericNeedles are, for each of genericCues, substrings one of which
// every match contains (lower-case: matched ignoring ASCII case).
var genericNeedles = []needles{
	{"answer"}, {"answer"}, {"answer"}, {"answer"},
	{":", "："},
	{"答案是"}, {"答案为"}, {"答案"}, {"最终答案是"}, {"最终答案为"}, {"最终答案"},
}

// NewNumericExtractor builds an extractor whose strict mode accepts
// "#### N" and the given answer phrases (matched case-insensitively, e.g.
// "The answer is", "答案是"), and whose flexible mode additionally accepts
// \boxed{N}, generic cues ("Answer:", "A:", "最终答案") and, last, the final
// number in the text.
func NewNumericExtractor(cues ...string) *NumericExtractor {
	e := &NumericExtractor{}
	hash := regexp.MustCompile(`####\s*` + answerTail + capturedNumber)
	e.strict = append(e.strict, hash)
	e.strictNeed = append(e.strictNeed, needles{"####"})
	for _, c := range cues {
		e.strict = append(e.strict, regexp.MustCompile(`(?i)`+regexp.QuoteMeta(c)+answerTail+capturedNumber))
		e.strictNeed = append(e.strictNeed, cueNeedles(c))
	}
	e.flexible = append(e.flexible, e.strict...)
	e.flexibleNeed = append(e.flexibleNeed, e.strictNeed...)
	for i, c := range genericCues {
		e.flexible = append(e.flexible, regexp.MustCompile(c+answerTail+capturedNumber))
		e.flexibleNeed = append(e.flexibleNeed, genericNeedles[i])
	}
	return e
}

// StrictLastCue returns a copy of e whose Strict takes the number after
// the last match of its first cue that occurs, in the order the cues were
// given, rather than the first match of any, as lm-eval's gsm8k_cot_llama
// does (group_select: -1 on "The final answer is N"). A "#### N" still
// wins, the first one, as in lm-eval's gsm8k.
func (e *NumericExtractor) StrictLastCue() *NumericExtractor {
	c := *e
	c.lastCue = true
	return &c
}

// Strict returns the number after the first "#### " or answer cue in the
// response (after any reasoning section), the lm-eval "strict-match"
// convention of taking the first match; with StrictLastCue, the first
// "#### " or else the last match of the first cue found. It reads the first MaxExamined bytes
// of the answer part, and the last MaxExamined for a last cue.
func (e *NumericExtractor) Strict(response string) Extraction {
	text, _ := StripThinking(response)
	if !e.lastCue {
		return firstMatch(e.strict, e.strictNeed, cleanForNumbers(head(text)))
	}
	if x := firstMatch(e.strict[:1], e.strictNeed[:1], cleanForNumbers(head(text))); x.OK {
		return x
	}
	text = cleanForNumbers(tail(text))
	f := newFinder(text)
	for i, re := range e.strict[1:] {
		if !f.may(e.strictNeed[i+1]) {
			continue
		}
		if x := lastMatch(re, text); x.OK {
			return x
		}
	}
	return Extraction{}
}

// firstMatch returns the number after the earliest match of any of res;
// res[0] is the "#### " pattern.
func firstMatch(res []*regexp.Regexp, need []needles, text string) Extraction {
	best := -1
	var found Extraction
	f := newFinder(text)
	for i, re := range res {
		if !f.may(need[i]) {
			continue
		}
		loc := re.FindStringSubmatchIndex(text)
		if loc == nil || best >= 0 && loc[0] >= best {
			continue
		}
		n, ok := parseNumberToken(text[loc[2]:loc[3]])
		if !ok {
			continue
		}
		method := MethodCue
		if i == 0 {
			method = MethodHash
		}
		best = loc[0]
		found = Extraction{Number: n, Answer: n.String(), Method: method, OK: true}
	}
	return found
}

// lastMatch returns the number after the last match of cue re whose number
// parses.
func lastMatch(re *regexp.Regexp, text string) Extraction {
	all := re.FindAllStringSubmatchIndex(text, -1)
	for j := len(all) - 1; j >= 0; j-- {
		if n, ok := parseNumberToken(text[all[j][2]:all[j][3]]); ok {
			return Extraction{Number: n, Answer: n.String(), Method: MethodCue, OK: true}
		}
	}
	return Extraction{}
}

// Flexible returns the most plausible final answer: the last \boxed{…}
// holding a number, else the number after the last answer cue, else the
// last number. When the response's answer part (after </think>) has none,
// the reasoning section is searched the same way and the result is marked
// FromThinking. It reads the last MaxExamined bytes of each.
func (e *NumericExtractor) Flexible(response string) Extraction {
	text, stripped := StripThinking(response)
	if x := e.flexible1(tail(text)); x.OK || !stripped {
		return x
	}
	thinking := strings.TrimPrefix(response[:len(response)-len(text)], "<think>")
	x := e.flexible1(strings.ReplaceAll(tail(thinking), "</think>", "\n"))
	x.FromThinking = x.OK
	return x
}

func (e *NumericExtractor) flexible1(text string) Extraction {
	if boxes := AllBoxed(text); len(boxes) > 0 {
		for i := len(boxes) - 1; i >= 0; i-- {
			if n, ok := boxedNumber(boxes[i]); ok {
				return Extraction{Number: n, Answer: n.String(), Method: MethodBoxed, OK: true}
			}
		}
	}
	clean := cleanForNumbers(text)
	best := -1
	var found Extraction
	f := newFinder(clean)
	for i, re := range e.flexible {
		method := MethodCue
		if i == 0 {
			method = MethodHash
		}
		if !f.may(e.flexibleNeed[i]) {
			continue
		}
		all := re.FindAllStringSubmatchIndex(clean, -1)
		for j := len(all) - 1; j >= 0; j-- {
			loc := all[j]
			if loc[0] <= best {
				break
			}
			n, ok := parseNumberToken(clean[loc[2]:loc[3]])
			if !ok {
				continue
			}
			best = loc[0]
			found = Extraction{Number: n, Answer: n.String(), Method: method, OK: true}
			break
		}
	}
	if found.OK {
		return found
	}
	n, ok := lastNumber(clean)
	if !ok {
		return Extraction{}
	}
	return Extraction{Number: n, Answer: n.String(), Method: MethodLastNumber, OK: true}
}

// textArg matches \text{…}-like wrappers whose content is prose.
var textArg = lazyre.New(`\\(?:text|mbox|textbf|mathrm|textrm|operatorname)\s*\{[^{}]*\}`)

// boxedNumber reads the numeric answer inside a box: the last number after
// unit text is removed ("3 \times 6 = 18", "18 \text{ dollars}").
func boxedNumber(box string) (Number, bool) {
	if n, ok := evalNumber(Normalize(box)); ok {
		return n, true
	}
	box = textArg.ReplaceAllStringFunc(box, func(m string) string {
		inner := m[strings.Index(m, "{")+1 : len(m)-1]
		if _, ok := ParseNumber(inner); ok {
			return inner
		}
		return " "
	})
	return lastNumber(cleanForNumbers(box))
}

// evalNumber evaluates a variable-free real expression ("2\frac{1}{2}",
// "\frac{5}{2}", "3^2") to a Number.
func evalNumber(s string) (Number, bool) {
	e, err := parseExpr(s)
	if err != nil || len(e.vars) > 0 {
		return Number{}, false
	}
	v := e.eval(nil)
	f := real(v)
	if imag(v) != 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return Number{}, false
	}
	if r := math.Round(f); math.Abs(f-r) <= 1e-9*math.Max(1, math.Abs(f)) {
		f = r
	}
	rat, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', 15, 64))
	if !ok {
		return Number{}, false
	}
	return Number{r: rat}, true
}
