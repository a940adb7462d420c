"""Gardner and Righter (2020), Theorem 3.10: noncollaborative FCFS-RAIS on the z-state.

With activation rates satisfying the assignment condition (the canonical routing of
docs/theory-subset-dp.md §1.3, symbolic in the lambdas), checks
pi(z) = pi(0) prod_i lambda_{z_i}(z_i)/mu(z_i) on every state with at most 4 jobs, on N, W,
ring:3 and redundancy:3:2; uniform routing (which breaks the condition in N and W) must fail.

Run: ``python derivations/survey_thm_3_10.py``
"""

from sympy import latex

import symq
from symq.engines.balance import verify
from symq.engines.processes import RandomAssignmentProcess
from _verdict import ambiguous, claim, finish
from symq.engines.processes.noncollaborative import maxflow_routing, uniform_routing
import itertools


def main() -> str:
    ok = True
    rais = RandomAssignmentProcess(symq.model("n"))
    print(r"\pi^{RAIS}(1_b, 1_c) = \pi^{RAIS}(\emptyset)\,"
          + latex(rais.product_form((("b", "1"), ("c", "1")))))
    for name in ("n", "w", "ring:3", "redundancy:3:2"):
        report = verify(symq.model(name), "rais", max_jobs=4)
        print(f"% {report}".splitlines()[0])
        ok &= report.ok
    for name in ("n", "w"):
        bad = verify(symq.model(name), "rais", max_jobs=2, routing="uniform")
        print(f"% {name}, uniform routing: {'fails, as it must' if not bad.ok else 'passes?!'}")
        ok &= not bad.ok
    claim("Thm3.10", ok, "the product form against the chain (symbolic), N, W, ring:3, "
          "redundancy:3:2, up to 4 jobs; uniform routing on N, W fails")
    # Thm3.10-ac: the assignment condition, Pi^lambda(b_l) = prod_j lambda^a_{b_j}(b_{j-1})
    # independent of the order of b_l, met by the max-flow routing; the path example
    # lambda^a_u(0) lambda^a_v(u) = lambda^a_v(0) lambda^a_u(v); uniform routing on N breaks it
    def activation(model, table, busy, s):
        return sum((model.arrival_rates[c] * p.get(s, 0)
                    for c, p in table[frozenset(busy)].items()), 0)

    def order_free(model, table):
        for size in range(1, len(model.servers) + 1):
            for chosen in itertools.combinations(model.servers, size):
                values = set()
                for order in itertools.permutations(chosen):
                    value = 1
                    for j, s in enumerate(order):
                        value *= activation(model, table, order[:j], s)
                    values.add(value)
                if len(values) > 1:
                    return False
        return True
    ac = True
    for name, values in (("n", {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"}),
                         ("w", {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
                                "mu_1": 1, "mu_2": "4/5"}),
                         ("ring:3", {"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/3",
                                     "mu_1": 1, "mu_2": "1/2", "mu_3": "3/4"})):
        model = symq.model(name).substitute(values)
        ac &= order_free(model, maxflow_routing(model))
    n = symq.model("n").substitute({"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"})
    uniform_breaks = not order_free(n, uniform_routing(n))
    claim("Thm3.10-ac", ac and uniform_breaks and ok,
          f"max-flow routing, N, W, ring:3: Pi^lambda(b_l) the same for every order of every busy "
          f"set: {ac}; uniform routing on N breaks it: {uniform_breaks}")
    # S3.3-lamz: the display before Thm 3.10 (indices garbled in our copy). Readings: (a)
    # "lambda_{z_m}(z_m) is the same for any permutation of z_{m-1}"; (b) the assignment
    # condition swaps the last two entries: lambda_{z_{m-1}}(z_{m-1}) lambda_{z_m}(z_m) =
    # lambda_{z_m}(z_{m-2}, z_m) lambda_{z_{m-1}}(z_{m-2}, z_m, z_{m-1}) whenever both are valid
    def rate_of(model, table, z, i):
        """lambda_{z_i}(z_i): lambda_c for a waiting class-c job, lambda^a_b(busy before i) for a
        busy server b."""
        kind, name = z[i]
        if kind == "q":
            return model.arrival_rates[name]
        before = frozenset(x[1] for x in z[:i] if x[0] == "b")
        return activation(model, table, before, name)

    def valid(model, z):
        busy = [x[1] for x in z if x[0] == "b"]
        return len(set(busy)) == len(busy) and all(
            set(model.compatibility[x[1]]) <= {y[1] for y in z[:i] if y[0] == "b"}
            for i, x in enumerate(z) if x[0] == "q")
    perm_ok = swap_ok = True
    for name, values in (("n", {"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"}),
                         ("w", {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
                                "mu_1": 1, "mu_2": "4/5"})):
        model = symq.model(name).substitute(values)
        table = maxflow_routing(model)
        items = [("b", x) for x in model.servers] + [("q", c) for c in model.classes]
        for length in range(2, 5):
            for z in itertools.product(items, repeat=length):
                if not valid(model, z):
                    continue
                last = rate_of(model, table, z, length - 1)
                for p in itertools.permutations(z[:-1]):
                    if valid(model, p + z[-1:]):
                        perm_ok &= rate_of(model, table, p + z[-1:], length - 1) == last
                swapped = z[:-2] + (z[-1], z[-2])
                if valid(model, swapped):
                    swap_ok &= (rate_of(model, table, z, length - 2) * last
                                == rate_of(model, table, swapped, length - 2)
                                * rate_of(model, table, swapped, length - 1))
    ambiguous("S3.3-lamz", {"lambda_{z_m}(z_m) the same for every order of z_{m-1}": perm_ok,
                            "the last two entries swapped, both states valid": swap_ok},
              "both: the rate of the last entry depends on the set before it, and swapping the "
              "last two entries keeps the product of their rates (the assignment condition)",
              perm_ok and swap_ok, "max-flow routing on N and W, every valid z with 2 to 4 "
              "entries")
    return finish(ok and ac and uniform_breaks)


if __name__ == "__main__":
    main()
