package code_test

import (
	"fmt"

	"github.com/pocketeval/pocketeval/scorers/code"
)

func ExampleExtract() {
	response := "<think>Sum them.</think>Here you go:\n\n```python\nimport math\n\n" +
		"def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n```\n\nThis prints 3."
	ex := code.Extract(response, "add")
	fmt.Println(ex.Form, ex.Source)
	fmt.Println(ex.Code)
	// Output:
	// function fenced
	// import math
	//
	// def add(a, b):
	//     return a + b
}

func ExampleHumanEvalProgram() {
	prompt := "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n"
	// The completion runs verbatim, helper function and all.
	completion := "    return helper(a, b)\n\ndef helper(a, b):\n    return a + b\n"
	fmt.Println(code.HumanEvalProgram(prompt, completion, "def check(candidate):\n    assert candidate(1, 2) == 3", "add"))
	// Output:
	// def add(a, b):
	//     """Return a + b."""
	//     return helper(a, b)
	//
	// def helper(a, b):
	//     return a + b
	//
	// def check(candidate):
	//     assert candidate(1, 2) == 3
	// check(add)
}

func ExamplePassAtK() {
	// 200 samples of one problem, 37 of them pass.
	for _, k := range []int{1, 10, 100} {
		fmt.Printf("pass@%d = %.4f\n", k, code.PassAtK(200, 37, k))
	}
	// Output:
	// pass@1 = 0.1850
	// pass@10 = 0.8774
	// pass@100 = 1.0000
}
