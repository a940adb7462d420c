r"""The per-class laws of a model by name of discipline: one entry point over the two routes.
:func:`response_time_law` and :func:`waiting_time_law` return a
:class:`~symq.engines.response_time.law.RationalLaw` for numeric models; :func:`lst` gives the
transform as a sympy rational function for symbolic ones.

Examples
--------
>>> from symq import model
>>> from symq.engines.response_time.laws import lst
>>> print(lst(model("n"), "2", "collaborative", "response"))
(lambda_1 + lambda_2 - mu_1 - mu_2)/(lambda_1 + lambda_2 - mu_1 - mu_2 - theta)

Running time: that of the DPs of :mod:`~symq.engines.response_time.noncollaborative` and
:mod:`~symq.engines.response_time.collaborative`.
"""

from __future__ import annotations

from functools import lru_cache

import sympy

from symq.errors import ModelError
from symq.models.model import DISCIPLINES, Model
from symq.display import QuantityResult
from symq.engines.response_time import collaborative, noncollaborative
from symq.engines.response_time.law import RationalLaw, from_field_element
from symq.engines.response_time.setfunctions import SetFunctions

__all__ = ["DISCIPLINES", "response_time_law", "waiting_time_law", "server_law", "lst",
           "field_lst"]

KINDS = ("response", "waiting")


@lru_cache(maxsize=64)
def _sets(model: Model) -> SetFunctions:
    if model.is_numeric:
        from symq.models.stability import stability_report
        report = stability_report(model)
        if not report.stable:
            raise ModelError(f"the rates are unstable: classes {set(report.classes)} bring "
                             f"{report.load} to servers {set(report.servers)} of capacity "
                             f"{report.capacity}; lower the arrival rates")
    return SetFunctions(model)


def field_lst(model: Model, job_class: str, discipline: str, kind: str):
    r"""The LST of the ``kind`` (``response`` or ``waiting``) time as a field element.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates (stable when numeric).
    job_class : str
        The tagged class.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    kind : str
        ``response`` or ``waiting``.

    Returns
    -------
    field element
        A rational function of ``theta`` in the model's exact field.

    Raises
    ------
    ModelError
        An unknown discipline or kind, or numeric rates that are unstable.

    Examples
    --------
    >>> from symq import example_model
    >>> str(field_lst(example_model("n"), "1", "alis", "waiting")).count("theta") > 0
    True

    Running time: O(2^M (M + J)) field operations (noncollaborative), O(U J) collaborative.
    """
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")
    if kind not in KINDS:
        raise ModelError(f"unknown kind {kind!r}; use response or waiting")
    sets = _sets(model)
    route = collaborative if discipline == "collaborative" else noncollaborative
    function = route.response_lst if kind == "response" else route.waiting_lst
    return function(sets, job_class)


def lst(model: Model, job_class: str, discipline: str = "collaborative",
        kind: str = "response") -> sympy.Expr:
    r"""The LST as a factored sympy rational function of ``theta`` (and of the rate symbols).

    Parameters
    ----------
    model : Model
        Symbolic rates give a function of the rate symbols too.
    job_class : str
        The class of the tagged job.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    kind : str
        ``response`` (the default) or ``waiting``.

    Returns
    -------
    sympy.Expr
        $E e^{-\theta T}$, factored.

    Raises
    ------
    ModelError
        As :func:`field_lst`: an unknown discipline or kind, or numeric rates that are
        unstable.

    Examples
    --------
    >>> from symq import example_model
    >>> lst(example_model("n"), "1")
    9*(4*theta + 7)/(7*(2*theta + 3)*(4*theta + 3))

    Running time: that of :func:`field_lst`, plus sympy's ``factor``.
    """
    return sympy.factor(field_lst(model, job_class, discipline, kind).as_expr())


def response_time_law(model: Model, job_class: str, discipline: str = "collaborative") -> RationalLaw:
    r"""The response-time law of ``job_class`` (numeric rates): the time from arrival to the end of
    its service.

    Parameters
    ----------
    model : Model
        Numeric, stable rates.
    job_class : str
        The tagged class.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.

    Returns
    -------
    RationalLaw
        Exact transform, CDF by partial fractions, moments.

    Raises
    ------
    ModelError
        Symbols without values, an unknown discipline, unstable rates.

    Examples
    --------
    >>> from symq import example_model
    >>> response_time_law(example_model("n"), "1").mean()
    Fraction(10, 7)

    Running time: that of :func:`field_lst`, plus the partial fractions of the law.
    """
    return _law(model, job_class, discipline, "response")


def waiting_time_law(model: Model, job_class: str, discipline: str = "collaborative") -> RationalLaw:
    r"""The waiting-time law of ``job_class`` (numeric rates): the time before its service starts
    (collaborative: before it first holds a server).

    Parameters
    ----------
    model : Model
        Numeric rates (every symbol given a value), stable.
    job_class : str
        The class whose wait is wanted.
    discipline : str
        ``collaborative`` (the wait for the first server), ``alis`` or ``rais``.

    Returns
    -------
    RationalLaw
        With an atom at 0 (jobs that start at once).

    Raises
    ------
    ModelError
        As :func:`response_time_law`: a symbol without a value, an unknown discipline, or
        unstable rates.

    Examples
    --------
    >>> from symq import example_model
    >>> waiting_time_law(example_model("n"), "2", "alis").mean()
    Fraction(7, 141)

    Running time: as :func:`response_time_law`.
    """
    return _law(model, job_class, discipline, "waiting")


@lru_cache(maxsize=256)
def _law(model: Model, job_class: str, discipline: str, kind: str) -> RationalLaw:
    if not model.is_numeric:
        names = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"a numeric law needs a value for every symbol; set {names} with --set")
    return from_field_element(field_lst(model, job_class, discipline, kind))


def server_law(model: Model, job_class: str, discipline: str = "alis") -> dict[str, sympy.Expr]:
    r"""The law of the server that serves a tagged ``job_class`` job (ALIS, canonical RAIS).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    job_class : str
        The tagged class.
    discipline : str
        ``alis`` or ``rais``.

    Returns
    -------
    dict
        ``{server of S_c: probability}``.

    Raises
    ------
    ModelError
        The collaborative discipline (every server of $S_c$ may work on the job).

    Examples
    --------
    >>> from symq import example_model
    >>> server_law(example_model("w"), "3")
    {'1': 187/380, '2': 193/380}

    Running time: O(3^M) for the immediate starts plus O(2^M (M + J)) for the waits.
    """
    if discipline not in ("alis", "rais"):
        raise ModelError("the server law is for the noncollaborative disciplines alis and rais")
    return QuantityResult(noncollaborative.server_law(_sets(model), job_class))  # a table in Jupyter
