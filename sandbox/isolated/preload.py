# pocketeval isolated verdicts: the module every sandbox zygote loads once
# (sandbox.RegisterZygoteModule), made of codec.py, trusted.py,
# candidate.py and this. A program process inherits it from its zygote,
# compiled, with one codec built and its code warmed, so each side's
# program is one line:
#     __import__("sys").modules[MODULE].trusted(globals(), cfg)
# (or .candidate). Each program process is a fresh fork of a zygote that
# never ran program code: the codec and everything here are in the state
# the zygote left them, whatever another program did to its own copy.

import binascii, symtable  # what the two sides import, once here

_pe_shared_codec = _pe_codec()


def trusted(g, cfg):
    _pe_trusted(g, cfg, _pe_shared_codec)


def candidate(g, cfg):
    _pe_candidate(g, cfg, _pe_shared_codec)


def _pe_zygote_warm():
    # The codec's own steps on fixed values of every kind, as a call and
    # its reply cross (only computation: nothing of the process changes),
    # so their bytecode is specialised in the zygote and every program
    # writes fewer of its pages.
    import collections
    c = _pe_shared_codec
    vals = [None, True, 0, -12345678901234567890, 1.5, float("inf"), 2j, "héllo", b"\x00\xff",
            [1, [2, "x"]], (1, (2.5,)), {"k": [1, 2], 3: (4,)}, {1, 2}, frozenset({3}),
            collections.Counter("abca"), collections.OrderedDict([(1, "a")]),
            collections.defaultdict(list, {1: [2]}), collections.deque([1, 2], maxlen=3)]
    for _ in range(12):
        enc = c.Encoder(sign=1)
        msg = {"op": "call", "h": 0, "args": [enc.enc(v) for v in vals], "kw": [["k", enc.enc([7])]]}
        req = c.loads(c.dumps(msg))
        dec = c.Decoder(sign=1)
        args = [dec.dec(a) for a in req["args"]]
        known = {id(v): k for k, v in dec.made.items()}
        back = c.Encoder(known=known, sign=-1)
        upd = [back.contents(v, k) for k, v in dec.made.items()]
        reply = c.loads(c.dumps({"ok": back.enc(args), "upd": upd}))
        res = c.Decoder(known=enc.objs, sign=-1)
        for orig, new in [res.update(u) for u in reply["upd"]]:
            c.apply_update(orig, new)
        res.dec(reply["ok"])


def _pe_zygote_train():
    # In the zygote's training child only (a throwaway process, already
    # in its own sandbox: never in the zygote, never in a program): one
    # program of a HumanEval program's size and shape through both sides'
    # real path, the trusted side in this thread and the candidate in a
    # second one, connected by two pipes as the two processes are. The
    # zygote then copies (and pins) the pages this writes for every
    # program process it forks, so an isolated program's two sides fault
    # on fewer of them. Nothing of it reaches a program: the training
    # child ends right after.
    import os, threading, binascii
    b64 = lambda s: binascii.b2a_base64(s.encode(), newline=False).decode()
    prompt = ("from typing import List, Tuple\n\n\n"
              "def f(xs: List[int], k: int = 2) -> Tuple[int, str]:\n"
              "    \"\"\" Sum the multiples of k in xs.\n"
              "    >>> f([1, 2, 3, 4])\n"
              "    (6, '6')\n"
              "    \"\"\"\n")
    body = ("    total = 0\n"
            "    for x in xs:\n"
            "        if x % k == 0:\n"
            "            total += x\n"
            "    return total, str(total)\n")
    tests = ("\n\nMETADATA = {'author': 'jt', 'dataset': 'test'}\n\n\n"
             "def check(candidate):\n"
             "    assert candidate([1, 2, 3, 4]) == (6, '6')\n"
             "    assert candidate([], 3) != 1, 'empty'\n"
             "    assert candidate([5, 10, 15], 5)[0] == 30\n"
             "    assert candidate([2, 2, 2])[1] == '6'\n"
             "    assert [candidate([x])[0] for x in range(3)] == [0, 0, 2]\n"
             "    assert candidate(list(range(10)), k=2)[0] == 20\n"
             "    assert candidate([-4, -2, 7], 2) == (-6, '-6')\n"
             "    assert True, 'This prints if this assert fails 1 (good for debugging!)'\n"
             "\ncheck(f)")
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    cand = {"fd_in": req_r, "fd_out": rep_w, "idle": 10.0, "source": b64(prompt + body)}
    tst = {"fd_in": rep_r, "fd_out": req_w, "proxy": ["f"], "trusted": b64(prompt), "tests": b64(tests)}

    def serve():
        try:
            candidate({}, cand)
        except BaseException:
            pass
        finally:
            os.close(rep_w)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        trusted({}, tst)
    except BaseException:
        pass
    finally:
        os.close(req_w)
        t.join(10)
        for fd in (req_r, rep_r):
            os.close(fd)
