"""Gardner and Righter (2020), Theorem 3.10: noncollaborative FCFS-RAIS on the z-state.

With activation rates satisfying the assignment condition (the canonical routing of
docs/theory-subset-dp.md §1.3, symbolic in the lambdas), checks
pi(z) = pi(0) prod_i lambda_{z_i}(z_i)/mu(z_i) on every state with at most 4 jobs, on N, W,
ring:3 and redundancy:3:2; uniform routing (which breaks the condition in N and W) must fail.

Run: ``python derivations/survey_thm_3_10.py``
"""

from sympy import latex

import symq
from symq.engines.balance import verify
from symq.engines.processes import RandomAssignmentProcess
from _verdict import finish


def main() -> str:
    ok = True
    rais = RandomAssignmentProcess(symq.model("n"))
    print(r"\pi^{RAIS}(1_b, 1_c) = \pi^{RAIS}(\emptyset)\,"
          + latex(rais.product_form((("b", "1"), ("c", "1")))))
    for name in ("n", "w", "ring:3", "redundancy:3:2"):
        report = verify(symq.model(name), "rais", max_jobs=4)
        print(f"% {report}".splitlines()[0])
        ok &= report.ok
    for name in ("n", "w"):
        bad = verify(symq.model(name), "rais", max_jobs=2, routing="uniform")
        print(f"% {name}, uniform routing: {'fails, as it must' if not bad.ok else 'passes?!'}")
        ok &= not bad.ok
    return finish(ok)


if __name__ == "__main__":
    main()
