package textsim

import (
	"strings"
	"unicode"
)

// PRF is a precision, recall and F-measure triple.
type PRF struct {
	Precision, Recall, F float64
}

// RougeL is rouge-score's rougeL between a target (reference) and a
// prediction with the default tokenizer and no stemmer.
func RougeL(target, prediction string) PRF {
	return lcsScore(RougeTokens(target), RougeTokens(prediction))
}

// RougeLChars is RougeL over RougeCharTokens, for text in scripts without
// spaces between words (Chinese, Japanese).
func RougeLChars(target, prediction string) PRF {
	return lcsScore(RougeCharTokens(target), RougeCharTokens(prediction))
}

// RougeTokens is rouge-score's default tokenizer without stemming:
// lowercase, runs of characters other than a–z and 0–9 become separators.
func RougeTokens(s string) []string {
	s = strings.ToLower(s)
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// RougeCharTokens is RougeTokens that also keeps every non-ASCII letter or
// digit (Unicode categories L and N) as a one-character token, in text
// order.
func RougeCharTokens(s string) []string {
	s = strings.ToLower(s)
	var toks []string
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			toks = append(toks, word.String())
			word.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			word.WriteRune(r)
		case r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsNumber(r)):
			flush()
			toks = append(toks, string(r))
		default:
			flush()
		}
	}
	flush()
	return toks
}

func lcsScore(target, pred []string) PRF {
	if len(target) == 0 || len(pred) == 0 {
		return PRF{}
	}
	l := lcsLength(target, pred)
	p := float64(l) / float64(len(pred))
	r := float64(l) / float64(len(target))
	return PRF{Precision: p, Recall: r, F: fmeasure(p, r)}
}

// lcsLength is the length of the longest common subsequence, by the same
// dynamic programme as rouge-score (two rows are enough for the length).
func lcsLength(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func fmeasure(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}
