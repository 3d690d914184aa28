# Renders every case of corpus.jsonl with jinja2 configured as
# lm-evaluation-harness configures it (lm_eval/utils.py apply_template:
# Environment(loader=BaseLoader(), undefined=StrictUndefined,
# keep_trailing_newline=True) with its regex_replace filter) and prints
# the cases whose recorded output or failure differs. With --write it
# records jinja2's verdict instead, so that the corpus is jinja2's:
#   python3 check_corpus.py [--write] < corpus.jsonl
import json
import re
import sys

from jinja2 import BaseLoader, Environment, StrictUndefined


def regex_replace(string, pattern, repl, count: int = 0):
    return re.sub(pattern, repl, string, count=count)


env = Environment(loader=BaseLoader(), undefined=StrictUndefined, keep_trailing_newline=True)
env.filters["regex_replace"] = regex_replace

write = "--write" in sys.argv[1:]
differ = 0
out = []
for n, line in enumerate(sys.stdin, 1):
    case = json.loads(line)
    doc = json.loads(json.dumps(case["doc"]))
    try:
        got, err = env.from_string(case["template"]).render(**doc), None
    except Exception as e:  # jinja2 fails: syntax, undefined, type errors
        got, err = None, "error"
    if got != case.get("output") or (err is None) != ("error" not in case):
        differ += 1
        print(f"case {n}: {case['template']!r}: recorded {case.get('output', 'error')!r}, jinja2 {got if err is None else err!r}", file=sys.stderr)
    rec = {"template": case["template"], "doc": case["doc"]}
    if err is None:
        rec["output"] = got
    else:
        rec["error"] = err
    out.append(rec)
print(f"{n} cases, {differ} differ from jinja2", file=sys.stderr)
if write:
    for rec in out:
        print(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
