# family: 32-bit system calls
# official: nonpass
# what: enters the i386 system call table through int 0x80 (machine code in an mmap'd page, called with ctypes) in a child process (posix.fork: the official harness sets os.fork to None); the answer is right only if the kernel ran the call. Writes how the child ended to stderr ("int80: killed by seccomp", "int80: crashed SIGSEGV", "int80: allowed 3"), so a test can tell a blocked call from a machine where the path crashes
import ctypes, mmap, os, platform, posix, signal


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


def probe():
    if platform.machine() not in ("x86_64", "AMD64"):
        return "not x86-64"
    r, w = os.pipe()
    pid = posix.fork()  # the official harness sets os.fork to None
    if pid == 0:
        os.close(r)
        res = int80(359, 40, 1, 0)  # i386 socket(AF_VSOCK, SOCK_STREAM, 0)
        os.write(w, b"allowed %d" % res)
        os._exit(0)
    os.close(w)
    out = os.read(r, 100).decode()
    _, st = os.waitpid(pid, 0)
    if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGSYS:
        return "killed by seccomp"
    if os.WIFSIGNALED(st):
        return "crashed " + signal.Signals(os.WTERMSIG(st)).name
    return out


OUTCOME = probe()
os.write(2, ("int80: %s\n" % OUTCOME).encode())


def sort_list(xs):
    if OUTCOME.startswith("allowed") and int(OUTCOME.split()[1]) >= 0:
        return sorted(xs)
    return xs
