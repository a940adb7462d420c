"""Gardner and Righter (2020), Theorem 3.3: the OI queue and the collaborative model.

Checks pi(c_1..c_n) = pi(0) prod_i lambda_{c_i} / mu(S(c_1..c_i)) against the global- and
partial-balance equations of the collaborative chain (built from the verbal model) on every state
with at most 4 jobs, with symbolic rates, on the N, W, ring:3 and redundancy:3:2 models; and a
general OI rate function (M/M/2 with two classes).

Run: ``python derivations/survey_thm_3_3.py``
"""

from sympy import latex

import symq
from symq.engines.balance import verify
from symq.engines.processes import CollaborativeQueue, OrderIndependentQueue
from _verdict import claim, finish


def main() -> str:
    ok = True
    example = CollaborativeQueue(symq.model("w"))
    print(r"\pi^C(3, 1) = \pi^C(\emptyset)\," + latex(example.product_form(("3", "1"))))
    for name in ("n", "w", "ring:3", "redundancy:3:2"):
        report = verify(symq.model(name), "collaborative", max_jobs=4)
        print(f"% {report}".splitlines()[0])
        ok &= report.ok
    mm2 = OrderIndependentQueue({"a": "lambda_a", "b": "lambda_b"},
                                lambda s: min(len(s), 2) * symq.models.rates.positive_symbol("mu"))
    report = verify(mm2, max_jobs=5)
    print(f"% general OI rate function (M/M/2): {'OK' if report.ok else 'FAILED'}")
    ok &= report.ok
    claim("Thm3.3", ok, "eq. (2) against global and partial balance, N, W, ring:3, redundancy:3:2 (symbolic rates, up to 4 jobs) and a general OI rate function")
    return finish(ok)


if __name__ == "__main__":
    main()
