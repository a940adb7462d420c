"""Gardner and Righter (2020), Corollary 3.4: OI queues in a network.

"The departure process from an OI queue is a Poisson process; thus a network of OI queues will
have a product-form stationary distribution" (a consequence of quasi-reversibility, Thm 3.3).

Checked on a tandem of two collaborative queues: jobs of classes 1, 2, 3 arrive at queue 1 (the
W model: 1->{1}, 2->{2}, 3->{1,2}) and, when they complete there, join queue 2 with the same class
(1->{a}, 2->{a,b}, 3->{b}: a different, N-like graph). The claimed law is
pi(c, c') = pi_1(c) pi_2(c'), each factor the Thm 3.3 law of its queue fed by Poisson arrivals at
the external rates. Independent route: the global-balance equations of the tandem chain written
from the verbal model (arrivals, departures of the job in position p of either queue at its
marginal rate, a departure from queue 1 joining the end of queue 2), evaluated exactly at
rational rates on every state with at most 4 jobs in all (every predecessor has at most 5 jobs
and is evaluated from the formula, so the equations are complete). The same law with queue 2 fed
at the wrong rates (queue 1's service rates) must fail, and so must a law with queue 2's order
reversed. The Poisson-departure statement itself is checked through its consequence: the
inter-departure times of queue 1 seen from the stationary state are i.i.d. Exp(lambda)
is not checked directly.

Run: ``python derivations/survey_cor_3_4.py``
"""

import itertools
import math
import random
from fractions import Fraction

import symq

from _survey_common import Rates, collaborative_term
from _verdict import claim, finish

LAMBDA = {"1": Fraction(1, 5), "2": Fraction(1, 4), "3": Fraction(1, 3)}
FIRST = {"1": ["1"], "2": ["2"], "3": ["1", "2"]}
SECOND = {"1": ["a"], "2": ["a", "b"], "3": ["b"]}


def queue(compatibility, service) -> Rates:
    return Rates(symq.Model(compatibility=compatibility, arrival_rates=LAMBDA,
                            service_rates=service))


def departures(rates: Rates, state):
    """(position, rate) of each job that can complete: its servers not taken by older jobs."""
    used = frozenset()
    for p, c in enumerate(state):
        fresh = rates.sets[c] - used
        used = used | rates.sets[c]
        if fresh:
            yield p, rates.mu_of(fresh)


def residuals(one: Rates, two: Rates, law, max_jobs: int) -> int:
    """Number of states with at most ``max_jobs`` jobs whose global balance fails for ``law``."""
    classes = sorted(LAMBDA)
    failures = 0
    for total in range(max_jobs + 1):
        for k in range(total + 1):
            for c1 in itertools.product(classes, repeat=k):
                for c2 in itertools.product(classes, repeat=total - k):
                    out = sum(LAMBDA.values()) + sum(r for _, r in departures(one, c1)) \
                        + sum(r for _, r in departures(two, c2))
                    flow_in = Fraction(0)
                    if c1:  # an arrival to queue 1 made its last job
                        flow_in += law(c1[:-1], c2) * LAMBDA[c1[-1]]
                    if c2:  # a departure from queue 1 made queue 2's last job
                        last = c2[-1]
                        for p in range(len(c1) + 1):
                            before = c1[:p] + (last,) + c1[p:]
                            rate = dict(departures(one, before)).get(p, 0)
                            flow_in += law(before, c2[:-1]) * rate
                    for p in range(len(c2) + 1):  # a departure from queue 2
                        for c in classes:
                            before = c2[:p] + (c,) + c2[p:]
                            rate = dict(departures(two, before)).get(p, 0)
                            flow_in += law(c1, before) * rate
                    if law(c1, c2) * out != flow_in:
                        failures += 1
    return failures


def departure_gaps(rates: Rates, count: int, seed: int = 34) -> list[float]:
    """Inter-departure times of a simulated collaborative queue (after 5000 warm-up departures)."""
    rng = random.Random(seed)
    lam = {c: float(r) for c, r in LAMBDA.items()}
    state: list[str] = []
    now, last, gaps, seen = 0.0, 0.0, [], 0
    while len(gaps) < count:
        moves = [(r, ("arrive", c)) for c, r in lam.items()]
        moves += [(float(r), ("leave", p)) for p, r in departures(rates, tuple(state))]
        total = sum(r for r, _ in moves)
        now += rng.expovariate(total)
        pick = rng.random() * total
        for r, move in moves:
            pick -= r
            if pick <= 0:
                break
        if move[0] == "arrive":
            state.append(move[1])
        else:
            del state[move[1]]
            seen += 1
            if seen > 5000:
                gaps.append(now - last)
            last = now
    return gaps


def main() -> str:
    one = queue(FIRST, {"1": Fraction(1), "2": Fraction(4, 5)})
    two = queue(SECOND, {"a": Fraction(3, 4), "b": Fraction(1)})
    product = lambda c1, c2: collaborative_term(one, c1) * collaborative_term(two, c2)  # noqa: E731
    slow = queue(SECOND, {"a": Fraction(1), "b": Fraction(4, 5)})
    wrong_rates = lambda c1, c2: collaborative_term(one, c1) * collaborative_term(slow, c2)  # noqa: E731
    reversed_two = lambda c1, c2: collaborative_term(one, c1) * collaborative_term(two, c2[::-1])  # noqa: E731
    ok = residuals(one, two, product, 4) == 0
    print(r"\pi(\vec c, \vec c\,') = \pi_1(\vec c)\,\pi_2(\vec c\,') = \pi(\emptyset)"
          r"\prod_i\frac{\lambda_{c_i}}{\mu_1(\vec c_i)}\prod_j\frac{\lambda_{c'_j}}{\mu_2(\vec c\,'_j)}")
    print(f"% tandem W -> (a, b): product form satisfies global balance on every state with at "
          f"most 4 jobs: {ok}")
    bad = residuals(one, two, wrong_rates, 3), residuals(one, two, reversed_two, 3)
    print(f"% wrong second factor (other service rates): {bad[0]} failing states; queue 2 order "
          f"reversed: {bad[1]} failing states")
    ok &= all(bad)
    gaps = departure_gaps(one, 60000)
    n, lam = len(gaps), float(sum(LAMBDA.values()))
    mean = sum(gaps) / n
    tail = sum(g > 1 / lam for g in gaps) / n
    centred = [g - mean for g in gaps]
    lag = sum(a * b for a, b in zip(centred, centred[1:])) / sum(a * a for a in centred)
    poisson = (abs(mean - 1 / lam) <= 5 / (lam * math.sqrt(n))
               and abs(tail - math.exp(-1)) <= 5 * math.sqrt(math.exp(-1) * (1 - math.exp(-1)) / n)
               and abs(lag) <= 5 / math.sqrt(n))
    print(f"% queue 1 departures (simulated, seed 34): mean gap {mean:.4f} (1/lambda = "
          f"{1 / lam:.4f}), P(gap > 1/lambda) = {tail:.4f} (e^-1 = {math.exp(-1):.4f}), lag-1 "
          f"correlation {lag:+.4f}: consistent with Poisson: {poisson}")
    ok &= poisson
    claim("Cor3.4", ok, "tandem W -> (a, b): product of the two product forms against global balance; departures Poisson (simulated)")
    return finish(ok)


if __name__ == "__main__":
    main()
