"""Gardner and Righter (2020), Corollary 4.8: response times, nested noncollaborative, equal rates.

With all servers at rate mu/M, a class-i job that finds the busy set B has
T_i | B ~ Exp(mu/M) + I_i (T^{M/M/1}(lambda_i, mu_hat_i) + sum_{S_i subset S_j subseteq S_y}
T_Q^{M/M/1}(lambda_j, mu_hat_j)), I_i = [S_i subseteq B], mu_hat_j = mu|S_j|/M - lambda(R(S_j)) +
lambda_j; by PASTA, T_i is the mixture over the stationary busy set.

Routes, on N, W and the nested example with equal server rates, exact rational rates:

1. Conditional law: for every class and every busy set B, the stated LST (built by
   symq.engines.nested.nested_queueing_time_given_busy plus the service) lies in the rigorous interval of
   the "tagged job" route (verbal noncollaborative dynamics, waiting jobs ahead from the reduced
   collaborative law of Thm 3.9, times the service LST), theta = 1/2 and 2.
2. Unconditional mean: E T_i of the mixture (symq.engines.nested.nested_noncollaborative_response_time with
   the busy-set law summed from symq.engines.aggregated.busy_order_probability) equals the ALIS mean
   response time of the exact subset DP of symq.engines.normalization (matching rates, docs/theory-subset-dp.md §2.7, no
   nesting used), exactly.
3. Unconditional law: its LST equals, as a rational function at theta = 1/2 and 2, the
   independent mixture over *ordered* busy vectors (corrected Thm 5.4, symq.engines.aggregated.
   response_time_law).

Run: ``python derivations/survey_cor_4_8.py``
"""

import itertools
from fractions import Fraction

import symq
from symq.engines.aggregated import busy_order_probability, response_time_law
from symq.engines.distributions import ExponentialMixture
from symq.engines.nested import nested_noncollaborative_response_time, nested_queueing_time_given_busy
from symq.engines.normalization import mean_response_time

from _survey_common import (Rates, collaborative_law, inside, interval, lst_value,
                            noncollaborative_tagged)
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": 1},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": 1},
    "nested": {"lambda_1": "1/10", "lambda_2": "1/8", "lambda_3": "1/10", "lambda_4": "1/5",
               "lambda_5": "1/5", "mu_1": 1, "mu_2": 1, "mu_3": 1},
}
CAP = {"n": 7, "w": 5, "nested": 4}


def main() -> str:
    ok = True
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        rates = Rates(model)
        service = next(iter(rates.mu.values()))
        everything = frozenset(model.servers)
        busy_law: dict = {}
        for order, p in busy_order_probability(model).items():
            busy_law[frozenset(order)] = busy_law.get(frozenset(order), 0) + p
        dp = mean_response_time(model, "alis")["per_class"]
        conditional_ok = True
        for size in range(len(everything) + 1):
            for busy in map(frozenset, itertools.combinations(sorted(everything), size)):
                reduced = model.remove_servers(everything - busy)
                law, eps = (collaborative_law(reduced, CAP[name]) if not reduced.is_empty
                            else ({(): Fraction(1)}, Fraction(0)))
                for i in model.classes:
                    stated = (nested_queueing_time_given_busy(model, i, busy)
                              + ExponentialMixture.exponential(service))
                    for theta in (Fraction(1, 2), Fraction(2)):
                        if rates.sets[i] <= busy:
                            h = noncollaborative_tagged(rates, i, theta)
                            low, high = interval(law, eps, lambda a, h=h, b=busy: h(a, b))
                        else:
                            low = high = Fraction(1)
                        factor = service / (service + theta)
                        conditional_ok &= inside(lst_value(stated.lst(), theta),
                                                 (low * factor, high * factor))
        print(f"% {name}: conditional laws inside the tagged-job intervals for every class and "
              f"busy set: {conditional_ok}")
        ok &= conditional_ok
        for i in model.classes:
            mixture = nested_noncollaborative_response_time(model, i, busy_law)
            mean_ok = mixture.mean() == dp[i]
            other = response_time_law(model, i, "alis")
            law_ok = all(lst_value(mixture.lst(), t) == lst_value(other.lst(), t)
                         for t in (Fraction(1, 2), Fraction(2)))
            print(f"% {name}, class {i}: E T_i = {mixture.mean()} = ALIS subset DP: {mean_ok}; "
                  f"LST = ordered-busy mixture: {law_ok}")
            ok &= mean_ok and law_ok
    w = symq.model("w").substitute(RATES["w"])
    print(nested_queueing_time_given_busy(w, "1", {"1", "2"}).latex(r"T_{1Q}\mid B=\{1,2\}"))
    claim("Cor4.8", ok, "conditional laws inside the tagged-job intervals; the mixture = ALIS subset DP")
    return finish(ok)


if __name__ == "__main__":
    main()
