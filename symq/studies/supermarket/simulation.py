r"""Seeded simulation of the unreflected random walk $\xi$ of [SM]_ under
join-the-least-weighted-queue (JLW), built from the verbal model only (Poisson arrivals with
i.i.d. stream labels, Poisson departures at every station whatever its state), whose rates
$w_j\xi_j(T)/T$ approach $V_k$ on $C_k$ ([SM]_, main result): :func:`simulate_jlw`, the result
:class:`JLWSimulation`, and the tolerance :func:`cluster_tolerance` the tests compare the
decomposition with.

References
----------
.. [SM] "Dynamics of the supermarket model", the main result on $w_j\xi_j(t)/t$; heterogeneous stations,
   neighbourhoods $S_i$, join-the-least-weighted-queue (see ``docs/supermarket.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import sympy

from symq.errors import ModelError, TooLargeError
from symq.models.arguments import check_count, check_model, check_real
from symq.arithmetic.exact import to_fraction
from symq.display import Displayed, Math
from symq.display import math as math_cell
from symq.models.model import Model
from symq.studies.supermarket.clusters import Cluster, Decomposition
from symq.studies.supermarket.maxflow import Instance
from symq.studies.supermarket.policy import parse_weights

__all__ = ["JLWSimulation", "cluster_tolerance", "simulate_jlw"]


@dataclass(frozen=True)
class JLWSimulation(Displayed):
    r"""Final states of seeded runs of the unreflected JLW random walk $\xi$.

    In a notebook it shows as a table: per station its weight and the weighted rate
    $\overline{w_j\xi_j(T)/T}$ (:meth:`weighted_rates`), with the horizon, runs and seed.

    Attributes
    ----------
    stations : station names, the column order of ``final``
    weights : $w_j$ as Fractions
    horizon : $T$
    final : one tuple $\xi(T)$ per replication (integers; may be negative)
    seed : the seed used
    """

    stations: tuple[str, ...]
    weights: tuple[Fraction, ...]
    horizon: float
    final: tuple[tuple[int, ...], ...]
    seed: int

    def weighted_rates(self) -> dict[str, float]:
        r"""$\overline{w_j\xi_j(T)/T}$ per station, averaged over replications."""
        count = len(self.final)
        return {j: float(self.weights[n]) * sum(x[n] for x in self.final) / (count * self.horizon)
                for n, j in enumerate(self.stations)}

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        rates = self.weighted_rates()
        rows = [(j, math_cell(sympy.Rational(w.numerator, w.denominator)), f"{rates[j]:.6g}")
                for j, w in zip(self.stations, self.weights)]
        about = [("horizon T", f"{self.horizon:g}"), ("replications", str(len(self.final))),
                 ("seed", str(self.seed))]
        return "JLW random walk", [(("station", Math("w_j"), Math("\\overline{w_j\\xi_j(T)/T}")),
                                    rows), (None, about)]

    def cluster_rate(self, stations: Sequence[str]) -> float:
        r"""The cluster statistic $\bar Z=\overline{\sum_{j\in C}\xi_j(T)}/(T\,H(C))$."""
        index = [self.stations.index(j) for j in stations]
        harmonic = float(sum(1 / self.weights[n] for n in index))
        total = sum(x[n] for x in self.final for n in index)
        return total / (len(self.final) * self.horizon * harmonic)


def cluster_tolerance(decomposition: Decomposition, cluster: Cluster, horizon: float,
                      replications: int, sigmas: float = 5) -> float:
    r"""Tolerance for $|\bar Z_k-V_k|$: ``sigmas`` standard errors plus the transient bias.

    After an $O(1)$ transient only the streams $T_k$ feed $C_k$, so $\sum_{C_k}\xi_j(T)$ is a
    difference of Poisson counts with variance $T\sum_{C_k}(a_j+\mu_j)$, $a_j=\mu_j+V_k/w_j$:
    $\operatorname{sd}(Z_k)=\sigma_k/\sqrt{T}$ with
    $\sigma_k^2=\sum_{C_k}(2\mu_j+V_k/w_j)/H(C_k)^2$. The transient (arrivals routed outside
    $C_{k(i)}$, measured at about 5) biases $Z_k$ by at most about $5/(TH(C_k))$; twice
    that is allowed.

    Parameters
    ----------
    decomposition : Decomposition
        Numeric.
    cluster : Cluster
        One of its clusters.
    horizon : float
        $T$.
    replications : int
    sigmas : float
        Standard errors allowed.

    Returns
    -------
    float
        The allowed $|\bar Z_k - V_k|$.

    Examples
    --------
    >>> from symq import model
    >>> from symq.studies.supermarket import decompose
    >>> d = decompose(model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1}))
    >>> round(cluster_tolerance(d, d.clusters[0], horizon=1000, replications=4), 3)
    0.168

    Running time: O(|C_k|).
    """
    model = decomposition.model
    harmonic = sum(Fraction(1) / to_fraction(decomposition.weights[j]) for j in cluster.stations)
    drift = to_fraction(cluster.drift)
    variance = sum(2 * to_fraction(model.service_rates[j]) + drift / to_fraction(decomposition.weights[j])
                   for j in cluster.stations) / harmonic ** 2
    return (sigmas * math.sqrt(variance / (horizon * replications))
            + 10 / (horizon * float(harmonic)))


#: the most events (arrivals and departure epochs of all replications) one simulation draws:
#: about 10 s of CPU time and 2 GiB of memory
MAX_EVENTS = 5 * 10 ** 7


def simulate_jlw(model: Model, weights: Mapping[str, Any] | None = None, *, horizon: float = 1000,
                 replications: int = 1, seed: int = 0) -> JLWSimulation:
    r"""Simulate the unreflected random walk $\xi$ under JLW with weights $w$ (seeded).

    The model of [SM]_: one Poisson($\Lambda$) arrival process with i.i.d. stream labels;
    station $j$ loses jobs at the epochs of a Poisson($\mu_j$) process whatever its state (no
    reflection at 0, so $\xi_j$ may be negative); an arrival of stream $i$ joins
    $\arg\min_{j\in S_i}w_j\xi_j$ with a uniform tie-break. Weights are scaled to integers so
    ties are exact. Its rates $w_j\xi_j(T)/T$ approach $V_k$ on $C_k$ ([SM]_, main result).

    Parameters
    ----------
    model : numeric rates
    weights : station weights (default 1)
    horizon : $T$
    replications : independent runs
    seed : seed of the numpy generator; equal seeds give equal results

    Returns
    -------
    JLWSimulation

    Raises
    ------
    ModelError
        Symbolic rates, bad weights, a horizon or replication count that is not positive
        (:class:`~symq.errors.ArgumentTypeError` for one of another type).
    TooLargeError
        More than :data:`MAX_EVENTS` events to draw (rates times horizon times replications).

    Notes
    -----
    Running time: $O(\Lambda T \max_i |S_i| + \sum_j \mu_j T \log(\mu_j T))$ per replication.

    Examples
    --------
    >>> from symq import model
    >>> m = model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    >>> run = simulate_jlw(m, horizon=200, seed=1)
    >>> run == simulate_jlw(m, horizon=200, seed=1), abs(run.cluster_rate(["1"]) - 2) < 0.5
    (True, True)
    """
    import numpy

    check_model(model, "simulate_jlw(model)")
    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"simulation needs numeric rates; set {missing} with --set NAME=VALUE")
    check_real(horizon, "simulate_jlw(horizon=...)", positive=True)
    check_count(replications, "simulate_jlw(replications=...)")
    check_count(seed, "simulate_jlw(seed=...)", low=0)
    weights = parse_weights(model, weights)
    events = (sum(float(r) for r in model.arrival_rates.values())
              + sum(float(r) for r in model.service_rates.values())) \
        * float(min(horizon, 10 ** 300)) * replications
    if events > MAX_EVENTS:  # each event is a few words of memory and microseconds of work
        raise TooLargeError(f"too large: simulate_jlw(horizon={horizon!r}, replications="
                            f"{replications}) draws about {events:.1e} events (limit "
                            f"{MAX_EVENTS:.0e}); choose a shorter horizon")
    instance = Instance.from_model(model, weights)
    fractions = [to_fraction(weights[j]) for j in model.servers]
    scale = math.lcm(*(w.denominator for w in fractions))
    integer_weights = [int(w * scale) for w in fractions]
    rates = [float(lam) for lam in instance.rates]
    total = sum(rates)
    probabilities = numpy.array(rates) / total
    neighbourhoods = [sorted(s) for s in instance.neighbourhoods]
    rng = numpy.random.default_rng(seed)
    finals = []
    for _ in range(replications):
        count = int(rng.poisson(total * horizon))
        times = numpy.sort(rng.uniform(0, horizon, count))
        labels = rng.choice(len(rates), size=count, p=probabilities).tolist()
        ties = rng.random(count).tolist()
        departed_by, departed = [], []
        for mu in instance.mu:
            epochs = numpy.sort(rng.uniform(0, horizon, int(rng.poisson(float(mu) * horizon))))
            departed_by.append(numpy.searchsorted(epochs, times).tolist())
            departed.append(len(epochs))
        joined = [0] * len(instance.mu)
        for n in range(count):
            best, tied = None, []
            for j in neighbourhoods[labels[n]]:
                value = integer_weights[j] * (joined[j] - departed_by[j][n])
                if best is None or value < best:
                    best, tied = value, [j]
                elif value == best:
                    tied.append(j)
            joined[tied[int(ties[n] * len(tied))] if len(tied) > 1 else tied[0]] += 1
        finals.append(tuple(a - d for a, d in zip(joined, departed)))
    return JLWSimulation(stations=model.servers, weights=tuple(fractions), horizon=horizon,
                         final=tuple(finals), seed=seed)
