r"""symq: exact, symbolic queueing theory for FCFS models with job-class/server compatibility graphs.
Build a model (a built-in name or a TOML file), derive a quantity as an exact sympy expression,
and evaluate it exactly and to any number of digits; :func:`verify` proves a product form by its
balance equations on a truncated state space. The modules, one concept each (models and input,
stability and nesting, normalizing constants and means, product forms and their proofs, the
truncated chains, Cabral's uninformed customers, the supermarket model, compensation, sweeps,
reports), are listed by topic in docs/reference.md; the README and ``docs/`` give the tour.

Examples
--------
>>> import symq
>>> w = symq.model("w")
>>> p0 = symq.empty_probability(w)
>>> values = {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2", "mu_1": "1", "mu_2": "4/5"}
>>> symq.evaluate(p0, values, digits=30)
Evaluated(exact=21/65, value='0.323076923076923076923076923077')
>>> symq.verify(w, discipline="alis", max_jobs=2).ok
True
"""

import importlib as _importlib

# Only the exceptions load at once. Everything else, the models and the catalog included, loads on
# first use through __getattr__ below (PEP 562), so that ``import symq`` and a short command
# (``symq --version``, ``--help``, ``list``, ``routes``) pay for none of sympy, python-flint,
# networkx, numpy, scipy, matplotlib, dask or the compensation/supermarket/sweep packages.
# (``symq.model`` is the catalog function: there is no submodule of that name to shadow it.)
from symq.errors import (ArgumentTypeError, ModelError, SymqError, UnknownModelError,
                         UnstableModelError, UnsupportedError, VerificationError)

# public name -> (module, attribute in it, wrapper): "model" means that the function also takes
# a built-in name or a TOML path (catalog.takes_model); "quantity" also remembers the model of a
# derived quantity so that evaluate() refuses values that make it unstable
# (quantities.quantity_function).
# One row a module: (module, wrapper, its public names); "compensation_solve" is compensation.solve.
_ROWS = (
    ("symq.models.model", None, "Model"),
    ("symq.models.catalog", None, "builtin_names example_model load loads model"),
    ("symq.engines.balance", None, "BalanceReport"), ("symq.engines.balance", "model", "verify"),
    ("symq.studies.compensation", None, "CompensationResult asymmetric_jsq sed symmetric_jsq solve"),
    ("symq.engines.nested", "model", "is_nested nesting_tree"),
    ("symq.engines.nested", "quantity", "nested_empty_probability"),
    ("symq.queries.solve", None, "solve Result"), ("symq.queries.gradient", None, "gradient"),
    ("symq.queries.plan", None, "explain Plan"),
    ("symq.queries.optimize", None, "optimize Optimum"),
    ("symq.queries.quantities", None,
     "empty_probability normalizing_constant server_idle_probability mean_number "
     "mean_response_time"),
    ("symq.queries.quantities", None, "derive evaluate"), ("symq.arithmetic.numeric", None, "Evaluated"),
    ("symq.queries.routes", None, "ROUTES"),
    ("symq.models.stability", "model", "check_stability is_stable stability_conditions stability_report"),
    ("symq.studies.supermarket", "model", "decompose drift_rates simulate_jlw"),
)
_RENAMED = {("symq.studies.compensation", "solve"): "compensation_solve"}
_LAZY = {_RENAMED.get((module, attribute), attribute): (module, attribute, wrapper)
         for module, wrapper, names in _ROWS for attribute in names.split()}


def __getattr__(name: str):
    """Load a public name (see ``_LAZY``) or a submodule on first use (PEP 562)."""
    if name in _LAZY:
        module, attribute, wrapper = _LAZY[name]
        value = getattr(_importlib.import_module(module, __name__), attribute)
        if wrapper == "model":
            from symq.models.catalog import takes_model
            value = takes_model(value)
        elif wrapper == "quantity":
            from symq.queries.quantities import quantity_function
            value = quantity_function(value)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "Model", "model", "example_model", "load", "loads", "builtin_names",
    "solve", "Result", "ROUTES", "gradient", "optimize", "Optimum", "explain", "Plan",
    "empty_probability", "normalizing_constant", "server_idle_probability", "mean_number",
    "mean_response_time", "derive", "evaluate", "Evaluated",
    "verify", "BalanceReport",
    "is_nested", "nesting_tree", "nested_empty_probability",
    "check_stability", "is_stable", "stability_conditions", "stability_report",
    "decompose", "drift_rates", "simulate_jlw",
    "compensation_solve", "CompensationResult", "symmetric_jsq", "asymmetric_jsq", "sed",
    "SymqError", "ModelError", "ArgumentTypeError", "UnknownModelError", "UnstableModelError", "UnsupportedError",
    "VerificationError",
]
