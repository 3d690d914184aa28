# Makes groups/golden.json: lm-evaluation-harness's own results for the
# group files of TestGroupsMatchLMEval (../../group_lmeval_test.go), from
# the per-sample scores pocketeval recorded (groups/scores.json), so that
# pocketeval's group expansion and aggregation can be compared with
# lm-eval's.
#
# For each case the group is loaded by lm-eval itself (TaskManager with the
# group file's directory as include_path, without lm-eval's own task tree:
# TaskIndex, TaskFactory, tags expanded, inline groups and overrides
# applied). Every leaf task gets the recorded per-sample values as its
# raw_metrics, keyed (metric, filter) with the filter "none" for a metric
# without one, and evaluator_utils._process_results computes what
# simple_evaluate reports: each task's aggregation (mean) and standard error
# (mean_stderr, bootstrap_iters 100000 as simple_evaluate's default), then
# every group's Group.aggregate (aggregate_subtask_metrics,
# pooled_sample_stderr). The golden holds, per group, its children and
# leaf tasks (lm-eval's expansion), sample_len and metrics, and per task
# its sample_len and metrics, each metric as [value, stderr] (null for
# lm-eval's "N/A").
#
# How golden.json was made (outside the repository): the lm-evaluation-harness
# checkout, Debian Python and stubs of make_renders.py (see its header), and
# the data root of its step 3, which also holds the five MMLU subjects:
#   go test ./evals/taskfile -run TestWriteLMEvalData -lmeval-data=/tmp/lmeval-data
#   LMEVAL_DATA_ROOT=/tmp/lmeval-data \
#   PYTHONPATH=/tmp/lmeval-stubs:/tmp/refscore/stubs:/tmp/sacrebleu:/tmp/lmeval \
#   /usr/bin/python3 make_groups.py /tmp/lmeval groups/
# scores.json comes from pocketeval's runs:
#   go test ./evals/taskfile -run TestGroupsMatchLMEval -update-group-scores
import json
import math
import os
import sys

from lm_eval.api.group import Group
from lm_eval.evaluator_utils import _process_results
from lm_eval.tasks import TaskManager

CASES = {
    # case: (group file, relative to this directory; the group's name)
    "mmlu": ("tasks/mmlu/default/_mmlu.yaml", "mmlu"),
    "gen": ("pocketeval_gen_group.yaml", "pocketeval_gen_mix"),
}
COMMIT = "4e7e0d47f33bc71070c1d38394bafbb52b117163"


def number(x):
    if x == "N/A" or x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def metrics_of(result):
    out = {}
    for key, value in result.items():
        if "," not in key or "_stderr," in key:
            continue
        metric, filt = key.split(",", 1)
        out[key] = [number(value), number(result.get(metric + "_stderr," + filt))]
    return out


def run_case(here, rel, group_name, scores):
    path = os.path.join(here, rel)
    tm = TaskManager(include_path=os.path.dirname(path), include_defaults=False)
    loaded = tm.load([group_name])
    acc = {}
    for name, task in loaded["tasks"].items():
        raw = {}
        for key, values in scores[name].items():
            metric, _, filt = key.partition(",")
            raw[(metric, filt or "none")] = [float(v) for v in values]
        acc[name] = {"task": task, "raw_metrics": raw, "logged_samples": []}
    res = _process_results(acc, loaded["groups"], bootstrap_iters=100000)
    groups = {}
    for name, g in loaded["groups"].items():
        assert isinstance(g, Group)
        r = res.metrics[name]
        groups[name] = {
            "children": g.child_names,
            "tasks": [t.task_name for t in g.get_all_tasks()],
            "sample_len": r.get("sample_len", 0),
            "metrics": metrics_of(r),
        }
    tasks = {name: {"sample_len": res.metrics[name]["sample_len"], "metrics": metrics_of(res.metrics[name])}
             for name in loaded["tasks"]}
    return {"yaml": rel, "groups": groups, "tasks": tasks}


def main():
    lmeval, out_dir = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    # The mmlu copies must be the harness's files.
    for fn in os.listdir(os.path.join(here, "tasks/mmlu/default")):
        mine = open(os.path.join(here, "tasks/mmlu/default", fn), "rb").read()
        if mine != open(os.path.join(lmeval, "lm_eval/tasks/mmlu/default", fn), "rb").read():
            sys.exit("tasks/mmlu/default/%s differs from the harness checkout" % fn)
    with open(os.path.join(out_dir, "scores.json"), encoding="utf-8") as f:
        scores = json.load(f)
    cases = {case: run_case(here, rel, name, scores[case]) for case, (rel, name) in CASES.items()}
    with open(os.path.join(out_dir, "golden.json"), "w", encoding="utf-8") as f:
        json.dump({"lm_eval_commit": COMMIT, "cases": cases}, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    for case, c in cases.items():
        for name in sorted(c["groups"]):
            print(case, name, c["groups"][name]["metrics"])


main()
