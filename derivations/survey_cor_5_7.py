"""Gardner and Righter (2020), Corollary 5.7: the collaborative waiting time is a mixture over d.

T_iQ ~ sum_l sum_{d_l} T_iQ(d_l) I(d_l): the time until a class-i job first gets a server is the
mixture, over the classes d of the jobs in service seen on arrival (probability
P(d) = pi(0) prod_j lambda_{d_j}/r(S(d_1..d_j)), Prop 5.5 summed over n), of the hypoexponential
laws of Cor 5.6 with f = min{j : S_i inside S(d_1..d_j)} (the arg min form; Cor 5.6 itself is
false conditionally on d, see survey_cor_5_6.py).

Independent route ("tagged job", unconditional): the exact LST of the time until the tagged job
gets a server given the jobs ahead (verbal collaborative dynamics), averaged over the Thm 3.3 law
cut at n jobs with the exact omitted mass: a rigorous interval for E exp(-theta T_iQ), which
needs no aggregation over d. The mixture must lie inside for every class of N, W and ring:3 at
theta = 1/2 and 2; the mixture built with the arg max form of f (last job in service using a
server of S_i) must fall outside where it differs (W, class 1).

Run: ``python derivations/survey_cor_5_7.py``
"""

import symq

from _collaborative_waiting import RATES, check, printed_law
from _survey_common import Rates
from _verdict import claim, finish


def main() -> str:
    ok = all([check(name) for name in RATES])
    w = symq.model("w")
    rates_w = Rates(w.substitute(RATES["w"]))
    print(r"T_{1Q} \sim \sum_{\vec d} P(\vec d)\, T_{1Q}(\vec d),\quad "
          + printed_law(rates_w, "1", ("3",)).latex(r"T_{1Q}(\vec d=(3))"))
    claim("Cor5.7", ok, "the P(d)-mixture inside the rigorous intervals of the unconditional waiting time")
    return finish(ok)


if __name__ == "__main__":
    main()
