#!/usr/bin/python3
"""Writes pycase.json: how CPython's str methods treat every code point,
for textstats' Python case predicates (TestPythonCaseTables).

Run with Debian's python3 (3.11, Unicode 14.0), outside the Go build:

    /usr/bin/python3 gen_pycase.py > pycase.json

Ranges are [first, last] inclusive. "upper"/"lower" are the code points c
with c.isupper() / c.islower() (the Uppercase / Lowercase properties),
"title" those of category Lt, "case_ignorable" those that str.lower()
skips when it decides whether a capital sigma ends a word, "lower_map"
every c whose c.lower() is not c, and "unassigned" the code points
Unicode 14.0 does not assign (Go's tables are Unicode 15.0).
"""
import json
import sys
import unicodedata


def ranges(pred):
    out, start = [], None
    for cp in range(0x110000 + 1):
        ok = cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF and pred(chr(cp))
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            out.append([start, cp - 1])
            start = None
    return out


def cased(c):
    return c.isupper() or c.islower() or unicodedata.category(c) == "Lt"


def case_ignorable(c):
    if cased(c):
        # c + "Σ": the sigma is final only if the scan back stops at c.
        return (c + "\u03a3").lower()[-1] == "\u03c3"
    # "AΣ" + c + "B": σ (not final) when the scan forward skips c; ς when
    # c, not cased, stops it.
    return ("A\u03a3" + c + "B").lower()[1] == "\u03c3"


doc = {
    "python": sys.version.split()[0],
    "unicode": unicodedata.unidata_version,
    "upper": ranges(str.isupper),
    "lower": ranges(str.islower),
    "title": ranges(lambda c: unicodedata.category(c) == "Lt"),
    "case_ignorable": ranges(case_ignorable),
    "unassigned": ranges(lambda c: unicodedata.category(c) == "Cn"),
    "lower_map": [[cp, chr(cp).lower()] for cp in range(0x110000)
                  if not 0xD800 <= cp <= 0xDFFF and chr(cp).lower() != chr(cp)],
}
json.dump(doc, sys.stdout, ensure_ascii=False, separators=(",", ":"))
sys.stdout.write("\n")
