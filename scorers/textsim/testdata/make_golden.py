# Makes golden.json: chrF from sacrebleu's CHRF and ROUGE-L from
# rouge-score's RougeScorer, computed by their own Python code.
#
# Environment (outside the repository, nothing installed from PyPI):
#   sacrebleu: git clone of mjpost/sacrebleu @ f615c7286d4d (v2.6.0-1),
#     with sacrebleu/version.py written by hand (setuptools-scm makes it)
#     and stub modules for imports that scoring never uses: portalocker,
#     colorama, tabulate, lxml.etree.
#   rouge-score: the `rouge` package files from google-research/google-research
#     (rouge/rouge_scorer.py @ 61ce9f0ca760, tokenize.py @ 0c1bbe5fc971,
#     tokenizers.py @ 30adf0ec5f35, scoring.py @ 0b7b841b4d58) copied to a
#     directory `rouge/` (rougeL code verbatim; rougeLsum and the bootstrap
#     aggregator left out), with a stub absl.logging; nltk and six from
#     Debian (python3-nltk, python3-six).
# Run: PYTHONPATH=<stubs>:<sacrebleu clone>:<dir holding rouge/> \
#        /usr/bin/python3 make_golden.py > golden.json
import json
import sys
import unicodedata

from sacrebleu.metrics import CHRF
from rouge import rouge_scorer

pairs = [
    ("the cat sat on the mat", "the cat is on the mat"),
    ("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog"),
    ("Hello, world!", "hello world"),
    ("", "a reference"),
    ("a hypothesis", ""),
    ("!!!", "???"),
    ("ab", "abcdefgh"),
    ("请把这句话改写得更礼貌一些。", "麻烦您把这句话改得更客气一点。"),
    ("明天上午十点在会议室开会", "明天上午10点在会议室开会"),
    ("北京市海淀区中关村大街27号", "北京市海淀区中关村大街27号"),
    ("iPhone 15 Pro 的价格是多少？", "iPhone15Pro多少钱"),
    ("tab\tand\nnewline  spaces", "tab and newline spaces"),
    ("Ünïcödé café", "unicode cafe"),
]

chrf = CHRF()
scorer = rouge_scorer.RougeScorer(["rougeL"])


class CharTokenizer:
    """rouge-score's default rule plus one token per non-ASCII letter/digit."""

    def tokenize(self, text):
        text = text.lower()
        toks, word = [], ""
        for ch in text:
            if "a" <= ch <= "z" or "0" <= ch <= "9":
                word += ch
                continue
            if word:
                toks.append(word)
                word = ""
            if ord(ch) > 127 and unicodedata.category(ch)[0] in "LN":
                toks.append(ch)
        if word:
            toks.append(word)
        return toks


char_scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CharTokenizer())

out = {"signature": None, "sentences": [], "multi_ref": [], "corpus": None}
for hyp, ref in pairs:
    r = scorer.score(ref, hyp)["rougeL"]
    rc = char_scorer.score(ref, hyp)["rougeL"]
    out["sentences"].append({
        "hyp": hyp, "ref": ref,
        "chrf": chrf.sentence_score(hyp, [ref]).score,
        "rougeL": [r.precision, r.recall, r.fmeasure],
        "rougeL_chars": [rc.precision, rc.recall, rc.fmeasure],
    })
for hyp, refs in [("the cat sat on the mat", ["a dog", "the cat is on the mat", "cat mat"]),
                  ("今天天气很好", ["天气不错", "今天天气非常好"])]:
    out["multi_ref"].append({"hyp": hyp, "refs": refs, "chrf": chrf.sentence_score(hyp, refs).score})
hyps = [h for h, _ in pairs]
refs = [[r for _, r in pairs]]
out["corpus"] = {"hyps": hyps, "refs": [r for _, r in pairs], "chrf": chrf.corpus_score(hyps, refs).score}
out["signature"] = str(chrf.get_signature())
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
print()
