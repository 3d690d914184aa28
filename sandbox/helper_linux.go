package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// helperArg is argv[1] of the re-executed binary acting as the set-up helper.
const helperArg = "__pocketeval_sandbox_init"

// Inside the private root.
const (
	scratchDir  = "/scratch"
	programName = "main.py"
)

var helperHooked atomic.Bool

// MaybeRunHelper turns this process into the sandbox's set-up helper when it
// was started as one, and never returns in that case. Call it first thing in
// main (and in TestMain of any test binary that runs programs through a
// Pool): the helper must run before anything else touches the process.
// Otherwise it only records that the binary can act as the helper.
func MaybeRunHelper() {
	helperHooked.Store(true)
	if len(os.Args) < 3 || os.Args[1] != helperArg {
		return
	}
	runtime.LockOSThread()
	os.Exit(runHelper(os.Args[2]))
}

// helperSpec is what the supervisor asks the helper to set up, passed as
// JSON in argv[2]. The helper runs with fd 3 = sync pipe (one byte "G",
// then the nonce for the wrapper) and fd 4 = proof pipe.
type helperSpec struct {
	// MountNS: build the private root under Base/root and pivot into it.
	MountNS bool   `json:"mount_ns"`
	Base    string `json:"base"`
	// Python is the real interpreter; Prefix is bound read-only at the same
	// path when it is outside /usr.
	Python string `json:"python"`
	Prefix string `json:"prefix"`
	// Hostname is set when the UTS namespace is new.
	Hostname bool `json:"hostname"`
	// UID/GID to drop to; -1 keeps the current ones (then DropCaps).
	UID      int  `json:"uid"`
	GID      int  `json:"gid"`
	DropCaps bool `json:"drop_caps"`
	// Rlimits.
	CPUSeconds   uint64 `json:"cpu_seconds"`
	AddressSpace uint64 `json:"address_space,omitempty"` // 0: not limited by rlimit
	NProc        uint64 `json:"nproc,omitempty"`         // 0: not limited by rlimit
	Landlock     bool   `json:"landlock"`
	Seccomp      bool   `json:"seccomp"`
	// DenySockets refuses socket(AF_INET/AF_INET6/AF_UNIX) in seccomp (no
	// network namespace: Landlock does not cover UDP or UNIX sockets).
	DenySockets bool `json:"deny_sockets"`
}

const (
	fileSizeLimit = 64 << 20
	tmpfsSize     = "64m"
	noFileLimit   = 256
)

// runHelper sets the layers up and execs Python. It returns only on failure.
func runHelper(arg string) int {
	proof := os.NewFile(4, "proof")
	fail := func(err error) int {
		if proof != nil {
			fmt.Fprintf(proof, "%s%v\n", setupPrefix, err)
		}
		fmt.Fprintf(os.Stderr, "pocketeval sandbox: %s%v\n", setupPrefix, err)
		return exitSetup
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(arg), &spec); err != nil {
		return fail(fmt.Errorf("decode spec: %w", err))
	}
	// Wait until the supervisor has placed us in our cgroups.
	var go1 [1]byte
	if n, err := unix.Read(3, go1[:]); n != 1 || go1[0] != 'G' {
		return fail(fmt.Errorf("wait for the supervisor: %d bytes, %v", n, err))
	}
	if err := setupHelper(&spec); err != nil {
		return fail(err)
	}
	return fail(execPython(&spec))
}

func setupHelper(spec *helperSpec) error {
	program := filepath.Join(spec.Base, programName)
	if spec.MountNS {
		if err := buildRoot(spec); err != nil {
			return fmt.Errorf("private root: %w", err)
		}
		program = filepath.Join(scratchDir, programName)
	}
	if spec.Hostname {
		if err := unix.Sethostname([]byte("sandbox")); err != nil {
			return fmt.Errorf("sethostname: %w", err)
		}
	}
	if err := os.Chdir(filepath.Dir(program)); err != nil {
		return fmt.Errorf("chdir: %w", err)
	}
	limits := []struct {
		res       int
		cur, max  uint64
		condition bool
	}{
		{unix.RLIMIT_CPU, spec.CPUSeconds, spec.CPUSeconds, spec.CPUSeconds > 0},
		{unix.RLIMIT_FSIZE, fileSizeLimit, fileSizeLimit, true},
		{unix.RLIMIT_NOFILE, noFileLimit, noFileLimit, true},
		{unix.RLIMIT_CORE, 0, 0, true},
		{unix.RLIMIT_NPROC, spec.NProc, spec.NProc, spec.NProc > 0},
	}
	for _, l := range limits {
		if !l.condition {
			continue
		}
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: l.cur, Max: l.max}); err != nil {
			return fmt.Errorf("setrlimit %d: %w", l.res, err)
		}
	}
	if spec.UID >= 0 {
		// While still root: empty the bounding and ambient sets, so no
		// capability can come back; setresuid below clears the rest.
		if err := dropBoundingSet(); err != nil {
			return fmt.Errorf("drop capabilities: %w", err)
		}
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("setgroups: %w", err)
		}
		if err := syscall.Setresgid(spec.GID, spec.GID, spec.GID); err != nil {
			return fmt.Errorf("setresgid: %w", err)
		}
		if err := syscall.Setresuid(spec.UID, spec.UID, spec.UID); err != nil {
			return fmt.Errorf("setresuid: %w", err)
		}
	}
	if spec.DropCaps {
		if err := dropCapabilities(); err != nil {
			return fmt.Errorf("drop capabilities: %w", err)
		}
	}
	// Credential changes clear the parent-death signal; set it again.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("pdeathsig: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if spec.Landlock {
		if err := applyLandlock(spec); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if spec.Seccomp {
		if err := seccomp.LoadFilter(seccompFilter(spec.DenySockets)); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	return nil
}

// buildRoot assembles the private root in a tmpfs at Base/root and pivots
// into it: read-only /usr (and the interpreter's prefix), minimal /dev and
// /etc, fresh /proc, tmpfs /tmp and /scratch holding only the program.
func buildRoot(spec *helperSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	nr := filepath.Join(spec.Base, "root")
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
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:%d:%d:sandbox:%s:/usr/sbin/nologin\n", spec.UID, spec.GID, scratchDir)
	if err := os.WriteFile(at("/etc/passwd"), []byte(passwd), 0o644); err != nil {
		return fmt.Errorf("write passwd: %w", err)
	}
	if err := os.WriteFile(at("/etc/group"), []byte(fmt.Sprintf("root:x:0:\nsandbox:x:%d:\n", spec.GID)), 0o644); err != nil {
		return fmt.Errorf("write group: %w", err)
	}
	// /dev
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
	tmpfs := func(p, mode string) error {
		if err := os.MkdirAll(at(p), 0o755); err != nil {
			return fmt.Errorf("mkdir %s: %w", p, err)
		}
		if err := unix.Mount("tmpfs", at(p), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size="+tmpfsSize+",mode="+mode); err != nil {
			return fmt.Errorf("mount tmpfs %s: %w", p, err)
		}
		return nil
	}
	if err := tmpfs("/dev/shm", "1777"); err != nil {
		return err
	}
	if err := tmpfs("/tmp", "1777"); err != nil {
		return err
	}
	if err := tmpfs(scratchDir, "0755"); err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(spec.Base, programName))
	if err != nil {
		return fmt.Errorf("read program: %w", err)
	}
	dst := at(filepath.Join(scratchDir, programName))
	if err := os.WriteFile(dst, src, 0o644); err != nil {
		return fmt.Errorf("copy program: %w", err)
	}
	if spec.UID >= 0 {
		if err := os.Chown(at(scratchDir), spec.UID, spec.GID); err != nil {
			return fmt.Errorf("chown scratch: %w", err)
		}
		if err := os.Chown(dst, spec.UID, spec.GID); err != nil {
			return fmt.Errorf("chown program: %w", err)
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

// dropCapabilities empties the bounding, ambient, inheritable, permitted
// and effective sets and locks SECBIT_NOROOT, so exec as (namespaced) uid 0
// grants nothing.
func dropCapabilities() error {
	// SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_KEEP_CAPS off, all locked.
	const secbits = 0x1 | 0x2 | 0x4 | 0x8 | 0x20
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbits, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	if err := dropBoundingSet(); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// dropBoundingSet clears the ambient set and empties the bounding set
// (needs CAP_SETPCAP).
func dropBoundingSet() error {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop bounding cap %d: %w", c, err)
		}
	}
	return nil
}

// applyLandlock restricts the filesystem to the interpreter and system
// read-only and the scratch space read-write, denies TCP bind/connect, and
// scopes signals and abstract UNIX sockets to the sandbox (best effort on
// the kernel's ABI).
func applyLandlock(spec *helperSpec) error {
	ro := []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc"}
	rw := []string{spec.Base}
	roFiles := []string{"/etc/ld.so.cache", "/etc/localtime", "/dev/zero", "/dev/random", "/dev/urandom"}
	if spec.MountNS {
		// Everything under the private root is meant to be readable.
		ro = []string{"/"}
		rw = []string{scratchDir, "/tmp", "/dev/shm"}
	}
	if spec.Prefix != "" {
		ro = append(ro, spec.Prefix)
	}
	rules := []landlock.Rule{
		landlock.RODirs(ro...).IgnoreIfMissing(),
		landlock.RWDirs(rw...).IgnoreIfMissing(),
		landlock.ROFiles(roFiles...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null").IgnoreIfMissing(),
	}
	return landlock.V11.BestEffort().Restrict(rules...)
}

// seccompFilter is the deny-list: kernel attack surface and everything that
// could leave the namespaces (EPERM); clone3 gets ENOSYS so libc falls back
// to clone, whose namespace flags are refused.
func seccompFilter(denySockets bool) seccomp.Filter {
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
	nsFlags := uint64(unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
		unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME)
	conditional := []seccomp.NameWithConditions{
		{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: nsFlags}}},
	}
	if denySockets {
		for _, family := range []uint64{unix.AF_INET, unix.AF_INET6, unix.AF_UNIX, unix.AF_NETLINK, unix.AF_PACKET} {
			conditional = append(conditional, seccomp.NameWithConditions{
				Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: family}},
			})
		}
	}
	return seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{
				{Action: seccomp.ActionErrno, Names: deny, NamesWithCondtions: conditional},
				{Action: seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)), Names: []string{"clone3"}},
			},
		},
	}
}

// pythonEnv is the whole environment of the program.
func pythonEnv(home, tmp string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"LANG=C.UTF-8",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONIOENCODING=utf-8",
		"OMP_NUM_THREADS=1",
		"OPENBLAS_NUM_THREADS=1",
		"MKL_NUM_THREADS=1",
	}
}

func pythonArgv(python, program string) []string {
	return []string{python, "-I", "-B", "-c", wrapperSource, program}
}

// execPython sets RLIMIT_AS (if any) and execs the interpreter with no Go
// allocation in between: the Go runtime cannot live under a tight RLIMIT_AS.
func execPython(spec *helperSpec) error {
	home, tmp, program := scratchDir, "/tmp", filepath.Join(scratchDir, programName)
	if !spec.MountNS {
		home, tmp, program = spec.Base, spec.Base, filepath.Join(spec.Base, programName)
	}
	argv0, err := unix.BytePtrFromString(spec.Python)
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	argv, err := syscall.SlicePtrFromStrings(pythonArgv(spec.Python, program))
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	envv, err := syscall.SlicePtrFromStrings(pythonEnv(home, tmp))
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	if spec.AddressSpace > 0 {
		lim := unix.Rlimit{Cur: spec.AddressSpace, Max: spec.AddressSpace}
		if _, _, e := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_AS, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
			return fmt.Errorf("setrlimit AS: %w", e)
		}
	}
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(argv0)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	return fmt.Errorf("exec %s: %w", spec.Python, e)
}
