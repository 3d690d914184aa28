# Makes golden_loglik/pocketeval_loglik.json and golden_loglik/pocketeval_rolling.json:
# the requests lm-evaluation-harness's own code builds for pocketeval's task
# files of output_type loglikelihood and loglikelihood_rolling (zero-shot
# and, for loglikelihood, 2-shot with seed 1234), with the per-document
# word and byte counts its process_results uses (count_words, count_bytes).
#
# How (outside the repository), as make_renders.py describes, with:
#   - lm-evaluation-harness @ 4e7e0d47f33bc71070c1d38394bafbb52b117163;
#   - Debian bookworm /usr/bin/python3 3.11 with python3-jinja2, python3-yaml,
#     python3-numpy, python3-tqdm;
#   - stubs: datasets.py (load_dataset reads
#     $LMEVAL_DATA_ROOT/<path>/<name>/<split>.jsonl, lists of dicts with a
#     `features` mapping), empty dill.py, requests.py and sacrebleu.py
#     (prompt building uses none of them), the lm_eval dist-info METADATA;
#   - the data root: data/ of this directory;
#   LMEVAL_DATA_ROOT=testdata/lmeval/data PYTHONPATH=STUBS:LMEVAL \
#     /usr/bin/python3 make_loglik_renders.py golden_loglik/
import copy
import json
import os
import sys

from lm_eval.api.task import ConfigurableTask
from lm_eval.tasks._yaml_loader import load_yaml

SEED = 1234
CASES = [("pocketeval_loglik.yaml", [0, 2]), ("pocketeval_rolling.yaml", [0])]


def render(path, k):
    cfg = copy.deepcopy(load_yaml(path, resolve_func=True))
    task = ConfigurableTask(config=cfg)
    task.set_config(key="num_fewshot", value=k)
    task.set_fewshot_seed(seed=SEED)
    task.build_all_requests(limit=None, rank=0, world_size=1)
    docs = {}
    for inst in task.instances:
        target = task.doc_to_target(inst.doc)
        d = docs.setdefault(inst.doc_id, {"doc_id": inst.doc_id, "target": target, "request_type": inst.request_type,
                                          "words": task.count_words(target), "bytes": task.count_bytes(target), "requests": []})
        if inst.request_type == "loglikelihood":
            ctx, cont = inst.arguments
            d["requests"].append({"context": ctx, "continuation": cont})
        else:
            (text,) = inst.arguments
            d["requests"].append({"text": text})
    return {"num_fewshot": k, "docs": [docs[i] for i in sorted(docs)]}


def main():
    out = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    for rel, shots in CASES:
        path = os.path.join(here, rel)
        name = rel[:-5]
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
            json.dump({"task": name, "lm_eval_commit": "4e7e0d47f33bc71070c1d38394bafbb52b117163", "seed": SEED,
                       "renders": [render(path, k) for k in shots]}, f, ensure_ascii=False, indent=1)
            f.write("\n")


main()
