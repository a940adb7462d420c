r"""symq: exact, symbolic queueing theory for FCFS models with job-class/server compatibility graphs.

Build a model (a built-in name or a TOML file), derive a quantity as an exact sympy expression,
and evaluate it exactly and to any number of digits:

>>> import symq
>>> w = symq.model("w")
>>> p0 = symq.empty_probability(w)
>>> values = {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2", "mu_1": "1", "mu_2": "4/5"}
>>> symq.evaluate(p0, values, digits=30)
Evaluated(exact=21/65, value='0.323076923076923076923076923077')
>>> symq.verify(w, discipline="alis", max_jobs=2).ok
True

Modules, one concept each: :mod:`symq.model`, :mod:`symq.catalog` (built-ins and TOML),
:mod:`symq.exact` (exact rationals and rational-function fields), :mod:`symq.set_functions`,
:mod:`symq.stability`, :mod:`symq.nested`, :mod:`symq.normalization` (subset DPs behind one
entry point), :mod:`symq.aggregated`,
:mod:`symq.distributions`, :mod:`symq.processes` and :mod:`symq.balance` (product forms and their
proofs), :mod:`symq.ctmc` (the independent numerical route), :mod:`symq.elementary_symmetric` and
:mod:`symq.uninformed` (Cabral), :mod:`symq.supermarket`, :mod:`symq.compensation`,
:mod:`symq.graphs` and :mod:`symq.sweep`, :mod:`symq.report` and :mod:`symq.latex`,
:mod:`symq.numeric` and :mod:`symq.quantities`. See the README and ``docs/`` for the tour.
"""

from .balance import BalanceReport, verify
from .catalog import builtin_names, load, loads, model
from .compensation import CompensationResult, asymmetric_jsq, sed, symmetric_jsq
from .compensation import solve as compensation_solve
from .errors import (ModelError, SymqError, UnknownModelError, UnstableModelError,
                     UnsupportedError, VerificationError)
from .model import Model
from .nested import is_nested, nested_empty_probability, nesting_tree
from .normalization import (empty_probability, mean_number, mean_response_time,
                            normalizing_constant, server_idle_probability)
from .quantities import Evaluated, derive, evaluate
from .stability import check_stability, is_stable, stability_conditions, stability_report
from .supermarket import decompose, drift_rates, simulate_jlw

# Every public function that takes a model also takes a built-in name or a TOML path; derived
# quantities are remembered, so that evaluate() refuses values that make their model unstable.
from .catalog import takes_model as _takes_model  # noqa: E402
from .quantities import quantity_function as _quantity_function  # noqa: E402

empty_probability = _quantity_function(empty_probability)
normalizing_constant = _quantity_function(normalizing_constant)
server_idle_probability = _quantity_function(server_idle_probability)
mean_number = _quantity_function(mean_number)
mean_response_time = _quantity_function(mean_response_time)
nested_empty_probability = _quantity_function(nested_empty_probability)
verify = _takes_model(verify)
is_nested, nesting_tree = _takes_model(is_nested), _takes_model(nesting_tree)
check_stability, is_stable = _takes_model(check_stability), _takes_model(is_stable)
stability_conditions = _takes_model(stability_conditions)
stability_report = _takes_model(stability_report)
decompose, drift_rates = _takes_model(decompose), _takes_model(drift_rates)
simulate_jlw = _takes_model(simulate_jlw)

__version__ = "0.1.0"

__all__ = [
    "Model", "model", "load", "loads", "builtin_names",
    "empty_probability", "normalizing_constant", "server_idle_probability", "mean_number",
    "mean_response_time", "derive", "evaluate", "Evaluated",
    "verify", "BalanceReport",
    "is_nested", "nesting_tree", "nested_empty_probability",
    "check_stability", "is_stable", "stability_conditions", "stability_report",
    "decompose", "drift_rates", "simulate_jlw",
    "compensation_solve", "CompensationResult", "symmetric_jsq", "asymmetric_jsq", "sed",
    "SymqError", "ModelError", "UnknownModelError", "UnstableModelError", "UnsupportedError",
    "VerificationError",
]
