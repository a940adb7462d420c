"""Gardner and Righter (2020), Theorem 3.9: noncollaborative FCFS-ALIS (Adan et al.).

Checks pi(c_n, s_k) = pi(0, 0) prod_i lambda_{c_i}/mu(c_i) prod_j mu_{s_j}/lambda(s_j) against
the chain on (waiting classes, idle servers with the longest idle first), on every state with at
most 5 jobs (waiting plus in service), symbolic rates, on N, W, ring:3 and redundancy:3:2. The
same law with the idle order reversed must fail.

Run: ``python derivations/survey_thm_3_9.py``
"""

from sympy import latex

import symq
from symq.engines.balance import verify
from symq.engines.processes import ALISProcess
from _verdict import claim, finish
from symq.engines import ctmc
from _survey_common import frac
import itertools


def main() -> str:
    ok = True
    alis = ALISProcess(symq.model("w"))
    print(r"\pi^{ALIS}((1), (2)) = \pi^{ALIS}(\emptyset,\emptyset)\,"
          + latex(alis.product_form((("1",), ("2",)))))
    for name in ("n", "w", "ring:3", "redundancy:3:2"):
        report = verify(symq.model(name), "alis", max_jobs=5)
        print(f"% {report}".splitlines()[0])
        ok &= report.ok
    reversed_law = verify(symq.model("w"), "alis", max_jobs=3,
                          law=lambda s: alis.product_form((s[0], s[1][::-1])))
    print(f"% idle order reversed: {'fails, as it must' if not reversed_law.ok else 'passes?!'}")
    ok &= not reversed_law.ok
    claim("Thm3.9", ok, "eqs. (4), (5) against the chain (symbolic), N, W, ring:3, "
          "redundancy:3:2, up to 5 jobs; the idle order reversed fails")
    # S3.2-idleOI: the idle-server queue is OI: Delta^lambda_j(s_k) = lambda(s_j) - lambda(s_{j-1})
    # >= 0 depends only on s_j, lambda(s_j) is order-free, lambda(s) > 0
    w = symq.model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
                                    "mu_1": 1, "mu_2": "4/5"})
    ring = symq.model("ring:3").substitute({"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3",
                                            "mu_1": 1, "mu_2": "1/2", "mu_3": "3/4"})
    idle_oi = True
    for m in (w, ring):
        lam = lambda servers, m=m: sum((frac(m.arrival_rates[c]) for c in m.classes  # noqa: E731
                                        if set(m.compatibility[c]) & set(servers)), 0)
        for k in range(1, len(m.servers) + 1):
            for s in itertools.permutations(m.servers, k):
                deltas = [lam(s[:j]) - lam(s[:j - 1]) for j in range(1, k + 1)]
                idle_oi &= all(d >= 0 for d in deltas) and sum(deltas) == lam(s)
                idle_oi &= all(lam(p) == lam(s) for p in itertools.permutations(s))
                idle_oi &= lam(s[:1]) > 0
    claim("S3.2-idleOI", idle_oi, "W, ring:3 at exact rates: every ordered idle set")
    # Thm3.9-const: pi^ALIS(empty, empty) is the probability that all servers are busy and no job
    # waits: the exact truncated ALIS chain of W, its state (no job waiting, no idle server),
    # against the normalized product form restricted to the same states
    alis_w = ALISProcess(w)
    law = ctmc.stationary_distribution(alis_w.truncated_chain(3), exact=True)
    terms = {s: frac(alis_w.product_form(s)) for s in law}
    total = sum(terms.values())
    empty = ((), ())
    const = empty in law and law[empty] == 1 / total and terms[empty] == 1
    claim("Thm3.9-const", const, f"W, exact chain cut at 3 waiting jobs: P(all busy, none "
          f"waiting) = {law.get(empty)} = 1/sum of the product-form terms (the constant's factor "
          f"in the state (empty, empty) is 1)")
    return finish(ok and idle_oi and const)


if __name__ == "__main__":
    main()
