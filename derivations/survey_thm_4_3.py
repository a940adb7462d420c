"""Gardner and Righter (2020), Theorem 4.3: the collaborative model with a fully flexible class J.

(i)   given no class-J job, the state has the law pi^C_{-J} of the system without class J;
(ii)  the jobs ahead of the first class-J job, given there is one, have the law pi^C_{-J};
(iii) the jobs after it have the law of a multiclass M/M/1 queue (arrival rate lambda, service
      rate mu): P{a_m} = (1-rho) prod_k lambda_{a_k}/mu, independent of (ii);
(iv)  N_J ~ geom(1 - rho_J), rho_J = lambda_J/(mu - (lambda - lambda_J)) (survey_cor_4_2.py).

Independent route: exact stationary laws (GTH in rationals) of the truncated CTMCs built from the
verbal dynamics (symq.engines.ctmc), cut at n jobs. The cut has the truncation property, so each
truncated law is the true law given at most n jobs, and the statements become exact identities:
(i) the full chain conditioned on no class-J job equals the chain of the model without J;
(ii)+(iii) on every state (c, J, a) with at most n jobs, pi_n(c, J, a) equals
K * pi_{-J,n}(c) * prod_k lambda_{a_k}/mu for one constant K (pi_{-J,n} from the separate chain
of the model without J; with mu - lambda_J in place of mu the ratio must vary), i.e. the two
parts are independent with the stated laws; and the (iii) constant (1 - rho) is the symbolic
sum of the geometric series. N, W, the nested example
and ring:3 plus a fully flexible class (no nesting needed).

Run: ``python derivations/survey_thm_4_3.py``
"""

from fractions import Fraction

import sympy

from symq.engines import ctmc

from _survey_common import flexible_examples, frac
from _verdict import claim, finish

CAP = {"n": 5, "w": 4, "nested": 3, "ring:3+J": 3}


def main() -> str:
    ok = after_ok = True
    lam, mu, m = sympy.symbols("lambda mu m", positive=True)
    series = sympy.summation((lam / mu) ** m, (m, 0, sympy.oo))
    print(r"A^{-1} = \sum_{m\ge0}\Big(\frac{\lambda}{\mu}\Big)^m = "
          + sympy.latex(sympy.simplify(series.args[0][0] if isinstance(series, sympy.Piecewise)
                                       else series)) + r" \quad (\lambda<\mu)")
    for name, model, flexible in flexible_examples():
        rates = {c: frac(r) for c, r in model.arrival_rates.items()}
        total_mu = sum(frac(r) for r in model.service_rates.values())
        full = ctmc.truncated_stationary(model, "collaborative", CAP[name], exact=True)
        reduced = ctmc.truncated_stationary(model.remove_classes([flexible]), "collaborative",
                                            CAP[name], exact=True)
        without = {s: p for s, p in full.items() if flexible not in s}
        norm = sum(without.values(), Fraction(0))
        part_i = {s: p / norm for s, p in without.items()} == reduced
        ratios, wrong = set(), set()
        for state, p in full.items():
            if flexible in state:
                first = state.index(flexible)
                after, slower = Fraction(1), Fraction(1)
                for c in state[first + 1:]:
                    after *= rates[c] / total_mu
                    slower *= rates[c] / (total_mu - rates[flexible])  # a wrong service rate
                ratios.add(p / (reduced[state[:first]] * after))
                wrong.add(p / (reduced[state[:first]] * slower))
        part_ii = len(ratios) == 1 and len(wrong) > 1
        # S4-after: pi(c_n, J, a_m) = pi(empty) prod lambda_{c_i}/mu(c_i) lambda_J/mu prod
        # lambda_{a_k}/mu, the Thm 3.3 form written out (relative to the empty state of the chain)
        for state, p in full.items():
            if flexible in state:
                first = state.index(flexible)
                value, seen = Fraction(1), set()
                for c in state[:first]:
                    seen |= set(model.compatibility[c])
                    value *= rates[c] / sum(frac(model.service_rates[s]) for s in seen)
                value *= rates[flexible] / total_mu
                for c in state[first + 1:]:
                    value *= rates[c] / total_mu
                after_ok &= p / full[()] == value
        print(f"% {name} (J = {flexible}, {len(full)} states): (i) {part_i}; (ii)+(iii) one "
              f"constant over the states with a class-J job: {part_ii}")
        ok &= part_i and part_ii
    claim("S4-after", after_ok, "every state with a class-J job of the exact truncated chains of "
          "the models with a fully flexible class: pi(c, J, a)/pi(empty) = the printed product")
    claim("Thm4.3", ok, "(i) the law without J is pi_{-J}; (ii), (iii) one constant over the "
          "states with a class-J job, a wrong service rate gives several")
    return finish(ok and after_ok)


if __name__ == "__main__":
    main()
