"""Issue 25: every input of the second hostile sweep ends quickly with exit status 0 or 2 and one
line naming what is too large and the option that raises the limit, or finishes correctly. The
bound is on CPU time of this process (``time.process_time``), not the wall clock, so a loaded
machine does not fail the test; a hypothesis test draws small graphs, quantities, disciplines
and options and asserts exit 0 or 2 and no traceback."""

import os
import sys
import time
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from routes import random_stable_model  # noqa: E402

from symq.cli import main  # noqa: E402
from symq.models.model import Model  # noqa: E402
from symq.models.rates import positive_symbol  # noqa: E402


def _symbolic(model, name):
    return Model(compatibility={c: list(v) for c, v in model.compatibility.items()},
                 arrival_rates={c: positive_symbol(f"lambda_{c}") for c in model.classes},
                 service_rates={s: positive_symbol(f"mu_{s}") for s in model.servers}, name=name)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("extreme")
    g12 = random_stable_model(12, 1, classes=16, arrival_denominator=1000)
    g24 = random_stable_model(24, 2, classes=36)
    g6s = _symbolic(random_stable_model(6, 1, classes=8), "g6s")
    many = Model(compatibility={f"c{i}": ["1"] for i in range(3000)},
                 arrival_rates={f"c{i}": Fraction(1, 10000) for i in range(3000)},
                 service_rates={"1": 1}, name="many")
    paths = {"g12": g12.to_toml(), "g24": g24.to_toml(), "g24s": _symbolic(g24, "g24s").to_toml(),
             "many": many.to_toml(), "g6s": g6s.to_toml(),
             "bigint": '[classes.1]\narrival_rate = "1/2"\nservers = ["a"]\n[servers.a]\n'
                       "service_rate = " + "9" * 5000 + "\n"}
    out = {}
    for name, text in paths.items():
        (folder / f"{name}.toml").write_text(text, encoding="utf-8")
        out[name] = str(folder / f"{name}.toml")
    os.mkfifo(folder / "fifo")
    out["fifo"] = str(folder / "fifo")
    return out


_W = "--set lambda_1=1/2 --set lambda_2=1/4 --set lambda_3=1/2 --set mu_1=1 --set mu_2=2"

# (argv, exit status, fragment of the message (stderr) or of the output, CPU seconds)
CASES = [
    ("derive ring:18 mean-number", 2, "--max-work", 5),
    ("derive ring:30 empty-probability", 2, "formula steps", 5),
    ("derive redundancy:16:8 mean-number", 2, "--max-work", 8),
    ("derive uninformed:30 mean-number --discipline rais", 2, "--max-work", 5),
    ("derive uninformed:30 mean-number --discipline alis", 2, "--max-work", 5),
    ("derive {g24s} empty-probability", 2, "--max-work", 5),
    ("derive {g24s} empty-probability --discipline alis", 2, "--max-work", 5),
    ("evaluate {g12} response-time --discipline alis", 2, "--max-work", 5),
    ("evaluate {g12} waiting-time --discipline rais", 2, "--max-work", 5),
    ("verify ring:8 --discipline rais --max-jobs 2", 2, "--max-work", 5),
    ("verify {g12} --discipline alis --max-jobs 1", 2, "--max-work", 5),
    ("verify w --max-jobs 1000", 2, "--max-jobs", 5),
    ("compensation sed --s 1000 --q 1/2 --rho 1/2", 2, "--no-limits", 5),
    ("compensation jsq --rho 1e-3999", 2, "1e-12 <= rho", 5),
    ("compensation jsq --rho 1-1e-3999", 2, "rho <= 1 - 1e-30", 5),
    ("compensation sed --s 1e3999 --rho 1/2", 2, "1 <= s <= 1000", 5),
    ("compensation jsq --rho 9/10 --state 10000000000,1", 2, "Q1, Q2 <= 1,000,000", 5),
    ("sweep stability --classes 2 --servers 2 --workers 100000", 2, "--workers", 5),
    ("sweep balance --classes 7 --servers 4 --workers 0", 2, "--max-work", 5),
    ("show {many}", 0, "3000 classes, 1 servers", 8),
    ("show {fifo}", 2, "not a regular file", 5),
    ("show /dev/zero", 2, "not a regular file", 5),
    ("show {bigint}", 2, "at most 4,000 digits", 5),
    ("evaluate {g24} mean-number --digits 10000", 2, "--no-limits", 8),
    ("plot sed heatmap --s 100000 --rho 9/10", 2, "1 <= s <= 1000", 5),
    ("show redundancy:16:8 --set lambda=1 --set mu=1", 0, "12870 classes", 8),
    # round 2 (the survival at huge times, reports, graph drawings, the supermarket max-flows)
    (f"evaluate w response-time-survival --time 1e9 {_W}", 0, "= 1.21718797292093883964493373463e-217147241", 5),
    (f"evaluate w response-time-survival --time 1e100 --discipline alis {_W}", 0,
     "= 3.30939487753175905892461941541e-21714724095162591382556445945830254114719850290183328305722689158293232460443538736461247466921587", 5),
    (f"evaluate w response-time-survival --time 9**1000 --discipline rais {_W}", 0,
     "Subs(-49*exp(-t)/151 + 196*exp(-t/2)/151 + 4*exp(-7*t/4)/151, t, 1747871251722651", 5),
    (f"evaluate w waiting-time-survival --time 1e100 --discipline rais {_W}", 0, "e-2171472409", 5),
    (f"evaluate w response-time-survival --time 1e100000 {_W}", 2, "at most 4000 digits", 5),
    ("report ring:6", 2, "--verify-jobs 0", 5),
    ("report {g6s}", 2, "report steps", 5),
    ("plot redundancy:16:8 graph --set lambda=1 --set mu=1", 2, "nodes and edges", 5),
    ("supermarket redundancy:16:8 --set lambda=1 --set mu=1 --max-work 100000", 2,
     "max-flow arcs", 5),
    # the default run of redundancy:16:8 (one Dinitz max-flow of 115,846 arcs) takes about 7 s
    # of CPU, too long for the suite; a 14:7 run (27,470 arcs) stands for it
    ("supermarket redundancy:14:7 --set lambda=1 --set mu=1", 0, "8,9,10,11,12,13,14", 5),
]


@pytest.mark.parametrize("line,status,fragment,seconds", CASES, ids=[c[0] for c in CASES])
def test_extreme_input_ends_quickly(capsys, files, line, status, fragment, seconds):
    argv = [part.format(**files) for part in line.split()]
    start = time.process_time()
    code = main(argv)
    used = time.process_time() - start
    out, err = capsys.readouterr()
    assert code == status, (out[-500:], err)
    if status == 2:
        assert err.startswith("symq: error: ") and err.count("\n") == 1, err
        assert fragment in err, err
    else:
        assert fragment in out
    assert "Traceback" not in out + err
    assert used < seconds, f"{line}: {used:.1f} s of CPU"


def test_the_formula_estimate_counts_what_the_builder_defines(capsys):
    """Must fail if the estimate skips the structured shortcut: ring:12's formula is about
    51,000 steps (853 unions); --max-work one below refuses, the estimate itself runs."""
    from symq.queries.estimates import formula_steps
    from symq import model
    steps = formula_steps(model("ring:12"), "mean-number", "collaborative")
    assert steps == 2 * 853 * 24 + 12 * 853
    assert main(["derive", "ring:6", "mean-number", "--max-work", "1"]) == 2
    assert "formula steps" in capsys.readouterr().err


def test_state_bound_is_an_upper_bound():
    from symq import model
    from symq.engines.balance import build_process
    from symq.queries.estimates import state_bound
    for name, discipline in (("w", "alis"), ("n", "rais"), ("w", "collaborative")):
        m = model(name)
        exact = len(build_process(m, discipline).states(3))
        assert exact <= state_bound(m, discipline, 2)


QUANTITIES = ["empty-probability", "mean-number", "server-idle-probability",
              "mean-response-time", "response-time"]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(servers=st.integers(2, 5), seed=st.integers(0, 10 ** 6),
       quantity=st.sampled_from(QUANTITIES),
       discipline=st.sampled_from(["collaborative", "alis", "rais"]),
       command=st.sampled_from(["evaluate", "derive"]),
       extra=st.sampled_from([[], ["--max-work", "50"], ["--digits", "5"], ["--exact"]]))
def test_random_requests_end_with_0_or_2(tmp_path_factory, capsys, servers, seed, quantity,
                                         discipline, command, extra):
    model = random_stable_model(servers, seed, classes=servers)
    if command == "derive":
        model = _symbolic(model, "g")
        extra = [e for e in extra if e not in ("--digits", "5", "--exact")]
    path = tmp_path_factory.mktemp("h") / "g.toml"
    path.write_text(model.to_toml(), encoding="utf-8")
    start = time.process_time()
    code = main([command, str(path), quantity, "--discipline", discipline, *extra])
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, err)
    assert "Traceback" not in out + err
    if code == 2:
        assert err.startswith("symq: error: ") and err.count("\n") == 1
    assert time.process_time() - start < 20


def test_the_report_estimate_is_the_sum_of_its_parts(capsys):
    """report_work adds the formula steps of every printed formula, the values and the balance
    check; the RAIS routing of ring:6 (3^6 * 6 * 28^3 / 6 steps) is counted without building it, and one
    step below the total refuses while the total itself runs (ring:3, collaborative)."""
    from symq import model
    from symq.queries.estimates import REPORT_FORMULAS, formula_steps, report_work
    ring3 = model("ring:3")
    work = report_work(ring3, ("collaborative",), 3, quantities=9)
    assert work["formulas"] == sum(formula_steps(ring3, q, "collaborative") for q in REPORT_FORMULAS)
    assert work["total"] == work["formulas"] + work["values"] + work["check collaborative"]
    start = time.process_time()
    from symq.queries.estimates import routing_steps
    assert report_work(model("ring:6"), ("rais",), 3, limit=50_000)["check rais"] == \
        routing_steps(model("ring:6")) == 3 ** 6 * 6 * 28 ** 3 // 6  # D = 28 distinct rates
    assert time.process_time() - start < 2
    total = work["total"]
    assert main(["report", "ring:3", "--discipline", "collaborative", "--quiet",
                 "--max-work", str(total - 1)]) == 2
    assert f"needs about {total:,} report steps" in capsys.readouterr().err
    assert main(["report", "ring:3", "--discipline", "collaborative", "--quiet", "--format", "text",
                 "--max-work", str(total)]) == 0
    assert "all residuals 0" in capsys.readouterr().out
