"""Gardner and Righter (2020), Theorem 3.12 (DBM(K)) and Theorem 3.13 (DBMA).

Directed bipartite matching with a server buffer K, and with abandonments of jobs (gamma) and
servers (nu) and finite or infinite buffers: checks
pi(c_n, s_k) = pi(0, 0) prod_i lambda_{c_i}/mu(c_i) prod_j mu_{s_j}/lambda(s_j) against the
chain of the verbal model on every state with at most 3 (DBMA) or 3 (DBM(K)) waiting agents,
symbolic rates.

Run: ``python derivations/survey_thm_3_12.py``
"""

from sympy import latex

import symq
from symq.engines.balance import verify
from symq.engines.processes import DirectedMatching
from _verdict import claim, finish


def main() -> str:
    ok = dbm = True
    for name in ("n", "w", "ring:3"):
        for buffer in (0, 2, None):
            report = verify(DirectedMatching(symq.model(name), server_buffer=buffer), max_jobs=3)
            print(f"% {report}".splitlines()[0])
            ok &= report.ok
            if buffer == 0:
                dbm &= report.ok
    claim("DBM", dbm, "K = 0 (no server waits): the collaborative product form against the DBM "
          "chain, N, W, ring:3, symbolic rates")
    claim("Thm3.12", ok, "K = 0, 2 and unbounded, N, W, ring:3, symbolic rates, up to 3 jobs")
    model = symq.Model(compatibility={"1": ["1"], "2": ["2"], "3": ["1", "2"]},
                       arrival_rates={c: f"lambda_{c}" for c in "123"},
                       service_rates={"1": "mu_1", "2": "mu_2"},
                       abandonment_rates={c: f"gamma_{c}" for c in "123"}, name="W + abandonment")
    dbma = DirectedMatching(model, server_buffer=None, server_patience={"1": "nu_1", "2": "nu_2"})
    print(r"\pi^{DBMA}((3), ()) = \pi^{DBMA}(\emptyset,\emptyset)\,"
          + latex(dbma.product_form((("3",), ()))))
    print(r"\pi^{DBMA}((), (1, 2)) = \pi^{DBMA}(\emptyset,\emptyset)\,"
          + latex(dbma.product_form(((), ("1", "2")))))
    report = verify(dbma, max_jobs=3)
    print(f"% {report}".splitlines()[0])
    claim("Thm3.13", report.ok, "DBMA on W with abandonments gamma and server patience nu, "
          "symbolic rates, up to 3 jobs")
    ok &= report.ok
    return finish(ok)


if __name__ == "__main__":
    main()
