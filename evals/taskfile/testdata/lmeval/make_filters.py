# Makes filters.json: what lm-evaluation-harness's own filters (regex,
# take_first, lowercase, uppercase, remove_whitespace, map) return for
# sample responses. Same environment as make_renders.py:
#   PYTHONPATH=/tmp/lmeval-stubs:/tmp/refscore/stubs:/tmp/sacrebleu:/tmp/lmeval \
#     /usr/bin/python3 make_filters.py > filters.json
import json
import sys

from lm_eval.filters import build_filter_ensemble
from lm_eval.api.instance import Instance

PIPELINES = {
    "gsm8k-strict": [["regex", {"regex_pattern": "#### (\\-?[0-9\\.\\,]+)"}], ["take_first", None]],
    "gsm8k-flexible": [["regex", {"group_select": -1, "regex_pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)"}], ["take_first", None]],
    "cot-strict": [["regex", {"regex_pattern": "The answer is (\\-?[0-9\\.\\,]+)."}], ["take_first", None]],
    "bbh-bool": [["regex", {"group_select": 0, "regex_pattern": "\\b(True|False)\\b"}], ["take_first", None]],
    "no-group": [["regex", {"regex_pattern": "[A-D]", "group_select": 0, "fallback": "none"}]],
    "lower-strip": [["lowercase", None], ["remove_whitespace", None], ["take_first", None]],
    "upper": [["uppercase", None]],
    "map": [["remove_whitespace", None], ["map", {"mapping_dict": {"yes": "1", "no": "0"}, "default_value": "-1"}]],
    # Python-only regular expressions (lookaround): bbh/cot_fewshot's
    # get-answer, mmlu/generative's get_response, bbh/cot_zeroshot's
    # flexible alternation, dyck_languages' lookbehind.
    "bbh-cot-fewshot": [["regex", {"regex_pattern": "(?<=the answer is )(.*)(?=.)"}], ["take_first", None]],
    "mmlu-generative": [["regex", {"regex_pattern": "^(.*?)(?=\\n|$)"}], ["remove_whitespace", None], ["regex", {"regex_pattern": "^(.*?)\\s*$"}], ["take_first", None]],
    "bbh-cot-zeroshot": [["regex", {"regex_pattern": "((?<=The answer is )(.*)(?=.)|(?<=the answer is )(.*)(?=.)|(?<=The answer: )(.*)(?=.)|(?<=The final answer: )(.*)(?=.))"}], ["take_first", None]],
    "dyck": [["regex", {"group_select": -1, "regex_pattern": "(?<= )([\" \\[\\(<{}>\\)\\]]+)|([\" \\[\\(<{}>\\)\\]]+)"}], ["take_first", None]],
}
RESPONSES = [
    "Janet sells 16 - 3 - 4 = 9 eggs.\n#### 18",
    "The answer is 1,234.56. Done",
    "So she has $18 left, and 3 more.",
    "no numbers here",
    "It is True that False and True",
    "  Answer: (B) or C  ",
    " YES ",
    "-5 and -6.5 are negative",
    "",
    "Let's think step by step. So the answer is (B).",
    "the answer is True.\nthe answer is False.",
    " B. Because it is.\nNext question",
    "\n\nC",
    "the answer is ",
    "The answer: valid. The final answer: invalid.",
    "答案 the answer is 日本。",
    "So the answer is ) ] >.",
]

out = []
for name, steps in PIPELINES.items():
    ens = build_filter_ensemble(name, steps)
    insts = []
    for i, r in enumerate(RESPONSES):
        inst = Instance(request_type="generate_until", doc={}, arguments=("", {}), idx=0, metadata=("t", i, 1))
        inst.resps = [r]
        insts.append(inst)
    ens.apply(insts)
    for inst, r in zip(insts, RESPONSES):
        got = inst.filtered_resps[name]
        if isinstance(got, list):
            got = got[0]
        out.append({"pipeline": name, "steps": steps, "response": r, "filtered": got})
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
print()
