package ifeval_test

import (
	"fmt"

	"github.com/pocketeval/pocketeval/scorers/ifeval"
)

func ExampleCompile() {
	p, err := ifeval.Compile([]ifeval.Instruction{
		{ID: "punctuation:no_comma"},
		{ID: "length_constraints:number_words", Kwargs: map[string]any{"num_words": 5.0, "relation": "less than"}},
		{ID: "startend:quotation"},
	}, ifeval.Config{})
	if err != nil {
		panic(err)
	}
	// A preamble line breaks the quotation strictly; loose evaluation also
	// tries the response without its first line.
	res := p.Evaluate("Sure:\n\"Three words here\"")
	fmt.Println("strict:", res.Strict, res.AllStrict())
	fmt.Println("loose: ", res.Loose, res.AllLoose())
	// Output:
	// strict: [true true false] false
	// loose:  [true true true] true
}
