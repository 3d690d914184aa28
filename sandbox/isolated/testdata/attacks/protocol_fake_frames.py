# family: protocol
# official: nonpass
# what: writes forged proof lines and protocol frames to stdout, stderr and its proof pipe, and extra frames on its reply pipe (a fake ready, a names answer binding the function to a value, replies for calls not yet made), to desynchronise the tests' process
import json, os


def _frame(msg):
    data = json.dumps(msg).encode()
    return len(data).to_bytes(4, "big") + data


_fake = [{"ready": True}, {"names": [["sort_list", "value", ["l", -1, []]]]},
         {"ok": None, "upd": []}, {"ok": True, "upd": []}, {"raise": ["SystemExit", "SystemExit", "0"]}]
for _fd in (1, 2, 4, 6):
    for _m in _fake:
        try:
            os.write(_fd, b"ok " + b"0" * 32 + b"\n" + _frame(_m))
        except OSError:
            pass


def sort_list(xs):
    for _m in _fake:
        try:
            os.write(6, _frame(_m))
        except OSError:
            pass
    return None
