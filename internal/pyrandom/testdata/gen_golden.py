#!/usr/bin/python3
"""Writes cpython_random.json: outputs of CPython's random.Random for
pyrandom's tests.

Run with Debian's python3 (3.11) and python3-mpmath, outside the Go build:

    /usr/bin/python3 gen_golden.py > cpython_random.json

gauss() calls cos, sin and log through the random module; they are
replaced by correctly rounded versions (mpmath at 200 bits), which is what
pyrandom implements, so that the file does not depend on this machine's
libm. Everything else is CPython's own code.
"""
import hashlib
import math
import json
import random
import struct
import sys

import mpmath

mpmath.mp.prec = 200
random._cos = lambda x: float(mpmath.cos(mpmath.mpf(x)))
random._sin = lambda x: float(mpmath.sin(mpmath.mpf(x)))
random._log = lambda x: float(mpmath.log(mpmath.mpf(x)))

SEEDS = [0, 1, 2, 42, 12345, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1]


def mixed(seed):
    """A fixed script of calls; each result as [op, arg, value]."""
    r = random.Random(seed)
    out = []
    for i in range(600):
        op = i % 6
        if op == 0:
            out.append(["random", 0, r.random()])
        elif op == 1:
            k = 1 + (i * 7) % 64
            out.append(["getrandbits", k, str(r.getrandbits(k))])
        elif op == 2:
            n = 1 + (i * 7919) % 40000
            out.append(["randbelow", n, r._randbelow(n)])
        elif op == 3:
            n = 1 + (i * 104729) % 3000
            out.append(["choice", n, r.choice(range(n))])
        elif op == 4:
            out.append(["gauss", 0, r.gauss(0.0, 1.0)])
        else:
            # Reseeding forgets a cached gauss value.
            if i % 12 == 5:
                r.gauss(0.0, 1.0)
                s = (seed + i) % 2**64
                r.seed(s)
                out.append(["reseed_gauss", s, r.gauss(0.0, 1.0)])
            else:
                out.append(["gauss", 0, r.gauss(0.0, 1.0)])
    return out


def long_hash(seed, count):
    r = random.Random(seed)
    h = hashlib.sha256()
    for _ in range(count):
        h.update(struct.pack("<I", r.getrandbits(32)))
    return h.hexdigest()


def long_float_hash(seed, count):
    r = random.Random(seed)
    h = hashlib.sha256()
    for _ in range(count):
        h.update(struct.pack("<d", r.random()))
    return h.hexdigest()


def near_midpoint(v):
    """How close the exact value v is to halfway between two doubles, as
    |frac - 0.5| where frac is v's position between its neighbours."""
    f = float(v)
    lo = f if mpmath.mpf(f) <= v else math.nextafter(f, -math.inf)
    hi = math.nextafter(lo, math.inf)
    frac = (v - lo) / (mpmath.mpf(hi) - lo)
    return abs(float(frac) - 0.5)


def crmath_cases():
    """Correctly rounded cos, sin, log on gauss's domains: plain random
    arguments and, from 200,000 more, those whose exact value lies within
    1/1000 ulp of a rounding midpoint (where a libm is most often wrong)."""
    r = random.Random(2024)
    out = []
    fns = {"cos": mpmath.cos, "sin": mpmath.sin, "log": mpmath.log}
    for i in range(200000):
        x = r.random() * random.TWOPI
        y = 1.0 - r.random()
        for name, arg in (("cos", x), ("sin", x), ("log", y)):
            v = fns[name](mpmath.mpf(arg))
            if i < 500 or near_midpoint(v) < 0.001:
                out.append([name, arg, float(v)])
    for arg in [2.0**-53, 2.0**-52 * 3, 0.5, math.sqrt(0.5), 1.0 - 2.0**-53, 0.9999999]:
        out.append(["log", arg, float(mpmath.log(mpmath.mpf(arg)))])
    for k in range(1, 5):
        base = k * math.pi / 2
        for arg in [base, math.nextafter(base, 0), math.nextafter(base, 7)]:
            out.append(["cos", arg, float(mpmath.cos(mpmath.mpf(arg)))])
            out.append(["sin", arg, float(mpmath.sin(mpmath.mpf(arg)))])
    return out


def main():
    doc = {
        "python": sys.version.split()[0],
        "cases": [{"seed": str(s), "calls": mixed(s)} for s in SEEDS],
        "uint32_sha256": [{"seed": str(s), "count": 1000000, "sha256": long_hash(s, 1000000)} for s in SEEDS[:4]],
        "crmath": crmath_cases(),
        "random_sha256": [{"seed": str(s), "count": 300000, "sha256": long_float_hash(s, 300000)} for s in SEEDS[:3]],
    }
    json.dump(doc, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


main()
