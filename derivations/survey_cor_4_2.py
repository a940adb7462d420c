"""Gardner and Righter (2020), Corollary 4.2: the number of jobs of a fully flexible class.

In the collaborative model with a fully flexible class J (S_J = all servers), N_J ~ geom(1-rho_J),
P{N_J = k} = (1-rho_J) rho_J^k, with rho_J = lambda_J / (mu - (lambda - lambda_J)).

Independent route: the truncated CTMC of the collaborative model built from the verbal dynamics
(symq.engines.ctmc, cut at n jobs, solved by sparse LU in floating point at exact rational rates). The
cut has the truncation property, so its law is the true law given N <= n; with eps = P{N > n}
(exact, from the Thm 3.3 product form and the exact pi(empty)), the true P{N_J = k} lies in
[(1-eps) P_n, (1-eps) P_n + eps] (plus 1e-12 for the float solve). Checked for k = 0..3 on N, W,
the nested example and the non-nested ring:3 plus a fully flexible class (the result does not
need nesting). The M/M/1 law with the wrong load lambda_J/mu must fall outside.

Run: ``python derivations/survey_cor_4_2.py``
"""


import sympy

from symq.engines import ctmc

from _survey_common import collaborative_law, example, flexible_examples, frac
from _verdict import claim, finish

CAP = {"n": 8, "w": 6, "nested": 5, "ring:3+J": 5}


def main() -> str:
    ok = True
    m = example("w")
    lam_j = m.arrival_rates["3"]
    rho = lam_j / (m.service_rate(m.servers) - (m.arrival_rate(m.classes) - lam_j))
    k = sympy.Symbol("k", integer=True, nonnegative=True)
    print(r"% W model, J = 3:")
    print(r"P\{N_3 = k\} = " + sympy.latex((1 - rho) * rho ** k))
    for name, model, flexible in flexible_examples():
        lam = {c: frac(r) for c, r in model.arrival_rates.items()}
        mu = sum(frac(r) for r in model.service_rates.values())
        rho = lam[flexible] / (mu - (sum(lam.values()) - lam[flexible]))
        wrong = lam[flexible] / mu
        law = ctmc.truncated_stationary(model, "collaborative", CAP[name], exact=False)
        _, eps = collaborative_law(model, CAP[name])
        good, bad = True, True
        for count in range(4):
            p_n = sum(p for s, p in law.items() if s.count(flexible) == count)
            low = (1 - float(eps)) * p_n - 1e-12
            high = low + float(eps) + 2e-12
            good &= low <= float((1 - rho) * rho ** count) <= high
            bad &= low <= float((1 - wrong) * wrong ** count) <= high
        print(f"% {name}: J = {flexible}, rho_J = {rho}, {len(law)} states, eps = {float(eps):.1e}: "
              f"geom(1-rho_J) inside for k=0..3: {good}; geom(1-lambda_J/mu) inside: {bad}")
        ok &= good and not bad
    claim("Cor4.2", ok, "N_J ~ geom(1 - rho_J) inside the rigorous bounds of the truncated chain, geom(1 - lambda_J/mu) outside")
    return finish(ok)


if __name__ == "__main__":
    main()
