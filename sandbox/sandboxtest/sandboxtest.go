// Package sandboxtest checks that a sandbox.Executor follows the verdict
// rules of package sandbox. The interface owner writes the checks once;
// every implementation (the real Pool, a test fake, a future bubblewrap or
// gVisor backend) calls Test from its own tests.
//
// It checks verdicts only, not isolation: isolation is proven by the
// adversarial suite of package sandbox, which needs root.
package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
)

// Case is one program with the verdict every Executor must give it.
type Case struct {
	Name   string
	Rule   string // the rule in plain English, quoted in the error
	Source string
	Limits sandbox.Limits
	Want   []sandbox.Verdict
	// Check, when set, adds requirements on the result.
	Check func(sandbox.Result) error
}

var fast = sandbox.Limits{CPUTime: time.Second, OutputBytes: 1 << 20}

// Cases are the checks Test runs.
var Cases = []Case{
	{
		Name: "runs to the end", Rule: "a program that runs to its end and exits 0 passes",
		Source: "import sys\nprint('hello')\nassert sum([1, 2]) == 3\n",
		Want:   []sandbox.Verdict{sandbox.Pass},
		Check: func(r sandbox.Result) error {
			if strings.TrimSpace(r.Stdout) != "hello" {
				return fmt.Errorf("stdout %q, want %q", r.Stdout, "hello")
			}
			return nil
		},
	},
	{
		Name: "assertion", Rule: "an exception is a fail, with the exception type as the reason",
		Source: "def f(x):\n    return x + 1\nassert f(1) == 3\n",
		Want:   []sandbox.Verdict{sandbox.Fail},
		Check: func(r sandbox.Result) error {
			if !strings.Contains(r.Reason, "AssertionError") {
				return fmt.Errorf("reason %q does not name AssertionError", r.Reason)
			}
			return nil
		},
	},
	{
		Name: "syntax error", Rule: "a program that does not compile is a fail",
		Source: "def f(:\n    pass\n", Want: []sandbox.Verdict{sandbox.Fail},
		Check: func(r sandbox.Result) error {
			if !strings.Contains(r.Reason, "SyntaxError") {
				return fmt.Errorf("reason %q does not name SyntaxError", r.Reason)
			}
			return nil
		},
	},
	{
		Name: "non-zero exit", Rule: "a non-zero exit is a fail",
		Source: "import sys\nsys.exit(3)\n", Want: []sandbox.Verdict{sandbox.Fail},
	},
	{
		Name: "early sys.exit(0)", Rule: "sys.exit(0) before the end is a fail (no run-to-completion proof)",
		Source: "import sys\nsys.exit(0)\nassert False\n", Want: []sandbox.Verdict{sandbox.Fail},
	},
	{
		Name: "early os._exit(0)", Rule: "os._exit(0) before the end is a fail",
		Source: "import os\nos._exit(0)\nassert False\n", Want: []sandbox.Verdict{sandbox.Fail},
	},
	{
		Name: "atexit laundering", Rule: "an atexit hook cannot turn a failure into a pass",
		Source: "import atexit, os\natexit.register(lambda: os._exit(0))\nraise ValueError('x')\n",
		Want:   []sandbox.Verdict{sandbox.Fail},
	},
	{
		Name: "always-equal object", Rule: "an object whose __eq__ always returns True does not satisfy assert ==",
		Source: "class A:\n    def __eq__(self, o):\n        return True\nassert A() == 42\n",
		Want:   []sandbox.Verdict{sandbox.Fail},
	},
	{
		Name: "stdin is empty", Rule: "stdin is /dev/null: input() raises EOFError at once (fail), it never blocks",
		Source: "input()\n", Want: []sandbox.Verdict{sandbox.Fail},
	},
	{
		Name: "cpu spin", Rule: "a program using up its CPU time is a timeout", Limits: fast,
		Source: "while True:\n    pass\n", Want: []sandbox.Verdict{sandbox.Timeout},
	},
	{
		Name: "sleep", Rule: "a program outliving its wall-clock limit is a timeout", Limits: fast,
		Source: "import time\ntime.sleep(600)\n", Want: []sandbox.Verdict{sandbox.Timeout},
	},
	{
		Name: "output flood", Rule: "output past the cap kills the program (error) and the kept output is bounded", Limits: fast,
		Source: "while True:\n    print('x' * 4096)\n", Want: []sandbox.Verdict{sandbox.Error},
		Check: func(r sandbox.Result) error {
			if n := len(r.Stdout) + len(r.Stderr); n > 1<<20 {
				return fmt.Errorf("kept %d bytes of output, more than the 1 MiB cap", n)
			}
			return nil
		},
	},
	{
		Name: "empty environment", Rule: "the program does not inherit the caller's environment",
		Source: "import os\nleak = [k for k in os.environ if 'SECRET' in k or k in ('USER', 'SSH_AUTH_SOCK', 'AWS_ACCESS_KEY_ID', 'GITHUB_TOKEN')]\nassert not leak, leak\n",
		Want:   []sandbox.Verdict{sandbox.Pass},
	},
}

// Test runs every case through ex and returns one error listing every
// violation (nil when ex follows all the rules). Cases run concurrently, so
// it also checks that ex is safe for concurrent use.
func Test(ctx context.Context, ex sandbox.Executor) error {
	errs := make([]error, len(Cases))
	done := make(chan struct{})
	for i, c := range Cases {
		go func() {
			defer func() { done <- struct{}{} }()
			errs[i] = check(ctx, ex, c)
		}()
	}
	for range Cases {
		<-done
	}
	return errors.Join(errs...)
}

func check(ctx context.Context, ex sandbox.Executor, c Case) error {
	r, err := ex.Run(ctx, sandbox.Program{Source: c.Source, Limits: c.Limits})
	if err != nil {
		return fmt.Errorf("%s: Run: %w", c.Name, err)
	}
	ok := false
	for _, w := range c.Want {
		ok = ok || r.Verdict == w
	}
	if !ok {
		return fmt.Errorf("%s: verdict %s (%s), want %v: %s", c.Name, r.Verdict, r.Reason, c.Want, c.Rule)
	}
	if c.Check != nil {
		if err := c.Check(r); err != nil {
			return fmt.Errorf("%s: %w: %s", c.Name, err, c.Rule)
		}
	}
	return nil
}
