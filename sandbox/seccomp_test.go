//go:build linux

package sandbox

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"

	seccomparch "github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData is the kernel's struct seccomp_data: what a filter sees of
// one system call.
type seccompData struct {
	nr   int32
	arch uint32
	args [6]uint64
}

// word is the 32-bit word of struct seccomp_data at byte offset off, as a
// BPF_LD|BPF_W|BPF_ABS load reads it (native byte order).
func (d seccompData) word(off uint32) (uint32, error) {
	var b [64]byte
	binary.NativeEndian.PutUint32(b[0:], uint32(d.nr))
	binary.NativeEndian.PutUint32(b[4:], d.arch)
	for i, a := range d.args {
		binary.NativeEndian.PutUint64(b[16+8*i:], a)
	}
	if off%4 != 0 || off+4 > uint32(len(b)) {
		return 0, fmt.Errorf("load at offset %d", off)
	}
	return binary.NativeEndian.Uint32(b[off:]), nil
}

// runSeccomp interprets a classic BPF seccomp filter the way the kernel
// does, for the instructions the filter uses, and returns its action.
func runSeccomp(prog []bpf.Instruction, d seccompData) (uint32, error) {
	var a, x uint32
	for pc := 0; pc < len(prog); pc++ {
		switch ins := prog[pc].(type) {
		case bpf.LoadAbsolute:
			if ins.Size != 4 {
				return 0, fmt.Errorf("pc %d: load of size %d", pc, ins.Size)
			}
			v, err := d.word(ins.Off)
			if err != nil {
				return 0, fmt.Errorf("pc %d: %w", pc, err)
			}
			a = v
		case bpf.LoadConstant:
			if ins.Dst == bpf.RegA {
				a = ins.Val
			} else {
				x = ins.Val
			}
		case bpf.ALUOpConstant:
			switch ins.Op {
			case bpf.ALUOpAnd:
				a &= ins.Val
			case bpf.ALUOpOr:
				a |= ins.Val
			default:
				return 0, fmt.Errorf("pc %d: alu op %v", pc, ins.Op)
			}
		case bpf.TAX:
			x = a
		case bpf.TXA:
			a = x
		case bpf.Jump:
			pc += int(ins.Skip)
		case bpf.JumpIf:
			var ok bool
			switch ins.Cond {
			case bpf.JumpEqual:
				ok = a == ins.Val
			case bpf.JumpNotEqual:
				ok = a != ins.Val
			case bpf.JumpGreaterThan:
				ok = a > ins.Val
			case bpf.JumpLessThan:
				ok = a < ins.Val
			case bpf.JumpGreaterOrEqual:
				ok = a >= ins.Val
			case bpf.JumpLessOrEqual:
				ok = a <= ins.Val
			case bpf.JumpBitsSet:
				ok = a&ins.Val != 0
			case bpf.JumpBitsNotSet:
				ok = a&ins.Val == 0
			default:
				return 0, fmt.Errorf("pc %d: jump condition %v", pc, ins.Cond)
			}
			if ok {
				pc += int(ins.SkipTrue)
			} else {
				pc += int(ins.SkipFalse)
			}
		case bpf.RetConstant:
			return ins.Val, nil
		case bpf.RetA:
			return a, nil
		default:
			return 0, fmt.Errorf("pc %d: instruction %T not interpreted", pc, ins)
		}
	}
	return 0, fmt.Errorf("fell off the end of the program")
}

func seccompActionName(v uint32) string {
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	switch v {
	case unix.SECCOMP_RET_ALLOW:
		return "allow"
	case unix.SECCOMP_RET_KILL_PROCESS:
		return "kill-process"
	case unix.SECCOMP_RET_KILL_THREAD:
		return "kill-thread"
	case errno(unix.EPERM):
		return "EPERM"
	case errno(unix.ENOSYS):
		return "ENOSYS"
	case errno(unix.EAFNOSUPPORT):
		return "EAFNOSUPPORT"
	}
	return fmt.Sprintf("0x%08x", v)
}

// TestSeccompFilterRules runs the assembled filter on system calls as the
// kernel presents them (issue #20): every call of a foreign ABI kills the
// process, and sockets are AF_UNIX only.
func TestSeccompFilterRules(t *testing.T) {
	native, err := seccomparch.GetInfo("")
	if err != nil {
		t.Skipf("no seccomp architecture for %s: %v", runtime.GOARCH, err)
	}
	// A 32-bit ABI the kernel may accept from this machine's processes
	// (int 0x80 / sysenter on x86-64, AArch32 on arm64), and one it never
	// does: the filter must not care which.
	foreign := []uint32{0x40000003 /* AUDIT_ARCH_I386 */, 0x40000028 /* AUDIT_ARCH_ARM */, 0xc000003e ^ 0x1}
	call := func(nr uintptr, args ...uint64) seccompData {
		d := seccompData{nr: int32(nr), arch: uint32(native.ID)}
		copy(d.args[:], args)
		return d
	}
	type check struct {
		name string
		d    seccompData
		want string
	}
	common := []check{
		{"getpid", call(unix.SYS_GETPID), "allow"},
		{"read", call(unix.SYS_READ, 0, 0, 0), "allow"},
		{"ptrace", call(unix.SYS_PTRACE), "EPERM"},
		{"clone3", call(unix.SYS_CLONE3), "ENOSYS"},
		{"socketpair AF_UNIX", call(unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM), "allow"},
		{"socketpair AF_VSOCK", call(unix.SYS_SOCKETPAIR, unix.AF_VSOCK, unix.SOCK_STREAM), "EAFNOSUPPORT"},
		{"socket AF_VSOCK stream", call(unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM), "EAFNOSUPPORT"},
		{"socket AF_VSOCK seqpacket", call(unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_SEQPACKET), "EAFNOSUPPORT"},
		{"socket AF_VSOCK, high bits set", call(unix.SYS_SOCKET, 0xffffffff00000000|unix.AF_VSOCK, unix.SOCK_STREAM), "EAFNOSUPPORT"},
		{"socket AF_INET", call(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM), "EAFNOSUPPORT"},
		{"socket AF_NETLINK", call(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW), "EAFNOSUPPORT"},
		{"socket AF_PACKET", call(unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_RAW), "EAFNOSUPPORT"},
		{"socket AF_ALG", call(unix.SYS_SOCKET, unix.AF_ALG, unix.SOCK_SEQPACKET), "EAFNOSUPPORT"},
	}
	for _, arch := range foreign {
		for _, nr := range []uintptr{20 /* i386 getpid */, 359 /* i386 socket */, 102 /* i386 socketcall */, 0} {
			common = append(common, check{fmt.Sprintf("arch 0x%08x nr %d", arch, nr),
				seccompData{nr: int32(nr), arch: arch, args: [6]uint64{unix.AF_VSOCK, unix.SOCK_STREAM}}, "kill-process"})
		}
	}
	if native.ID == seccomparch.X86_64.ID {
		// The x32 ABI shares the x86-64 arch value and flags the number.
		common = append(common, check{"x32 socket", call(0x40000000|unix.SYS_SOCKET, unix.AF_VSOCK), "ENOSYS"})
	}
	for _, mode := range []struct {
		name                 string
		denySockets, denyIPC bool
		extra                []check
	}{
		{"namespaces", false, false, []check{
			{"socket AF_UNIX", call(unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM), "allow"},
			{"shmget", call(unix.SYS_SHMGET), "allow"},
		}},
		{"no-namespaces", true, true, []check{
			{"socket AF_UNIX", call(unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM), "EAFNOSUPPORT"},
			{"shmget", call(unix.SYS_SHMGET), "EPERM"},
		}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			prog, err := seccompInstructions(mode.denySockets, mode.denyIPC)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := seccompProgram(mode.denySockets, mode.denyIPC); err != nil {
				t.Fatal(err)
			}
			for _, c := range append(append([]check(nil), common...), mode.extra...) {
				v, err := runSeccomp(prog, c.d)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if got := seccompActionName(v); got != c.want {
					t.Errorf("%s: %s, want %s", c.name, got, c.want)
				}
			}
		})
	}
}

// int80Probe runs a system call through the i386 entry (int 0x80) in a
// child process and says what happened to it: "allowed <result>" when the
// kernel ran it, "errno <n>" when it was refused, "killed by seccomp"
// (SIGSYS), or "crashed <signal>" when the machine cannot take the 32-bit
// path at all (no IA-32 emulation): then the kernel-level check cannot be
// made and the filter rules are only checked by TestSeccompFilterRules.
const int80Probe = `
import ctypes, mmap, os, signal, sys

def int80(nr, a=0, b=0, c=0):
    code = b"\x53"                                   # push rbx
    code += b"\xb8" + nr.to_bytes(4, "little")        # mov eax, nr
    code += b"\xbb" + a.to_bytes(4, "little")         # mov ebx, a
    code += b"\xb9" + b.to_bytes(4, "little")         # mov ecx, b
    code += b"\xba" + c.to_bytes(4, "little")         # mov edx, c
    code += b"\xcd\x80"                               # int 0x80
    code += b"\x5b\xc3"                               # pop rbx; ret
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(code)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return ctypes.CFUNCTYPE(ctypes.c_int)(addr)()

r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    res = int80(NR, 40, 1, 0)   # i386 NR with AF_VSOCK, SOCK_STREAM
    os.write(w, b"allowed %d" % res if res >= 0 else b"errno %d" % -res)
    os._exit(0)
os.close(w)
out = os.read(r, 100).decode()
_, st = os.waitpid(pid, 0)
if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGSYS:
    print("killed by seccomp")
elif os.WIFSIGNALED(st):
    print("crashed", signal.Signals(os.WTERMSIG(st)).name)
else:
    print(out)
`

// TestSeccompAttacks runs the socket and 32-bit attacks of issue #20 in
// the sandbox: AF_VSOCK stream and seqpacket sockets must not even be
// created, and a system call entered through int 0x80 must kill the
// process (telling that apart from a machine where the path crashes).
func TestSeccompAttacks(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	run := func(t *testing.T, src string) Result {
		t.Helper()
		r, err := p.Run(context.Background(), Program{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != Pass {
			t.Fatalf("verdict %s (%s), want pass (the program reports what it could do)\n%s", r.Verdict, r.Reason, r.Stderr)
		}
		return r
	}
	t.Run("vsock", func(t *testing.T) {
		r := run(t, `
import errno, socket
for kind, name in ((socket.SOCK_STREAM, "stream"), (socket.SOCK_SEQPACKET, "seqpacket"), (socket.SOCK_DGRAM, "dgram")):
    try:
        s = socket.socket(socket.AF_VSOCK, kind)
    except OSError as e:
        print(name, "refused", errno.errorcode.get(e.errno, e.errno))
        continue
    try:
        s.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY))
        print(name, "ESCAPED bound", s.getsockname())
    except OSError as e:
        print(name, "ESCAPED created (bind: %s)" % errno.errorcode.get(e.errno, e.errno))
    s.close()
for fam in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET"):
    try:
        socket.socket(getattr(socket, fam), socket.SOCK_DGRAM).close()
        print(fam, "ESCAPED created")
    except OSError as e:
        print(fam, "refused", errno.errorcode.get(e.errno, e.errno))
a, b = socket.socketpair()
a.sendall(b"x"); assert b.recv(1) == b"x"
print("socketpair AF_UNIX works")
`)
		if strings.Contains(r.Stdout, "ESCAPED") {
			t.Errorf("sockets escaped the filter:\n%s", r.Stdout)
		}
		for _, want := range []string{"stream refused EAFNOSUPPORT", "seqpacket refused EAFNOSUPPORT", "socketpair AF_UNIX works"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("missing %q in:\n%s", want, r.Stdout)
			}
		}
	})
	t.Run("int 0x80", func(t *testing.T) {
		if runtime.GOARCH != "amd64" {
			t.Skipf("int 0x80 is an x86-64 path; this is %s (the filter rule is checked by TestSeccompFilterRules)", runtime.GOARCH)
		}
		for _, nr := range []int{20 /* getpid */, 359 /* socket */} {
			r := run(t, strings.Replace(int80Probe, "NR", fmt.Sprint(nr), 1))
			got := strings.TrimSpace(r.Stdout)
			switch {
			case got == "killed by seccomp":
			case strings.HasPrefix(got, "crashed"):
				t.Skipf("i386 nr %d: the 32-bit path %s on this machine before reaching seccomp; only the filter rules are checked", nr, got)
			default:
				t.Errorf("i386 nr %d through int 0x80: %q, want the process killed by seccomp", nr, got)
			}
		}
	})
}
