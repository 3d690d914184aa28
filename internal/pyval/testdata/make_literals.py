"""Writes literals.json: Python literals and what CPython makes of them.

Run with /usr/bin/python3 from this directory. Each case is the source of
one string or number literal and either the value (strings as their
code points, numbers as repr and type) or "error".
"""
import ast, json, sys, unicodedata, warnings

warnings.simplefilter("ignore")

STRINGS = [
    r"'plain'", r'"double"', r"'it\'s'", r"'a\nb\tc\rd'", r"'\a\b\f\v'",
    r"'\x41\x7f'", r"'\u00e9\u4e2d'", r"'\U0001F600'", r"'\101\0\7\777'",
    r"'\N{LATIN SMALL LETTER E WITH ACUTE}'", r"'\N{latin small letter a}'",
    r"'\N{CJK UNIFIED IDEOGRAPH-4E2D}'", r"'\N{HANGUL SYLLABLE GAG}'",
    r"'\N{HANGUL SYLLABLE GGWAELH}'", r"'\N{BULLET}\N{EM DASH}'",
    r"'\N{NO SUCH NAME}'", r"'\N{BULLET'", r"'\N'", r"'\q\d'", r"'\x4'",
    r"'\u12'", r"'\U00110000'", r"'''a'b\nc'''", r'"""x""y"""',
    r"'a\
b'", r"r'\n\''", r"R'\N{BULLET}'", r"b'\x80\101\u1234'", r"b'\N{BULLET}'",
    r"rb'\x41'", r"'unterminated", "'line\nbreak'", r"'caf\xe9'", r"'€'",
]
NUMBERS = [
    "0", "7", "00", "1_000", "0x_1F", "0XfF", "0o17", "0b1010", "0b_1",
    "1.5", "1.", ".5", "1e3", "1E-3", "1_0.2_5e1_0", "3j", "1.5J", "1e3j",
    "9223372036854775807", "9223372036854775808", "123456789012345678901234567890",
    "0x7fffffffffffffffff", "1e400", "012", "1__0", "1_", "0x", "0b2", "1e",
]

def value(src):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = ast.literal_eval(src)
    except Exception:
        return "error"
    if isinstance(v, str):
        return {"str": [ord(c) for c in v]}
    if isinstance(v, bytes):
        return {"bytes": list(v)}
    return {"repr": repr(v), "type": type(v).__name__}

out = {"python": sys.version.split()[0], "unidata": unicodedata.unidata_version,
       "strings": [{"src": s, "want": value(s)} for s in STRINGS],
       "numbers": [{"src": s, "want": value(s)} for s in NUMBERS]}
with open("literals.json", "w") as f:
    f.write('{"python": %s, "unidata": %s,\n' % (json.dumps(out["python"]), json.dumps(out["unidata"])))
    for key in ("strings", "numbers"):
        f.write(' "%s": [\n' % key)
        f.write(",\n".join("  " + json.dumps(c) for c in out[key]))
        f.write("\n ]%s\n" % ("," if key == "strings" else "}"))
