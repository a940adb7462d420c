"""Gardner and Righter (2020), Theorem 5.2 (Adan and Weiss): ALIS on the partially aggregated state.

As printed: pi^ALIS'(s, b, n) = pi^ALIS(0, 0) prod_j alpha(R(b_j))^{n_j} / (prod_j mu(b_j)
prod_j lambda(s_1..s_j)), with pi^ALIS(0, 0) Thm 3.9's constant, the probability that all
servers are busy and no job waits. Garbled: the numerators are lost. The corrected form
(docs/theory-subset-dp.md §2.2, symq.engines.aggregated.alis_partial_law) is
pi'(s, b, n) = pi(0, 0) prod_j mu_{b_j}/mu(b_j) alpha(b_j)^{n_j} prod_j mu_{s_j}/lambda(s_1..s_j),
s_1 idle longest. Since b and s together list every server once, the printed form is
proportional to it, off by the constant prod_m mu_m: it fails exactly where that constant
matters, at the normalization pi(0, 0) = sum over the orders b of pi'((), b, 0).

Independent route: the noncollaborative FCFS-ALIS chain written from the verbal model (lumped to
busy servers and waiting classes in arrival order plus the idle order, cut at 3 waiting jobs, a
cut with the truncation property), solved exactly in rationals and aggregated to (s, b, n). With
C the chain's own mass of "all busy, none waiting", the chain must equal C times the form on every
state (W with mu = (1, 4/5), N, ring:3). Reversing the idle order must fail.

Run: ``python derivations/survey_thm_5_2.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines.aggregated import alis_partial_law

from _survey_common import Rates, aggregate, busy_and_queue, frac, noncollaborative_law, one_ratio
from _verdict import ambiguous, finish

RATES = {
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}
CAP = {"w": 3, "n": 3, "ring:3": 2}


def forms(rates: Rates, idle, busy, queue) -> tuple[Fraction, Fraction]:
    """(printed, corrected) without the constant pi(0, 0)."""
    printed = corrected = Fraction(1)
    prefix = frozenset()
    for b, n in zip(busy, queue):
        prefix = prefix | {b}
        alpha = rates.lam_required(prefix) / rates.mu_of(prefix)
        printed *= alpha ** n / rates.mu_of(prefix)
        corrected *= rates.mu[b] * alpha ** n / rates.mu_of(prefix)
    prefix = frozenset()
    for s in idle:
        prefix = prefix | {s}
        printed /= rates.lam_compatible(prefix)
        corrected *= rates.mu[s] / rates.lam_compatible(prefix)
    return printed, corrected


def main() -> str:
    printed_ok = corrected_ok = True
    proportional_all = True
    print(r"\pi^{ALIS}{}'((2), (1), (1)) = \pi^{ALIS}(\emptyset,\emptyset)\,"
          + sympy.latex(alis_partial_law(symq.model("w"), ("2",), ("1",), (1,), normalized=False)))
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        rates = Rates(model)
        law = noncollaborative_law(model, "alis", CAP[name])
        measured = aggregate(law, lambda s: (s[1],) + busy_and_queue(s[0]))
        constant = sum(p for (idle, busy, queue), p in measured.items()
                       if not idle and not any(queue))
        printed = all(p == constant * forms(rates, *k)[0] for k, p in measured.items())
        corrected = all(p == constant * forms(rates, *k)[1] for k, p in measured.items())
        proportional = one_ratio(measured, lambda k: forms(rates, *k)[0])
        library = all(frac(alis_partial_law(model, *k, normalized=False)) == forms(rates, *k)[1]
                      for k in list(measured)[:12])
        reversed_ok = all(p == constant * forms(rates, k[0][::-1], k[1], k[2])[1]
                          for k, p in measured.items())
        print(f"% {name}: {len(measured)} (s, b, n) states; printed form: {printed} (proportional: {proportional}); "
              f"corrected form: {corrected} (= symq.engines.aggregated.alis_partial_law: {library}); idle order "
              f"reversed: {reversed_ok}")
        printed_ok &= printed
        proportional_all &= proportional
        corrected_ok &= corrected and library and not reversed_ok
    ambiguous("Thm5.2", {"pi^ALIS(0, 0) a free normalizing constant (proportional)": proportional_all,
                         "pi^ALIS(0, 0) the constant of Thm 3.9": printed_ok},
              "the printed form up to a free normalizing constant, alpha(R(b_j)) read "
              "alpha(b_j) = lambda(R(b_j))/mu(b_j)", proportional_all,
              f"exact ALIS chains of {', '.join(RATES)}; the form with the numerators mu_(b_j), "
              f"mu_(s_j) restored has Thm 3.9's constant: {corrected_ok}")
    return finish(printed_ok and corrected_ok,
                  correction=("restore the numerators mu_{b_j} "
                              "and mu_{s_j} (the printed form is off by the factor prod_m mu_m) and read "
                              "alpha(R(b_j)) as alpha(b_j) = lambda(R(b_j))/mu(b_j)"),
                  corrected=corrected_ok)


if __name__ == "__main__":
    main()
