#!/usr/bin/python3
"""Writes official_verdicts.json: the official IFEval scorer's strict and
loose verdicts on pocketeval's own example responses for the language and
case checkers, with langdetect seeded 0 to 4 (TestOfficialVerdicts).

The official code is lm-evaluation-harness's copy of google-research's
instruction_following_eval (instructions.py, instructions_util.py,
instructions_registry.py, utils.py from lm_eval/tasks/ifeval), run with
Debian's python3, python3-langdetect, python3-nltk, python3-immutabledict
in a throw-away directory outside the repository:

    /usr/bin/python3 gen_official.py /tmp/official > official_verdicts.json

where /tmp/official holds those four files. instructions_util.py asks for
nltk >= 3.9.1 and downloads punkt_tab at import; neither is needed by these
checkers, so the import runs without that call.
"""
import importlib.util
import json
import os
import sys
import types

import langdetect
from langdetect import DetectorFactory

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "langdetect", "testdata"))
import synthetic  # noqa: E402


def load_official(d):
    pkg_names = ["lm_eval", "lm_eval.tasks", "lm_eval.tasks.ifeval"]
    for name in pkg_names:
        mod = types.ModuleType(name)
        mod.__path__ = [d]
        sys.modules[name] = mod
    src = open(os.path.join(d, "instructions_util.py"), encoding="utf-8").read()
    src = src.replace("\ndownload_nltk_resources()\n", "\n")
    util = types.ModuleType("lm_eval.tasks.ifeval.instructions_util")
    exec(compile(src, "instructions_util.py", "exec"), util.__dict__)
    sys.modules[util.__name__] = util
    sys.modules["lm_eval.tasks.ifeval"].instructions_util = util
    for name in ("instructions", "instructions_registry", "utils"):
        spec = importlib.util.spec_from_file_location("lm_eval.tasks.ifeval." + name, os.path.join(d, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        setattr(sys.modules["lm_eval.tasks.ifeval"], name, mod)
        spec.loader.exec_module(mod)
    return sys.modules["lm_eval.tasks.ifeval.utils"]


def cases():
    """(family, instruction id, kwargs, response)."""
    out = []
    for t in synthetic.SHORT_LOWERCASE:
        out.append(("short_lowercase", "change_case:english_lowercase", {}, t))
    for t in synthetic.ALL_CAPS:
        out.append(("all_caps", "change_case:english_capital", {}, t))
    for t in synthetic.DEVANAGARI:
        for lang in ("hi", "ne", "mr"):
            out.append(("devanagari", "language:response_language", {"language": lang}, t))
    for t in synthetic.SWAHILI_REPEATED:
        out.append(("swahili_repeated", "language:response_language", {"language": "sw"}, t))
    for t, lang in zip(synthetic.MIXED, ["hi", "de", "ko", "sw", "ne", "hi", "ne", "hi", "mr"]):
        out.append(("english_block_first", "language:response_language", {"language": lang}, t))
        out.append(("english_block_first", "language:response_language", {"language": "en"}, t))
    case_rules = [
        ("change_case:english_lowercase", {}, "the ª and º signs are ordinal indicators"),
        ("change_case:english_lowercase", {}, "chapter ⅻ is the last one in this book"),
        ("change_case:english_lowercase", {}, "chapter Ⅻ is the last one in this book"),
        ("change_case:english_lowercase", {}, "a titlecase ǅ letter breaks lowercase"),
        ("change_case:english_lowercase", {}, "12345 !!!"),
        ("change_case:english_capital", {}, "CHAPTER Ⅻ IS THE LAST ONE IN THIS BOOK"),
        ("change_case:english_capital", {}, "THE ª SIGN IS LOWERCASE IN PYTHON"),
        ("change_case:english_capital", {}, "Ⓐ Ⓑ Ⓒ ARE CIRCLED CAPITAL LETTERS OF THE ALPHABET"),
        ("change_case:english_capital", {}, "12345 !!!"),
        ("change_case:english_capital", {}, "长城 ABC"),
        ("keywords:letter_frequency", {"letter": "i", "let_frequency": 2, "let_relation": "at least"}, "İİ"),
        # (letters outside a-z: this copy draws a random letter for them,
        # google-research's current code counts them; not compared here)
        ("keywords:letter_frequency", {"letter": "k", "let_frequency": 2, "let_relation": "at least"}, "\u212a and K"),
        ("startend:end_checker", {"end_phrase": "οδος"}, "Η λέξη είναι ΟΔΟΣ"),
        ("startend:end_checker", {"end_phrase": "οδοσ"}, "Η λέξη είναι ΟΔΟΣ"),
        ("combination:repeat_prompt", {"prompt_to_repeat": "i̇stanbul is big"}, "İSTANBUL IS BIG. Yes it is."),
        ("detectable_content:postscript", {"postscript_marker": "P.S."}, "Body.\nP.S. see you"),
        ("length_constraints:nth_paragraph_first_word",
         {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "σοφος"}, "First.\n\nΣΟΦΟΣ is the word."),
        ("length_constraints:nth_paragraph_first_word",
         {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "σοφοσ"}, "First.\n\nΣΟΦΟΣ is the word."),
    ]
    for id_, kw, t in case_rules:
        out.append(("case_rules", id_, kw, t))
    return out


def main():
    utils = load_official(sys.argv[1])
    records = []
    for family, id_, kw, response in cases():
        inp = utils.InputExample(key=0, instruction_id_list=[id_], prompt="", kwargs=[kw])
        strict, loose = [], []
        for seed in range(5):
            DetectorFactory.seed = seed
            strict.append(utils.test_instruction_following_strict(inp, response).follow_instruction_list[0])
            loose.append(utils.test_instruction_following_loose(inp, response).follow_instruction_list[0])
        records.append({"family": family, "instruction_id": id_, "kwargs": kw, "response": response,
                        "strict": strict, "loose": loose})
    doc = {
        "generator": "gen_official.py",
        "official_code": "EleutherAI/lm-evaluation-harness lm_eval/tasks/ifeval @ " + open(os.path.join(sys.argv[1], "COMMIT")).read().strip()
        if os.path.exists(os.path.join(sys.argv[1], "COMMIT")) else "lm_eval/tasks/ifeval",
        "langdetect": "Debian python3-langdetect 1.0.9-1",
        "python": sys.version.split()[0],
        "seeds": list(range(5)),
        "cases": records,
    }
    json.dump(doc, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
