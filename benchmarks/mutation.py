"""Mutation run over symq's numeric cores and its parser (issue 26): apply a listed set of small
errors one at a time to a copy of the repository, run the test files that cover the mutated
module, and record whether a test failed (caught) or all passed (survived).

Run on demand, not in CI's default path (it takes 15-30 minutes on 2 cores)::

    python benchmarks/mutation.py                 # all mutations, against HEAD
    python benchmarks/mutation.py --only interval # the mutations whose id contains "interval"
    python benchmarks/mutation.py --worktree      # against the working tree (uncommitted edits)
    python benchmarks/mutation.py --check         # only check that every mutation still applies
    python benchmarks/mutation.py --only ID1,ID2 --merge   # rerun some, update the results

The working tree is never modified: HEAD (``git archive``) or the working tree's files
(``git ls-files``) are copied to a temporary directory, each mutation is written there, pytest
runs there with ``PYTHONPATH`` set to the copy, and the file is restored. Before the mutations,
each group's tests run once unmutated; tests failing already are deselected (and listed), so a
mutation counts as caught only by a test that passed without it.

The score counts the mutations of :data:`SCORED` (the modules issue 26 names); mutations marked
``equivalent`` (no observable change, with the reason) are listed and left out of the score.
Results go to ``benchmarks/mutation_results.txt`` and, as data for ``--merge``,
``benchmarks/mutation_results.json`` (``--output`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RT = "symq/engines/response_time/"
FO = "symq/engines/formulas/"
NORM = "symq/engines/normalization/"

#: test files per group (the tests that cover the group's modules)
TESTS = {  # the targeted tests first: with -x a caught mutation stops at its first failure
    "response_time": ["tests/test_mutation_targets.py", "tests/test_references_independent.py",
                      "tests/test_response_time.py"],
    "formulas": ["tests/test_mutation_targets.py", "tests/test_formulas.py"],
    "interval": ["tests/test_mutation_targets.py", "tests/test_certified.py",
                 "tests/test_interval_noncollaborative.py", "tests/test_interval_collaborative.py"],
    "expressions": ["tests/test_mutation_targets.py", "tests/test_bad_input.py",
                    "tests/test_hostile_input.py"],
    "limits": ["tests/test_mutation_targets.py", "tests/test_limits.py"],
    "presentation": ["tests/test_mutation_targets.py", "tests/test_plot.py", "tests/test_display.py"],
}

#: groups in the score (issue 26, item 1); "presentation" holds the issue's other examples
SCORED = ("response_time", "formulas", "interval", "expressions", "limits")


@dataclass
class Mutation:
    id: str
    group: str
    path: str
    find: str
    replace: str
    kind: str
    equivalent: str = ""   # why the mutation cannot change what any caller sees
    occurrence: int = 1    # which occurrence of ``find`` (1-based) when it is not unique


M = Mutation
MUTATIONS: list[Mutation] = [
    # ------------------------------------------------------------ response-time laws
    M("rt-second-moment-scaled", "response_time", RT + "law.py",
      "second = (2 * n2 - 2 * d2 - 2 * d1 * first) / d0",
      "second = (2 * n2 - 2 * d2 - 2 * d1 * first) / d0 * Fraction(1001, 1000)",
      "scaled constant"),
    M("rt-second-moment-dropped-term", "response_time", RT + "law.py",
      "second = (2 * n2 - 2 * d2 - 2 * d1 * first) / d0",
      "second = (2 * n2 - 2 * d1 * first) / d0", "dropped term"),
    M("rt-mean-sign", "response_time", RT + "law.py",
      "return -self._derivatives_at_zero()[0]", "return self._derivatives_at_zero()[0]",
      "flipped sign"),
    M("rt-variance-plus", "response_time", RT + "law.py",
      "return self.second_moment() - self.mean() ** 2",
      "return self.second_moment() - self.mean()", "dropped power"),
    M("rt-atom-degree", "response_time", RT + "law.py",
      "if self.numerator.degree() < self.denominator.degree():",
      "if self.numerator.degree() <= self.denominator.degree():", "<= for <"),
    M("rt-survival-first-term-dropped", "response_time", RT + "law.py",
      "        for q, j, p in self.terms:\n            if q.degree() == 1:\n"
      "                r = _rational(q.coeffs()[0])",
      "        for q, j, p in self.terms[1:]:\n            if q.degree() == 1:\n"
      "                r = _rational(q.coeffs()[0])", "dropped term"),
    M("rt-survival-ball-first-term-dropped", "response_time", RT + "law.py",
      "        for q, j, p in self.terms:\n            if q.degree() == 1:\n"
      "                r = flint.arb(q.coeffs()[0])",
      "        for q, j, p in self.terms[1:]:\n            if q.degree() == 1:\n"
      "                r = flint.arb(q.coeffs()[0])", "dropped term"),
    M("rt-survival-ball-factorial", "response_time", RT + "law.py",
      "inner += power / (math.factorial(i) * r ** (j - i))",
      "inner += power / (math.factorial(i + 1) * r ** (j - i))", "off by one"),
    M("rt-survival-at-zero", "response_time", RT + "law.py",
      "return round_fraction(1 - self.atom, digits)", "return round_fraction(1 + self.atom, digits)",
      "flipped sign"),
    M("rt-certified-one-digit-short", "response_time", RT + "law.py",
      "first, second = round_fraction(low, digits), round_fraction(high, digits)",
      "first, second = round_fraction(low, digits - 1), round_fraction(high, digits - 1)",
      "off by one"),
    M("rt-percentile-one-digit-short", "response_time", RT + "law.py",
      "return round_fraction(high, digits)", "return round_fraction(high, digits - 1)",
      "off by one"),
    M("rt-percentile-bisect-flipped", "response_time", RT + "law.py",
      "            if s > 0:\n                low = middle",
      "            if s < 0:\n                low = middle", "flipped comparison"),
    M("rt-percentile-atom", "response_time", RT + "law.py",
      "if self.atom >= 1 - target:", "if self.atom > 1 - target:", ">= for >"),
    M("rt-stability-check-removed", "response_time", RT + "laws.py",
      "        if not report.stable:\n", "        if False:\n", "removed guard"),
    M("rt-collab-theta-shift", "response_time", RT + "collaborative.py",
      "lam[job_class] = lam[job_class] - shift", "lam[job_class] = lam[job_class] + shift",
      "flipped sign"),
    M("rt-collab-need-test", "response_time", RT + "collaborative.py",
      "if with_theta and need & ~x == 0:", "if with_theta and need & x == 0:", "flipped condition"),
    M("rt-collab-waiting-denominator", "response_time", RT + "collaborative.py",
      "return total / sets.lift(sum(cover_weights(sets), sets.zero))",
      "return total / sets.lift(sum(cover_weights(sets)[1:], sets.zero))", "dropped term"),
    M("rt-nc-waiting-theta", "response_time", RT + "noncollaborative.py",
      "rate = sets.lift(sets.r(busy)) + (sets.theta if need & ~busy == 0 else 0)",
      "rate = sets.lift(sets.r(busy)) + (sets.theta if need & busy == 0 else 0)",
      "flipped condition"),
    M("rt-nc-phase1-required", "response_time", RT + "noncollaborative.py",
      "phase1[x] = total / (sets.mu_of(x) - sets.required(x & ~bit))",
      "phase1[x] = total / (sets.mu_of(x) - sets.required(x))", "off by one (set)"),
    M("rt-nc-service-rate", "response_time", RT + "noncollaborative.py",
      "total += (sets.lift(p) + joint_waiting_lst(sets, job_class, server)) * mu / (mu + sets.theta)",
      "total += (sets.lift(p) + joint_waiting_lst(sets, job_class, server)) * mu / (mu + 2 * sets.theta)",
      "scaled constant"),
    M("rt-nc-routing-skip", "response_time", RT + "noncollaborative.py",
      "            if p & need:\n                continue",
      "            if p & need and False:\n                continue", "removed guard"),
    M("rt-nc-immediate-start-all", "response_time", RT + "noncollaborative.py",
      "        if need & ~busy == 0:\n            continue\n        weight",
      "        if need & busy == 0:\n            continue\n        weight", "flipped condition"),
    M("rt-sets-required-any", "response_time", RT + "setfunctions.py",
      "for c in self.classes if self.need[c] & ~x == 0)", "for c in self.classes if self.need[c] & x)",
      "all->any"),
    M("rt-sets-max-servers", "response_time", RT + "setfunctions.py",
      "if len(model.servers) > MAX_SERVERS:", "if len(model.servers) >= MAX_SERVERS:",
      ">= for > (limit off by one)"),
    # ------------------------------------------------------------ structured formulas
    M("fo-latex-drops-Z", "formulas", FO + "__init__.py",
      'if d.kind == "inline" or d.name in skip', 'if d.kind == "inline" or d.kind == "Z" or d.name in skip',
      "removed rows"),
    M("fo-latex-skip-ignored", "formulas", FO + "__init__.py",
      'if d.kind == "inline" or d.name in skip', 'if d.kind == "inline"', "removed guard"),
    M("fo-latex-denominator-names-dropped", "formulas", FO + "render.py",
      "    parts += [names[n] for n in d.denom_names]\n", "", "dropped term"),
    M("fo-latex-denominator-parentheses", "formulas", FO + "render.py",
      'parts.append(rf"\\left({text}\\right)" if denom.is_Add and many else text)',
      "parts.append(text)", "removed parentheses",
      equivalent="no builder makes a definition whose rate denominator is a sum and that also has named denominator factors (every quantity and discipline of w, n, ring:3, ring:4, nested), and an integer factor is kept only before a labelled denominator: the parenthesised branch never runs"),
    M("fo-text-denominator-names-dropped", "formulas", FO + "render.py",
      "    den += list(d.denom_names)\n", "", "dropped term"),
    M("fo-coprime-true", "formulas", FO + "arith.py",
      "return ub.gcd(self._univariate(al)).degree() <= 0", "return True", "removed proof"),
    M("fo-coprime-degree-check", "formulas", FO + "arith.py",
      "ok = bl.total_degree() == b.total_degree()", "ok = True", "removed guard"),
    M("fo-build-rais-denominator", "formulas", FO + "build.py",
      "                         denom_names=(wt[b.full],), kind=\"G\"))",
      "                         kind=\"G\"))", "dropped factor"),
    M("fo-build-z-mu", "formulas", FO + "build.py",
      "pairs.append((b.mu[j], (z[q | (1 << j)],)))", "pairs.append((1, (z[q | (1 << j)],)))",
      "dropped factor"),
    M("fo-build-idle-order-mu", "formulas", FO + "build.py",
      "pairs.append((1 if tilde else b.mu[j], () if prev == 1 else (prev,)))",
      "pairs.append((1, () if prev == 1 else (prev,)))", "dropped factor"),
    M("fo-build-alis-extra", "formulas", FO + "build.py",
      "pairs.append((extra if queue_only is None else 1 + extra,",
      "pairs.append((extra if queue_only is None else extra,", "off by one"),
    M("fo-build-nested-rho", "formulas", FO + "build.py",
      "[Term(own)], denom=b.slack(s) + own, kind=\"rho\")))",
      "[Term(own)], denom=b.slack(s), kind=\"rho\")))", "dropped term"),
    M("fo-build-rais-sign", "formulas", FO + "build.py",
      "pairs.append((b.lam[k], () if d[x] == 1 else (d[x],)))",
      "pairs.append((-b.lam[k], () if d[x] == 1 else (d[x],)))", "flipped sign"),
    # ------------------------------------------------------------ interval kernels
    M("iv-overflow-guard-disabled", "interval", NORM + "interval_collaborative.py",
      "if (high >= limit).any():", "if False:", "removed guard"),
    M("iv-overflow-guard-strict", "interval", NORM + "interval_collaborative.py",
      "if (high >= limit).any():", "if (high > limit).any():", ">= for >",
      equivalent="a value exactly 2**K // grow needs a sum exactly at the packing bound; the bound "
                 "has a factor (degree + 1) of slack, so one more unit never carries"),
    M("iv-stability-boundary", "interval", NORM + "interval_collaborative.py",
      "bad = [i for i in range(1, len(xs)) if self.r_int[i] <= 0]",
      "bad = [i for i in range(1, len(xs)) if self.r_int[i] < 0]", "<= to <"),
    M("iv-divide-down-up", "interval", NORM + "interval_collaborative.py",
      "return -((-acc) // r) if up else acc // r", "return -((-acc) // r) if not up else acc // r",
      "flipped condition"),
    M("iv-paired-ceil-floor", "interval", NORM + "interval_collaborative.py",
      "low, high = (acc & mask) // rr, -((-(acc >> k_bits)) // rr)",
      "low, high = (acc & mask) // rr, (acc >> k_bits) // rr", "floor for ceil"),
    M("iv-nc-divide", "interval", NORM + "interval_noncollaborative.py",
      "return -((-num) // den) if up else num // den", "return num // den", "floor for ceil"),
    M("iv-nc-shift", "interval", NORM + "interval_noncollaborative.py",
      "return -((-values) >> -shift) if up else values >> -shift", "return values >> -shift",
      "floor for ceil",
      equivalent="every call of _shift has a nonnegative shift (exponents are aligned to their minimum), so the rounding of a right shift never runs"),
    M("iv-nc-empty-swap", "interval", NORM + "interval_noncollaborative.py",
      '"empty": Interval(w_lo / g_hi, w_hi / g_lo)', '"empty": Interval(w_lo / g_lo, w_hi / g_hi)',
      "swapped bounds"),
    M("iv-nc-rais-g", "interval", NORM + "interval_noncollaborative.py",
      '"G_rais": Interval(g_lo / w_hi, g_hi / w_lo)', '"G_rais": Interval(g_lo / w_lo, g_hi / w_lo)',
      "swapped bound"),
    M("iv-nc-served-guard", "interval", NORM + "interval_noncollaborative.py",
      "if graph.size and int(arrivals[1:].min()) <= 0:",
      "if graph.size and int(arrivals[1:].min()) < 0:", "<= to <",
      equivalent="Model refuses a server that serves no class and rates are positive, so the arrival table is positive on every nonempty set: the guard is defensive"),
    M("iv-nc-zeta-width", "interval", NORM + "interval_noncollaborative.py",
      "width = max(int(high.max()), int(low.max())).bit_length() + size + 1",
      "width = max(int(high.max()), int(low.max())).bit_length()", "dropped term (carry room)"),
    M("iv-nc-mean-counts", "interval", NORM + "interval_noncollaborative.py",
      "counts = np.zeros(len(mine), dtype=np.int64) + 1",
      "counts = np.zeros(len(mine), dtype=np.int64)", "off by one"),
    M("iv-nc-max-servers", "interval", NORM + "interval_noncollaborative.py",
      "if graph.size > MAX_SERVERS:", "if graph.size >= MAX_SERVERS:", ">= for >",
      equivalent="MAX_SERVERS = 26: a test at the limit needs 2^26-entry tables (minutes, GiB); "
                 "the limit itself is checked on a 27-server component"),
    M("iv-contains-strict", "interval", "symq/arithmetic/interval.py",
      "return self.lower <= Fraction(value) <= self.upper",
      "return self.lower < Fraction(value) < self.upper", "<= to <"),
    M("iv-certify-zero", "interval", "symq/arithmetic/interval.py",
      "if lower <= 0 <= upper and lower != upper:", "if lower < 0 < upper and lower != upper:",
      "<= to <",
      equivalent="with one end exactly 0 and the other not, that end rounds to 0 and the other "
                 "to a nonzero decimal, so the two texts differ and None is returned anyway"),
    M("iv-certify-upper", "interval", "symq/arithmetic/interval.py",
      "return low_text if low_text == round_fraction(upper, digits) else None",
      "return low_text", "removed check"),
    M("iv-division-swapped", "interval", "symq/arithmetic/interval.py",
      "return Interval(self.lower / other.upper, self.upper / other.lower)",
      "return Interval(self.lower / other.lower, self.upper / other.lower)", "swapped bound"),
    M("iv-merge-product", "interval", "symq/arithmetic/interval.py",
      'out["empty"] = out["empty"] * res["empty"]', 'out["empty"] = res["empty"]',
      "dropped factor"),
    # ------------------------------------------------------------ the parser
    M("ex-depth-limit", "expressions", "symq/arithmetic/expressions.py",
      "MAX_DEPTH = 100", "MAX_DEPTH = 101", "limit off by one"),
    M("ex-digits-limit", "expressions", "symq/arithmetic/expressions.py",
      "MAX_DIGITS = 4000", "MAX_DIGITS = 4001", "limit off by one"),
    M("ex-power-limit", "expressions", "symq/arithmetic/expressions.py",
      "MAX_POWER = 1000", "MAX_POWER = 1001", "limit off by one"),
    M("ex-depth-compare", "expressions", "symq/arithmetic/expressions.py",
      "if self.depth > MAX_DEPTH:", "if self.depth >= MAX_DEPTH:", ">= for >"),
    M("ex-digits-compare", "expressions", "symq/arithmetic/expressions.py",
      "if len(digits) > MAX_DIGITS:", "if len(digits) >= MAX_DIGITS:", ">= for >"),
    M("ex-power-compare", "expressions", "symq/arithmetic/expressions.py",
      "if len(token.text) > 5 or int(token.text) > MAX_POWER:",
      "if len(token.text) > 5 or int(token.text) >= MAX_POWER:", ">= for >"),
    M("ex-sqrt-negative", "expressions", "symq/arithmetic/expressions.py",
      "    if argument.is_negative:\n", "    if False:\n", "removed guard"),
    M("ex-sqrt-digits", "expressions", "symq/arithmetic/expressions.py",
      "if any(max(_digits(r.p), _digits(r.q)) > MAX_SQRT_DIGITS for r in numbers):",
      "if all(max(_digits(r.p), _digits(r.q)) > MAX_SQRT_DIGITS for r in numbers):", "any->all"),
    M("ex-digits-helper", "expressions", "symq/arithmetic/expressions.py",
      "return guess + 1 if value >= 10 ** guess else guess",
      "return guess + 1 if value > 10 ** guess else guess", ">= to >"),
    M("ex-power-of-zero", "expressions", "symq/arithmetic/expressions.py",
      "if base == 0 and exponent < 0:", "if base == 0 and exponent < -1:", "off by one"),
    M("ex-power-digits", "expressions", "symq/arithmetic/expressions.py",
      "if largest > 1 and largest * abs(exponent) > MAX_DIGITS:",
      "if largest > 1 and largest * exponent > MAX_DIGITS:", "removed abs"),
    M("ex-exponent-digits", "expressions", "symq/arithmetic/expressions.py",
      "if len(exponent.lstrip(\"0\")) > len(str(MAX_DIGITS)) or int(exponent) > MAX_DIGITS:",
      "if len(exponent.lstrip(\"0\")) > len(str(MAX_DIGITS)) or int(exponent) > MAX_DIGITS + 1:",
      "limit off by one"),
    M("ex-rational-zero", "expressions", "symq/arithmetic/expressions.py",
      "    if denominator == 0:\n", "    if False:\n", "removed guard"),
    M("ex-underscore-name", "expressions", "symq/arithmetic/expressions.py",
      'if name.startswith("_") or "__" in name:', 'if name.startswith("_"):', "removed check"),
    # ------------------------------------------------------------ limits and estimates
    M("li-check-strict", "limits", "symq/limits.py",
      "if limit is None or estimate <= limit:", "if limit is None or estimate < limit:",
      "<= to <"),
    M("li-no-limits-ignored", "limits", "symq/limits.py",
      'if args is not None and getattr(args, "no_limits", False):', "if False:", "removed guard"),
    M("li-max-work-ignored", "limits", "symq/limits.py",
      "return int(given) if given is not None else LIMITS[name].default",
      "return LIMITS[name].default", "removed option"),
    M("li-states-default", "limits", "symq/limits.py",
      'Limit("states", 50_000,', 'Limit("states", 50_001,', "limit off by one"),
    M("li-dp-default", "limits", "symq/limits.py",
      'Limit("dp-steps", 300_000,', 'Limit("dp-steps", 300_001,', "limit off by one"),
    M("li-number-text", "limits", "symq/limits.py",
      'return f"{value:,}" if value < 10**7 else f"{value:.1e}"', 'return f"{value:.1e}"',
      "removed branch"),
    M("es-union-bound-any", "limits", "symq/queries/estimates.py",
      "if all(m & new_once for m in (*family, mask)):",
      "if any(m & new_once for m in (*family, mask)):", "all->any"),
    M("es-union-cap-strict", "limits", "symq/queries/estimates.py",
      "if cap is not None and len(reach) > cap:", "if cap is not None and len(reach) >= cap:",
      ">= for >"),
    M("es-union-bound-strict", "limits", "symq/queries/estimates.py",
      "if cap is not None and 1 << _independent_family(masks) > cap:",
      "if cap is not None and 1 << _independent_family(masks) >= cap:", ">= for >"),
    M("es-nc-sets", "limits", "symq/queries/estimates.py",
      "steps += (1 << servers) * width", "steps += servers * width", "dropped power"),
    M("es-width", "limits", "symq/queries/estimates.py",
      "width = classes + servers\n", "width = classes\n", "dropped term"),
    M("es-structured-square", "limits", "symq/queries/estimates.py",
      "        return width * width\n", "        return width\n", "dropped factor"),
    # ------------------------------------------------------------ other examples of issue 26
    M("pr-survival-picture-cdf", "presentation", "symq/presentation/pictures/response_time.py",
      "values.append(float(law.survival_ball(t).mid()))",
      "values.append(1 - float(law.survival_ball(t).mid()))", "CDF for survival"),
    M("pr-progress-ignores-quiet", "presentation", "symq/progress.py",
      "draw = (not quiet) and (enabled_on(stream) if enabled is None else enabled)",
      "draw = (enabled_on(stream) if enabled is None else enabled)", "removed guard"),
    M("pr-progress-enabled-quiet", "presentation", "symq/progress.py",
      "    if quiet:\n        return False\n", "", "removed guard"),
    M("pr-expanded-latex-labels", "presentation", "symq/presentation/formula_output.py",
      "tex = latex_rows([(names[name] if label else \"\", t)\n"
      "                          for (label, name), t in zip(labelled, _flat(lates))])",
      "tex = latex_rows([(names[labelled[min(k, 1)][1]] if label else \"\", t)\n"
      "                          for k, ((label, name), t) in enumerate(zip(labelled, _flat(lates)[:-1]))])",
      "wrong label, lost row"),
]


def copy_tree(dest: Path, worktree: bool) -> None:
    """HEAD (``git archive``) or the working tree's tracked and unignored files into ``dest``."""
    if not worktree:
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


#: a pytest plugin written into the copy: a test running longer than this many seconds fails
#: (a mutation that makes a test hang is caught; a test hanging unmutated is deselected)
PER_TEST_SECONDS = 120
PLUGIN = """
import os
import signal
import threading

import pytest

class MutationTimeout(Exception):
    pass

def _alarm(signum, frame):
    raise MutationTimeout("test ran past %(limit)d s")

def _stuck(nodeid):
    # a test stuck in C code ignores the alarm: name it and end the run
    with open(os.path.join(os.path.dirname(__file__), "_mutation_hung.txt"), "w") as out:
        out.write(nodeid)
    os._exit(3)

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(%(limit)d)
    watchdog = threading.Timer(%(limit)d + 30, _stuck, (item.nodeid,))
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
"""


def pytest(tree: Path, tests: list[str], deselect: list[str], timeout: int, first: bool = True
           ) -> tuple[str, list[str], float]:
    """Run ``tests`` in ``tree``: ``("pass" | "fail" | "timeout", failing ids, seconds)``;
    ``first``: stop at the first failure."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    present = [t for t in tests if (tree / t).exists()]
    plugin = tree / "_mutation_timeout.py"
    if not plugin.exists():
        plugin.write_text(PLUGIN % {"limit": PER_TEST_SECONDS})
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "_mutation_timeout",
               "-q", *(["-x"] if first else []), "-o", "addopts=-ra --strict-markers", *present]
    for node in deselect:
        command += ["--deselect", node]
    start = time.monotonic()
    try:
        run = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", [], time.monotonic() - start
    failing = [line.split()[1] for line in run.stdout.splitlines()
               if line.startswith(("FAILED ", "ERROR "))]
    hung = tree / "_mutation_hung.txt"
    if hung.exists():
        failing.append(hung.read_text().strip())
        hung.unlink()
    status = "pass" if run.returncode in (0, 5) else "fail"
    return status, failing, time.monotonic() - start


def baseline_failures(tree: Path, tests: list[str], timeout: int) -> list[str]:
    """The test ids that fail without any mutation (run until none is left)."""
    failing: list[str] = []
    for _ in range(5):
        status, new, _ = pytest(tree, tests, failing, timeout, first=False)
        if status != "fail" or not new:
            return failing
        failing += [n.split(" - ")[0] for n in new]
    return failing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run the mutations whose id contains one of these "
                        "comma-separated texts (or whose group is one of them)")
    parser.add_argument("--merge", action="store_true",
                        help="with --only: update those verdicts in the recorded results")
    parser.add_argument("--worktree", action="store_true",
                        help="mutate a copy of the working tree instead of HEAD")
    parser.add_argument("--check", action="store_true",
                        help="only check that every mutation applies (no tests run)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per test run")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "mutation_results.txt"))
    args = parser.parse_args(argv)
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the temporary copy is removed
    wanted = args.only.split(",") if args.only else []
    chosen = [m for m in MUTATIONS if not wanted or any(w in m.id or w == m.group for w in wanted)]
    ids = [m.id for m in MUTATIONS]
    assert len(ids) == len(set(ids)), "duplicate mutation ids"

    with tempfile.TemporaryDirectory(prefix="symq-mutation-") as tmp:
        tree = Path(tmp)
        copy_tree(tree, args.worktree)
        stale = []
        for m in chosen:
            text = (tree / m.path).read_text() if (tree / m.path).exists() else ""
            if text.count(m.find) < m.occurrence:
                stale.append(m)
        for m in stale:
            print(f"does not apply (the code changed): {m.id} in {m.path}", file=sys.stderr)
        if args.check:
            print(f"{len(chosen) - len(stale)} of {len(chosen)} mutations apply")
            return 1 if stale else 0
        chosen = [m for m in chosen if m not in stale]
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True).stdout.strip()
        broken: dict[str, list[str]] = {}
        for group in sorted({m.group for m in chosen}):
            broken[group] = baseline_failures(tree, TESTS[group], args.timeout)
            print(f"baseline {group}: {len(broken[group])} failing test(s) deselected",
                  file=sys.stderr, flush=True)
        rows = []
        for m in chosen:
            path = tree / m.path
            original = path.read_text()
            parts = original.split(m.find)
            k = m.occurrence
            path.write_text(m.find.join(parts[:k]) + m.replace + m.find.join(parts[k:]))
            try:
                status, failing, seconds = pytest(tree, TESTS[m.group], broken[m.group],
                                                  args.timeout)
            finally:
                path.write_text(original)
            verdict = "survived" if status == "pass" else "caught"
            by = failing[0].split(" - ")[0] if failing else ("timeout" if status == "timeout"
                                                            else "")
            rows.append((m, verdict, by, seconds))
            print(f"{verdict:8} {m.id:42} {seconds:6.1f}s {by}", file=sys.stderr, flush=True)

    stamp = f"{head}{' + working tree' if args.worktree else ''} {time.strftime('%Y-%m-%d')}"
    record = {m.id: {"verdict": v, "by": by, "seconds": round(sec, 1), "run": stamp}
              for m, v, by, sec in rows}
    baseline = {g: {"run": stamp, "failing": f} for g, f in broken.items()}
    json_path = Path(args.output).with_suffix(".json")
    if args.merge and json_path.exists():
        old = json.loads(json_path.read_text())
        record = {**old["mutations"], **record}
        baseline = {**old["baseline"], **baseline}
    text = report(record, baseline)
    if not args.only or args.merge:
        Path(args.output).write_text(text)
        json_path.write_text(json.dumps({"mutations": record, "baseline": baseline}, indent=1))
    print(text)
    return 0


def report(record: dict, baseline: dict) -> str:
    """The text of ``mutation_results.txt`` from the recorded verdicts."""
    by_id = {m.id: m for m in MUTATIONS}
    runs = sorted({r["run"] for r in record.values()})
    lines = [f"# symq mutation run (benchmarks/mutation.py); runs: {'; '.join(runs)}",
             "# verdict  group  id  kind  (first failing test)  [equivalent: reason]"]
    rows = [(by_id[i], r["verdict"], r["by"]) for i, r in record.items() if i in by_id]
    rows.sort(key=lambda row: MUTATIONS.index(row[0]))
    for m, verdict, by in rows:
        extra = f"  [equivalent: {m.equivalent}]" if m.equivalent and verdict == "survived" else ""
        lines.append(f"{verdict:8} {m.group:13} {m.id:40} {m.kind:26} {by}{extra}")
    for group, entry in sorted(baseline.items()):
        for node in entry["failing"]:
            lines.append(f"# failing before any mutation, deselected ({group}, {entry['run']}): "
                         f"{node}")
    scored = [(m, v) for m, v, _ in rows if m.group in SCORED]
    non_equivalent = [(m, v) for m, v in scored if not (m.equivalent and v == "survived")]
    caught = sum(1 for _, v in non_equivalent if v == "caught")
    lines.append("")
    for group in (*SCORED, "presentation"):
        mine = [(m, v) for m, v, _ in rows if m.group == group and not (m.equivalent and
                                                                         v == "survived")]
        if mine:
            lines.append(f"{group:13} caught {sum(v == 'caught' for _, v in mine)} of {len(mine)}")
    if non_equivalent:
        lines.append(f"score (issue 26 modules): {caught} of {len(non_equivalent)} non-equivalent "
                     f"mutations caught = {100 * caught / len(non_equivalent):.1f} %")
    survivors = [m for m, v, _ in rows if v == "survived"]
    lines.append("survivors: " + (", ".join(
        f"{m.id}{' (equivalent)' if m.equivalent else ''}" for m in survivors) or "none"))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
