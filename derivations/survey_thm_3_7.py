"""Gardner and Righter (2020), Definition 3.6 and Corollary 3.7: OI loss queues.

As printed, Cor 3.7 ends with the recursion pi^{CT}(c_n) = lambda_{c_n}/mu(c_n) pi^C(c_{n-1}),
with the law pi^C of the system *without* rejections on the right. That is off by the factor
P{C in C_T}: the right recursion is pi^{CT}(c_n) = lambda_{c_n}/mu(c_n) pi^{CT}(c_{n-1}). Both are
evaluated at exact rates on the W model with a total cap of 2 jobs, against the exact stationary
law of the truncated chain; the corrected product form is then verified symbolically by balance
residuals for per-class caps and a total cap.

Run: ``python derivations/survey_thm_3_7.py``
"""

from fractions import Fraction

import symq
from symq.engines import ctmc
from symq.engines.balance import verify
from symq.engines.processes import AcceptanceRegion, CollaborativeQueue
from _verdict import claim, finish

RATES = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}


TIED = {"lambda_1": "1/5", "lambda_2": "1/5", "lambda_3": "1/5", "mu_1": "1", "mu_2": "1"}
HEAVY = {"lambda_1": "1/2", "lambda_2": "1/2", "lambda_3": "99/100", "mu_1": "1", "mu_2": "1"}


def cases(label: str, rates: dict) -> tuple[bool, bool]:
    """Cor 3.7 at one rate point, total cap 2: the conditional law (S3.7-cond), the constant
    pi^CT(empty) = pi^C(empty)/P{C in C_T} (S3.7-norm) and the printed recursion (S3.7-rec),
    each against the exact truncated chain. Returns (printed recursion holds, rest holds)."""
    model = symq.model("w").substitute(rates)
    queue = CollaborativeQueue(model, region=AcceptanceRegion(total_cap=2))
    truncated = ctmc.stationary_distribution(queue.truncated_chain(2), exact=True)
    full_empty = Fraction(str(symq.empty_probability(model)))
    inside_mass = sum(full_empty * Fraction(str(queue.product_form(c))) for c in truncated)
    cond = all(truncated[c] == full_empty * Fraction(str(queue.product_form(c))) / inside_mass
               for c in truncated)
    norm = truncated[()] == full_empty / inside_mass
    claim(f"S3.7-cond-{label}", cond, f"W, total cap 2, {len(truncated)} states")
    claim(f"S3.7-norm-{label}", norm, f"pi^CT(empty) = {truncated[()]} = {full_empty} / "
          f"{inside_mass}")
    worst = None
    for c in truncated:
        if not c:
            continue
        factor = Fraction(str(queue.product_form(c))) / Fraction(str(queue.product_form(c[:-1])))
        printed = factor * full_empty * Fraction(str(queue.product_form(c[:-1])))
        if printed != truncated[c] and worst is None:
            worst = (c, printed, truncated[c], factor * truncated[c[:-1]])
    if worst is None:
        claim(f"S3.7-rec-{label}", True)
        return True, cond and norm
    c, printed, true, corrected = worst
    claim(f"S3.7-rec-{label}", False, f"W, total cap 2, state {c}: corrected lambda/mu "
          f"pi^CT(prefix) = {corrected}",
          printed=f"lambda/mu pi^C(prefix) = {printed}", true=f"pi^CT{c} = {true}")
    return False, cond and norm and corrected == true


def main() -> str:
    model = symq.model("w").substitute(RATES)
    region = AcceptanceRegion(total_cap=2)
    queue = CollaborativeQueue(model, region=region)
    truncated = ctmc.stationary_distribution(queue.truncated_chain(2), exact=True)
    full_empty = Fraction(str(symq.empty_probability(model)))  # pi^C(empty), Prop 6.2
    state = ("1",)
    factor = Fraction(str(queue.product_form(state)))
    printed = factor * full_empty                 # lambda/mu * pi^C(empty)
    corrected = factor * truncated[()]            # lambda/mu * pi^{CT}(empty)
    print(rf"\pi^{{CT}}(1) = {truncated[state]},\quad "
          rf"\tfrac{{\lambda_1}}{{\mu_1}}\pi^C(\emptyset) = {printed},\quad "
          rf"\tfrac{{\lambda_1}}{{\mu_1}}\pi^{{CT}}(\emptyset) = {corrected}")
    printed_ok = printed == truncated[state]
    corrected_ok = corrected == truncated[state]
    for label, rates in (("generic", RATES), ("tied", TIED), ("heavy", HEAVY)):
        good_printed, good_corrected = cases(label, rates)
        corrected_ok &= good_corrected
        printed_ok |= good_printed
    symbolic = CollaborativeQueue(symq.model("w"),
                                  region=AcceptanceRegion(class_caps={"1": 1, "3": 2},
                                                          total_cap=3))
    report = verify(symbolic, max_jobs=4)
    print(f"% {report}".splitlines()[0])
    return finish(printed_ok and report.ok,
                  correction=("pi^CT(c_n) = lambda_{c_n}/mu(c_n) pi^CT(c_{n-1}) (pi^CT, not pi^C)"),
                  corrected=corrected_ok and report.ok)


if __name__ == "__main__":
    main()
