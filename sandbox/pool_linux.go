package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

const (
	pidsMax         = 64
	asHeadroom      = 256 << 20
	waitDelay       = 500 * time.Millisecond
	defaultBaseUID  = 200000
	uidSpan         = 1 << 16
	probeProgram    = "import sys\nassert sum([1, 2]) == 3\nprint('ok', sys.version_info[0])\n"
	probeCPUTimeout = 10 * time.Second
)

// mode is how a Pool isolates programs; New picks the best one that works.
type mode struct {
	name     string
	flags    uintptr // clone flags
	userNS   bool
	mountNS  bool
	uidDrop  bool
	landlock int // ABI, 0 = off
	seccomp  bool
	plain    bool // unsafe: no helper at all, the interpreter runs directly
}

// Pool runs programs through the set-up helper with a bounded number of
// workers. It implements Executor. Close it to remove its cgroups.
type Pool struct {
	cfg     Config
	limits  Limits
	py      interpreter
	mode    mode
	layers  Layers
	cg      *cgroups
	slots   chan int
	tmp     string
	helper  string
	baseUID int
	seq     atomic.Uint64
	uidSeq  atomic.Uint64
	closed  sync.Once
}

var _ Executor = (*Pool)(nil)

// New probes the machine, picks the strongest isolation that works here
// (running a small program through it), and returns a pool. It refuses
// (ErrInsufficientIsolation) when the result is below the minimum unless
// cfg.Unsafe is set.
func New(cfg Config) (*Pool, error) {
	p, err := probe(cfg)
	if err != nil {
		return nil, err
	}
	if err := p.layers.Check(); err != nil {
		if !cfg.Unsafe {
			p.Close()
			return nil, err
		}
		p.layers.Unsafe = true
	}
	return p, nil
}

// Probe reports which isolation layers a Pool with the default Config
// would use on this machine, each active or inactive with the reason. It
// runs a small program through each candidate set-up.
func Probe() Layers {
	p, err := probe(Config{Unsafe: true})
	if err != nil {
		return Layers{Mode: "unavailable", Layers: []Layer{{Name: LayerSupervisor, Detail: err.Error()}}}
	}
	defer p.Close()
	return p.Layers()
}

// Layers returns the isolation report of this pool.
func (p *Pool) Layers() Layers {
	ls := p.layers
	ls.Layers = append([]Layer(nil), p.layers.Layers...)
	return ls
}

// Close removes the pool's cgroups. It is safe to call more than once.
func (p *Pool) Close() error {
	var err error
	p.closed.Do(func() {
		if p.cg != nil {
			err = p.cg.close()
		}
	})
	return err
}

func probe(cfg Config) (*Pool, error) {
	if cfg.HelperPath == "" && !helperHooked.Load() {
		return nil, errors.New("sandbox: this binary does not call sandbox.MaybeRunHelper first thing in main (or TestMain)")
	}
	py, err := resolvePython(context.Background(), cfg.Python)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &Pool{
		cfg:     cfg,
		limits:  cfg.Limits.resolve(DefaultLimits),
		py:      py,
		slots:   make(chan int, workers),
		tmp:     cfg.TempDir,
		helper:  cfg.HelperPath,
		baseUID: cfg.BaseUID,
	}
	for i := range workers {
		p.slots <- i
	}
	if p.tmp == "" {
		p.tmp = os.TempDir()
	}
	if p.helper == "" {
		p.helper = "/proc/self/exe"
	}
	if p.baseUID == 0 {
		p.baseUID = defaultPoolBaseUID()
	}
	root := os.Geteuid() == 0

	cgErr := errors.New("not tried")
	if cg, err := newCgroups(fmt.Sprintf("%s%d-%s", cgroupPrefix, os.Getpid(), newNonce()[:8])); err == nil {
		p.cg = cg
	} else {
		cgErr = err
	}
	abi, llErr := llsyscall.LandlockGetABIVersion()
	if llErr == nil && abi < 1 {
		llErr = fmt.Errorf("ABI %d", abi)
	}
	if llErr != nil {
		abi = 0
	}
	sc := seccomp.Supported()

	nsFlags := uintptr(unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP)
	candidates := []mode{
		{name: "root", flags: nsFlags, mountNS: true, uidDrop: true, landlock: abi, seccomp: sc},
		{name: "no-namespaces", uidDrop: root, landlock: abi, seccomp: sc},
	}
	if !root {
		candidates[0] = mode{name: "rootless", flags: nsFlags | unix.CLONE_NEWUSER, userNS: true, mountNS: true, landlock: abi, seccomp: sc}
	}
	var failures []string
	chosen := -1
	for i, m := range candidates {
		if cfg.onlyMode != "" && cfg.onlyMode != m.name {
			continue
		}
		p.mode = m
		res, err := p.runOne(context.Background(), 0, probeProgram, Limits{CPUTime: probeCPUTimeout})
		if err == nil && res.Verdict == Pass {
			chosen = i
			break
		}
		why := res.Reason
		if err != nil {
			why = err.Error()
		}
		if why == "" {
			why = fmt.Sprintf("verdict %s: %s", res.Verdict, strings.TrimSpace(res.Stderr))
		}
		failures = append(failures, m.name+": "+why)
	}
	if chosen < 0 {
		if !cfg.Unsafe {
			p.Close()
			return nil, fmt.Errorf("sandbox: %w: no set-up works here (%s); pass unsafe mode (--unsafe-no-sandbox) to run without isolation",
				ErrInsufficientIsolation, strings.Join(failures, "; "))
		}
		p.mode = mode{name: "unsafe-plain", plain: true}
	}
	p.layers = p.describe(root, failures, cgErr, llErr, sc)
	return p, nil
}

// describe builds the layer report for the chosen mode.
func (p *Pool) describe(root bool, failures []string, cgErr, llErr error, sc bool) Layers {
	m := p.mode
	ns := m.flags != 0
	why := "namespaces unavailable"
	if len(failures) > 0 {
		why = failures[0]
	}
	if m.plain {
		why = "unsafe mode: " + strings.Join(failures, "; ")
	}
	nsLayer := func(name string, flag uintptr, what string) Layer {
		if m.flags&flag != 0 {
			return Layer{Name: name, Active: true, Detail: what}
		}
		return Layer{Name: name, Detail: why}
	}
	lim := p.limits
	ls := Layers{Mode: m.name, Python: fmt.Sprintf("%s (Python %s, prefix %s)", p.py.Exe, p.py.Version, p.py.Prefix)}
	add := func(l Layer) { ls.Layers = append(ls.Layers, l) }
	add(Layer{Name: LayerSupervisor, Active: true, Detail: fmt.Sprintf(
		"%d workers; default CPU %s, wall %s; whole-tree SIGKILL; output cap %d MiB; empty env; stdin /dev/null",
		cap(p.slots), lim.CPUTime, lim.Timeout, lim.OutputBytes>>20)})
	add(nsLayer(LayerPIDNS, unix.CLONE_NEWPID, "program is pid 1; the tree dies with it"))
	add(nsLayer(LayerNetNS, unix.CLONE_NEWNET, "loopback only, down"))
	add(nsLayer(LayerMountNS, unix.CLONE_NEWNS, "private mounts"))
	add(nsLayer(LayerIPCNS, unix.CLONE_NEWIPC, "private System V IPC and POSIX queues"))
	add(nsLayer(LayerUTSNS, unix.CLONE_NEWUTS, "hostname sandbox"))
	switch {
	case m.userNS:
		add(Layer{Name: LayerUserNS, Active: true, Detail: "own uid mapped to 0"})
	case root && ns:
		add(Layer{Name: LayerUserNS, Detail: "not needed: running as root (drops to a per-worker uid instead)"})
	default:
		add(Layer{Name: LayerUserNS, Detail: why})
	}
	if m.mountNS {
		binds := "/usr"
		if !within(p.py.Prefix, "/usr") {
			binds += " and " + p.py.Prefix
		}
		add(Layer{Name: LayerRoot, Active: true, Detail: fmt.Sprintf(
			"tmpfs / (read-only), read-only %s, fresh /proc, tmpfs /tmp, /dev/shm and /scratch (%s each)", binds, tmpfsSize)})
	} else {
		add(Layer{Name: LayerRoot, Detail: why})
	}
	switch {
	case p.cg != nil && !m.plain:
		add(Layer{Name: LayerCgroup, Active: true, Detail: p.cg.detail() + fmt.Sprintf("; pids.max %d", pidsMax)})
	case m.plain:
		add(Layer{Name: LayerCgroup, Detail: "unsafe mode"})
	default:
		add(Layer{Name: LayerCgroup, Detail: cgErr.Error() + "; memory by RLIMIT_AS instead"})
	}
	rl := fmt.Sprintf("CPU %s, FSIZE %d MiB, NOFILE %d, CORE 0", lim.CPUTime, fileSizeLimit>>20, noFileLimit)
	if m.uidDrop || m.userNS {
		rl += fmt.Sprintf(", NPROC %d", pidsMax)
	}
	if p.cg == nil {
		rl += ", AS memory+256 MiB"
	}
	if m.plain {
		rl = "CPU and AS via prlimit before the program starts"
	}
	add(Layer{Name: LayerRlimits, Active: true, Detail: rl})
	switch {
	case m.uidDrop:
		add(Layer{Name: LayerUID, Active: true, Detail: fmt.Sprintf("uid/gid %d..%d, a fresh one per run; no supplementary groups, no_new_privs", p.baseUID, p.baseUID+uidSpan-1)})
	case m.userNS:
		add(Layer{Name: LayerUID, Active: true, Detail: "capabilities dropped, SECBIT_NOROOT locked, no_new_privs"})
	case m.plain:
		add(Layer{Name: LayerUID, Detail: "unsafe mode: runs as the caller's uid"})
	case root:
		add(Layer{Name: LayerUID, Detail: why})
	default:
		add(Layer{Name: LayerUID, Detail: "not running as root: already unprivileged"})
	}
	switch {
	case m.landlock > 0:
		add(Layer{Name: LayerLandlock, Active: true, Detail: fmt.Sprintf("ABI %d: filesystem rules, TCP bind/connect denied%s", m.landlock, scopeNote(m.landlock))})
	case m.plain:
		add(Layer{Name: LayerLandlock, Detail: "unsafe mode"})
	case llErr != nil:
		add(Layer{Name: LayerLandlock, Detail: "unavailable: " + llErr.Error()})
	}
	switch {
	case m.seccomp:
		d := "deny-list (EPERM): ptrace, mount, namespaces, bpf, io_uring, keyctl, modules ..."
		if m.flags&unix.CLONE_NEWNET == 0 {
			d += "; socket(AF_INET/AF_INET6/AF_UNIX) denied"
		}
		add(Layer{Name: LayerSeccomp, Active: true, Detail: d})
	case m.plain:
		add(Layer{Name: LayerSeccomp, Detail: "unsafe mode"})
	case !sc:
		add(Layer{Name: LayerSeccomp, Detail: "seccomp not supported by the kernel"})
	}
	add(Layer{Name: LayerIntegrity, Active: true, Detail: "run-to-completion nonce, os._exit, assert ==/!= rewrite"})
	return ls
}

func scopeNote(abi int) string {
	s := ""
	if abi >= 6 {
		s += "; signals and abstract UNIX sockets scoped"
	}
	if abi < 10 {
		s += "; UDP not covered at this ABI"
	}
	return s
}

// Run executes one program and returns its verdict. It blocks until a
// worker is free. A non-nil error means the program could not be run to a
// verdict about the program itself (the context ended, or the sandbox
// failed to set up); the Result then has Verdict Error.
func (p *Pool) Run(ctx context.Context, prog Program) (Result, error) {
	var w int
	select {
	case w = <-p.slots:
	case <-ctx.Done():
		return Result{Verdict: Error, Reason: "cancelled"}, ctx.Err()
	}
	defer func() { p.slots <- w }()
	return p.runOne(ctx, w, prog.Source, prog.Limits)
}

var poolSeq atomic.Uint64

// defaultPoolBaseUID gives every pool its own block of uidSpan uids (from
// the process id and a per-process counter): RLIMIT_NPROC counts per uid
// machine-wide, so two pools drawing the same uids at once (two tasks of a
// run, two runs on one machine) would share fork budgets.
func defaultPoolBaseUID() int {
	slot := (os.Getpid()%2048)*4 + int(poolSeq.Add(1)%4)
	return defaultBaseUID + slot*uidSpan
}

func newNonce() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b[:])
}

func setupFailure(start time.Time, err error) (Result, error) {
	err = fmt.Errorf("sandbox setup: %w", err)
	return Result{Verdict: Error, Reason: err.Error(), Duration: time.Since(start)}, err
}

// runOne runs src on worker w (w only names the slot; every run gets its
// own uid, cgroup and scratch space).
func (p *Pool) runOne(ctx context.Context, w int, src string, lim Limits) (Result, error) {
	start := time.Now()
	lim = lim.resolve(p.limits)
	m := p.mode
	base, err := os.MkdirTemp(p.tmp, "pocketeval-sbx-")
	if err != nil {
		return setupFailure(start, err)
	}
	defer os.RemoveAll(base)
	uid := -1
	if m.uidDrop {
		// A fresh uid per run: RLIMIT_NPROC counts per uid, including the
		// zombies of a previous run's processes not yet reaped by the
		// host's init (no PID namespace), so reusing a uid could make the
		// next run fail to start or share a fork budget.
		uid = p.baseUID + int(p.uidSeq.Add(1)%uidSpan)
	}
	if err := os.Mkdir(filepath.Join(base, "root"), 0o700); err != nil {
		return setupFailure(start, err)
	}
	program := filepath.Join(base, programName)
	if err := os.WriteFile(program, []byte(src), 0o644); err != nil {
		return setupFailure(start, err)
	}
	if !m.mountNS && uid >= 0 {
		// The program runs in base itself: make it the sandbox user's.
		for _, f := range []string{base, program} {
			if err := os.Chown(f, uid, uid); err != nil {
				return setupFailure(start, err)
			}
		}
	}
	nonce := newNonce()
	var rc *runCgroup
	if p.cg != nil && !m.plain {
		rc, err = p.cg.newRun(fmt.Sprintf("run-%d", p.seq.Add(1)), lim.MemoryBytes, pidsMax)
		if err != nil {
			return setupFailure(start, err)
		}
		defer rc.remove()
	}
	syncR, syncW, err := os.Pipe()
	if err != nil {
		return setupFailure(start, err)
	}
	defer syncW.Close()
	resR, resW, err := os.Pipe()
	if err != nil {
		syncR.Close()
		return setupFailure(start, err)
	}
	defer resR.Close()

	cpuSecs := uint64((lim.CPUTime + time.Second - 1) / time.Second)
	var cmd *exec.Cmd
	if m.plain {
		cmd = exec.Command(p.py.Exe, pythonArgv(p.py.Exe, program)[1:]...)
		cmd.Env = pythonEnv(base, base)
		cmd.Dir = base
	} else {
		spec := helperSpec{
			MountNS: m.mountNS, Base: base, Python: p.py.Exe, Prefix: p.py.Prefix,
			Hostname: m.flags&unix.CLONE_NEWUTS != 0, UID: uid, GID: uid, DropCaps: m.userNS,
			CPUSeconds: cpuSecs, Landlock: m.landlock > 0, Seccomp: m.seccomp,
			DenySockets: m.flags&unix.CLONE_NEWNET == 0,
		}
		if m.uidDrop || m.userNS {
			spec.NProc = pidsMax
		}
		if rc == nil {
			spec.AddressSpace = uint64(lim.MemoryBytes) + asHeadroom
		}
		js, err := json.Marshal(spec)
		if err != nil {
			syncR.Close()
			resW.Close()
			return setupFailure(start, err)
		}
		cmd = exec.Command(p.helper, helperArg, string(js))
		cmd.Env = []string{}
		cmd.Dir = "/"
	}
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: m.flags}
	if m.userNS {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	if rc != nil && p.cg.v2 {
		f, err := rc.fd()
		if err != nil {
			syncR.Close()
			resW.Close()
			return setupFailure(start, err)
		}
		defer f.Close()
		attr.UseCgroupFD, attr.CgroupFD = true, int(f.Fd())
	}
	cmd.SysProcAttr = attr
	cmd.ExtraFiles = []*os.File{syncR, resW}
	cmd.WaitDelay = waitDelay

	var (
		mu      sync.Mutex
		started bool
		done    bool
	)
	kill := func() {
		mu.Lock()
		defer mu.Unlock()
		if started && !done {
			pid := cmd.Process.Pid
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		if rc != nil {
			rc.kill()
		}
	}
	out := newCapture(lim.OutputBytes, keepBytes, func() { go kill() })
	cmd.Stdout, cmd.Stderr = &out.out, &out.err

	mu.Lock()
	err = cmd.Start()
	started = err == nil
	mu.Unlock()
	syncR.Close()
	resW.Close()
	if err != nil {
		return setupFailure(start, fmt.Errorf("start: %w", err))
	}
	pid := cmd.Process.Pid
	if rc != nil && !p.cg.v2 {
		if err := rc.add(pid); err != nil {
			kill()
			_ = cmd.Wait()
			return setupFailure(start, err)
		}
	}
	if m.plain {
		for _, l := range []struct {
			res int
			v   uint64
		}{{unix.RLIMIT_CPU, cpuSecs}, {unix.RLIMIT_AS, uint64(lim.MemoryBytes) + asHeadroom}} {
			if err := unix.Prlimit(pid, l.res, &unix.Rlimit{Cur: l.v, Max: l.v}, nil); err != nil {
				kill()
				_ = cmd.Wait()
				return setupFailure(start, fmt.Errorf("prlimit: %w", err))
			}
		}
	}
	proofC := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(resR, 4096))
		proofC <- string(b)
	}()
	msg := nonce + "\n"
	if !m.plain {
		msg = "G" + msg
	}
	_, _ = syncW.Write([]byte(msg))
	syncW.Close()

	var wallOut atomic.Bool
	timer := time.AfterFunc(lim.Timeout, func() { wallOut.Store(true); kill() })
	stopCtx := context.AfterFunc(ctx, kill)
	waitErr := cmd.Wait()
	timer.Stop()
	stopCtx()
	elapsed := time.Since(start)
	// Whatever is left of the tree (daemons without a PID namespace) dies now.
	kill()
	mu.Lock()
	done = true
	mu.Unlock()

	_ = resR.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var proof string
	select {
	case proof = <-proofC:
	case <-time.After(time.Second):
	}
	res := Result{Stdout: out.out.text(), Stderr: out.err.text(), Duration: elapsed}
	ps := cmd.ProcessState
	if ps == nil {
		return setupFailure(start, fmt.Errorf("wait: %w", waitErr))
	}
	o := outcome{
		Nonce: nonce, Proof: proof, WallOut: wallOut.Load(), OutputCap: out.exceeded(),
		CPULimit: time.Duration(cpuSecs) * time.Second, Wall: elapsed,
	}
	if rc != nil {
		o.OOM = rc.oomKilled()
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		o.Exited = ws.Exited()
		o.ExitCode = ws.ExitStatus()
		if ws.Signaled() {
			o.Signal = ws.Signal()
			res.Signal = signalName(o.Signal)
			res.ExitCode = 128 + int(o.Signal)
		} else {
			res.ExitCode = o.ExitCode
		}
	}
	res.Verdict, res.Reason = classify(o)
	if ctx.Err() != nil && !o.WallOut {
		res.Verdict, res.Reason = Error, "cancelled"
		return res, ctx.Err()
	}
	if res.Verdict == Error && strings.HasPrefix(strings.TrimSpace(proof), setupPrefix) {
		return res, errors.New(res.Reason)
	}
	return res, nil
}
