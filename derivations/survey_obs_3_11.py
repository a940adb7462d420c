"""Gardner and Righter (2020), Observation 3.11: the job queue given the idle servers.

Conditioned on the set of idle servers I, and while they stay idle, the job queue c_n of the
noncollaborative model (ALIS or RAIS) evolves path by path as the jobs in system of the
collaborative model |-I (idle servers and the classes compatible with them removed).

Two checks:

1. Path-wise, by a seeded coupled simulation (the statement is deterministic, so there is no
   tolerance): the same arrivals and the same service clocks (server k rings at rate mu_k; events
   drawn with the chain's rates, at most 400 per segment) drive a
   noncollaborative FCFS system (ALIS, or uniform random assignment) and the collaborative system
   |-I; after every event until the idle set changes, the waiting classes of the former must equal
   the jobs of the latter. 500 segments per discipline on W, N and ring:3.
2. Stationary consequence: the law of the job queue given the idle set I, from the exact truncated
   noncollaborative ALIS chain (lumped, cut at 2 waiting jobs, solved in rationals), must equal the
   exact truncated collaborative chain of |-I (cut at 2 jobs), for every I, on W and ring:3.

Run: ``python derivations/survey_obs_3_11.py``
"""

import random
from fractions import Fraction

import symq
from symq.engines import ctmc

from _survey_common import Rates, noncollaborative_law
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
    "ring:3": {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3", "mu_1": 1, "mu_2": "1/2",
               "mu_3": "3/4"},
}


def collaborative_step(rates: Rates, jobs: list, server: str) -> None:
    """Server ``server`` completes the job it works on: the oldest job compatible with it."""
    for p, c in enumerate(jobs):
        if server in rates.sets[c]:
            del jobs[p]
            return


def coupled_segment(rates: Rates, rng: random.Random, discipline: str, steps: int = 60) -> bool:
    """Run a random noncollaborative state forward, then couple it with |-I until I changes."""
    servers = sorted(rates.servers)
    classes = sorted(rates.lam)
    busy: dict[str, str] = {}  # server -> class in service
    queue: list[str] = []
    idle = list(servers)      # longest idle first

    def arrive(c: str) -> bool:
        free = [s for s in idle if s in rates.sets[c]]
        if not free:
            queue.append(c)
            return False
        s = free[0] if discipline == "alis" else rng.choice(free)
        idle.remove(s)
        busy[s] = c
        return True

    def complete(s: str) -> bool:
        p = next((p for p, c in enumerate(queue) if s in rates.sets[c]), None)
        if p is None:
            del busy[s]
            idle.append(s)
            return True
        busy[s] = queue.pop(p)
        return False
    for _ in range(rng.randrange(steps)):  # a random starting state
        if busy and rng.random() < 0.5:
            complete(rng.choice(sorted(busy)))
        else:
            arrive(rng.choice(classes))
    collaborative = list(queue)
    events = classes + servers
    weights = [float(rates.lam[c]) for c in classes] + [float(rates.mu[s]) for s in servers]
    for _ in range(400):  # events drawn with the rates of the chain
        event = rng.choices(events, weights)[0]
        if event in rates.lam:
            if arrive(event):
                return True  # an idle server was taken: the idle set changed
            collaborative.append(event)
        else:
            if event not in busy:
                continue     # an idle server's clock: no event in either system
            collaborative_step(rates, collaborative, event)
            if complete(event):
                return True  # the server became idle: the idle set changed
        if collaborative != queue:
            return False
    return True


def main() -> str:
    ok = True
    rng = random.Random(311)
    for name, values in RATES.items():
        rates = Rates(symq.model(name).substitute(values))
        for discipline in ("alis", "rais"):
            same = all(coupled_segment(rates, rng, discipline) for _ in range(500))
            print(f"% {name}, {discipline}: 500 coupled segments, queue = collaborative |-I: {same}")
            ok &= same
    claim("Obs3.11", ok, "500 coupled sample-path segments per model and discipline: the job "
          "queue = the collaborative system without the idle servers")
    nc_ok, nc_shown = True, []
    print(r"\pi^{ALIS}(\vec c_n \mid \text{idle set } I) = \pi^C_{\vdash I}(\vec c_n)")
    for name in ("w", "ring:3"):
        m = symq.model(name).substitute(RATES[name])
        law = noncollaborative_law(m, "alis", 2)
        by_idle: dict = {}
        for (z, idle), p in law.items():
            key = frozenset(idle)
            queue = tuple(job[1] for job in z if job[0] == "q")
            by_idle.setdefault(key, {})
            by_idle[key][queue] = by_idle[key].get(queue, Fraction(0)) + p
        checks = []
        for idle, part in by_idle.items():
            total = sum(part.values(), Fraction(0))
            reduced = m.remove_servers(idle)
            if reduced.is_empty:
                checks.append(set(part) == {()})
                continue
            target = ctmc.truncated_stationary(reduced, "collaborative", 2, exact=True)
            checks.append({q: p / total for q, p in part.items()} == target)
        print(f"% {name}: {len(law)} states, {len(by_idle)} idle sets, exact equality: {all(checks)}")
        # S6-nc: given all servers busy, the mean number of class-i jobs waiting (not in
        # service) in the noncollaborative model = the collaborative mean L_i (same truncation)
        busy = by_idle.get(frozenset(), {})
        total = sum(busy.values(), Fraction(0))
        target = ctmc.truncated_stationary(m, "collaborative", 2, exact=True)
        for i in m.classes:
            waiting_mean = sum((p * q.count(i) for q, p in busy.items()), Fraction(0)) / total
            collab_mean = sum((p * q.count(i) for q, p in target.items()), Fraction(0))
            nc_ok &= waiting_mean == collab_mean
            nc_shown.append(f"{name} class {i}: {waiting_mean}")
        ok &= all(checks)
    claim("S6-nc", nc_ok, "ALIS chains cut at 2 waiting jobs, given no idle server: mean number "
          "of class-i jobs waiting = mean number in the collaborative chain with the same cut ("
          + ", ".join(nc_shown[:3]) + ", ...)")
    return finish(ok and nc_ok)


if __name__ == "__main__":
    main()
