# Makes gsm8k.json and gsm8k_cot_llama.json: the requests lm-evaluation-harness
# itself builds for its gsm8k (raw, few-shot from the train split) and
# gsm8k_cot_llama (chat messages, few-shot from the file's fixed samples)
# tasks on the real GSM8K test and train files, so that the built-in gsm8k
# task can be compared with them byte for byte (TestGSM8KMatchesLMEval).
#
# How the goldens in this directory were made (outside the repository):
#   1. lm-evaluation-harness source: `fetch github:EleutherAI/lm-evaluation-harness`
#      cloned to /tmp/lmeval, commit 4e7e0d47f33bc71070c1d38394bafbb52b117163
#      (version 0.4.13.dev0). The task files are read from the checkout; their
#      sha256 is recorded in the goldens (gsm8k.yaml is also copied verbatim in
#      evals/taskfile/testdata/lmeval/tasks/gsm8k/).
#   2. Python and stubs exactly as in evals/taskfile/testdata/lmeval/make_renders.py
#      (Debian bookworm python3 3.11.2, python3-jinja2, python3-yaml,
#      python3-numpy, python3-tqdm; /tmp/lmeval-stubs for datasets, dill,
#      requests and the lm_eval dist-info; sacrebleu from a clone with stubs).
#   3. The data root: <root>/openai/gsm8k/main/test.jsonl is the shared GSM8K
#      test file (openai/grade-school-math @ 3101c7d50724,
#      grade_school_math/data/test.jsonl, sha256 3730d312…) and train.jsonl
#      the same commit's grade_school_math/data/train.jsonl (sha256 17f347dc…,
#      7473 records; `fetch github:openai/grade-school-math`), the file
#      `pocketeval datasets download --optional gsm8k` pins. The stub reads
#      them in file order, as Hugging Face's openai/gsm8k has them.
#   4. LMEVAL_DATA_ROOT=/tmp/gsm8kfew/data \
#      PYTHONPATH=/tmp/lmeval-stubs:/tmp/refscore/stubs:/tmp/sacrebleu:/tmp/lmeval \
#      /usr/bin/python3 make_goldens.py /tmp/lmeval .
#
# Each task is built as make_renders.py builds it (ConfigurableTask from the
# YAML, num_fewshot set as simple_evaluate sets it, few-shot seed 1234, lm-eval's
# default fewshot_random_seed), then build_all_requests:
#   - gsm8k, 5-shot (the file's num_fewshot): the first 20 test documents
#     (--limit 20), and the last 5 documents of a full run (no limit), whose
#     draws come after 1314 earlier ones; with the train indices lm-eval drew;
#   - gsm8k_cot_llama with apply_chat_template=True, fewshot_as_multiturn=True
#     (lm-eval's --apply_chat_template --fewshot_as_multiturn): the chat messages
#     handed to the model's chat template for the first 5 test documents,
#     zero-shot, 3-shot and 8-shot (the file's num_fewshot).
import copy
import hashlib
import json
import os
import sys

from lm_eval.api.task import ConfigurableTask
from lm_eval.tasks._yaml_loader import load_yaml

COMMIT = "4e7e0d47f33bc71070c1d38394bafbb52b117163"
SEED = 1234


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def build(path, num_fewshot):
    cfg = copy.deepcopy(load_yaml(path, resolve_func=True))
    for key in ("tag", "group", "task_list"):
        cfg.pop(key, None)
    task = ConfigurableTask(config=cfg)
    if task.get_config("num_fewshot") != 0:
        task.set_config(key="num_fewshot", value=num_fewshot)
    task.set_fewshot_seed(seed=SEED)
    return task


def raw_gsm8k(lmeval, data_root):
    path = os.path.join(lmeval, "lm_eval/tasks/gsm8k/gsm8k.yaml")
    train_path = os.path.join(data_root, "openai/gsm8k/main/train.jsonl")
    test_path = os.path.join(data_root, "openai/gsm8k/main/test.jsonl")
    out = {"task": "gsm8k", "yaml": "gsm8k/gsm8k.yaml", "yaml_sha256": sha256(path), "lm_eval_commit": COMMIT,
           "seed": SEED, "num_fewshot": 5,
           "test_sha256": sha256(test_path), "train_sha256": sha256(train_path), "runs": [], "train": {}}
    for limit, keep in ((20, None), (None, 5)):
        task = build(path, 5)
        pool = task.sampler.fewshot_docs()
        index = {id(d): i for i, d in enumerate(pool)}
        out["train_records"] = len(pool)
        # Record the train documents the sampler hands out, in order.
        drawn = []
        orig = task.sampler.sample

        def sample(n, eval_doc=None, df=None, **kw):
            res = orig(n, eval_doc=eval_doc, df=df, **kw)
            drawn.append([index[id(d)] for d in res])
            return res

        task.sampler.sample = sample
        task.build_all_requests(limit=limit, rank=0, world_size=1)
        docs = []
        for n, inst in enumerate(task.instances):
            ctx, gen = inst.arguments[:2]
            docs.append({"doc_id": inst.doc_id, "train_indices": drawn[n], "context": ctx, "until": gen["until"]})
        if keep is not None:
            docs = docs[-keep:]
        for d in docs:
            for i in d["train_indices"]:
                out["train"][str(i)] = {"question": pool[i]["question"], "answer": pool[i]["answer"]}
        out["runs"].append({"limit": limit, "docs": docs})
    return out


def chat_cot_llama(lmeval):
    path = os.path.join(lmeval, "lm_eval/tasks/gsm8k/gsm8k-cot-llama.yaml")
    out = {"task": "gsm8k_cot_llama", "yaml": "gsm8k/gsm8k-cot-llama.yaml", "yaml_sha256": sha256(path),
           "lm_eval_commit": COMMIT, "seed": SEED, "apply_chat_template": True, "fewshot_as_multiturn": True,
           "renders": []}

    # The model's chat template, replaced by one that returns the messages
    # it is given (as JSON), so the golden holds the message list itself.
    def chat_template(messages, add_generation_prompt=True):
        return json.dumps({"messages": messages, "add_generation_prompt": add_generation_prompt})

    for k in (0, 3, 8):
        task = build(path, k)
        task.build_all_requests(limit=5, rank=0, world_size=1, apply_chat_template=True,
                                fewshot_as_multiturn=True, chat_template=chat_template)
        docs = []
        for inst in task.instances:
            ctx, gen = inst.arguments[:2]
            c = json.loads(ctx)
            docs.append({"doc_id": inst.doc_id, "messages": c["messages"],
                         "add_generation_prompt": c["add_generation_prompt"], "until": gen["until"]})
        out["renders"].append({"num_fewshot": task.get_config("num_fewshot"), "docs": docs})
    return out


def main():
    lmeval, out_dir = sys.argv[1], sys.argv[2]
    data_root = os.environ["LMEVAL_DATA_ROOT"]
    for name, g in (("gsm8k", raw_gsm8k(lmeval, data_root)), ("gsm8k_cot_llama", chat_cot_llama(lmeval))):
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(g, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(name, "ok")


main()
