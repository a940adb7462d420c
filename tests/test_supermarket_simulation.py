"""JLW dynamics: the seeded random walk approaches V_k on C_k (the main result of the paper).

The simulation (symq.studies.supermarket.simulate_jlw) is built from the verbal model only: Poisson
arrivals with stream labels, Poisson departures at every station regardless of its state, and the
JLW rule argmin_{j in S_i} w_j xi_j. The drifts it is compared with come from the exact max-flow
decomposition, so the two routes share nothing but the model.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from symq import Model
from symq.errors import ModelError
from symq.studies.supermarket import cluster_tolerance, decompose, simulate_jlw

from test_supermarket import example_a, example_b


def test_cluster_rates_approach_drifts_example_a():
    r"""Cluster statistic Z_k = sum_{C_k} xi_j(T) / (T H(C_k)) within tolerance of V_k.

    Tolerance (the "Test tolerance" paragraph of docs/supermarket.md):
    after an O(1) transient only the streams T_k feed C_k, so sum_{C_k} xi_j(T) is a difference
    of independent Poisson counts, of variance T sum_{C_k}(a_j + mu_j) with a_j = mu_j + V_k/w_j.
    Hence sd(Z_k) = sigma_k / sqrt(T), sigma_k^2 = sum_{C_k}(2 mu_j + V_k/w_j) / H(C_k)^2, and the
    mean of R replications has sd sigma_k / sqrt(R T). We allow 5 such standard errors (an unlucky
    seed has probability about 6e-7 per cluster) plus 10/(T H(C_k)), twice the measured transient
    bias of about 5 misrouted arrivals. With R = 20 and T = 2000 this is 0.048, 0.028, 0.024, 0.036
    for the clusters {3}, {1,2}, {5}, {4}, far below the gaps between drifts (at least 0.41), so a
    wrong drift or a wrong cluster fails the test. The seed is fixed, so the outcome is
    deterministic. Cluster {1,2} is not bonded, so only the cluster statistic is tested there.
    """
    model = example_a()
    d = decompose(model)
    horizon, replications = 2000, 20
    run = simulate_jlw(model, horizon=horizon, replications=replications, seed=20240601)
    drifts = [float(c.drift) for c in d.clusters]
    for cluster, drift in zip(d.clusters, drifts):
        tolerance = cluster_tolerance(d, cluster, horizon, replications)
        assert tolerance < 0.5 * min(abs(a - b) for a, b in zip(drifts, drifts[1:]))
        assert abs(run.cluster_rate(cluster.stations) - drift) <= tolerance, cluster
    # bonded clusters are single stations here: the per-station rate is the cluster statistic
    rates = run.weighted_rates()
    for cluster in d.clusters:
        if cluster.bonded:
            for j in cluster.stations:
                assert abs(rates[j] - float(cluster.drift)) <= \
                    cluster_tolerance(d, cluster, horizon, replications)


def test_weighted_bonded_clusters_per_station():
    r"""Example (b) with w = (1, 2, 1, 1): both clusters are bonded, so every station's weighted
    rate w_j xi_j(T)/T is within the cluster tolerance of V_k (in a bonded cluster the
    weighted queues stay O(1) apart, measured spread times T of 3.4 to 8.7, well inside the
    10/(T H) allowance). Drifts 2 and -1/4."""
    model = example_b()
    weights = {"2": 2}
    d = decompose(model, weights)
    assert all(c.bonded for c in d.clusters)
    horizon, replications = 2000, 10
    run = simulate_jlw(model, weights, horizon=horizon, replications=replications, seed=11)
    rates = run.weighted_rates()
    for cluster in d.clusters:
        tolerance = cluster_tolerance(d, cluster, horizon, replications)
        assert abs(run.cluster_rate(cluster.stations) - float(cluster.drift)) <= tolerance
        for j in cluster.stations:
            assert abs(rates[j] - float(cluster.drift)) <= tolerance, j


def test_simulation_detects_a_wrong_drift():
    """The test can fail: the tolerance does not cover the |D|-average value of docs/theory-supermarket.md
    §3.9."""
    model = Model(compatibility={"a": ["1", "2"]}, arrival_rates={"a": 4},
                  service_rates={"1": 1, "2": 1})
    d = decompose(model, {"2": 2})
    run = simulate_jlw(model, {"2": 2}, horizon=2000, replications=10, seed=3)
    tolerance = cluster_tolerance(d, d.clusters[0], 2000, 10)
    assert abs(run.cluster_rate(("1", "2")) - 4 / 3) <= tolerance
    assert abs(run.cluster_rate(("1", "2")) - 1 / 2) > tolerance  # the printed (wrong) value


def test_seed_makes_runs_reproducible():
    first = simulate_jlw(example_a(), horizon=50, replications=2, seed=5)
    again = simulate_jlw(example_a(), horizon=50, replications=2, seed=5)
    other = simulate_jlw(example_a(), horizon=50, replications=2, seed=6)
    assert first.final == again.final and first.final != other.final


@pytest.mark.parametrize("kwargs, match", [({"horizon": 0}, "horizon"),
                                           ({"replications": 0}, "replications"),
                                           ({"weights": {"1": Fraction(-1)}}, "station '1'")])
def test_simulation_bad_input(kwargs, match):
    with pytest.raises(ModelError, match=match):
        simulate_jlw(example_a(), **kwargs)
