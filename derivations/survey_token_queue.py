"""Gardner and Righter (2020), section 3.3: the token central queue of Ayesta et al.

Jobs wait for tokens, an arriving job that finds idle compatible tokens takes one by random
assignment (the assignment condition, "RAIT"), and the busy tokens, in the order of their jobs'
arrival, are served by an order-independent process mu(b_1..b_l). The survey states that
Theorem 3.10 holds with this mu: pi(z_m) = pi(0) prod_i lambda_{z_i}(z_i) / mu(z_i).

Checked by global- and partial-balance residuals (symq.engines.balance, exact rational functions,
symbolic rates) of the chain written from the verbal model, on the W job graph with three tokens
and a collaborative token-server layer, and with a general OI rate function (mu times
min(busy tokens, 2) plus a token-specific bonus); then at exact rational rates against the exact
stationary law of the truncated chain (symq.engines.ctmc GTH in rationals). Finally, the special case
"each token is its own server" must give the noncollaborative RAIS product form, state by state.

Run: ``python derivations/survey_token_queue.py``
"""

from fractions import Fraction

import sympy
from sympy import latex

import symq
from symq.engines import ctmc
from symq.engines.balance import verify
from symq.engines.processes import RandomAssignmentProcess, TokenQueue
from symq.engines.processes.tokens import collaborative_token_service
from symq.models.rates import positive_symbol

from _survey_common import frac
from _verdict import claim, finish

W_RATES = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"}


def main() -> str:
    ok = True
    jobs = symq.Model(compatibility={"1": ["x"], "2": ["y"], "3": ["x", "y", "z"]},
                      arrival_rates={c: f"lambda_{c}" for c in "123"},
                      service_rates={t: 1 for t in "xyz"}, name="W + a shared token")
    layer = collaborative_token_service({"x": ["1"], "y": ["2"], "z": ["1", "2"]},
                                        {"1": "mu_1", "2": "mu_2"})
    queue = TokenQueue(jobs, layer)
    state = (("b", "z"), ("c", "3"), ("b", "x"))
    print(r"\pi(z_b, 3, x_b) = \pi(\emptyset)\," + latex(queue.product_form(state)))
    report = verify(queue, max_jobs=3)
    print(f"% {report}".splitlines()[0])
    ok &= report.ok
    mu = positive_symbol("mu")

    def general(busy: tuple) -> sympy.Expr:  # an OI rate function that is not collaborative
        return mu * min(len(busy), 2) + (positive_symbol("eta") if "z" in busy else 0)
    report = verify(TokenQueue(jobs, general), max_jobs=3)
    print(f"% general OI token service: {report}".splitlines()[0])
    ok &= report.ok
    numeric = jobs.substitute({"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3"})
    numeric_layer = collaborative_token_service({"x": ["1"], "y": ["2"], "z": ["1", "2"]},
                                                {"1": 1, "2": "3/4"})
    numeric_queue = TokenQueue(numeric, numeric_layer)
    law = ctmc.stationary_distribution(numeric_queue.truncated_chain(2), exact=True)
    terms = {s: frac(numeric_queue.product_form(s)) for s in law}
    total = sum(terms.values(), Fraction(0))
    same = all(law[s] == terms[s] / total for s in law)
    print(f"% exact truncated chain ({len(law)} states) = normalized product form: {same}")
    ok &= same
    claim("Tok", ok, "W with a shared token: the product form of Thm 3.10 against the chain "
          "(symbolic, collaborative and general OI token service) and the exact truncated chain")
    w = symq.model("w")
    own = TokenQueue(w, collaborative_token_service({"1": ["1"], "2": ["2"]},
                                                    {"1": "mu_1", "2": "mu_2"}))
    rais = RandomAssignmentProcess(w)
    same = all(sympy.cancel(own.product_form(s) - rais.product_form(s)) == 0 for s in rais.states(3))
    print(f"% tokens = servers: token product form = RAIS product form on W: {same}")
    claim("Tok-rec", same, "one token per server: the token product form = the RAIS product form "
          "of Thm 3.10 on every W state with at most 3 jobs")
    ok &= same
    return finish(ok)


if __name__ == "__main__":
    main()
