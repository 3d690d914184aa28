# Makes golden/<task>.json: the requests lm-evaluation-harness itself builds
# for real task files, zero-shot and few-shot, so that pocketeval's
# renders can be compared with them byte for byte.
#
# How the goldens in this directory were made (outside the repository):
#   1. lm-evaluation-harness source: `fetch github:EleutherAI/lm-evaluation-harness`
#      cloned to /tmp/lmeval, commit 4e7e0d47f33bc71070c1d38394bafbb52b117163
#      (version 0.4.13.dev0). tasks/ here are verbatim copies of its task files.
#   2. Python: Debian bookworm /usr/bin/python3 (3.11.2) with python3-jinja2
#      3.1.2, python3-yaml 6.0, python3-numpy, python3-tqdm; PyPI is not
#      reachable, so imports that prompt building does not use are stubbed in
#      /tmp/lmeval-stubs:
#        - datasets.py: load_dataset(path, name) reads
#          $LMEVAL_DATA_ROOT/<path>/[<name>/]<split>.jsonl into lists of dicts
#          with a `features` mapping (the fields in order of first appearance);
#        - dill.py, requests.py: empty modules (request caching and HTTP are
#          not used);
#        - lm_eval-0.4.13.dev0.dist-info/METADATA: so that
#          importlib.metadata.version("lm_eval") works from a source tree;
#      and sacrebleu (imported by lm_eval.api.metrics) comes from a clone of
#      mjpost/sacrebleu @ f615c7286d4d with the stubs described in
#      scorers/textsim/testdata/make_golden.py.
#   3. The data root: `go test ./evals/taskfile -run TestWriteLMEvalData
#      -lmeval-data=/tmp/lmeval-data` writes data/ (hand-written splits) and
#      converted excerpts of the shared datasets (ARC-Challenge, GSM8K, MMLU
#      anatomy, BBH boolean_expressions, MGSM zh) in the Hugging Face schema.
#   4. LMEVAL_DATA_ROOT=/tmp/lmeval-data \
#      PYTHONPATH=/tmp/lmeval-stubs:/tmp/refscore/stubs:/tmp/sacrebleu:/tmp/lmeval \
#      /usr/bin/python3 make_renders.py /tmp/lmeval golden/
#
# Each task is built as lm-eval's TaskFactory builds it (load_yaml with
# includes, tag/group/task_list removed, ConfigurableTask), num_fewshot is
# overridden as simple_evaluate overrides it (never when the file sets 0),
# the few-shot seed is 1234 (lm-eval's default fewshot_random_seed), and
# build_all_requests(limit=N) makes the requests of the first N documents.
import copy
import json
import os
import sys

from lm_eval.api.task import ConfigurableTask
from lm_eval.tasks._yaml_loader import load_yaml

CASES = [
    # yaml, limit, few-shot k (None: only the file's own setting)
    ("arc/arc_challenge.yaml", 8, 3),
    ("gsm8k/gsm8k.yaml", 8, 0),             # the file's num_fewshot: 5, and zero-shot
    ("gsm8k/gsm8k-cot.yaml", 4, None),      # 8 inline first_n samples
    ("mmlu/default/mmlu_anatomy.yaml", 8, 5),
    ("swag/swag.yaml", 6, 2),
    ("piqa/piqa.yaml", 6, 2),
    ("sciq/sciq.yaml", 4, 2),
    ("openbookqa/openbookqa.yaml", 4, 2),
    ("bbh/zeroshot/boolean_expressions.yaml", 8, 3),  # num_fewshot: 0 wins
    ("mgsm/direct/mgsm_direct_zh.yaml", 6, 2),
]
SEED = 1234


def build(path, num_fewshot):
    cfg = copy.deepcopy(load_yaml(path, resolve_func=True))
    for key in ("tag", "group", "task_list"):
        cfg.pop(key, None)
    task = ConfigurableTask(config=cfg)
    if num_fewshot is not None:
        if task.get_config("num_fewshot") != 0:
            task.set_config(key="num_fewshot", value=num_fewshot)
    elif task.get_config("num_fewshot") is None:
        task.set_config(key="num_fewshot", value=0)
    task.set_fewshot_seed(seed=SEED)
    return task


def jsonable(x):
    if isinstance(x, (list, tuple)):
        return [jsonable(i) for i in x]
    return x


def render(path, limit, num_fewshot):
    task = build(path, num_fewshot)
    task.build_all_requests(limit=limit, rank=0, world_size=1)
    docs = {}
    for inst in task.instances:
        d = docs.setdefault(inst.doc_id, {"doc_id": inst.doc_id, "target": jsonable(task.doc_to_target(inst.doc)), "requests": []})
        if inst.request_type == "loglikelihood":
            ctx, cont = inst.arguments[:2]
            d["requests"].append({"context": ctx, "continuation": cont})
        else:
            ctx, gen = inst.arguments[:2]
            d["requests"].append({"context": ctx, "until": gen["until"]})
    return {"num_fewshot": task.get_config("num_fewshot"), "docs": [docs[k] for k in sorted(docs)]}


def main():
    lmeval, out_dir = sys.argv[1], sys.argv[2]
    commit = "4e7e0d47f33bc71070c1d38394bafbb52b117163"
    here = os.path.dirname(os.path.abspath(__file__))
    for rel, limit, k in CASES:
        path = os.path.join(here, "tasks", rel)
        # The copies must be the harness's files.
        if open(path, "rb").read() != open(os.path.join(lmeval, "lm_eval/tasks", rel), "rb").read():
            sys.exit("tasks/%s differs from the harness checkout" % rel)
        renders = [render(path, limit, None)]
        if k is not None:
            r = render(path, limit, k)
            if r["num_fewshot"] != renders[0]["num_fewshot"]:
                renders.append(r)
            else:
                renders[0]["note"] = "the file sets num_fewshot: 0, which lm-eval keeps over --num_fewshot %d" % k
        name = build(path, None).config.task
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
            json.dump({"task": name, "yaml": rel, "lm_eval_commit": commit, "seed": SEED, "limit": limit,
                       "renders": renders}, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(name, [(r["num_fewshot"], len(r["docs"])) for r in renders])


main()
