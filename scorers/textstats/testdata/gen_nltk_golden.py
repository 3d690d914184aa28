# Generates punkt_nltk.jsonl: sentences and word tokens computed by nltk's own
# PunktSentenceTokenizer and NLTKWordTokenizer (Debian python3-nltk 3.8)
# loaded with pocketeval's hand-written English parameters (read from
# ../punkt.go), on seeded random texts built from tricky fragments. It pins
# that the Go port of the algorithms matches nltk exactly; it says nothing
# about nltk's trained English parameters, which pocketeval does not ship.
#
#   /usr/bin/python3 gen_nltk_golden.py > punkt_nltk.jsonl
import json, random, re
from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktParameters
import nltk.tokenize.punkt as P
from nltk.tokenize import NLTKWordTokenizer

src = open("../punkt.go").read()
abbr = re.search(r"abbrevs: setOf\(`([^`]*)`", src).group(1).split()
starters = re.search(r"sentStarters: setOf\(`([^`]*)`", src).group(1).split()
lower_only = re.search(r"lowerOnly: setOf\(`([^`]*)`", src).group(1).split()
params = PunktParameters()
params.abbrev_types = set(abbr)
params.sent_starters = set(starters)
for w in starters:
    params.ortho_context[w] = P._ORTHO_BEG_UC | P._ORTHO_MID_UC | P._ORTHO_MID_LC
for w in lower_only:
    params.ortho_context[w] = P._ORTHO_BEG_UC | P._ORTHO_MID_LC
sent_tok = PunktSentenceTokenizer(params)
word_tok = NLTKWordTokenizer()

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
    tokens = [t for s in sents for t in word_tok.tokenize(s)]
    print(json.dumps({"text": text, "sentences": sents, "tokens": tokens}, ensure_ascii=False))
