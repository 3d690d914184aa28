# Makes cases.json: CPython's repr() of values and ast.literal_eval() of
# literals, the behaviour pyvalue must reproduce.
# Run with Debian's CPython: /usr/bin/python3 make_cases.py > cases.json
import ast
import json
import sys

floats = [0.1, 1.0, 1e16, 1e15, 123456789012345678.0, 0.0001, 0.00001, 1.5e-7,
          -2.5, 0.0, -0.0, 3.141592653589793, 1e100, 2.0**53, 1/3, 100.0, 1e22,
          12345.678]
strings = ["plain", "y's", 'z"q', "both ' and \"", "tab\tnew\nret\r", "back\\slash",
           "\x00\x1f\x7f", "caf\u00e9", "\u4e2d\u6587", "\u00a0nbsp", "\u200bzw",
           "\u2028ls", "emoji \U0001F600", "\x85", "\ufeffbom", ""]
values = [[1, "a", None, True, False, 2.5], {"text": ["x", "y's"], "label": ["A", "B"]},
          [[], {}], {"k": {"n": [1.0]}}]

literals = ["['a', 'b']", "[\"y's\", 'z\\\"q']", "['tab\\tx', 'nl\\n', '\\x41\\u4e2d\\U0001F600']",
            "('a', 'b')", "('solo',)", "()", "[]", "{'a': 1, 'b': [2, 3]}", "3", "-7", "+2.5",
            "1e3", "0x1f", "0o17", "0b101", "1_000", "00", "True", "None", "[1, 2.0, -3, None]",
            "'adj' 'acent'", "r'raw\\n'", "u'uni'", "'''tri'ple'''", "[\n 'multi',\n 'line', # c\n]",
            "['unknown \\q escape']", "'\\101\\7'", "(1)", "[1, 2,]", "'\\\n'", "'\\N{BULLET}'"]
bad = ["01", "[1, 2", "'unterminated", "name", "1 2", "f'x'"]
# Valid Python literals pyvalue refuses on purpose (task files do not need them).
refused = ["b'bytes'", "{1, 2}", "1+2j", "2**64", "18446744073709551616"]

out = {
    "float_repr": [[f, repr(f)] for f in floats if f == f],
    "string_repr": [[s, repr(s)] for s in strings],
    "value_repr": [[v, repr(v)] for v in values],
    "literal": [[s, ast.literal_eval(s)] for s in literals],
    "bad_literal": [],
    "refused_literal": refused,
}
for s in bad:
    try:
        ast.literal_eval(s)
    except Exception:
        out["bad_literal"].append(s)
        continue
    sys.exit("expected literal_eval to fail: %r" % s)

def fix(x):
    # JSON has no tuples; literal_eval's tuples compare as lists.
    if isinstance(x, tuple):
        return [fix(i) for i in x]
    if isinstance(x, list):
        return [fix(i) for i in x]
    if isinstance(x, dict):
        return {k: fix(v) for k, v in x.items()}
    return x

out["literal"] = [[s, fix(v)] for s, v in out["literal"]]
json.dump(out, sys.stdout, ensure_ascii=False, indent=1, allow_nan=False)
print()
