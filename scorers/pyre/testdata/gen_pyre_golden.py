#!/usr/bin/env python3
"""Writes pyre_golden.json: Python 3.11 `re` results for the differential
test of scorers/pyre (pyre_test.go).

Patterns: every regex_pattern and regexes_to_ignore string in the task
files of an EleutherAI/lm-evaluation-harness checkout (commit 4e7e0d47,
the one docs/math.md pins), with the files that use them, plus the
adversarial patterns below that exercise each translation rule. Inputs:
the texts below (model answers of the lm-eval families, Unicode word and
space edge cases, empty-match traps). For each pattern: whether Python
compiles it, and per input re.findall and re.sub(pattern, "", text).

Usage: python3 gen_pyre_golden.py /path/to/lm-evaluation-harness > pyre_golden.json
(the checkout is read only; nothing of it but the patterns is written).
"""
import json
import os
import re
import sys

import yaml


class Loader(yaml.SafeLoader):
    pass


def _any_tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


Loader.add_multi_constructor("!", _any_tag)


def walk(v, found, where):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "regex_pattern" and isinstance(x, str):
                found.setdefault(x, set()).add(where)
            elif k == "regexes_to_ignore" and isinstance(x, list):
                for p in x:
                    if isinstance(p, str):
                        found.setdefault(p, set()).add(where)
            else:
                walk(x, found, where)
    elif isinstance(v, list):
        for x in v:
            walk(x, found, where)


def lmeval_patterns(root):
    found = {}
    tasks = os.path.join(root, "lm_eval", "tasks")
    for d, _, files in os.walk(tasks):
        for f in sorted(files):
            if not (f.endswith(".yaml") or f.endswith("_yaml")):
                continue
            path = os.path.join(d, f)
            try:
                with open(path, encoding="utf-8") as fh:
                    doc = yaml.load(fh, Loader=Loader)
            except Exception:
                continue
            walk(doc, found, os.path.relpath(path, root))
    return found


ADVERSARIAL = [
    r"\w+", r"\W+", r"\d+", r"\D+", r"\s+", r"\S+", r"\b\w", r"\B.", r"[\w-]+", r"[\W\d]+",
    r"[^\W_]+", r"[^\s\d]+", r"[\s\S]", r"(?P<x>[A-D])(?P=x)", r"(a)|b", r"(a)?(b)?",
    r"x*", r"\b", r"$", r"^", r"(?m)^\w", r"(?m)$", r"\Z", r"a\Z", r"a$", r"(?s).+",
    r".+", r"(?i)answer", r"(?i)STRASSE", r"(?i)[a-z]+", r"a{,2}", r"a{2,}", r"a{1,2}?",
    r"{x}", r"a{", r"\x41\u00e9\U0001F600", r"\101\0", r"[\]\[^-]+", r"[]a]", r"[^]a]",
    r"(?:(a)|b)+", r"(a)(?(1)b|c)", r"(?<=\()([A-Z])(?=\))", r"(?<!\w)[A-J](?!\w)",
    r"\b[A-J]\b(?!.*\b[A-J]\b)", r"(?s)\b[A-J]\b(?!.*\b[A-J]\b)", r"(\w)\1", r"(?a)\w+",
    r"(?i:a)B", r"(?-i:a)", r"(?P<n>a", r"\q", r"(?<n>a)", r"a**", r"\9",
    r"[\d.]+", r"[a-c\d]", r"(?=(\w+))", r"答案是?\s*([A-D])", r"([A-D])\s?是正确的",
    r"(\s|^)[ABCD][\s。，,：:\.$]", r"所以\s?([ABCD][.。$]?$)", r"1.\s?(.*?)$",
]

INPUTS = [
    "", "a", "aa", "ab", "b", "abc", "The answer is (B).", "So the answer is B.",
    "the answer is (C)\n", "The final answer is 42.", "#### 1,234.5", "The answer is -3.",
    "Answer: D", "answer: (e)", "I think A. Actually B", "$$E=mc^2$$ K = F (i)",
    "答案是 C", "答案：A\n故选B。", "所以答案是D。", "正确答案为（B）", "【答案】 A <eoa>",
    "B是正确的", "选项C正确。", "x A y", "（1）【答案】 C <eoa>\n（2）【答案】 C <eoa>",
    "Yes, it is valid. No.", "True or False? False", "١٢٣ 123 ²³ ½ Ⅻ", "café naïve e\u0301 ß STRASSE strasse",
    "\u200bword\u00a0word\u3000字\x1cend", "line1\nline2\n", "a\n", "((A)) [B] {C}",
    "It's (A) or (B) or (C).", "-5 and 3,000 and $12.50", "female doctor and a man",
    "Erantzuna 5 da", "답은 (B)입니다", "答えは (C) です", "Ответ - (D)", "uvw_xyz__ 9_9",
    "\t \r\n\x0b\x0c\x1d\x85\u2028", "AAAA BBBB", "(A) first\n(B) second\n", "A" * 3 + "!",
    "😀 e😀", "Ǆǅǆ ǲ", "K k \u212a ſ s",
]


def run(pattern):
    try:
        cre = re.compile(pattern)
    except re.error as e:
        return {"error": str(e)}
    out = []
    for text in INPUTS:
        res = cre.findall(text)
        rows = []
        for m in res:
            rows.append(list(m) if isinstance(m, tuple) else [m])
        out.append({"findall": rows, "sub": cre.sub("", text)})
    return {"groups": cre.groups, "results": out}


def main():
    found = lmeval_patterns(sys.argv[1])
    patterns = []
    for p in sorted(found):
        patterns.append({"pattern": p, "files": sorted(found[p])[:3], "uses": len(found[p])})
    for p in ADVERSARIAL:
        if p not in found:
            patterns.append({"pattern": p, "files": [], "uses": 0})
    for e in patterns:
        e.update(run(e["pattern"]))
    doc = {
        "generator": "scorers/pyre/testdata/gen_pyre_golden.py",
        "python": sys.version.split()[0],
        "source": "EleutherAI/lm-evaluation-harness@4e7e0d47 lm_eval/tasks (regex_pattern, regexes_to_ignore)",
        "inputs": INPUTS,
        "patterns": patterns,
    }
    json.dump(doc, sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
