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
