r"""Exact normalizing constants, idle probabilities and mean numbers of the collaborative, ALIS
and RAIS disciplines on arbitrary compatibility graphs ([GR20]_ Thm 3.3, 3.9, 3.10; Props 6.2,
6.3), by dynamic programs over server subsets: the general DP of each discipline
(:mod:`~symq.engines.normalization.entry`) and the structural algorithms (ring, redundancy,
nested); which one answers a request is decided by the route table (:mod:`symq.queries.routes`).
Modules: :mod:`~symq.engines.normalization.subsets` (bitmasks, unions, subset
tables), :mod:`~symq.engines.normalization.collaborative`, :mod:`~symq.engines.normalization.alis`,
:mod:`~symq.engines.normalization.rais` (one DP per discipline), :mod:`~symq.engines.normalization.structured`
(``redundancy:K:D``, components; nested models live in :mod:`symq.engines.nested`) and
:mod:`~symq.engines.normalization.entry`. All DPs use only $+,\times,\div$, so they run unchanged on the
exact fields of :mod:`symq.arithmetic.exact` and on the balls of :mod:`symq.engines.normalization.certified`.

Examples
--------
>>> from symq import model
>>> from symq.engines.normalization import empty_probability
>>> w = model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
...                            "mu_1": "1", "mu_2": "4/5"})
>>> empty_probability(w, "alis"), empty_probability(w, "rais")
(663/1216, 663/1216)
"""

from symq.arithmetic.exact import exact_arithmetic
from symq.engines.normalization.alis import alis_values as _alis_values, matching_rates
from symq.engines.normalization.collaborative import (CollaborativeTables as _CollaborativeTables,
                            collaborative_empty_probability,
                            collaborative_values as _collaborative_values,
                            server_removal_mean_number)
from symq.engines.normalization.entry import (DISCIPLINES, empty_probability, mean_number,
                                             mean_response_time, normalizing_constant,
                                             server_idle_probability, server_removal_values,
                                             values)
from symq.engines.normalization.rais import rais_values as _rais_values
from symq.engines.normalization.structured import components, is_symmetric_redundancy
from symq.engines.normalization.structured import redundancy_values as _redundancy_values
from symq.engines.normalization.subsets import IdleTables as _IdleTables, SubsetGraph as _Graph

__all__ = ["empty_probability", "normalizing_constant", "server_idle_probability", "mean_number",
           "mean_response_time", "values", "server_removal_values",
           "collaborative_empty_probability", "server_removal_mean_number",
           "is_symmetric_redundancy", "components", "DISCIPLINES", "exact_arithmetic",
           "matching_rates"]
# The underscore names above keep the tests written before the package split importing the
# DP building blocks from ``symq.engines.normalization``; new code imports them from their modules.
