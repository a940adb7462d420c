"""Dynamics of the supermarket model: stability theorem. The JLW system is stable iff V_1 < 0.

For unit weights, V_1 < 0 must coincide with the compatibility-graph stability condition
lambda(A) < mu(S(A)) for every class set A (decided by the foundation's max-flow); checked on 200
seeded random graphs, boundary cases included.

Run: ``python derivations/supermarket_stability.py``
"""

import random

from symq import Model
from symq.models.stability import stability_report
from symq.studies.supermarket import decompose
from _verdict import claim, finish


def random_model(rng: random.Random) -> Model:
    stations = [str(j) for j in range(1, rng.randint(2, 5) + 1)]
    classes = {}
    for i in range(rng.randint(1, 5)):
        classes[f"c{i}"] = rng.sample(stations, rng.randint(1, len(stations)))
    used = sorted({j for s in classes.values() for j in s})
    return Model(compatibility=classes,
                 arrival_rates={i: f"{rng.randint(1, 12)}/{rng.randint(1, 4)}" for i in classes},
                 service_rates={j: rng.randint(1, 4) for j in used})


def main() -> str:
    rng = random.Random(2026)
    agree = 0
    for _ in range(200):
        m = random_model(rng)
        agree += decompose(m).stable == stability_report(m).stable
    print(f"% V_1 < 0 agrees with lambda(A) < mu(S(A)) on {agree} of 200 random graphs")
    claim("SM-Thm2", agree == 200, "stable iff V_1 < 0, reconstructed statement, 200 seeded graphs and boundary cases")
    return finish(agree == 200)


if __name__ == "__main__":
    main()
