"""Gardner and Righter (2020), Corollary 5.3: ALIS summed over idle orders is RAIS.

sum over the orders s of the idle servers of pi^ALIS'(s, b, n) = pi^RAIS'(b, n), for every ordered
busy vector b and queue lengths n; the activation rates of RAIS are forced by the assignment
condition (docs/theory-subset-dp.md §1.2), so this holds for every valid RAIS routing.

Routes:

1. Two independent exact chains written from the verbal models, each cut at 3 waiting jobs (2 on
   ring:3): FCFS-ALIS (lumped to busy servers and waiting classes plus the idle order) and FCFS
   with random assignment under two different valid routings (canonical and max-flow), solved in
   rationals and aggregated to (b, n): the laws must be equal, exactly, on W, N and ring:3.
   Uniform assignment on N, which violates the assignment condition, must differ.
2. Symbolically on N and W: symq.engines.aggregated.idle_order_sum (corrected Thm 5.2 summed over the
   idle orders) equals symq.engines.aggregated.rais_partial_law (Thm 5.1) for every b and n_j <= 1, with
   the two normalizing constants of symq.engines.normalization.

Run: ``python derivations/survey_cor_5_3.py``
"""

import itertools

import sympy

import symq
from symq.engines.aggregated import alis_partial_law, rais_partial_law
from symq.engines.normalization import normalizing_constant
from symq.engines.processes.noncollaborative import canonical_routing, maxflow_routing, uniform_routing

from _survey_common import aggregate, busy_and_queue, noncollaborative_law, routing_function
from _verdict import claim, finish

RATES = {
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}
CAP = {"w": 3, "n": 3, "ring:3": 2}


def main() -> str:
    ok = True
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        alis = aggregate(noncollaborative_law(model, "alis", CAP[name]),
                         lambda s: busy_and_queue(s[0]))
        routings = {"canonical": canonical_routing(model), "max-flow": maxflow_routing(model)}
        if name == "n":
            routings["uniform (invalid)"] = uniform_routing(model)
        for label, table in routings.items():
            rais = aggregate(noncollaborative_law(model, "rais", CAP[name], routing_function(table)),
                             lambda s: busy_and_queue(s[0]))
            same = rais == alis
            print(f"% {name}: ALIS summed over idle orders = RAIS ({label}) on {len(alis)} (b, n) "
                  f"states, exactly: {same}")
            ok &= same if "invalid" not in label else not same
    for name in ("n", "w"):
        m = symq.model(name)
        g_alis, g_rais = normalizing_constant(m, "alis"), normalizing_constant(m, "rais")
        good = True
        for size in range(1, len(m.servers) + 1):
            for b in itertools.permutations(m.servers, size):
                idle = [s for s in m.servers if s not in b]
                for n in itertools.product(range(2), repeat=size):
                    total = sympy.Add(*(alis_partial_law(m, s, b, n, normalized=False)
                                        for s in itertools.permutations(idle)))
                    good &= sympy.cancel(total / g_alis
                                         - rais_partial_law(m, b, n, normalized=False) / g_rais) == 0
        print(f"% {name}: sum over idle orders of Thm 5.2 (corrected) = Thm 5.1, symbolically: {good}")
        ok &= good
    print(r"\sum_{\vec s}\pi^{ALIS}{}'(\vec s,\vec b,\vec n)=\pi^{RAIS}{}'(\vec b,\vec n)")
    claim("Cor5.3", ok, "ALIS summed over idle orders = RAIS on (b, n), exactly and symbolically")
    return finish(ok)


if __name__ == "__main__":
    main()
