"""Gardner and Righter (2020), Corollary 3.5: OI queues with abandonments.

Checks pi(c_n) = pi(0) prod_i lambda_{c_i} / mu(c_1..c_i) with
mu(c_1..c_j) = sum_{i<=j} gamma_{c_i} + mu(S(c_1..c_j)) against the collaborative chain in which
every job also abandons at rate gamma_c (states with at most 4 jobs, symbolic rates, W graph).

Run: ``python derivations/survey_thm_3_5.py``
"""

from sympy import latex

import symq
from symq.engines.balance import verify
from symq.engines.processes import CollaborativeQueue
from _verdict import claim, finish


def main() -> str:
    model = symq.Model(compatibility={"1": ["1"], "2": ["2"], "3": ["1", "2"]},
                       arrival_rates={c: f"lambda_{c}" for c in "123"},
                       service_rates={"1": "mu_1", "2": "mu_2"},
                       abandonment_rates={c: f"gamma_{c}" for c in "123"}, name="W + abandonment")
    queue = CollaborativeQueue(model)
    print(r"\pi^{CA}(1, 3) = \pi^{CA}(\emptyset)\," + latex(queue.product_form(("1", "3"))))
    report = verify(queue, max_jobs=4)
    print(f"% {report}".splitlines()[0])
    claim("Thm3.5", report.ok, "eq. (3), W with abandonments, symbolic rates, global and partial balance up to 4 jobs")
    return finish(report.ok)


if __name__ == "__main__":
    main()
