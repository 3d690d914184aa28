# pocketeval isolated verdicts: the candidate process. See docs/sandbox.md.
#
# This program runs in the sandbox with the model's code and nothing else:
# no test, no expected value, no secret of the verdict. It executes the
# code in its own globals (as the official harness would), says whether
# that worked, then serves the trusted process's requests on two pipes
# until the trusted process closes them:
#   {"op": "names", "names": [...]}   which of these names the code defines
#   {"op": "call", "h": handle, "args": [...], "kw": [[name, v]...]}
# Replies carry plain data only (codec.py); whatever else the code returns
# is reported as such and the trusted process fails the program.
#
# Nothing here is trusted: the code under test can change any of it. The
# verdict never depends on this process behaving; this server exists so
# that honest programs behave as they do in the official harness.
# It also keeps the official meaning of the idle limit: sleeping or
# blocking while the code loads or inside a call for longer than
# cfg["idle"] seconds (while the process is neither running nor waiting
# for a CPU) ends the program as a timeout.


def _pe_candidate(g, cfg, codec=None):
    import os, sys, _thread, time, builtins, binascii
    if codec is None:
        codec = _pe_codec()
    src = binascii.a2b_base64(cfg.pop("source"))
    for name in ("_pe_codec", "_pe_candidate"):
        g.pop(name, None)
    fd_in, fd_out = cfg["fd_in"], cfg["fd_out"]
    _exit, _type, _len = os._exit, type, len
    write_frame, read_frame = codec.write_frame, codec.read_frame
    codec.ignore_sigpipe()
    lock = _thread.allocate_lock()
    state = {"in_call": False, "seq": 0}

    def send(msg):
        with lock:
            write_frame(fd_out, msg)

    def exc_info(e):
        t = _type(e)
        base = "Exception"
        for k in t.__mro__:
            if getattr(builtins, getattr(k, "__name__", ""), None) is k:
                base = k.__name__
                break
        try:
            msg = str(e)
        except BaseException:
            msg = ""
        try:
            name = t.__name__
        except BaseException:
            name = "Exception"
        return [str(name)[:200], base, msg[:1000]]

    # --- the idle limit inside calls ---------------------------------------
    idle_limit = cfg.get("idle", 0)

    def active_ns():
        total = 0
        try:
            tids = os.listdir("/proc/self/task")
        except OSError:
            return None
        for tid in tids:
            try:
                with open("/proc/self/task/%s/schedstat" % tid, "rb") as f:
                    run, wait = f.read().split()[:2]
                total += int(run) + int(wait)
            except (OSError, ValueError):
                continue
        return total

    def watchdog():
        # Looks every 20 ms. A call still running at a look is measured from
        # that look on, so a call shorter than a tick costs nothing here and
        # the idle limit counts from at most 20 ms into a call.
        seq, idle, last, prev = None, 0.0, 0.0, None
        while True:
            time.sleep(0.02)
            if not state["in_call"]:
                seq = None
                continue
            if state["seq"] != seq:
                seq, idle, last, prev = state["seq"], 0.0, time.monotonic(), active_ns()
                continue
            now, act = time.monotonic(), active_ns()
            if act is None or prev is None:
                prev, last = act, now
                continue
            gap = (now - last) - (act - prev) / 1e9
            last, prev = now, act
            if gap > 0:
                idle += gap
            if idle >= idle_limit:
                with lock:
                    if state["in_call"] and state["seq"] == seq:
                        try:
                            write_frame(fd_out, {"timeout": "idle (sleeping or blocked) for %gs" % idle_limit})
                        except BaseException:
                            pass
                        _exit(0)

    if idle_limit > 0:
        # A bare thread (what threading.Thread starts, without its
        # bookkeeping and without waiting for the thread to run).
        _thread.start_new_thread(watchdog, ())

    # --- load the code --------------------------------------------------------
    # Loading counts as a call for the idle limit (the official program
    # would sleep at its top level just the same).
    with lock:
        state["seq"] += 1
        state["in_call"] = True
    try:
        try:
            code = compile(src, "<string>", "exec", dont_inherit=True)
            del src
            exec(code, g)
        finally:
            with lock:
                state["in_call"] = False
    except BaseException as e:
        try:
            import traceback
            traceback.print_exception(_type(e), e, e.__traceback__)
        except BaseException:
            pass
        send({"load": exc_info(e)})
        return
    send({"ready": True})

    # --- serve ------------------------------------------------------------------
    handles = []

    def names(req):
        out = []
        for n in req.get("names") or ():
            if _type(n) is not str:
                continue
            if n not in g:
                out.append([n, "missing"])
                continue
            v = g[n]
            if callable(v):
                handles.append(v)
                out.append([n, "callable", _len(handles) - 1])
                continue
            if _type(v) is _type(os):
                out.append([n, "module", str(getattr(v, "__name__", ""))])
                continue
            try:
                out.append([n, "value", codec.Encoder(sign=-1).enc(v)])
            except codec.NotPlainData as e:
                out.append([n, "other", str(e.args[0] if e.args else "")])
        return {"names": out}

    def call(req):
        dec = codec.Decoder(sign=1)
        args = [dec.dec(a) for a in req["args"]]
        kw = {}
        for k, v in req["kw"]:
            kw[k] = dec.dec(v)
        originals = dict(dec.made)  # wire id -> container from the caller
        known = {id(v): k for k, v in originals.items()}

        def snapshot():
            enc = codec.Encoder(known=known, sign=-1)
            return {k: codec.dumps(enc.contents(v, k)) for k, v in originals.items()}

        before = snapshot()
        fn = handles[req["h"]]
        with lock:
            state["seq"] += 1
            state["in_call"] = True
        try:
            try:
                result = fn(*args, **kw)
            finally:
                with lock:
                    state["in_call"] = False
        except BaseException as e:
            reply = {"raise": exc_info(e)}
            ok = False
        else:
            ok = True
        del args, kw
        enc = codec.Encoder(known=known, sign=-1)
        try:
            after = snapshot()
            upd = [enc.contents(v, k) for k, v in originals.items() if after[k] != before[k]]
            if ok:
                reply = {"ok": enc.enc(result)}
            reply["upd"] = upd
        except codec.NotPlainData as e:
            reply = {"bad": ["result" if ok else "argument after the call", str(e.args[0] if e.args else "")]}
        return reply

    while True:
        try:
            req = read_frame(fd_in)
        except codec.BadFrame:
            return
        if req is None:
            return
        op = req.get("op")
        if op == "names":
            reply = names(req)
        elif op == "call":
            reply = call(req)
        else:
            return
        try:
            send(reply)
        except OSError:
            return
