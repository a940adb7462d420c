r"""Response-time and waiting-time laws of a tagged job, for every discipline and graph.

The tagged-job method ([GR20]_ sections 4-5, corrected): under FCFS a tagged job is never delayed
by later arrivals, so its wait, its server and its response time depend only on the state it sees
on arrival (the stationary law, by PASTA) and on the autonomous evolution of the jobs ahead. The
product forms make the mixture over that infinite state space summable in closed form: every law
here is exact, with a rational Laplace-Stieltjes transform in $\theta$.

* :mod:`~symq.response_time.noncollaborative` -- ALIS and RAIS: the wait (Thm 5.4 corrected),
  the wait jointly with the server that serves the job, and the response time with
  heterogeneous rates;
* :mod:`~symq.response_time.collaborative` -- redundancy/OI queue: the response time by the
  distributional Little law on the per-class law of Thm 6.1, the wait by Prop 5.5/Cor 5.7;
* :mod:`~symq.response_time.law` -- a law from its rational LST: moments, exact CDF, certified
  survival values and percentiles;
* :mod:`~symq.response_time.tagged_chain` -- the independent route: the tagged job on the
  truncated verbal chain of :mod:`symq.ctmc`;
* :mod:`~symq.response_time.quantities` -- the ``response-time``, ``response-time-survival``,
  ``waiting-time`` and ``waiting-time-survival`` quantities.

Examples
--------
>>> from fractions import Fraction
>>> from symq import example_model
>>> from symq.response_time import response_time_law
>>> law = response_time_law(example_model("w"), "3", "alis")
>>> law.survival_value(Fraction(1), 12)
'0.440047521334'
"""

from .laws import response_time_law, waiting_time_law, server_law

__all__ = ["response_time_law", "waiting_time_law", "server_law"]
