package mc

import (
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/scorers/choice"
)

// format is how one benchmark renders questions.
type format struct {
	header func(subject string) string // task description before the first question
	// lead comes before the question in a block ("Question: ", "题目：").
	lead      string
	answerCue string // "Answer:", "答案：", "答案是："
	letterSep string // between cue and letter: " " in English, "" in Chinese
	// instruction ends the last chat turn.
	instruction string
	// loglikContext is the context of text-continuation log-likelihood
	// requests (ARC); nil for letter continuations.
	loglikContext func(s evals.Sample) string
}

// raw renders the official completion prompt: prefix (the header and k
// answered exemplars, shotPrefix), the question and the answer cue.
func (f *format) raw(s evals.Sample, prefix string) string {
	var b strings.Builder
	b.Grow(len(prefix) + f.blockLen(s) + 1 + len(f.answerCue))
	b.WriteString(prefix)
	f.writeBlock(&b, s)
	b.WriteString("\n")
	b.WriteString(f.answerCue)
	return b.String()
}

// block is a question with its lettered options, without the answer cue.
func (f *format) block(s evals.Sample) string {
	var b strings.Builder
	b.Grow(f.blockLen(s))
	f.writeBlock(&b, s)
	return b.String()
}

// blockLen is the length of s's block.
func (f *format) blockLen(s evals.Sample) int {
	n := len(f.lead) + len(s.Input)
	for i, c := range s.Choices {
		n += 1 + len(choice.Letter(i)) + 2 + len(c)
	}
	return n
}

// writeBlock writes s's block: the lead, the question and one line per
// option, "\nA. text".
func (f *format) writeBlock(b *strings.Builder, s evals.Sample) {
	b.WriteString(f.lead)
	b.WriteString(s.Input)
	for i, c := range s.Choices {
		b.WriteByte('\n')
		b.WriteString(choice.Letter(i))
		b.WriteString(". ")
		b.WriteString(c)
	}
}

const (
	instructionEN = `Answer with the letter of the correct option, in the form "Answer: X".`
	instructionZH = `请直接给出正确答案的选项，格式为"答案：X"。`
)

// mmluFormat is hendrycks/test's prompt (evaluate.py gen_prompt and
// format_example), with lm-eval's single space in the subject name.
var mmluFormat = &format{
	header: func(subject string) string {
		return "The following are multiple choice questions (with answers) about " + strings.ReplaceAll(subject, "_", " ") + ".\n\n"
	},
	answerCue:   "Answer:",
	letterSep:   " ",
	instruction: instructionEN,
}

// cevalFormat is C-Eval's official few-shot prompt (README "prompt
// format"): 以下是中国关于{科目}考试的单项选择题，请选出其中的正确答案。
var cevalFormat = &format{
	header: func(subject string) string {
		return "以下是中国关于" + cevalSubjects[subject].zhOr(subject) + "考试的单项选择题，请选出其中的正确答案。\n\n"
	},
	answerCue:   "答案：",
	letterSep:   "",
	instruction: instructionZH,
}

func (c cevalSubject) zhOr(fallback string) string {
	if c.zh == "" {
		return strings.ReplaceAll(fallback, "_", " ")
	}
	return c.zh
}

// cmmluFormat is CMMLU's official prompt (src/mp_utils.py): 以下是关于{科目}
// 的单项选择题，请直接给出正确答案的选项。 with 题目： and 答案是：.
var cmmluFormat = &format{
	header: func(subject string) string {
		zh := cmmluSubjects[subject].zh
		if zh == "" {
			zh = strings.ReplaceAll(subject, "_", " ")
		}
		return "以下是关于" + zh + "的单项选择题，请直接给出正确答案的选项。\n\n"
	},
	lead:        "题目：",
	answerCue:   "答案是：",
	letterSep:   "",
	instruction: instructionZH,
}

// arcFormat has no official prompt; generation lists lettered options
// under "Question:", log-likelihood uses lm-eval's "Question: …\nAnswer:"
// with each option's text as the continuation.
var arcFormat = &format{
	header:      func(string) string { return "" },
	lead:        "Question: ",
	answerCue:   "Answer:",
	letterSep:   " ",
	instruction: instructionEN,
	loglikContext: func(s evals.Sample) string {
		return "Question: " + s.Input + "\nAnswer:"
	},
}
