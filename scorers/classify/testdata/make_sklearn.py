# Makes sklearn.json: scikit-learn's accuracy, per-label precision/recall/F1
# and macro-F1 for label predictions (Debian python3-sklearn 1.2.1).
# "" is a response that matched no label; it is left out of the label set,
# as the classify package documents.
# Run: /usr/bin/python3 make_sklearn.py > sklearn.json
import json
import sys

from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support

cases = [
    (["play_music", "weather", "alarm", "weather", "alarm", "play_music", "navigate"],
     ["play_music", "weather", "weather", "weather", "", "alarm", "navigate"]),
    (["a", "a", "b", "b"], ["a", "a", "a", "a"]),
    (["查天气", "设闹钟", "放音乐", "查天气"], ["查天气", "放音乐", "放音乐", ""]),
    (["x", "y"], ["z", "z"]),
]
out = []
for gold, pred in cases:
    labels = sorted({l for l in gold + pred if l != ""})
    p, r, f, s = precision_recall_fscore_support(gold, pred, labels=labels, zero_division=0)
    out.append({
        "gold": gold, "pred": pred, "labels": labels,
        "accuracy": accuracy_score(gold, pred),
        "precision": list(map(float, p)), "recall": list(map(float, r)), "f1": list(map(float, f)),
        "support": list(map(int, s)),
        "macro_f1": float(f1_score(gold, pred, labels=labels, average="macro", zero_division=0)),
    })
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
print()
