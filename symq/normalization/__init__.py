r"""Exact normalizing constants, idle probabilities and mean numbers of the collaborative, ALIS
and RAIS disciplines on arbitrary compatibility graphs ([GR20]_ Thm 3.3, 3.9, 3.10; Props 6.2,
6.3), by dynamic programs over server subsets, with one entry point
(:mod:`~symq.normalization.entry`) that picks the algorithm for the model's structure or the one
named by ``method=``. Modules: :mod:`~symq.normalization.subsets` (bitmasks, unions, subset
tables), :mod:`~symq.normalization.collaborative`, :mod:`~symq.normalization.alis`,
:mod:`~symq.normalization.rais` (one DP per discipline), :mod:`~symq.normalization.structured`
(``redundancy:K:D``, components; nested models live in :mod:`symq.nested`) and
:mod:`~symq.normalization.entry`. All DPs use only $+,\times,\div$, so they run unchanged on the
exact fields of :mod:`symq.exact` and on the balls of :mod:`symq.normalization.certified`.

Examples
--------
>>> from symq import model
>>> from symq.normalization import empty_probability
>>> w = model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
...                            "mu_1": "1", "mu_2": "4/5"})
>>> empty_probability(w, "alis"), empty_probability(w, "rais")
(663/1216, 663/1216)
"""

from ..exact import exact_arithmetic
from .alis import alis_values as _alis_values, matching_rates
from .collaborative import (CollaborativeTables as _CollaborativeTables,
                            collaborative_empty_probability,
                            collaborative_values as _collaborative_values,
                            server_removal_mean_number)
from .entry import (DISCIPLINES, METHODS, empty_probability, mean_number, mean_response_time,
                    method_name, normalizing_constant, server_idle_probability, values)
from .rais import rais_values as _rais_values
from .structured import components, is_symmetric_redundancy
from .structured import redundancy_values as _redundancy_values
from .subsets import IdleTables as _IdleTables, SubsetGraph as _Graph

__all__ = ["empty_probability", "normalizing_constant", "server_idle_probability", "mean_number",
           "mean_response_time", "method_name", "values", "collaborative_empty_probability",
           "server_removal_mean_number", "is_symmetric_redundancy", "components", "DISCIPLINES",
           "METHODS", "exact_arithmetic", "matching_rates"]
# The underscore names above keep the tests written before the package split importing the
# DP building blocks from ``symq.normalization``; new code imports them from their modules.
