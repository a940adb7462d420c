"""Dynamics of the supermarket model: the displayed formulas and claims of our copy, one by one.

Our copy lost the statements of its theorems and several displayed equations ((2.1)-(2.3));
what remains are the model, the definitions, proof steps and (1.1), (1.2), (2.4)-(2.6). Each
check prints ``CHECK <id>: holds`` or ``CHECK <id>: fails as printed`` with exact numbers;
``docs/errata-supermarket.md`` lists every statement with the id of its check. The jump chain is
written here from the verbal model (exact Fractions, sympy for the symbolic identities).

Run: ``python derivations/supermarket_audit.py``
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import sympy

import symq
from symq.studies.supermarket import decompose

from _audit_pages import report
from _verdict import CLAIMS, claim, finish

EXPECTED_FAILURES = {"SM-transience-L"}

# one stream S = {1, 2} of rate 4, mu = (1, 1), weights (1, 10); p = share routed to station 1
LAM, MU, WEIGHTS = F(4), (F(1), F(1)), (F(1), F(10))


def weighted_drifts(p: F):
    return (WEIGHTS[0] * (LAM * p - MU[0]), WEIGHTS[1] * (LAM * (1 - p) - MU[1]))


def check_transience_step():
    """SM-transience-L: the proof of Thm 2 (V_1 > 0 => transient) takes L(x) = sum_{C_1} w_j x_j
    and claims alpha E(Delta L) = sum_{C_1} w_j V(j; x, pi) >= |C_1| V_1 > 0 for every policy.
    Counterexample: one stream of rate 4 on stations {1, 2}, mu = (1, 1), w = (1, 10). The
    minimax drift V_1 (equal weighted drifts) is 20/11 > 0, but routing everything to station 1
    gives sum w_j V_j = 3 - 10 = -7. SM-transience-fix: with L = sum_{C_1} x_j the drift is
    sum_j V_j = lambda - mu(C_1) = 2 > 0 for every policy (checked on a grid of p)."""
    # V_1: min over p of max_j w_j V_j, attained where the two weighted drifts are equal
    p_star = (WEIGHTS[1] * (LAM - MU[1]) + WEIGHTS[0] * MU[0]) / (LAM * (WEIGHTS[0] + WEIGHTS[1]))
    v1 = max(weighted_drifts(p_star))
    grid = [F(k, 44) for k in range(45)] + [p_star]
    assert all(max(weighted_drifts(p)) >= v1 for p in grid)
    worst = weighted_drifts(F(1))
    claim("SM-transience-L", sum(worst) >= 2 * v1 > 0,
          f"lambda = 4, mu = (1, 1), w = (1, 10): V_1 = {v1} (p = {p_star}), |C_1| V_1 = {2 * v1}",
          printed=f"sum_(C_1) w_j V(j; x, pi) >= |C_1| V_1 = {2 * v1} for every policy",
          true=f"all jobs to station 1: sum w_j V_j = {sum(worst)}")
    unweighted = {LAM * p - MU[0] + LAM * (1 - p) - MU[1] for p in grid}
    claim("SM-transience-fix", unweighted == {LAM - MU[0] - MU[1]} and LAM > MU[0] + MU[1],
          f"sum_j V_j = {', '.join(map(str, unweighted))} for every p on the grid")


def check_rate_bounds_and_quadratic():
    """SM-2.4: alpha(0) <= alpha(x) <= alpha(1); SM-dL: |Delta L| <= max_j w_j; SM-q: q(x + d e_j)
    - q(x) = d e_j^T Q x + Q_jj/2 for d = +-1 and symmetric Q; SM-2.5: the expansion (2.5) of
    Delta q for each single event; SM-S: for S(x) = sum w_j x_j^2/2, Q_jj = w_j and e_j^T Q x =
    w_j x_j."""
    lam = [F(3, 2), F(1, 2)]  # streams {1, 2} and {2}
    mu = [F(1), F(2)]
    streams = [(0, 1), (1,)]

    def jumps(x, split):
        """The jump chain of the verbal model at x: each stream's arrivals go to one of its
        stations (``split``: share of stream 1 sent to station 1), each busy station completes
        one job at its rate. ``[(next state, rate)]``."""
        out = []
        for (stations, rate) in zip(streams, lam):
            shares = {stations[0]: split, stations[-1]: 1 - split} if len(stations) == 2 else \
                {stations[0]: F(1)}
            for j, share in shares.items():
                if share:
                    out.append((tuple(v + (k == j) for k, v in enumerate(x)), rate * share))
        for j, v in enumerate(x):
            if v > 0:
                out.append((tuple(u - (k == j) for k, u in enumerate(x)), mu[j]))
        return out

    def alpha(x, split):
        return sum(rate for _, rate in jumps(x, split))

    ok = True
    low = high = None
    for split in (F(0), F(1, 3), F(1)):
        low, high = alpha((0, 0), split), alpha((1, 1), split)
        for x in itertools.product(range(4), repeat=2):
            ok &= low <= alpha(x, split) <= high
    claim("SM-2.4", ok, f"two stations, x in {{0..3}}^2, three routings: alpha(0) = {low}, "
                        f"alpha(1) = {high}")
    w = (F(1), F(10))
    steps = {abs(sum(wj * (b - a) for wj, a, b in zip(w, x, y)))
             for x in itertools.product(range(4), repeat=2) for split in (F(0), F(1, 2), F(1))
             for y, _ in jumps(x, split)}
    claim("SM-dL", max(steps) <= max(w), "|Delta L| over every jump of the chain: " + ", ".join(map(str, sorted(steps))))
    x1, x2, a, b, c = sympy.symbols("x1 x2 a b c")
    q_mat = sympy.Matrix([[a, b], [b, c]])
    x = sympy.Matrix([x1, x2])
    q = lambda v: (v.T * q_mat * v)[0] / 2  # noqa: E731
    ok = True
    for j in range(2):
        e = sympy.Matrix([int(k == j) for k in range(2)])
        for d in (-1, 1):
            ok &= sympy.expand(q(x + d * e) - q(x) - (d * (e.T * q_mat * x)[0] + q_mat[j, j] / 2)) == 0
    claim("SM-q", ok, "2 x 2 symmetric Q, symbolic")
    ok = True
    for j in range(2):  # one event at a time: departure from j, or an arrival routed to j
        e = sympy.Matrix([int(k == j) for k in range(2)])
        for dep, arr in ((1, 0), (0, 1)):
            direct = dep * (q(x - e) - q(x)) + arr * (q(x + e) - q(x))
            formula = (arr - dep) * (e.T * q_mat * x)[0] + q_mat[j, j] / 2 * (arr + dep)
            ok &= sympy.expand(direct - formula) == 0
    claim("SM-2.5", ok, "each single event, symbolic Q")
    w1, w2 = sympy.symbols("w1 w2", positive=True)
    s_quad = (w1 * x1 ** 2 + w2 * x2 ** 2) / 2
    hess = sympy.hessian(s_quad, (x1, x2))
    grad_ok = all(sympy.expand((hess * x)[j] - [w1 * x1, w2 * x2][j]) == 0 for j in range(2))
    claim("SM-S", hess[0, 0] == w1 and hess[1, 1] == w2 and grad_ok, "symbolic weights")


def check_drift_of_s():
    """SM-2.6: for a policy of Pi_K (weighted drifts equal to V_k on C_k), alpha E(Delta S | x) =
    sum_k V_k sum_{C_k} x_j + beta_pi(x), with the jump chain written from the model, at every
    x in {0..3}^2 (the coefficient of a station with x_j = 0 does not matter); SM-beta:
    beta_pi(x) <= alpha(1) max_j w_j / 2."""
    p = (WEIGHTS[1] * (LAM - MU[1]) + WEIGHTS[0] * MU[0]) / (LAM * (WEIGHTS[0] + WEIGHTS[1]))
    route = (p, 1 - p)
    v = max(weighted_drifts(p))
    s = lambda y: sum(wj * yj * yj for wj, yj in zip(WEIGHTS, y)) / 2  # noqa: E731
    ok = bound = True
    top = LAM + sum(MU)
    for x in itertools.product(range(4), repeat=2):
        drift = F(0)
        for j in range(2):
            up = list(x)
            up[j] += 1
            drift += LAM * route[j] * (s(up) - s(x))
            if x[j]:
                down = list(x)
                down[j] -= 1
                drift += MU[j] * (s(down) - s(x))
        beta = sum(WEIGHTS[j] * (MU[j] * (x[j] > 0) + LAM * route[j]) for j in range(2)) / 2
        formula = v * sum(x) + beta
        if all(x):
            ok &= drift == formula
        else:  # stations with x_j = 0 contribute nothing, whatever their coefficient
            ok &= drift == sum(v * x[j] for j in range(2) if x[j]) + beta
        bound &= beta <= top * max(WEIGHTS) / 2
    claim("SM-2.6", ok, f"lambda = 4, mu = (1, 1), w = (1, 10), pi in Pi_K (p = {p}), V_1 = {v}")
    claim("SM-beta", bound, "same x")


def check_jump_rates():
    """SM-1.1: V(j; x, pi) = sum_i lambda_i pi(x, i)_j - mu_j is the drift of x_j (x_j >= 1);
    SM-rates: alpha(x) E(D_j | x) = mu_j 1{x_j > 0} and alpha(x) E(A_i R_ij | x) = lambda_i
    pi(x, i)_j, the indicators of single events of the uniformized jump chain; SM-static: under a
    static policy the stations are independent M/M/1 queues with the routed rates (the product
    of geometric laws satisfies every global-balance equation of the two-station chain on a box)
    and the chain is ergodic iff every V_j < 0; SM-super: for a policy of Pi_K with V_1 < 0 the
    drift of S(x) is negative outside a finite set. Two streams, {1, 2} at rate 3/2 and {2} at
    rate 1/2, mu = (1, 2), written from the verbal model, per event."""
    lam = {"a": F(3, 2), "b": F(1, 2)}
    streams = {"a": (0, 1), "b": (1,)}
    mu = (F(1), F(2))

    def events(x, split):
        """``[(kind, stream or station, station, rate)]`` of the verbal model at x."""
        out = []
        for i, stations in streams.items():
            shares = {0: split, 1: 1 - split} if len(stations) == 2 else {stations[0]: F(1)}
            for j, share in shares.items():
                if share:
                    out.append(("A", i, j, lam[i] * share))
        for j in range(2):
            if x[j] > 0:
                out.append(("D", j, j, mu[j]))
        return out
    drift_ok = rates_ok = True
    for split in (F(0), F(1, 3), F(1)):
        route = {("a", 0): split, ("a", 1): 1 - split, ("b", 1): F(1), ("b", 0): F(0)}
        for x in itertools.product(range(4), repeat=2):
            ev = events(x, split)
            alpha = sum(e[3] for e in ev)
            for j in range(2):
                change = sum((e[3] / alpha) * ((e[0] == "A") - (e[0] == "D"))
                             for e in ev if e[2] == j) * alpha
                v = sum(lam[i] * route[(i, j)] for i in lam) - mu[j]
                if x[j] >= 1:
                    drift_ok &= change == v
                dep = sum(e[3] for e in ev if e[0] == "D" and e[2] == j) / alpha
                rates_ok &= alpha * dep == mu[j] * (x[j] > 0)
                for i in lam:
                    arr = sum(e[3] for e in ev if e[0] == "A" and e[1] == i and e[2] == j) / alpha
                    rates_ok &= alpha * arr == lam[i] * route[(i, j)]
    claim("SM-1.1", drift_ok, "two streams ({1, 2} at 3/2, {2} at 1/2), mu = (1, 2), three static "
          "routings, every x in {0..3}^2 with x_j >= 1: E[change of x_j] alpha(x) = V(j; pi)")
    claim("SM-rates", rates_ok, "same chain and states: alpha E(D_j) = mu_j 1{x_j > 0}, "
          "alpha E(A_i R_ij) = lambda_i pi(x, i)_j")
    # SM-static: split 3/4 of stream a to station 1: routed rates 9/8 and 7/8; V = (1/8, -9/8):
    # station 1 unstable; split 1/3: routed rates 1/2 and 3/2, V = (-1/2, -1/2): ergodic, and the
    # product of geometric laws is stationary
    static_ok = True
    for split, stable in ((F(1, 3), True), (F(3, 4), False)):
        routed = (lam["a"] * split, lam["a"] * (1 - split) + lam["b"])
        v = [routed[j] - mu[j] for j in range(2)]
        static_ok &= all(vj < 0 for vj in v) == stable
        if stable:
            rho = [routed[j] / mu[j] for j in range(2)]
            pi = lambda y: (1 - rho[0]) * rho[0] ** y[0] * (1 - rho[1]) * rho[1] ** y[1]  # noqa: E731
            for x in itertools.product(range(5), repeat=2):
                out = sum(e[3] for e in events(x, split)) * pi(x)
                inflow = F(0)
                for j in range(2):
                    if x[j] >= 1:  # an arrival routed to j from x - e_j
                        prev = tuple(v_ - (k == j) for k, v_ in enumerate(x))
                        inflow += routed[j] * pi(prev)
                    nxt = tuple(v_ + (k == j) for k, v_ in enumerate(x))
                    inflow += mu[j] * pi(nxt)
                static_ok &= out == inflow
    claim("SM-static", static_ok, "split 1/3: V = (-1/2, -1/2), the product of M/M/1 geometric laws "
          "satisfies global balance on {0..4}^2; split 3/4: V_1 = 1/8 > 0, not ergodic")
    # SM-super: split 1/3 (all V < 0), S(x) = sum w_j x_j^2 / 2 with w = (1, 3): the drift is
    # < 0 at every x of {0..30}^2 outside a bounded set (the largest x_1 + x_2 with drift >= 0)
    w = (F(1), F(3))
    s_fn = lambda y: sum(wj * yj * yj for wj, yj in zip(w, y)) / 2  # noqa: E731
    nonneg = []
    for x in itertools.product(range(31), repeat=2):
        drift = F(0)
        for e in events(x, F(1, 3)):
            y = list(x)
            y[e[2]] += 1 if e[0] == "A" else -1
            drift += e[3] * (s_fn(y) - s_fn(x))
        if drift >= 0:
            nonneg.append(sum(x))
    # (2.6)-(2.6'): drift = sum_j w_j V_j x_j + beta, beta <= sum_j w_j (mu_j + routed_j) / 2,
    # so the drift is < 0 once x_1 + x_2 > beta_max / min_j |w_j V_j| = 6 / (1/2) = 12
    bound = (w[0] * (mu[0] + F(1, 2)) + w[1] * (mu[1] + F(3, 2))) / 2 / F(1, 2)
    claim("SM-super", max(nonneg) <= bound < 30, f"split 1/3 (V = (-1/2, -1/2)), w = (1, 3), x in "
          f"{{0..30}}^2: the drift of S is >= 0 only at {len(nonneg)} states, all with x_1 + x_2 "
          f"<= {max(nonneg)} <= {bound}")


def check_static_claims():
    """SM-order: the drifts of the decomposition decrease, V_1 > V_2 > ... (so all V_k < 0 iff
    V_1 < 0), and there are K <= N stages; 60 seeded random models with 2-4 stations, unit and
    tied rates included."""
    rng = random.Random(17)
    ok = True
    for trial in range(60):
        stations = [str(j) for j in range(1, rng.randint(2, 4) + 1)]
        streams = {}
        for i in range(rng.randint(1, 4)):
            size = rng.randint(1, len(stations))
            streams[f"c{i}"] = sorted(rng.sample(stations, size))
        used = {s for v in streams.values() for s in v}
        for s in stations:
            if s not in used:
                streams[f"d{s}"] = [s]
        lam = {c: str(F(rng.randint(1, 6), 4)) for c in streams}
        mu = {s: str(F(rng.choice([1, 1, 2, 3]), 1)) for s in stations}
        model = symq.Model(compatibility=streams, arrival_rates=lam, service_rates=mu)
        drifts = [c.drift for c in decompose(model).clusters]
        ok &= all(a > b for a, b in zip(drifts, drifts[1:])) and len(drifts) <= len(stations)
    claim("SM-order", ok, "60 seeded random models")


def main() -> str:
    CLAIMS.clear()
    check_transience_step()
    check_rate_bounds_and_quadratic()
    check_drift_of_s()
    check_static_claims()
    check_jump_rates()
    report("errata-supermarket.md", set(CLAIMS), "supermarket_audit.py")
    failing = {t for t, ok in CLAIMS.items() if not ok}
    return finish(False, correction="SM-transience-L: take L(x) = sum_{C_1} x_j (unweighted); its "
                  "drift is at least lambda(R(C_1)) - mu(C_1), which is > 0 when V_1 > 0",
                  corrected=failing == EXPECTED_FAILURES)


if __name__ == "__main__":
    main()
