"""Size limits (symq.limits): every input that used to hang or crash ends quickly with exit status
2 and one line saying what is too large and how to go ahead, or finishes correctly."""

import pathlib
import random
import time
from fractions import Fraction

import pytest
import sympy

from symq.cli import main
from symq.models.model import Model
from symq.limits import LIMITS
from symq.queries.estimates import count_unions, estimate_states, subset_dp_steps, sweep_work
from symq.arithmetic.numeric import decimal_string, digit_count, exact_string, full_int_strings


def _random_toml(servers: int, classes: int, seed: int) -> str:
    rng = random.Random(seed)
    cover = list(range(1, servers + 1))
    rng.shuffle(cover)
    compatibility, arrival = {}, {}
    for i in range(1, classes + 1):
        chosen = set(rng.sample(range(1, servers + 1), 3))
        if cover:
            chosen.add(cover.pop())
        compatibility[f"c{i}"] = [str(s) for s in sorted(chosen)]
        arrival[f"c{i}"] = Fraction(rng.randint(1, 9), rng.randint(500, 999))
    service = {str(j): Fraction(rng.randint(1, 97), rng.randint(1, 97))
               for j in range(1, servers + 1)}
    return Model(compatibility=compatibility, arrival_rates=arrival, service_rates=service,
                 name="random").to_toml()


@pytest.fixture(scope="module")
def big_model(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("limits") / "m40.toml"
    path.write_text(_random_toml(40, 40, 1), encoding="utf-8")
    return str(path)


def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# (argv, exit status, fragment of the one-line message on stderr)
REFUSED = [
    (["evaluate", "{big}", "empty-probability"], "certified DP steps (route subset-dp"),
    (["evaluate", "{big}", "empty-probability", "--exact"],
     "needs more than 300,000 subset-DP steps"),
    (["evaluate", "{big}", "mean-number", "--discipline", "alis"], "certified DP steps"),
    (["derive", "{big}", "mean-number"], "subset-DP steps"),
    (["verify", "w", "--max-jobs", "50"], "states with at most N+1 jobs"),
    (["report", "w", "--verify-jobs", "40"], "states with at most N+1 jobs"),
    (["show", "redundancy:200:100"], "9.1e+58 classes"),
    (["compensation", "jsq", "--rho", "9/10", "--digits", "100000"], "100,000 digits"),
    (["compensation", "jsq", "--rho", "9/10", "--box", "100000"], "1.0e+10 box states"),
    (["sweep", "balance", "--classes", "7", "--servers", "7"], "graph-enumeration steps"),
    (["report", "w", "--digits", "0"], "--digits must be from 1 to 10000"),
    (["report", "w", "--verify-jobs", "-1"], "--verify-jobs must be 0 or more"),
    (["evaluate", "w", "empty-probability", "--digits", "10001"], "from 1 to 10000"),
    (["report", "w", "--output", "/nonexistent-symq-folder/x.tex"], "does not exist"),
    (["report", "w", "--output", "/proc/x.tex"], "cannot write"),
    (["sweep", "nested", "--classes", "2", "--servers", "2", "--workers", "0",
      "--output", "/proc/x.jsonl"], "cannot write"),
    (["compensation", "sed", "--s", "3", "--q", "2/5", "--rho", "9/10", "--plot-dir",
      "/proc/pictures"], "--plot-dir /proc/pictures: cannot write"),
]


@pytest.mark.parametrize("argv,fragment", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_refused_quickly_with_one_line(capsys, big_model, argv, fragment):
    argv = [a.replace("{big}", big_model) for a in argv]
    start = time.process_time()
    code, out, err = _run(capsys, argv)
    assert code == 2, (out, err)
    assert fragment in err
    assert err.count("\n") == 1 and err.startswith("symq: error: ")
    if "too large" in err:
        assert "--no-limits" in err or "--max-work" in err or "smaller K" in err
    assert time.process_time() - start < 10


# The time bounds below are CPU seconds of this process (time.process_time), not wall-clock: a
# busy machine (other jobs, pytest-xdist workers) stretches the wall clock, not the work done. The
# refused computations would take hours; the refusals take about 0.6 s and 0.03 s of CPU here.
def test_a_resource_limit_trips_within_seconds(capsys, big_model):
    start = time.process_time()
    code, _, err = _run(capsys, ["evaluate", big_model, "empty-probability"])
    assert code == 2 and "too large" in err
    assert time.process_time() - start < 5
    start = time.process_time()
    code, _, err = _run(capsys, ["verify", "w", "--max-jobs", "50"])
    assert code == 2 and "too large" in err
    assert time.process_time() - start < 5


# not nested, not a ring: unions {}, {1,2}, {2,3}, {1,2,3}; 3 classes + 3 servers: 24 steps
CROSS = Model(compatibility={"a": ["1", "2"], "b": ["2", "3"], "c": ["1", "2", "3"]},
              arrival_rates={c: Fraction(1, 4) for c in "abc"},
              service_rates={s: 1 for s in "123"}).to_toml()


def test_the_estimator_counts(capsys, tmp_path):
    """A limit equal to the estimate runs, one less is refused (so the estimate is neither skipped
    nor a constant)."""
    path = tmp_path / "cross.toml"
    path.write_text(CROSS, encoding="utf-8")
    from symq.models.catalog import load
    assert subset_dp_steps(load(path), "collaborative") == 24
    code, out, _ = _run(capsys, ["evaluate", str(path), "empty-probability", "--max-work", "24"])
    assert code == 0 and out.strip()
    code, _, err = _run(capsys, ["evaluate", str(path), "empty-probability", "--max-work", "23"])
    assert code == 2 and "needs about 24 subset-DP steps (limit 23)" in err
    # verify w --max-jobs 2 enumerates 1 + 3 + 9 + 27 = 40 class sequences
    assert _run(capsys, ["verify", "w", "--max-jobs", "2", "--max-work", "40"])[0] == 0
    code, _, err = _run(capsys, ["verify", "w", "--max-jobs", "2", "--max-work", "39"])
    assert code == 2 and "40 states" in err


def test_estimates_against_direct_counts():
    from symq.engines.balance import build_process
    masks = [0b011, 0b110, 0b101]
    assert count_unions(masks) == 5
    assert count_unions(masks, cap=4) is None
    process = build_process(__import__("symq").model("w"))
    exact = len(process.states(7))
    estimate, is_exact = estimate_states(process, 6, sample=50)  # extrapolated past 50 states
    assert not is_exact and estimate == exact == sum(3 ** n for n in range(8))
    # candidates of combinations_with_replacement(range(1, 2^m), j) times m! relabellings
    assert sweep_work(2, 2) == 1 * 1 + 3 * 2 + 1 * 1 + 6 * 2


def test_exact_values_of_any_size_print():
    huge = sympy.Rational(10 ** 5000 + 1, 3)
    assert digit_count(huge.p) == 5001
    assert exact_string(huge).startswith("exact rational with 5001/1 digits")
    full = exact_string(huge, full=True)
    assert len(full) == 5003 and full.endswith("01/3")
    text = decimal_string(huge, 30)  # an int-to-str traceback before
    assert text == "3." + "3" * 29 + "e4999"
    value = decimal_string(sympy.Rational(1, 7), 5000)
    assert len(value) == 5002 and value.startswith("0.142857142857")
    with full_int_strings():
        assert abs(Fraction(value) - Fraction(1, 7)) < Fraction(1, 10 ** 5000)


def test_evaluate_prints_5000_digits(capsys):
    code, out, _ = _run(capsys, ["evaluate", "w", "empty-probability", "--set", "lambda_1=1",
                                 "--set", "lambda_2=1", "--set", "lambda_3=1", "--set", "mu_1=2",
                                 "--set", "mu_2=3", "--digits", "5000"])
    assert code == 0
    exact, value = out.strip().split(" = ")
    assert len(value.replace("0.", "", 1)) == 5000
    with full_int_strings():
        assert abs(Fraction(value) - Fraction(exact)) < Fraction(1, 10 ** 4999)


def test_report_pdf_with_and_without_pdflatex(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code, _, err = _run(capsys, ["report", "n", "--verify-jobs", "0",
                                 "--output", str(tmp_path / "n.pdf")])
    assert code == 2 and "needs pdflatex" in err and not (tmp_path / "n.pdf").exists()
    fake = tmp_path / "bin" / "pdflatex"  # writes report.pdf in its working folder
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\ncase \"$*\" in *-halt-on-error*) ;; *) exit 3;; esac\n"
                    "[ -s report.tex ] && printf '%%PDF-1.5' > report.pdf\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    code, out, _ = _run(capsys, ["report", "n", "--verify-jobs", "0",
                                 "--output", str(tmp_path / "n.pdf")])
    assert code == 0 and "wrote" in out
    assert (tmp_path / "n.pdf").read_bytes().startswith(b"%PDF")


def test_every_limit_is_documented():
    page = (pathlib.Path(__file__).parent.parent / "docs" / "security.md").read_text()
    for limit in LIMITS.values():
        assert f"`{limit.name}`" in page, limit.name


def _imported_modules(path: pathlib.Path) -> set[str]:
    """The modules a file's import statements name (relative ones with their dots); docstring
    examples are not imports of the module."""
    import ast
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_no_command_module_imports_the_cli():
    folder = pathlib.Path(__file__).parent.parent / "symq" / "commands"
    for path in folder.glob("*.py"):
        assert not _imported_modules(path) & {"..cli", "symq.cli"}, path.name


def test_the_import_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""\n>>> from symq.cli import main\n"""\nfrom ..cli import main\n')
    assert _imported_modules(bad) == {"..cli"}


def test_certified_digits_have_the_larger_limit_of_the_fixed_point_kernels():
    # a 20-server graph: exact rationals refused by default (about 4 s here, more on a slower
    # machine), certified digits (the kernels, under a second) go ahead; the CLI picks the limit
    from routes import random_stable_model
    from symq.errors import TooLargeError
    from symq.queries.estimates import check_subset_dp
    from symq.queries.plan import arithmetic_for
    model = random_stable_model(20, 1)
    assert arithmetic_for(model, "mean-number", "collaborative", None) in ("interval", "ball")
    steps = check_subset_dp(model, "collaborative", "evaluate m20", certified=True)
    assert steps > LIMITS["dp-steps"].default
    with pytest.raises(TooLargeError, match="subset-DP steps"):
        check_subset_dp(model, "collaborative", "evaluate m20 --exact")


def test_certified_gradients_are_refused_by_their_steps_and_their_tape(capsys, tmp_path):
    """The reverse-mode route counts the DP's steps once plus once per output swept, and the
    memory of the recorded tape: a random 20-server ALIS graph is refused by steps
    (8.5e+07 > 5e+07); with the steps allowed and the memory limit set below the tape's
    estimate (3,068 MiB), by the tape's memory; the estimates are the counts, exactly."""
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from routes import random_stable_model
    from symq.queries.estimates import tape_memory
    model = random_stable_model(20, 1)
    path = tmp_path / "r20.toml"
    path.write_text(model.to_toml(), encoding="utf-8")
    steps = subset_dp_steps(model, "alis")
    argv = ["evaluate", str(path), "mean-response-time", "--discipline", "alis", "--gradient",
            "--of", "total"]
    start = time.process_time()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"pass --max-work {2 * steps} to go ahead" in err, err
    import symq.queries.estimates as estimates
    need = tape_memory(model, "alis", 30)
    saved = estimates.memory_limit
    estimates.memory_limit = lambda args=None: need - 1
    try:
        assert main([*argv, "--max-work", str(2 * steps)]) == 2
    finally:
        estimates.memory_limit = saved
    err = capsys.readouterr().err
    assert f"about {need:,} MiB of memory" in err and f"(limit {need - 1:,} MiB" in err, err
    assert time.process_time() - start < 10


def test_the_canonical_rais_routing_is_counted_before_it_is_built(capsys):
    """verify --discipline rais builds the canonical routing with the process: ring:5 (its
    rational functions over 16 distinct arrival rates; over 5 minutes) is refused up front with
    the estimate, ring:4 and the cheap symmetric models run; the estimate is the formula."""
    from symq import model
    from symq.queries.estimates import routing_steps
    assert routing_steps(model("ring:5")) == 3 ** 5 * 5 * 16 ** 3 // 6
    assert routing_steps(model("ring:4")) == 3 ** 4 * 4 * 9 ** 3 // 6
    assert routing_steps(model("uninformed:7")) == 3 ** 7 // 6  # one class on every server
    start = time.process_time()
    assert main(["verify", "ring:5", "--discipline", "rais", "--max-jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "needs about 829,440 routing steps (limit 100,000); pass --max-work 829440" in err
    assert time.process_time() - start < 5
    assert main(["verify", "redundancy:5:2", "--discipline", "rais", "--max-jobs", "1"]) == 0
    assert main(["verify", "ring:5", "--discipline", "rais", "--max-jobs", "1", "--routing",
                 "uniform", "--quiet"]) in (0, 1)  # no canonical routing to build
