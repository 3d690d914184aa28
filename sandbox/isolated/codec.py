# pocketeval isolated verdicts: the plain-data codec shared by the trusted
# (tests) process and the candidate process. See docs/sandbox.md.
#
# Values cross as JSON: null, true, false and strings stand for themselves;
# everything else is a list whose first item is a tag:
#   ["i", hex]            int (hex digits, "-" for negatives: no decimal
#                         conversion limit, exact)
#   ["f", hex]            float (float.hex: exact, inf and nan included)
#   ["c", hex, hex]       complex
#   ["b", hex]            bytes
#   ["t", [v...]]         tuple
#   ["z", [v...]]         frozenset
#   ["l", id, [v...]]     list
#   ["d", id, [[k, v]...]] dict
#   ["s", id, [v...]]     set
#   ["r", id]             the container with that id
# and the standard library's value types, rebuilt by the receiver from
# plain data (so only the standard library's own __eq__ ever runs):
#   ["C", id, [[k, v]...]]        collections.Counter
#   ["O", id, [[k, v]...]]        collections.OrderedDict
#   ["y", id, factory, [[k, v]...]] collections.defaultdict (factory: null
#                                 or the name of a builtin type)
#   ["q", id, maxlen, [v...]]     collections.deque
#   ["Q", hex, hex]               fractions.Fraction
#   ["D", str]                    decimal.Decimal
# Only these exact types cross (no subclasses). Mutable containers carry an
# id so that aliasing survives the trip and the candidate's mutations of
# its arguments can be written back into the caller's own objects: the
# trusted side numbers its containers 1, 2, ...; the candidate numbers new
# ones -1, -2, ... and refers to the caller's by their number.
#
# Frames on the pipes are a 4-byte big-endian length and that many bytes of
# UTF-8 JSON. The decoder never evaluates anything: it builds the tagged
# builtin values and rejects everything else, past MAX_DEPTH nested
# containers, past MAX_NODES values or past MAX_FRAME bytes.


def _pe_codec():
    import json, os, re, sys, collections

    MAX_FRAME = 64 << 20
    MAX_DEPTH = 100
    MAX_NODES = 2000000
    MAX_INT_HEX = 1 << 18
    int_re = re.compile(r"-?[0-9a-f]+\Z")
    _type, _id, _len = type, id, len
    Counter, OrderedDict = collections.Counter, collections.OrderedDict
    defaultdict, deque = collections.defaultdict, collections.deque
    modules = sys.modules

    # fractions and decimal are imported when the first Fraction or
    # Decimal is to be decoded (most programs never send one: importing
    # them would cost every process some milliseconds). A value can only
    # be one of them once its module is imported, so the encoder looks
    # them up in sys.modules.
    def number_type(module, name):
        m = modules.get(module)
        return getattr(m, name, None) if m is not None else None

    def Fraction(n, d):
        import fractions
        return fractions.Fraction(n, d)

    def Decimal(s):
        import decimal
        return decimal.Decimal(s)
    # Mutable containers: tag -> type, and whether they hold pairs.
    MUTABLE = {"l": list, "d": dict, "s": set, "C": Counter, "O": OrderedDict, "y": defaultdict, "q": deque}
    TAG = {t: k for k, t in MUTABLE.items()}
    PAIRS = {"d", "C", "O", "y"}
    FACTORIES = {t.__name__: t for t in (int, float, complex, str, bytes, bool, list, tuple, dict, set, frozenset)}

    class NotPlainData(BaseException):
        """A value that is not plain data was to cross between the processes."""

    class BadFrame(Exception):
        """A frame that does not follow the protocol."""

    # Tracebacks name them plainly (they are defined inside a function,
    # maybe of a module the zygote holds).
    for k in (NotPlainData, BadFrame):
        k.__qualname__, k.__module__ = k.__name__, "builtins"
    del k

    def describe(v):
        t = _type(v)
        try:
            name = t.__qualname__
        except BaseException:
            name = "object"
        for base in (bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset):
            if t is not base and isinstance(v, base):
                return "%s (a subclass of %s)" % (name, base.__name__)
        return name

    class Encoder:
        # known: id(obj) -> wire id of containers the receiver already
        # holds (always sent as references). New containers get ids
        # sign*1, sign*2, ...
        def __init__(self, known=None, sign=1):
            self.known = known or {}
            self.seen = {}
            self.objs = {}
            self.hold = []
            self.next = 1
            self.sign = sign

        def new_id(self, v):
            wid = self.sign * self.next
            self.next += 1
            self.seen[_id(v)] = wid
            self.objs[wid] = v
            self.hold.append(v)
            return wid

        def enc(self, v, depth=0):
            t = _type(v)
            if v is None or t is bool or t is str:
                return v
            if t is int:
                return ["i", format(v, "x")]
            if t is float:
                return ["f", v.hex()]
            if t is complex:
                return ["c", v.real.hex(), v.imag.hex()]
            if t is bytes:
                return ["b", v.hex()]
            if t in TAG:
                k = _id(v)
                if k in self.known:
                    return ["r", self.known[k]]
                if k in self.seen:
                    return ["r", self.seen[k]]
                if depth >= MAX_DEPTH:
                    raise NotPlainData("nested deeper than %d containers" % MAX_DEPTH)
                return self.contents(v, self.new_id(v), depth)
            if t is tuple or t is frozenset:
                if depth >= MAX_DEPTH:
                    raise NotPlainData("nested deeper than %d containers" % MAX_DEPTH)
                return ["t" if t is tuple else "z", [self.enc(x, depth + 1) for x in v]]
            if t is number_type("fractions", "Fraction"):
                return ["Q", format(v.numerator, "x"), format(v.denominator, "x")]
            if t is number_type("decimal", "Decimal"):
                return ["D", str(v)]
            raise NotPlainData(describe(v))

        def contents(self, v, wid, depth=0):
            tag = TAG[_type(v)]
            if tag in PAIRS:
                body = [[self.enc(a, depth + 1), self.enc(b, depth + 1)] for a, b in v.items()]
            else:
                body = [self.enc(x, depth + 1) for x in v]
            if tag == "y":
                f = v.default_factory
                if f is not None and FACTORIES.get(getattr(f, "__name__", None)) is not f:
                    raise NotPlainData("defaultdict whose default_factory is not a builtin type")
                return [tag, wid, None if f is None else f.__name__, body]
            if tag == "q":
                return [tag, wid, v.maxlen, body]
            return [tag, wid, body]

    class Decoder:
        # known: wire id -> container this side already holds; new
        # containers must carry ids of the given sign and be defined once.
        def __init__(self, known=None, sign=1):
            self.known = known or {}
            self.made = {}
            self.sign = sign
            self.nodes = 0

        def bad(self, why):
            raise BadFrame(why)

        def wid(self, x):
            if _type(x) is not int or x == 0 or (x > 0) != (self.sign > 0):
                self.bad("bad container id %r" % (x,))
            if x in self.made or x in self.known:
                self.bad("container id %d defined twice" % x)
            return x

        def items(self, x):
            if _type(x) is not list:
                self.bad("container items are not a list")
            return x

        def hexstr(self, x, limit):
            if _type(x) is not str or _len(x) > limit:
                self.bad("bad hex field")
            return x

        def dec(self, x, depth=0):
            self.nodes += 1
            if self.nodes > MAX_NODES:
                raise NotPlainData("more than %d values" % MAX_NODES)
            if x is None or x is True or x is False or _type(x) is str:
                return x
            if _type(x) is not list or not x or _type(x[0]) is not str:
                self.bad("untagged value of type %s" % _type(x).__name__)
            tag, n = x[0], _len(x)
            if tag == "i" and n == 2:
                s = self.hexstr(x[1], MAX_INT_HEX)
                if not int_re.match(s):
                    self.bad("bad int")
                return int(s, 16)
            if tag == "f" and n == 2:
                return float.fromhex(self.hexstr(x[1], 64))
            if tag == "c" and n == 3:
                return complex(float.fromhex(self.hexstr(x[1], 64)), float.fromhex(self.hexstr(x[2], 64)))
            if tag == "b" and n == 2:
                return bytes.fromhex(self.hexstr(x[1], MAX_FRAME))
            if tag == "r" and n == 2:
                k = x[1]
                if _type(k) is int and k in self.made:
                    return self.made[k]
                if _type(k) is int and k in self.known:
                    return self.known[k]
                self.bad("reference to unknown container %r" % (k,))
            if depth >= MAX_DEPTH:
                raise NotPlainData("nested deeper than %d containers" % MAX_DEPTH)
            if tag == "Q" and n == 3:
                num, den = self.hexstr(x[1], MAX_INT_HEX), self.hexstr(x[2], MAX_INT_HEX)
                if not int_re.match(num) or not int_re.match(den) or den.startswith("-") or not int(den, 16):
                    self.bad("bad fraction")
                return Fraction(int(num, 16), int(den, 16))
            if tag == "D" and n == 2:
                try:
                    return Decimal(self.hexstr(x[1], 1000))
                except (ArithmeticError, ValueError):
                    self.bad("bad decimal")
            if depth >= MAX_DEPTH:
                raise NotPlainData("nested deeper than %d containers" % MAX_DEPTH)
            if tag in ("t", "z") and n == 2:
                vals = [self.dec(v, depth + 1) for v in self.items(x[1])]
                return tuple(vals) if tag == "t" else frozenset(vals)
            if tag in MUTABLE and n >= 3:
                k = self.wid(x[1])
                obj = self.empty(x)
                self.made[k] = obj
                self.fill(obj, tag, x[-1], depth)
                return obj
            self.bad("unknown tag %r" % (tag,))

        def empty(self, x):
            # A new, empty container of x's kind.
            tag, n = x[0], _len(x)
            if tag in ("y", "q"):
                if n != 4:
                    self.bad("bad %s" % tag)
                if tag == "q":
                    if x[2] is not None and (_type(x[2]) is not int or x[2] < 0):
                        self.bad("bad deque maxlen")
                    return deque(maxlen=x[2])
                if x[2] is not None and x[2] not in FACTORIES:
                    self.bad("bad defaultdict factory")
                return defaultdict(None if x[2] is None else FACTORIES[x[2]])
            if n != 3:
                self.bad("bad %s" % tag)
            return MUTABLE[tag]()

        def fill(self, obj, tag, raw, depth):
            raw = self.items(raw)
            if tag in PAIRS:
                for pair in raw:
                    if _type(pair) is not list or _len(pair) != 2:
                        self.bad("bad dict item")
                    key = self.dec(pair[0], depth + 1)
                    obj[key] = self.dec(pair[1], depth + 1)
            elif tag == "s":
                for v in raw:
                    obj.add(self.dec(v, depth + 1))
            else:
                obj.extend(self.dec(v, depth + 1) for v in raw)

        def update(self, x):
            # [tag, id, ..., items] for a container of self.known: its new
            # contents, decoded into a fresh object (applied later).
            if _type(x) is not list or _len(x) < 3 or x[0] not in MUTABLE:
                self.bad("bad update")
            k = x[1]
            if _type(k) is not int or k not in self.known:
                self.bad("update of unknown container %r" % (k,))
            orig = self.known[k]
            if x[0] != TAG[_type(orig)]:
                self.bad("update changes the type of container %d" % k)
            obj = self.empty(x)
            self.fill(obj, x[0], x[-1], 0)
            return orig, obj

    def apply_update(orig, new):
        # In place, so the caller's references see the change.
        t = _type(orig)
        if t is list:
            orig[:] = new
        elif t is set:
            orig.clear()
            orig.update(new)
        elif t is deque:
            orig.clear()
            orig.extend(new)
        else:
            orig.clear()
            for k, v in new.items():
                orig[k] = v

    # One encoder and one decoder for every frame (json.dumps and
    # json.loads with options build a new one per call); the same
    # options, so the same bytes and the same values.
    encode = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), check_circular=False).encode

    def dumps(msg):
        return encode(msg).encode("ascii")

    def reject_constant(name):
        raise BadFrame("JSON constant %s" % name)

    decode = json.JSONDecoder(parse_constant=reject_constant).decode

    def loads(data):
        try:
            text = data.decode("utf-8")
            # json.loads refuses a leading byte order mark with its own message.
            msg = decode(text) if text[:1] != "\ufeff" else json.loads(text, parse_constant=reject_constant)
        except (ValueError, RecursionError, UnicodeDecodeError) as e:
            raise BadFrame("not JSON: %s" % (e,))
        if _type(msg) is not dict:
            raise BadFrame("a frame is not an object")
        return msg

    def write_frame(fd, msg):
        data = dumps(msg)
        buf = memoryview(_len(data).to_bytes(4, "big") + data)
        while buf:
            n = os.write(fd, buf)
            buf = buf[n:]

    def read_exact(fd, n):
        chunks, left = [], n
        while left:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                return None
            chunks.append(b)
            left -= _len(b)
        return b"".join(chunks)

    def read_frame(fd):
        """The next message, or None at end of file before a frame starts."""
        head = read_exact(fd, 4)
        if head is None:
            return None
        n = int.from_bytes(head, "big")
        if n > MAX_FRAME:
            raise BadFrame("frame of %d bytes (limit %d)" % (n, MAX_FRAME))
        data = read_exact(fd, n)
        if data is None:
            raise BadFrame("end of file inside a frame")
        return loads(data)

    def ignore_sigpipe():
        # Each side ignores SIGPIPE (a write to a pipe whose reader is gone
        # raises instead), through _signal: signal.signal converts its
        # result to an enum, a measurable part of a fresh process's cost.
        try:
            import _signal
            _signal.signal(_signal.SIGPIPE, _signal.SIG_IGN)
        except ImportError:
            import signal
            try:
                signal.signal(signal.SIGPIPE, signal.SIG_IGN)
            except (ValueError, OSError):
                pass
        except (ValueError, OSError):
            pass

    class Codec:
        pass

    c = Codec()
    for name, v in list(locals().items()):
        if not name.startswith("_") and name not in ("c", "Codec", "json", "os", "re", "sys", "modules", "encode", "decode"):
            setattr(c, name, v)
    return c
