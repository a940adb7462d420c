"""Hostile text never runs: every rate, weight, --set value and formula string goes through
symq/arithmetic/expressions.py, which refuses anything outside its small grammar with a ModelError.

The guard below replaces os.system, subprocess, open, eval, exec, compile and the import of
modules not loaded yet by functions that record the call and raise; a test that the guard
itself trips (on sympy's own parse_expr, which is eval) shows it is not vacuous.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.metadata
import json
import os
import subprocess
import sys

import pytest
import sympy
import sympy.assumptions.wrapper  # noqa: F401  sympy imports it lazily on its first sign query
from hypothesis import HealthCheck, given, settings, strategies as st

import symq
from symq import Model, ModelError, UnstableModelError
from symq.cli import main
from symq.engines.distributions import THETA, TIME
from symq.arithmetic.expressions import (MAX_DEPTH, MAX_DIGITS, MAX_LENGTH, parse_expression,
                              parse_formula)
from symq.models.rates import parse_rate, positive_symbol


# ------------------------------------------------------------------------------ the guard
@contextlib.contextmanager
def nothing_runs(strict: bool = True):
    """Record (and stop) every attempt to run code, open files or import new modules; with
    ``strict=False`` (a whole CLI run, which reads files and imports lazily) only running code
    (os.system, subprocess, eval, exec) is stopped."""
    calls: list[str] = []
    real_import = builtins.__import__

    def refuse(name):
        def stop(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} was called while parsing")
        return stop

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name not in sys.modules or name.split(".")[0] in
                           ("os", "subprocess", "shutil", "socket", "ctypes", "pty")):
            calls.append(f"import {name}")
            raise AssertionError(f"import {name} while parsing")
        return real_import(name, globals, locals, fromlist, level)

    patches = [(os, "system"), (os, "popen"), (subprocess, "Popen"), (builtins, "eval"),
               (builtins, "exec")]
    if strict:
        patches += [(builtins, "open"), (builtins, "compile"), (importlib, "import_module")]
    saved = [(module, attr, getattr(module, attr)) for module, attr in patches]
    try:
        for module, attr in patches:
            setattr(module, attr, refuse(f"{module.__name__}.{attr}"))
        if strict:
            builtins.__import__ = guarded_import
        yield calls
    finally:
        builtins.__import__ = real_import
        for module, attr, original in saved:
            setattr(module, attr, original)


def test_the_guard_trips_on_code_that_runs():
    # must fail: sympy's parse_expr is eval, so the guard must see it
    with nothing_runs() as calls:
        with contextlib.suppress(Exception):
            sympy.parse_expr("1 + 1")
    assert calls, "the guard did not notice eval/compile"


# ------------------------------------------------------------------------------ hostile text
ATTRIBUTES = st.sampled_from([
    "sqrt.__globals__", "sqrt.__globals__['__builtins__']", "x.__class__", "mu_1.real",
    "lambda_1.__class__.__mro__", "().__class__.__bases__[0].__subclasses__()",
    "Rational.__new__", "sqrt.__call__(2)", "x .__class__", "1 .real"])
DUNDERS = st.from_regex(r"__[a-z]{1,10}__", fullmatch=True)
CALLS = st.builds("{}({})".format,
                  st.sampled_from(["__import__", "open", "eval", "exec", "getattr", "os.system",
                                   "compile", "globals", "print", "breakpoint", "exit", "Symbol",
                                   "Integer", "sympify", "type", "vars", "input", "Float"]),
                  st.sampled_from(["'os'", "1", "x", "'/etc/passwd'", "", "\"rm -rf /\""]))
LAMBDAS = st.sampled_from(["lambda: 1", "(lambda x: x)(1)", "lambda *a: a", "lambda x=1: x",
                           "lambda_1 if x else y", "(lambda: __import__('os'))()"])
COMPREHENSIONS = st.sampled_from(["[x for x in y]", "{x for x in y}", "{x: 1 for x in y}",
                                  "(x for x in y)", "[i for i in range(10**9)]",
                                  "sum(x for x in y)", "[*x]", "{**x}"])
HUGE = st.one_of(st.integers(MAX_DIGITS + 1, 10**12).map("1e{}".format),
                 st.integers(MAX_DIGITS + 1, 10**12).map("1e-{}".format),
                 st.integers(1001, 10**9).map("10**{}".format),
                 st.integers(MAX_DIGITS + 1, MAX_DIGITS + 500).map(lambda n: "9" * n),
                 st.sampled_from(["9**9**9", "(9**1000)**1000", "((x**1000)**1000)",
                                  "(123456*x)**1000", "1e999999999", "1e5000",
                                  "x**1000*x", "sqrt(" + "7" * 200 + ")", "1/0", "0**-1"]))
NESTING = st.one_of(st.integers(MAX_DEPTH + 1, 400).map(lambda n: "(" * n + "x" + ")" * n),
                    st.integers(MAX_DEPTH + 1, 400).map(lambda n: "-" * n + "x"),
                    st.integers(MAX_DEPTH + 1, 150).map(lambda n: "sqrt(" * n + "2" + ")" * n),
                    st.integers(1, 400).map(lambda n: "(" * n))
LONG = st.integers(MAX_LENGTH // 2, 20 * MAX_LENGTH).map(lambda n: "x+" * n + "x")
OTHER = st.sampled_from(["'a'", "b'a'", "x[0]", "x; y", "x = 1", "x == y", "x @ y", "x % 2",
                         "x | y", "~x", "`x`", "x # comment", "$x$", "2x", "x y", "None", "True",
                         "import os", "pi", "E", "I", "oo", "zoo", "nan", "S", "N", "lambda_1 + *",
                         "x**y", "x**0.5", "f(x)", "x:y", "é", "x\\\ny", "sqrt", "Rational",
                         "Rational(x, 2)", "exp(1)"])
HOSTILE = st.one_of(ATTRIBUTES, DUNDERS, CALLS, LAMBDAS, COMPREHENSIONS, HUGE, NESTING, LONG,
                    OTHER)
WRAPPED = st.builds("{}{}{}".format, st.sampled_from(["", "1 + ", "lambda_1*", "2/(", "mu - "]),
                    HOSTILE, st.sampled_from(["", " + 1", "*mu", ")"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(WRAPPED)
def test_hostile_rate_strings_never_run_and_get_a_model_error(text):
    with nothing_runs() as calls:
        try:
            parse_rate(text, "arrival rate of class '1'")
        except ModelError as error:
            message = str(error)
        else:
            message = None
    assert not calls, calls
    assert message is not None, f"{text[:80]!r} was accepted"
    assert message.startswith("arrival rate of class '1'") and "\n" not in message


@settings(max_examples=100, deadline=None)
@given(st.one_of(ATTRIBUTES, CALLS, LAMBDAS, COMPREHENSIONS, HUGE, OTHER.filter(
    lambda s: s not in ("exp(1)",))))
def test_hostile_formula_strings_are_refused_by_evaluate(text):
    evaluate = symq.evaluate  # symq loads evaluate lazily: import it before the guard
    with nothing_runs() as calls:
        with pytest.raises(ModelError):
            evaluate(text, {})
    assert not calls


@settings(max_examples=60, deadline=None)
@given(st.one_of(ATTRIBUTES, CALLS, LAMBDAS, COMPREHENSIONS, HUGE))
def test_hostile_rates_in_a_toml_model_are_refused(text):
    toml = (f'[classes.1]\narrival_rate = {json.dumps(text)}\nservers = ["1"]\n'
            '[servers.1]\nservice_rate = "1"\n')
    loads = symq.loads   # symq's lazy attribute imports its module once, outside the check
    with nothing_runs() as calls:
        with pytest.raises(ModelError, match="arrival rate of class '1'"):
            loads(toml)
    assert not calls


def test_the_old_whitelist_bypass_is_refused():
    # must fail: this string passed the old character whitelist and reached sympy's eval
    with nothing_runs() as calls:
        with pytest.raises(ModelError, match=r"'\.' at position 4 is not allowed \(no attribute"):
            parse_rate("sqrt.__globals__", "rate")
    assert not calls


def test_huge_numbers_are_refused_at_once():
    import time
    # CPU seconds of this process, not wall-clock (a busy machine stretches only the latter);
    # the five refusals take under a millisecond of CPU
    start = time.process_time()
    for text in ("1e999999999", "1e5000", "9" * 100000, "10**999999", "1e" + "9" * 50000):
        with pytest.raises(ModelError, match="digits|characters|larger than"):
            parse_rate(text, "rate")
    assert time.process_time() - start < 2


# ------------------------------------------------------------------------------ the CLI
def _warm_up(capsys) -> None:
    """Run the error paths once unguarded, so that the lazy imports of the CLI (which the
    import system runs with exec) are done before the guarded run."""
    main(["show", "no-such-model"])
    main(["evaluate", "w", "empty-probability", "--set", "mu_1=x.y"])
    capsys.readouterr()


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("symq: error:") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("rate", ["sqrt.__globals__", "__import__('os').system('echo hi')",
                                  "(lambda: 1)()", "[x for x in y]", "1e5000", "(" * 200 + "x",
                                  "x+" * 600 + "x"])
def test_cli_refuses_hostile_rates_in_a_model_file(tmp_path, capsys, rate):
    _warm_up(capsys)
    path = tmp_path / "hostile.toml"
    path.write_text(f'[classes.1]\narrival_rate = {json.dumps(rate)}\nservers = ["1"]\n'
                    '[servers.1]\nservice_rate = "1"\n')
    with nothing_runs(strict=False) as calls:
        status = main(["show", str(path)])
    assert status == 2 and not calls
    assert "arrival rate of class '1'" in _one_line_error(capsys)


@pytest.mark.parametrize("setting,pattern", [
    ("mu_1=1e999999999", "beyond 4000"),
    ("mu_1=sqrt.__globals__", "no attribute access"),
    ("mu_1=__import__('os')", "not allowed"),
    ("lambda_1=lambda: 1", "not allowed"),
    ("mu_1=1e5000", "beyond 4000"),
])
def test_cli_refuses_hostile_set_values(capsys, setting, pattern):
    _warm_up(capsys)
    with nothing_runs(strict=False) as calls:
        status = main(["evaluate", "w", "empty-probability", "--set", setting])
    assert status == 2 and not calls
    assert pattern in _one_line_error(capsys)


def test_cli_refuses_hostile_weights(capsys):
    status = main(["supermarket", "w", "--weights", "1=sqrt.__globals__"])
    assert status == 2
    assert "weight of station '1'" in _one_line_error(capsys)


def test_cli_set_value_with_lambda_is_read():
    assert main(["show", "uninformed:2", "--set", "lambda=mu_1/2", "--set", "mu_2=1"]) == 0


# ------------------------------------------------------------------------------ good text
@pytest.mark.parametrize("text,expected", [
    ("lambda/2", positive_symbol("lambda") / 2),
    ("3/10", sympy.Rational(3, 10)),
    ("0.3", sympy.Rational(3, 10)),
    ("2.5e-3", sympy.Rational(1, 400)),
    ("1e3", sympy.Integer(1000)),
    ("2*mu_1+1/3", 2 * positive_symbol("mu_1") + sympy.Rational(1, 3)),
    ("mu_1**2", positive_symbol("mu_1") ** 2),
    ("mu_1^2", positive_symbol("mu_1") ** 2),
    ("lambda_1", positive_symbol("lambda_1")),
    ("lambda*mu_1", positive_symbol("lambda") * positive_symbol("mu_1")),
    ("(lambda_1 + lambda_2)/(mu_1 - 1)**(-2)",
     (positive_symbol("lambda_1") + positive_symbol("lambda_2")) * (positive_symbol("mu_1") - 1) ** 2),
    ("-x**2", -positive_symbol("x") ** 2),
    ("sqrt(4)", sympy.Integer(2)),
    ("Rational(3, 10)", sympy.Rational(3, 10)),
])
def test_good_text_is_read_exactly(text, expected):
    value = parse_expression(text)
    assert value == expected and not value.has(sympy.Float)
    assert all(s.is_positive for s in value.free_symbols)


def test_formula_variables_are_those_of_distributions():
    assert parse_formula("theta + t") == THETA + TIME
    assert parse_formula("1 - exp(-t*mu)") == 1 - sympy.exp(-TIME * positive_symbol("mu"))


@pytest.mark.parametrize("argv", [
    ["derive", "uninformed:3", "empty-probability", "--discipline", "rais"],
    ["derive", "uninformed:3", "mean-number", "--discipline", "rais"],
    ["derive", "redundancy:3:2", "mean-response-time"],
    ["derive", "n", "response-time"],
])
def test_derive_output_reads_back(capsys, argv):
    assert main(argv + ["--form", "expanded", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = symq.derive(argv[1], argv[2], *argv[4:5])

    def leaves(result, shown):
        if isinstance(result, dict):
            for key in result:
                yield from leaves(result[key], shown[key])
        else:
            yield result, shown["expr"]

    for exact, text in leaves(expected, data["result"]):
        parsed = parse_formula(text)  # equal, though -(a - b)/c may come back as (b - a)/c
        assert parsed == exact or sympy.cancel(parsed - exact) == 0, text[:80]


def test_derive_output_evaluates_as_a_string():
    text = str(symq.derive("uninformed:3", "empty-probability", "rais"))
    values = {"lambda": "1/2", "mu_1": 1, "mu_2": "1/3", "mu_3": "2/3"}
    direct = symq.evaluate(symq.derive("uninformed:3", "empty-probability", "rais"), values)
    assert symq.evaluate(text, values).exact == direct.exact


# ------------------------------------------------------------------------------ the Python API
N_UNSTABLE = {"lambda_1": "3/2", "lambda_2": 1, "mu_1": 1, "mu_2": 1}


def test_evaluate_of_an_unstable_model_raises():
    # before: p0 = 1/2 and a mean number of -11 for these unstable rates
    with pytest.raises(UnstableModelError, match="unstable: classes"):
        symq.evaluate(symq.empty_probability(symq.model("n")), N_UNSTABLE)
    with pytest.raises(UnstableModelError):
        symq.evaluate(symq.mean_number("n"), N_UNSTABLE)
    with pytest.raises(UnstableModelError):
        symq.evaluate(symq.derive("n", "mean-number"), N_UNSTABLE)
    # an explicit model works for formulas the registry does not know (a parsed string)
    text = str(symq.empty_probability("n")) + " + 0"
    with pytest.raises(UnstableModelError):
        symq.evaluate(text, N_UNSTABLE, model="n")
    stable = dict(N_UNSTABLE, lambda_1="1/2", lambda_2="1/4")
    assert symq.evaluate(symq.empty_probability("n"), stable).exact > 0


def test_unknown_names_are_refused_without_cli_wording():
    p0 = symq.empty_probability("w")
    with pytest.raises(ModelError, match="no symbol 'mu_3'") as caught:
        symq.evaluate(p0, {"mu_3": 1})
    assert "--set" not in str(caught.value)
    with pytest.raises(ModelError, match="no symbol 'x'") as caught:
        symq.model("w").substitute({"x": 1})
    assert "--set" not in str(caught.value)
    with pytest.raises(ModelError, match="no value for the symbol") as caught:
        symq.evaluate(sympy.Symbol("x", positive=True) + 1, {})
    assert "--set" not in str(caught.value)


def test_functions_take_a_name_or_a_path(tmp_path):
    w = symq.model("w")
    assert symq.empty_probability("w") == symq.empty_probability(w)
    assert symq.is_nested("w") and not symq.is_nested("ring:3")
    path = tmp_path / "w.toml"
    path.write_text(w.to_toml())
    assert symq.mean_number(path) == symq.mean_number(w)
    assert symq.derive(str(path), "empty-probability") == symq.derive(w, "empty-probability")
    with pytest.raises(symq.UnknownModelError):
        symq.empty_probability("no-such-model")


def test_model_without_classes_is_refused():
    with pytest.raises(ModelError, match="at least one class"):
        Model()
    with pytest.raises(ModelError, match="at least one class"):
        Model(compatibility={}, arrival_rates={}, service_rates={})
    assert symq.model("w").remove_servers(["1", "2"]).is_empty  # reductions may still empty it


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"symq {importlib.metadata.version('symq')}"
