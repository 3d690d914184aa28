package sandbox

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	seccomparch "github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// helperArg is argv[1] of the re-executed binary acting as a worker's
// set-up helper; hogArg makes it a CPU hog (StartCPUHogs).
const (
	helperArg = "__pocketeval_sandbox_init"
	hogArg    = "__pocketeval_sandbox_cpu_hog"
)

// Inside the private root.
const (
	scratchDir  = "/scratch"
	programName = "main.py"
)

var helperHooked atomic.Bool

// MaybeRunHelper turns this process into a sandbox worker's set-up helper
// (or a CPU hog of StartCPUHogs) when it was started as one, and never
// returns in that case. Call it first thing in main (and in TestMain of any
// test binary that runs programs through a Pool): the helper must run
// before anything else touches the process. Otherwise it only records that
// the binary can act as the helper.
func MaybeRunHelper() {
	helperHooked.Store(true)
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case helperArg:
		if len(os.Args) < 3 {
			os.Exit(exitSetup)
		}
		runtime.LockOSThread()
		os.Exit(runHelper(os.Args[2]))
	case hogArg:
		spin()
	}
}

// helperSpec is what the supervisor asks a worker's helper to set up,
// passed as JSON in argv[2]. The helper runs with fd 3 = sync pipe (one
// byte "G" once the supervisor placed it in the worker's cgroup), fd 4
// = the zygote's control socket and fds 5 ... the control sockets of the
// zygote's siblings (zygoteConfig.Siblings); it execs the zygote with the
// control socket as fd 3 and the siblings' as fds 4 ....
type helperSpec struct {
	// MountNS: build the private root in the tmpfs mounted at Root and
	// pivot into it.
	MountNS bool   `json:"mount_ns"`
	Root    string `json:"root"`
	// Python is the real interpreter; Prefix is bound read-only at the same
	// path when it is outside /usr.
	Python string `json:"python"`
	Prefix string `json:"prefix"`
	// Hostname is set when the UTS namespace is new.
	Hostname bool `json:"hostname"`
	Seccomp  bool `json:"seccomp"`
	// DenySockets refuses socket(AF_INET/AF_INET6/AF_UNIX/...) and DenyIPC
	// System V IPC and POSIX message queues in seccomp (no network or IPC
	// namespace: Landlock covers neither UDP, UNIX sockets nor IPC).
	DenySockets bool `json:"deny_sockets"`
	DenyIPC     bool `json:"deny_ipc"`
	// Zygote is passed on to the zygote; the helper fills in the seccomp
	// program.
	Zygote zygoteConfig `json:"zygote"`
}

// zygoteConfig is the zygote's argv[1] (see zygote.py).
type zygoteConfig struct {
	Unshare   int           `json:"unshare"` // namespaces each program unshares for itself
	PIDNS     bool          `json:"pidns"`   // each program is pid 1 of its own PID namespace
	Mount     bool          `json:"mount"`   // fresh tmpfs /scratch, /tmp, /dev/shm (and /proc) per run
	Hostname  bool          `json:"hostname"`
	DropCaps  bool          `json:"drop_caps"` // no uid to drop to: drop capabilities instead
	TmpfsSize string        `json:"tmpfs_size"`
	Landlock  *landlockPlan `json:"landlock,omitempty"`
	Seccomp   string        `json:"seccomp,omitempty"` // hex of the BPF program (struct sock_filter[])
	Env       []string      `json:"env"`
	Preload   []string      `json:"preload"`
	Modules   []pyModule    `json:"modules,omitempty"` // RegisterZygoteModule
	// Siblings is how many more control sockets the zygote holds (fds 4
	// ..): it forks one sibling zygote for each once it is ready.
	Siblings int `json:"siblings,omitempty"`
}

// preload are the modules each zygote imports once, so programs do not
// pay for them: what the wrapper needs and what benchmark programs
// commonly import (the HumanEval and MBPP references import typing, re,
// math, collections, heapq, itertools, random, cmath, operator, copy,
// string, bisect, array, datetime; hashlib once). They are loaded before
// any program runs; a program changing one changes only its own copy.
// Every worker pays for each preload at its start, so a module few
// programs import (hashlib, which loads libcrypto; decimal, fractions,
// statistics) is left to the programs that do.
var preload = []string{
	"ast", "traceback", "linecache", "io", "re", "math", "cmath", "collections", "itertools", "functools",
	"heapq", "bisect", "string", "typing", "random", "operator", "copy", "json",
	"datetime", "faulthandler", "shutil", "subprocess",
}

const (
	fileSizeLimit = 64 << 20
	tmpfsSize     = "64m"
	noFileLimit   = 256
)

// runHelper sets the worker up and execs the zygote. It returns only on
// failure.
func runHelper(arg string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "pocketeval sandbox: %s%v\n", setupPrefix, err)
		return exitSetup
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(arg), &spec); err != nil {
		return fail(fmt.Errorf("decode spec: %w", err))
	}
	var g [1]byte
	if n, err := unix.Read(3, g[:]); n != 1 || g[0] != 'G' {
		return fail(fmt.Errorf("wait for the supervisor: %d bytes, %v", n, err))
	}
	_ = unix.Close(3)
	if err := setupHelper(&spec); err != nil {
		return fail(err)
	}
	return fail(execZygote(&spec))
}

func setupHelper(spec *helperSpec) error {
	if spec.MountNS {
		if err := buildRoot(spec); err != nil {
			return fmt.Errorf("private root: %w", err)
		}
	}
	if spec.Hostname {
		if err := unix.Sethostname([]byte("sandbox")); err != nil {
			return fmt.Errorf("sethostname: %w", err)
		}
	}
	// Credential changes of the zygote's children clear the parent-death
	// signal; the zygote itself keeps it (set here, after setup).
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("pdeathsig: %w", err)
	}
	// The control socket becomes fd 3, the siblings' sockets (fds 5 ..)
	// fds 4 ...
	for fd := 4; fd <= 4+spec.Zygote.Siblings; fd++ {
		if err := unix.Dup2(fd, fd-1); err != nil {
			return fmt.Errorf("control socket: %w", err)
		}
		_ = unix.Close(fd)
	}
	if spec.Seccomp {
		prog, err := seccompProgram(spec.DenySockets, spec.DenyIPC)
		if err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
		spec.Zygote.Seccomp = hex.EncodeToString(prog)
	}
	return nil
}

// buildRoot assembles the private root in the tmpfs at Root and pivots
// into it: read-only /usr (and the interpreter's prefix), minimal /dev and
// /etc, /proc, and empty /tmp, /dev/shm and /scratch where every run
// mounts its own fresh tmpfs.
func buildRoot(spec *helperSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	nr := spec.Root
	if err := unix.Mount("tmpfs", nr, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755"); err != nil {
		return fmt.Errorf("mount root tmpfs: %w", err)
	}
	at := func(p string) string { return filepath.Join(nr, p) }
	if err := bindRO("/usr", at("/usr")); err != nil {
		return err
	}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(d)
			if err != nil {
				return fmt.Errorf("readlink %s: %w", d, err)
			}
			if err := os.Symlink(target, at(d)); err != nil {
				return fmt.Errorf("symlink %s: %w", d, err)
			}
		case fi.IsDir():
			if err := bindRO(d, at(d)); err != nil {
				return err
			}
		}
	}
	if spec.Prefix != "" && !within(spec.Prefix, "/usr") {
		if err := bindRO(spec.Prefix, at(spec.Prefix)); err != nil {
			return err
		}
	}
	// /etc: only what the dynamic loader and Python may read, plus a passwd
	// naming the sandbox user.
	if err := os.Mkdir(at("/etc"), 0o755); err != nil {
		return fmt.Errorf("mkdir etc: %w", err)
	}
	for _, f := range []string{"/etc/ld.so.cache", "/etc/localtime"} {
		if _, err := os.Stat(f); err == nil {
			if err := bindRO(f, at(f)); err != nil {
				return err
			}
		}
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:%d:%d:sandbox:%s:/usr/sbin/nologin\n", defaultBaseUID, defaultBaseUID, scratchDir)
	if err := os.WriteFile(at("/etc/passwd"), []byte(passwd), 0o644); err != nil {
		return fmt.Errorf("write passwd: %w", err)
	}
	if err := os.WriteFile(at("/etc/group"), []byte(fmt.Sprintf("root:x:0:\nsandbox:x:%d:\n", defaultBaseUID)), 0o644); err != nil {
		return fmt.Errorf("write group: %w", err)
	}
	if err := os.Mkdir(at("/dev"), 0o755); err != nil {
		return fmt.Errorf("mkdir dev: %w", err)
	}
	for _, d := range []string{"null", "zero", "random", "urandom"} {
		if err := bindDevice("/dev/"+d, at("/dev/"+d)); err != nil {
			return err
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, at("/dev/"+name)); err != nil {
			return fmt.Errorf("symlink dev/%s: %w", name, err)
		}
	}
	for _, d := range []string{"/dev/shm", "/tmp", scratchDir} {
		if err := os.MkdirAll(at(d), 0o755); err != nil {
			return fmt.Errorf("mkdir %s: %w", d, err)
		}
	}
	if err := os.Mkdir(at("/proc"), 0o555); err != nil {
		return fmt.Errorf("mkdir proc: %w", err)
	}
	if err := unix.Mount("proc", at("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount proc: %w", err)
	}
	if err := os.Chdir(nr); err != nil {
		return fmt.Errorf("chdir new root: %w", err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach old root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return fmt.Errorf("chdir /: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("remount root read-only: %w", err)
	}
	return nil
}

// bindRO bind-mounts src at dst read-only, keeping the flags the kernel
// locks on the source mount.
func bindRO(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if fi.IsDir() {
		err = os.MkdirAll(dst, 0o755)
	} else {
		err = touch(dst)
	}
	if err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", dst, err)
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	if err := unix.Mount("", dst, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s read-only: %w", dst, err)
	}
	return nil
}

func bindDevice(src, dst string) error {
	if err := touch(dst); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	return nil
}

func touch(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// landlockPlan is the Landlock ruleset every program enters, created by
// the program process itself once its fresh mounts exist (a rule names an
// inode, and a rule on a mount point does not cover what is mounted on
// it): the handled access rights of the kernel's ABI and the rules.
type landlockPlan struct {
	Handled [3]uint64      `json:"handled"` // filesystem, network, scoped
	Rules   []landlockRule `json:"rules"`
}

// landlockRule grants Access beneath Path; the path "$SCRATCH" is the
// run's scratch directory. Missing paths are skipped.
type landlockRule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// Landlock access rights (as go-landlock's RODirs, RWDirs, ROFiles and
// RWFiles grant them).
const (
	llRead  = llsyscall.AccessFSExecute | llsyscall.AccessFSReadFile | llsyscall.AccessFSReadDir
	llWrite = llsyscall.AccessFSWriteFile | llsyscall.AccessFSRemoveDir | llsyscall.AccessFSRemoveFile |
		llsyscall.AccessFSMakeChar | llsyscall.AccessFSMakeDir | llsyscall.AccessFSMakeReg | llsyscall.AccessFSMakeSock |
		llsyscall.AccessFSMakeFifo | llsyscall.AccessFSMakeBlock | llsyscall.AccessFSMakeSym | llsyscall.AccessFSTruncate
	llFile = llsyscall.AccessFSExecute | llsyscall.AccessFSWriteFile | llsyscall.AccessFSTruncate | llsyscall.AccessFSReadFile
)

// newLandlockPlan restricts the filesystem to the interpreter and system
// read-only and the run's scratch space, /tmp and /dev/shm read-write,
// denies TCP bind/connect, and scopes signals and abstract UNIX sockets
// (best effort on the kernel's ABI: every right the ABI knows is handled).
func newLandlockPlan(abi int, mountNS bool, prefix string) *landlockPlan {
	configs := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
		landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	if abi < 1 {
		return nil
	}
	c := configs[min(abi, len(configs))-1]
	fs := uint64(c.HandledAccessFS)
	pl := &landlockPlan{Handled: [3]uint64{fs, uint64(c.HandledAccessNet), uint64(c.Scoped)}}
	add := func(access uint64, paths ...string) {
		for _, p := range paths {
			pl.Rules = append(pl.Rules, landlockRule{Path: p, Access: access & fs})
		}
	}
	if mountNS {
		// Everything under the private root is meant to be readable.
		add(llRead, "/")
		add(llRead|llWrite, scratchDir, "/tmp", "/dev/shm")
	} else {
		add(llRead, "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc")
		add(llRead&llFile, "/etc/ld.so.cache", "/etc/localtime", "/dev/zero", "/dev/random", "/dev/urandom")
		add(llRead|llWrite, "$SCRATCH")
	}
	if prefix != "" {
		add(llRead, prefix)
	}
	add((llRead|llWrite)&llFile, "/dev/null")
	return pl
}

// seccompProgram assembles the filter into a raw BPF program (struct
// sock_filter[], native byte order) for the zygote to load.
func seccompProgram(denySockets, denyIPC bool) ([]byte, error) {
	insts, err := seccompInstructions(denySockets, denyIPC)
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 8*len(raw))
	for _, r := range raw {
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// seccompInstructions is the whole filter. A system call entered through
// any ABI but the native one (int 0x80 or sysenter on x86-64, i.e. the
// i386 system call table, which every rule below would miss because it
// numbers the calls differently) kills the process. Then the deny-list
// (seccompPolicy): kernel attack surface and everything that could leave
// the namespaces (EPERM); clone3 gets ENOSYS so libc falls back to clone,
// whose namespace flags are refused; sockets of every address family but
// AF_UNIX get EAFNOSUPPORT (AF_VSOCK reaches the hypervisor of a VM, and
// no other family has anything to reach inside the network namespace).
//
// The policy library checks the architecture too, but lets a foreign one
// through to its default action (allow); this filter never reaches it
// with a foreign architecture.
func seccompInstructions(denySockets, denyIPC bool) ([]bpf.Instruction, error) {
	native, err := seccomparch.GetInfo("")
	if err != nil {
		return nil, err
	}
	policy, err := seccompPolicy(denySockets, denyIPC).Assemble()
	if err != nil {
		return nil, err
	}
	const archOffset = 4 // struct seccomp_data: int nr; __u32 arch; ...
	head := []bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
	}
	return append(head, policy...), nil
}

// seccompPolicy is the deny-list part of the filter (see
// seccompInstructions). Without a network namespace (denySockets) socket()
// is refused for every family, AF_UNIX included: Landlock covers neither
// UDP nor pathname UNIX sockets. socketpair() is allowed for AF_UNIX only,
// in every mode (it reaches nothing outside the process).
func seccompPolicy(denySockets, denyIPC bool) *seccomp.Policy {
	deny := []string{
		"ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
		"unshare", "setns", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
		"request_key", "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load",
		"kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
		"swapoff", "open_by_handle_at", "name_to_handle_at", "personality", "acct", "quotactl",
		"syslog", "chroot", "sethostname", "setdomainname", "settimeofday", "clock_settime",
		"adjtimex", "clock_adjtime", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
		"fspick", "mount_setattr", "pidfd_getfd", "iopl", "ioperm", "vhangup", "fanotify_init",
		"lookup_dcookie",
	}
	if denyIPC {
		deny = append(deny, "shmget", "shmat", "shmctl", "semget", "semop", "semtimedop", "semctl",
			"msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
			"mq_notify", "mq_getsetattr")
	}
	nsFlags := uint64(unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
		unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME)
	conditional := []seccomp.NameWithConditions{
		{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: nsFlags}}},
	}
	notUnix := seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX}}
	families := seccomp.SyscallGroup{
		Action:             seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)),
		NamesWithCondtions: []seccomp.NameWithConditions{{Name: "socketpair", Conditions: notUnix}},
	}
	if denySockets {
		families.Names = []string{"socket"}
	} else {
		families.NamesWithCondtions = append(families.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket", Conditions: notUnix})
	}
	return &seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, Names: deny, NamesWithCondtions: conditional},
			{Action: seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)), Names: []string{"clone3"}},
			families,
		},
	}
}

// pythonEnv is the whole environment of the zygote and of every program
// (without a mount namespace HOME and TMPDIR become the run's scratch
// directory).
func pythonEnv() []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + scratchDir,
		"TMPDIR=/tmp",
		"LANG=C.UTF-8",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONIOENCODING=utf-8",
		"OMP_NUM_THREADS=1",
		"OPENBLAS_NUM_THREADS=1",
		"MKL_NUM_THREADS=1",
		// glibc gives each thread that allocates its own malloc arena, up
		// to 8 per CPU, each reserving 64 MiB of address space: under the
		// address-space limit (RLIMIT_AS = Limits.MemoryBytes) a thread
		// pool of 40 threads failed to start ("can't start new thread")
		// after about 14 threads. Two arenas leave room for a program's
		// full task budget (64 tasks: 8 MiB of stack each).
		"MALLOC_ARENA_MAX=2",
	}
}

func zygoteArgv(python string, cfg zygoteConfig) ([]string, error) {
	js, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return []string{python, "-I", "-B", "-c", zygoteSource, string(js)}, nil
}

// execZygote execs the interpreter as the worker's zygote.
func execZygote(spec *helperSpec) error {
	spec.Zygote.Env = pythonEnv()
	argv, err := zygoteArgv(spec.Python, spec.Zygote)
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	err = syscall.Exec(spec.Python, argv, spec.Zygote.Env)
	return fmt.Errorf("exec %s: %w", spec.Python, err)
}

// spin burns CPU forever (the body of a CPU hog process).
func spin() {
	runtime.GOMAXPROCS(1)
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			os.Exit(0)
		}
	}
}

var errNoHelperHook = errors.New("sandbox: this binary does not call sandbox.MaybeRunHelper first thing in main (or TestMain)")
