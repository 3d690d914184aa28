package sandbox

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	const nonce = "0123456789abcdef0123456789abcdef"
	lim := Limits{CPUTime: 2 * time.Second, Idle: 2 * time.Second, Stopped: 2 * time.Second, Wall: time.Minute, MemoryBytes: 256 << 20}
	base := outcome{Nonce: nonce, Exited: true, CPULimit: 2 * time.Second, RlimitCPU: 3 * time.Second,
		Limits: lim, Wall: time.Second, MemLimitB: 384 << 20}
	with := func(f func(o *outcome)) outcome {
		o := base
		f(&o)
		return o
	}
	killed := func(c killCause) func(o *outcome) {
		return func(o *outcome) { o.Killed, o.Exited, o.Signal = c, false, syscall.SIGKILL }
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
		{"MemoryError is a fail", with(func(o *outcome) { o.Proof = "exc MemoryError\n"; o.ExitCode = 1 }), Fail, "MemoryError"},
		{"early sys.exit(0)", with(func(o *outcome) { o.Proof = "exc SystemExit(0) before the end"; o.ExitCode = 1 }), Fail, "SystemExit(0) before the end"},
		{"exit 3", with(func(o *outcome) { o.ExitCode = 3 }), Fail, "exit status 3 before the end"},
		{"tree cpu time", with(killed(killCPU)), Timeout, "cpu time limit 2s exceeded"},
		{"cpu time beats the proof", with(func(o *outcome) { killed(killCPU)(o); o.Proof = "ok " + nonce }), Timeout, "cpu time limit 2s exceeded"},
		{"idle", with(killed(killIdle)), Timeout, "idle (sleeping or blocked) for 2s"},
		{"stopped", with(func(o *outcome) { killed(killStopped)(o); o.Limits.Stopped = time.Second }), Timeout, "stopped (SIGSTOP or the like) for 1s"},
		{"wall-clock guard", with(killed(killWall)), Timeout, "wall-clock limit 1m0s exceeded"},
		{"harness timer inside the program", with(func(o *outcome) { o.Proof = "alarm"; o.ExitCode = 1; o.Limits.Alarm = 3 * time.Second }), Timeout, "harness timer 3s exceeded"},
		{"harness join after the timer", with(func(o *outcome) {
			killed(killWall)(o)
			o.Limits.Alarm = 3 * time.Second
			o.Limits.Wall = 4 * time.Second
		}), Timeout, "harness timer 3s exceeded (still running after 4s)"},
		{"SIGXCPU", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGXCPU }), Timeout, "cpu time limit 2s exceeded"},
		{"RLIMIT_CPU hard kill", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGKILL; o.CPU = 3 * time.Second }), Timeout, "cpu time limit 2s exceeded"},
		{"SIGKILL far below the rlimit", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGKILL; o.CPU = 100 * time.Millisecond }), Error, "killed by signal SIGKILL"},
		{"output cap", with(killed(killOutput)), Error, "output cap exceeded"},
		{"OOM kill", with(func(o *outcome) { o.OOM = true; o.Exited = false; o.Signal = syscall.SIGKILL }), Error, "memory: killed at the memory limit (384 MiB)"},
		{"a process of the tree OOM-killed: the rest killed at once", with(killed(killMemory)), Error, "memory: killed at the memory limit (384 MiB)"},
		{"reclaim at the limit, then killed idle", with(func(o *outcome) { killed(killIdle)(o); o.MemLimit = true }), Error, "memory: killed at the memory limit (384 MiB)"},
		{"limit reached but the program ended normally", with(func(o *outcome) { o.MemLimit = true; o.Proof = "exc MemoryError"; o.ExitCode = 1 }), Fail, "MemoryError"},
		{"segfault", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGSEGV }), Error, "killed by signal SIGSEGV"},
		{"file size limit", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGXFSZ }), Error, "killed by signal SIGXFSZ"},
		{"seccomp kill", with(func(o *outcome) { o.Exited = false; o.Signal = syscall.SIGSYS }), Error, "killed by signal SIGSYS"},
		{"setup failure", with(func(o *outcome) { o.Proof = setupPrefix + "private root: mount proc: EPERM\n"; o.ExitCode = exitSetup }), Error, "sandbox setup-error: private root: mount proc: EPERM"},
		{"forged setup failure from the program is not a setup failure", with(func(o *outcome) { o.Proof = setupPrefix + "x"; o.ExitCode = 1 }), Fail, "exit status 1 before the end"},
		{"forged alarm without a timer is still non-pass", with(func(o *outcome) { o.Proof = "alarm"; o.ExitCode = 0 }), Timeout, "harness timer 0s exceeded"},
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
	def := Limits{CPUTime: 10 * time.Second, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}
	tests := []struct {
		name string
		in   Limits
		want Limits
	}{
		{"all defaults: idle = cpu, wall = 20x cpu", Limits{}, Limits{CPUTime: 10 * time.Second, Idle: 10 * time.Second, Stopped: 10 * time.Second, Wall: 200 * time.Second, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}},
		{"own cpu: idle and wall follow it, wall at least 60s", Limits{CPUTime: 2 * time.Second}, Limits{CPUTime: 2 * time.Second, Idle: 2 * time.Second, Stopped: 2 * time.Second, Wall: time.Minute, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}},
		{"harness timer: wall is alarm + 1s", Limits{CPUTime: 4 * time.Second, Alarm: 3 * time.Second}, Limits{CPUTime: 4 * time.Second, Idle: 4 * time.Second, Stopped: 4 * time.Second, Wall: 4 * time.Second, Alarm: 3 * time.Second, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}},
		{"everything set", Limits{CPUTime: time.Second, Idle: 5 * time.Second, Stopped: 2 * time.Second, Wall: 9 * time.Second, MemoryBytes: 5, OutputBytes: 7},
			Limits{CPUTime: time.Second, Idle: 5 * time.Second, Stopped: 2 * time.Second, Wall: 9 * time.Second, MemoryBytes: 5, OutputBytes: 7}},
		{"stopped follows idle", Limits{CPUTime: time.Second, Idle: 5 * time.Second}, Limits{CPUTime: time.Second, Idle: 5 * time.Second, Stopped: 5 * time.Second, Wall: time.Minute, MemoryBytes: 1 << 30, OutputBytes: 1 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.resolve(def); got != tt.want {
				t.Errorf("resolve = %+v, want %+v", got, tt.want)
			}
		})
	}
	poolDef := Limits{CPUTime: 2 * time.Second, Idle: 7 * time.Second, Wall: 30 * time.Second}
	if got := (Limits{MemoryBytes: 9}).resolve(poolDef); got.Idle != 7*time.Second || got.Wall != 30*time.Second {
		t.Errorf("pool defaults not used when the program sets no CPU limit: %+v", got)
	}
	if got := (Limits{}).resolve(Limits{}); got.CPUTime != DefaultLimits.CPUTime || got.MemoryBytes != DefaultLimits.MemoryBytes || got.OutputBytes != DefaultLimits.OutputBytes {
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
