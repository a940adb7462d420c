"""The compensation solution against a truncated CTMC of the verbal model (issue 5, "Done when").

The truncated chain (:mod:`symq.studies.compensation.band_chain`) is built from the verbal model alone (who
joins which queue, who serves at which rate), independently of the compensation modules, and solved with scipy's sparse LU in
double precision, refined once. The truncation keeps the lost mass below 1e-17 (the total content
is dominated by an M/M/1 queue with ratio rho).
"""

import math

import pytest

from symq.studies.compensation import asymmetric_jsq, sed, solve, symmetric_jsq

pytest.importorskip("numpy")
pytest.importorskip("scipy.sparse")

from symq.studies.compensation.band_chain import band_chain_law as truncated_ctmc  # noqa: E402

STATES = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (1, 3), (3, 3), (4, 2), (2, 6), (5, 5)]


def _limits(model):
    rho = float(model.load)
    total = math.ceil(math.log(1e-17) / math.log(rho)) + 10
    return total // (1 + model.s) + 10, 20 + 17 * model.s


def _compare(model, tol=1e-12):
    n1, n2 = _limits(model)
    p, mean = truncated_ctmc(model.arrival_rate, *model.service_rates, model.s,
                             model.tie_probability, n1, n2)
    r = solve(model, digits=20, states=STATES)
    assert r.truncation_error_bound < 1e-18
    got_mean = float(r.mean_number)
    assert abs(got_mean - mean) <= tol * mean, (model, got_mean, mean)
    assert abs(float(r.empty_probability) - p[(0, 0)]) <= tol * p[(0, 0)]
    for x in STATES:
        want = p[x]
        assert abs(float(r.probabilities[x]) - want) <= tol * want, (model, x, r.probabilities[x], want)


@pytest.mark.parametrize("rho", ["1/2", "9/10"])
def test_symmetric_jsq_against_ctmc(rho):
    _compare(symmetric_jsq(rho))


@pytest.mark.parametrize("lam,mu1,mu2,q", [("3/2", 1, 2, "1/2"), ("12/5", 1, 2, "3/10"),
                                            (1, 1, 3, 1)])
def test_asymmetric_jsq_against_ctmc(lam, mu1, mu2, q):
    _compare(asymmetric_jsq(lam, mu1, mu2, q))


@pytest.mark.parametrize("s", [2, 3])
@pytest.mark.parametrize("q", [0, "1/2", 1])
@pytest.mark.parametrize("rho", ["1/2", "9/10"])
def test_sed_against_ctmc(s, q, rho):
    _compare(sed(s, q, rho))
