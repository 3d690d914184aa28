# Generates langdetect_gpt4.json: the language langdetect 1.0.9 (Debian
# python3-langdetect) assigns, with seeds 0, 1 and 2, to four variants of
# each official GPT-4 IFEval response (as is, lower-cased, upper-cased, first
# line removed), in file order. Only labels are stored; the texts are read
# from ../shared/conformance at test time. Used to measure how often
# pocketeval's deterministic detector agrees with langdetect on English vs
# not English; langdetect's profiles are not used by pocketeval.
#
#   /usr/bin/python3 gen_langdetect_golden.py ../../../../shared/conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl > langdetect_gpt4.json
import json, sys
from langdetect import DetectorFactory, detect_langs
from langdetect.lang_detect_exception import LangDetectException

labels = []
for line in open(sys.argv[1]):
    r = json.loads(line)["response"]
    for text in (r, r.lower(), r.upper(), "\n".join(r.split("\n")[1:]).strip()):
        res = []
        for seed in (0, 1, 2):
            DetectorFactory.seed = seed
            try:
                res.append(detect_langs(text)[0].lang)
            except LangDetectException:
                res.append("")
        labels.append(res)
json.dump({"variants": ["as is", "lower", "upper", "first line removed"], "labels": labels}, sys.stdout)
