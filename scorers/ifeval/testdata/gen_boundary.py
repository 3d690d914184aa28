#!/usr/bin/python3
"""Writes boundary_verdicts.json: IFEval responses mutated to sit on, and
one step either side of, each checker's decision boundary, with the
official scorer's strict and loose verdicts (TestBoundaryVerdicts).

The mutations start from the 541 GPT-4 responses of
conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl. The
golden does not hold their text: a case names its source response (line
index, or -1 for an empty start) and a list of edits that the Go test
replays byte for byte, then checks the result against the recorded
SHA-256:

    ["slice", a, b]       keep bytes [a, b) of the UTF-8 text
    ["insert", i, text]   insert text at byte offset i
    ["append", text]      add text at the end
    ["prepend", text]     add text at the start
    ["replace", old, new] replace every occurrence (old is never empty)
    ["ascii_upper"] / ["ascii_lower"]   change the case of a-z / A-Z only

Instructions are given in the case, or ("from_key") taken with their
kwargs from datasets/ifeval/input_data.jsonl. Integer kwargs are set from
the official count of the mutated text so that the verdict sits on the
boundary (N-1, N, N+1), with both relations where there is one.

The official scorer is run as in gen_official.py (lm-evaluation-harness's
lm_eval/tasks/ifeval with Debian's python3, python3-nltk 3.8,
python3-langdetect 1.0.9, python3-immutabledict), with nltk's English
Punkt model at $NLTK_DATA/tokenizers/punkt/english.pickle and
$NLTK_DATA/tokenizers/punkt/PY3/english.pickle (word_tokenize):

    NLTK_DATA=/tmp/nltk /usr/bin/python3 gen_boundary.py /tmp/official \\
        ../../../../shared > boundary_verdicts.json

Every case is scored with langdetect's DetectorFactory.seed and Python's
global random seeded 0 to 4; a case whose verdicts differ between seeds
is seed-dependent. A case where the official build_description drew a
kwarg from Python's global random module (nth_paragraph greater than
num_paragraphs, a letter that is not one of a-z) has its index listed in
"random_kwarg": its verdict is random.
"""
import hashlib
import json
import os
import random
import re
import sys

from langdetect import DetectorFactory

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_official  # noqa: E402

GEN_SEED = 20261203


class Mut:
    """A text and the edits that made it."""

    def __init__(self, src, text):
        self.src, self.text, self.ops = src, text, []

    def _b(self, i):
        return len(self.text[:i].encode("utf-8"))

    def slice(self, a, b):
        self.ops.append(["slice", self._b(a), self._b(b)])
        self.text = self.text[a:b]
        return self

    def insert(self, i, t):
        self.ops.append(["insert", self._b(i), t])
        self.text = self.text[:i] + t + self.text[i:]
        return self

    def append(self, t):
        self.ops.append(["append", t])
        self.text += t
        return self

    def prepend(self, t):
        self.ops.append(["prepend", t])
        self.text = t + self.text
        return self

    def replace(self, old, new):
        assert old
        self.ops.append(["replace", old, new])
        self.text = self.text.replace(old, new)
        return self

    def ascii_upper(self):
        self.ops.append(["ascii_upper"])
        self.text = "".join(c.upper() if "a" <= c <= "z" else c for c in self.text)
        return self

    def ascii_lower(self):
        self.ops.append(["ascii_lower"])
        self.text = "".join(c.lower() if "A" <= c <= "Z" else c for c in self.text)
        return self

    def copy(self):
        m = Mut(self.src, self.text)
        m.ops = [list(o) for o in self.ops]
        return m


class Gen:
    def __init__(self, responses, inputs):
        self.R = responses
        self.inputs = inputs
        self.rng = random.Random(GEN_SEED)
        self.cases = []

    def mut(self, i=None):
        if i is None:
            i = self.rng.randrange(len(self.R))
        return Mut(i, self.R[i])

    def empty(self):
        return Mut(-1, "")

    def prefix(self, m, lo, hi, at_space=None):
        """Cut m to a random prefix of lo..hi characters (maybe mid-word)."""
        n = len(m.text)
        if n == 0:
            return m
        c = self.rng.randint(min(lo, n), min(hi, n))
        if at_space is None:
            at_space = self.rng.random() < 0.5
        if at_space:
            j = m.text.find(" ", c)
            c = j if j > 0 else n
        return m.slice(0, c)

    def insert_random(self, m, snippet, at_line=False):
        t = m.text
        if at_line:
            starts = [0] + [k + 1 for k, ch in enumerate(t) if ch == "\n"]
            i = self.rng.choice(starts)
        else:
            i = self.rng.randint(0, len(t))
        return m.insert(i, snippet)

    def loose_wrap(self, m, p=0.3):
        """Sometimes add a first line, a last line or bold markers."""
        r = self.rng.random()
        if r < p / 3:
            m.prepend(self.rng.choice(["Sure! Here is my answer:\n", "**Answer**\n", "Here you go.\n\n"]))
        elif r < 2 * p / 3:
            m.append(self.rng.choice(["\nI hope this helps!", "\n\n**Note:** written quickly.", "\n---"]))
        elif r < p:
            m.prepend("**").append("**")
        return m

    def add(self, family, m, ids, kwargs=None, from_key=None, note=""):
        c = {"family": family, "note": note, "src": m.src, "ops": [list(o) for o in m.ops],
             "sha256": hashlib.sha256(m.text.encode("utf-8")).hexdigest(), "_text": m.text}
        if from_key is not None:
            c["from_key"] = from_key
        else:
            c["instruction_id_list"] = ids
            c["kwargs"] = kwargs
        self.cases.append(c)

    def boundary(self, family, m, id_, kw, name, count, relations=("less than", "at least"), relname="relation",
                 note=""):
        """Cases at the threshold values around count for each relation."""
        for rel in relations:
            vals = (count - 1, count, count + 1) if rel == "at least" else (count, count + 1, count + 2)
            if rel is None:
                vals = (count - 1, count, count + 1)
            for v in vals:
                if v < 1:  # the official utils drop falsy kwargs and draw a random one
                    continue
                k = dict(kw)
                k[name] = v
                if rel is not None and relname:
                    k[relname] = rel
                self.add(family, m, [id_], [k], note=note or f"{name}={v} count={count} {rel or ''}".strip())


WORD_SNIPPETS = [" don't", " e-mail", " naïve café", " 3.14", " snake_case", " 日本語", " ٣٤", " x²", " O'Neil's",
                 " -- ", " C++", " U.S.A.", " ½", " ǅemal", " 🙂 ok", " Ⅻ", "\u00a0word", " tab\tword"]
SENT_SNIPPETS = [" e.g. this", " Dr. Smith said so.", " U.S. Army.", " Wait... what?", " J. R. R. Tolkien wrote it.",
                 "\n1. First item\n2. Second item", " It costs $3.50. Fine.", " Really?! Yes.", ' He said "stop." Then left.',
                 " Mr. and Mrs. Jones.", " etc. and so on.", " (See p. 4.) Next.", " i.e. nothing", "\n\n- a.\n- b.",
                 " No. 5 is here.", " Ph.D. students.", " He left.She came.", " Vol. II. The end.", " 10 a.m. today.",
                 " ...", " ?", " A. Lincoln.", " St. Louis.", " Inc. made it."]
SEPARATORS = ["\n***\n", "***", " *** ", "\n\n***\n\n", "\n****\n", "\n* * *\n", "\n***\n***\n", "\t***\t",
              "\n*** \n", "***\n\n"]
BULLETS = ["* item\n", "** bold item\n", "- dash item\n", "  * indented\n", "*no space\n", "-\n", "*\n", "--- rule\n",
           "***\n", "\t- tab dash\n", "*  two spaces\n", "• unicode bullet\n", "+ plus\n", "1. number\n",
           "*** stars\n", "-- double\n"]
HIGHLIGHTS = ["*x*", "**bold**", "* *", "**", "** **", "*a**", "***b***", "*multi word highlight*", "*a\nb*",
              "****", "*\u00a0*", "**x*", "*é*", "`*code*`", "*1*", "***"]
PLACEHOLDERS = ["[name]", "[]", "[a\nb]", "[[x]]", "[x] [y]", "[", "]", "[ ]", "[address][city]", "【x】", "[é]"]
POSTSCRIPTS = ["\n\nP.S. see you", "\nP.S see you", "\nP. S. note", "\nPS: note", "\np.s. note", "\nP.P.S more",
               "\nP.P.S. more", "\nP. P. S more", "\np.p.s", " P.S. inline", "\n  P.S.", "\nPPS more", "\nP.S.",
               "\nP.\tS. x", "\nP.S.S. x", "\n**P.S.** bold", "\nP.P.P.S x", "\nNote P.S. here"]
SECTION_HEADERS = ["{s} 1\n", "{s} 2", "{s}1\n", "{s}  3\n", "{s}\n4\n", "{s} X\n", "{u} 5\n", "{l} 6\n",
                   "*{s} 7*\n", "{s} ٣\n", "{s} 10: intro\n", "{s}-8\n", "{s} 1.2\n"]


def cut_text(t, lim=1500):
    return t if len(t) <= lim else t[:lim]


def words_of(t):
    return re.findall(r"[A-Za-z]{4,}", t)


def generate(g, u):
    rng = g.rng
    # number_words
    for _ in range(22):
        m = g.prefix(g.mut(), 20, 600)
        for _ in range(rng.randint(0, 2)):
            g.insert_random(m, rng.choice(WORD_SNIPPETS))
        g.loose_wrap(m)
        g.boundary("number_words", m, "length_constraints:number_words", {}, "num_words", u.count_words(m.text))
    # number_sentences
    for _ in range(24):
        m = g.prefix(g.mut(), 20, 500)
        for _ in range(rng.randint(1, 3)):
            g.insert_random(m, rng.choice(SENT_SNIPPETS))
        g.loose_wrap(m)
        g.boundary("number_sentences", m, "length_constraints:number_sentences", {}, "num_sentences",
                   u.count_sentences(m.text))
    for s in SENT_SNIPPETS:
        m = g.empty().append("Intro text here." + s + " Final words")
        g.boundary("number_sentences", m, "length_constraints:number_sentences", {}, "num_sentences",
                   u.count_sentences(m.text), relations=("at least",))

    # number_paragraphs
    def n_par(t):
        parts = re.split(r"\s?\*\*\*\s?", t)
        n = len(parts)
        for i, p in enumerate(parts):
            if not p.strip():
                if i in (0, len(parts) - 1):
                    n -= 1
                else:
                    return 0
        return n
    for k in range(26):
        m = g.mut()
        while m.text.count("\n\n") < 2:
            m = g.mut()
        m = g.prefix(m, 200, 1500)
        m.replace("\n\n", SEPARATORS[k % len(SEPARATORS)])
        r = rng.random()
        if r < 0.2:
            m.prepend("***\n")
        elif r < 0.4:
            m.append("\n***")
        elif r < 0.5:
            m.append("\n***\n   \n***\nTail")
        g.loose_wrap(m, 0.2)
        c = n_par(m.text) or rng.randint(1, 4)
        g.boundary("number_paragraphs", m, "length_constraints:number_paragraphs", {}, "num_paragraphs", c,
                   relations=(None,))

    # nth_paragraph_first_word
    def paras(t):
        ps = t.split("\n\n")
        return ps, len([p for p in ps if p.strip()])
    for _ in range(18):
        m = g.mut()
        while m.text.count("\n\n") < 2:
            m = g.mut()
        m = g.prefix(m, 150, 1200)
        ps, n = paras(m.text)
        nth = rng.randint(1, max(1, min(n, len(ps))))
        # decorate the first word of paragraph nth
        if rng.random() < 0.6 and nth <= len(ps):
            off = sum(len(p) + 2 for p in ps[:nth - 1])
            off += len(ps[nth - 1]) - len(ps[nth - 1].lstrip())
            m.insert(off, rng.choice(['"', "'", "\"'", "'\"", "**", "(", "“", "# ", "¿", "-"]))
        if rng.random() < 0.2:
            m.append(rng.choice(["\n\n", "\n\n\n\n", "\n\n \n\nEnd."]))
        ps, n = paras(m.text)
        p = ps[nth - 1].strip() if nth <= len(ps) else ""
        fw = ""
        if p:
            w = p.split()[0].strip().lstrip("'").lstrip('"')
            for ch in w:
                if ch in ".,?!'\"":
                    break
                fw += ch.lower()
        fw = fw or "the"
        for num, nn, word in [(n, nth, fw), (n - 1, nth, fw), (n + 1, nth, fw), (n, nth, fw.upper()),
                              (n, nth, fw + "."), (n, nth + 1, fw), (n, max(1, nth - 1), fw), (n, nth, fw[:-1] or "x")]:
            if num < 1:
                continue
            g.add("nth_paragraph_first_word", m, ["length_constraints:nth_paragraph_first_word"],
                  [{"num_paragraphs": num, "nth_paragraph": nn, "first_word": word}],
                  note=f"paragraphs={n} nth={nth} word={fw!r}")

    # bullets
    def n_bul(t):
        return len(re.findall(r"^\s*\*[^\*].*$", t, flags=re.M)) + len(re.findall(r"^\s*-.*$", t, flags=re.M))
    for _ in range(24):
        m = g.prefix(g.mut(), 50, 900)
        for _ in range(rng.randint(1, 5)):
            g.insert_random(m, rng.choice(BULLETS), at_line=True)
        g.loose_wrap(m)
        g.boundary("bullets", m, "detectable_format:number_bullet_lists", {}, "num_bullets", n_bul(m.text),
                   relations=(None,))

    # highlights
    def n_hl(t):
        n = 0
        for h in re.findall(r"\*[^\n\*]*\*", t):
            if h.strip("*").strip():
                n += 1
        for h in re.findall(r"\*\*[^\n\*]*\*\*", t):
            if h.removeprefix("**").removesuffix("**").strip():
                n += 1
        return n
    for _ in range(24):
        m = g.prefix(g.mut(), 30, 900)
        for _ in range(rng.randint(1, 4)):
            g.insert_random(m, rng.choice(HIGHLIGHTS))
        g.loose_wrap(m)
        g.boundary("highlights", m, "detectable_format:number_highlighted_sections", {}, "num_highlights",
                   n_hl(m.text), relations=("at least",), relname=None)

    # placeholders
    for _ in range(18):
        m = g.prefix(g.mut(), 30, 900)
        for _ in range(rng.randint(1, 4)):
            g.insert_random(m, rng.choice(PLACEHOLDERS))
        g.loose_wrap(m)
        g.boundary("placeholders", m, "detectable_content:number_placeholders", {}, "num_placeholders",
                   len(re.findall(r"\[.*?\]", m.text)), relations=("at least",), relname=None)

    # postscript
    for ps in POSTSCRIPTS:
        for marker in ("P.S.", "P.P.S", "P.S", "PS:"):
            m = g.prefix(g.mut(), 30, 400).append(ps)
            if rng.random() < 0.3:
                m.append(rng.choice(["\n", "  ", "\n\nBye."]))
            g.add("postscript", m, ["detectable_content:postscript"], [{"postscript_marker": marker}], note=repr(ps))

    # sections
    for k in range(26):
        s = ["SECTION", "Section", "PARAGRAPH", "Day", "Audience"][k % 5]
        m = g.prefix(g.mut(), 30, 700)
        for _ in range(rng.randint(1, 4)):
            h = rng.choice(SECTION_HEADERS).format(s=s, u=s.upper(), l=s.lower())
            g.insert_random(m, h, at_line=rng.random() < 0.7)
        g.loose_wrap(m)
        pat = r"\s?" + s + r"\s?\d+\s?"
        g.boundary("sections", m, "detectable_format:multiple_sections", {"section_spliter": s}, "num_sections",
                   len(re.split(pat, m.text)) - 1, relations=("at least",), relname=None)

    # json
    def as_json_string(m):
        return (m.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
                .replace("\r", "\\r"))
    json_wraps = [("{\"answer\": \"", "\"}"), ("```json\n{\"answer\": \"", "\"}\n```"), ("```JSON\n[\"", "\"]\n```"),
                  ("```Json\n{\"a\": \"", "\"}```"), ("```\n{\"a\": \"", "\"}\n```"), ("``` json\n{\"a\": \"", "\"}\n```"),
                  ("{\"a\": \"", "\"}\nThat is the JSON."), ("Here is JSON:\n{\"a\": \"", "\"}"),
                  ("{'a': \"", "\"}"), ("{\"a\": \"", "\",}"), ("\"", "\""), ("{\"a\": NaN, \"b\": \"", "\"}"),
                  ("  \n```json\n{\"a\": \"", "\"}\n```\n\n"), ("```json\n```json\n{\"a\": \"", "\"}\n```"),
                  ("{\"a\": \"", "\"}\n```"), ("[1, 2, \"", "\"]"), ("{\"a\": Infinity, \"s\": \"", "\"}"),
                  ("{\"a\": \"", "\"}{\"b\": 1}"), ("{\"a\" : \"", "\" }  "), ("\ufeff{\"a\": \"", "\"}")]
    for pre, post in json_wraps:
        for raw in (False, True):
            m = g.prefix(g.mut(), 10, 200)
            if not raw:
                as_json_string(m)
            m.prepend(pre).append(post)
            g.add("json", m, ["detectable_format:json_format"], [{}], note=("raw " if raw else "") + repr(pre))
    for t in ["true", "null", "3", "-0.5e3", "[]", "{}", "\"x\"", "NaN", "tru", "1 2", "01", "{\"a\":1}\n```",
              "```json {\"a\": 1} ```", "```\n```", "{\"a\": \"\\ud800\"}", "{\"a\": \"\u0001\"}", "[1,]", "\"\\x\"",
              "[1NaN]", "[-NaN]", "1.5Infinity", "1eNaN", "[- Infinity]", "[NaN, -Infinity]", "0NaN", "-Infinity",
              "{\"NaN\": NaN}", "[\"Infinity\", Infinity]", "Infinity1", "--Infinity", "nan", "[-0]"]:
        g.add("json", g.empty().append(t), ["detectable_format:json_format"], [{}], note=repr(t))

    # title
    for t in ["<<Title>>\n", "<< >>\n", "<<>>\n", "<<a\nb>>\n", "<<<x>>>\n", "«x»\n", "<<  x  >>", "<<\t>>",
              "<<*>>", "<< x >> y", "<x>\n", "<<<>>>", "<<a>> <<>>", "<<\u00a0>>"]:
        for place in ("start", "end", "middle"):
            m = g.prefix(g.mut(), 20, 300)
            if place == "start":
                m.prepend(t)
            elif place == "end":
                m.append("\n" + t)
            else:
                g.insert_random(m, t)
            g.add("title", m, ["detectable_format:title"], [{}], note=f"{t!r} {place}")

    # quotation
    for pre, post in [('"', '"'), ('"', ''), ('', '"'), ('“', '”'), (' "', '"\n'), ('"', '".'), ("'", "'"),
                      ('""', '""'), ('\n"', '"  '), ('**"', '"**'), ('"', '"\nThanks'), ('Quote:\n"', '"'),
                      ('＂', '＂'), ('"', '"\u00a0')]:
        m = g.prefix(g.mut(), 5, 300).prepend(pre).append(post)
        g.add("quotation", m, ["startend:quotation"], [{}], note=repr((pre, post)))
    for t in ['"', '""', '" "', '"a"', 'a']:
        g.add("quotation", g.empty().append(t), ["startend:quotation"], [{}], note=repr(t))

    # end_checker
    phrases = ["Is there anything else I can help with?", "Any other questions?", "Peace!", "in India.",
               "Let me know if you have additional questions.", "your love, and thanks.", "Yes Mom, I am Dave.",
               "Call me at 631-481-4867"]
    for ph in phrases:
        for variant in [ph, ph + "  ", ph + "\n\n", ph.lower(), ph.upper(), ph.rstrip(".?!"), '"' + ph + '"',
                        ph + '"', "**" + ph + "**", ph + "\nBye", ph + " :)", ph[:-1] + " " + ph[-1]]:
            m = g.prefix(g.mut(), 20, 300).append(" " + variant)
            kw_phrase = ph if rng.random() < 0.8 else "  " + ph + " "
            g.add("end_checker", m, ["startend:end_checker"], [{"end_phrase": kw_phrase}], note=repr(variant))

    # keywords existence
    for _ in range(22):
        m = g.prefix(g.mut(), 100, 800)
        ws = words_of(m.text) or ["zebra"]
        w = rng.choice(ws)
        other = rng.choice(ws)
        variants = [[w], [w.upper()], [w[1:]], [w + "s"], [w, other], [" " + w], [w[:3]]]
        for kw in variants:
            g.add("keywords_existence", m, ["keywords:existence"], [{"keywords": kw}], note="present")
        m2 = m.copy().replace(w, "")
        g.add("keywords_existence", m2, ["keywords:existence"], [{"keywords": [w]}], note="removed (same case)")
        m3 = m.copy().replace(w, w.upper())
        g.add("keywords_existence", m3, ["keywords:existence"], [{"keywords": [w.lower()]}], note="upper-cased")

    # keyword frequency
    for _ in range(22):
        m = g.prefix(g.mut(), 100, 900)
        ws = words_of(m.text) or ["zebra"]
        w = rng.choice(ws)
        for _ in range(rng.randint(0, 3)):
            g.insert_random(m, rng.choice([" " + w.upper() + " ", w.lower() + "ing", " (" + w + ")", w[:-1]]))
        kww = w if rng.random() < 0.8 else " " + w.lower() + " "
        g.loose_wrap(m)
        cnt = len(re.findall(kww.strip(), m.text, flags=re.IGNORECASE))
        g.boundary("keywords_frequency", m, "keywords:frequency", {"keyword": kww}, "frequency", cnt)

    # forbidden words
    for _ in range(22):
        m = g.prefix(g.mut(), 100, 900)
        ws = words_of(m.text) or ["zebra"]
        w = rng.choice(ws).lower()
        g.add("forbidden_words", m, ["keywords:forbidden_words"], [{"forbidden_words": [w, "zzzz"]}], note="present")
        for repl in [w + "s", "un" + w, w.upper(), w + "_x", w + "é", "é" + w, w + "'s", w + "-like", "x" + w + "2",
                     w[:-1], "2" + w]:
            m2 = m.copy().replace(w, "").append(" " + repl + " end")
            g.add("forbidden_words", m2, ["keywords:forbidden_words"], [{"forbidden_words": [w]}],
                  note=f"{repl!r} after removing {w!r}")

    # letter frequency
    for _ in range(18):
        m = g.prefix(g.mut(), 20, 400)
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
        for _ in range(rng.randint(0, 3)):
            g.insert_random(m, rng.choice([letter.upper(), letter, "é", letter * 2]))
        kl = letter.upper() if rng.random() < 0.3 else letter
        g.loose_wrap(m)
        g.boundary("letter_frequency", m, "keywords:letter_frequency", {"letter": kl}, "let_frequency",
                   m.text.lower().count(letter), relname="let_relation")

    # capital word frequency
    caps = [" USA", " U.S.A.", " I", " A", " NASA's", " CO2", " HELLO-WORLD", " ÉTÉ", " 1ST", " OK.", " AI-driven",
            " DON'T", " IBM/ATT", " Ⅻ", " ß", " TL;DR", " (FAQ)", " X", " A.I."]
    for _ in range(22):
        m = g.prefix(g.mut(), 50, 700)
        for _ in range(rng.randint(1, 4)):
            g.insert_random(m, rng.choice(caps))
        g.loose_wrap(m)
        cnt = len([w for w in u.nltk.word_tokenize(m.text) if w.isupper()])
        g.boundary("capital_word_frequency", m, "change_case:capital_word_frequency", {}, "capital_frequency", cnt,
                   relname="capital_relation")

    # english_lowercase / english_capital
    def ascii_mut(lo, hi):
        for _ in range(50):
            m = g.prefix(g.mut(), lo, hi, at_space=True)
            if m.text.isascii() and m.text.strip():
                return m
        return g.empty().append("plain ascii text here")
    for k in range(30):
        upper = k % 2 == 1
        m = ascii_mut(5, 200 if k % 3 else 40)
        m.ascii_upper() if upper else m.ascii_lower()
        r = rng.random()
        note = "clean"
        if r < 0.5:
            s = rng.choice(["ß", "Ⅻ", "ⅻ", "ǅ", "º", "É", "é", "X", "x", " 123 ", "İ", "ﬁ", "ΣΑΣ", "σας"])
            g.insert_random(m, s)
            note = repr(s)
        iid = "change_case:english_capital" if upper else "change_case:english_lowercase"
        g.add("change_case", m, [iid], [{}], note=note)
        g.add("change_case", m.copy().prepend("Here Is The Answer:\n"), [iid], [{}], note=note + " +first line")

    # response_language
    for k in range(34):
        m = g.prefix(g.mut(), 3, 60 if k % 2 else 300, at_space=True)
        if k % 5 == 0:
            m.ascii_lower()
        for lang in ("en", rng.choice(["de", "fr", "it", "es", "pt", "fi", "hi", "sw", "ru"])):
            g.add("response_language", m, ["language:response_language"], [{"language": lang}])

    # very short fragments: langdetect's verdict depends most on its seed
    for k in range(80):
        i = rng.randrange(len(g.R))
        ws = [mm.start() for mm in re.finditer(r"\S+", g.R[i])]
        if len(ws) < 6:
            continue
        a = rng.randrange(len(ws) - 5)
        b = a + rng.randint(1, 4)
        m = Mut(i, g.R[i])
        m.slice(ws[a], ws[b])
        if k % 4 == 1:
            m.ascii_lower()
        elif k % 4 == 2:
            m.ascii_upper()
        iid = ["language:response_language", "change_case:english_lowercase", "change_case:english_capital"][k % 3]
        kw = {"language": rng.choice(["en", "en", "de", "fr", "it", "es", "pt", "fi", "sw"])} if k % 3 == 0 else {}
        g.add("short_fragment", m, [iid], [kw])

    # no_comma
    for s in [",", "，", "‚", "、", "،", ";", "٫", "\uff0c", "﹐", " , ", "\\,"]:
        m = g.prefix(g.mut(), 20, 300).replace(",", "")
        g.add("no_comma", m, ["punctuation:no_comma"], [{}], note="commas removed")
        g.insert_random(m, s)
        g.add("no_comma", m, ["punctuation:no_comma"], [{}], note=repr(s))

    # repeat_prompt
    prompts = ["Write a poem about a cat. Use no commas.", "  Tell me a joke.  ", "What is 2+2? Answer in JSON.",
               "Describe İstanbul in one line.", "List *three* fruits.", "Explain\nthe sky."]
    for p in prompts:
        ps = p.strip()
        for resp in [ps, ps.upper(), ps.lower(), "  \n" + ps, ps[:-1], ps.replace(" ", "  "),
                     "Sure.\n" + ps, ps.replace("*", "")]:
            m = g.prefix(g.mut(), 10, 200).prepend(resp + "\n\n")
            g.add("repeat_prompt", m, ["combination:repeat_prompt"], [{"prompt_to_repeat": p}], note=repr(resp[:20]))

    # two_responses
    for j, (sep, mode) in enumerate([("******", "diff"), ("******", "same"), ("*******", "diff"), ("\n******\n", "diff"),
                                     ("\n******\n", "samews"), ("*****", "diff"), ("******", "three"),
                                     ("******", "leading"), ("******", "trailing"), ("******", "emptymid"),
                                     ("* * * * * *", "diff"), ("************", "diff")] * 3):
        a = g.prefix(g.mut(), 10, 200)
        b = g.mut()
        bt = b.text[:100]
        first = a.text
        if mode == "same":
            a.append(sep + first)
        elif mode == "samews":
            a.append(sep + "  " + first + "\n")
        elif mode == "three":
            a.append(sep + bt + sep + "third")
        elif mode == "leading":
            a.prepend(sep).append(sep + bt)
        elif mode == "trailing":
            a.append(sep + bt + sep + "\n")
        elif mode == "emptymid":
            a.append(sep + "  " + sep + bt)
        else:
            a.append(sep + bt)
        if j >= 12:
            g.loose_wrap(a, 0.6)
        g.add("two_responses", a, ["combination:two_responses"], [{}], note=f"{sep!r} {mode}")

    # constrained_response
    for t in ["My answer is yes.", "My answer is no.", "My answer is maybe.", "my answer is yes.", "My answer is yes",
              "My answer is Yes.", "My answer is maybe", "My  answer is no.", "Answer: My answer is no. Because.",
              "My answer is yes!", "My answer is no..", "**My answer is yes.**", "My answer is: yes.",
              "My answer is no.\n", "My answer is probably."]:
        m = g.prefix(g.mut(), 0, 200)
        if rng.random() < 0.5:
            m.append("\n" + t)
        else:
            m.prepend(t + "\n")
        g.add("constrained_response", m, ["detectable_format:constrained_response"], [{}], note=repr(t))

    # contractions and punctuation that nltk.word_tokenize splits
    nltk_caps = [" CANNOT", " GONNA", " WANNA", " GOTTA", " LEMME", " MORE'N", " 'TIS", " 'TWAS", " D'YE", " GIMME",
                 " I'M", " YOU'RE", " HE'LL", " WON'T", " ``QUOTED''", ' "QUOTE"', " E.G.", " ETC.", " [ABC]",
                 " A&B", " #TAG", " $USD", " HELLO!!!", " WHAT?", " 'S", " USA'S", " <TAG>", " X:Y", " L.A.", " 'EM",
                 " Y'ALL", " CAN'T", " AIN'T", " «X»", " “X”", " ¿QUÉ?", " -X-", " X/Y", " '90S", " OK...\"A"]
    for _ in range(30):
        m = g.prefix(g.mut(), 30, 500)
        for _ in range(rng.randint(1, 4)):
            g.insert_random(m, rng.choice(nltk_caps))
        if rng.random() < 0.3:
            m.ascii_upper()
        cnt = len([w for w in u.nltk.word_tokenize(m.text) if w.isupper()])
        g.boundary("capital_word_frequency_nltk", m, "change_case:capital_word_frequency", {}, "capital_frequency",
                   cnt, relname="capital_relation")

    # Unicode noise: characters assigned in Python's Unicode database
    # inserted at random, for the counting and matching checkers
    import unicodedata

    def noise_char():
        while True:
            c = chr(rng.choice([rng.randint(0x80, 0x2FFF), rng.randint(0x3000, 0xFFFD), rng.randint(0x10000, 0x1FFFF),
                                rng.randint(0x20, 0x7E)]))
            if unicodedata.category(c) not in ("Cn", "Cs", "Co"):
                return c
    for k in range(60):
        m = g.prefix(g.mut(), 20, 300)
        for _ in range(rng.randint(1, 6)):
            g.insert_random(m, noise_char() * rng.randint(1, 2))
        t = m.text
        ws = words_of(t) or ["zebra"]
        w = rng.choice(ws)
        kind = k % 6
        if kind == 0:
            g.boundary("unicode_noise", m, "length_constraints:number_words", {}, "num_words", u.count_words(t),
                       relations=("at least",))
        elif kind == 1:
            g.boundary("unicode_noise", m, "length_constraints:number_sentences", {}, "num_sentences",
                       u.count_sentences(t), relations=("less than",))
        elif kind == 2:
            cnt = len([x for x in u.nltk.word_tokenize(t) if x.isupper()])
            g.boundary("unicode_noise", m, "change_case:capital_word_frequency", {}, "capital_frequency", cnt,
                       relations=("at least",), relname="capital_relation")
        elif kind == 3:
            g.add("unicode_noise", m, ["keywords:forbidden_words"], [{"forbidden_words": [w.lower(), w.upper()]}])
            g.add("unicode_noise", m, ["keywords:existence"], [{"keywords": [w.swapcase()]}])
        elif kind == 4:
            cnt = len(re.findall(w, t, flags=re.IGNORECASE))
            g.boundary("unicode_noise", m, "keywords:frequency", {"keyword": w.upper()}, "frequency", cnt,
                       relations=("at least",))
        else:
            lt = rng.choice("abcdefghijklmnopqrstuvwxyz")
            g.boundary("unicode_noise", m, "keywords:letter_frequency", {"letter": lt}, "let_frequency",
                       t.lower().count(lt), relations=("at least",), relname="let_relation")
    for t in ["ǅemal", "ß", "İstanbul", "ΣΑΣ", "ſ", "K", "ﬁ", "Ω", "µ", "ẞ", "ῼ", "ǰ", "ŉ", "Å", "ΐ"]:
        for kw in (t, t.lower(), t.upper()):
            m = g.empty().append("Start " + t + " end")
            g.add("unicode_case", m, ["keywords:existence"], [{"keywords": [kw]}], note=repr(kw))
            g.add("unicode_case", m, ["keywords:forbidden_words"], [{"forbidden_words": [kw]}], note=repr(kw))
            g.add("unicode_case", m, ["startend:end_checker"], [{"end_phrase": kw + " end"}], note=repr(kw))
            g.add("unicode_case", m, ["combination:repeat_prompt"], [{"prompt_to_repeat": "start " + kw}],
                  note=repr(kw))

    # Windows line ends: "\r" before every "\n"
    for k in range(24):
        m = g.mut()
        while m.text.count("\n") < 3:
            m = g.mut()
        m = g.prefix(m, 100, 700)
        g.insert_random(m, rng.choice(BULLETS + ["P.S. crlf\n", "SECTION 9\n", "*hl*\n", "<<t>>\n"]), at_line=True)
        if k % 3 == 0:
            m.prepend('"').append('"')
        m.replace("\n", "\r\n")
        t = m.text
        g.add("crlf", m, ["detectable_content:postscript", "detectable_format:title", "startend:quotation",
                          "combination:two_responses", "detectable_format:json_format",
                          "startend:end_checker"], [{"postscript_marker": "P.S."}, {}, {}, {}, {}, {"end_phrase": t.strip()[-8:]}])
        g.boundary("crlf", m, "detectable_format:number_bullet_lists", {}, "num_bullets", n_bul(t), relations=(None,))
        g.boundary("crlf", m, "length_constraints:number_paragraphs", {}, "num_paragraphs", n_par(t) or 1,
                   relations=(None,))
        ps, n = paras(t)
        g.add("crlf", m, ["length_constraints:nth_paragraph_first_word"],
              [{"num_paragraphs": n, "nth_paragraph": 1, "first_word": (t.split() or ["x"])[0].lower()}])
        g.boundary("crlf", m, "length_constraints:number_sentences", {}, "num_sentences", u.count_sentences(t),
                   relations=("at least",))
        cnt = len([w for w in u.nltk.word_tokenize(t) if w.isupper()])
        g.boundary("crlf", m, "change_case:capital_word_frequency", {}, "capital_frequency", cnt,
                   relations=("less than",), relname="capital_relation")

    # letters Python's re.IGNORECASE relates beyond Unicode case folding
    for t, kw in [("İSTANBUL", "istanbul"), ("Istanbul", "ıstanbul"), ("ın", "in"), ("\u1fd3", "\u0390"),
                  ("\u03b0", "\u1fe3"), ("\ufb06", "\ufb05"), ("DİNÇ", "dinç"), ("kıyı", "KIYI")]:
        m = g.prefix(g.mut(), 20, 200).append(" " + t + " " + t + ".")
        g.add("unicode_case", m, ["keywords:existence"], [{"keywords": [kw]}], note=repr(kw))
        g.add("unicode_case", m, ["keywords:forbidden_words"], [{"forbidden_words": [kw]}], note=repr(kw))
        g.boundary("unicode_case", m, "keywords:frequency", {"keyword": kw}, "frequency",
                   len(re.findall(kw, m.text, flags=re.IGNORECASE)))

    # characters Unicode 15.0 added (unassigned in Python 3.11's 14.0)
    for t in ["ab\U00011F04cd ef", "x \U0001E4D0\U0001E4F0 y", "ab\U00031350cd", "word\u10FC", "\uA7F2bc"]:
        m = g.empty().append(t)
        g.boundary("unicode15", m, "length_constraints:number_words", {}, "num_words", u.count_words(t),
                   relations=("at least",))
        g.add("unicode15", m, ["keywords:forbidden_words"], [{"forbidden_words": ["ab", "cd", "word", "bc"]}])
        g.add("unicode15", m, ["change_case:english_lowercase"], [{}])
    for t in ["SECTION \U00011F51 a SECTION 2 b", "SECTION \U0001E4F1 x", "SECTION \u0663 y SECTION\u0967 z"]:
        m = g.empty().append(t)
        g.boundary("unicode15", m, "detectable_format:multiple_sections", {"section_spliter": "SECTION"},
                   "num_sections", len(re.split(r"\s?SECTION\s?\d+\s?", t)) - 1, relations=("at least",),
                   relname=None)

    # combination: original prompts' instruction lists on mutated responses
    keys = sorted(g.inputs)
    for _ in range(30):
        i = rng.randrange(len(g.R))
        key = g.inputs.get(g.prompts[i])
        if key is None:
            continue
        base = Mut(i, g.R[i])
        g.add("combination", base.copy(), None, from_key=key, note="original")
        g.add("combination", base.copy().prepend("Sure, here it is:\n"), None, from_key=key, note="+first line")
        g.add("combination", base.copy().append("\nHope this helps!"), None, from_key=key, note="+last line")
        g.add("combination", g.prefix(base.copy(), len(base.text) // 2, len(base.text)), None, from_key=key,
              note="prefix")
    del keys


def main():
    official, shared = sys.argv[1], sys.argv[2]
    utils = gen_official.load_official(official)
    u = sys.modules["lm_eval.tasks.ifeval.instructions_util"]
    path = os.path.join(shared, "conformance", "ifeval", "input_response_data_gpt4_20231107_145030.jsonl")
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    inputs = {}
    kw_by_key = {}
    for line in open(os.path.join(shared, "datasets", "ifeval", "input_data.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        inputs[r["prompt"]] = r["key"]
        kw_by_key[r["key"]] = r
    g = Gen([r["response"] for r in rows], inputs)
    g.prompts = [r["prompt"] for r in rows]
    generate(g, u)
    seeds = list(range(5))
    out = []
    for c in g.cases:
        text = c.pop("_text")
        if "from_key" in c:
            r = kw_by_key[c["from_key"]]
            ids, kws = r["instruction_id_list"], r["kwargs"]
            prompt = r["prompt"]
        else:
            ids, kws, prompt = c["instruction_id_list"], c["kwargs"], ""
        inp = utils.InputExample(key=0, instruction_id_list=ids, prompt=prompt, kwargs=kws)
        strict, loose = [], []
        for s in seeds:
            DetectorFactory.seed = s
            random.seed(s)
            strict.append(utils.test_instruction_following_strict(inp, text).follow_instruction_list)
            loose.append(utils.test_instruction_following_loose(inp, text).follow_instruction_list)
        # Instructions whose build_description draws a kwarg from the
        # global random module: their official verdict is random.
        rand = []
        for j in range(len(ids)):
            state = random.getstate()
            one = utils.InputExample(key=0, instruction_id_list=[ids[j]], prompt=prompt, kwargs=[kws[j]])
            utils.test_instruction_following_strict(one, text)
            if random.getstate() != state:
                rand.append(j)
        if rand:
            c["random_kwarg"] = rand
        c["strict"], c["loose"] = strict, loose
        out.append(c)
    doc = {
        "generator": "gen_boundary.py",
        "official_code": "EleutherAI/lm-evaluation-harness lm_eval/tasks/ifeval @ " + open(os.path.join(official, "COMMIT")).read().strip(),
        "source": "conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl",
        "langdetect": "Debian python3-langdetect 1.0.9-1",
        "nltk": u.nltk.__version__ + " (English Punkt model sha256 5cad3758596392364e3be9803dbd7ebeda384b68937b488a01365f5551bb942c)",
        "python": sys.version.split()[0],
        "seeds": seeds,
        "cases": out,
    }
    sys.stdout.write("{\n")
    for k in list(doc)[:-1]:
        sys.stdout.write(" %s: %s,\n" % (json.dumps(k), json.dumps(doc[k], ensure_ascii=False)))
    sys.stdout.write(' "cases": [\n')
    sys.stdout.write(",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in out))
    sys.stdout.write("\n ]\n}\n")


if __name__ == "__main__":
    main()
