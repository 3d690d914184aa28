package mathx

import (
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// Answer is an extracted LaTeX answer.
type Answer struct {
	Text   string // "" when !OK
	Method string // Method* constants
	OK     bool
	// FromThinking is set when the answer was only found inside the
	// reasoning section.
	FromThinking bool
}

// MathStrict extracts a MATH answer the way the prompt asks for it: the
// content of the last \boxed{…} (or \fbox{…}) after any reasoning section,
// within the last MaxExamined bytes.
func MathStrict(response string) Answer {
	text, _ := StripThinking(response)
	if b, ok := LastBoxed(tail(text)); ok && strings.TrimSpace(b) != "" {
		return Answer{Text: b, Method: MethodBoxed, OK: true}
	}
	return Answer{}
}

// finalAnswerCue matches Minerva's "The final answer is $X$" and similar
// phrases; the answer is taken from the following math span or line.
var finalAnswerCue = lazyre.New(`(?i)(?:final\s+answer\s+is|final\s+answer\s*[:：]|the\s+answer\s+is|answer\s*[:：]|答案是|答案为|答案[:：])\s*`)

// inlineMath matches $…$ and \(…\) spans.
var inlineMath = lazyre.New(`\$\$?([^$]+?)\$\$?|\\\((.+?)\\\)`)

// MathFlexible extracts the most plausible MATH answer: the last box, else
// the answer after the last "final answer is" cue (its math span, or the
// rest of the sentence), else the last inline math span, else the last
// number. Like NumericExtractor.Flexible it falls back to the reasoning
// section when the answer part has nothing. It reads the last MaxExamined
// bytes of each.
func MathFlexible(response string) Answer { return mathFlexible(response, true) }

// Needles of MathFlexible's patterns (see needles): every match of
// finalAnswerCue holds "answer" or "答案", and every math span a "$" or
// "\(".
var (
	finalCueNeedles = needles{"answer", "答案"}
	mathNeedles     = needles{"$", `\(`}
)

// mathFlexible is MathFlexible; with filter false every pattern runs on
// every text (the reference of the needles' tests).
func mathFlexible(response string, filter bool) Answer {
	text, stripped := StripThinking(response)
	if a := mathFlexible1(tail(text), filter); a.OK || !stripped {
		return a
	}
	thinking := strings.TrimPrefix(response[:len(response)-len(text)], "<think>")
	a := mathFlexible1(strings.ReplaceAll(tail(thinking), "</think>", "\n"), filter)
	a.FromThinking = a.OK
	return a
}

func mathFlexible1(text string, filter bool) Answer {
	if a := MathStrict(text); a.OK {
		return a
	}
	f := newFinder(text)
	may := func(ns needles) bool { return !filter || f.may(ns) }
	if a, ok := cueAnswer(text, may(finalCueNeedles)); ok {
		return a
	}
	if a, ok := lastMath(text, may(mathNeedles)); ok {
		return a
	}
	if n, ok := lastNumber(cleanForNumbers(text)); ok {
		return Answer{Text: n.String(), Method: MethodLastNumber, OK: true}
	}
	return Answer{}
}

// cueAnswer is the answer after the last final-answer cue of text: its
// math span, or the rest of its sentence. may false says text holds no
// cue.
func cueAnswer(text string, may bool) (Answer, bool) {
	if !may {
		return Answer{}, false
	}
	locs := finalAnswerCue.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return Answer{}, false
	}
	rest := text[locs[len(locs)-1][1]:]
	if m := inlineMath.FindStringSubmatchIndex(rest); m != nil && strings.TrimSpace(rest[:m[0]]) == "" {
		// $…$ is group 1, \(…\) group 2 (slicing by an unmatched group's
		// -1 panicked).
		var span string
		if m[2] >= 0 {
			span = rest[m[2]:m[3]]
		} else {
			span = rest[m[4]:m[5]]
		}
		if span = strings.TrimSpace(span); span != "" {
			return Answer{Text: span, Method: MethodCue, OK: true}, true
		}
	}
	line := rest
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, ". "); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line), ".。"))
	line = strings.Trim(line, "*$ ")
	if line != "" {
		return Answer{Text: line, Method: MethodCue, OK: true}, true
	}
	return Answer{}, false
}

// lastMath is the last inline math span of text (a displayed equation's
// right-hand side). may false says text holds no "$" or "\(".
func lastMath(text string, may bool) (Answer, bool) {
	if !may {
		return Answer{}, false
	}
	all := inlineMath.FindAllStringSubmatch(text, -1)
	if len(all) == 0 {
		return Answer{}, false
	}
	last := all[len(all)-1]
	span := last[1]
	if span == "" {
		span = last[2]
	}
	// A displayed equation "x = 5" answers with its right-hand side.
	if parts := splitTop(span, "="); len(parts) > 1 {
		span = parts[len(parts)-1]
	}
	if span = strings.TrimSpace(span); span != "" {
		return Answer{Text: span, Method: MethodLastMath, OK: true}, true
	}
	return Answer{}, false
}
