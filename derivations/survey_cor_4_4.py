"""Gardner and Righter (2020), Corollary 4.4: a fully flexible class J in the collaborative model.

(i)  pi^C(empty) = pi^C_{-J}(empty) (1 - rho_J);
(ii) T_J ~ T^{M/M/1}(lambda_J, mu_hat_J) ~ T^{M/M/1}(lambda, mu) = Exp(mu - lambda), and
     T_JQ ~ T_Q^{M/M/1}(lambda_J, mu_hat_J), with mu_hat_J = mu - (lambda - lambda_J); T_JQ is the
     time until the tagged job is the oldest class-J job (the wait for the class-J jobs ahead, as
     in the proof of Thm 4.5).

(i) is checked as an identity of rational functions, pi(empty) of both systems by the
server-removal recursion of Prop 6.2 (symq.normalization.collaborative_empty_probability, which
does not use the nested closed form; verified in survey_prop_6_2.py), on N, W, the nested example and ring:3 plus
a fully flexible class.
(ii) is checked by an independent "tagged job" route: under FCFS a job's time depends only on the
jobs ahead of it, which evolve on their own (symq-free recursion over what is left ahead, from
the verbal collaborative dynamics); averaging its exact LST over the Thm 3.3 law cut at n jobs,
with the exact omitted mass eps, gives a rigorous interval for E exp(-theta T). At theta = 1/2
and 2 the stated LSTs must lie inside, and Exp(mu - lambda_J) (a wrong law) outside.

Run: ``python derivations/survey_cor_4_4.py``
"""

from fractions import Fraction

import sympy

from symq.normalization import collaborative_empty_probability

from _survey_common import (Rates, collaborative_law, collaborative_tagged, example,
                            flexible_examples, inside, interval, show, FLEXIBLE_RATES)
from _verdict import finish

CAP = {"n": 7, "w": 5, "nested": 4, "ring:3+J": 4}


def main() -> str:
    ok = True
    for name, (_, flexible) in FLEXIBLE_RATES.items():
        m = example(name)
        lam_j = m.arrival_rates[flexible]
        mu_hat = m.service_rate(m.servers) - (m.arrival_rate(m.classes) - lam_j)
        lhs = collaborative_empty_probability(m)
        rhs = collaborative_empty_probability(m.remove_classes([flexible])) * (1 - lam_j / mu_hat)
        same = sympy.cancel(lhs - rhs) == 0
        if name == "n":
            print(r"\pi^C(\emptyset) = \pi^C_{-2}(\emptyset)\Big(1-"
                  + sympy.latex(lam_j / mu_hat) + r"\Big)")
        print(f"% (i) {name}: identity of rational functions: {same}")
        ok &= same
    print(r"T_J \sim \mathrm{Exp}(\mu-\lambda),\quad T_{JQ} \sim "
          r"B(\rho_J)\,\mathrm{Exp}(\hat\mu_J-\lambda_J)")
    for name, model, flexible in flexible_examples():
        rates = Rates(model)
        lam, mu = sum(rates.lam.values()), rates.mu_of(rates.servers)
        mu_hat = mu - (lam - rates.lam[flexible])
        rho = rates.lam[flexible] / mu_hat
        law, eps = collaborative_law(model, CAP[name])
        good = True
        for theta in (Fraction(1, 2), Fraction(2)):
            response = interval(law, eps, collaborative_tagged(rates, flexible, theta, "completion"))
            wait = interval(law, eps, collaborative_tagged(rates, flexible, theta, "first of class"))
            stated_t = (mu - lam) / (mu - lam + theta)
            wrong_t = (mu - rates.lam[flexible]) / (mu - rates.lam[flexible] + theta)
            stated_q = 1 - rho + rho * (mu - lam) / (mu - lam + theta)
            good &= inside(stated_t, response) and inside(stated_q, wait)
            good &= not inside(wrong_t, response)
            print(f"% {name}, theta = {theta}: E e^(-theta T_J) in [{show(response[0])}, "
                  f"{show(response[1])}], stated {show(stated_t)}; T_JQ in [{show(wait[0])}, "
                  f"{show(wait[1])}], stated {show(stated_q)}")
        ok &= good
    return finish(ok)


if __name__ == "__main__":
    main()
