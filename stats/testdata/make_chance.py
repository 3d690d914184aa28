# Makes chance.json: exact upper tails P(X >= k) of Poisson-binomial
# distributions, computed in rational arithmetic (fractions.Fraction) from
# the definition (the sum over every subset would be too slow, so the
# probability generating function prod_i ((1 - p_i) + p_i z) is expanded
# exactly), and for equal p the binomial tail sum_{m>=k} C(n,m) p^m (1-p)^(n-m)
# (scipy.stats.binom.sf(k - 1, n, p)). Python standard library only.
# Run: python3 make_chance.py > chance.json
import json
import math
import random
from fractions import Fraction


def pgf_tail(ps, k):
    coef = [Fraction(1)]
    for p in ps:
        p = Fraction(p)
        nxt = [Fraction(0)] * (len(coef) + 1)
        for m, c in enumerate(coef):
            nxt[m] += c * (1 - p)
            nxt[m + 1] += c * p
        coef = nxt
    return float(sum(coef[k:])) if k > 0 else 1.0


def binom_tail(n, p, k):
    p = Fraction(p)
    return float(sum(math.comb(n, m) * p**m * (1 - p) ** (n - m) for m in range(max(k, 0), n + 1)))


rng = random.Random(30)
cases = []
for n, p, k in [(20, 0.25, 10), (100, 0.25, 33), (100, 0.25, 25), (57, 0.1, 0), (57, 0.1, 58), (300, 0.25, 95)]:
    cases.append({"p": [p] * n, "k": k, "tail": binom_tail(n, p, k), "via": "binomial"})
for n, k in [(30, 12), (80, 20), (120, 45)]:
    ps = [1 / rng.choice([2, 4, 5, 8, 10, 20]) for _ in range(n)]
    cases.append({"p": ps, "k": k, "tail": pgf_tail(ps, k), "via": "pgf"})
cases.append({"p": [0.0] * 10, "k": 1, "tail": pgf_tail([0.0] * 10, 1), "via": "pgf"})
json.dump({"source": "make_chance.py (exact rational arithmetic)", "cases": cases}, __import__("sys").stdout)
print()
