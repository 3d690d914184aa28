package mathx

import (
	"testing"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// TestLazyExpressions compiles every package-level expression, which
// lazyre.New leaves to first use.
func TestLazyExpressions(t *testing.T) {
	for _, re := range []*lazyre.Regexp{
		baseNumber, calcAnnotation, choiceLetter, commaThinSpace, degrees, finalAnswerCue,
		hanziAfterCue, inlineMath, leadingDot, leftRight, listWords, membership,
		narrowThousands, numberRe, plainFunc, plainUnion, plainUnits, plainWord,
		rightUnits, simpleSlash, singleBrace, sqrtShort, texFrac, texFracShort,
		textArg, textCmd, thousands, trailingZeros, varPrefix,
	} {
		if re.Re() == nil {
			t.Errorf("%s did not compile", re)
		}
	}
}
