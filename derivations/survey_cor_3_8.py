"""Gardner and Righter (2020), Corollary 3.8: conditioning the collaborative model on a sub-system.

(i)  P{C = c | C in C_{-A}} = pi^C_{-A}(c): given that no job of the classes A is present, the
     state has the law of the system without those classes;
(ii) P{C = c | C in C_{|-B}} = pi^C_{|-B}(c): given that no job uses a server of B, the state has
     the law of the reduced system |-B (servers B and every class compatible with them removed).

Independent route: the truncated CTMC of the collaborative model built from the verbal dynamics
(symq.engines.ctmc, cut at n jobs, an acceptance region with the truncation property), solved exactly in
rationals for the full model and, separately, for the reduced model; the full chain conditioned on
the sub-system must equal the reduced chain *exactly* (both are the untruncated laws conditioned
on at most n jobs). Models: N, W and the non-nested ring:3 at exact rates, every class set A of
size 1 and every server set B of size 1. Symbolically, P{C in C_{|-k}} = psi_k (server k idle)
must equal pi(empty)/pi_{|-k}(empty) (exact DPs of symq.engines.normalization).

Run: ``python derivations/survey_cor_3_8.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines import ctmc
from symq.engines.normalization import empty_probability, server_idle_probability
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}
CAP = {"n": 4, "w": 4, "ring:3": 3}


def conditional(law, allowed) -> dict:
    part = {s: p for s, p in law.items() if set(s) <= allowed}
    total = sum(part.values(), Fraction(0))
    return {s: p / total for s, p in part.items()}


def reduced_empty(model) -> sympy.Expr:
    """pi(empty) of a reduced system (1 when no class is left)."""
    return sympy.Integer(1) if model.is_empty else empty_probability(model)


def main() -> str:
    ok = cond_ok = True
    print(r"% P\{\vec C=\vec c \mid \vec C\in\mathcal C_{\vdash B}\} = \pi^C_{\vdash B}(\vec c)")
    for name, values in RATES.items():
        m = symq.model(name).substitute(values)
        full = ctmc.truncated_stationary(m, "collaborative", CAP[name], exact=True)
        checks = []
        for a in m.classes:  # (i)
            reduced = m.remove_classes([a])
            small = ctmc.truncated_stationary(reduced, "collaborative", CAP[name], exact=True)
            checks.append(conditional(full, set(reduced.classes)) == small)
        for b in m.servers:  # (ii)
            reduced = m.remove_servers([b])
            small = ctmc.truncated_stationary(reduced, "collaborative", CAP[name], exact=True)
            checks.append(conditional(full, set(reduced.classes)) == small)
            # S6-cond, first identity: pi^C(c_n) = pi^C_{|-k}(c_n) psi_k on the states of the
            # reduced system, with psi_k = P{C in C_{|-k}} = pi^C(empty) / pi^C_{|-k}(empty)
            psi = full[()] / small[()]
            cond_ok &= all(full[c] == small[c] * psi for c in small if c in full)
        print(f"% {name}: {len(full)} states; (i) for every single class, (ii) for every single "
              f"server: exact equality {all(checks)}")
        ok &= all(checks)
    for name in ("n", "w", "ring:3"):
        m = symq.model(name)
        psi = server_idle_probability(m)["per_server"]
        empty = empty_probability(m)
        same = all(sympy.cancel(psi[k] - empty / reduced_empty(m.remove_servers([k]))) == 0
                   for k in m.servers)
        print(rf"% {name}: \psi_k = \pi(\emptyset)/\pi_{{\vdash k}}(\emptyset) symbolically: {same}")
        cond_ok &= same
    k = "1"
    m = symq.model("n")
    print(rf"\psi_{k} = " + sympy.latex(sympy.factor(server_idle_probability(m)["per_server"][k])))
    claim("Cor3.8", ok, f"exact truncated chains of {', '.join(RATES)}: conditioning on -a "
          "(every class) and |-b (every server) gives the reduced system's law")
    claim("S6-cond", cond_ok, "pi^C(c_n) = pi^C_{|-k}(c_n) psi_k on the reduced states of the "
          "exact chains; psi_k = pi(empty)/pi_{|-k}(empty) symbolically on N, W, ring:3")
    return finish(ok and cond_ok)


if __name__ == "__main__":
    main()
