package sandbox

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	const nonce = "0123456789abcdef0123456789abcdef"
	base := outcome{Nonce: nonce, Exited: true, CPULimit: 2 * time.Second, Wall: time.Second}
	with := func(f func(o *outcome)) outcome {
		o := base
		f(&o)
		return o
	}
	tests := []struct {
		name       string
		o          outcome
		want       Verdict
		wantReason string
	}{
		{"ran to the end", with(func(o *outcome) { o.Proof = "ok " + nonce + "\n" }), Pass, ""},
		{"exit 0 without proof", base, Fail, "exited before the end (no run-to-completion proof)"},
		{"exit 0 with a wrong nonce", with(func(o *outcome) { o.Proof = "ok " + strings.Repeat("0", 32) }), Fail, "exited before the end (no run-to-completion proof)"},
		{"proof then garbage", with(func(o *outcome) { o.Proof = "ok " + nonce + "\nok " + nonce }), Fail, "exited before the end (no run-to-completion proof)"},
		{"proof but exit 1", with(func(o *outcome) { o.Proof = "ok " + nonce; o.ExitCode = 1 }), Fail, "exit status 1 before the end"},
		{"exception", with(func(o *outcome) { o.Proof = "exc AssertionError\n"; o.ExitCode = 1 }), Fail, "AssertionError"},
		{"early sys.exit(0)", with(func(o *outcome) { o.Proof = "exc SystemExit(0) before the end"; o.ExitCode = 1 }), Fail, "SystemExit(0) before the end"},
		{"exit 3", with(func(o *outcome) { o.ExitCode = 3 }), Fail, "exit status 3 before the end"},
		{"wall clock", with(func(o *outcome) { o.WallOut = true; o.Exited = false; o.Signal = syscall.SIGKILL }), Timeout, "wall-clock limit exceeded after 1s"},
		{"wall clock beats the proof", with(func(o *outcome) { o.WallOut = true; o.Proof = "ok " + nonce }), Timeout, "wall-clock limit exceeded after 1s"},
		{"SIGXCPU", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGXCPU }), Timeout, "CPU-time limit 2s exceeded"},
		{"RLIMIT_CPU hard kill", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGKILL }), Timeout, "CPU-time limit 2s exceeded"},
		{"output cap", with(func(o *outcome) { o.OutputCap = true; o.Exited = false; o.Signal = syscall.SIGKILL }), Error, "output cap exceeded"},
		{"OOM kill", with(func(o *outcome) { o.OOM = true; o.Exited = false; o.Signal = syscall.SIGKILL }), Error, "out of memory (killed by the kernel)"},
		{"segfault", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGSEGV }), Error, "killed by signal SIGSEGV"},
		{"file size limit", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGXFSZ }), Error, "killed by signal SIGXFSZ"},
		{"seccomp kill", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGSYS }), Error, "killed by signal SIGSYS"},
		{"setup failure", with(func(o *outcome) { o.Proof = setupPrefix + "private root: mount proc: EPERM\n"; o.ExitCode = exitSetup }), Error, "sandbox setup-error: private root: mount proc: EPERM"},
		{"forged setup failure from the program is not a setup failure", with(func(o *outcome) { o.Proof = setupPrefix + "x"; o.ExitCode = 1 }), Fail, "exit status 1 before the end"},
		{"no nonce configured never passes", with(func(o *outcome) { o.Nonce = ""; o.Proof = "ok " }), Fail, "exited before the end (no run-to-completion proof)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := classify(tt.o)
			if got != tt.want || reason != tt.wantReason {
				t.Errorf("classify = %s %q, want %s %q", got, reason, tt.want, tt.wantReason)
			}
		})
	}
}

func TestCapture(t *testing.T) {
	fired := 0
	c := newCapture(10, 4, func() { fired++ })
	c.out.Write([]byte("abcdef"))
	c.err.Write([]byte("\xff\xfe"))
	if c.exceeded() || fired != 0 {
		t.Fatalf("capped after 8 of 10 bytes")
	}
	c.err.Write([]byte("xyz"))
	c.out.Write([]byte("more"))
	if !c.exceeded() || fired != 1 {
		t.Fatalf("exceeded=%v fired=%d, want true 1", c.exceeded(), fired)
	}
	if got, want := c.out.text(), "abcd\n[... 6 more bytes not kept]"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got, want := c.err.text(), "\uFFFDxy\n[... 1 more bytes not kept]"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestLimitsResolve(t *testing.T) {
	def := Limits{CPUTime: 10 * time.Second, Timeout: 30 * time.Second, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}
	tests := []struct {
		name string
		in   Limits
		want Limits
	}{
		{"all defaults", Limits{}, def},
		{"cpu only: wall is 3x", Limits{CPUTime: 2 * time.Second}, Limits{CPUTime: 2 * time.Second, Timeout: 6 * time.Second, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}},
		{"wall only: cpu equals wall", Limits{Timeout: 4 * time.Second}, Limits{CPUTime: 4 * time.Second, Timeout: 4 * time.Second, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}},
		{"both and memory", Limits{CPUTime: time.Second, Timeout: 5 * time.Second, MemoryBytes: 5, OutputBytes: 7}, Limits{CPUTime: time.Second, Timeout: 5 * time.Second, MemoryBytes: 5, OutputBytes: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.resolve(def); got != tt.want {
				t.Errorf("resolve = %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := (Limits{}).resolve(Limits{}); got != DefaultLimits {
		t.Errorf("resolve with zero defaults = %+v, want DefaultLimits %+v", got, DefaultLimits)
	}
}

func TestLayersCheck(t *testing.T) {
	layer := func(name string, on bool, detail string) Layer { return Layer{Name: name, Active: on, Detail: detail} }
	tests := []struct {
		name    string
		layers  []Layer
		wantErr string
	}{
		{"namespaces", []Layer{layer(LayerMountNS, true, ""), layer(LayerNetNS, true, "")}, ""},
		{"landlock alone at ABI 4", []Layer{layer(LayerLandlock, true, "ABI 4: ...")}, ""},
		{"landlock ABI 3 without net namespace", []Layer{layer(LayerLandlock, true, "ABI 3")}, "network"},
		{"net namespace only", []Layer{layer(LayerNetNS, true, "")}, "filesystem"},
		{"nothing", []Layer{layer(LayerSeccomp, true, "")}, "filesystem (needs a mount namespace or Landlock) and network"},
		{"inactive landlock does not count", []Layer{layer(LayerLandlock, false, "ABI 7"), layer(LayerNetNS, true, "")}, "filesystem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Layers{Layers: tt.layers}.Check()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Check = %v, want an error mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestLayersString(t *testing.T) {
	ls := Layers{Mode: "root", Python: "/usr/bin/python3.11", Layers: []Layer{
		{Name: LayerPIDNS, Active: true, Detail: "pid 1"},
		{Name: LayerCgroup, Detail: "read-only cgroupfs"},
	}, Unsafe: true}
	want := `mode: root
python: /usr/bin/python3.11
  pid-namespace  active    pid 1
  cgroup         inactive  read-only cgroupfs
UNSAFE: running below the minimum isolation (explicitly requested)
`
	if got := ls.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}
