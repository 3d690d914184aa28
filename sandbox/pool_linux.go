package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// programTasks is how many tasks (processes and threads, the program
// process itself included) every program may have at once. The budgets
// that count them (the run cgroup's pids.max, RLIMIT_NPROC) also count
// ownTasks of the sandbox's own: in rootless mode every process of a
// worker shares one uid, so the zygote and the PID namespace's init count
// against RLIMIT_NPROC; in the isolated verdict mode the candidate process
// runs an idle watchdog thread.
const (
	programTasks = 64
	ownTasks     = 3
	pidsMax      = programTasks + ownTasks
)

const (
	zygotePidsMax   = 16
	zygoteMemory    = 512 << 20
	memHeadroom     = 128 << 20 // the run cgroup's limit over Limits.MemoryBytes (tmpfs files, children)
	defaultBaseUID  = 200000
	uidSpan         = 1 << 16
	probeProgram    = "import sys\nassert sum([1, 2]) == 3\nprint('ok', sys.version_info[0])\n"
	probeCPUTimeout = 10 * time.Second
)

// mode is how a Pool isolates programs; New picks the best one that works.
type mode struct {
	name     string
	flags    uintptr // clone flags of the worker's helper
	userNS   bool
	mountNS  bool
	uidDrop  bool
	landlock int // ABI, 0 = off
	seccomp  bool
	plain    bool // unsafe: no helper, the zygote runs directly
}

// perRunFlags are the namespaces every program unshares for itself (its
// PID namespace is new from its fork).
const perRunFlags = unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// Pool runs programs on a bounded number of warm workers. It implements
// Executor. Close it to stop the workers and remove its cgroups.
type Pool struct {
	cfg     Config
	limits  Limits
	py      interpreter
	mode    mode
	layers  Layers
	cg      *cgroups
	slots   chan *slot
	tmp     string
	helper  string
	baseUID int
	seq     atomic.Uint64
	uidSeq  atomic.Uint64
	closed  sync.Once

	mu      sync.Mutex
	workers map[*worker]bool
	// removing counts run cgroups still being removed.
	removing sync.WaitGroup
	// starting counts workers being started in the background.
	starting sync.WaitGroup
	closing  atomic.Bool
	// zmods is the Python code every zygote loads (RegisterZygoteModule).
	zmods []pyModule
}

// slot is one unit of parallelism; it holds its worker once started.
type slot struct {
	id int
	w  *worker
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
	p, err := probe(Config{Unsafe: true, Workers: 1})
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

// Python returns the resolved interpreter's path and version.
func (p *Pool) Python() (path, version string) { return p.py.Exe, p.py.Version }

// Workers returns how many programs the pool runs at once.
func (p *Pool) Workers() int { return cap(p.slots) }

// Close stops the workers and removes the pool's cgroups. It is safe to
// call more than once.
func (p *Pool) Close() error {
	var err error
	p.closed.Do(func() {
		p.closing.Store(true)
		p.starting.Wait()
		p.mu.Lock()
		ws := make([]*worker, 0, len(p.workers))
		for w := range p.workers {
			ws = append(ws, w)
		}
		p.mu.Unlock()
		for _, w := range ws {
			w.close()
		}
		p.removing.Wait()
		if p.cg != nil {
			err = p.cg.close()
		}
	})
	return err
}

func probe(cfg Config) (*Pool, error) {
	if cfg.HelperPath == "" && !helperHooked.Load() {
		return nil, errNoHelperHook
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
		slots:   make(chan *slot, workers),
		tmp:     cfg.TempDir,
		helper:  cfg.HelperPath,
		baseUID: cfg.BaseUID,
		workers: map[*worker]bool{},
		zmods:   registeredModules(),
	}
	if p.tmp == "" {
		p.tmp = os.TempDir()
	}
	removeStaleWorkDirs(p.tmp)
	if p.helper == "" {
		p.helper = "/proc/self/exe"
	}
	if p.baseUID == 0 {
		p.baseUID = defaultPoolBaseUID()
	}
	root := os.Geteuid() == 0

	cgErr := errors.New("disabled (rlimit fallback)")
	if !cfg.noCgroup {
		if cg, err := newCgroups(fmt.Sprintf("%s%d-%s", cgroupPrefix, os.Getpid(), newNonce()[:8])); err == nil {
			p.cg = cg
		} else {
			cgErr = err
		}
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
	if cfg.Unsafe {
		candidates = append(candidates, mode{name: "unsafe-plain", plain: true})
	}
	var failures []string
	chosen := false
	// The other workers start in the first mode tried while worker 0 is
	// tried in it: that mode is the one chosen wherever the machine allows
	// it, and starting them only after the probe ran (a zygote's start is
	// a few hundred milliseconds) left all but one slot empty for the
	// run's first programs. Workers started in a mode that is not chosen
	// are closed. Workers start in groups of groupSize (one zygote process
	// each, see Config.WorkersPerZygote); spec[i] receives the group whose
	// first worker is i (nil if it failed to start).
	var spec map[int]chan []*worker
	var specMode string
	for _, m := range candidates {
		if cfg.onlyMode != "" && cfg.onlyMode != m.name && !(m.plain && cfg.onlyMode == "none") {
			continue
		}
		p.mode = m
		k := p.groupSize(m, workers)
		if spec == nil && workers > 1 {
			spec, specMode = map[int]chan []*worker{}, m.name
			for lead := k; lead < workers; lead += k {
				ch := make(chan []*worker, 1)
				spec[lead] = ch
				p.starting.Add(1)
				go func() {
					defer p.starting.Done()
					ws, err := p.startGroupIn(lead, min(k, workers-lead), m)
					if err != nil {
						ws = nil
					}
					ch <- ws
				}()
			}
		}
		ws, err := p.startGroupIn(0, k, m)
		var res Result
		if err == nil {
			res, err = ws[0].run(context.Background(), Program{Source: probeProgram}, Limits{CPUTime: probeCPUTimeout}.resolve(p.limits))
		}
		if err == nil && cfg.failProbe == m.name {
			res = Result{Verdict: Fail, Reason: "failProbe (test)"}
		}
		if err == nil && res.Verdict == Pass {
			for i, w := range ws {
				p.slots <- &slot{id: i, w: w}
			}
			chosen = true
			break
		}
		if len(ws) > 0 {
			ws[0].closeGroup()
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
	if !chosen {
		p.Close()
		return nil, fmt.Errorf("sandbox: %w: no set-up works here (%s); only unsafe mode runs without isolation",
			ErrInsufficientIsolation, strings.Join(failures, "; "))
	}
	// The other workers are started before first use (those started in
	// the chosen mode already are; the others start now, all at once): a
	// run's first programs then find every slot warm. A slot whose worker
	// fails to start is handed out empty, and Run starts it again (and
	// reports the failure) as a worker of its own zygote.
	reuse := specMode == p.mode.name
	if !reuse {
		for _, ch := range spec {
			p.starting.Add(1)
			go func() {
				defer p.starting.Done()
				if ws := <-ch; len(ws) > 0 {
					ws[0].closeGroup()
				}
			}()
		}
	}
	k := p.groupSize(p.mode, workers)
	for lead := k; lead < workers; lead += k {
		n := min(k, workers-lead)
		var ch chan []*worker
		if reuse {
			ch = spec[lead]
		}
		p.starting.Add(1)
		go func() {
			defer p.starting.Done()
			var ws []*worker
			if ch != nil {
				ws = <-ch
			} else if !reuse && !p.closing.Load() {
				ws, _ = p.startGroupIn(lead, n, p.mode)
			}
			for i := range n {
				s := &slot{id: lead + i}
				if i < len(ws) {
					s.w = ws[i]
				}
				p.slots <- s
			}
		}()
	}
	var plainFailures []string
	if p.mode.plain {
		plainFailures = failures
	}
	p.layers = p.describe(root, failures, plainFailures, cgErr, llErr, sc)
	return p, nil
}

// describe builds the layer report for the chosen mode.
func (p *Pool) describe(root bool, failures, plainFailures []string, cgErr, llErr error, sc bool) Layers {
	m := p.mode
	ns := m.flags != 0
	why := "namespaces unavailable"
	if len(failures) > 0 {
		why = failures[0]
	}
	if m.plain {
		why = "unsafe mode: " + strings.Join(plainFailures, "; ")
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
	cpuHow := "CPU time of the whole process tree (cgroup) decides timeouts"
	if p.cg == nil || p.cg.cpuacct == "" {
		cpuHow = "CPU time per process (RLIMIT_CPU) decides timeouts"
	}
	workers := fmt.Sprintf("%d workers", cap(p.slots))
	if k := p.groupSize(m, cap(p.slots)); k > 1 {
		workers += fmt.Sprintf(" (up to %d served by one zygote process, each program with its own per-program layers)", k)
	}
	add(Layer{Name: LayerSupervisor, Active: true, Detail: fmt.Sprintf(
		"%s; %s (default %s); idle limit on time neither running nor runnable; wall-clock hang guard %s; whole-tree SIGKILL; output cap %d MiB; empty env; stdin /dev/null",
		workers, cpuHow, lim.CPUTime, lim.Wall, lim.OutputBytes>>20)})
	fresh := "a fresh fork of the worker's pre-initialised interpreter per program, in new PID, mount, IPC, UTS and network namespaces with fresh tmpfs /scratch, /tmp, /dev/shm and /proc"
	if !m.mountNS {
		fresh = "a fresh fork of the worker's pre-initialised interpreter per program, in a new session with a fresh scratch directory"
	}
	add(Layer{Name: LayerFreshState, Active: true, Detail: fresh})
	add(nsLayer(LayerPIDNS, unix.CLONE_NEWPID, "per program: a minimal init is pid 1 (reaps orphans), the program pid 2 with ordinary signal semantics; the tree dies with the program"))
	add(nsLayer(LayerNetNS, unix.CLONE_NEWNET, "per program: loopback only, down"))
	add(nsLayer(LayerMountNS, unix.CLONE_NEWNS, "per program: private mounts"))
	add(nsLayer(LayerIPCNS, unix.CLONE_NEWIPC, "per program: private System V IPC and POSIX queues"))
	add(nsLayer(LayerUTSNS, unix.CLONE_NEWUTS, "hostname sandbox"))
	switch {
	case m.userNS:
		add(Layer{Name: LayerUserNS, Active: true, Detail: "own uid mapped to 0"})
	case root && ns:
		add(Layer{Name: LayerUserNS, Detail: "not needed: running as root (drops to a fresh uid per program instead)"})
	default:
		add(Layer{Name: LayerUserNS, Detail: why})
	}
	if m.mountNS {
		binds := "/usr"
		if !within(p.py.Prefix, "/usr") {
			binds += " and " + p.py.Prefix
		}
		add(Layer{Name: LayerRoot, Active: true, Detail: fmt.Sprintf(
			"tmpfs / (read-only), read-only %s, fresh /proc, tmpfs /tmp, /dev/shm and /scratch per program (%s each)", binds, tmpfsSize)})
	} else {
		add(Layer{Name: LayerRoot, Detail: why})
	}
	switch {
	case p.cg != nil && !m.plain:
		add(Layer{Name: LayerCgroup, Active: true, Detail: p.cg.detail() + fmt.Sprintf("; one group per program: memory limit + %d MiB, pids.max %d (%d tasks for the program)", memHeadroom>>20, pidsMax, programTasks)})
	case m.plain:
		add(Layer{Name: LayerCgroup, Detail: "unsafe mode"})
	default:
		add(Layer{Name: LayerCgroup, Detail: cgErr.Error() + "; memory by RLIMIT_AS only"})
	}
	rl := fmt.Sprintf("AS = memory limit, CPU (backstop), FSIZE %d MiB, NOFILE %d, CORE 0", fileSizeLimit>>20, noFileLimit)
	if m.uidDrop || m.userNS {
		rl += fmt.Sprintf(", NPROC %d (%d tasks for the program)", pidsMax, programTasks)
	}
	add(Layer{Name: LayerRlimits, Active: true, Detail: rl})
	switch {
	case m.uidDrop:
		add(Layer{Name: LayerUID, Active: true, Detail: fmt.Sprintf("uid/gid %d..%d, a fresh one per program; no supplementary groups, no capabilities, no_new_privs", p.baseUID, p.baseUID+uidSpan-1)})
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
		d := "system calls of a foreign ABI (32-bit) kill the process; deny-list (EPERM): ptrace, mount, namespaces, bpf, io_uring, keyctl, modules ...; sockets: AF_UNIX only"
		if !m.mountNS {
			d += "; socket() of any family, System V IPC and POSIX queues denied"
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
	var s *slot
	select {
	case s = <-p.slots:
	case <-ctx.Done():
		return Result{Verdict: Error, Reason: "cancelled"}, ctx.Err()
	}
	defer func() { p.slots <- s }()
	start := time.Now()
	if s.w == nil || s.w.broken() {
		if s.w != nil {
			s.w.close()
		}
		w, err := p.startWorker(s.id)
		if err != nil {
			s.w = nil
			return setupFailure(start, err)
		}
		s.w = w
	}
	return s.w.run(ctx, prog, prog.Limits.resolve(p.limits))
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

// modules are the names of the modules the pool's zygotes load.
func (p *Pool) modules() []string {
	names := make([]string, len(p.zmods))
	for i, m := range p.zmods {
		names[i] = m.Name
	}
	return names
}
