package mc

import (
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/scorers/choice"
)

// format is how one benchmark renders questions.
type format struct {
	header func(subject string) string // task description before the first question
	// question and options, without the answer cue
	block     func(s evals.Sample) string
	answerCue string // "Answer:", "答案：", "答案是："
	letterSep string // between cue and letter: " " in English, "" in Chinese
	// instruction ends the last chat turn.
	instruction string
	// loglikContext is the context of text-continuation log-likelihood
	// requests (ARC); nil for letter continuations.
	loglikContext func(s evals.Sample) string
}

// raw renders the official completion prompt: header, k answered
// exemplars, the question and the answer cue.
func (f *format) raw(s evals.Sample, shots []evals.Sample) string {
	var b strings.Builder
	b.WriteString(f.header(s.Group))
	for _, ex := range shots {
		b.WriteString(f.block(ex))
		b.WriteString("\n" + f.answerCue + f.letterSep + ex.Target + "\n\n")
	}
	b.WriteString(f.block(s))
	b.WriteString("\n" + f.answerCue)
	return b.String()
}

func optionLines(b *strings.Builder, choices []string) {
	for i, c := range choices {
		b.WriteString("\n" + choice.Letter(i) + ". " + c)
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
	block: func(s evals.Sample) string {
		var b strings.Builder
		b.WriteString(s.Input)
		optionLines(&b, s.Choices)
		return b.String()
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
	block:       mmluFormat.block,
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
	block: func(s evals.Sample) string {
		var b strings.Builder
		b.WriteString("题目：" + s.Input)
		optionLines(&b, s.Choices)
		return b.String()
	},
	answerCue:   "答案是：",
	letterSep:   "",
	instruction: instructionZH,
}

// arcFormat has no official prompt; generation lists lettered options
// under "Question:", log-likelihood uses lm-eval's "Question: …\nAnswer:"
// with each option's text as the continuation.
var arcFormat = &format{
	header: func(string) string { return "" },
	block: func(s evals.Sample) string {
		var b strings.Builder
		b.WriteString("Question: " + s.Input)
		optionLines(&b, s.Choices)
		return b.String()
	},
	answerCue:   "Answer:",
	letterSep:   " ",
	instruction: instructionEN,
	loglikContext: func(s evals.Sample) string {
		return "Question: " + s.Input + "\nAnswer:"
	},
}
