#!/usr/bin/python3
"""Writes ../punkt_english.tsv: the parameters of nltk's pretrained English
Punkt model, which the official IFEval scorer uses through
nltk.sent_tokenize / nltk.word_tokenize (nltk >= 3.9 loads them from
punkt_tab/english, earlier versions from punkt/PY3/english.pickle; both
hold the same model, trained by Kiss & Strunk on Wall Street Journal text).

Only the parameters are written — abbreviation types, collocations,
sentence starters and the orthographic context of every type — as data;
no nltk code. The pickle is read with an unpickler that admits only
nltk's Punkt classes and builtin containers:

    /usr/bin/python3 gen_punkt_english.py PY3/english.pickle > ../punkt_english.tsv

Source used: nltk_data tokenizers/punkt/PY3/english.pickle, 406,697 bytes,
sha256 5cad3758596392364e3be9803dbd7ebeda384b68937b488a01365f5551bb942c,
loaded with Debian's python3-nltk 3.8. Its parameters equal those of
github.com/neurosnap/sentences v1.1.2 data/english.json (a Go port that
ships the same model) except one sentence starter ("she") that port adds.
"""
import hashlib
import pickle
import sys

ALLOWED = {
    ("nltk.tokenize.punkt", "PunktSentenceTokenizer"),
    ("nltk.tokenize.punkt", "PunktParameters"),
    ("nltk.tokenize.punkt", "PunktLanguageVars"),
    ("nltk.tokenize.punkt", "PunktToken"),
    ("collections", "defaultdict"),
    ("builtins", "set"),
    ("builtins", "int"),
    ("builtins", "object"),
    ("copyreg", "_reconstructor"),
}


class Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError("refused %s.%s" % (module, name))
        return super().find_class(module, name)


def main(path):
    data = open(path, "rb").read()
    params = Restricted(open(path, "rb")).load()._params
    for word in list(params.abbrev_types) + list(params.sent_starters) + [w for c in params.collocations for w in c] + list(params.ortho_context):
        if any(ch in word for ch in "\t\n\r"):
            raise SystemExit("a type contains a tab or newline: %r" % word)
    out = sys.stdout
    out.write("# nltk's pretrained English Punkt model (Kiss & Strunk 2006; nltk_data tokenizers/punkt,\n")
    out.write("# the same model as punkt_tab/english), written by testdata/gen_punkt_english.py from\n")
    out.write("# PY3/english.pickle, sha256 %s.\n" % hashlib.sha256(data).hexdigest())
    out.write("# The model is Jan Strunk's and Tibor Kiss's, trained on Wall Street Journal text and\n")
    out.write("# distributed by the NLTK project in nltk_data; the same parameters are also\n")
    out.write("# redistributed as data/english.json of github.com/neurosnap/sentences (MIT).\n")
    out.write("# abbrev TYPE | colloc TYPE TYPE | starter TYPE | ortho TYPE FLAGS (nltk's _ORTHO_* bits)\n")
    for a in sorted(params.abbrev_types):
        out.write("abbrev\t%s\n" % a)
    for a, b in sorted(params.collocations):
        out.write("colloc\t%s\t%s\n" % (a, b))
    for s in sorted(params.sent_starters):
        out.write("starter\t%s\n" % s)
    for w, f in sorted(params.ortho_context.items()):
        if f:
            out.write("ortho\t%s\t%d\n" % (w, f))


if __name__ == "__main__":
    main(sys.argv[1])
