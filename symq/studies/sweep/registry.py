"""The catalogue of sweep checks: :data:`CHECKS` names the built-in checks of
:mod:`symq.studies.sweep.checks` with the rates each needs, :func:`resolve_check` turns a name or a user
check ``module:function`` / ``path/to/file.py:function`` into a :class:`~symq.studies.sweep.verdict.Check`,
and :func:`probe` runs a built-in check once on a tiny model so that missing machinery fails
before a sweep starts.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from symq.errors import ModelError
from symq.models.graphs import CompatibilityGraph
from symq.models.model import Model
from symq.studies.sweep.checks import (balance_check, cor_5_3_check, empty_vs_ctmc_check, nested_check,
                     stability_check, theorem_2_1_check)
from symq.studies.sweep.sampling import RateSpec, sample_models
from symq.studies.sweep.verdict import Check, Verdict, as_verdict

__all__ = ["CHECKS", "resolve_check", "load_user_function", "probe"]

#: the built-in checks, by name
CHECKS: dict[str, Check] = {c.name: c for c in [
    Check("stability", "max-flow stability verdict and margin vs enumeration of class sets",
          stability_check, rates="numeric", default_rates="random:3"),
    Check("nested", "Prop 6.2 recursion vs nested closed form prod(1 - rho_S) (nested graphs)",
          nested_check),
    Check("empty-vs-ctmc", "Prop 6.2 vs the truncated collaborative CTMC, within its bound",
          empty_vs_ctmc_check, rates="numeric", default_rates="light:2"),
    Check("balance", "balance residuals of the collaborative, ALIS and RAIS product forms",
          balance_check),
    Check("cor-5.3", "ALIS summed over idle orders equals RAIS (Cor 5.3)", cor_5_3_check),
    Check("theorem-2.1", "uninformed model: faster servers are busy less but work more",
          theorem_2_1_check),
]}


def load_user_function(reference: str, search_path: Sequence[str] = ()) -> Callable:
    """The function named by a user check ``module:function`` or ``path/to/file.py:function``.

    Parameters
    ----------
    reference : str
        ``module:function`` (imported, with ``search_path`` appended to ``sys.path``) or
        ``path/to/file.py:function`` (loaded from the file, once per process).
    search_path : sequence of str
        Folders to import user modules from (a sweep passes the working directory, so workers
        find the same modules).

    Returns
    -------
    callable

    Raises
    ------
    ModelError
        A reference without ``:``, a missing file, a module that cannot be imported, a missing
        function.

    Examples
    --------
    >>> load_user_function("symq.studies.sweep.checks:nested_check").__name__
    'nested_check'

    Running time: one module import.
    """
    target, sep, name = reference.rpartition(":")
    if not sep or not target or not name.isidentifier():
        raise ModelError(f"check {reference!r}: give a built-in check ({', '.join(CHECKS)}) or "
                         "module:function / path/to/file.py:function")
    for entry in search_path:
        if entry not in sys.path:
            sys.path.append(entry)
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ModelError(f"check {reference!r}: the file {target!r} does not exist")
        module_name = "symq_user_check_" + path.stem
        module = sys.modules.get(module_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise ModelError(f"check {reference!r}: cannot import module {target!r} ({error}); "
                             "put it on PYTHONPATH or give path/to/file.py:function") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ModelError(f"check {reference!r}: module {target!r} has no function {name!r}")
    return function


def resolve_check(reference: str, search_path: Sequence[str] = ()) -> Check:
    """The :class:`~symq.studies.sweep.verdict.Check` named ``reference``: a built-in name or a user check.

    A user function takes the model and returns a verdict in any form that
    :func:`~symq.studies.sweep.verdict.as_verdict` reads; its docstring's first line is the description.

    Parameters
    ----------
    reference : str
        A key of :data:`CHECKS`, ``module:function`` or ``path/to/file.py:function``.
    search_path : sequence of str
        Folders to import user modules from.

    Returns
    -------
    Check

    Raises
    ------
    ModelError
        An unknown name, a module that cannot be imported, a missing function.

    Examples
    --------
    >>> resolve_check("empty-vs-ctmc").default_rates
    'light:2'

    Running time: O(1) for a built-in name; one module import for a user reference.
    """
    if reference in CHECKS:
        return CHECKS[reference]
    if ":" not in reference:
        raise ModelError(f"unknown check {reference!r}; built-in checks: {', '.join(CHECKS)}; "
                         "or give a user check as module:function")
    user = load_user_function(reference, search_path)

    def call(model: Model, options: Mapping[str, Any]) -> Verdict:
        return as_verdict(user(model), f"check {reference!r}")

    return Check(reference, (user.__doc__ or "").strip().split("\n")[0], call)


def probe(check: Check, graphs: Sequence[CompatibilityGraph], spec: RateSpec, seed: int,
          options: Mapping[str, Any]) -> None:
    """Run a built-in check whose machinery is imported lazily once, on the smallest model.

    Parameters
    ----------
    check : Check
        A built-in check (others are not probed).
    graphs : sequence of CompatibilityGraph
        The graphs of the sweep (the smallest is probed).
    spec : RateSpec
        The rates of the sweep.
    seed : int
        The seed of the rates.
    options : mapping
        The check options (``max_jobs`` is set to the smallest useful value).

    Raises
    ------
    UnsupportedError
        The check's machinery is missing, so that the sweep fails once, with a clear message,
        instead of on every graph.

    Notes
    -----
    Running time: one check on the smallest graph with at most 1 waiting job.

    Examples
    --------
    >>> from symq.models.graphs import compatibility_graphs
    >>> probe(CHECKS["balance"], compatibility_graphs(1, 1), RateSpec("symbolic"), 0, {})
    """
    if check.name in ("balance", "cor-5.3"):
        smallest = min(graphs, key=lambda g: (g.class_count + g.server_count, g.rows))
        model = sample_models(smallest, spec, seed)[0]
        check.function(model, {**options, "max_jobs": 0} if check.name == "balance" else
                       {**options, "max_jobs": 1})
    elif check.name == "theorem-2.1" and spec.kind == "symbolic":
        check.function(CompatibilityGraph(1, 2, (3,)).to_model(), options)
