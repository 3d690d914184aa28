# Generates punkt_nltk.jsonl: sentences and word tokens computed by nltk's own
# PunktSentenceTokenizer and NLTKWordTokenizer (Debian python3-nltk 3.8)
# with nltk's pretrained English model, read from ../punkt_english.tsv (the
# parameters gen_punkt_english.py extracts from that model), on seeded random
# texts built from tricky fragments. With the pickle itself at hand, pass its
# path to check first that the tokenizer built from the file splits every
# text exactly as the pickle's own tokenizer does:
#
#   /usr/bin/python3 gen_nltk_golden.py [PY3/english.pickle] > punkt_nltk.jsonl
import json, random, sys
from collections import defaultdict
from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktParameters
from nltk.tokenize import NLTKWordTokenizer

params = PunktParameters()
params.ortho_context = defaultdict(int)
for line in open("../punkt_english.tsv", encoding="utf-8").read().split("\n"):
    if not line or line.startswith("#"):
        continue
    f = line.split("\t")
    if f[0] == "abbrev":
        params.abbrev_types.add(f[1])
    elif f[0] == "colloc":
        params.collocations.add((f[1], f[2]))
    elif f[0] == "starter":
        params.sent_starters.add(f[1])
    elif f[0] == "ortho":
        params.ortho_context[f[1]] = int(f[2])
    else:
        raise SystemExit("bad line: %r" % line)
sent_tok = PunktSentenceTokenizer(params)
word_tok = NLTKWordTokenizer()
reference = None
if len(sys.argv) > 1:
    sys.path.insert(0, ".")
    from gen_punkt_english import Restricted
    reference = Restricted(open(sys.argv[1], "rb")).load()

frags = ["Mr.", "Dr.", "e.g.", "i.e.", "etc.", "U.S.", "a.m.", "p.m.", "No.", "vs.", "J.", "A.",
         "b.", "1.", "12.", "3.5", "...", "..", "....", ". . .", "?", "!", "?!", "!!", ".", ",", ";",
         ":", "--", "-", "(", ")", "[", "]", "\"", "'", "“", "”", "’", "*", "**", "#", "\n", "\n\n",
         "  ", "The", "the", "This", "this", "It", "it", "cat", "Cat", "CAT", "DON'T", "don't",
         "I'm", "I'M", "can't", "cannot", "gonna", "Smith", "smith", "However", "however", "apples",
         "Apples", "café", "naïve", "2023", "3:30", "1,000", "x.y", "example.com", "‘quoted’",
         "Wait", "Really", "…", "e.g", "etc", "St.", "Jan.", "Inc.", "Ltd.", "she", "She", "They",
         "they", "ok", "OK.", "U.K.", "Ph.D.", "A.B.C.", "wanna", "'tis", "»", "«", "<<", ">>",
         "Choose", "choose", "Maybe", "maybe", "Step", "Is", "Water", "Paris", "B."]
random.seed(20261202)
for _ in range(1000):
    parts = []
    for _ in range(random.randint(1, 20)):
        parts.append(random.choice(frags))
        parts.append(random.choice([" ", " ", " ", "", "\n"]))
    text = "".join(parts)
    sents = sent_tok.tokenize(text)
    if reference is not None and reference.tokenize(text) != sents:
        raise SystemExit("the file's parameters split %r differently from the pickle" % text)
    tokens = [t for s in sents for t in word_tok.tokenize(s)]
    print(json.dumps({"text": text, "sentences": sents, "tokens": tokens}, ensure_ascii=False))
