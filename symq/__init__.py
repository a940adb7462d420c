r"""symq: exact, symbolic queueing theory for FCFS models with job-class/server compatibility graphs.

Build a model (a built-in name or a TOML file), derive a quantity as an exact sympy expression,
and evaluate it exactly and to any number of digits:

>>> import symq
>>> w = symq.model("w")
>>> p0 = symq.empty_probability(w)
>>> values = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}
>>> symq.evaluate(p0, values, digits=30)
Evaluated(exact=21/65, value='0.323076923076923076923076923077')

See the README and ``docs/`` for the tour.
"""

from .catalog import builtin_names, load, loads, model
from .errors import (ModelError, SymqError, UnknownModelError, UnstableModelError,
                     UnsupportedError, VerificationError)
from .model import Model
from .nested import is_nested, nested_empty_probability, nesting_tree
from .normalization import empty_probability
from .quantities import Evaluated, derive, evaluate
from .stability import check_stability, is_stable, stability_conditions, stability_report

__version__ = "0.1.0"

__all__ = [
    "Model", "model", "load", "loads", "builtin_names",
    "empty_probability", "derive", "evaluate", "Evaluated",
    "is_nested", "nesting_tree", "nested_empty_probability",
    "check_stability", "is_stable", "stability_conditions", "stability_report",
    "SymqError", "ModelError", "UnknownModelError", "UnstableModelError", "UnsupportedError",
    "VerificationError",
]
