package choice

import (
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/scorers/pyre"
	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// firstOptionPatterns are the patterns of OpenCompass's
// first_option_postprocess (opencompass/utils/text_postprocessors.py),
// written as its f-strings expand with {options} → %s and {{ → {, in its
// order, then its two cushion patterns. Its list lacks a comma after
// '故选?\s*([{options}])', so Python joins that string with the next one;
// the joined pattern is kept, as Python runs it.
var firstOptionPatterns = []string{
	`答案是?\s*([%s])`,
	`答案是?\s*：\s*([%s])`,
	`答案是?\s*:\s*([%s])`,
	`答案选项应?该?是\s*([%s])`,
	`答案选项应?该?为\s*([%s])`,
	`答案应该?是\s*([%s])`,
	`答案应该?选\s*([%s])`,
	`答案选项为?\s*：\s*([%s])`,
	`答案选项为?\s+\(?\*?\*?([%s])\*?\*?\)?`,
	`答案选项是?\s*:\s*([%s])`,
	`答案为\s*([%s])`,
	`答案选\s*([%s])`,
	`选择?\s*([%s])`,
	`故选?\s*([%s])只有选?项?\s?([%s])\s?是?对`,
	`只有选?项?\s?([%s])\s?是?错`,
	`只有选?项?\s?([%s])\s?不?正确`,
	`只有选?项?\s?([%s])\s?错误`,
	`说法不?对选?项?的?是\s?([%s])`,
	`说法不?正确选?项?的?是\s?([%s])`,
	`说法错误选?项?的?是\s?([%s])`,
	`([%s])\s?是正确的`,
	`([%s])\s?是正确答案`,
	`选项\s?([%s])\s?正确`,
	`所以答\s?([%s])`,
	`所以\s?([%s][.。$]?$)`,
	`所有\s?([%s][.。$]?$)`,
	`[\s，：:,]([%s])[。，,\.]?$`,
	`[\s，,：:][故即]([%s])[。\.]?$`,
	`[\s，,：:]因此([%s])[。\.]?$`,
	`[是为。]\s?([%s])[。\.]?$`,
	`因此\s?([%s])[。\.]?$`,
	`显然\s?([%s])[。\.]?$`,
	`答案是\s?(\S+)(?:。|$)`,
	`答案应该是\s?(\S+)(?:。|$)`,
	`答案为\s?(\S+)(?:。|$)`,
	`(?i)ANSWER\s*:\s*([%s])`,
	`[Tt]he answer is:?\s+\(?([%s])\)?`,
	`[Tt]he answer is:?\s+\(?\*?\*?([%s])\*?\*?\)?`,
	`[Tt]he answer is option:?\s+\(?([%s])\)?`,
	`[Tt]he correct answer is:?\s+\(?([%s])\)?`,
	`[Tt]he correct answer is option:?\s+\(?([%s])\)?`,
	`[Tt]he correct answer is:?.*?boxed{([%s])}`,
	`[Tt]he correct option is:?.*?boxed{([%s])}`,
	`[Tt]he correct answer option is:?.*?boxed{([%s])}`,
	`[Tt]he answer to the question is:?\s+\(?([%s])\)?`,
	`^选项\s?([%s])`,
	`^([%s])\s?选?项`,
	`(\s|^)[%s][\s。，,：:\.$]`,
	`1.\s?(.*?)$`,
	`1.\s?([%s])[.。$]?$`,
	// cushion patterns (cushion=True, the default)
	`([%s]):`,
	`([%s])`,
}

var firstOptionCache sync.Map // options → []*pyre.Regexp

func firstOptionRegexps(opts string) []*pyre.Regexp {
	if v, ok := firstOptionCache.Load(opts); ok {
		return v.([]*pyre.Regexp)
	}
	res := make([]*pyre.Regexp, len(firstOptionPatterns))
	for i, p := range firstOptionPatterns {
		res[i] = pyre.MustCompile(strings.ReplaceAll(p, "%s", opts), pyre.DotAll)
	}
	v, _ := firstOptionCache.LoadOrStore(opts, res)
	return v.([]*pyre.Regexp)
}

// firstOption is first_option_postprocess(text, options): for each
// pattern in order, re.search with DOTALL on the stripped text; group 1
// if it is non-empty, else the whole match; the first option letter (in
// options order) contained in it is the answer, and a match containing
// none goes on to the next pattern.
func firstOption(text string, choices []string) Extraction {
	opts := optionLetters(len(choices))
	text = strings.TrimFunc(text, textstats.IsSpace)
	for _, re := range firstOptionRegexps(opts) {
		m, err := re.Search(text)
		if err != nil || m == nil {
			continue
		}
		out, _ := m.Group(1)
		if out == "" {
			out, _ = m.Group(0)
		}
		for _, o := range opts {
			if strings.ContainsRune(out, o) {
				return letterResult(string(o), len(choices), RuleFirstOption)
			}
		}
	}
	return none
}
