# family: isolation
# official: nonpass
# what: looks for state an earlier program left in the warm pool (files in /tmp, /dev/shm and /scratch, System V shared memory, an abstract socket, a daemon, a changed module) and returns the right answer only if it finds some; then plants all of it for the programs after it
import ctypes, json, os, socket, sys, time

_libc = ctypes.CDLL(None, use_errno=True)
_found = []
for _d in ("/tmp", "/dev/shm", "/scratch", "/root", "/"):
    try:
        if "pocketeval-planted" in os.listdir(_d):
            _found.append(_d)
    except OSError:
        pass
if _libc.shmget(0x5eed5, 4096, 0) >= 0:
    _found.append("shm")
try:
    _s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    _s.connect("\0pocketeval-planted")
    _found.append("abstract socket")
except OSError:
    pass
if getattr(json, "pocketeval_planted", False):
    _found.append("module")
_pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) > 2]
if _pids:
    _found.append("processes %s" % _pids)

for _d in ("/tmp", "/dev/shm", "/scratch"):
    try:
        with open(os.path.join(_d, "pocketeval-planted"), "w") as _f:
            _f.write("x")
    except OSError:
        pass
_libc.shmget(0x5eed5, 4096, 0o1666)
json.pocketeval_planted = True
try:
    if _libc.fork() == 0:
        _libc.setsid()
        _srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _srv.bind("\0pocketeval-planted")
        _srv.listen(8)
        time.sleep(600)
        _libc._exit(0)
except OSError:
    pass


def sort_list(xs):
    return sorted(xs) if _found else list(reversed(xs))
