r"""Response-time and waiting-time laws of a tagged job, for every discipline and graph.
By the tagged-job method ([GR20]_ sections 4-5, corrected: under FCFS a tagged job is never
delayed by later arrivals, and the product forms make the mixture over the state it sees on
arrival summable), every law here is exact, with a rational Laplace-Stieltjes transform in
$\theta$: :mod:`~symq.engines.response_time.noncollaborative` (ALIS and RAIS),
:mod:`~symq.engines.response_time.collaborative` (redundancy, the OI queue), :mod:`~symq.engines.response_time.law`
(numbers from an LST), :mod:`~symq.engines.response_time.tagged_chain` (the independent route on the
truncated chain) and :mod:`~symq.queries.response_time` (the quantities). See
docs/response-times.md.

Examples
--------
>>> from fractions import Fraction
>>> from symq import example_model
>>> from symq.engines.response_time import response_time_law
>>> law = response_time_law(example_model("w"), "3", "alis")
>>> law.survival_value(Fraction(1), 12)
'0.440047521334'
"""

from symq.engines.response_time.laws import response_time_law, waiting_time_law, server_law

__all__ = ["response_time_law", "waiting_time_law", "server_law"]
