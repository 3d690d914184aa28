#!/usr/bin/python3
"""Writes scoring.json: lm-evaluation-harness's own verdicts (strict-match and
flexible-extract filters, then exact_match with each task's kwargs) on
synthetic responses built around the answer-extraction edge cases
(TestLMEvalScoring).

lm-eval's code is not in this repository. Extract it from a checkout into a
throw-away directory and run with Debian's python3 and python3-numpy,
python3-yaml:

    git -C LM_EVAL archive HEAD lm_eval/api lm_eval/filters lm_eval/tasks/gsm8k \\
        lm_eval/tasks/mgsm/native_cot | tar -x -C /tmp/lmeval
    /usr/bin/python3 gen_scoring.py /tmp/lmeval $POCKETEVAL_DATA LM_EVAL_COMMIT > scoring.json

It runs lm-eval's RegexFilter and TakeFirstFilter (lm_eval/filters) and
exact_match_hf_evaluate (lm_eval/api/metrics.py), configured from the task
yaml files themselves (gsm8k.yaml, gsm8k-cot-llama.yaml,
mgsm/native_cot/*.yaml + cot_yaml). Only sacrebleu (imported by metrics.py,
unused by exact_match) is stubbed. Golds are the datasets' own: GSM8K
test.jsonl "answer" (lm-eval's gsm8k gold is the whole solution, reduced by
regexes_to_ignore; gsm8k_cot_llama's is answer.split('####')[-1].strip()),
MGSM mgsm_en.tsv's answer (the same 250 numbers in every language; lm-eval's
gold is juletxara/mgsm's int answer_number as a string, so the TSV's
"2,125" is "2125").
The golden stores document indices, not golds: the test reads the gold
from the dataset again.
"""
import hashlib
import importlib.util
import json
import os
import sys
import types

import yaml


def load_lmeval(root):
    for name in ("lm_eval", "lm_eval.api", "lm_eval.filters"):
        mod = types.ModuleType(name)
        mod.__path__ = [os.path.join(root, *name.split(".")[0:])]
        sys.modules[name] = mod
    sys.modules["sacrebleu"] = types.ModuleType("sacrebleu")

    def load(name):
        path = os.path.join(root, *name.split(".")) + ".py"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    for name in ("lm_eval.api.instance", "lm_eval.api.registry", "lm_eval.api.filter",
                 "lm_eval.filters.extraction", "lm_eval.filters.selection", "lm_eval.api.metrics"):
        load(name)
    return sys.modules


class Loader(yaml.SafeLoader):
    pass


Loader.add_multi_constructor("!function", lambda loader, suffix, node: None)


def read_yaml(path):
    with open(path, encoding="utf-8") as f:
        cfg = yaml.load(f, Loader=Loader)
    if "include" in cfg:
        base = read_yaml(os.path.join(os.path.dirname(path), cfg.pop("include")))
        base.update(cfg)
        cfg = base
    return cfg


def pipeline(mods, cfg):
    """Filters by name and exact_match kwargs, as the task config says."""
    ext = mods["lm_eval.filters.extraction"]
    sel = mods["lm_eval.filters.selection"]
    filters = {}
    for f in cfg["filter_list"]:
        steps = []
        for step in f["filter"]:
            kw = {k: v for k, v in step.items() if k != "function"}
            if step["function"] == "regex":
                steps.append(ext.RegexFilter(**kw))
            elif step["function"] == "take_first":
                steps.append(sel.TakeFirstFilter())
            else:
                raise ValueError(step["function"])
        filters[f["name"]] = steps
    (metric,) = [m for m in cfg["metric_list"] if m["metric"] == "exact_match"]
    kwargs = {k: v for k, v in metric.items() if k not in ("metric", "aggregation", "higher_is_better")}
    return filters, kwargs


def run(mods, steps, kwargs, response, gold):
    resps = [[response]]
    for s in steps:
        resps = s.apply(resps, [{}])
    (pred,) = list(resps)
    em = mods["lm_eval.api.metrics"].exact_match_hf_evaluate(predictions=[pred], references=[gold], **kwargs)
    return pred, bool(em["exact_match"] == 1.0)


FW = str.maketrans("0123456789.,-", "０１２３４５６７８９．，－")


def comma(t):
    return f"{int(t):,}"


def spaced(t):
    return comma(t).replace(",", " ")


def nbsp(t):
    return comma(t).replace(",", "\u00a0")


def dotted(t):
    return comma(t).replace(",", ".")


# (family, template); {t} is the gold, {d} a distractor, {c}/{s}/{n}/{e}
# the gold with comma/space/no-break-space/dot thousands, {f} full width.
COMMON = [
    ("hash", "Step: {d} + 1.\n#### {t}"),
    ("hash_comma", "#### {c}"),
    ("hash_dollar", "#### ${t}"),
    ("hash_dollar_comma", "So she pays ${c}.\n#### ${c}"),
    ("hash_period", "#### {t}."),
    ("hash_decimal", "#### {t}.00"),
    ("hash_nospace", "####{t}"),
    ("hash_two", "#### {d}\nWait.\n#### {t}"),
    ("hash_then_text", "#### {t}\nThat is {d} more."),
    ("hash_negative", "#### -{t}"),
    ("answer_is", "So {d} apples. The answer is {t}."),
    ("answer_is_dollar_comma", "The answer is ${c}."),
    ("answer_is_two", "The answer is {d}. No: the answer is {t}."),
    ("answer_is_lower", "so the answer is {t}"),
    ("answer_is_percent", "The answer is {t}%."),
    ("answer_is_comma_after", "The answer is {t}, as computed from {d}."),
    ("final", "{d} total. The final answer is {t}"),
    ("final_period", "The final answer is {t}."),
    ("final_colon", "The final answer is: {t}"),
    ("final_bold", "The final answer is **{t}**."),
    ("final_boxed", "The final answer is $\\boxed{{{t}}}$."),
    ("final_two", "The final answer is {d}. Let me recheck. The final answer is {t}."),
    ("final_two_rev", "The final answer is {t}. Let me recheck. The final answer is {d}."),
    ("final_lower", "the final answer is {t}"),
    ("final_units", "The final answer is {t} dollars."),
    ("final_then_number", "The final answer is {t}. That took {d} steps."),
    ("final_negative", "The final answer is -{t}"),
    ("final_unicode_minus", "The final answer is \u2212{t}"),
    ("final_decimal_50", "The final answer is {t}.50"),
    ("final_decimal_5_period", "The final answer is {t}.5."),
    ("final_trailing_zero", "The final answer is {t}.0"),
    ("final_dollar_cents", "The final answer is ${c}.00"),
    ("final_spaces", "The final answer is {s}"),
    ("final_nbsp", "The final answer is {n}"),
    ("final_fullwidth", "The final answer is {f}"),
    ("final_double_space", "The final answer is  {t}"),
    ("final_newline", "The final answer is\n{t}"),
    ("last_vs_first", "{t} is what we get, then add {d}."),
    ("first_vs_last", "First {d}, then {t}."),
    ("no_number", "I cannot solve this problem."),
    ("empty", ""),
    ("bold", "**{t}**"),
    ("answer_colon_bold", "Answer: **{t}**"),
    ("answer_line", "{d} - 1 = {d}\nAnswer: {t}"),
    ("a_line", "{d} - 1 = {d}\nA: {t}"),
    ("boxed", "\\boxed{{{t}}}"),
    ("boxed_then_number", "So $\\boxed{{{t}}}$ is it. Check: {d}/2."),
    ("boxed_comma", "$\\boxed{{{c}}}$"),
    ("units", "She earns {t} dollars a day."),
    ("units_yuan", "一共{t}元"),
    ("fullwidth", "{f}"),
    ("fraction", "The answer is 1/2."),
    ("fraction_gold", "The answer is {t}/1."),
    ("calc_annotation", "{d}*1 = <<{d}*1={d}>>{d}\nThen {t}"),
    ("dash_range", "Between {d}-{t}"),
    ("dollar_end", "Total: ${t}"),
    ("dot_thousands", "The answer is {e}."),
    ("single_digit_period", "The answer is 7."),
    ("think_then_final", "<think>Maybe {d}.</think>\nThe final answer is {t}"),
    ("think_only", "<think>The final answer is {t}</think>"),
    ("think_unclosed", "<think>Maybe {d}. The answer is {t}"),
    ("zh_cue", "所以答案是 {t}。"),
    ("zh_cue_nospace", "所以答案是{t}。"),
    ("zh_cue_noperiod", "所以答案是 {t}"),
    ("zh_cue_comma", "答案是 {c}。"),
    ("zh_cue_fullwidth", "答案是 {f}。"),
    ("zh_cue_colon", "答案是：{t}"),
    ("zh_cue_dollar", "答案是 ${t}。"),
    ("zh_cue_two", "答案是 {d}。不对，答案是 {t}。"),
    ("zh_final", "最终答案是 {t}"),
    ("final_leading_zeros", "The final answer is 00{t}"),
    ("final_plus", "The final answer is +{t}"),
    ("final_exclaim", "The final answer is {t}!"),
    ("final_paren", "The final answer is {t} ({d} before tax)."),
    ("final_comma_trail", "The final answer is {t}, so {d} is wrong"),
    ("final_list", "The final answer is 1,2,{t}."),
    ("final_lead_dot", "The final answer is .{t}"),
    ("hash_equation", "#### {d} - 7 = {t}"),
    ("hash_comma_trail", "#### {t},"),
    ("answer_is_word", "The answer is eighteen, or {t}."),
    ("bold_cue", "**The final answer is {t}**"),
    ("markdown_heading", "### Final Answer\n{t}"),
    ("final_then_answer_is", "The final answer is {t}. So the answer is {d}."),
    ("answer_is_then_final", "The answer is {d}. The final answer is {t}."),
]

# Each MGSM language's strict cue, as its lm-eval regex spells it, with the
# number between {pre} and {post}.
LANG_CUES = {
    "bn": ("The answer is ", ""), "de": ("Die Antwort lautet ", ""), "en": ("The answer is ", ""),
    "es": ("La respuesta es ", ""), "fr": ("La réponse est ", ""), "ja": ("答えは", "です。"),
    "ru": ("Ответ — ", ""), "sw": ("Jibu ni ", ""), "te": ("సమాధానం ", ""), "th": ("คำตอบคือ ", ""),
    "zh": ("答案是 ", "。"),
}

LANG_FORMS = [
    ("lang_cue", "{t}"), ("lang_cue_period", "{t}."), ("lang_cue_comma", "{c}"),
    ("lang_cue_dot_thousands", "{e}"), ("lang_cue_decimal", "{t}.0"), ("lang_cue_negative", "-{t}"),
    ("lang_cue_dollar", "${t}"), ("lang_cue_fullwidth", "{f}"),
]


def fill(tmpl, t, d):
    return tmpl.format(t=t, d=d, c=comma(t), s=spaced(t), n=nbsp(t), e=dotted(t),
                       f=str(t).translate(FW))


def main():
    root, data, commit = sys.argv[1], sys.argv[2], sys.argv[3]
    mods = load_lmeval(root)
    tasks = os.path.join(root, "lm_eval", "tasks")
    configs = {
        "gsm8k": read_yaml(os.path.join(tasks, "gsm8k", "gsm8k.yaml")),
        "gsm8k_cot_llama": read_yaml(os.path.join(tasks, "gsm8k", "gsm8k-cot-llama.yaml")),
    }
    for lang in LANG_CUES:
        configs["mgsm_native_cot_" + lang] = read_yaml(
            os.path.join(tasks, "mgsm", "native_cot", f"mgsm_native_cot_{lang}.yaml"))

    gpath = os.path.join(data, "gsm8k", "test.jsonl")
    mpath = os.path.join(data, "mgsm", "mgsm_en.tsv")
    gsm = [json.loads(l) for l in open(gpath, encoding="utf-8")]
    # The TSV writes 2,125 where juletxara/mgsm's answer_number is the int 2125.
    mgsm = [l.rstrip("\n").split("\t") for l in open(mpath, encoding="utf-8")]
    mgsm = [(q, str(int(a.replace(",", "")))) for q, a in mgsm]

    def gsm_gold(task, i):
        ans = gsm[i]["answer"]
        return ans if task == "gsm8k" else ans.split("####")[-1].strip()

    def final(i):
        return int(gsm[i]["answer"].split("####")[-1].strip().replace(",", ""))

    # Documents: small golds and golds of 4+ digits (thousands separators).
    gsm_docs = [0, 1, 2, 3, 5] + [i for i in range(len(gsm)) if final(i) >= 1000][:5]
    mgsm_docs = [0, 1, 2, 3, 5] + [i for i in range(len(mgsm)) if int(mgsm[i][1]) >= 1000][:3]

    out = []
    for task, cfg in configs.items():
        filters, kwargs = pipeline(mods, cfg)
        mgsm_task = task.startswith("mgsm")
        docs = mgsm_docs if mgsm_task else gsm_docs
        templates = list(COMMON)
        if mgsm_task:
            pre, post = LANG_CUES[task.rsplit("_", 1)[1]]
            templates += [(fam, "Some steps: {d}. " + pre + form + post) for fam, form in LANG_FORMS]
            if not task.endswith(("_en", "_zh")):
                # Other languages: their cue forms and a few common cases.
                templates = [x for x in templates if x[0].startswith("lang_") or x[0] in
                             ("hash", "answer_is", "final", "last_vs_first", "no_number", "boxed", "zh_cue")]
        for i in docs:
            gold = mgsm[i][1] if mgsm_task else gsm_gold(task, i)
            t = int(mgsm[i][1]) if mgsm_task else final(i)
            d = t + 7
            for fam, tmpl in templates:
                resp = fill(tmpl, t, d)
                case = {"task": task, "doc": i, "family": fam, "response": resp}
                for name, steps in filters.items():
                    pred, ok = run(mods, steps, kwargs, resp, gold)
                    case[name] = {"extracted": pred, "exact_match": ok}
                out.append(case)

    h = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
    doc = {
        "lm_eval_commit": commit,
        "generator": "evals/math/testdata/lmeval/gen_scoring.py",
        "gsm8k_test_sha256": h(gpath),
        "mgsm_en_sha256": h(mpath),
        "exact_match_kwargs": {t: pipeline(mods, c)[1] for t, c in configs.items()},
        "cases": out,
    }
    # One case a line, so that a regenerated file diffs by case.
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write(text.replace(',{"task":', ',\n{"task":') + "\n")


if __name__ == "__main__":
    main()
