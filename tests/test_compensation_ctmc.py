"""The compensation solution against a truncated CTMC of the verbal model (issue 5, "Done when").

The truncated chain is built here from the verbal model alone (who joins which queue, who serves at
which rate), independently of :mod:`symq.compensation.models`, and solved with scipy's sparse LU in
double precision, refined once. The truncation keeps the lost mass below 1e-17 (the total content
is dominated by an M/M/1 queue with ratio rho).
"""

import math
from fractions import Fraction

import mpmath
import pytest

from symq.compensation import asymmetric_jsq, sed, solve, symmetric_jsq

np = pytest.importorskip("numpy")
sparse = pytest.importorskip("scipy.sparse")
linalg = pytest.importorskip("scipy.sparse.linalg")

STATES = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (1, 3), (3, 3), (4, 2), (2, 6), (5, 5)]


def truncated_ctmc(lam, mu1, mu2, s, q, n1, width):
    """Stationary law of the (q1, q2) chain on {q1 <= n1, |q2 - s q1| <= width}.

    Moves that leave the truncated set are dropped. The probability mass far from the routing line
    q2 = s q1 decays geometrically, so a band is a much smaller truncation than a box.
    """
    lam, mu1, mu2, q = float(lam), float(mu1), float(mu2), float(q)
    n2 = s * n1 + width
    a, b = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    valid = np.abs(b - s * a) <= width
    a, b = a[valid], b[valid]
    n = len(a)
    index = -np.ones((n1 + 2, n2 + 2), dtype=np.int64)
    index[a, b] = np.arange(n)
    src, dst, rate = [], [], []

    def add(mask, da, db, r):
        if r <= 0:
            return
        i = np.nonzero(mask)[0]
        j = index[np.clip(a[i] + da, 0, n1 + 1), np.clip(b[i] + db, 0, n2 + 1)]
        ok = (j >= 0) & (a[i] + da >= 0) & (b[i] + db >= 0)
        src.append(i[ok]); dst.append(j[ok]); rate.append(np.full(int(ok.sum()), r))

    # an arrival compares the expected delays: s*(q1+1) against q2+1 (queue 2 is s times faster)
    left, right = s * (a + 1), b + 1
    add(left < right, 1, 0, lam)
    add(left > right, 0, 1, lam)
    add(left == right, 1, 0, lam * q)
    add(left == right, 0, 1, lam * (1 - q))
    add(a > 0, -1, 0, mu1)
    add(b > 0, 0, -1, mu2)
    src, dst, rate = np.concatenate(src), np.concatenate(dst), np.concatenate(rate)
    out = np.bincount(src, weights=rate, minlength=n)
    # transpose of the generator, with equation 0 replaced by the normalisation
    rows = np.concatenate([dst, np.arange(n)])
    cols = np.concatenate([src, np.arange(n)])
    vals = np.concatenate([rate, -out])
    keep = rows != 0
    rows = np.concatenate([rows[keep], np.zeros(n, dtype=np.int64)])
    cols = np.concatenate([cols[keep], np.arange(n)])
    vals = np.concatenate([vals[keep], np.ones(n)])
    a_mat = sparse.csc_matrix((vals, (rows, cols)), shape=(n, n))
    rhs = np.zeros(n)
    rhs[0] = 1.0
    lu = linalg.splu(a_mat)
    x = lu.solve(rhs)
    x += lu.solve(rhs - a_mat @ x)  # one step of iterative refinement
    p = {(int(u), int(v)): float(w) for u, v, w in zip(a, b, x)}
    mean = float(np.sum(x * (a + b)))
    return p, mean


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
