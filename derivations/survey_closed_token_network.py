"""Gardner and Righter (2020), section 3.3: Comte's closed token network (a loss model).

A job that finds no idle compatible token is lost; otherwise it takes the longest-idle compatible
token (ALIT). Busy tokens, in the order they became busy, are served by a collaborative layer of
servers (token t is served by the servers of its set not taken by older busy tokens) and return
to the end of the idle-token queue. The survey gives, for every arrangement (b_l, s_k) of the
tokens, pi(b_l, s_k) = G^{-1} prod_{i<=l} 1/mu(b_1..b_i) prod_{i<=k} 1/lambda(s_1..s_i).

The state space is finite, so the check is complete: global-balance residuals with symbolic
rates on every state (symq.engines.balance), and at exact rational rates the exact stationary law of the
whole chain (symq.engines.ctmc GTH in rationals) against the normalized product form, on a 3-token,
2-server network over the W-like job graph and on a 3-token ring (non-nested). A law with the
idle-token order reversed must fail.

Run: ``python derivations/survey_closed_token_network.py``
"""

from fractions import Fraction

from sympy import latex

from symq.engines import ctmc
from symq.engines.balance import verify
from symq.engines.processes import ClosedTokenNetwork

from _survey_common import frac
from _verdict import claim, finish

NETWORKS = {
    "chain": ({"1": ["x"], "2": ["x", "y"], "3": ["y", "z"]}, {"x": ["1"], "y": ["1", "2"],
                                                               "z": ["2"]}),
    "ring": ({"1": ["x", "y"], "2": ["y", "z"], "3": ["z", "x"]}, {"x": ["1"], "y": ["2"],
                                                                  "z": ["1", "2"]}),
}
LAMBDA = {"1": "1/3", "2": "1/2", "3": "1/5"}
MU = {"1": "1", "2": "2/3"}


def main() -> str:
    ok = True
    for name, (class_tokens, token_servers) in NETWORKS.items():
        symbolic = ClosedTokenNetwork(class_tokens, {c: f"lambda_{c}" for c in class_tokens},
                                      token_servers, {m: f"mu_{m}" for m in MU}, name=name)
        if name == "chain":
            print(r"\pi^{CT}((x), (y, z)) = G_{CT}^{-1}\,"
                  + latex(symbolic.product_form((("x",), ("y", "z")))))
        report = verify(symbolic, max_jobs=3)
        print(f"% {report}".splitlines()[0])
        ok &= report.ok
        reversed_law = verify(symbolic, max_jobs=3,
                              law=lambda s, net=symbolic: net.product_form((s[0], s[1][::-1])))
        print(f"% {name}, idle order reversed: {'fails, as it must' if not reversed_law.ok else 'passes?!'}")
        ok &= not reversed_law.ok
        numeric = ClosedTokenNetwork(class_tokens, LAMBDA, token_servers, MU, name=name)
        law = ctmc.stationary_distribution(numeric.truncated_chain(3), exact=True)
        terms = {s: frac(numeric.product_form(s)) for s in law}
        total = sum(terms.values(), Fraction(0))
        same = len(law) == len(numeric.states(3)) and all(law[s] == terms[s] / total for s in law)
        print(f"% {name}: exact law of the whole chain ({len(law)} states) = product form: {same}")
        ok &= same
    claim("CTN", ok, "G_CT prod 1/mu(b_i) prod 1/lambda(s_i) against balance (symbolic) and the exact law of the whole chain")
    return finish(ok)


if __name__ == "__main__":
    main()
