# Makes goldens.json: the outputs of lm-evaluation-harness's own
# lm_eval/tasks/wikitext/preprocess_wikitext.py (wikitext_detokenizer and
# the word and byte counts of process_results) on the inputs below, for
# TestWikitextHooksMatchPython, and for the documents of the wikitext-shaped
# test split in ../lmeval/data (TestWikitextTaskFile): lm-eval's request
# of each (ConfigurableTask.construct_requests for loglikelihood_rolling:
# the one argument doc_to_target(doc)), the counts, and the three metrics
# lm_eval.api.metrics aggregates for made-up log-likelihoods.
# Neither script is in this repository. From a checkout of
# lm-evaluation-harness at COMMIT (git archive COMMIT lm_eval | tar -x -C
# LMEVAL), with stubs for imports the metrics do not use (numpy.py holding
# `nan = float("nan")`, an empty sacrebleu.py, an lm_eval dist-info
# METADATA) in STUBS:
#   PYTHONPATH=STUBS:LMEVAL python3 make_goldens.py LMEVAL/lm_eval/tasks/wikitext > goldens.json
# It refuses a preprocess_wikitext.py whose sha256 differs from SHA256.
import hashlib
import json
import os
import sys

COMMIT = "4e7e0d47f33bc71070c1d38394bafbb52b117163"
SHA256 = "a44020374b172159bf5be80a64d2c4194c9d5c77284f696ac666361338c8da7d"

# Every rule of the detokenizer, alone, repeated, overlapping and next to
# each other; Python whitespace that Go's \s lacks; unicode; empty.
INPUTS = [
    "",
    " ",
    "\n",
    "plain text without rules",
    "the dogs ' bones and the cats ' toys",
    "s '",
    "s 's '",
    "a /' 5/ b /' 12/ c /'5/ d /' x/",
    "1 @-@ 2 @,@ 3 @.@ 4",
    "a @-@ @-@ b @,@@,@ c",
    "x : y ; z . w ! v ? u , t",
    "a . . b , , c : : d",
    "( a ) [ b ] { c } \" d \" ' e '",
    "(  spaced  out  )",
    "( nested ( inner ) outer )",
    "( unclosed [ and ] more",
    "\"a\" \" b \" \"c",
    "' it ' s ' odd '",
    "( \n multi \n line \n )",
    "(\u00a0nbsp\u00a0) (\u2003em\u2003) (\x0bvt\x0b) (\x1cfs\x1c) (\u3000ideo\u3000)",
    "( )",
    "()",
    "[ ] { } \" \" ' '",
    "= = = = Heading = = = =",
    "= = = Sub = = =",
    "= = Section = =",
    "= = = = = = =",
    "45 \u00b0 C and 3 \u00b0 F",
    "line \n next\n  double \n \n end",
    " \n \n ",
    " N the N word N",
    "N N N",
    "the dog 's bone , the cat 's toy",
    "it 's",
    "caf\u00e9 na\u00efve \u65e5\u672c\u8a9e ( \u4e2d\u6587 ) \U0001f600 \" \u00e9 \"",
    "\u0393\u03b5\u03b9\u03ac ' \u03c3\u03bf\u03c5 ' , \u03ba\u03cc\u03c3\u03bc\u03b5 .",
    " = Robert Boulter = \n \n Robert Boulter is an English film , television and theatre actor . He had a guest @-@ starring role on the television series The Bill in 2000 . \n \n = = Career = = \n \n In 2006 , Boulter starred alongside Whishaw in the play Citizenship written by Mark Ravenhill . He appeared on a 2006 episode of the television series , Doctors , followed by a role in the 2007 theatre production of How to Curse directed by Josie Rourke . \n",
    " = Valkyria Chronicles III = \n \n Senj\u014d no Valkyria 3 : Unrecorded Chronicles ( Japanese : \u6226\u5834\u306e\u30f4\u30a1\u30eb\u30ad\u30e5\u30ea\u30a23 , lit . Valkyria of the Battlefield 3 ) , commonly referred to as Valkyria Chronicles III outside Japan , is a tactical role @-@ playing video game . It sold 1 @,@ 000 copies , 2 @.@ 5 times \" more \" than N . \n",
]


def main():
    d = sys.argv[1]
    path = os.path.join(d, "preprocess_wikitext.py")
    with open(path, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    if got != SHA256:
        sys.exit(f"{path}: sha256 {got}, want {SHA256} (lm-evaluation-harness @ {COMMIT})")
    sys.path.insert(0, d)
    import preprocess_wikitext as p

    cases = []
    for page in INPUTS:
        doc = {"page": page}
        r = p.process_results(doc, [-1.5])
        cases.append({"page": page, "target": p.wikitext_detokenizer(doc),
                      "words": r["word_perplexity"][1], "bytes": r["byte_perplexity"][1]})
    from lm_eval.api import metrics

    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "lmeval", "data", "EleutherAI", "wikitext_document_level", "wikitext-2-raw-v1", "test.jsonl")
    docs, items = [], {"word_perplexity": [], "byte_perplexity": [], "bits_per_byte": []}
    with open(data, encoding="utf-8") as f:
        for i, line in enumerate(f):
            doc = json.loads(line)
            ll = -7.25 * (i + 1) - 0.125
            r = p.process_results(doc, [ll])
            docs.append({"text": p.wikitext_detokenizer(doc), "loglikelihood": ll,
                         "words": r["word_perplexity"][1], "bytes": r["byte_perplexity"][1]})
            for k in items:
                items[k].append(r[k])
    agg = {"word_perplexity": metrics.weighted_perplexity(items["word_perplexity"]),
           "byte_perplexity": metrics.weighted_perplexity(items["byte_perplexity"]),
           "bits_per_byte": metrics.bits_per_byte(items["bits_per_byte"])}
    json.dump({"source": "EleutherAI/lm-evaluation-harness lm_eval/tasks/wikitext/preprocess_wikitext.py",
               "commit": COMMIT, "sha256": SHA256, "python": sys.version.split()[0], "cases": cases,
               "docs": docs, "metrics": agg},
              sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
