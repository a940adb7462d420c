"""Structured formulas (symq.engines.formulas) against the numeric exact algorithms, by a second route:
every definition list is evaluated at random rational rates and compared exactly with
symq.engines.normalization on the substituted model (the subset DP for collaborative nested models,
whose structured form is the nesting-tree product), for every connected graph with at most 3
classes and 3 servers and random graphs up to 6 servers; the expanded forms at the same points;
a corrupted definition must be caught; the JSON expressions read back through symq's parser;
the LaTeX compiles where pdflatex is installed."""

from __future__ import annotations

import dataclasses
import json
import random

import flint
import pytest
import sympy

import symq
from symq.queries import exact as nz
from symq.cli import main
from symq.errors import ModelError
from symq.arithmetic.expressions import FORMULA_FUNCTIONS, parse_expression
from symq.engines.formulas import FORMS, Term, structured
from symq.engines.formulas.build import Builder
from symq.models.graphs import compatibility_graphs, graph_from_key
from symq.models.model import Model
from symq.engines.nested import is_nested
from symq.models.rates import positive_symbol
from symq.display import as_result

QUANTITIES = {"empty-probability": nz.empty_probability,
              "normalizing-constant": nz.normalizing_constant,
              "server-idle-probability": nz.server_idle_probability,
              "mean-number": nz.mean_number,
              "mean-response-time": nz.mean_response_time}
DISCIPLINES = ("collaborative", "alis", "rais")


def stable_point(model: Model, rng: random.Random) -> dict[str, sympy.Rational]:
    """Rational rates with total arrival rate below every service rate (so stable)."""
    lam_names = {s.name for r in model.arrival_rates.values() for s in r.free_symbols}
    out = {}
    for s in sorted(model.symbols, key=lambda s: s.name):
        if s.name in lam_names:
            out[s.name] = sympy.Rational(rng.randint(1, 9), 10 * (len(model.classes) + 1))
        else:
            out[s.name] = sympy.Rational(rng.randint(10, 30), 10)
    return out


def numeric(model, quantity, discipline, values):
    m = model.substitute({k: str(v) for k, v in values.items()})
    method = "subset-dp" if discipline == "collaborative" and is_nested(model) else "auto"
    return QUANTITIES[quantity](m, discipline, method=method)


def random_graph(rng: random.Random, servers: int, classes: int) -> Model:
    while True:
        rows = [rng.randrange(1, 1 << servers) for _ in range(classes)]
        used = 0
        for r in rows:
            used |= r
        if used == (1 << servers) - 1:
            key = ",".join("{" + ",".join(str(k + 1) for k in range(servers) if r >> k & 1) + "}"
                           for r in rows)
            return graph_from_key(key).to_model()


SMALL = [g.to_model() for g in compatibility_graphs(3, 3)]


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_structured_equals_numeric_on_every_small_graph(discipline):
    rng = random.Random(14)
    for model in SMALL:
        values = stable_point(model, rng)
        for quantity in QUANTITIES:
            got = structured(model, quantity, discipline).at(values)
            assert got == numeric(model, quantity, discipline, values), (model.name, quantity)


def test_structured_equals_numeric_on_random_graphs_up_to_six_servers():
    rng = random.Random(6)
    models = [random_graph(rng, m, j) for m, j in ((4, 3), (5, 4), (6, 3), (6, 6))]
    models.append(graph_from_key("{1},{2},{1,2},{3},{4},{3,4},{1,2,3,4,5}").to_model())
    for model in models:
        values = stable_point(model, rng)
        for discipline in DISCIPLINES:
            for quantity in QUANTITIES:
                got = structured(model, quantity, discipline).at(values)
                assert got == numeric(model, quantity, discipline, values), \
                    (model.compatibility, discipline, quantity)


def test_alis_and_rais_structures_agree():
    # two different structures (idle-order weights W vs busy-set weights D): same P(empty),
    # idle probabilities and mean numbers under the canonical routing
    rng = random.Random(3)
    for model in (symq.model("ring:4"), random_graph(rng, 5, 5)):
        values = stable_point(model, rng)
        for quantity in ("empty-probability", "server-idle-probability", "mean-number"):
            assert structured(model, quantity, "alis").at(values) == \
                structured(model, quantity, "rais").at(values)


def integer_point(model: Model, rng: random.Random) -> dict[str, int]:
    """Integer rates with total arrival rate below every service rate (so stable)."""
    lam_names = {s.name for r in model.arrival_rates.values() for s in r.free_symbols}
    out = {}
    for s in sorted(model.symbols, key=lambda s: s.name):
        out[s.name] = rng.randint(1, 9) if s.name in lam_names else \
            rng.randint(10 * len(model.classes), 30 * len(model.classes))
    return out


def expanded_at(f, values: dict[str, int]):
    """The expanded results of ``f`` at integer rates, evaluated from the polynomials."""
    def leaf(rf):
        point = [flint.fmpz(values[s.name]) for s in rf.field.symbols]
        return sympy.Rational(int(rf.num(*point)), int(rf.den(*point)))
    return _map(f.expanded_values(), leaf)


def check_expanded(f, values: dict[str, int]) -> None:
    """The expanded form of ``f`` equals the numeric exact algorithms at ``values``."""
    got = expanded_at(f, values)
    want = numeric(f.model, f.quantity, f.discipline, values)
    assert got == want, (f.model.compatibility, f.discipline, f.quantity)


# every graph up to 3x3 (28), a random 4-server graph and ring:4 (collaborative, ALIS G)
EXPANDED = SMALL + [random_graph(random.Random(4), 4, 3), symq.model("ring:4")]


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_expanded_equals_numeric(discipline):
    rng = random.Random(7)
    for model in EXPANDED:
        values = integer_point(model, rng)
        quantities = list(QUANTITIES)
        if model.name == "ring:4":  # the larger ones take seconds (benchmarks/formulas_bench.py)
            quantities = quantities if discipline == "collaborative" else ["normalizing-constant"]
            quantities = [q for q in quantities if not q.startswith("mean")]
        for quantity in quantities:
            f = structured(model, quantity, discipline)
            check_expanded(f, values)
            size = sum(len(v.num) + len(v.den) for v in _flat(f.expanded_values()))
            assert size <= f.expanded_size()  # the estimate of the expanded-terms limit


def test_a_corrupted_expanded_formula_is_caught():
    model = symq.model("ring:3")
    values = integer_point(model, random.Random(5))
    f = structured(model, "mean-number", "alis")
    check_expanded(f, values)
    bad = dataclasses.replace(f)
    good = f.expanded_values()
    rf = good["per_class"]["2"]
    wrong = type(rf)(rf.field, rf.num + rf.den, rf.den, reduce=False)  # the value plus one
    bad._expanded = as_result({"total": good["total"],
                                            "per_class": {**good["per_class"], "2": wrong}})
    with pytest.raises(AssertionError):
        check_expanded(bad, values)


def test_factored_form_equals_numeric():
    rng = random.Random(7)
    for model in [g.to_model() for g in compatibility_graphs(3, 2)] + [symq.model("ring:3")]:
        values = stable_point(model, rng)
        point = {positive_symbol(k): v for k, v in values.items()}
        for discipline in DISCIPLINES:
            for quantity in QUANTITIES:
                if len(model.servers) == 3 and quantity.startswith("mean"):
                    continue  # sympy is slow on these; the expanded test covers them
                f = structured(model, quantity, discipline)
                got = _map(f.expanded("factored"), lambda e: e.xreplace(point))
                assert got == numeric(model, quantity, discipline, values), (model, quantity)


def test_expanded_limit_refuses_with_an_estimate(capsys):
    """``derive --form expanded`` is refused past ``expanded-terms`` (exit status 2, the
    estimate in one line); a limit equal to the estimate runs, one less is refused."""
    code = main(["derive", "ring:4", "mean-number", "--form", "expanded", "--discipline", "alis"])
    err = capsys.readouterr().err
    assert code == 2 and "terms (limit 6,000,000)" in err and "--max-work" in err
    estimate = structured("w", "mean-number", "alis").expanded_size()
    assert main(["derive", "w", "mean-number", "--form", "expanded", "--discipline", "alis",
                 "--max-work", str(estimate)]) == 0
    capsys.readouterr()
    assert main(["derive", "w", "mean-number", "--form", "expanded", "--discipline", "alis",
                 "--max-work", str(estimate - 1)]) == 2
    assert f"needs about {estimate:,} terms" in capsys.readouterr().err


def _flat(shape):
    if isinstance(shape, dict):
        return [x for v in shape.values() for x in _flat(v)]
    return [shape]


def _map(shape, leaf):
    if isinstance(shape, dict):
        return {k: _map(v, leaf) for k, v in shape.items()}
    return leaf(shape)


def test_expanded_equals_the_old_derivation():
    for discipline in DISCIPLINES:
        new = structured("w", "mean-number", discipline).expanded()
        old = symq.derive("w", "mean-number", discipline)
        assert sympy.cancel(new["per_class"]["3"] - old["per_class"]["3"]) == 0


def test_a_corrupted_definition_is_caught():
    rng = random.Random(1)
    model = symq.model("ring:3")
    values = stable_point(model, rng)
    f = structured(model, "mean-number", "alis")
    good = f.at(values)
    assert good == numeric(model, "mean-number", "alis", values)
    k = next(i for i, d in enumerate(f.definitions) if d.name.startswith("V__"))
    d = f.definitions[k]
    bad_terms = [Term(t.coef * 2, t.names) if j == 0 else t for j, t in enumerate(d.terms)]
    corrupted = dataclasses.replace(f, definitions=[*f.definitions[:k],
                                                    dataclasses.replace(d, terms=bad_terms),
                                                    *f.definitions[k + 1:]])
    assert corrupted.at(values) != numeric(model, "mean-number", "alis", values)


def test_json_expressions_read_back_and_evaluate():
    rng = random.Random(2)
    model = symq.model("ring:3")
    values = stable_point(model, rng)
    for discipline in DISCIPLINES:
        f = structured(model, "mean-response-time", discipline)
        data = f.as_json()
        env = {}
        point = {positive_symbol(k): v for k, v in values.items()}
        for d in data["definitions"]:
            assert "__" in d["name"] and d["latex"]
            expr = parse_expression(d["expr"], d["name"], functions=FORMULA_FUNCTIONS,
                                    variables=env, max_length=100_000)
            env[d["name"]] = expr.xreplace(point)
        want = numeric(model, "mean-response-time", discipline, values)
        assert env[data["result"]["total"]] == want["total"]


def test_names_cannot_clash_with_rates():
    with pytest.raises(ModelError, match="contains '__'"):
        clash = Model(compatibility={"1": ["1"]}, arrival_rates={"1": sympy.Symbol("H__1")},
                      service_rates={"1": positive_symbol("mu")})
        structured(clash, "empty-probability")
    # a rate whose LaTeX looks like a name: the names are set in sans serif instead
    look = Model(compatibility={"1": ["1"], "2": ["1", "2"]},
                 arrival_rates={"1": positive_symbol("H_1"), "2": positive_symbol("lambda")},
                 service_rates={"1": positive_symbol("mu_1"), "2": positive_symbol("mu_2")})
    assert r"\mathsf{H}" in structured(look, "empty-probability", "alis").latex()
    assert Builder(symq.model("w"))._decorate is False


def test_every_line_is_short():
    from symq.engines.formulas.render import width
    f = structured(graph_from_key("{1},{2},{1,2},{3},{4},{3,4},{1,2,3,4,5}").to_model(),
                   "mean-number", "rais")
    for line in f.latex().splitlines()[1:-1]:
        assert width(line) < 80, line


def test_cli_forms_and_json(capsys):
    assert main(["derive", "w", "empty-probability", "--discipline", "alis"]) == 0
    out = capsys.readouterr().out
    assert "W__1_2 = " in out and "\nresult: P__empty\n# G__ALIS = 1/pi(" in out
    assert main(["derive", "w", "mean-number", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("% symq: mean-number of w") and "per_class" not in out
    assert r"\allowdisplaybreaks" in out.splitlines()[1] and "\\begin{align*}" in out
    assert main(["derive", "n", "mean-number", "--form", "expanded", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert r"\begin{align*}" in out and "L_{1} &= " in out and "per_class" not in out
    assert main(["derive", "w", "mean-number", "--form", "factored", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["form"] == "factored" and data["structured"]["result"]["total"] == "L__all"
    assert set(data["result"]) == {"total", "per_class"}
    assert set(FORMS) == {"structured", "expanded", "factored"}


def test_factored_form_leaves_large_factors_whole(monkeypatch):
    """Past ``factor_terms`` a polynomial is only divided by the known factors (flint's
    factoring of the largest normalizing constants takes minutes and gigabytes); the value
    is unchanged."""
    from symq.engines.formulas.arith import RationalFunctions, to_sympy
    model = symq.model("ring:3")
    values = integer_point(model, random.Random(8))
    f = structured(model, "empty-probability", "alis")
    want = numeric(model, "empty-probability", "alis", values)
    monkeypatch.setattr(RationalFunctions, "factor_terms", 20)
    expr = to_sympy(f.expanded_values(), "factored")
    point = {positive_symbol(k): v for k, v in values.items()}
    assert expr.xreplace(point) == want
    assert any(len(sympy.Add.make_args(b)) > 20 for b, _ in
               [p.as_base_exp() for p in sympy.Mul.make_args(sympy.denom(expr))])


def test_factored_denominators_give_the_gcd_cancelled_function():
    """The factored-denominator route (cancellation by exact division by known factors) gives
    exactly the polynomials of the plain route that cancels by a multivariate gcd after every
    operation: the same canonical (fully cancelled) rational function."""
    from symq.engines.formulas.arith import FactoredFunctions, RationalFunctions, evaluate_definitions
    for model in [g.to_model() for g in compatibility_graphs(3, 2)] + [symq.model("w")]:
        symbols = sorted(model.symbols, key=lambda s: s.name)
        for discipline in DISCIPLINES:
            for quantity in ("server-idle-probability", "mean-response-time"):
                f = structured(model, quantity, discipline)
                plain, factored = RationalFunctions(symbols), FactoredFunctions(symbols)
                a = evaluate_definitions(f.definitions, plain.leaf, plain.number)
                b = evaluate_definitions(f.definitions, factored.leaf, factored.number)
                for _, name in f.result_names():
                    got = factored.finish(b[name])
                    assert (got.num, got.den) == (a[name].num, a[name].den), (model, name)
