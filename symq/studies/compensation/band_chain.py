r"""The independent route for two-queue routing: the $(q_1, q_2)$ chain cut to a band.
Written from the verbal model alone (an arrival compares $s(q_1+1)$ with $q_2+1$ and ties go to
queue 1 with probability $q$; server $k$ completes at rate $\mu_k$), without anything from the
compensation approach, and solved in double precision with scipy's sparse LU, refined once. The
tests, the benchmark and ``derivations/sed_compensation.py`` check the compensation series
against it. numpy and scipy are core dependencies.
"""

from __future__ import annotations

__all__ = ["band_chain_law"]


def band_chain_law(lam, mu1, mu2, s, q, n1, width):
    """Stationary law of the (q1, q2) chain on {q1 <= n1, |q2 - s q1| <= width}.

    Moves that leave the truncated set are dropped. The probability mass far from the routing line
    q2 = s q1 decays geometrically, so a band is a much smaller truncation than a box.

    Parameters
    ----------
    lam, mu1, mu2 : float
        Arrival rate and the two service rates (converted with ``float``).
    s : int
        1 for JSQ, the server-2 speed for SED.
    q : float
        Probability that a tie goes to queue 1.
    n1 : int
        Largest ``q1`` kept.
    width : int
        Half-width of the band around ``q2 = s q1``.

    Returns
    -------
    (dict, float)
        The probability of each state ``(q1, q2)`` and the mean number in system.

    Examples
    --------
    >>> law, mean = band_chain_law(1, 1, 1, 1, 0.5, 20, 6)   # symmetric JSQ, rho = 1/2
    >>> round(mean, 4), round(law[(0, 0)], 4)
    (1.4263, 0.316)

    Running time: one sparse LU of the n = O(n1 width) band states (fill-in about O(n width))
    and one refinement step, in double precision.
    """
    import numpy as np
    from scipy import sparse
    from scipy.sparse import linalg

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
