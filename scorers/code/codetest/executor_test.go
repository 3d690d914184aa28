package codetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
)

func TestExecutorVerdicts(t *testing.T) {
	t.Parallel()
	ex := NewForTest(t, Config{Workers: 2})
	short := sandbox.Limits{CPUTime: time.Second, Timeout: 3 * time.Second}
	tests := []struct {
		name       string
		src        string
		limits     sandbox.Limits
		want       sandbox.Verdict
		wantStderr string
	}{
		{name: "pass", src: "x = 1\nassert x == 1\n", want: sandbox.Pass},
		{name: "prints are fine", src: "print('hello')\n", want: sandbox.Pass},
		{name: "assert fails", src: "assert 1 == 2\n", want: sandbox.Fail, wantStderr: "AssertionError"},
		{name: "syntax error", src: "def (:\n", want: sandbox.Fail, wantStderr: "SyntaxError"},
		{name: "early sys.exit(0)", src: "import sys\nsys.exit(0)\nassert False\n", want: sandbox.Fail, wantStderr: "early exit"},
		{name: "early os._exit(0)", src: "import os\nos._exit(0)\nassert False\n", want: sandbox.Fail},
		{name: "stdin is empty", src: "input()\n", want: sandbox.Fail, wantStderr: "EOFError"},
		{name: "cpu spin", src: "while True:\n    pass\n", limits: short, want: sandbox.Timeout},
		{name: "sleep", src: "import time\ntime.sleep(30)\n", limits: short, want: sandbox.Timeout},
		{name: "output flood", src: "while True:\n    print('x' * 1000)\n",
			limits: sandbox.Limits{CPUTime: 5 * time.Second, Timeout: 5 * time.Second, OutputBytes: 1 << 16}, want: sandbox.Error},
		{name: "killed by a signal", src: "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", want: sandbox.Error},
		{name: "runs as __main__", src: "assert __name__ == '__main__'\n", want: sandbox.Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := ex.Run(context.Background(), sandbox.Program{Source: tt.src, Limits: tt.limits})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Verdict != tt.want {
				t.Errorf("verdict = %s (%s), want %s; stderr:\n%s", res.Verdict, res.Reason, tt.want, res.Stderr)
			}
			if !strings.Contains(res.Stderr, tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, res.Stderr)
			}
		})
	}
}

func TestExecutorHonoursContext(t *testing.T) {
	t.Parallel()
	ex := NewForTest(t, Config{Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ex.Run(ctx, sandbox.Program{Source: "pass\n"}); err == nil {
		t.Fatal("Run with a cancelled context returned no error")
	}
}
