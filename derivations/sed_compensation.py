"""Selen, Adan, Kapodistria and van Leeuwaarden (2016): steady state of shortest expected delay
routing by the compensation approach (and the JSQ special cases).

For SED with s = 2 and 3 (q = 1/2, rho = 0.9), asymmetric JSQ and symmetric JSQ, the hybrid
compensation series (kernel roots, compensation tree, exact box near the origin) is compared with
an independent route: the (q1, q2) chain built from the verbal routing rule, truncated to a band
|s q1 - q2| <= 20 + 17 s around the routing line (routing pushes the walk back to it, so the mass
outside is negligible) and q1 <= 200 (tail mass about rho^400), solved in floating point (symq.studies.compensation.band_chain). The empty probability and the mean number in system must agree
to 1e-9 relative; a 30-digit and a 40-digit compensation run must agree to 28 digits.

Run: ``python derivations/sed_compensation.py``
"""


import mpmath

from symq.studies.compensation import asymmetric_jsq, sed, solve, symmetric_jsq
from symq.studies.compensation.band_chain import band_chain_law
from _verdict import finish


def truncated_chain_values(model, size: int):
    law, mean = band_chain_law(model.arrival_rate, *model.service_rates, model.s,
                               model.tie_probability, size, 20 + 17 * model.s)
    return law[(0, 0)], mean


def main() -> str:
    ok = True
    cases = [("symmetric JSQ rho=9/10", symmetric_jsq("9/10"), 200),
             ("asymmetric JSQ lambda=3/2 mu=(1,2) q=1/2", asymmetric_jsq("3/2", 1, 2, "1/2"), 200),
             ("SED s=2 q=1/2 rho=9/10", sed(2, "1/2", "9/10"), 200),
             ("SED s=3 q=1/2 rho=9/10", sed(3, "1/2", "9/10"), 200)]
    for label, model, size in cases:
        result = solve(model, digits=30)
        finer = solve(model, digits=40)
        empty, mean = truncated_chain_values(model, size)
        with mpmath.workdps(40):
            rel_empty = abs(float(result.empty_probability) - empty) / empty
            rel_mean = abs(float(result.mean_number) - mean) / mean
            digits_agree = abs(result.empty_probability - finer.empty_probability) < \
                mpmath.mpf(10) ** -28
        good = rel_empty < 1e-9 and rel_mean < 1e-9 and digits_agree
        print(f"% {label}: P(0,0) = {mpmath.nstr(result.empty_probability, 25)}, "
              f"E[N] = {mpmath.nstr(result.mean_number, 25)}; chain rel. diff "
              f"{rel_empty:.1e}, {rel_mean:.1e}; 30 vs 40 digits agree: {digits_agree}")
        ok &= good
    return finish(ok)


if __name__ == "__main__":
    main()
