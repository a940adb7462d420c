"""Gardner and Righter (2020), Theorem 6.1 (Bonald and Comte; Krzesinski): per-class counts.

pi_X(x) = pi(0) Phi(x) prod_i lambda_i^{x_i}, Phi(x) = (1/mu(x)) sum_{i: x_i > 0} Phi(x - e_i),
Phi(0) = 1, for the collaborative model aggregated to the numbers x of jobs per class; and the
survey's statements around it: the balanced-fair rates phi_i(x) = Phi(x - e_i)/Phi(x) are the
average service rates of the first class-i job given x (Bonald and Comte),
sum_i phi_i(x) = mu(x), and phi_i(x) phi_j(x - e_i) = phi_j(x) phi_i(x - e_j) (balance property).

Routes: (1) the exact stationary law (GTH in rationals) of the truncated collaborative chain built
from the verbal model (symq.engines.ctmc, cut at 4 jobs; the cut only depends on x, so the law given x is
exact) aggregated to x must be proportional, with one constant, to Phi(x) prod lambda^x
(symq.engines.aggregated.balance_function) on N, W and ring:3; (2) from the same chain, the average rate
of the first class-i job given x must equal symq.engines.aggregated.balance_rates exactly; (3)
symbolically on N and W for |x| <= 3: the recursion equals the sum over the orderings of x of
the Thm 3.3 products, sum_i phi_i = mu(x), and the balance property.

Run: ``python derivations/survey_thm_6_1.py``
"""

import itertools
from fractions import Fraction

import sympy

import symq
from symq.engines import ctmc
from symq.engines.aggregated import balance_function, balance_rates

from _survey_common import Rates, aggregate, frac, one_ratio
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}


def counts(model, state) -> tuple:
    return tuple(state.count(c) for c in model.classes)


def first_rate(rates: Rates, state, job_class: str) -> Fraction:
    """Service rate of the first class-``job_class`` job in the collaborative state."""
    used = frozenset()
    for c in state:
        if c == job_class:
            return rates.mu_of(rates.sets[c] - used)
        used = used | rates.sets[c]
    return Fraction(0)


def main() -> str:
    ok = True
    n = symq.model("n")
    print(r"\Phi(1, 1) = " + sympy.latex(balance_function(n, {"1": 1, "2": 1})))
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        rates = Rates(model)
        law = ctmc.truncated_stationary(model, "collaborative", 4, exact=True)
        by_x = aggregate(law, lambda s: counts(model, s))

        def stated(x):
            value = frac(balance_function(model, dict(zip(model.classes, x))))
            for c, k in zip(model.classes, x):
                value *= rates.lam[c] ** k
            return value
        proportional = one_ratio(by_x, stated)
        averages = True
        for x, px in by_x.items():
            if sum(x) > 3:
                continue
            phi = balance_rates(model, dict(zip(model.classes, x)))
            for c, k in zip(model.classes, x):
                if k:
                    mean = sum((p * first_rate(rates, s, c) for s, p in law.items()
                                if counts(model, s) == x), Fraction(0)) / px
                    averages &= mean == frac(phi[c])
        print(f"% {name}: {len(by_x)} count vectors; chain proportional to Phi(x) prod lambda^x: "
              f"{proportional}; phi_i(x) = average rate of the first class-i job: {averages}")
        ok &= proportional and averages
    for name in ("n", "w"):
        m = symq.model(name)
        good = True
        for x in itertools.product(range(3), repeat=len(m.classes)):
            if not 0 < sum(x) <= 3:
                continue
            xd = dict(zip(m.classes, x))
            word = [c for c, k in xd.items() for _ in range(k)]
            total = sympy.Integer(0)
            for order in set(itertools.permutations(word)):
                term, seen = sympy.Integer(1), set()
                for c in order:
                    seen |= set(m.compatibility[c])
                    term /= m.service_rate(seen)
                total += term
            good &= sympy.cancel(balance_function(m, xd) - total) == 0
            phi = balance_rates(m, xd)
            good &= sympy.cancel(sympy.Add(*phi.values())
                                 - m.service_rate(m.servers_of([c for c in xd if xd[c]]))) == 0
            for a, b in itertools.combinations([c for c in xd if xd[c]], 2):
                xa = dict(xd, **{a: xd[a] - 1})
                xb = dict(xd, **{b: xd[b] - 1})
                lhs = phi[a] * balance_rates(m, xa).get(b, 0)
                rhs = phi[b] * balance_rates(m, xb).get(a, 0)
                good &= sympy.cancel(lhs - rhs) == 0
        print(f"% {name}: recursion = sum over orderings of Thm 3.3, sum phi_i = mu(x), balance "
              f"property, symbolically for |x| <= 3: {good}")
        ok &= good
    claim("Thm6.1", ok, "the chain proportional to Phi(x) prod lambda^x; Phi's recursion = the sum over orders")
    return finish(ok)


if __name__ == "__main__":
    main()
