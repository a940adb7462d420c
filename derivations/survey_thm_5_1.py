"""Gardner and Righter (2020), Theorem 5.1 (Visschers et al.): RAIS on the partially aggregated state.

pi^RAIS'(b_l, n_l) = pi^RAIS(0) prod_j lambda^a_{b_j}(b_{j-1}) / mu(b_j) alpha(b_j)^{n_j}, with
alpha(b_j) = lambda(R(b_j))/mu(b_j), and equivalently pi'(n | b) = prod_j (1 - alpha_j) alpha_j^{n_j}
(independent geometric queue lengths given the ordered busy servers).

Independent route: the noncollaborative FCFS chain with random assignment written from the
verbal model (lumped to busy servers and waiting classes in arrival order, cut at 3 waiting jobs,
a cut with the truncation property), solved exactly in rationals, aggregated to (b, n); it must
be proportional, with one constant, to symq.engines.aggregated.rais_partial_law on every state. Two
valid routings (the canonical one and a max-flow one, symq.engines.processes.noncollaborative) on W, N
and ring:3 at exact rates; uniform routing on N (it violates the assignment condition) must
fail. The conditional form is checked symbolically: rais_partial_law / P(b) =
prod (1-alpha_j) alpha_j^{n_j} on N and W for every b and n_j <= 1.

Run: ``python derivations/survey_thm_5_1.py``
"""

import itertools

import sympy

import symq
from symq.engines.aggregated import busy_order_probability, rais_partial_law
from symq.engines.processes.noncollaborative import canonical_routing, maxflow_routing, uniform_routing

from _survey_common import (aggregate, busy_and_queue, frac, noncollaborative_law, one_ratio,
                            routing_function)
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}
CAP = {"n": 3, "w": 3, "ring:3": 2}


def main() -> str:
    ok = True
    print(r"\pi^{RAIS}{}'((1), (2)) = \pi^{RAIS}(\emptyset)\,"
          + sympy.latex(rais_partial_law(symq.model("n"), ("1",), (2,), normalized=False)))
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        routings = {"canonical": canonical_routing(model), "max-flow": maxflow_routing(model)}
        if name == "n":
            routings["uniform (invalid)"] = uniform_routing(model)
        formula: dict = {}

        def stated(k, model=model, formula=formula):
            if k not in formula:
                formula[k] = frac(rais_partial_law(model, k[0], k[1], normalized=False))
            return formula[k]
        for label, table in routings.items():
            law = noncollaborative_law(model, "rais", CAP[name], routing_function(table))
            measured = aggregate(law, lambda s: busy_and_queue(s[0]))
            same = one_ratio(measured, stated)
            print(f"% {name}, {label} routing: {len(law)} states, {len(measured)} (b, n) states, "
                  f"proportional to Thm 5.1: {same}")
            ok &= same if "invalid" not in label else not same
    claim("Thm5.1", ok, f"exact RAIS chains of {', '.join(RATES)} (canonical and max-flow routing) "
          "aggregated to (b, n): proportional to Thm 5.1; uniform routing on N is not")
    geom = True
    for name in ("n", "w"):
        m = symq.model(name)
        p_b = busy_order_probability(m)
        empty = p_b[()]
        good = True
        for b in p_b:
            if not b:
                continue
            for n in itertools.product(range(2), repeat=len(b)):
                geometric = sympy.Integer(1)
                prefix = set()
                for server, count in zip(b, n):
                    prefix.add(server)
                    alpha = m.arrival_rate(m.only_served_by(prefix)) / m.service_rate(prefix)
                    geometric *= (1 - alpha) * alpha ** count
                partial = rais_partial_law(m, b, n, normalized=False) * empty
                good &= sympy.cancel(partial / p_b[b] - geometric) == 0
        print(f"% {name}: pi'(n | b) = prod (1 - alpha_j) alpha_j^n_j symbolically: {good}")
        geom &= good
    claim("S5-geom", geom, "N, W symbolically: given b_l, pi'(n | b) = prod_j (1 - alpha(b_j)) "
          "alpha(b_j)^n_j, every b and n_j <= 1")
    return finish(ok and geom)


if __name__ == "__main__":
    main()
