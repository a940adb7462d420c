"""Gardner and Righter (2020), Theorem 4.6: queueing times in a nested noncollaborative system.

Given that all servers are busy, a class-i job's time in queue is
T_iQ | B ~ T^{M/M/1}(lambda_i, mu_hat_i) + sum_{j: S_i subset S_j} T_Q^{M/M/1}(lambda_j, mu_hat_j),
independent terms, mu_hat_j = mu(S_j) - lambda(R(S_j)) + lambda_j: the collaborative response
time of Thm 4.5 (Observation 3.11).

Independent route ("tagged job" on the noncollaborative dynamics): under FCFS a later arrival
only takes idle servers, which no job ahead can use, so the wait depends only on the waiting jobs
ahead and the busy set; its exact LST comes from a finite recursion over the verbal
noncollaborative dynamics (a busy server that completes takes the oldest compatible waiting job,
else becomes idle). By PASTA and Thm 3.9 the waiting jobs seen given all servers busy have the
collaborative law pi^C (cut at n jobs, with the exact omitted mass: a rigorous interval for the
LST). symq.engines.nested.nested_queueing_time_given_busy must lie inside at theta = 1/2 and 2 for every
class of N, W and the nested example; the law without the queueing terms of the larger classes
(a wrong law) must fall outside for the classes that have them.

Run: ``python derivations/survey_thm_4_6.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines.aggregated import waiting_time_law
from symq.engines.distributions import ExponentialMixture
from symq.engines.nested import nested_queueing_time_given_busy

from _survey_common import (Rates, frac, collaborative_law, inside, interval, lst_value,
                            noncollaborative_tagged, FLEXIBLE_RATES)
from _verdict import claim, finish

CAP = {"n": 7, "w": 5, "nested": 4}


def main() -> str:
    ok = True
    print(nested_queueing_time_given_busy(symq.model("w"), "1", {"1", "2"}).latex(
        r"T_{1Q}\mid B=\{1,2\}"))
    for name in CAP:
        model = symq.model(name).substitute(FLEXIBLE_RATES[name][0])
        rates = Rates(model)
        law, eps = collaborative_law(model, CAP[name])
        everything = frozenset(model.servers)
        for i in model.classes:
            stated = nested_queueing_time_given_busy(model, i, everything)
            own = ExponentialMixture.exponential(stated.components[0][1][0][1])
            good, discriminates = True, len(stated.components[0][1]) == 1
            for theta in (Fraction(1, 2), Fraction(2)):
                h = noncollaborative_tagged(rates, i, theta)
                bounds = interval(law, eps, lambda ahead, h=h: h(ahead, everything))
                good &= inside(lst_value(stated.lst(), theta), bounds)
                discriminates |= not inside(lst_value(own.lst(), theta), bounds)
            print(f"% {name}, class {i}: LST of T_iQ | all busy inside the interval at "
                  f"theta = 1/2, 2: {good}; wrong law excluded: {discriminates}")
            ok &= good and discriminates
    claim("Thm4.6", ok, "T_iQ | all busy inside the rigorous tagged-job intervals, every class "
          "of the nested examples, theta = 1/2, 2; a wrong law excluded")
    # S4-intro: the queueing time of a fully flexible class J is a mass at 0 plus an exponential:
    # J waits only when every server is busy (FCFS: an idle server would serve it), and then, by
    # Thm 4.6, for Exp(mu - lambda). symq's waiting-time law (docs/response-times.md: the time
    # before service starts) must be atom + (1 - atom) r/(r + theta), r = mu - lambda.
    intro = True
    for name in CAP:
        model = symq.model(name).substitute(FLEXIBLE_RATES[name][0])
        rates = Rates(model)
        flexible = [c for c in model.classes if rates.sets[c] == rates.servers]
        if not flexible:
            continue
        r = rates.mu_of(rates.servers) - sum(rates.lam.values())
        law = waiting_time_law(model, flexible[0])
        atom = frac(law.atom())
        expr = law.lst()
        theta = next(iter(expr.free_symbols))
        for t in (Fraction(1, 2), Fraction(2), Fraction(5)):
            value = frac(expr.subs(theta, sympy.Rational(t.numerator, t.denominator)))
            intro &= value == atom + (1 - atom) * r / (r + t)
    claim("S4-intro", intro, "fully flexible class of each nested example: symq's ALIS/RAIS "
          "waiting-time LST = atom + (1 - atom) (mu - lambda)/(mu - lambda + theta) at theta = "
          "1/2, 2, 5")
    return finish(ok and intro)


if __name__ == "__main__":
    main()
