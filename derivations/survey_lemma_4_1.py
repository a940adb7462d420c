"""Gardner and Righter (2020), Lemma 4.1: Bernoulli splitting of a geometric variable.

If Y ~ geom(1-p) (P{Y=n} = (1-p) p^n) and, given Y, Y_i ~ Binomial(Y, q_i/p), then
Y_i ~ geom(1 - q_i/(q_i + 1 - p)).

Three routes: (1) symbolically, the probability generating function
E z^{Y_i} = E (1 - q/p + q z/p)^Y = (1-p)/(1 - p + q - q z) equals that of the stated geometric
law, as rational functions of p, q, z; (2) at exact rationals, P{Y_i = k} for k = 0..5 by the
defining double sum over Y, truncated at Y <= 200 with the exact tail P{Y > 200} as the error
bound; (3) a seeded simulation of 100000 splittings, whose empirical P{Y_i = k} must lie within
5 binomial standard deviations of the law. A wrong parameter (q/p instead of q/(q+1-p)) must fail
route (2).

Run: ``python derivations/survey_lemma_4_1.py``
"""

import math
import random
from fractions import Fraction

import sympy
from _verdict import claim, finish


def main() -> str:
    ok = True
    p, q, z = sympy.symbols("p q z", positive=True)
    split = (1 - p) / (1 - p * (1 - q / p + q * z / p))
    a = q / (q + 1 - p)
    stated = (1 - a) / (1 - a * z)
    same = sympy.cancel(split - stated) == 0
    print(r"E z^{Y_i} = " + sympy.latex(sympy.factor(split)) + r" = \frac{1-a}{1-a z},\quad a = "
          + sympy.latex(a))
    print(f"% PGF identity as rational functions: {same}")
    ok &= same
    pv, qv, top = Fraction(1, 2), Fraction(1, 5), 200
    av = qv / (qv + 1 - pv)
    tail = pv ** (top + 1)
    exact = []
    for k in range(6):
        value = sum(((1 - pv) * pv ** y * math.comb(y, k) * (qv / pv) ** k * (1 - qv / pv) ** (y - k)
                     for y in range(k, top + 1)), Fraction(0))
        exact.append(value)
    close = all(abs(exact[k] - (1 - av) * av ** k) <= tail for k in range(6))
    wrong = qv / pv
    wrong_close = all(abs(exact[k] - (1 - wrong) * wrong ** k) <= tail for k in range(6))
    print(f"% p = {pv}, q = {qv}: double sums within {float(tail):.1e} of geom(1 - {av}): {close}; "
          f"of geom(1 - q/p) (wrong): {wrong_close}")
    ok &= close and not wrong_close
    rng = random.Random(41)
    n = 100000
    counts = [0] * 6
    for _ in range(n):
        y = 0
        while rng.random() < pv:
            y += 1
        yi = sum(rng.random() < qv / pv for _ in range(y))
        if yi < 6:
            counts[yi] += 1
    inside = True
    for k in range(6):
        prob = float((1 - av) * av ** k)
        inside &= abs(counts[k] / n - prob) <= 5 * math.sqrt(prob * (1 - prob) / n)
    print(f"% simulation ({n} splittings, seed 41) within 5 standard deviations: {inside}")
    ok &= inside
    claim("Lem4.1", ok, "the PGF identity as rational functions, the double sums, a simulation")
    return finish(ok)


if __name__ == "__main__":
    main()
