"""Gardner and Righter (2020), Theorem 5.4: queueing time given the ordered busy servers.

As printed: the queueing time of a class-i job that sees the busy servers b_l in the order of
their jobs is T_iQ(b_l) = I(i in R(b_l)) sum_{j >= f} T^{M/M/1}(lambda_i, mu(b_j) - lambda(R(b_j)) +
lambda_i), i.e. given b it is the hypoexponential with rates r(B_j) = mu(B_j) - lambda(R(B_j)),
j = f..l, f = min{j : S_i subseteq B_j}. As a conditional law this is false; the unconditional
queueing time *is* the P(b)-mixture of these laws (docs/theory-subset-dp.md §2.4).

Independent route ("tagged job"): under FCFS the wait depends only on the waiting jobs ahead and
the busy set (a later arrival only takes idle servers, which no job ahead can use), so given them
its LST is an exact finite recursion over the verbal noncollaborative dynamics. Given b, the
waiting jobs seen (PASTA) have the law of Thm 3.10 / 5.1 (verified in survey_thm_3_10.py and
survey_thm_5_1.py): independent geometric segment lengths, iid classes; cut at n waiting jobs
with the exact omitted mass this gives a rigorous interval for E[exp(-theta T_iQ) | b].

1. Conditional: on N (lambda = (1/4, 1/4), mu = (1, 1)) and W, for every class and every b with
   S_i inside B_l, the printed LST at theta = 1/2 and 2 is compared with the interval; it must be
   outside in at least one case for the printed statement to fail (it is: N, class 1, b = (1, 2)).
2. Unconditional: the mixture sum_b P(b) (printed law given b) (symq.engines.aggregated.waiting_time_law,
   with P(b) of docs/theory-subset-dp.md §2.1) must lie in the mixture of the intervals, and equal the one-DP LST
   symq.engines.aggregated.waiting_time_lst exactly.

Run: ``python derivations/survey_thm_5_4.py``
"""

from fractions import Fraction

import sympy

import symq
from symq.engines.aggregated import (busy_order_probability, printed_conditional_waiting_time,
                             waiting_time_law, waiting_time_lst)

from _survey_common import (exact_gap, Rates, conditional_queue_law, frac, inside, lst_value,
                            noncollaborative_tagged, show)
from _verdict import claim, finish

RATES = {
    "n": {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
}
CAP = {"n": 7, "w": 5}
THETAS = (Fraction(1, 2), Fraction(2))


def main() -> str:
    conditional_fails = False
    first_failure = None
    mixture_ok = True
    print(printed_conditional_waiting_time(symq.model("n"), "1", ("1", "2")).latex(
        r"T_{1Q}(\vec b=(1,2))\ \text{(printed)}"))
    for name, values in RATES.items():
        model = symq.model(name).substitute(values)
        rates = Rates(model)
        p_b = {b: frac(p) for b, p in busy_order_probability(model).items()}
        for i in model.classes:
            low = {t: Fraction(0) for t in THETAS}
            high = {t: Fraction(0) for t in THETAS}
            for b, p in p_b.items():
                printed = printed_conditional_waiting_time(model, i, b)
                if not rates.sets[i] <= frozenset(b):
                    for t in THETAS:
                        low[t] += p
                        high[t] += p
                    continue
                law, eps = conditional_queue_law(rates, b, CAP[name])
                for t in THETAS:
                    h = noncollaborative_tagged(rates, i, t)
                    value = sum((q * h(a, frozenset(b)) for a, q in law.items()), Fraction(0))
                    bounds = (value, value + eps)
                    low[t] += p * bounds[0]
                    high[t] += p * bounds[1]
                    stated = lst_value(printed.lst(), t)
                    if not inside(stated, bounds):
                        conditional_fails = True
                        if first_failure is None:
                            first_failure = (name, i, b, t, stated, bounds)
                        print(f"% {name}, class {i}, b = {b}, theta = {t}: printed "
                              f"{show(stated)} outside [{show(bounds[0])}, {show(bounds[1])}]; "
                              f"exact: {exact_gap(stated, bounds)}")
            mixture = waiting_time_law(model, i)
            dp = waiting_time_lst(model, i)
            for t in THETAS:
                value = lst_value(mixture.lst(), t)
                good = inside(value, (low[t], high[t])) and value == lst_value(dp, t)
                mixture_ok &= good
            print(f"% {name}, class {i}: P(b)-mixture inside the mixed intervals and = one-DP LST "
                  f"at theta = 1/2, 2: {good}")
    n = symq.model("n")
    print(r"E e^{-\theta W_1} = " + sympy.latex(waiting_time_lst(n, "1")))
    if first_failure is None:
        claim("Thm5.4", True, "every class and ordered busy set inside its interval")
    else:
        name, i, b, t, stated, bounds = first_failure
        claim("Thm5.4", False, f"{name}, class {i}, b = {b}, theta = {t}: the conditional LST "
              f"given b (rigorous interval); the P(b)-mixture is inside: {mixture_ok}",
              printed=f"LST {show(stated)} = {stated}",
              true=f"LST in [{show(bounds[0])}, {show(bounds[1])}]")
    return finish(not conditional_fails and mixture_ok,
                  correction=("the law holds only "
                              "unconditionally - T_iQ is the P(b)-mixture over the ordered busy servers b "
                              "of the printed hypoexponentials, not conditionally on b"),
                  corrected=mixture_ok)


if __name__ == "__main__":
    main()
