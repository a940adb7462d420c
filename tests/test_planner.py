"""The planner (symq.queries.plan): one regression test per problem of the round that made the
route table plan by cost, and the plan's own contract (explain, predicted and measured seconds,
the limit of the pair that runs, facts computed once)."""

import json
import resource

import pytest
import sympy

import symq
from symq.errors import ModelError, TooLargeError
from symq.queries.facts import Facts, facts_of
from symq.queries.plan import explain, plan
from symq.queries.request import Request
from symq.queries.routes import route_named


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def nested6():
    comp = {"1": ["1"], "2": ["1", "2"], "3": ["1", "2", "3", "4"], "4": ["5"],
            "5": ["5", "6"], "6": ["1", "2", "3", "4", "5", "6"]}
    return symq.Model(compatibility=comp, arrival_rates={c: f"lambda_{c}" for c in comp},
                      service_rates={str(s): f"mu_{s}" for s in range(1, 7)}, name="nested6")


# 1. the per-quantity functions plan like the command line and keep its limits
def test_the_ring_rows_symbolic_count_grows_with_the_expressions():
    work = [route_named("ring").work(Request(symq.model(f"ring:{m}"), "mean-number"),
                                     "symbolic")[1] for m in (3, 4, 5)]
    assert work[1] >= 4 * work[0] and work[2] >= 4 * work[1]   # not (J + M)^2 = 36, 64, 100


def test_a_per_quantity_function_answers_ring3_by_the_structured_formula():
    start = _cpu()
    value = symq.mean_number("ring:3")
    assert _cpu() - start < 20   # a hang guard (it took 27 s by one expression), not a timing
    # the same functions as the general DP's expression (the second route)
    from symq.engines.normalization import mean_number
    reference = mean_number(symq.model("ring:3"))
    assert sympy.cancel(value["total"] - reference["total"]) == 0


def test_a_per_quantity_function_keeps_the_limits():
    with pytest.raises(TooLargeError):
        symq.mean_number("ring:30")


# 2. the response-time laws of a deep nested model: the cheaper tagged-job transform
def test_the_nested_law_is_priced_above_the_tagged_job_transform_on_a_deep_tree():
    p = explain(nested6(), "response-time")
    nested = p.candidate("nested-response-time", "symbolic")
    tagged = p.candidate("tagged-job", "structured")
    assert nested.applies and tagged.applies
    assert nested.seconds > tagged.seconds
    assert p.chosen.route.name == "tagged-job"


# 3. a forced route is checked against its own estimate
def test_a_forced_subset_dp_is_refused_by_its_own_count():
    servers = [str(s) for s in range(1, 27)]
    comp = {s: [s] for s in servers}
    comp["all"] = servers
    m = symq.Model(compatibility=comp, arrival_rates={c: "1/100" for c in comp},
                   service_rates={s: 1 for s in servers})
    start = _cpu()
    with pytest.raises(TooLargeError, match="subset-dp"):
        symq.solve(m, "mean-number", method="subset-dp", exact=True)
    assert _cpu() - start < 10
    assert symq.solve(m, "mean-number").route == "nested"   # the planner's own choice runs


# 4. the method names the builder of the printed formula
def test_the_method_of_a_formula_names_its_builder(capsys):
    from symq.cli import main
    assert main(["derive", "redundancy:3:3", "empty-probability", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    from symq.queries.routes import formulas_text
    request = Request(symq.model("redundancy:3:3"), "empty-probability")
    if "structured" in data:   # the sentence of the builder that made the printed formula
        names = [d["name"] for d in data["structured"]["definitions"]]
        builder = "nested" if any(n.startswith("rho") for n in names) else None
        assert data["route"] == "formulas"
        if builder:
            assert data["method"] == formulas_text("nested", request)
    else:                      # one expression by the route that ran
        assert data["method"] == route_named(data["route"]).method_text(request)
    forced = symq.solve("redundancy:3:3", "empty-probability", method="formulas")
    assert forced.method == formulas_text(forced.formula.builder, request)
    assert "nested closed form" in forced.method   # one class on every server: a nested tree


# 5. the report: its method line and its sections follow the route that ran
def test_the_report_of_a_ring_names_the_formula_it_prints():
    from symq.presentation.report import build_report, render_markdown
    text = render_markdown(build_report(symq.model("ring:3"), "collaborative", verify_jobs=0))
    for line in text.splitlines():
        if "Method:" in line and "mean number" in line.lower():
            # the formula is the structured one the planner builds; its sentence says so
            assert "structured formulas" in line
    assert "Response-time distribution per class" in text   # the tagged-job row serves it
    assert "waiting-time law above" in text and "\\emph{Method:} ring" not in text


# 6. the structure is decided once per request
def test_the_structure_is_decided_once(monkeypatch):
    import symq.engines.nested as nested_module
    calls = []
    real = nested_module.is_nested

    def counting(model):
        calls.append(1)
        return real(model)
    monkeypatch.setattr(nested_module, "is_nested", counting)
    m = symq.example_model("w")
    m = m.substitute({})
    symq.solve(m, "mean-number", "alis", exact=True)
    assert len(calls) <= 1
    assert facts_of(m) is facts_of(m)


def test_the_engines_do_not_route():
    import subprocess
    out = subprocess.run(["grep", "-rn", r"structure_route\|method ==", "symq/engines",
                          "symq/studies", "symq/presentation"], capture_output=True, text=True)
    assert out.stdout == ""


# 7. a symbolic result's exact value is a sympy expression, and results compare as functions
def test_symbolic_results_compare_as_the_functions_they_denote():
    m = symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": "lambda_1"},
                   service_rates={"1": "mu_1"})
    alis = symq.solve(m, "empty-probability", "alis")
    collaborative = symq.solve(m, "empty-probability", "collaborative")
    by_name = {s.name: s for s in m.symbols}
    lam, mu = by_name["lambda_1"], by_name["mu_1"]
    assert isinstance(alis.exact, sympy.Expr)
    assert sympy.cancel(alis.exact - (1 - lam / mu)) == 0
    assert alis == collaborative
    assert alis != symq.solve(m, "normalizing-constant", "alis")
    w = symq.solve("w", "empty-probability", "alis")
    assert w != collaborative


# the plan's contract
def test_a_result_says_what_was_predicted_and_what_it_took():
    r = symq.solve(symq.example_model("w"), "mean-number", "alis")
    assert r.predicted_seconds is not None and r.predicted_seconds > 0
    assert r.seconds is not None and r.seconds >= 0


def test_the_plan_runs_the_cheapest_applicable_pair():
    p = explain("ring:4", "empty-probability", values={f"lambda_{i}": "1/4" for i in "1234"}
                | {f"mu_{i}": 1 for i in "1234"})
    usable = [c for c in p.candidates if c.applies]
    best = min(c.seconds for c in usable)
    assert p.chosen.seconds <= 2 * best + 0.05   # exact preferred within its factor
    text = "\n".join(p.lines())
    assert "-> " + p.chosen.route.name in text


def test_a_forced_method_that_does_not_apply_says_why():
    with pytest.raises(ModelError, match="method 'ring' does not apply: it needs a ring"):
        symq.solve(symq.example_model("n"), "mean-number", method="ring")


def test_explain_on_the_command_line(capsys):
    from symq.cli import main
    assert main(["explain", "ring:4", "mean-number", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    chosen = [c for c in data["candidates"] if c["route"] == data["route"]
              and c["arithmetic"] == data["arithmetic"]]
    assert len(chosen) == 1 and chosen[0]["applies"]
    assert data["predicted_seconds"] == chosen[0]["predicted_seconds"]
