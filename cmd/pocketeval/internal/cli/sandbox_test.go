package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/spf13/cobra"
)

// fakeExecutor returns a fixed result and records the program it got.
type fakeExecutor struct {
	res  sandbox.Result
	got  sandbox.Program
	used bool
}

func (f *fakeExecutor) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	f.got, f.used = p, true
	return f.res, nil
}

func TestSandboxRun(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.py")
	if err := os.WriteFile(prog, []byte("assert 1 == 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		res      sandbox.Result
		wantCode int
		wantOut  string
		check    func(t *testing.T, p sandbox.Program)
	}{
		{
			name: "pass", args: []string{prog},
			res:      sandbox.Result{Verdict: sandbox.Pass, Stdout: "hi\n", Duration: 52 * time.Millisecond},
			wantCode: 0, wantOut: "verdict: pass\nexit code: 0\nduration: 52ms\n--- stdout ---\nhi\n",
		},
		{
			name: "fail with limits", args: []string{"--timeout", "3s", "--memory", "512MiB", prog},
			res:      sandbox.Result{Verdict: sandbox.Fail, ExitCode: 1, Reason: "AssertionError", Stderr: "Traceback", Duration: time.Second},
			wantCode: 1, wantOut: "verdict: fail\nreason: AssertionError\nexit code: 1\nduration: 1s\n--- stderr ---\nTraceback\n",
			check: func(t *testing.T, p sandbox.Program) {
				if p.Limits.CPUTime != 3*time.Second || p.Limits.MemoryBytes != 512<<20 || p.Limits.Wall != 0 || p.Limits.Idle != 0 || p.Exec != "" {
					t.Errorf("limits = %+v", p.Limits)
				}
				if p.Source != "assert 1 == 1\n" {
					t.Errorf("source = %q", p.Source)
				}
			},
		},
		{
			name: "timeout", args: []string{prog},
			res:      sandbox.Result{Verdict: sandbox.Timeout, Signal: "SIGKILL", Reason: "CPU-time limit 10s exceeded", Duration: 10 * time.Second},
			wantCode: 124, wantOut: "verdict: timeout\nreason: CPU-time limit 10s exceeded\nsignal: SIGKILL\nduration: 10s\n",
		},
		{
			name: "error as json", args: []string{"--json", prog},
			res:      sandbox.Result{Verdict: sandbox.Error, Reason: "output cap exceeded", Signal: "SIGKILL", ExitCode: 137},
			wantCode: 125, wantOut: "{\n  \"schema_version\": 1,\n  \"verdict\": \"error\",\n  \"exit_code\": 137,\n  \"signal\": \"SIGKILL\",\n  \"reason\": \"output cap exceeded\",\n  \"duration_ns\": 0,\n  \"cpu_ns\": 0\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := TestStreams()
			fake := &fakeExecutor{res: tt.res}
			cmd := NewCmdSandboxRun(&Factory{IO: ios}, func(o *SandboxRunOptions) error {
				o.Executor = func(cfg sandbox.Config) (sandbox.Executor, sandbox.Layers, func() error, error) {
					if cfg.Unsafe {
						t.Errorf("unsafe mode without --unsafe-no-sandbox")
					}
					return fake, sandbox.Layers{}, func() error { return nil }, nil
				}
				return sandboxRun(context.Background(), o)
			})
			cmd.SetArgs(tt.args)
			err := cmd.ExecuteContext(context.Background())
			code := 0
			var ec *ExitCodeError
			if errors.As(err, &ec) {
				code = ec.Code
			} else if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d", code, tt.wantCode)
			}
			if out.String() != tt.wantOut {
				t.Errorf("output:\n%s\nwant:\n%s", out, tt.wantOut)
			}
			if !fake.used {
				t.Fatal("executor not used")
			}
			if tt.check != nil {
				tt.check(t, fake.got)
			}
		})
	}
}

func TestSandboxRunFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--memory", "lots", "x.py"},
		{"--timeout", "-1s", "x.py"},
		{},
	} {
		ios, _, _, _ := TestStreams()
		cmd := NewCmdSandboxRun(&Factory{IO: ios}, func(o *SandboxRunOptions) error {
			t.Errorf("%v: ran despite a usage error", args)
			return nil
		})
		usageArgs(cmd) // as NewCmdRoot does
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{err: err} })
		cmd.SetArgs(args)
		cmd.SetOut(ios.Out)
		cmd.SetErr(ios.ErrOut)
		err := cmd.ExecuteContext(context.Background())
		var fe *FlagError
		if !errors.As(err, &fe) {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
}

func TestSandboxProbe(t *testing.T) {
	good := sandbox.Layers{Mode: "root", Python: "/usr/bin/python3", Layers: []sandbox.Layer{
		{Name: sandbox.LayerMountNS, Active: true}, {Name: sandbox.LayerNetNS, Active: true},
	}}
	bad := sandbox.Layers{Mode: "no-namespaces", Python: "/usr/bin/python3", Layers: []sandbox.Layer{
		{Name: sandbox.LayerSeccomp, Active: true},
	}}
	for _, tt := range []struct {
		name     string
		layers   sandbox.Layers
		json     bool
		wantCode int
		wantOut  string
	}{
		{"sufficient", good, false, 0, "mode: root\npython: /usr/bin/python3\n  mount-namespace  active    \n  net-namespace    active    \n"},
		{"insufficient fails", bad, false, 1, "mode: no-namespaces\npython: /usr/bin/python3\n  seccomp  active    \n"},
		{"json", good, true, 0, `"mode": "root"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := TestStreams()
			cmd := NewCmdSandboxProbe(&Factory{IO: ios}, func(o *SandboxProbeOptions) error {
				o.Probe = func() sandbox.Layers { return tt.layers }
				return sandboxProbe(o)
			})
			args := []string{}
			if tt.json {
				args = append(args, "--json")
			}
			cmd.SetArgs(args)
			err := cmd.ExecuteContext(context.Background())
			code := 0
			var ec *ExitCodeError
			if errors.As(err, &ec) {
				code = ec.Code
			}
			if code != tt.wantCode {
				t.Errorf("exit code %d (%v), want %d", code, err, tt.wantCode)
			}
			if tt.json && !strings.Contains(out.String(), tt.wantOut) || !tt.json && out.String() != tt.wantOut {
				t.Errorf("output:\n%q\nwant:\n%q", out, tt.wantOut)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	check := func(in string, want int64) {
		t.Helper()
		got, err := parseSize(in)
		if want < 0 {
			if err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", in, got)
			}
			return
		}
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	check("1048576", 1<<20)
	check("512MiB", 512<<20)
	check("512m", 512<<20)
	check("1G", 1<<30)
	check("1.5GB", 3<<29)
	check("64k", 64<<10)
	check("0", -1)
	check("lots", -1)
	check("12X", -1)
	check("", -1)
}

// passingExecutor passes every program: the conformance check must catch it.
type passingExecutor struct{}

func (passingExecutor) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	return sandbox.Result{Verdict: sandbox.Pass}, nil
}

func TestSandboxConformance(t *testing.T) {
	data := sharedtest.Datasets(t)
	conf := sharedtest.Conformance(t)
	ios, _, out, errb := TestStreams()
	hogs := 0
	cmd := NewCmdSandboxConformance(&Factory{IO: ios}, func(o *SandboxConformanceOptions) error {
		o.Executor = func(cfg sandbox.Config) (sandbox.Executor, sandbox.Layers, func() error, error) {
			return passingExecutor{}, sandbox.Layers{Mode: "fake"}, func() error { return nil }, nil
		}
		o.StartHogs = func(n int) (func(), error) {
			hogs = n
			return func() {}, nil
		}
		o.TimeLimits.CacheDir = t.TempDir()
		return sandboxConformance(context.Background(), o)
	})
	cmd.SetArgs([]string{"--data-dir", data, "--conformance-dir", conf, "--limit", "3", "--sets", "humaneval-canonical,humaneval-gpt-3.5-turbo"})
	err := cmd.ExecuteContext(context.Background())
	var ec *ExitCodeError
	if !errors.As(err, &ec) || ec.Code != ExitError {
		t.Fatalf("err = %v, want exit %d: an executor that passes everything does not conform", err, ExitError)
	}
	if hogs < 1 {
		t.Errorf("the loaded pass started %d hogs", hogs)
	}
	for _, want := range []string{"idle pass", "loaded pass", "humaneval-canonical      3  3/3", "MISMATCH humaneval-gpt-3.5-turbo",
		"limit 4 GiB bytearray", "limit rule: self SIGKILL", "WRONG", "conformance: FAILED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errb.String(), "== idle pass (load average") {
		t.Errorf("stderr: %s", errb)
	}
}

func TestSandboxConformanceFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--sets", "humaneval-everything"},
		{"--time-limit-mode", "wall"},
		{"--time-limit-factor", "-1"},
		{"--limit", "-1"},
		{"--verdict-mode", "strict"},
	} {
		ios, _, _, _ := TestStreams()
		cmd := NewCmdSandboxConformance(&Factory{IO: ios}, func(o *SandboxConformanceOptions) error {
			t.Errorf("%v: ran despite a usage error", args)
			return nil
		})
		cmd.SetArgs(append(args, "--data-dir", t.TempDir()))
		cmd.SetOut(ios.Out)
		cmd.SetErr(ios.ErrOut)
		var fe *FlagError
		if err := cmd.ExecuteContext(context.Background()); !errors.As(err, &fe) {
			t.Errorf("%v: error %v, want a flag error", args, err)
		}
	}
}
