package choice

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/scorers/pyre"
	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// A Rule is a named answer-extraction rule for single-choice questions:
// pocketeval's own cascade (Extract) or the extractor of an official
// tool, reproduced with its exact semantics (its regular expressions run
// with Python's re semantics, scorers/pyre).
//
// An official rule may return a letter that is not an option of the
// question (MMLU-Pro reads A–J whatever the number of options,
// first_capital any capital): the Extraction then has that Letter, Index
// -1, and the answer is wrong, as it is in the official scorer.
type Rule struct {
	// Name is how task files and docs name the rule (answer_rule).
	Name string
	// Source is the official code the rule follows.
	Source string
	// Several says what the rule does when a response names several
	// letters for a single-choice question.
	Several string
	extract func(text string, choices []string) Extraction
}

// Extract applies the rule to a response to a question with these
// options (their number is what matters to the letter rules).
func (r Rule) Extract(text string, choices []string) Extraction { return r.extract(text, choices) }

// Rule names.
const (
	RulePocketeval    = "pocketeval"
	RuleMMLUPro       = "mmlu_pro"
	RuleGaokao        = "gaokao"
	RuleFirstOption   = "opencompass_first_option"
	RuleFirstCapital  = "opencompass_first_capital"
	RuleAnswerPattern = "opencompass_answer_pattern"
)

var rules = []Rule{
	{
		Name:    RulePocketeval,
		Source:  "pocketeval (scorers/choice Extract): answer statements, GAOKAO-style 【答案】, then conservative fallbacks",
		Several: "no answer (extraction_failed): a final 【答案】 naming two different options, or fallbacks finding two different letters, never guess",
		extract: func(text string, choices []string) Extraction {
			if lettered(choices) {
				return ExtractN(text, len(choices), nil)
			}
			return Extract(text, choices)
		},
	},
	{
		Name:    RuleMMLUPro,
		Source:  `TIGER-AI-Lab/MMLU-Pro evaluate_from_local.py / compute_accuracy.py extract_answer: re.search "answer is \(?([A-J])\)?", then ".*[aA]nswer:\s*([A-J])", then the last standalone letter "\b[A-J]\b(?!.*\b[A-J]\b)" (DOTALL)`,
		Several: `the first "answer is X"; else the last "answer: X" of the first line that has one; else the last standalone A–J letter`,
		extract: mmluPro,
	},
	{
		Name:    RuleGaokao,
		Source:  "OpenLMLab/GAOKAO-Bench Bench/bench_function.py extract_choice_answer, single_choice: the last A–D capital of the whole output",
		Several: "the last of them (【答案】 A、B → B), and a letter of the reasoning when the answer section names none",
		extract: gaokao,
	},
	{
		Name:    RuleFirstOption,
		Source:  "open-compass/opencompass opencompass/utils/text_postprocessors.py first_option_postprocess(options=the option letters), as ceval_zero_shot_gen and mmlu_gen_4d595a choose it",
		Several: "the first pattern of its list that matches decides; of the letters in its match, the first in option order (A before B), not in text order",
		extract: firstOption,
	},
	{
		Name:    RuleFirstCapital,
		Source:  "open-compass/opencompass opencompass/utils/text_postprocessors.py first_capital_postprocess, as ceval_gen (ceval_gen_5f30c7) and cmmlu_gen_c13365 choose it",
		Several: "the first upper-case character of the response (str.isupper), option letter or not",
		extract: firstCapital,
	},
	{
		Name:    RuleAnswerPattern,
		Source:  `open-compass/opencompass match_answer_pattern with cmmlu_0shot_cot_gen_305931's answer_pattern "(?i)答案\s*:\s*[\W]*([A-D])[\W]*" (the option letters of the question in place of A-D)`,
		Several: "the first match",
		extract: answerPattern,
	},
}

// Rules lists the rules, pocketeval's first.
func Rules() []Rule { return slices.Clone(rules) }

// RuleNames lists the rule names.
func RuleNames() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Name
	}
	return out
}

// RuleByName returns the named rule; "" is pocketeval's.
func RuleByName(name string) (Rule, error) {
	if name == "" {
		name = RulePocketeval
	}
	for _, r := range rules {
		if r.Name == name {
			return r, nil
		}
	}
	return Rule{}, fmt.Errorf("unknown answer rule %q (want one of %s)", name, strings.Join(RuleNames(), ", "))
}

// lettered reports whether the choices are the letters A, B, C, ... in
// order (task files whose options are shown in the question).
func lettered(choices []string) bool {
	for i, c := range choices {
		if c != Letter(i) {
			return false
		}
	}
	return len(choices) > 0
}

// letterResult turns a letter found by an official rule into an
// Extraction; a letter outside the options keeps Index -1.
func letterResult(letter string, n int, method string) Extraction {
	if letter == "" {
		return none
	}
	idx := LetterIndex(letter)
	if len(letter) != 1 || letter[0] < 'A' || letter[0] > 'Z' || idx >= n {
		return Extraction{Index: -1, Letter: letter, Method: method}
	}
	return Extraction{Index: idx, Letter: letter, Method: method}
}

// mmluProPatterns are MMLU-Pro's three patterns in the order it tries
// them, compiled on first use.
var mmluProPatterns = sync.OnceValue(func() []*pyre.Regexp {
	return []*pyre.Regexp{
		pyre.MustCompile(`answer is \(?([A-J])\)?`, 0),
		pyre.MustCompile(`.*[aA]nswer:\s*([A-J])`, 0),
		pyre.MustCompile(`\b[A-J]\b(?!.*\b[A-J]\b)`, pyre.DotAll),
	}
})

// mmluPro is MMLU-Pro's extract_answer (level 2, the one its evaluation
// scripts use). None is returned when all three fail; the official
// scripts then draw a random letter, which pocketeval does not (the
// sample counts as extraction_failed and wrong).
func mmluPro(text string, choices []string) Extraction {
	n := len(choices)
	for _, re := range mmluProPatterns() {
		m, err := re.Search(text)
		if err != nil || m == nil {
			continue
		}
		g := 1
		if re.NumGroups() == 0 {
			g = 0
		}
		l, _ := m.Group(g)
		return letterResult(l, n, RuleMMLUPro)
	}
	return none
}

// gaokao is GAOKAO-Bench's single_choice extraction: re.findall('[A-D]')
// over the reversed output, first hit — the last A–D of the output.
func gaokao(text string, choices []string) Extraction {
	i := strings.LastIndexAny(text, "ABCD")
	if i < 0 {
		return none
	}
	return letterResult(text[i:i+1], len(choices), RuleGaokao)
}

// firstCapital is OpenCompass's first_capital_postprocess: the first
// character for which str.isupper() holds.
// An ASCII character is upper-case exactly when it is A to Z, which is
// tested without the general predicate (FuzzFirstCapital).
func firstCapital(text string, choices []string) Extraction {
	for _, r := range text {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				return letterResult(string(r), len(choices), RuleFirstCapital)
			}
			continue
		}
		if textstats.IsUpper(string(r)) {
			return letterResult(string(r), len(choices), RuleFirstCapital)
		}
	}
	return none
}

// optionLetters is the options argument OpenCompass's configs pass: the
// question's option letters, "ABCD" for four options.
func optionLetters(n int) string {
	var b strings.Builder
	for i := range min(n, 26) {
		b.WriteString(Letter(i))
	}
	return b.String()
}

var answerPatterns sync.Map // options → *pyre.Regexp

func answerPattern(text string, choices []string) Extraction {
	opts := optionLetters(len(choices))
	v, ok := answerPatterns.Load(opts)
	if !ok {
		v, _ = answerPatterns.LoadOrStore(opts, pyre.MustCompile(`(?i)答案\s*:\s*[\W]*([`+opts+`])[\W]*`, 0))
	}
	m, err := v.(*pyre.Regexp).Search(text)
	if err != nil || m == nil {
		return none
	}
	l, _ := m.Group(1)
	return letterResult(l, len(choices), RuleAnswerPattern)
}
