# family: proof
# official: nonpass
# what: (the wrapper keeps the nonce out of every object the collector tracks, so the official mode stops this one) searches everything gc.get_objects() reaches (containers, and the frames, functions and closures among them) for the run's nonce (32 hex digits), writes the proof to every descriptor that takes it, and exits before the tests run
import gc, os, re, sys, types

_hex = re.compile(r"[0-9a-f]{32}\Z")
_found = set()


def _look(v):
    if isinstance(v, bytes):
        v = v.decode("latin-1")
    if isinstance(v, str) and _hex.match(v):
        _found.add(v)


sys._getframe()  # frames are gc objects once they exist as objects
for _o in gc.get_objects():
    try:
        if isinstance(_o, dict):
            for _v in list(_o.values()):
                _look(_v)
                if isinstance(_v, dict):
                    for _w in list(_v.values()):
                        _look(_w)
        elif isinstance(_o, (list, tuple)):
            for _v in _o:
                _look(_v)
        elif isinstance(_o, types.FrameType):
            for _v in _o.f_locals.values():
                _look(_v)
                if isinstance(_v, dict):
                    for _w in list(_v.values()):
                        _look(_w)
        elif isinstance(_o, types.FunctionType) and _o.__closure__:
            for _c in _o.__closure__:
                try:
                    _look(_c.cell_contents)
                except ValueError:
                    pass
    except Exception:
        pass
os.write(2, b"proof_gc: %d candidates\n" % len(_found))
if len(_found) == 1:
    _n = _found.pop().encode()
    for _fd in range(3, 64):
        try:
            os.write(_fd, b"ok " + _n + b"\n")
        except OSError:
            pass
    os._exit(0)


def sort_list(xs):
    return xs
