r"""The compensation approach for two-queue routing: symmetric JSQ, asymmetric JSQ and SED.
Two exponential servers, Poisson arrivals, and an arrival that joins the queue with the smaller
$s(q_1+1)$ versus $q_2+1$ (JSQ: $s=1$; SED: server rates 1 and $s$); the stationary law is a series
of product forms $c\,a^{q_1}b^{q_2}$ on kernel curves, built by alternating vertical and horizontal
compensation steps along a tree, with a box near the origin solved from the balance equations
(hybrid method). Section numbers (§) in the docstrings of this package refer to
docs/theory-compensation.md; the modules, one step each, are listed in docs/compensation.md
(How it works).

Examples
--------
>>> import mpmath
>>> from symq.studies.compensation import sed, solve
>>> r = solve(sed(2, "1/2", "9/10"), digits=20, states=[(0, 0)])
>>> mpmath.nstr(r.empty_probability, 12)
'0.0453292991724'
"""

from symq.studies.compensation.hybrid import CompensationResult, default_box, solve
from symq.studies.compensation.kernel import kernel_polynomials, kernels_latex, lower_root, upper_roots
from symq.studies.compensation.models import (RoutingModel, asymmetric_jsq, balance_equations, sed, symmetric_jsq,
                     transitions)

__all__ = ["RoutingModel", "symmetric_jsq", "asymmetric_jsq", "sed", "transitions",
           "balance_equations", "kernel_polynomials", "kernels_latex", "upper_roots", "lower_root",
           "solve", "CompensationResult", "default_box"]
