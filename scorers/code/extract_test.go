package code

import (
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	const fn = "def add(a, b):\n    return a + b"
	tests := []struct {
		name       string
		response   string
		entry      string
		wantCode   string
		wantForm   Form
		wantSource string
	}{
		{
			name:       "fenced function",
			response:   "```python\n" + fn + "\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "prose around fence",
			response:   "Sure! Here is the function:\n\n```python\n" + fn + "\n```\n\nIt adds the two numbers.",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "usage block after solution",
			response:   "```python\n" + fn + "\n```\nExample:\n```python\nprint(add(1, 2))  # 3\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "usage block before solution",
			response:   "Call it like this:\n```python\nadd(1, 2)\n```\nImplementation:\n```py\n" + fn + "\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "corrected version wins",
			response:   "```python\ndef add(a, b):\n    return a - b\n```\nOops, fixed:\n```python\n" + fn + "\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "imports and helpers kept",
			response:   "```python\nimport math\nfrom typing import List\n\ndef helper(x):\n    return math.floor(x)\n\n" + fn + "\n```",
			entry:      "add",
			wantCode:   "import math\nfrom typing import List\n\ndef helper(x):\n    return math.floor(x)\n\n" + fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "imports in a block of their own",
			response:   "First:\n```python\nimport math\n```\nThen:\n```python\n" + fn + "\n```\nUse:\n```python\nimport sys\n```",
			entry:      "add",
			wantCode:   "import math\n" + fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "unterminated fence (length cut)",
			response:   "Here:\n```python\n" + fn + "\n",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceUnterminated,
		},
		{
			name:       "tilde fence and four backticks",
			response:   "~~~python\n" + fn + "\n~~~\n````\nother\n````",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "closing fence glued to last line",
			response:   "```python\ndef add(a, b):\n    return a + b```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "python block preferred over output block",
			response:   "```text\n3\n```\n```python\n" + fn + "\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "only a mislabelled block",
			response:   "```javascript\n" + fn + "\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "fence indented inside a list item",
			response:   "1. Code:\n   ```python\n   " + strings.ReplaceAll(fn, "\n", "\n   ") + "\n   ```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "fenced body only",
			response:   "```python\n    result = a + b\n    return result\n```",
			entry:      "add",
			wantCode:   "    result = a + b\n    return result",
			wantForm:   FormBody,
			wantSource: SourceFenced,
		},
		{
			name:       "fenced body with import",
			response:   "```python\nimport math\nreturn math.floor(a + b)\n```",
			entry:      "add",
			wantCode:   "    import math\n    return math.floor(a + b)",
			wantForm:   FormBody,
			wantSource: SourceFenced,
		},
		{
			name:       "body whose first line lost its indentation",
			response:   "```\ns = a + b\n    if s > 0:\n        return s\n    return 0\n```",
			entry:      "add",
			wantCode:   "    s = a + b\n    if s > 0:\n        return s\n    return 0",
			wantForm:   FormBody,
			wantSource: SourceFenced,
		},
		{
			name:       "body starting with a block opener is left as is",
			response:   "```\nfor x in a:\n    b += x\n```",
			entry:      "add",
			wantCode:   "    for x in a:\n        b += x",
			wantForm:   FormBody,
			wantSource: SourceFenced,
		},
		{
			name:       "bare function with prose after",
			response:   "Here is my solution.\n" + fn + "\n\nThis returns the sum of a and b.",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceBare,
		},
		{
			name:       "bare function with import above",
			response:   "from typing import List\n\n\ndef add(a: List[int], b):\n    return a + b\n",
			entry:      "add",
			wantCode:   "from typing import List\n\n\ndef add(a: List[int], b):\n    return a + b",
			wantForm:   FormFunction,
			wantSource: SourceBare,
		},
		{
			name:       "bare code with a module-level string of prose",
			response:   "Here:\nFIX = \"\"\"\nAdd more test cases.\n\"\"\"\n\n" + fn + "\n\nDone, this is it.",
			entry:      "add",
			wantCode:   "FIX = \"\"\"\nAdd more test cases.\n\"\"\"\n\n" + fn,
			wantForm:   FormFunction,
			wantSource: SourceBare,
		},
		{
			name:       "bare body (completion-style answer)",
			response:   "    return a + b\n",
			entry:      "add",
			wantCode:   "    return a + b",
			wantForm:   FormBody,
			wantSource: SourceBare,
		},
		{
			name:       "closed thinking removed",
			response:   "<think>maybe\n```python\ndef add(a, b):\n    return 0\n```\n</think>\n```python\n" + fn + "\n```",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "closing tag only (template opened the block)",
			response:   "I should add.\n```python\ndef add(a, b):\n    return 0\n```\n</think>\n\n" + fn,
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceBare,
		},
		{
			name:       "unclosed thinking: no answer",
			response:   "<think>Let me write\n```python\n" + fn + "\n```",
			entry:      "add",
			wantForm:   FormEmpty,
			wantSource: SourceNone,
		},
		{
			name:       "main guard removed",
			response:   "```python\n" + fn + "\n\nif __name__ == \"__main__\":\n    print(add(int(input()), 2))\n\nx = 1\n```",
			entry:      "add",
			wantCode:   fn + "\n\nx = 1",
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "CRLF line ends",
			response:   "```python\r\ndef add(a, b):\r\n    return a + b\r\n```\r\n",
			entry:      "add",
			wantCode:   fn,
			wantForm:   FormFunction,
			wantSource: SourceFenced,
		},
		{
			name:       "wrong function name is a script",
			response:   "```python\ndef plus(a, b):\n    return a + b\n```",
			entry:      "add",
			wantCode:   "def plus(a, b):\n    return a + b",
			wantForm:   FormScript,
			wantSource: SourceFenced,
		},
		{
			name:       "no entry point given",
			response:   "```python\n" + fn + "\n```",
			entry:      "",
			wantCode:   fn,
			wantForm:   FormScript,
			wantSource: SourceFenced,
		},
		{
			name:       "prose only",
			response:   "I am not able to solve this problem.",
			entry:      "add",
			wantForm:   FormEmpty,
			wantSource: SourceNone,
		},
		{
			name:       "empty response",
			response:   "",
			entry:      "add",
			wantForm:   FormEmpty,
			wantSource: SourceNone,
		},
		{
			name:       "empty fence",
			response:   "```python\n```",
			entry:      "add",
			wantForm:   FormEmpty,
			wantSource: SourceNone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Extract(tt.response, tt.entry)
			if got.Code != tt.wantCode || got.Form != tt.wantForm || got.Source != tt.wantSource {
				t.Errorf("Extract(%q, %q)\n got: form=%s source=%s code=\n%s\nwant: form=%s source=%s code=\n%s",
					tt.response, tt.entry, got.Form, got.Source, got.Code, tt.wantForm, tt.wantSource, tt.wantCode)
			}
		})
	}
}

func TestStripThinking(t *testing.T) {
	t.Parallel()
	check := func(in, want string) {
		t.Helper()
		if got := StripThinking(in); got != want {
			t.Errorf("StripThinking(%q) = %q, want %q", in, got, want)
		}
	}
	check("answer", "answer")
	check("<think>x</think>answer", "answer")
	check("a<think>x</think>b<think>y</think>c", "abc")
	check("<THINKING>x</THINKING>answer", "answer")
	check("reasoning</think>answer", "answer")
	check("answer<think>unfinished", "answer")
}

func TestHumanEvalCompletion(t *testing.T) {
	t.Parallel()
	prompt := "def add(a, b):\n    \"\"\"Add.\"\"\"\n"
	test := "def check(candidate):\n    assert candidate(1, 2) == 3"
	check := func(resp, want string) {
		t.Helper()
		got := HumanEvalProgram(prompt, HumanEvalCompletion(Extract(resp, "add")), test, "add")
		if got != want {
			t.Errorf("program for %q:\n%s\nwant:\n%s", resp, got, want)
		}
	}
	check("```python\ndef add(a, b):\n    return a + b\n```",
		prompt+"\ndef add(a, b):\n    return a + b\n\n"+test+"\ncheck(add)")
	check("```python\nreturn a + b\n```",
		prompt+"    return a + b\n\n"+test+"\ncheck(add)")
	check("no idea", prompt+"\n"+test+"\ncheck(add)")
}

func TestTruncateAtStop(t *testing.T) {
	t.Parallel()
	check := func(in, want string) {
		t.Helper()
		if got := TruncateAtStop(in, HumanEvalStop); got != want {
			t.Errorf("TruncateAtStop(%q) = %q, want %q", in, got, want)
		}
	}
	check("    return 1\n", "    return 1\n")
	check("    return 1\n\ndef other():\n    pass", "    return 1\n")
	check("    # comment\n    return 1\n# end", "    # comment\n    return 1")
	check("    return 1\nprint(f())\nif x:", "    return 1")
	check("    x = 1\n    if x:\n        return x\nclass A: pass", "    x = 1\n    if x:\n        return x")
	if got := TruncateAtStop("code\n[DONE] more", MBPPStop); got != "code\n" {
		t.Errorf("MBPP stop: got %q", got)
	}
}

func TestMBPPProgram(t *testing.T) {
	t.Parallel()
	got := MBPPProgram("def f(x):\n    return x", "import math", []string{"assert f(1) == 1", "assert f(2) == 2"})
	want := "def f(x):\n    return x\nimport math\nassert f(1) == 1\nassert f(2) == 2\n"
	if got != want {
		t.Errorf("MBPPProgram = %q, want %q", got, want)
	}
	if got := MBPPProgram("x = 1", "", []string{"assert x == 1"}); got != "x = 1\nassert x == 1\n" {
		t.Errorf("MBPPProgram without setup = %q", got)
	}
}

func TestRemoveDemoCode(t *testing.T) {
	t.Parallel()
	const fn = "def add(a, b):\n    return a + b"
	tests := []struct {
		name, code, want string
	}{
		{"nothing to drop", "import sys\nsys.setrecursionlimit(10000)\nLIMIT = 3\n\n" + fn, "import sys\nsys.setrecursionlimit(10000)\nLIMIT = 3\n\n" + fn},
		{"prints and asserts", fn + "\n\nprint(add(1, 2))\nassert add(1, 2) == 4\n", fn},
		{"multi-line print", fn + "\nprint(\n    add(1, 2),\n)\nx = 1", fn + "\nx = 1"},
		{"bare call of the entry point", fn + "\nadd(1, 2)\nresult = add(2, 3)", fn + "\nresult = add(2, 3)"},
		{"input", fn + "\nn = int(input())\na, b = map(int, input().split())", fn},
		{"demo loop", fn + "\nfor a, b in [(1, 2)]:\n    print(add(a, b))\n", fn},
		{"table-building loop kept", "T = {}\nfor i in range(3):\n    T[i] = i * i\n" + fn, "T = {}\nfor i in range(3):\n    T[i] = i * i\n" + fn},
		{"main guard", fn + "\nif __name__ == '__main__':\n    import doctest\n    doctest.testmod()\n", fn},
		{"doctest", fn + "\nimport doctest\ndoctest.testmod()", fn + "\nimport doctest"},
		{"docstring text is not code", "def add(a, b):\n    \"\"\"\nprint(this is prose\n    \"\"\"\n    return a + b", "def add(a, b):\n    \"\"\"\nprint(this is prose\n    \"\"\"\n    return a + b"},
		{"comparison is not an assignment", fn + "\nadd(1, 2) == 3", fn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := removeDemoCode(tt.code, "add"); got != tt.want {
				t.Errorf("removeDemoCode(%q)\n got: %q\nwant: %q", tt.code, got, tt.want)
			}
		})
	}
}

func BenchmarkExtract(b *testing.B) {
	resp := "<think>Let me think about it.</think>Sure! Here is the function:\n\n```python\nfrom typing import List\n\n" +
		"def add(a: List[int], b):\n    \"\"\"Add.\"\"\"\n    total = 0\n    for x in a:\n        total += x\n    return total + b\n```\n\n" +
		"Example:\n```python\nprint(add([1, 2], 3))\n```\nThis runs in linear time."
	for b.Loop() {
		Extract(resp, "add")
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"```python\ndef f():\n    return 1\n```", "    return 1", "def f(x):\n  return x\nprint(f(1))",
		"<think>a</think>```\nx = (\n1)\n```", "\"\"\"\n```\n", "```py\nfor i in range(3):\n    print(i)"} {
		f.Add(s, "f")
	}
	f.Fuzz(func(t *testing.T, resp, entry string) {
		ex := Extract(resp, entry)
		switch ex.Form {
		case FormEmpty:
			if ex.Code != "" || ex.Source != SourceNone {
				t.Errorf("empty form with code %q source %s", ex.Code, ex.Source)
			}
		case FormFunction, FormBody, FormScript:
		default:
			t.Errorf("unknown form %q", ex.Form)
		}
		if ex.Form == FormBody {
			for _, l := range strings.Split(ex.Code, "\n") {
				if l != "" && !strings.HasPrefix(l, "    ") {
					t.Errorf("body line not indented: %q", l)
				}
			}
		}
	})
}

// BenchmarkExtractPathological feeds inputs that once made extraction
// quadratic (thousands of orphan </think> tags, fences, open brackets).
func BenchmarkExtractPathological(b *testing.B) {
	inputs := []string{
		strings.Repeat("</think>", 20000),
		strings.Repeat("```\n", 20000),
		strings.Repeat("x = (\n", 20000),
		strings.Repeat("\"\"\"\n", 20000),
	}
	for b.Loop() {
		for _, in := range inputs {
			Extract(in, "f")
		}
	}
}
