"""Gardner and Righter (2020), Proposition 6.3: mean numbers by removing servers.

Printed: L_i = (lambda_i + sum_{k in S_i} mu_k psi_k L_{i|-k}) / (mu - lambda) and
L = (lambda + sum_k mu_k psi_k L_{|-k}) / (mu - lambda), with psi_k = P(server k idle) =
pi(0)/pi_{|-k}(0) and L_{.|-k} the means of the reduced system |-k. The per-class sum runs over
the wrong servers: every k in S_i removes class i from |-k, so each term vanishes and the
printed L_i is lambda_i/(mu - lambda), the all-busy value. The survey defines S-bar_i (the
servers that cannot serve i) just before; with k not in S_i the formula is right
(docs/theory-subset-dp.md §2.6). The total-L form is right as printed.

Routes: both recursions are written here (memoized over reduced systems, psi_k from the
server-removal recursion of Prop 6.2) and compared with (1) the exact mean numbers of
symq.engines.normalization.mean_number (exact-cover subset DP on general graphs, nested closed form on
nested ones: both independent of Prop 6.3), symbolically on N and W and at exact rates on ring:3
and the nested example; (2) the Thm 3.3 law summed over the states with at most n jobs, an exact
*lower* bound on each L_i: the printed value must fall below it somewhere (a rigorous refutation).

Run: ``python derivations/survey_prop_6_3.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines.normalization import collaborative_empty_probability, mean_number

from _survey_common import collaborative_law, frac, FLEXIBLE_RATES
from _verdict import claim, finish

NUMERIC = {
    "n": FLEXIBLE_RATES["n"][0],
    "w": FLEXIBLE_RATES["w"][0],
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
    "nested": FLEXIBLE_RATES["nested"][0],
}
CAP = {"n": 8, "w": 6, "ring:3": 5, "nested": 4}


def recursion(model, printed: bool):
    """(per-class means, total mean) by Prop 6.3, printed (k in S_i) or corrected (k not in S_i)."""
    memo: dict = {}

    def empty(m):
        return sympy.Integer(1) if m.is_empty else collaborative_empty_probability(m)

    def means(m):
        key = m.classes
        if key in memo:
            return memo[key]
        if m.is_empty:
            memo[key] = ({}, sympy.Integer(0))
            return memo[key]
        gap = m.service_rate(m.servers) - m.arrival_rate(m.classes)
        base = empty(m)
        reduced = {k: m.remove_servers([k]) for k in m.servers}
        weight = {k: m.service_rates[k] * base / empty(reduced[k]) for k in m.servers}
        sub = {k: means(reduced[k]) for k in m.servers}
        per_class = {}
        for i in m.classes:
            servers = [k for k in m.servers if (k in m.compatibility[i]) == printed]
            extra = sympy.Add(*(weight[k] * sub[k][0].get(i, 0) for k in servers))
            per_class[i] = sympy.cancel((m.arrival_rates[i] + extra) / gap)
        total = sympy.cancel((m.arrival_rate(m.classes)
                              + sympy.Add(*(weight[k] * sub[k][1] for k in m.servers))) / gap)
        memo[key] = (per_class, total)
        return memo[key]
    return means(model)


def main() -> str:
    corrected_ok, printed_fails = True, False
    shown = []
    for name in ("n", "w"):
        m = symq.model(name)
        exact = mean_number(m)
        printed, _ = recursion(m, printed=True)
        corrected, total = recursion(m, printed=False)
        same = all(sympy.cancel(corrected[i] - exact["per_class"][i]) == 0 for i in m.classes)
        same &= sympy.cancel(total - exact["total"]) == 0
        wrong = [i for i in m.classes if sympy.cancel(printed[i] - exact["per_class"][i]) != 0]
        print(f"% {name} (symbolic): corrected = exact means (and total L): {same}; printed differs "
              f"for classes {wrong}")
        corrected_ok &= same
    print(r"L_1^{N} = " + sympy.latex(sympy.factor(recursion(symq.model("n"), False)[0]["1"]))
          + r",\quad \text{printed: } " + sympy.latex(recursion(symq.model("n"), True)[0]["1"]))
    for name, values in NUMERIC.items():
        m = symq.model(name).substitute(values)
        exact = mean_number(m)
        printed, _ = recursion(m, printed=True)
        corrected, total = recursion(m, printed=False)
        same = all(corrected[i] == exact["per_class"][i] for i in m.classes)
        same &= total == exact["total"]
        law, _ = collaborative_law(m, CAP[name])
        below = []
        for i in m.classes:
            lower = sum((p * s.count(i) for s, p in law.items()), Fraction(0))
            corrected_ok &= frac(corrected[i]) >= lower
            if frac(printed[i]) < lower:
                below.append(i)
                shown.append((f"{name} L_{i}", printed[i], exact["per_class"][i]))
        print(f"% {name} at exact rates: corrected = exact means: {same}; L_i = "
              f"{[str(corrected[i]) for i in m.classes]}; printed {[str(printed[i]) for i in m.classes]}"
              f" is below the exact lower bound for classes {below}")
        corrected_ok &= same
        printed_fails |= bool(below)
    claim("Prop6.3", not printed_fails, "per-class sum over k in S_i as printed, against the "
          "exact means and the rigorous lower bound of the truncated law; "
          + "; ".join(f"{k}: printed {p}, exact {e}" for k, p, e in shown[1:]),
          printed=f"{shown[0][0]} = {shown[0][1]}" if shown else None,
          true=f"{shown[0][0]} = {shown[0][2]}" if shown else None)
    return finish(not printed_fails and corrected_ok,
                  correction=("the per-class sum runs over the "
                              "servers k not in S_i (S-bar_i), not k in S_i; the total-L form is right"),
                  corrected=corrected_ok)


if __name__ == "__main__":
    main()
