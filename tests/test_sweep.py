"""Theorem sweeps (symq.studies.sweep, ``symq sweep``): checks that pass, checks that must fail, resume,
process pool vs Dask, counterexamples that rerun with ``symq evaluate``."""

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

import symq
from symq.cli import main
from symq.errors import ModelError, UnsupportedError
from symq.models.graphs import compatibility_graphs, graph_from_key
from symq.studies.sweep import (CHECKS, InlineExecutor, Verdict, parse_rates, read_results, run_graph,
                        sample_models, sweep, utilization, GraphTask)

TESTS = Path(__file__).parent


@pytest.fixture(autouse=True)
def _user_checks_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _without_timing(records):
    return sorted(({k: v for k, v in r.items() if k != "seconds"} for r in records),
                  key=lambda r: r["graph"])


# ---------------------------------------------------------------------------- built-in checks
@pytest.mark.parametrize("check", ["stability", "nested", "empty-vs-ctmc"])
def test_builtin_checks_pass_on_every_graph_up_to_3_by_2(check):
    summary = sweep(check, 3, 2, executor=InlineExecutor(), progress=False)
    assert summary.graphs == len(compatibility_graphs(3, 2)) == 10
    assert summary.failed == summary.errors == 0
    assert summary.passed + summary.skipped == summary.graphs
    assert summary.passed >= 1


def test_theorem_2_1_applies_to_the_single_flexible_class_only():
    summary = sweep("theorem-2.1", 2, 3, rates="random:4", executor=InlineExecutor(),
                    progress=False)
    applied = {r["graph"] for r in summary.records if r["status"] == "pass"}
    assert applied == {"{1,2}", "{1,2,3}"} and summary.ok


def test_stability_check_covers_the_boundary_exactly():
    record = run_graph(GraphTask("stability", "{1},{2},{1,2}", "random:1", 7))
    data = record["samples"][0]["data"]
    assert record["status"] == "pass"
    assert data["boundary"]["max_flow_margin"] == data["boundary"]["subset_margin"] == "0"
    assert data["boundary"]["stable"] is False and data["given"]["stable"] is True


def test_balance_check_when_symq_balance_is_there():
    import symq.engines.balance  # noqa: F401 - a broken import must fail, not skip
    summary = sweep("balance", 2, 2, options={"disciplines": ("collaborative", "alis"),
                                              "max_jobs": 2},
                    executor=InlineExecutor(), progress=False)
    assert summary.ok and summary.passed == summary.graphs == 5


def test_cor_5_3_holds_symbolically_and_numerically_on_small_graphs():
    import symq.engines.aggregated  # noqa: F401 - a broken import must fail, not skip
    for rates in ("symbolic", "random:2"):
        summary = sweep("cor-5.3", 2, 2, rates=rates, executor=InlineExecutor(), progress=False)
        assert summary.ok and summary.passed == summary.graphs == 5, rates


def test_cor_5_3_check_reports_a_wrong_rais_law(monkeypatch):
    import symq.engines.aggregated as aggregated
    real = aggregated.rais_partial_law

    def wrong(model, busy, queue, normalized=True):
        value = real(model, busy, queue, normalized)
        return value * 2 if len(busy) == 1 else value   # one factor changed

    monkeypatch.setattr(aggregated, "rais_partial_law", wrong)
    summary = sweep("cor-5.3", 1, 2, executor=InlineExecutor(), progress=False)
    assert summary.failed == summary.graphs == 2
    _, sample = summary.counterexamples()[0]
    assert sample["data"]["difference"] != "0" and len(sample["data"]["busy_order"]) == 1


def test_theorem_2_1_symbolic_uses_the_sign_certificates():
    import symq.studies.uninformed  # noqa: F401 - a broken import must fail, not skip
    summary = sweep("theorem-2.1", 1, 2, executor=InlineExecutor(), progress=False)
    record = summary.records[-1]
    assert summary.ok and record["graph"] == "{1,2}"
    assert record["samples"][0]["data"] == {"certificates": 6, "proved": 6}


# ---------------------------------------------------------------------------- checks can fail
def test_nested_check_reports_a_wrong_closed_form(monkeypatch):
    import symq.engines.nested

    real = symq.engines.nested.nested_empty_probability
    monkeypatch.setattr(symq.engines.nested, "nested_empty_probability",
                        lambda model: real(model) * (1 + sympy.Rational(1, 10**6)))
    summary = sweep("nested", 2, 2, executor=InlineExecutor(), progress=False)
    assert summary.failed == summary.graphs - summary.skipped > 0
    record, sample = summary.counterexamples()[0]
    assert sample["data"]["difference"] != "0"


def test_stability_check_reports_a_wrong_brute_force(monkeypatch):
    import symq.models.stability
    from symq.models.stability import StabilityReport

    real = symq.models.stability.brute_force_stability_report

    def off_by_one(model):
        r = real(model)
        return StabilityReport(r.margin + 1, r.classes, r.servers, r.load, r.capacity)

    monkeypatch.setattr(symq.models.stability, "brute_force_stability_report", off_by_one)
    summary = sweep("stability", 1, 2, executor=InlineExecutor(), progress=False)
    assert summary.failed == summary.graphs == 2


def test_empty_vs_ctmc_check_reports_a_wrong_recursion(monkeypatch):
    import symq.engines.normalization

    real = symq.engines.normalization.collaborative_empty_probability
    monkeypatch.setattr(symq.engines.normalization, "collaborative_empty_probability",
                        lambda model: real(model) * sympy.Rational(99, 100))
    summary = sweep("empty-vs-ctmc", 2, 1, executor=InlineExecutor(), progress=False)
    assert summary.failed == summary.graphs == 2


def test_user_check_return_forms():
    for name, status in (("plain_bool", "pass"), ("pair", "pass"), ("does_not_apply", "skip"),
                         ("wrong_type", "error")):
        record = run_graph(GraphTask(f"sweep_user_checks:{name}", "{1},{1,2}", "symbolic", 0,
                                     search_path=(str(TESTS),)))
        assert record["status"] == status, name
    record = run_graph(GraphTask("sweep_user_checks:wrong_type", "{1}", "symbolic", 0))
    assert "return a symq.studies.sweep.Verdict" in record["error"]


# ---------------------------------------------------------------------------- counterexamples rerun
def test_false_user_check_gives_a_counterexample_that_reruns(capsys, tmp_path):
    status, out, _ = _run(capsys, "sweep", "sweep_user_checks:empty_below_half", "--classes", "2",
                          "--servers", "2", "--rates", "random:2", "--workers", "0", "--quiet",
                          "--save-counterexamples", str(tmp_path))
    assert status == 1
    assert "counterexample 1: graph" in out and "[classes.\"1\"]" in out
    # the printed TOML, cut from the text output, is a model symq evaluate runs
    block = out.split("model (TOML; save it and run `symq evaluate FILE.toml QUANTITY`):\n")[1]
    toml = "\n".join(line[4:] for line in block.split("\n\ncounterexample")[0].splitlines())
    path = tmp_path / "printed.toml"
    path.write_text(toml + "\n")
    claimed = out.split("empty_probability: ")[1].split("\n")[0]
    status, out, _ = _run(capsys, "evaluate", str(path), "empty-probability", "--json")
    assert status == 0
    value = json.loads(out)["result"]["exact"]
    assert value == claimed and sympy.Rational(value) >= sympy.Rational(1, 2)
    # the saved files are the same models
    saved = sorted(tmp_path.glob("counterexample-*.toml"))
    assert saved and symq.load(saved[0]) == symq.load(path)


def test_json_summary_lists_counterexamples_with_toml(capsys):
    status, out, _ = _run(capsys, "sweep", "sweep_user_checks:empty_below_half", "--classes", "2",
                          "--servers", "2", "--rates", "random:2", "--workers", "0", "--json",
                          "--quiet")
    data = json.loads(out)
    assert status == 1 and data["failed"] == len(data["counterexamples"]) >= 1
    model = symq.loads(data["counterexamples"][0]["toml"])
    assert model.is_numeric and symq.is_stable(model)


# ---------------------------------------------------------------------------- pool vs Dask
def test_process_pool_and_dask_cluster_give_identical_results(capsys, tmp_path):
    distributed = pytest.importorskip("distributed")
    local, remote = tmp_path / "pool.jsonl", tmp_path / "dask.jsonl"
    common = ["--classes", "3", "--servers", "2", "--rates", "random:2", "--quiet", "--json"]
    status, out_pool, _ = _run(capsys, "sweep", "stability", *common, "--workers", "2",
                               "--output", str(local))
    assert status == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        status, out_dask, _ = _run(capsys, "sweep", "stability", *common, "--scheduler",
                                   cluster.scheduler_address, "--output", str(remote))
    assert status == 0
    assert _without_timing(read_results(local)) == _without_timing(read_results(remote))
    pool, dask = json.loads(out_pool), json.loads(out_dask)
    assert {k: v for k, v in pool.items() if k not in ("seconds", "output")} == \
        {k: v for k, v in dask.items() if k not in ("seconds", "output")}
    assert pool["graphs"] == 10


# ---------------------------------------------------------------------------- resume
def test_killed_sweep_resumes_without_repeating_work(tmp_path):
    output, calls = tmp_path / "results.jsonl", tmp_path / "calls.log"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH",
                                                                                   "")]),
               SWEEP_CALL_LOG=str(calls), SWEEP_DELAY="0.3")
    argv = [sys.executable, "-m", "symq.cli", "sweep", "sweep_user_checks:slow_pass",
            "--classes", "3", "--servers", "2", "--workers", "1", "--output", str(output),
            "--quiet"]
    process = subprocess.Popen(argv, env=env, cwd=tmp_path, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if output.exists() and len(output.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    first = read_results(output)
    assert 3 <= len(first) < 10, "the sweep should have been killed midway"
    # a torn last line, as a kill during a write leaves it, is dropped on resume
    with output.open("a") as handle:
        handle.write('{"graph": "{1,2},{1')
    env["SWEEP_DELAY"] = "0"
    calls.write_text("")
    result = subprocess.run(argv[:-1] + ["--json"], env=env, cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["resumed"] == len(first) and summary["graphs"] == 10
    records = read_results(output)
    keys = [r["graph"] for r in records]
    assert len(keys) == len(set(keys)) == 10
    done_before = {r["graph"] for r in first}
    rerun = {line.removeprefix("graph ") for line in calls.read_text().splitlines()}
    assert rerun == set(keys) - done_before


def test_interrupted_sweep_resumes_in_process(tmp_path):
    output = tmp_path / "r.jsonl"
    seen = []

    def interrupt(record):
        seen.append(record["graph"])
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep("nested", 3, 2, executor=InlineExecutor(), output=output, progress=False,
              on_record=interrupt)
    assert len(read_results(output)) == 4
    again = []
    summary = sweep("nested", 3, 2, executor=InlineExecutor(), output=output, progress=False,
                    on_record=lambda r: again.append(r["graph"]))
    assert summary.resumed == 4 and not set(again) & set(seen)
    assert summary.graphs == len(read_results(output)) == 10 and summary.ok


def test_output_of_another_sweep_is_refused(tmp_path):
    output = tmp_path / "r.jsonl"
    sweep("nested", 1, 2, executor=InlineExecutor(), output=output, progress=False)
    with pytest.raises(ModelError, match="holds results of a sweep with check 'nested'"):
        sweep("stability", 1, 2, executor=InlineExecutor(), output=output, progress=False)
    with pytest.raises(ModelError, match="holds results of a sweep with options"):
        sweep("nested", 1, 2, options={"max_jobs": 3}, executor=InlineExecutor(),
              output=output, progress=False)


# ---------------------------------------------------------------------------- rates
def test_random_rates_are_seeded_exact_and_stable():
    graph = graph_from_key("{1},{2},{1,2}")
    first, again = sample_models(graph, "random:5", 3), sample_models(graph, "random:5", 3)
    assert first == again and first != sample_models(graph, "random:5", 4)
    for model in first:
        assert model.is_numeric and all(r.is_Rational for r in model.arrival_rates.values())
        assert utilization(model) < 1 and symq.is_stable(model)
    for model in sample_models(graph, "light:5", 0):
        smallest = min(model.service_rate(s) for s in model.compatibility.values())
        assert model.arrival_rate() <= smallest / 3


@pytest.mark.parametrize("text", ["random", "random:0", "random:x", "uniform:3", "light:-1"])
def test_bad_rates_are_rejected(text):
    with pytest.raises(ModelError, match="use symbolic, random:N or light:N"):
        parse_rates(text)


@pytest.mark.parametrize("argv, message", [
    (["nope"], "unknown check 'nope'"),
    (["stability", "--rates", "symbolic"], "needs numeric rates"),
    (["no_such_module_xyz:f"], "cannot import module 'no_such_module_xyz'"),
    (["sweep_user_checks:missing"], "has no function 'missing'"),
    (["nested", "--rates", "random:0"], "--rates 'random:0'"),
    (["nested", "--discipline", "alis"], "--discipline applies to the balance check only"),
])
def test_bad_sweep_input_is_one_line_and_status_2(capsys, argv, message):
    status, out, err = _run(capsys, "sweep", *argv, "--classes", "2", "--servers", "2",
                            "--workers", "0", "--quiet")
    assert status == 2 and message in err and "Traceback" not in err


def test_progress_line_counts_graphs_and_counterexamples(capsys):
    status, out, err = _run(capsys, "sweep", "sweep_user_checks:empty_below_half", "--classes",
                            "2", "--servers", "2", "--rates", "random:2", "--workers", "0")
    assert status == 1 and "5/5 graphs, 5 counterexamples, 0 errors" in err
