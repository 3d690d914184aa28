# Makes goldens.json: the reference values of selective prediction and
# temperature scaling, computed from the published formulas with the Python
# standard library only (no numpy on the CI machine):
#
#   AURC, E-AURC: Geifman, Uziel & El-Yaniv, "Bias-Reduced Uncertainty
#     Estimation for Deep Neural Classifiers" (ICLR 2019), in the form of the
#     reference code that Moon et al., "Confidence-Aware Learning for Deep
#     Neural Networks" (ICML 2020), publish in daintlab/confidence-aware-learning
#     utils/metrics.py (calc_aurc_eaurc, coverage_risk, aurc_eaurc): sort by
#     confidence with sorted(..., reverse=True), risk_k = errors in the first
#     k / k, AURC = sum(risk_k / n), E-AURC = AURC - (r + (1-r) log(1-r)).
#   Risk-coverage curve: one point per distinct confidence threshold
#     (accept confidence >= t), Geifman & El-Yaniv (NeurIPS 2017).
#   Temperature scaling: Guo et al., "On Calibration of Modern Neural
#     Networks" (ICML 2017): T minimising the mean NLL of softmax(z / T); here
#     found by golden-section search on log T (a different method from the Go
#     code's bisection on the derivative, so agreement checks both).
#   ECE: Guo et al.'s expected calibration error with 10 equal-width bins,
#     right-closed, as scorers/rank computes it.
#
# Run: python3 make_goldens.py > goldens.json
import json
import math
import random


def aurc_eaurc(conf, correct):
    pairs = sorted(zip(conf, correct), key=lambda x: x[0], reverse=True)
    risk, risks = 0, []
    for i, (_, ok) in enumerate(pairs):
        if not ok:
            risk += 1
        risks.append(risk / (i + 1))
    r = risks[-1]
    area = 0.0
    for v in risks:
        area += v * (1 / len(risks))
    opt = 1.0 if r == 1 else r + (1 - r) * math.log(1 - r)
    return area, area - opt


def curve(conf, correct):
    n = len(conf)
    out = []
    for t in sorted(set(conf), reverse=True):
        acc = [ok for c, ok in zip(conf, correct) if c >= t]
        out.append({"threshold": t, "coverage": len(acc) / n,
                    "risk": sum(1 for ok in acc if not ok) / len(acc), "accepted": len(acc)})
    return out


def threshold_at(points, target):
    ok = [p for p in points if p["risk"] <= target]
    return min(ok, key=lambda p: p["threshold"]) if ok else None


def softmax(z, t):
    m = max(x / t for x in z)
    e = [math.exp(x / t - m) for x in z]
    s = sum(e)
    return [x / s for x in e]


def nll(scores, gold, t):
    tot = 0.0
    for z, g in zip(scores, gold):
        m = max(x / t for x in z)
        lse = m + math.log(sum(math.exp(x / t - m) for x in z))
        tot += lse - z[g] / t
    return tot / len(scores)


def fit_temperature(scores, gold):
    a, b = math.log(1e-3), math.log(1e3)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = nll(scores, gold, math.exp(c)), nll(scores, gold, math.exp(d))
    for _ in range(300):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = nll(scores, gold, math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = nll(scores, gold, math.exp(d))
    return math.exp((a + b) / 2)


def ece(conf, correct, bins=10):
    n = [0] * bins
    sc = [0.0] * bins
    sa = [0.0] * bins
    for c, ok in zip(conf, correct):
        b = 0
        while b < bins - 1 and c > (b + 1) / bins:
            b += 1
        n[b] += 1
        sc[b] += c
        sa[b] += 1 if ok else 0
    return sum(n[b] / len(conf) * abs(sa[b] / n[b] - sc[b] / n[b]) for b in range(bins) if n[b])


rng = random.Random(30)
cases = []
# Hand-made cases: ties, all right, all wrong, one item.
cases.append({"name": "ties", "conf": [0.9, 0.9, 0.5, 0.5, 0.5, 0.2], "correct": [True, False, True, True, False, False]})
cases.append({"name": "all_right", "conf": [0.3, 0.8, 0.6], "correct": [True, True, True]})
cases.append({"name": "all_wrong", "conf": [0.3, 0.8, 0.6], "correct": [False, False, False]})
cases.append({"name": "one", "conf": [0.4], "correct": [False]})
# Random decisions over k candidates with scores; confidence is the top
# softmax probability at T = 1.
for name, n, k, scale in [("k8", 60, 8, 2.0), ("k20", 80, 20, 4.0), ("sharp", 50, 10, 9.0)]:
    scores, gold = [], []
    for _ in range(n):
        z = [round(rng.gauss(0, scale), 6) for _ in range(k)]
        g = rng.randrange(k)
        if rng.random() < 0.5:
            z[g] += round(abs(rng.gauss(1.5, 1.0)) * scale / 2, 6)
        scores.append(z)
        gold.append(g)
    conf, correct = [], []
    for z, g in zip(scores, gold):
        p = softmax(z, 1.0)
        top = max(range(k), key=lambda i: (p[i], -i))
        conf.append(p[top])
        correct.append(top == g)
    cases.append({"name": name, "conf": conf, "correct": correct, "scores": scores, "gold": gold})

for c in cases:
    c["aurc"], c["eaurc"] = aurc_eaurc(c["conf"], c["correct"])
    c["curve"] = curve(c["conf"], c["correct"])
    c["ece"] = ece(c["conf"], c["correct"])
    for target in (0.05, 0.2, 0.5):
        p = threshold_at(c["curve"], target)
        c.setdefault("threshold_at", {})[str(target)] = p
    if "scores" in c:
        t = fit_temperature(c["scores"], c["gold"])
        c["temperature"] = t
        c["nll_1"] = nll(c["scores"], c["gold"], 1.0)
        c["nll_t"] = nll(c["scores"], c["gold"], t)

json.dump({"source": "make_goldens.py (published formulas, Python standard library)", "cases": cases}, __import__("sys").stdout, indent=1)
print()
