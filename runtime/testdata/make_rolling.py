# Makes rolling_windows.json: the windows lm-evaluation-harness's own
# utils.get_rolling_token_windows and utils.make_disjoint_window give for
# token lists of many lengths and model lengths (context_len=1, as every
# lm-eval model's loglikelihood_rolling calls them), so that
# runtime.RollingWindows can be compared with them exactly.
#
# Usage: python3 make_rolling.py LM_EVAL_CHECKOUT > rolling_windows.json
# (made with EleutherAI/lm-evaluation-harness @ 4e7e0d47f33b, version
# 0.4.13.dev0, Debian bookworm python3 3.11). The two functions are read
# from the checkout's lm_eval/utils.py and run as they are; nothing else
# of the harness is imported.
import ast
import json
import sys

src = open(sys.argv[1] + "/lm_eval/utils.py", encoding="utf-8").read()
tree = ast.parse(src)
wanted = {"get_rolling_token_windows", "make_disjoint_window"}
mod = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted], type_ignores=[])
ns = {}
exec(compile("from typing import Generator\n", "<typing>", "exec"), ns)
exec(compile(mod, "lm_eval/utils.py", "exec"), ns)
assert wanted <= ns.keys()

cases = []
for n in [0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100]:
    for max_len in [1, 2, 3, 4, 8, 16]:
        tokens = list(range(10, 10 + n))
        windows = list(map(ns["make_disjoint_window"], ns["get_rolling_token_windows"](
            token_list=tokens, prefix_token=1, max_seq_len=max_len, context_len=1)))
        cases.append({"n": n, "max_len": max_len, "prefix": 1,
                      "windows": [{"context": list(a), "continuation": list(b)} for a, b in windows]})
json.dump({"lm_eval_commit": "4e7e0d47f33bc71070c1d38394bafbb52b117163", "cases": cases}, sys.stdout, indent=None)
sys.stdout.write("\n")
