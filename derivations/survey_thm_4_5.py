"""Gardner and Righter (2020), Theorem 4.5: response times in a nested collaborative system.

For any class i, T_i ~ T^{M/M/1}(lambda_i, mu_hat_i) + sum_{j: S_i subset S_j} T_Q^{M/M/1}(lambda_j,
mu_hat_j), independent terms, with mu_hat_j = mu(S_j) - lambda(R(S_j)) + lambda_j; and
pi^C(empty) = prod_j (1 - rho_j), rho_j = lambda_j / mu_hat_j.

Routes:

1. pi(empty): the printed product over the classes, built here, against the server-removal
   recursion of Prop 6.2 (symq.engines.normalization.collaborative_empty_probability, general graphs),
   as rational functions, on N, W and the nested example (classes 1->{1}, 2->{2}, 3->{1,2},
   4->{3}, 5->{1,2,3}).
2. The laws of symq.engines.nested.collaborative_response_time against the "tagged job" route: under
   FCFS a job's time depends only on the jobs ahead, which evolve on their own, so its exact LST
   given the jobs ahead comes from a finite recursion over the verbal collaborative dynamics;
   averaged over the Thm 3.3 law cut at n jobs with the exact omitted mass, it gives a rigorous
   interval for E exp(-theta T_i). Every class, theta = 1/2 and 2, exact rational rates; the law
   without the queueing terms (a wrong law) must fall outside for every class that has them.
3. Means: E T_i of the law against L_i / lambda_i from the corrected Prop 6.3 recursion
   (symq.engines.normalization.server_removal_mean_number, general graphs), exactly.

The survey's nested systems have distinct server sets (S_i strictly inside S_j, or disjoint);
classes that share a server set must be merged into one class first (the product over such
classes, taken literally, is not pi(empty); symq.engines.nested works on the distinct sets).

Run: ``python derivations/survey_thm_4_5.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines.distributions import ExponentialMixture
from symq.engines.nested import collaborative_response_time
from symq.engines.normalization import collaborative_empty_probability, server_removal_mean_number

from _survey_common import (Rates, collaborative_law, collaborative_tagged, frac, inside,
                            interval, lst_value, show, FLEXIBLE_RATES)
from _verdict import claim, finish

CAP = {"n": 7, "w": 5, "nested": 4}


def printed_empty(model) -> sympy.Expr:
    value = sympy.Integer(1)
    for i in model.classes:
        servers = model.compatibility[i]
        lam = model.arrival_rates[i]
        mu_hat = model.service_rate(servers) - model.arrival_rate(model.only_served_by(servers)) + lam
        value *= 1 - lam / mu_hat
    return value


def main() -> str:
    ok = muhat = True
    w = symq.model("w")
    print(collaborative_response_time(w, "1").latex("T_1"))
    print(r"\pi^C(\emptyset) = " + sympy.latex(sympy.factor(printed_empty(w))))
    for name in CAP:
        m = symq.model(name)
        same = sympy.cancel(printed_empty(m) - collaborative_empty_probability(m)) == 0
        print(f"% {name}: prod_j (1 - rho_j) = Prop 6.2 recursion: {same}")
        ok &= same
    for name in CAP:
        model = symq.model(name).substitute(FLEXIBLE_RATES[name][0])
        rates = Rates(model)
        law, eps = collaborative_law(model, CAP[name])
        means = server_removal_mean_number(model)
        for i in model.classes:
            stated = collaborative_response_time(model, i)
            # S4-muhat: mu_hat_i - lambda_i = mu(S_i) - lambda(R(S_i)), the rate of the first
            # (own) exponential stage of the stated law
            s_i = frozenset(model.compatibility[i])
            r_si = rates.mu_of(s_i) - rates.lam_required(s_i)
            mu_hat = r_si + rates.lam[i]
            muhat &= mu_hat - rates.lam[i] == r_si and frac(stated.components[0][1][0][1]) == r_si
            own = ExponentialMixture.exponential(stated.components[0][1][0][1])
            good = stated.mean() == means[i] / model.arrival_rates[i]
            discriminates = len(stated.components[0][1]) == 1
            for theta in (Fraction(1, 2), Fraction(2)):
                bounds = interval(law, eps, collaborative_tagged(rates, i, theta, "completion"))
                good &= inside(lst_value(stated.lst(), theta), bounds)
                discriminates |= not inside(lst_value(own.lst(), theta), bounds)
            print(f"% {name}, class {i}: LST inside the tagged-job interval at theta = 1/2, 2 and "
                  f"mean = L_i/lambda_i ({show(frac(means[i] / model.arrival_rates[i]))}): {good}; "
                  f"wrong law excluded: {discriminates}")
            ok &= good and discriminates
    claim("S4-muhat", muhat, "every class of the nested examples: mu_hat_i - lambda_i = mu(S_i) - "
          "lambda(R(S_i)) is the rate of the class's own exponential stage")
    claim("Thm4.5", ok, "pi(empty) = prod (1 - rho_j) symbolically; each class's law inside the "
          "tagged-job intervals at theta = 1/2, 2, mean = L_i/lambda_i; a wrong law excluded")
    return finish(ok and muhat)


if __name__ == "__main__":
    main()
