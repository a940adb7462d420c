r"""The rates a sweep checks each graph at: the ``--rates`` specification (:class:`RateSpec`:
``symbolic``, ``random:N`` or ``light:N``), the seeded exact rational rate vectors drawn for each
graph (:func:`sample_models`), and the load helpers the checks use, the utilization
$\max_A \lambda(A)/\mu(S(A))$ of the stability condition of [GR20]_ section 2
(:func:`utilization`) and the scaling of every arrival rate (:func:`with_arrival_scale`).

References
----------
.. [GR20] K. Gardner and R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020) 3-51. arXiv:2006.05979.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction

import sympy

from symq.errors import ModelError
from symq.arithmetic.exact import to_fraction
from symq.models.graphs import CompatibilityGraph
from symq.models.model import Model

__all__ = ["RateSpec", "parse_rates", "exact_rate", "utilization", "with_arrival_scale",
           "sample_models"]


@dataclass(frozen=True)
class RateSpec:
    """``symbolic``, ``random:N`` (stable, seeded exact rationals) or ``light:N`` (light load).

    Parameters
    ----------
    kind : str
        ``"symbolic"``, ``"random"`` or ``"light"``.
    count : int
        The number ``N`` of rate vectors per graph (1 for ``symbolic``).

    Examples
    --------
    >>> str(RateSpec("random", 3))
    'random:3'
    """

    kind: str
    count: int = 1

    def __str__(self) -> str:
        return self.kind if self.kind == "symbolic" else f"{self.kind}:{self.count}"


def parse_rates(text: str) -> RateSpec:
    """Read the ``--rates`` text ``symbolic``, ``random:N`` or ``light:N``.

    Parameters
    ----------
    text : str
        The specification; N from 1 to 10000.

    Returns
    -------
    RateSpec

    Raises
    ------
    ModelError
        Any other text, or N outside 1..10000.

    Examples
    --------
    >>> parse_rates("light:2")
    RateSpec(kind='light', count=2)

    Running time: O(length of ``text``).
    """
    text = str(text).strip()
    if text == "symbolic":
        return RateSpec("symbolic")
    kind, sep, count = text.partition(":")
    if kind in ("random", "light") and sep:
        try:
            n = int(count)
        except ValueError:
            n = 0
        if 1 <= n <= 10000:
            return RateSpec(kind, n)
    raise ModelError(f"--rates {text!r}: use symbolic, random:N or light:N with N from 1 to 10000 "
                     "(N seeded random exact rational rate vectors per graph)")


def exact_rate(value: sympy.Expr) -> Fraction:
    """An exact rational rate as a :class:`~fractions.Fraction` (:func:`symq.arithmetic.exact.to_fraction`).

    Parameters
    ----------
    value : sympy expression
        A rate of a model.

    Returns
    -------
    Fraction
        The same number.

    Raises
    ------
    ModelError
        ``value`` is not an exact rational number (a symbol, a float): the check needs numeric
        rates.

    Examples
    --------
    >>> exact_rate(sympy.Rational(3, 4))
    Fraction(3, 4)

    Running time: O(1) for a rational; sympy's evaluation for an expression.
    """
    return to_fraction(value, "rate", "; this check needs numeric rates (--rates random:N)")


def utilization(model: Model) -> Fraction:
    r"""$\max_A \lambda(A)/\mu(S(A))$ over the non-empty class sets $A$.

    The model is stable iff this is below 1 ([GR20]_ section 2). Computed by enumerating class
    sets, independently of the max-flow of :mod:`symq.models.stability`, which the ``stability`` check
    compares with it.

    Parameters
    ----------
    model : Model
        Numeric (exact rational) rates.

    Returns
    -------
    Fraction
        $\rho$; the model is stable iff $\rho < 1$.

    Raises
    ------
    ModelError
        A rate that is not an exact number.

    Notes
    -----
    Running time: $O(2^I (I + J))$ for $I$ classes and $J$ servers.

    Examples
    --------
    >>> from symq import model
    >>> utilization(model("n").substitute({"lambda_1": 1, "lambda_2": 1, "mu_1": 2, "mu_2": 3}))
    Fraction(1, 2)
    """
    lam = {i: exact_rate(r) for i, r in model.arrival_rates.items()}
    mu = {j: exact_rate(r) for j, r in model.service_rates.items()}
    best = Fraction(0)
    for size in range(1, len(model.classes) + 1):
        for chosen in itertools.combinations(model.classes, size):
            load = sum(lam[i] for i in chosen)
            capacity = sum(mu[j] for j in model.servers_of(chosen))
            best = max(best, load / capacity)
    return best


def with_arrival_scale(model: Model, factor: Fraction) -> Model:
    """The model with every arrival rate multiplied by ``factor``.

    Parameters
    ----------
    model : Model
        Numeric (exact rational) arrival rates.
    factor : Fraction
        The scale.

    Returns
    -------
    Model

    Raises
    ------
    ModelError
        ``model`` has a symbolic arrival rate.

    Examples
    --------
    >>> from symq import model
    >>> m = model("n").substitute({"lambda_1": 1, "lambda_2": 1, "mu_1": 1, "mu_2": 3})
    >>> with_arrival_scale(m, Fraction(2)).arrival_rates["1"]
    2

    Running time: O(J) for J classes.
    """
    return Model(compatibility=model.compatibility,
                 arrival_rates={i: sympy.Rational(exact_rate(r) * factor)
                                for i, r in model.arrival_rates.items()},
                 service_rates=model.service_rates, name=model.name)


def _random_rates(graph: CompatibilityGraph, kind: str, rng: random.Random
                  ) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    mu = {str(k + 1): Fraction(rng.randint(1, 9), rng.randint(1, 4))
          for k in range(graph.server_count)}
    weights = {str(i + 1): Fraction(rng.randint(1, 9)) for i in range(graph.class_count)}
    model = graph.to_model(weights, mu)
    if kind == "light":
        # total arrival rate r * min_i mu(S_i) with r in {1/30, ..., 10/30} <= 1/3
        smallest = min(exact_rate(model.service_rate(s)) for s in model.compatibility.values())
        total = smallest * Fraction(rng.randint(1, 10), 30)
        factor = total / sum(weights.values())
    else:
        # utilization max_A lambda(A)/mu(S(A)) drawn from {1/20, ..., 19/20}: always stable
        factor = Fraction(rng.randint(1, 19), 20) / utilization(model)
    return {i: w * factor for i, w in weights.items()}, mu


def sample_models(graph: CompatibilityGraph, rates: RateSpec | str = "symbolic", seed: int = 0
                  ) -> list[Model]:
    r"""The models of one graph a sweep checks: one symbolic model, or ``N`` with random rates.

    Random rates are exact rationals drawn from a generator seeded by ``(seed, graph key, index)``,
    so every worker draws the same rates for the same graph, whatever the order of work.
    ``random``: service rates a/b (a in 1..9, b in 1..4), arrival rates scaled so that the
    utilization $\max_A \lambda(A)/\mu(S(A))$ is one of 1/20, ..., 19/20 (stable).
    ``light``: the total arrival rate is at most 1/3 of the smallest $\mu(S_i)$.

    Parameters
    ----------
    graph : CompatibilityGraph
        The graph (:func:`symq.models.graphs.compatibility_graphs`).
    rates : RateSpec or str
        ``symbolic``, ``random:N`` or ``light:N``.
    seed : int
        The seed of the random rates.

    Returns
    -------
    list of Model

    Raises
    ------
    ModelError
        A bad rates specification.

    Notes
    -----
    Running time: $O(N\,2^I (I + J))$ for ``random:N`` (the utilization of each draw).

    Examples
    --------
    >>> from symq.models.graphs import compatibility_graphs
    >>> graph = compatibility_graphs(2, 2)[0]
    >>> [m.is_numeric for m in sample_models(graph, "random:2")]
    [True, True]
    >>> sample_models(graph, "random:1") == sample_models(graph, "random:1")
    True
    """
    spec = parse_rates(rates) if isinstance(rates, str) else rates
    if spec.kind == "symbolic":
        return [graph.to_model()]
    models = []
    for index in range(spec.count):
        rng = random.Random(f"symq-sweep:{seed}:{graph.key}:{spec.kind}:{index}")
        lam, mu = _random_rates(graph, spec.kind, rng)
        models.append(graph.to_model(lam, mu, name=f"graph {graph.key} sample {index}"))
    return models
