"""One loop over every route of the route table (symq.queries.routes.ROUTES).

Every row is run, forced by ``method=``, on every graph up to 3 classes x 3 servers that it serves
and on a few larger ones (ring:4, a 5-server nested model, a random 6-server graph), at exact
rational rates, and compared exactly with the general subset DP of the discipline (forced the
same way), which is itself compared here with the truncated chain of the verbal model
(symq.engines.ctmc) on the small graphs. A new row is tested the moment it is added: the loop
reads the table. A second set of tests checks that ``Result.route`` and the JSON ``route`` name
the route whose compute function actually ran.
"""

import json
import re
from pathlib import Path
from fractions import Fraction

import pytest
import sympy

import symq
from symq.engines.normalization.certified import QUANTITIES as CERTIFIED
from symq.models.graphs import compatibility_graphs
from symq.queries import routes as routes_module
from symq.queries.routes import NORMALIZATION, ROUTES, route_named
from symq.queries.solve import solve
from symq.studies.sweep.sampling import sample_models

from routes import ctmc_means, random_stable_model, truncation_bounds

DISCIPLINES = ("collaborative", "alis", "rais")


def _small_models():
    return [model for k, graph in enumerate(compatibility_graphs(3, 3))
            for model in sample_models(graph, "light:1", seed=k)]


def _larger_models():
    nested5 = symq.load(Path(__file__).resolve().parent.parent / "benchmarks" / "nested5.toml")
    values = {s.name: Fraction(1, 7) if s.name.startswith("lambda") else Fraction(2)
              for s in nested5.symbols}
    two_components = symq.Model(compatibility={"1": ["1"], "2": ["1", "2"], "3": ["3", "4"],
                                               "4": ["4"]},
                                arrival_rates={"1": "1/5", "2": "1/3", "3": "1/2", "4": "1/7"},
                                service_rates={"1": "1", "2": "3/4", "3": "1", "4": "1/2"})
    return [symq.example_model("ring:4"), nested5.substitute(values) if values else nested5,
            random_stable_model(6, seed=3), two_components]


SMALL = _small_models()
LARGER = _larger_models()
EXACT_ROWS = [r for r in ROUTES if "exact" in r.arithmetics and set(r.quantities) & set(NORMALIZATION)
              and not r.derivatives]
CERTIFIED_ROWS = [r for r in ROUTES if {"interval", "ball"} & set(r.arithmetics) and not r.derivatives]
DERIVATIVE_ROWS = [r for r in ROUTES if r.derivatives]


def _exact(result):
    return result.exact


def _forced(model, quantity, discipline, name, **options):
    return solve(model, quantity, discipline, method=name, no_limits=True, **options)


def test_the_loop_covers_every_row():
    covered = {r.name for r in EXACT_ROWS + CERTIFIED_ROWS + DERIVATIVE_ROWS} | {
        "formulas", "tagged-job", "nested-response-time"}
    assert covered == {r.name for r in ROUTES}
    assert len(SMALL) == 28  # every connected graph up to 3 classes x 3 servers


@pytest.mark.parametrize("row", [r.name for r in EXACT_ROWS])
@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_every_exact_row_equals_the_subset_dp(row, discipline):
    route = route_named(row)
    ran = 0
    for model in SMALL + LARGER:
        if route.refusal(model, "mean-number", discipline, "exact") is not None:
            continue
        for quantity in ("empty-probability", "server-idle-probability", "mean-number"):
            got = _forced(model, quantity, discipline, row, exact=True)
            want = _forced(model, quantity, discipline, "subset-dp", exact=True)
            assert got.route == row
            assert _exact(got) == _exact(want), (row, discipline, model.compatibility, quantity)
        ran += 1
    if row in ("uninformed",) and discipline != "rais":
        assert ran == 0
    elif discipline in route.disciplines and row != "uninformed":
        assert ran > 0, f"no test model is served by {row} under {discipline}"


def test_the_uninformed_row_on_its_own_models():
    for servers in (2, 3):
        model = symq.model(f"uninformed:{servers}")
        values = {"lambda": "1"} | {f"mu_{j}": f"{j}/2" for j in range(1, servers + 1)}
        model = model.substitute(values)
        for quantity in ("empty-probability", "mean-number", "server-idle-probability"):
            got = _forced(model, quantity, "rais", "uninformed", exact=True)
            want = _forced(model, quantity, "rais", "subset-dp", exact=True)
            assert got.route == "uninformed" and _exact(got) == _exact(want)


@pytest.mark.parametrize("row", [r.name for r in CERTIFIED_ROWS])
@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_every_certified_row_gives_the_exact_digits(row, discipline):
    route = route_named(row)
    if discipline not in route.disciplines:
        pytest.skip(f"{row} serves {route.disciplines}")
    ran = 0
    for model in (SMALL[::3] + LARGER):
        arithmetic = next(a for a in route.arithmetics if a in ("interval", "ball"))
        if route.refusal(model, "mean-number", discipline, arithmetic) is not None:
            continue
        for quantity in CERTIFIED:
            got = _forced(model, quantity, discipline, row, exact=False, digits=25)
            arithmetic = got.arithmetic if got.arithmetic in ("interval", "ball") else arithmetic
            want = _forced(model, quantity, discipline, "subset-dp", exact=True, digits=25)
            assert got.route == row and got.arithmetic == arithmetic
            got_digits = [leaf.value for _, leaf in got.leaves()]
            want_digits = [leaf.value for _, leaf in want.leaves()]
            assert got_digits == want_digits, (row, model.compatibility, quantity)
        ran += 1
    assert ran > 0


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_the_subset_dp_agrees_with_the_verbal_chain(discipline):
    from symq.engines.aggregated import canonical_assignment
    options = {"assignment": canonical_assignment} if discipline == "rais" else {}
    checked = 0
    for model in SMALL:
        if len(model.classes) > 2 or model.arrival_rate() >= min(model.service_rates.values()):
            continue  # the truncation bound needs lambda < min mu; 3 classes: too many states
        jobs = {1: 30, 2: 10}[len(model.classes)]
        prob, mean = truncation_bounds(model, jobs)
        chain = ctmc_means(model, discipline, jobs, **options)
        checked += 1
        empty = _forced(model, "empty-probability", discipline, "subset-dp", exact=True)
        means = _forced(model, "mean-number", discipline, "subset-dp", exact=True)
        assert abs(float(empty.exact) - chain["empty"]) <= prob
        for c, value in means.exact["per_class"].items():
            assert abs(float(value) - chain["L"][c]) <= mean
    assert checked >= 5


def test_a_forced_route_that_does_not_apply_says_why():
    with pytest.raises(symq.ModelError, match="method 'ring' does not apply: it needs a ring"):
        solve(symq.example_model("n"), "mean-number", method="ring")
    with pytest.raises(symq.ModelError, match="unknown method 'fast'; available: auto, "):
        solve(symq.example_model("n"), "mean-number", method="fast")


# ------------------------------------------------------------------ the route that ran is named
class _Sentinel(Exception):
    pass


REQUESTS = [  # (model, quantity, discipline, exact)
    ("w", "empty-probability", "alis", None),
    ("ring:3", "mean-number", "collaborative", None),
    ("uninformed:2", "empty-probability", "rais", None),
    ("w", "response-time", "collaborative", None),
    ("n", "response-time", "alis", None),
]
NUMERIC = [
    ("n", "mean-number", "collaborative", True),
    ("w", "mean-number", "alis", True),
    ("w", "mean-number", "alis", False),
    ("n", "response-time-survival", "rais", True),
]


def _model_of(name, numeric):
    return symq.example_model(name) if numeric else symq.model(name)


@pytest.mark.parametrize("name,quantity,discipline,exact", REQUESTS + NUMERIC)
def test_the_named_route_is_the_one_that_ran(monkeypatch, name, quantity, discipline, exact):
    model = _model_of(name, (name, quantity, discipline, exact) in NUMERIC)
    options = {"time": "1"} if quantity.endswith("survival") else {}
    result = solve(model, quantity, discipline, exact=exact, digits=10, **options)
    ran = result.route
    rows = list(routes_module.ROUTES)
    k = next(i for i, r in enumerate(rows) if r.name == ran)
    import dataclasses
    import sys
    import types

    def boom(*args, **kwargs):
        raise _Sentinel(ran)
    module = types.ModuleType("_symq_sentinel")
    module.boom = boom
    monkeypatch.setitem(sys.modules, "_symq_sentinel", module)
    rows[k] = dataclasses.replace(rows[k], compute="_symq_sentinel:boom")
    monkeypatch.setattr(routes_module, "ROUTES", tuple(rows))
    with pytest.raises(_Sentinel):
        solve(model, quantity, discipline, exact=exact, digits=10, **options)


def test_json_route_names_the_route(capsys):
    from symq.cli import main
    for argv, route in (
            (["derive", "uninformed:2", "empty-probability", "--discipline", "rais", "--json"],
             "uninformed"),
            (["derive", "ring:3", "mean-number", "--json"], "formulas"),
            (["derive", "n", "empty-probability", "--method", "subset-dp", "--json"],
             "subset-dp"),
            (["evaluate", "n", "mean-number", "--set", "lambda_1=1/4", "--set", "lambda_2=1/4",
              "--set", "mu_1=1", "--set", "mu_2=1", "--json"], "nested")):
        assert main(argv) == 0
        data = json.loads(capsys.readouterr().out)
        if route != "subset-dp":  # not forced: the route the planner picks for this request
            from symq.queries.plan import explain
            values = {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1} \
                if argv[0] == "evaluate" else None
            route = explain(argv[1], argv[2], data["discipline"], values=values).chosen.route.name
        assert data["route"] == route
        from symq.queries.request import Request
        request = Request(symq.model(argv[1]), argv[2], data["discipline"])
        if route == "formulas":  # the sentence names the builder that made the printed formula
            from symq.engines.formulas.build import builder_kind
            from symq.queries.routes import formulas_text
            assert data["method"] == formulas_text(builder_kind(request.model,
                                                                data["discipline"]), request)
        else:
            assert data["method"] == route_named(route).method_text(request)


def test_solve_matches_the_command_line_for_w(capsys):
    from symq.cli import main
    values = {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2", "mu_1": "1",
              "mu_2": "4/5"}
    argv = ["evaluate", "w", "mean-number", "--discipline", "alis", "--json", "--digits", "40"]
    for k, v in values.items():
        argv += ["--set", f"{k}={v}"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    result = symq.solve("w", "mean-number", "alis", values=values, digits=40)
    assert data["route"] == result.route and data["arithmetic"] == result.arithmetic
    assert data["result"] == result.as_json()["result"]
    assert result.per_class["3"].exact == sympy.Rational(data["result"]["per_class"]["3"]["exact"])


@pytest.mark.parametrize("package", ["symq", "symq.arithmetic", "symq.models", "symq.engines",
                                     "symq.engines.normalization", "symq.engines.formulas",
                                     "symq.engines.response_time", "symq.engines.processes",
                                     "symq.studies", "symq.studies.uninformed",
                                     "symq.studies.supermarket", "symq.studies.compensation",
                                     "symq.studies.sweep", "symq.queries", "symq.presentation",
                                     "symq.presentation.pictures", "symq.commands"])
def test_star_import_of_every_package(package):
    namespace = {}
    exec(f"from {package} import *", namespace)  # noqa: S102 - our own package names
    module = __import__(package, fromlist=["__all__"])
    for name in getattr(module, "__all__", ()):
        assert name in namespace, f"{package}.__all__ names {name!r}, which it does not define"


def test_evaluate_of_a_result_gives_the_digits_asked_for():
    from symq.arithmetic.numeric import decimal_string
    exact = symq.solve(symq.example_model("w"), "mean-number", "alis", exact=True)
    certified = symq.solve(symq.example_model("w"), "mean-number", "alis", exact=False)
    for result in (exact, certified):
        again = symq.evaluate(result, digits=45)
        assert again["total"].value == decimal_string(exact.total.exact, 45)
        assert len(again["total"].value.replace("0.", "", 1)) == 45
    with pytest.raises(symq.ModelError, match="numeric values already"):
        symq.evaluate(exact, {"lambda_1": "1/2"})


def test_a_result_table_in_jupyter_has_a_caption_with_the_rates():
    result = symq.solve(symq.example_model("n"), "mean-number", "alis", digits=6)
    html = result._repr_html_()
    caption = ("mean-number, alis (route subset-dp, exact); rates: class 1 1/4, class 2 1/4; "
               "server 1 1, server 2 1")
    assert f'<caption class="tex2jax_ignore">{caption}</caption>' in html
    rows = {label: value for label, _, value in re.findall(
        r'<tr><td class="tex2jax_ignore">([^<]*)</td><td>([^<]*)</td>'
        r'<td class="tex2jax_ignore">([^<]*)</td></tr>', html)}
    from symq.queries.solve import row_label
    assert rows == {row_label(label) or "value": leaf.value for label, leaf in result.leaves()}
    assert rows["class 1"] == "0.361702"  # 17/47


def _symbolic_twin(model):
    """The model with one symbol per rate (lambda_<class>, mu_<server>) and its point."""
    from symq.engines.sensitivity import rate_symbols
    symbolic, point = rate_symbols(model)
    return symbolic, {s.name: str(v) for s, v in point.items()}


def _by_label(result):
    """``{(output, rate): Fraction}`` of a reverse-mode result."""
    out = {}
    for label, row in result.gradient.derivatives.items():
        for name, v in row.items():
            out[(label or "value", name)] = v if isinstance(v, Fraction) else v.text
    return out


def _formula_by_label(result, point):
    out = {}
    for key, v in result.formula.at(point).items():
        label, _, name = key.rpartition(" d/d")
        out[(label, name)] = Fraction(int(v.p), int(v.q))
    return out


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_the_derivative_rows_agree_with_each_other(discipline):
    """Two independent routes to every partial derivative: the reverse-mode sweep of the subset
    DP at the point (exact rationals) and the chain rule through the structured formula's named
    definitions, evaluated at the point; the ball arithmetic of reverse-mode gives the exact
    route's digits."""
    checked = 0
    for model in SMALL[::4] + LARGER[:1]:
        symbolic, point = _symbolic_twin(model)
        for quantity in ("empty-probability", "server-idle-probability", "mean-number"):
            swept = _forced(symbolic, quantity, discipline, "reverse-mode", values=point,
                            wrt="all", exact=True)
            assert swept.route == "reverse-mode" and swept.arithmetic == "exact"
            formula = _forced(symbolic, quantity, discipline, "derivative-formulas", wrt="all")
            assert formula.route == "derivative-formulas" and formula.arithmetic == "structured"
            want = _formula_by_label(formula, point)
            assert _by_label(swept) == want, (discipline, model.compatibility, quantity)
            balls = _forced(model, quantity, discipline, "reverse-mode", wrt="all", exact=False,
                            digits=20)
            assert balls.arithmetic == "ball"
            from symq.arithmetic.numeric import round_fraction
            assert _by_label(balls) == {k: round_fraction(v, 20) if v else "0"
                                        for k, v in want.items()}
            checked += 1
    assert checked == 3 * len(SMALL[::4] + LARGER[:1])


def test_derivative_requests_only_take_derivative_rows():
    model = symq.example_model("n")
    with pytest.raises(symq.ModelError, match="it computes values, not partial derivatives"):
        solve(model, "mean-number", "alis", wrt="all", method="subset-dp")
    with pytest.raises(symq.ModelError, match="it computes partial derivatives"):
        solve(model, "mean-number", "alis", method="reverse-mode")
    with pytest.raises(symq.ModelError, match="no derivatives of response-time"):
        solve(model, "response-time", "alis", wrt="all")


def test_derivatives_are_by_the_models_own_symbols():
    """A symbolic model with values is differentiated by its own symbols (one ``lambda`` shared
    by the uninformed class), not by per-class names; the value agrees with the derivative
    formula and with an exact difference quotient bounded by the second derivative."""
    model = symq.model("uninformed:2")
    point = {"lambda": "1", "mu_1": "1", "mu_2": "2"}
    swept = solve(model, "mean-number", "rais", values=point, wrt="all", exact=True)
    assert swept.wrt == ["lambda", "mu_1", "mu_2"]
    formula = solve(model, "mean-number", "rais", wrt=["lambda"])
    want = Fraction(str(formula.formula.at(point)["total"]))  # one rate: no suffix
    assert swept.derivative("total", "lambda") == want
    h = Fraction(1, 10**6)
    up = solve(model, "mean-number", "rais", values={**point, "lambda": 1 + h}, exact=True)
    down = solve(model, "mean-number", "rais", values={**point, "lambda": 1 - h}, exact=True)
    quotient = (Fraction(str(up.exact["total"])) - Fraction(str(down.exact["total"]))) / (2 * h)
    assert abs(quotient - want) < Fraction(1, 10**9)
