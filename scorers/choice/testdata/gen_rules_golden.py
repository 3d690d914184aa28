#!/usr/bin/env python3
"""Writes rules_golden.json: what the official answer extractors return,
for the differential test of scorers/choice's rules (rules_test.go).

The extractors are re-written here from their published Python (read, not
copied), with the same regular expressions and control flow:
  - mmlu_pro: TIGER-AI-Lab/MMLU-Pro evaluate_from_local.py extract_answer /
    extract_again / extract_final (commit f418b11);
  - gaokao: OpenLMLab/GAOKAO-Bench Bench/bench_function.py
    extract_choice_answer, question_type 'single_choice' (commit 6dbb24f);
  - opencompass_first_option, opencompass_first_capital,
    opencompass_answer_pattern: open-compass/opencompass
    opencompass/utils/text_postprocessors.py first_option_postprocess,
    first_capital_postprocess, match_answer_pattern with
    cmmlu_0shot_cot_gen_305931's pattern (commit a5acc4bb).

Usage:
  python3 gen_rules_golden.py > rules_golden.json
      the adversarial cases below;
  python3 gen_rules_golden.py --outputs FILE... > /tmp/replay.json
      every output of MMLU-Pro eval_results model_outputs_*.json files
      (generated_text, 10 options) or GAOKAO-Bench Results/*_obj/*.json
      files (model_output of single_choice keywords, 4 options); replay it
      with POCKETEVAL_CHOICE_REPLAY=/tmp/replay.json go test -run
      TestRulesReplay ./scorers/choice (outputs are not committed).
"""
import json
import re
import sys


def mmlu_pro(text, n):
    m = re.search(r"answer is \(?([A-J])\)?", text)
    if m:
        return m.group(1)
    m = re.search(r".*[aA]nswer:\s*([A-J])", text)
    if m:
        return m.group(1)
    m = re.search(r"\b[A-J]\b(?!.*\b[A-J]\b)", text, re.DOTALL)
    if m:
        return m.group(0)
    return ""


def gaokao(text, n):
    temp = re.findall(r"[A-D]", text[::-1])
    return temp[0] if temp else ""


def first_capital(text, n):
    for t in text:
        if t.isupper():
            return t
    return ""


def letters(n):
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n]


def answer_pattern(text, n):
    m = re.search(r"(?i)答案\s*:\s*[\W]*([" + letters(n) + r"])[\W]*", text)
    return m.group(1) if m else ""


def first_option(text, n):
    options = letters(n)
    o = options
    patterns = [
        rf"答案是?\s*([{o}])", rf"答案是?\s*：\s*([{o}])", rf"答案是?\s*:\s*([{o}])",
        rf"答案选项应?该?是\s*([{o}])", rf"答案选项应?该?为\s*([{o}])", rf"答案应该?是\s*([{o}])",
        rf"答案应该?选\s*([{o}])", rf"答案选项为?\s*：\s*([{o}])",
        rf"答案选项为?\s+\(?\*?\*?([{o}])\*?\*?\)?", rf"答案选项是?\s*:\s*([{o}])",
        rf"答案为\s*([{o}])", rf"答案选\s*([{o}])", rf"选择?\s*([{o}])",
        # the official list has no comma here: Python joins the two strings
        rf"故选?\s*([{o}])" rf"只有选?项?\s?([{o}])\s?是?对",
        rf"只有选?项?\s?([{o}])\s?是?错", rf"只有选?项?\s?([{o}])\s?不?正确",
        rf"只有选?项?\s?([{o}])\s?错误", rf"说法不?对选?项?的?是\s?([{o}])",
        rf"说法不?正确选?项?的?是\s?([{o}])", rf"说法错误选?项?的?是\s?([{o}])",
        rf"([{o}])\s?是正确的", rf"([{o}])\s?是正确答案", rf"选项\s?([{o}])\s?正确",
        rf"所以答\s?([{o}])", rf"所以\s?([{o}][.。$]?$)", rf"所有\s?([{o}][.。$]?$)",
        rf"[\s，：:,]([{o}])[。，,\.]?$", rf"[\s，,：:][故即]([{o}])[。\.]?$",
        rf"[\s，,：:]因此([{o}])[。\.]?$", rf"[是为。]\s?([{o}])[。\.]?$",
        rf"因此\s?([{o}])[。\.]?$", rf"显然\s?([{o}])[。\.]?$",
        r"答案是\s?(\S+)(?:。|$)", r"答案应该是\s?(\S+)(?:。|$)", r"答案为\s?(\S+)(?:。|$)",
        rf"(?i)ANSWER\s*:\s*([{o}])", rf"[Tt]he answer is:?\s+\(?([{o}])\)?",
        rf"[Tt]he answer is:?\s+\(?\*?\*?([{o}])\*?\*?\)?",
        rf"[Tt]he answer is option:?\s+\(?([{o}])\)?",
        rf"[Tt]he correct answer is:?\s+\(?([{o}])\)?",
        rf"[Tt]he correct answer is option:?\s+\(?([{o}])\)?",
        rf"[Tt]he correct answer is:?.*?boxed{{([{o}])}}",
        rf"[Tt]he correct option is:?.*?boxed{{([{o}])}}",
        rf"[Tt]he correct answer option is:?.*?boxed{{([{o}])}}",
        rf"[Tt]he answer to the question is:?\s+\(?([{o}])\)?",
        rf"^选项\s?([{o}])", rf"^([{o}])\s?选?项", rf"(\s|^)[{o}][\s。，,：:\.$]",
        r"1.\s?(.*?)$", rf"1.\s?([{o}])[.。$]?$",
        rf"([{o}]):", rf"([{o}])",
    ]
    for pattern in patterns:
        text = text.strip()
        match = re.search(pattern, text, re.DOTALL)
        if match:
            if match.group(1) is not None and match.group(1) != "":
                outputs = match.group(1)
            else:
                outputs = match.group(0)
            for i in options:
                if i in outputs:
                    return i
    return ""


RULES = {
    "mmlu_pro": mmlu_pro,
    "gaokao": gaokao,
    "opencompass_first_option": first_option,
    "opencompass_first_capital": first_capital,
    "opencompass_answer_pattern": answer_pattern,
}

TEXTS = [
    "", "B", " b", "The answer is (C).", "the answer is D", "The answer is Because of E",
    "answer is (J)", "Answer: B\nAnswer: C", "x\nFinal answer: D then answer: E\nAnswer: F",
    "Answer:\n\nG", "answer:   h", "I pick A. Then B", "$$E=mc^2$$", "K = F (i)",
    "so the result is E.", "【答案】: A <eoa>", "【答案】B，D <eoa>", "【答案】: 无正确答案 <eoa>",
    "【解析】因为A项错误，所以选C。 <eoe>\n【答案】: C <eoa>", "所以答案是D。", "答案：A", "答案: a",
    "答案: **B**", "答案是 (C)", "正确答案为（B）", "故选B。", "故选B只有C是对", "只有选项C正确",
    "B是正确的", "所以C", "因此D。", "显然A.", "The correct answer is \\boxed{C}",
    "The answer to the question is (B)", "选项D", "A选项", " A ", "1. C", "A: maybe",
    "The answer is E", "ABCD", "DCBA", "Ｂ", "ÉB", "Ⅻ C", "ǅ A", "αΒ", "ANSWER : d",
    "答案\n:\nC", "答案: --D--", "answer is (K)", "Answer:K", "\\b A \\b", "A_B C",
    "1.5 is wrong, 2. B", "[B]", "The answer is: (D)", "the answer is **C**",
]


def cases_from_outputs(paths):
    out = []
    single = ("Math_II_MCQs", "Math_I_MCQs", "History_MCQs", "Biology_MCQs",
              "Political_Science_MCQs", "Chemistry_MCQs", "English_MCQs")
    for p in paths:
        with open(p, encoding="utf-8") as f:
            d = json.load(f)
        if isinstance(d, list):
            for e in d:
                out.append((e["generated_text"], len(e["options"]), e["answer"], "mmlu_pro"))
        elif any(s in d.get("keyword", "") for s in single):
            for e in d["example"]:
                out.append((e["model_output"], 4, e["standard_answer"][0], "gaokao"))
    return out


def main():
    published = len(sys.argv) > 1 and sys.argv[1] == "--outputs"
    if published:
        items = cases_from_outputs(sys.argv[2:])
    else:
        items = [(t, n, "", "") for t in TEXTS for n in (4, 10)]
    cases = []
    for text, n, gold, source in items:
        rules = RULES
        if source == "mmlu_pro":
            # MMLU-Pro outputs: its own rule (OpenCompass's fifty patterns
            # over 36,000 long outputs take Python hours)
            rules = {"mmlu_pro": mmlu_pro}
        cases.append({"text": text, "n": n, "gold": gold, "source": source,
                      "want": {name: f(text, n) for name, f in rules.items()}})
    json.dump({"generator": "scorers/choice/testdata/gen_rules_golden.py",
               "python": sys.version.split()[0], "cases": cases},
              sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
