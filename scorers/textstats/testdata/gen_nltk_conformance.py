#!/usr/bin/python3
"""Writes punkt_conformance.json: what nltk's pretrained English Punkt model
(the official IFEval scorer's sentence splitter, and the first step of its
nltk.word_tokenize) makes of the texts of the shared IFEval conformance file
(../../../../shared/conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl):
for each line, its prompt, its response, and three variants of the response
the loose scorer also judges (first line removed, last line removed,
asterisks removed). Only counts and hashes are written, never the texts
(TestPunktMatchesNLTKOnConformance rebuilds the texts from the shared file):
the number of sentences, and the first 16 hex digits of the sha256 of the
sentences and of the word tokens, each list joined with NUL bytes.

    /usr/bin/python3 gen_nltk_conformance.py PY3/english.pickle > punkt_conformance.json

The tokenizer is the pickle's own (read with gen_punkt_english.py's
restricted unpickler), so the hashes are nltk's model's verdicts, not the
file's.
"""
import hashlib
import json
import os
import sys

from nltk.tokenize import NLTKWordTokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_punkt_english import Restricted  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "..", "..", "shared", "conformance", "ifeval",
                   "input_response_data_gpt4_20231107_145030.jsonl")


def variants(rec):
    r = rec["response"]
    lines = r.split("\n")
    return [("prompt", rec["prompt"]), ("response", r), ("no_first_line", "\n".join(lines[1:])),
            ("no_last_line", "\n".join(lines[:-1])), ("no_asterisks", r.replace("*", ""))]


def digest(items):
    return hashlib.sha256("\x00".join(items).encode("utf-8")).hexdigest()[:16]


def main(pickle_path):
    sent_tok = Restricted(open(pickle_path, "rb")).load()
    word_tok = NLTKWordTokenizer()
    out = []
    for n, line in enumerate(open(SRC, encoding="utf-8"), 1):
        rec = json.loads(line)
        for name, text in variants(rec):
            sents = sent_tok.tokenize(text)
            toks = [t for s in sents for t in word_tok.tokenize(s)]
            out.append({"line": n, "variant": name, "sentences": len(sents),
                        "sentences_sha256": digest(sents), "tokens_sha256": digest(toks)})
    sys.stdout.write('{"source": %s, "records": [\n' % json.dumps(os.path.basename(SRC)))
    sys.stdout.write(",\n".join(json.dumps(r) for r in out))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main(sys.argv[1])
