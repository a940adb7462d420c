"""Shared pieces of the Cor 5.6 and Cor 5.7 derivations (not a derivation itself: no verdict).

Gardner and Righter (2020), section 5.3: the collaborative waiting time given the classes d of
the jobs in service. ``printed_law`` is Cor 5.6 as printed (with the arg min or the arg max form
of f); ``check`` is the unconditional mixture over d of Cor 5.7 against the symq-free tagged-job
interval. Both scripts import this module, neither imports the other.
"""

from fractions import Fraction

import symq
from symq.engines.distributions import ExponentialMixture
from symq.engines.normalization import collaborative_empty_probability

from _survey_common import (Rates, collaborative_law, collaborative_tagged, frac,
                            in_service_probability, inside, interval, lst_value, show)

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/5", "mu_1": 1, "mu_2": "3/4",
               "mu_3": 1},
}
CAP = {"n": 7, "w": 5, "ring:3": 4}
THETAS = (Fraction(1, 2), Fraction(2))


def printed_law(rates: Rates, job_class: str, served, first: str = "min") -> ExponentialMixture:
    """Cor 5.6 as printed; ``first`` "min" (arg min{j : S_i inside S(d_1..d_j)}) or "max"
    (arg max{j : S(d_j) meets S_i}, the second printed form read with an intersection)."""
    need = rates.sets[job_class]
    prefixes, taken = [], frozenset()
    for d in served:
        taken = taken | rates.sets[d]
        prefixes.append(taken)
    if not need <= taken:
        return ExponentialMixture.zero()
    if first == "min":
        f = next(j for j, x in enumerate(prefixes) if need <= x)
    else:
        f = max(j for j, d in enumerate(served) if rates.sets[d] & need)
    return ExponentialMixture.hypoexponential([rates.r(x) for x in prefixes[f:]])


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
