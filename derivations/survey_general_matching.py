"""Gardner and Righter (2020), section 3.4: FCFM matching on a general graph (Moyal, Busic, Mairesse).

Agents of class c arrive one at a time with probability p_c and are matched with the oldest
waiting agent of a neighbouring class, else wait. The survey gives
pi^GM(c_n) = pi^GM(0) prod_i p_{c_i} / p(Gamma(c_1..c_i)), Gamma the neighbourhood.

Checks: (1) global- and partial-balance residuals (symq.engines.balance) with symbolic probabilities on
the diamond-with-chord graph a-b-c-d-a, a-c; (2) at the exact probabilities of the diamond
0-1, 0-2, 1-2, 1-3, 2-3 (p = 20, 21, 11, 10 over 62), the exact stationary law of the truncated
chain (symq.engines.ctmc, at most 6 waiting agents, GTH in rationals) equals the normalized product form
restricted to it (the cut has the truncation property); (3) pi^GM(0) by the library's subset
recursion against a second derivation by geometric series written here: the only independent
sets of the diamond are the singletons and {0, 3}, so
G = 1 + sum_c r_c/(1-r_c) + sum_{x != y in {0,3}} r_x/(1-r_x) q_y/(1-q_0-q_3), with
r_c = p_c/p(Gamma(c)) and q_c = p_c/p(Gamma({0,3})).

Run: ``python derivations/survey_general_matching.py``
"""

from fractions import Fraction

from sympy import Rational, latex

from symq.engines import ctmc
from symq.engines.balance import verify
from symq.engines.processes import GeneralMatching

from _survey_common import frac
from _verdict import claim, finish

DIAMOND = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
P = {0: Fraction(20, 62), 1: Fraction(21, 62), 2: Fraction(11, 62), 3: Fraction(10, 62)}


def diamond_constant() -> Fraction:
    neighbours = {c: {y for e in DIAMOND for x, y in (e, e[::-1]) if x == c} for c in P}

    def p(classes) -> Fraction:
        return sum((P[c] for c in classes), Fraction(0))
    r = {c: P[c] / p(neighbours[c]) for c in P}
    both = p(neighbours[0] | neighbours[3])
    tail = 1 / (1 - (P[0] + P[3]) / both)
    value = 1 + sum(r[c] / (1 - r[c]) for c in P)
    for x, y in ((0, 3), (3, 0)):
        value += r[x] / (1 - r[x]) * (P[y] / both) * tail
    return value


def main() -> str:
    ok = True
    chord = GeneralMatching([("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("a", "c")],
                            {c: f"p_{c}" for c in "abcd"})
    print(r"\pi^{GM}(b, d, b) = \pi^{GM}(\emptyset)\," + latex(chord.product_form(("b", "d", "b"))))
    report = verify(chord, max_jobs=4)
    print(f"% {report}".splitlines()[0])
    ok &= report.ok
    diamond = GeneralMatching(DIAMOND, {c: Rational(v.numerator, v.denominator) for c, v in P.items()})
    law = ctmc.stationary_distribution(diamond.truncated_chain(6), exact=True)
    terms = {s: frac(diamond.product_form(s)) for s in law}
    total = sum(terms.values(), Fraction(0))
    same = all(law[s] == terms[s] / total for s in law)
    print(f"% diamond: exact truncated chain ({len(law)} states) = restricted product form: {same}")
    ok &= same
    library = frac(diamond.empty_probability())
    second = 1 / diamond_constant()
    print(rf"\pi^{{GM}}_{{\rm diamond}}(\emptyset) = {latex(Rational(library.numerator, library.denominator))}"
          f"  % geometric series: {second}")
    ok &= library == second
    claim("GM", ok, "pi^GM(c_n) = pi^GM(0) prod mu_{c_i}/mu(c_i) against balance and the exact truncated chain")
    return finish(ok)


if __name__ == "__main__":
    main()
