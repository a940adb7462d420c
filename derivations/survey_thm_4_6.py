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

import symq
from symq.engines.distributions import ExponentialMixture
from symq.engines.nested import nested_queueing_time_given_busy

from _survey_common import (Rates, collaborative_law, inside, interval, lst_value,
                            noncollaborative_tagged, FLEXIBLE_RATES)
from _verdict import finish

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
    return finish(ok)


if __name__ == "__main__":
    main()
