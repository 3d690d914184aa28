package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// readyTimeout bounds a worker's start (helper set-up, interpreter
	// start, preloads); generous for a loaded machine.
	readyTimeout = 2 * time.Minute
	// drainTimeout bounds waiting for the output pipes to close once the
	// program's tree is dead (a process outside the tree holding them).
	drainTimeout = 2 * time.Second
	// doneDeadline bounds a run on the control socket: far beyond any
	// program's limits (the supervisor kills the program first).
	doneDeadline = 24 * time.Hour
	// tick is how often the supervisor samples a running program's CPU
	// and idle time.
	tick = 20 * time.Millisecond
	// cancelGrace bounds waiting for the zygote once a run is cancelled.
	cancelGrace = 10 * time.Second
)

// worker is one warm slot: a set-up helper turned zygote, inside the
// worker's namespaces and private root, forking a fresh process per run.
type worker struct {
	p    *Pool
	id   int
	mode string // the name of the mode it was started in
	cmd  *exec.Cmd
	ctl  *net.UnixConn
	base string   // host directory: the private root's mount point, or the scratch parent
	lock *os.File // holds base's lock (see newWorkDir) until base is removed
	zcg  *group
	diag *capture // the helper's and zygote's own stderr
	dead atomic.Bool
	once sync.Once
	exit chan struct{}
	// batchPages is how many of the zygote's pages each program copies
	// in one batch (0: none learned, every page is copied on its fault).
	batchPages int
	// pinnedPages is how many of those the zygote holds pinned, so that
	// fork copies them for each program at once (0: none).
	pinnedPages int
	// hugeCode is how many 2 MiB ranges of the interpreter's code the
	// zygote moved into huge pages (see zygote.py; 0: none).
	hugeCode int
	// grp is shared by the workers one zygote process serves: the zygote
	// the helper started (the leader, which owns the process, the work
	// directory and the zygote's cgroup) and its siblings
	// (Config.WorkersPerZygote), which share them. They go when the last
	// worker of the group closes.
	grp *zygoteGroup
}

// zygoteGroup is the workers of one zygote process and its siblings.
type zygoteGroup struct {
	leader  *worker
	mu      sync.Mutex
	members []*worker
	open    int
}

// release counts one member closed; it reports whether it was the last.
func (g *zygoteGroup) release() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	return g.open == 0
}

// startWorker starts worker id in the pool's mode and waits until its
// zygote is ready.
func (p *Pool) startWorker(id int) (*worker, error) {
	ws, err := p.startGroupIn(id, 1, p.mode)
	if err != nil {
		return nil, err
	}
	return ws[0], nil
}

// groupSize is how many workers one zygote process serves in mode m:
// Config.WorkersPerZygote (at most the pool's size) where every program
// runs under its own uid, else one.
func (p *Pool) groupSize(m mode, workers int) int {
	k := p.cfg.WorkersPerZygote
	if k <= 1 || !m.uidDrop || m.plain {
		return 1
	}
	return min(k, workers)
}

// startGroupIn starts worker id in mode m (the pool's mode, or the one
// being probed) with n-1 siblings of its zygote (workers id+1 ...), and
// waits until every zygote is ready. It returns the n workers, the
// leader first.
func (p *Pool) startGroupIn(id, n int, m mode) (ws []*worker, err error) {
	w := &worker{p: p, id: id, mode: m.name, exit: make(chan struct{})}
	w.grp = &zygoteGroup{leader: w, members: []*worker{w}, open: 1}
	defer func() {
		if err != nil {
			w.closeGroup()
			ws = nil
		}
	}()
	w.base, w.lock, err = newWorkDir(p.tmp)
	if err != nil {
		return nil, fmt.Errorf("worker dir: %w", err)
	}
	if !m.mountNS {
		// Runs get a fresh scratch directory inside, owned by their uid.
		if err := os.Chmod(w.base, 0o711); err != nil {
			return nil, fmt.Errorf("worker dir: %w", err)
		}
	}
	if p.cg != nil && !m.plain {
		// One zygote's budget for each zygote of the group.
		w.zcg, err = p.cg.newGroup(fmt.Sprintf("zygote-%d-%d", id, p.seq.Add(1)), int64(n)*zygoteMemory, n*zygotePidsMax)
		if err != nil {
			return nil, err
		}
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(pair[0]), "ctl"), os.NewFile(uintptr(pair[1]), "ctl-zygote")
	defer theirs.Close()
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	w.ctl = c.(*net.UnixConn)
	w.diag = newCapture(1<<20, 8<<10, nil)
	// The siblings' control sockets (the zygote's fds 4 ...).
	var sibFiles []*os.File
	defer func() { closeFiles(sibFiles) }()
	for i := 1; i < n; i++ {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("control socket: %w", err)
		}
		mine, theirs := os.NewFile(uintptr(pair[0]), "ctl"), os.NewFile(uintptr(pair[1]), "ctl-zygote")
		sibFiles = append(sibFiles, theirs)
		c, err := net.FileConn(mine)
		mine.Close()
		if err != nil {
			return nil, fmt.Errorf("control socket: %w", err)
		}
		s := &worker{p: p, id: id + i, mode: m.name, exit: w.exit, ctl: c.(*net.UnixConn), diag: w.diag, grp: w.grp}
		w.grp.members = append(w.grp.members, s)
		w.grp.open++
	}

	zc := zygoteConfig{TmpfsSize: tmpfsSize, Preload: preload, Modules: p.zmods, Siblings: n - 1}
	if m.landlock > 0 {
		zc.Landlock = newLandlockPlan(m.landlock, m.mountNS, p.py.Prefix)
	}
	var syncW *os.File
	if m.plain {
		zc.Env = pythonEnv()
		argv, err := zygoteArgv(p.py.Exe, zc)
		if err != nil {
			return nil, err
		}
		w.cmd = exec.Command(argv[0], argv[1:]...)
		w.cmd.Env = zc.Env
		w.cmd.Dir = w.base
		w.cmd.ExtraFiles = append([]*os.File{theirs}, sibFiles...)
	} else {
		if m.mountNS {
			zc.Unshare, zc.PIDNS, zc.Mount = perRunFlags, true, true
			zc.Hostname = m.flags&unix.CLONE_NEWUTS != 0
			if err := os.Mkdir(filepath.Join(w.base, "root"), 0o700); err != nil {
				return nil, fmt.Errorf("worker root: %w", err)
			}
		}
		zc.DropCaps = m.userNS
		spec := helperSpec{
			MountNS: m.mountNS, Root: filepath.Join(w.base, "root"), Python: p.py.Exe, Prefix: p.py.Prefix,
			Hostname: m.flags&unix.CLONE_NEWUTS != 0, Seccomp: m.seccomp, DenySockets: m.flags&unix.CLONE_NEWNET == 0, DenyIPC: m.flags&unix.CLONE_NEWIPC == 0,
			Zygote: zc,
		}
		js, err := json.Marshal(spec)
		if err != nil {
			return nil, err
		}
		var syncR *os.File
		syncR, syncW, err = os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("sync pipe: %w", err)
		}
		defer syncR.Close()
		defer syncW.Close()
		w.cmd = exec.Command(p.helper, helperArg, string(js))
		w.cmd.Env = []string{}
		w.cmd.Dir = "/"
		w.cmd.ExtraFiles = append([]*os.File{syncR, theirs}, sibFiles...)
	}
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: m.flags}
	if m.userNS {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	if w.zcg != nil && p.cg.v2 {
		f, err := w.zcg.fd()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		attr.UseCgroupFD, attr.CgroupFD = true, int(f.Fd())
	}
	w.cmd.SysProcAttr = attr
	w.cmd.Stderr = &w.diag.err
	w.cmd.WaitDelay = time.Second
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.dead.Store(true)
		close(w.exit)
	}()
	p.mu.Lock()
	for _, m := range w.grp.members {
		p.workers[m] = true
	}
	p.mu.Unlock()
	if w.zcg != nil && !p.cg.v2 {
		if err := w.zcg.add(w.cmd.Process.Pid); err != nil {
			return nil, err
		}
	}
	if syncW != nil {
		if _, err := syncW.Write([]byte("G")); err != nil {
			return nil, fmt.Errorf("start worker: %w", err)
		}
		syncW.Close()
	}
	theirs.Close()
	closeFiles(sibFiles)
	sibFiles = nil
	for _, m := range w.grp.members {
		if err := m.awaitReady(); err != nil {
			return nil, err
		}
	}
	return w.grp.members, nil
}

// awaitReady reads the zygote's "ready <pages> <pinned> <huge>": the pages
// each program copies in one batch, how many of them the zygote holds
// pinned (copied by the fork itself), and the ranges of the interpreter's
// code it moved into huge pages.
func (w *worker) awaitReady() error {
	buf := make([]byte, 64)
	_ = w.ctl.SetReadDeadline(time.Now().Add(readyTimeout))
	n, err := w.ctl.Read(buf)
	_ = w.ctl.SetReadDeadline(time.Time{})
	f := strings.Fields(string(buf[:n]))
	var perr, perr2, perr3 error
	if len(f) == 4 && f[0] == "ready" {
		w.batchPages, perr = strconv.Atoi(f[1])
		w.pinnedPages, perr2 = strconv.Atoi(f[2])
		w.hugeCode, perr3 = strconv.Atoi(f[3])
	}
	if err != nil || len(f) != 4 || f[0] != "ready" || perr != nil || perr2 != nil || perr3 != nil {
		<-w.waitExit(2 * time.Second)
		return fmt.Errorf("start worker: %v%s", errOr(err, "unexpected "+strconv.Quote(string(buf[:n]))), w.diagnostics())
	}
	return nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// diagnostics is the worker's own stderr, for error messages.
func (w *worker) diagnostics() string {
	if w.diag == nil {
		return ""
	}
	if s := strings.TrimSpace(w.diag.err.text()); s != "" {
		return ": " + s
	}
	return ""
}

func (w *worker) waitExit(d time.Duration) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		select {
		case <-w.exit:
		case <-time.After(d):
		}
		close(c)
	}()
	return c
}

// broken reports whether the worker cannot run programs: it was closed,
// its zygote did not answer, or the zygote process of its group ended.
func (w *worker) broken() bool {
	if w.dead.Load() {
		return true
	}
	select {
	case <-w.exit:
		return true
	default:
		return false
	}
}

// close stops the worker: closing the control socket ends its zygote. The
// last worker of a group to close ends the group's zygote process (the
// helper process is killed if it lingers) and removes what it holds.
func (w *worker) close() {
	w.once.Do(func() {
		w.dead.Store(true)
		if w.ctl != nil {
			w.ctl.Close()
		}
		w.p.mu.Lock()
		delete(w.p.workers, w)
		w.p.mu.Unlock()
		if w.grp.release() {
			w.grp.leader.teardown()
		}
	})
}

// closeGroup ends the group's zygote process at once (its PID namespace,
// or the siblings' parent-death signal, takes every process of the group
// along) and closes every worker of the group.
func (w *worker) closeGroup() {
	l := w.grp.leader
	if l.cmd != nil && l.cmd.Process != nil {
		select {
		case <-l.exit:
		default:
			_ = l.cmd.Process.Kill()
		}
	}
	for _, m := range w.grp.members {
		m.close()
	}
}

// teardown ends the leader's zygote process and removes the group's work
// directory and zygote cgroup.
func (w *worker) teardown() {
	if w.cmd != nil && w.cmd.Process != nil {
		select {
		case <-w.exit:
		case <-time.After(2 * time.Second):
			_ = w.cmd.Process.Kill()
			<-w.exit
		}
	}
	if w.zcg != nil {
		w.zcg.kill()
		w.zcg.remove()
	}
	if w.base != "" {
		_ = removeWorkDir(w.base)
	}
	if w.lock != nil {
		w.lock.Close()
	}
}

// request is the run's header in the request memfd (see zygote.py),
// followed by a newline and the program source.
type request struct {
	Nonce        string  `json:"nonce"`
	UID          int     `json:"uid"`
	GID          int     `json:"gid"`
	Exec         Exec    `json:"exec"`
	RlimitCPU    uint64  `json:"rlimit_cpu"`
	FSize        uint64  `json:"fsize"`
	NoFile       uint64  `json:"nofile"`
	NProc        uint64  `json:"nproc,omitempty"`
	AddressSpace int64   `json:"address_space"`
	Alarm        float64 `json:"alarm,omitempty"`
	Scratch      string  `json:"scratch,omitempty"`
	Extra        int     `json:"extra"`
}

// run executes one program on the worker with resolved limits.
func (w *worker) run(ctx context.Context, prog Program, lim Limits) (Result, error) {
	start := time.Now()
	p, m := w.p, w.p.mode
	uid := -1
	if m.uidDrop {
		// A fresh uid per run: RLIMIT_NPROC counts per uid, and nothing a
		// run leaves (a file in a shared place) is the next run's.
		uid = p.baseUID + int(p.uidSeq.Add(1)%uidSpan)
	}
	req := request{
		Nonce: newNonce(), UID: uid, GID: uid, Exec: prog.Exec,
		FSize: fileSizeLimit, NoFile: noFileLimit, AddressSpace: lim.MemoryBytes,
		Extra: len(prog.ExtraFiles),
	}
	if req.Exec == "" {
		req.Exec = ExecScript
	}
	if m.uidDrop || m.userNS {
		req.NProc = pidsMax
	}
	cpuSecs := uint64((lim.CPUTime + time.Second - 1) / time.Second)
	var rc *group
	var err error
	if p.cg != nil && !m.plain {
		rc, err = p.cg.newGroup(fmt.Sprintf("run-%d", p.seq.Add(1)), lim.MemoryBytes+memHeadroom, pidsMax)
		if err != nil {
			return setupFailure(start, err)
		}
		rc.files = newStatFiles()
		// Removing a cgroup waits for its exiting tasks to leave it: off
		// the run's path (Close waits for it).
		defer func() {
			p.removing.Add(1)
			go func() {
				defer p.removing.Done()
				rc.remove()
			}()
		}()
	}
	// With the tree's CPU time measured, RLIMIT_CPU is only a backstop.
	precise := rc != nil && rc.cpuacct != ""
	req.RlimitCPU = cpuSecs
	if precise {
		req.RlimitCPU++
	}
	if lim.Alarm > 0 {
		req.Alarm = lim.Alarm.Seconds()
	}
	if !m.mountNS {
		req.Scratch = filepath.Join(w.grp.leader.base, fmt.Sprintf("run-%d", p.seq.Add(1)))
		if err := os.Mkdir(req.Scratch, 0o700); err != nil {
			return setupFailure(start, err)
		}
		defer os.RemoveAll(req.Scratch)
		if uid >= 0 {
			if err := os.Chown(req.Scratch, uid, uid); err != nil {
				return setupFailure(start, err)
			}
		}
	}

	// The run's descriptors, in the order zygote.py expects: request,
	// stdout, stderr, proof, kill, cgroup.procs files, extra files. The
	// message says how many cgroup.procs files there are: the program
	// process joins its cgroup before it reads the request.
	var mine []*os.File // read ends and the kill pipe's write end
	defer func() { closeFiles(mine) }()
	var procs []*os.File
	if rc != nil {
		if procs, err = rc.procsFiles(); err != nil {
			return setupFailure(start, err)
		}
	}
	memfd, err := requestFile(req, prog.Source)
	if err != nil {
		closeFiles(procs)
		return setupFailure(start, err)
	}
	send := []*os.File{memfd} // closed here once sent
	var rs [4]*os.File
	for i := range rs {
		r, wr, err := os.Pipe()
		if err != nil {
			closeFiles(append(send, procs...))
			return setupFailure(start, fmt.Errorf("pipes: %w", err))
		}
		if i == 3 { // kill: the zygote holds the read end
			r, wr = wr, r
		}
		rs[i] = r
		mine = append(mine, r)
		send = append(send, wr)
	}
	outR, errR, proofR, killW := rs[0], rs[1], rs[2], rs[3]
	send = append(send, procs...)
	nsend := len(send)
	send = append(send, prog.ExtraFiles...)

	var (
		killMu sync.Mutex
		cause  killCause
	)
	kill := func(c killCause) {
		killMu.Lock()
		if cause == killNone {
			cause = c
		}
		killMu.Unlock()
		killW.Close() // the zygote kills the program on EOF
		if rc != nil {
			rc.kill()
		}
	}
	out := newCapture(lim.OutputBytes, keepBytes, func() { go kill(killOutput) })
	readAll := func(r io.Reader, dst io.Writer, done chan<- struct{}) {
		_, _ = io.Copy(dst, r)
		close(done)
	}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go readAll(outR, &out.out, outDone)
	go readAll(errR, &out.err, errDone)
	var proofBuf bytes.Buffer
	proofDone := make(chan struct{})
	go readAll(io.LimitReader(proofR, 4096), &proofBuf, proofDone)

	fds := make([]int, len(send))
	for i, f := range send {
		fds[i] = int(f.Fd())
	}
	_, _, err = w.ctl.WriteMsgUnix([]byte(fmt.Sprintf("run %d", len(procs))), unix.UnixRights(fds...), nil)
	closeFiles(send[:nsend])
	if err == nil && prog.ReleaseExtraFiles {
		closeFiles(prog.ExtraFiles) // the zygote holds them now
	}
	if err != nil {
		w.dead.Store(true)
		return setupFailure(start, fmt.Errorf("send to worker: %w%s", err, w.diagnostics()))
	}

	// Watch the run until the zygote reports the program's end.
	doneC := make(chan string, 1)
	go func() { doneC <- w.awaitDone() }()
	mon := newMonitor(rc, lim, precise)
	ticker := time.NewTicker(tick)
	var done string
watch:
	for {
		select {
		case done = <-doneC:
			break watch
		case <-ctx.Done():
			kill(killCancel)
			select {
			case done = <-doneC:
			case <-time.After(cancelGrace):
				// The zygote does not answer: end the worker (its PID
				// namespace takes every process with it).
				w.dead.Store(true)
				go w.closeGroup()
				done = <-doneC
			}
			break watch
		case now := <-ticker.C:
			if c := mon.sample(now); c != killNone {
				kill(c)
			}
		}
	}
	ticker.Stop()
	elapsed := time.Since(start)
	// Whatever is left of the tree (without a PID namespace) dies now.
	// With one, the zygote has ended it before reporting: the namespace's
	// init, killed and reaped, takes every process in it along.
	if rc != nil && !(m.mountNS && done != "") {
		rc.kill()
	}
	drain := time.After(drainTimeout)
	for _, c := range []chan struct{}{outDone, errDone, proofDone} {
		select {
		case <-c:
		case <-drain:
		}
	}
	closeFiles(mine)
	mine = nil
	<-outDone
	<-errDone
	<-proofDone

	res := Result{Stdout: out.out.text(), Stderr: out.err.text(), Duration: elapsed}
	st, ok := parseStatus(done)
	if !ok {
		if ctx.Err() != nil {
			res.Verdict, res.Reason = Error, "cancelled"
			return res, ctx.Err()
		}
		w.dead.Store(true)
		reason := strings.TrimSpace(proofBuf.String())
		if reason == "" {
			reason = "the worker ended during the run"
		}
		return setupFailure(start, fmt.Errorf("%s%s", reason, w.diagnostics()))
	}
	res.CPUTime = st.cpu
	if rc != nil {
		if cpu, ok := rc.cpuUsage(); ok {
			res.CPUTime = cpu
		}
	}
	killMu.Lock()
	c := cause
	killMu.Unlock()
	o := outcome{
		Nonce: req.Nonce, Proof: proofBuf.String(), Killed: c, CPU: res.CPUTime,
		CPULimit: lim.CPUTime, RlimitCPU: time.Duration(req.RlimitCPU) * time.Second,
		Limits: lim, Wall: elapsed, MemLimitB: lim.MemoryBytes + memHeadroom,
	}
	if rc != nil {
		o.OOM = rc.oomKilled()
		o.MemLimit = rc.limitHit()
	}
	ws := syscall.WaitStatus(st.status)
	o.Exited = ws.Exited()
	o.ExitCode = ws.ExitStatus()
	if ws.Signaled() {
		o.Signal = ws.Signal()
		res.Signal = signalName(o.Signal)
		res.ExitCode = 128 + int(o.Signal)
	} else {
		res.ExitCode = o.ExitCode
	}
	res.Verdict, res.Reason = classify(o)
	if c == killCancel {
		res.Verdict, res.Reason = Error, "cancelled"
		if err := ctx.Err(); err != nil {
			return res, err
		}
		return res, errors.New("sandbox: the worker ended during the run")
	}
	if res.Verdict == Error && strings.HasPrefix(strings.TrimSpace(o.Proof), setupPrefix) {
		return res, errors.New(res.Reason)
	}
	return res, nil
}

// awaitDone waits for the zygote's "done" after a run and returns it; a
// worker that does not answer is marked dead (and restarted by the pool).
func (w *worker) awaitDone() string {
	buf := make([]byte, 128)
	_ = w.ctl.SetReadDeadline(time.Now().Add(doneDeadline))
	n, err := w.ctl.Read(buf)
	_ = w.ctl.SetReadDeadline(time.Time{})
	if err != nil || !strings.HasPrefix(string(buf[:n]), "done ") {
		w.dead.Store(true)
		return ""
	}
	return string(buf[:n])
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// requestFile writes the request header and the source to a memfd.
func requestFile(req request, src string) (*os.File, error) {
	fd, err := unix.MemfdCreate("pocketeval-run", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("request memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "request")
	js, err := json.Marshal(req)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("request: %w", err)
	}
	buf := make([]byte, 0, len(js)+1+len(src))
	buf = append(append(append(buf, js...), '\n'), src...)
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return nil, fmt.Errorf("request: %w", err)
	}
	return f, nil
}

// status is what the zygote reported about the program process.
type status struct {
	status int
	cpu    time.Duration
	maxRSS int64 // KiB
}

func parseStatus(s string) (status, bool) {
	f := strings.Fields(strings.TrimSpace(s))
	if len(f) != 5 || f[0] != "done" {
		return status{}, false
	}
	var v [4]int64
	for i := range v {
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return status{}, false
		}
		v[i] = n
	}
	return status{status: int(v[0]), cpu: time.Duration(v[1]+v[2]) * time.Microsecond, maxRSS: v[3]}, true
}

// monitor samples a running program: an OOM kill in its cgroup (the rest
// of the tree is killed at once), the CPU time of its tree against
// Limits.CPUTime, its idle time against Limits.Idle, and the wall clock
// against Limits.Wall.
//
// Idle time is wall-clock time in which no task of the tree was running
// or waiting for a CPU: each sample in which no task is runnable (state R
// in /proc/<tid>/stat) adds the part of the interval not covered by the
// tasks' run and run-queue-wait time (/proc/<tid>/schedstat). A program
// starved of CPU on a loaded machine waits in the run queue, so it does
// not become idle; a sleeping or blocked one does.
type monitor struct {
	rc      *group
	lim     Limits
	precise bool
	start   time.Time
	last    time.Time
	prev    map[int]int64
	idle    time.Duration
	stopped time.Duration // how long every task has been stopped, so far
}

func newMonitor(rc *group, lim Limits, precise bool) *monitor {
	now := time.Now()
	return &monitor{rc: rc, lim: lim, precise: precise, start: now, last: now, prev: map[int]int64{}}
}

func (m *monitor) sample(now time.Time) killCause {
	dt := now.Sub(m.last)
	m.last = now
	if now.Sub(m.start) >= m.lim.Wall {
		return killWall
	}
	if m.rc == nil {
		// Without a cgroup neither the tree's CPU time nor its tasks are
		// known here: RLIMIT_CPU bounds each process, and a program that
		// sleeps ends at CPUTime + Idle of wall-clock time.
		if m.lim.Alarm == 0 && now.Sub(m.start) >= m.lim.CPUTime+m.lim.Idle {
			return killIdle
		}
		return killNone
	}
	if m.rc.oomKilled() {
		return killMemory
	}
	if m.precise {
		if cpu, ok := m.rc.cpuUsage(); ok && cpu >= m.lim.CPUTime {
			return killCPU
		}
	}
	// Under a harness timer neither idleness nor a stop ends the program
	// (the timer and the wall-clock limit do): its tasks are not read.
	if m.lim.Alarm > 0 {
		return killNone
	}
	tids := m.rc.tasks()
	if len(tids) == 0 {
		return killNone // still setting up, or already gone
	}
	files := m.rc.files
	var active int64
	running, stopped := false, true
	next := make(map[int]int64, len(tids))
	for _, tid := range tids {
		v, state, ok := schedTime(files, tid)
		if !ok {
			continue
		}
		next[tid] = v
		active += v - m.prev[tid]
		running = running || state == 'R'
		stopped = stopped && (state == 'T' || state == 't')
	}
	for tid := range m.prev {
		if _, ok := next[tid]; !ok {
			// A task ended: close the files of every task that did.
			files.forget(func(path string) bool {
				id, ok := procTid(path)
				_, alive := next[id]
				return !ok || alive
			})
			break
		}
	}
	m.prev = next
	// Every task stopped (SIGSTOP, SIGTSTP ...): nothing will continue the
	// program.
	if stopped && len(next) > 0 {
		m.stopped += dt
	} else {
		m.stopped = 0
	}
	if m.lim.Alarm == 0 && m.stopped >= m.lim.Stopped {
		return killStopped
	}
	// A task waiting for a CPU is accounted only once it gets one, so an
	// interval with a runnable task is never idle.
	if gap := dt - time.Duration(active); gap > 0 && !running {
		m.idle += gap
	}
	if m.lim.Alarm == 0 && m.idle >= m.lim.Idle {
		return killIdle
	}
	return killNone
}

// procTid is the task id of a /proc/<tid>/... path.
func procTid(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return 0, false
	}
	id, _, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(id)
	return n, err == nil
}

// schedTime is a task's time on a CPU plus its time waiting in a run
// queue, in nanoseconds, and its state letter in /proc/<tid>/stat ('R'
// running or runnable, 'S' sleeping, 'T' stopped ...).
func schedTime(files *statFiles, tid int) (ns int64, state byte, ok bool) {
	id := strconv.Itoa(tid)
	b, ok := files.read("/proc/" + id + "/schedstat")
	if !ok {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, false
	}
	run, err1 := strconv.ParseInt(f[0], 10, 64)
	wait, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	// /proc/<tid>/stat: "pid (comm) S ...", comm may hold spaces or ")".
	if st, ok := files.read("/proc/" + id + "/stat"); ok {
		if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) {
			state = st[i+2]
		}
	}
	return run + wait, state, true
}
