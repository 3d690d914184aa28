# Makes brier.json: lm-evaluation-harness's brier_score aggregation and
# softmax, taken from its own source with ast (lm_eval/api/metrics.py
# brier_score, lm_eval/utils.py softmax) and run with Debian's numpy.
# Run: /usr/bin/python3 make_brier.py <lm-evaluation-harness checkout> > brier.json
import ast
import json
import sys

import numpy as np


def load(path, name):
    tree = ast.parse(open(path).read())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    fn.decorator_list = []
    ns = {"np": np}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), path, "exec"), ns)
    return ns[name]


brier_score = load(sys.argv[1] + "/lm_eval/api/metrics.py", "brier_score")
softmax = load(sys.argv[1] + "/lm_eval/utils.py", "softmax")

samples = [
    ([-1.2, -3.4, -0.5, -7.0], 2),
    ([-1.2, -3.4, -0.5, -7.0], 0),
    ([-10.0, -10.0], 1),
    ([-0.1, -2.3, -4.5], 1),
    ([-250.0, -251.5, -249.0, -260.0], 3),
]
# lm-eval aggregates one array, so the mean is over the 4-candidate samples.
items = [(gold, softmax(np.array(lls))) for lls, gold in samples if len(lls) == 4]
out = {
    "samples": [{"lls": lls, "gold": g, "probs": [float(p) for p in softmax(np.array(lls))],
                 "brier": float(brier_score([(g, softmax(np.array(lls)))]))} for lls, g in samples],
    "mean_brier_4": float(brier_score(items)),
}
json.dump(out, sys.stdout, indent=1)
print()
