"""Gardner and Righter (2020), section 3.4: paired bipartite FCFM matching (Adan and Weiss).

At each step a job-server pair arrives, the job of class c and the server of type s
independently with probabilities lambda_c/lambda and mu_s/mu. The job takes the first compatible
waiting server, the server the first compatible waiting job; if neither finds one and they are
compatible they match each other; whoever is unmatched waits. The survey gives
pi^PBM(c_n, s_n) = pi^PBM(0) prod_i lambda_{c_i}/mu(c_1..c_i) * mu_{s_i}/lambda(s_1..s_i).

Checks: global-balance residuals (symq.engines.balance; this chain is not partially balanced in the
survey's sense) with symbolic rates on N, W, ring:3 and ring:4, on every state with at most 2 unmatched
pairs; at exact rational rates on N, W and ring:4, the exact stationary law of the truncated chain
(symq.engines.ctmc, at most 2 unmatched pairs, GTH in rationals) against the normalized product form
restricted to it. A law with the server queue reversed must fail (ring:4 at exact rates, where two waiting
servers can have different types).

Run: ``python derivations/survey_paired_matching.py``
"""

from fractions import Fraction

from sympy import latex

import symq
from symq.engines import ctmc
from symq.engines.balance import verify
from symq.engines.processes import PairedMatching

from _survey_common import frac
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/3", "lambda_2": "2/3", "mu_1": "1/2", "mu_2": "1/2"},
    "w": {"lambda_1": "1/4", "lambda_2": "1/4", "lambda_3": "1/2", "mu_1": "2/5", "mu_2": "3/5"},
    "ring:4": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/4", "lambda_4": "3/10",
               "mu_1": "1/4", "mu_2": "1/5", "mu_3": "3/10", "mu_4": "1/4"},
}


def main() -> str:
    ok = True
    pbm = PairedMatching(symq.model("w"))
    print(r"\pi^{PBM}((1, 1), (2, 2)) = \pi^{PBM}(\emptyset)\,"
          + latex(pbm.product_form((("1", "1"), ("2", "2")))))
    for name in ("n", "w", "ring:3", "ring:4"):
        report = verify(PairedMatching(symq.model(name)), max_jobs=2)
        print(f"% {report}".splitlines()[0])
        ok &= report.ok
    ring = PairedMatching(symq.model("ring:4").substitute(RATES["ring:4"]))
    reversed_law = verify(ring, max_jobs=2, law=lambda s: ring.product_form((s[0], s[1][::-1])))
    print(f"% server queue reversed: {'fails, as it must' if not reversed_law.ok else 'passes?!'}")
    ok &= not reversed_law.ok
    for name, values in RATES.items():
        numeric = PairedMatching(symq.model(name).substitute(values))
        law = ctmc.stationary_distribution(numeric.truncated_chain(2), exact=True)
        terms = {s: frac(numeric.product_form(s)) for s in law}
        total = sum(terms.values(), Fraction(0))
        same = all(law[s] == terms[s] / total for s in law)
        print(f"% {name}: exact truncated chain ({len(law)} states) = restricted product form: {same}")
        ok &= same
    claim("PBM", ok, "pi^PBM against balance on N, W, ring:3, ring:4 and the exact truncated chains")
    return finish(ok)


if __name__ == "__main__":
    main()
