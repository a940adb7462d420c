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
from _verdict import finish


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
    return finish(ok)


if __name__ == "__main__":
    main()
