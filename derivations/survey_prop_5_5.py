"""Gardner and Righter (2020), Proposition 5.5: the collaborative model on the state (d, n).

d_l lists the classes of the jobs in service (in arrival order), n_j the waiting jobs between the
j-th and the next job in service. Printed: for d with d_i not in d_{i-1} (distinct classes),
pi^C'(d_l, n_l) = pi^C(0) prod_j lambda_{d_j}/mu(d_j) alpha(d_j)^{n_j}, mu(d_j) = mu(S(d_1..d_j)),
alpha(d_j) = lambda(R(S(d_1..d_j)))/mu(d_j). The formula is right, but the validity condition is
too weak: a job is in service only if some server of its set is not taken by older jobs, i.e.
S_{d_i} not inside S(d_1..d_{i-1}) (docs/theory-subset-dp.md §2.5). In W, d = (3, 1)
satisfies the printed condition but has probability 0 (class 3 takes both servers).

Independent route: the exact stationary law (GTH in rationals) of the truncated collaborative
chain built from the verbal model (symq.engines.ctmc, cut at 4 jobs), aggregated to (d, n). It must be
proportional, with one constant, to symq.engines.aggregated.collaborative_partial_law on every state
it visits, and the set of sequences d it visits must be exactly those allowed by the condition
(printed or corrected), up to the cut; N, W and ring:3.

Run: ``python derivations/survey_prop_5_5.py``
"""

import itertools

import sympy

import symq
from symq.engines import ctmc
from symq.engines.aggregated import collaborative_partial_law

from _survey_common import Rates, aggregate, frac, one_ratio
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}
CAP = {"n": 4, "w": 4, "ring:3": 4}


def served_and_queue(rates: Rates, state) -> tuple[tuple, tuple]:
    served, queue, taken = [], [], frozenset()
    for c in state:
        if rates.sets[c] <= taken:
            queue[-1] += 1
        else:
            served.append(c)
            queue.append(0)
            taken = taken | rates.sets[c]
    return tuple(served), tuple(queue)


def allowed(rates: Rates, d, corrected: bool) -> bool:
    taken = frozenset()
    for k, c in enumerate(d):
        if (rates.sets[c] <= taken) if corrected else (c in d[:k]):
            return False
        taken = taken | rates.sets[c]
    return True


def main() -> str:
    printed_ok = corrected_ok = True
    shown = None
    print(r"\pi^C{}'((1, 2), (1, 0)) = \pi^C(\emptyset)\,"
          + sympy.latex(collaborative_partial_law(symq.model("w"), ("1", "2"), (1, 0),
                                                  normalized=False)))
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        rates = Rates(model)
        law = ctmc.truncated_stationary(model, "collaborative", CAP[name], exact=True)
        measured = aggregate(law, lambda s: served_and_queue(rates, s))
        formula = one_ratio(measured, lambda k: frac(collaborative_partial_law(model, k[0], k[1],
                                                                               normalized=False)))
        visited = {d for d, _ in measured}
        sequences = [d for size in range(len(model.classes) + 1)
                     for d in itertools.permutations(model.classes, size)]
        printed = {d for d in sequences if allowed(rates, d, corrected=False)}
        corrected = {d for d in sequences if allowed(rates, d, corrected=True)}
        extra = sorted(printed - visited)
        if extra:  # the printed formula's value at a sequence that is never in service
            d = extra[0]
            value, taken = frac(symq.empty_probability(model)), frozenset()
            for c in d:
                taken = taken | rates.sets[c]
                value *= rates.lam[c] / rates.mu_of(taken)
            print(f"% {name}: d = {d}, n = 0: printed formula {value}, true probability "
                  f"{measured.get((d, (0,) * len(d)), 0)}")
            if shown is None:
                shown = (name, d, value, measured.get((d, (0,) * len(d)), 0))
        print(f"% {name}: {len(measured)} (d, n) states, proportional to the formula: {formula}; "
              f"corrected condition = visited sequences: {corrected == visited}; printed condition "
              f"admits never-visited {extra[:3]}{' ...' if len(extra) > 3 else ''}")
        printed_ok &= formula and printed == visited
        corrected_ok &= formula and corrected == visited
    if shown is None:
        claim("Prop5.5", printed_ok, "the printed condition admits exactly the visited sequences")
    else:
        name, d, value, true = shown
        claim("Prop5.5", printed_ok, f"{name}: d = {d}, n = 0, admitted by d_i not in d_(i-1); the "
              f"formula is right on the sequences of the corrected condition: {corrected_ok}",
              printed=f"pi(d, 0) = {value}", true=f"pi(d, 0) = {true}")
    return finish(printed_ok,
                  correction=("the validity condition must be "
                              "S_{d_i} not inside S(d_1..d_{i-1}), not d_i not in d_{i-1} (d = (3, 1) in W "
                              "has probability 0)"),
                  corrected=corrected_ok)


if __name__ == "__main__":
    main()
