r"""The supermarket model ([SM]_): stations $j$ (the servers of a :class:`~symq.models.model.Model`) of
rates $\mu_j$, Poisson($\lambda_i$) streams of jobs at neighbourhoods $S_i$ (the classes), and
join-the-least-weighted-queue (JLW) routing with station weights $w_j$; symq computes the
hierarchical minimax decomposition into clusters $C_k$ with weighted drifts $V_1 > V_2 > \dots$
exactly, decides stability ($V_1 < 0$) and simulates the JLW dynamics. One module per role:
:mod:`~symq.studies.supermarket.policy` (weights, policies, drift rates, eq. 1.1),
:mod:`~symq.studies.supermarket.clusters` (the result and the stability decision),
:mod:`~symq.studies.supermarket.maxflow` (the parametric max-flow core),
:mod:`~symq.studies.supermarket.decomposition` (:func:`decompose`, the brute-force route and the
certificate), :mod:`~symq.studies.supermarket.signs` (signs of symbolic drifts) and
:mod:`~symq.studies.supermarket.simulation` (:func:`simulate_jlw`); ``docs/supermarket.md`` explains the
method and the errata of the source.

Examples
--------
>>> from sympy import latex
>>> from symq import loads
>>> from symq.studies.supermarket import decompose
>>> m = loads('''
... [classes.a]
... arrival_rate = "4"
... servers = ["1", "2"]
... [servers.1]
... service_rate = "1"
... [servers.2]
... service_rate = "1"
... ''')
>>> d = decompose(m, {"2": 2})
>>> [(c.stations, c.drift) for c in d.clusters]
[(('1', '2'), 4/3)]
>>> d.policy["a"]
{'1': 7/12, '2': 5/12}
>>> d.stable
False
>>> from symq import model
>>> print(latex(decompose(model("redundancy:3:1")).clusters[0].drift))
\frac{\lambda}{3} - \mu

References
----------
.. [SM] "Dynamics of the supermarket model": heterogeneous stations, neighbourhoods $S_i$,
   join-the-least-weighted-queue (see ``docs/supermarket.md``).
"""

from symq.studies.supermarket.clusters import Cluster, Decomposition, decomposition_latex
from symq.studies.supermarket.decomposition import (MAX_SYMBOLIC_CLUSTER, brute_force_decomposition,
                            certify_decomposition, decompose)
from symq.studies.supermarket.policy import check_policy, drift_rates, parse_weights
from symq.studies.supermarket.signs import holds_for_all_positive
from symq.studies.supermarket.simulation import JLWSimulation, cluster_tolerance, simulate_jlw

__all__ = ["Cluster", "Decomposition", "JLWSimulation", "parse_weights", "drift_rates",
           "check_policy", "decompose", "brute_force_decomposition", "certify_decomposition",
           "decomposition_latex", "simulate_jlw", "cluster_tolerance", "holds_for_all_positive",
           "MAX_SYMBOLIC_CLUSTER"]
