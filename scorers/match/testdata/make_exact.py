# Makes exact.json: lm-evaluation-harness's exact_match verdicts.
# The function exact_match_hf_evaluate is taken from the harness's own
# source (lm_eval/api/metrics.py) with ast and executed as is, with numpy
# from Debian (python3-numpy); importing lm_eval itself would pull in
# torch, datasets and evaluate.
# Run: /usr/bin/python3 make_exact.py <lm-evaluation-harness checkout> > exact.json
import ast
import json
import re
import string
import sys

import numpy as np

src = open(sys.argv[1] + "/lm_eval/api/metrics.py").read()
fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "exact_match_hf_evaluate")
ns = {"np": np, "re": re, "string": string}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "metrics.py", "exec"), ns)
exact = ns["exact_match_hf_evaluate"]

gsm8k = [",", "\\$", "(?s).*#### ", "\\.$"]
bbh = ["\\.$", ",", "\n", "\\\\", '"']
cases = [
    ("72", "72", {}),
    ("72", "72.", {}),
    ("72.", "72", {"regexes_to_ignore": gsm8k}),
    ("$1,000", "Janet earns\n#### 1000", {"regexes_to_ignore": gsm8k, "ignore_case": True}),
    ("The answer is 5", "5", {"regexes_to_ignore": gsm8k}),
    ("True", "true", {}),
    ("True", "true", {"ignore_case": True}),
    ("(A)", "A", {"ignore_punctuation": True}),
    ("«A»", "A", {"ignore_punctuation": True}),
    ("abc123", "abc", {"ignore_numbers": True}),
    ("Yes.", "yes", {"regexes_to_ignore": bbh, "ignore_case": True}),
    ('"valid"', "valid", {"regexes_to_ignore": bbh}),
    ("ÉCOLE", "école", {"ignore_case": True}),
    ("北京", "北京。", {"ignore_punctuation": True}),
    ("北京", "北京。", {}),
    ("", "", {}),
]
out = []
for pred, ref, kw in cases:
    out.append({"prediction": pred, "reference": ref, "kwargs": kw,
                "exact_match": float(exact(predictions=[pred], references=[ref], **kw)["exact_match"])})
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
print()
