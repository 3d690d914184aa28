package mathx_test

import (
	"fmt"

	"github.com/pocketeval/pocketeval/scorers/mathx"
)

func ExampleEquivalent() {
	fmt.Println(mathx.Equivalent(`\left( 3, \frac{\pi}{2} \right)`, `(3, \pi/2)`))
	fmt.Println(mathx.Equivalent(`\frac{1}{2}`, `0.5`))
	fmt.Println(mathx.Equivalent(`[2, 5)`, `(2, 5]`))
	// Output:
	// true
	// true
	// false
}

func ExampleNumericExtractor() {
	ex := mathx.NewNumericExtractor("答案是")
	resp := "先算 16-3-4=9，再算 9×2=18。</think>\n\n每天赚 $\\boxed{18}$ 美元。"
	strict, flex := ex.Strict(resp), ex.Flexible(resp)
	fmt.Println(strict.OK, flex.Answer, flex.Method)
	// Output:
	// false 18 boxed
}
