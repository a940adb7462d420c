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

from fractions import Fraction

import symq
from symq.distributions import ExponentialMixture
from symq.normalization import collaborative_empty_probability

from _survey_common import (Rates, collaborative_law, collaborative_tagged, frac,
                            in_service_probability, inside, interval, lst_value, show)
from survey_cor_5_6 import RATES, printed_law

CAP = {"n": 7, "w": 5, "ring:3": 4}
THETAS = (Fraction(1, 2), Fraction(2))


def mixture(rates: Rates, p_d: dict, job_class: str, first: str = "min") -> ExponentialMixture:
    return ExponentialMixture.mixture([(p, printed_law(rates, job_class, d, first))
                                       for d, p in p_d.items()])


def check(name: str, verbose: bool = True) -> bool:
    """The mixture inside the unconditional interval for every class of model ``name``; the
    arg max variant outside wherever it differs."""
    model = symq.model(name).substitute(RATES[name])
    rates = Rates(model)
    p_d = in_service_probability(rates, frac(collaborative_empty_probability(model)))
    law, eps = collaborative_law(model, CAP[name])
    ok = True
    for i in model.classes:
        right, wrong = mixture(rates, p_d, i), mixture(rates, p_d, i, "max")
        differs = right.components != wrong.components
        excluded = not differs
        for t in THETAS:
            bounds = interval(law, eps, collaborative_tagged(rates, i, t, "service"))
            value = lst_value(right.lst(), t)
            ok &= inside(value, bounds)
            excluded |= not inside(lst_value(wrong.lst(), t), bounds)
            if verbose and t == THETAS[0]:
                variant = ("is the same" if not differs else
                           "differs and is excluded" if excluded else "differs, NOT excluded")
                print(f"% {name}, class {i}: mixture {show(value)} in [{show(bounds[0])}, "
                      f"{show(bounds[1])}]; arg max variant {variant}")
        ok &= excluded
    return ok


def main() -> str:
    ok = all([check(name) for name in RATES])
    w = symq.model("w")
    rates_w = Rates(w.substitute(RATES["w"]))
    print(r"T_{1Q} \sim \sum_{\vec d} P(\vec d)\, T_{1Q}(\vec d),\quad "
          + printed_law(rates_w, "1", ("3",)).latex(r"T_{1Q}(\vec d=(3))"))
    verdict = "VERIFIED" if ok else "NOT VERIFIED"
    print(verdict)
    return verdict


if __name__ == "__main__":
    main()
