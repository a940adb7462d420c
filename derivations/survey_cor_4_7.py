"""Gardner and Righter (2020), Corollary 4.7: queueing times given a busy set B, nested systems.

In a nested noncollaborative system, for a class i and a busy set B containing S_i,
T_iQ | B ~ T^{M/M/1}(lambda_i, mu_hat_i) + sum_{j: S_i subset S_j subseteq S_y} T_Q^{M/M/1}(lambda_j,
mu_hat_j), where S_y is the largest class set with S_i subseteq S_y subseteq B (only the larger
classes whose servers are all busy can have jobs waiting ahead).

Independent route, as in survey_thm_4_6.py: by PASTA and Thm 3.9 the waiting jobs seen given the
busy set B have the law of the collaborative reduced system |-(M minus B) (cut at n jobs, exact
omitted mass), and the wait is an exact absorption LST of the verbal noncollaborative dynamics
(tagged job). Every class and every busy set B with S_i inside B and B not all servers (the case
B = all is Thm 4.6), on W and the nested example, theta = 1/2 and 2. The law of Thm 4.6 (all the
larger classes, ignoring B) must fall outside whenever it differs.

Run: ``python derivations/survey_cor_4_7.py``
"""

import itertools
from fractions import Fraction

import symq
from symq.engines.nested import nested_queueing_time_given_busy

from _survey_common import (Rates, collaborative_law, inside, interval, lst_value,
                            noncollaborative_tagged, FLEXIBLE_RATES)
from _verdict import claim, finish

CAP = {"w": 6, "nested": 5}


def main() -> str:
    ok = True
    print(nested_queueing_time_given_busy(symq.model("nested"), "1", {"1", "2"}).latex(
        r"T_{1Q}\mid B=\{1,2\}"))
    for name in CAP:
        model = symq.model(name).substitute(FLEXIBLE_RATES[name][0])
        rates = Rates(model)
        everything = frozenset(model.servers)
        cases = excluded = 0
        good = True
        for size in range(1, len(everything)):
            for busy in map(frozenset, itertools.combinations(sorted(everything), size)):
                reduced = model.remove_servers(everything - busy)
                if reduced.is_empty:
                    continue
                law, eps = collaborative_law(reduced, CAP[name])
                for i in reduced.classes:
                    stated = nested_queueing_time_given_busy(model, i, busy)
                    full = nested_queueing_time_given_busy(model, i, everything)
                    differs = full.components != stated.components
                    for theta in (Fraction(1, 2), Fraction(2)):
                        h = noncollaborative_tagged(rates, i, theta)
                        bounds = interval(law, eps, lambda ahead, h=h, b=busy: h(ahead, b))
                        good &= inside(lst_value(stated.lst(), theta), bounds)
                        if differs and not inside(lst_value(full.lst(), theta), bounds):
                            excluded += 1
                            differs = False
                    ok &= not differs
                    cases += 1
        print(f"% {name}: {cases} (class, busy set) cases, stated law inside every interval: "
              f"{good}; Thm 4.6's law excluded in the {excluded} cases where it differs")
        ok &= good and excluded > 0
    claim("Cor4.7", ok, "the stated law inside every tagged-job interval, every class and busy set")
    return finish(ok)


if __name__ == "__main__":
    main()
