#!/usr/bin/python3
"""Writes golden.jsonl.gz: langdetect 1.0.9's own detect_langs output for
texts from the shared IFEval, MGSM and Marco-Bench-MIF data and for the
texts of synthetic.py, which pocketeval's Go port must reproduce exactly.

Run with Debian's python3 and python3-langdetect, python3-mpmath
(apt-get install python3-langdetect python3-mpmath), outside the Go build:

    /usr/bin/python3 gen_golden.py ../../../../shared | gzip -9n > golden.jsonl.gz

The shared texts are not copied: each record names its source file, record
and derivation ("full", "line:3", "words:2", ...; see derive()), with a
sha256 prefix of the text so that the Go test knows it rebuilt the same
text. Synthetic texts are stored verbatim.

Reference configuration ("ref", what the port equals to the last bit):
langdetect's Detector with the profiles added in sorted order and
random.gauss computing cos, sin and log correctly rounded (mpmath).
Stock langdetect differs from it only in those two platform details
(os.listdir order, the C library's last bit); every record also carries the
stock label when it differs, and the header counts every difference, as
it does for Python 3.12's compensated sum().
"""
import gzip
import hashlib
import json
import math
import os
import random
import sys

import mpmath

import langdetect
from langdetect.detector import Detector
from langdetect.detector_factory import DetectorFactory, PROFILES_DIRECTORY
from langdetect.lang_detect_exception import LangDetectException
from langdetect.utils.lang_profile import LangProfile

import synthetic

mpmath.mp.prec = 200
LIBM = (random._cos, random._sin, random._log)
CR = (lambda x: float(mpmath.cos(mpmath.mpf(x))),
      lambda x: float(mpmath.sin(mpmath.mpf(x))),
      lambda x: float(mpmath.log(mpmath.mpf(x))))


def use_math(fns):
    random._cos, random._sin, random._log = fns


def sorted_factory():
    f = DetectorFactory()
    names = sorted(n for n in os.listdir(PROFILES_DIRECTORY) if not n.startswith("."))
    for i, name in enumerate(names):
        with open(os.path.join(PROFILES_DIRECTORY, name), encoding="utf-8") as fh:
            f.add_profile(LangProfile(**json.load(fh)), i, len(names))
    return f


REF = sorted_factory()
ORIGINAL_NORMALIZE = Detector._normalize_prob


def normalize_py312(self, prob):
    """_normalize_prob with Python 3.12's sum() (Neumaier compensation)."""
    s, c = 0.0, 0.0
    for x in prob:
        t = s + x
        if abs(s) >= abs(x):
            c += (s - t) + x
        else:
            c += (x - t) + s
        s = t
    sump = s + c if c and math.isfinite(c) else s
    maxp = 0.0
    for i in range(len(prob)):
        p = prob[i] / sump
        if maxp < p:
            maxp = p
        prob[i] = p
    return maxp


def run(factory, text, seed):
    factory.seed = seed
    d = factory.create()
    d.append(text)
    try:
        return [[l.lang, l.prob] for l in d.get_probabilities()]
    except LangDetectException as e:
        return "error: " + str(e)


def reference(text, seed):
    use_math(CR)
    return run(REF, text, seed)


def stock(text, seed):
    """What the official scorer computes here with DetectorFactory.seed = seed."""
    use_math(LIBM)
    DetectorFactory.seed = seed
    try:
        return [[l.lang, l.prob] for l in langdetect.detect_langs(text)]
    except LangDetectException as e:
        return "error: " + str(e)


def py312(text, seed):
    use_math(CR)
    Detector._normalize_prob = normalize_py312
    try:
        return run(REF, text, seed)
    finally:
        Detector._normalize_prob = ORIGINAL_NORMALIZE


def max_diff(a, b):
    """The largest |p - q| between two results with the same languages."""
    if isinstance(a, str) or isinstance(b, str) or [l for l, _ in a] != [l for l, _ in b]:
        return None
    return max((abs(p - q) for (_, p), (_, q) in zip(a, b)), default=0.0)


def label(res):
    if isinstance(res, str):
        return res
    return res[0][0] if res else "unknown"


def derive(text, d):
    """The derivations the Go test implements identically."""
    if d == "full":
        return text
    kind, _, arg = d.partition(":")
    if kind == "ascii_upper":
        return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in text)
    if kind == "ascii_lower":
        return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)
    lines = text.split("\n")
    if kind == "drop_first_line":
        return "\n".join(lines[1:])
    if kind == "drop_last_line":
        return "\n".join(lines[:-1])
    if kind == "line":
        return lines[int(arg)]
    if kind == "words":
        return " ".join(text.split(" ")[: int(arg)])
    raise ValueError(d)


def shared_sources(shared):
    """(source, index, text) for every shared text, in a fixed order."""
    out = []
    path = "conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl"
    with open(os.path.join(shared, path), encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            out.append((path, i, json.loads(line)["response"]))
    for lang in ("en", "zh"):
        path = f"datasets/mgsm/mgsm_{lang}.tsv"
        with open(os.path.join(shared, path), encoding="utf-8", newline="") as fh:
            for i, line in enumerate(fh.read().split("\n")):
                if line:
                    out.append((path, i, line.split("\t")[0]))
    for name in ("zh_local", "zh_mt", "en"):
        path = f"datasets/ifeval_zh/marco_bench_mif/{name}.jsonl"
        with open(os.path.join(shared, path), encoding="utf-8", newline="") as fh:
            for i, line in enumerate(fh.read().split("\n")):
                try:
                    out.append((path, i, json.loads(line)["prompt"]))
                except (ValueError, KeyError):
                    pass  # zh_local.jsonl line 15 is not valid JSON upstream
    return out


def derivations(source, index, text):
    ds = ["full"]
    lines = text.split("\n")
    first_line = next((f"line:{k}" for k, l in enumerate(lines) if l.strip()), None)
    if source.startswith("conformance/"):
        ds += ["ascii_upper", "ascii_lower", "words:2"]
        if len(lines) > 1:
            ds += ["drop_first_line", first_line]
        if index % 2 == 0:
            ds += ["words:4"]
    elif "mgsm_en" in source:
        if index % 3 == 0:
            ds += ["words:3", "ascii_lower"]
    elif "mgsm" in source:
        pass
    elif source.endswith("/zh_local.jsonl"):
        if index % 4 == 0 and len(lines) > 1:
            ds += [first_line]
    elif source.endswith("/en.jsonl"):
        if index % 2 == 1:
            return []
    elif index % 4 != 0:  # zh_mt.jsonl
        return []
    return ds


def main():
    shared = sys.argv[1]
    records = []
    seen = set()
    for source, index, text in shared_sources(shared):
        for d in derivations(source, index, text):
            t = derive(text, d)
            if t in seen:
                continue
            seen.add(t)
            records.append({"src": source, "i": index, "d": d, "text": t})
    for family, texts in synthetic.FAMILIES.items():
        for k, t in enumerate(texts):
            records.append({"src": "synthetic", "family": family, "i": k, "d": "full", "text": t, "verbatim": True})
    variants = {"stock": stock, "py312": py312}
    stats = {name: {"label": 0, "probabilities": 0, "language_lists": 0, "max_probability_difference": 0.0}
             for name in variants}
    out = []
    for n, r in enumerate(records):
        seeds = [0]
        if n % 15 == 0:
            seeds += [1, 42, 2**32 + 1]
        for seed in seeds:
            text = r["text"]
            ref = reference(text, seed)
            rec = {k: v for k, v in r.items() if k not in ("text", "verbatim")}
            if r.get("verbatim"):
                rec["text"] = text
            rec["sha"] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
            rec["seed"] = seed
            rec["ref"] = ref
            for name, fn in variants.items():
                res, st = fn(text, seed), stats[name]
                if res != ref:
                    st["probabilities"] += 1
                    d = max_diff(res, ref)
                    if d is None:
                        st["language_lists"] += 1
                    else:
                        st["max_probability_difference"] = max(st["max_probability_difference"], d)
                if label(res) != label(ref):
                    st["label"] += 1
                    rec[name] = label(res)
            out.append(rec)
    header = {
        "generator": "gen_golden.py",
        "langdetect": "1.0.9 (Debian python3-langdetect 1.0.9-1)",
        "python": sys.version.split()[0],
        "texts": len(records),
        "records": len(out),
        # Records where stock langdetect (os.listdir profile order, the C
        # library's cos/sin/log) or Python 3.12's sum() give another label,
        # other probabilities, another list of languages above 0.1, and the
        # largest probability difference otherwise.
        "differences": {f"{name}_{k}": v for name, st in stats.items() for k, v in st.items()},
    }
    sys.stdout.write(json.dumps(header, ensure_ascii=False) + "\n")
    for rec in out:
        sys.stdout.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
