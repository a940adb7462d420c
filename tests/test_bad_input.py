"""Every bad input gets symq's own error naming the culprit; the CLI exits with status 2."""

import math

import pytest
import sympy
from hypothesis import given, strategies as st

import symq
from symq import Model, ModelError, UnknownModelError
from symq.cli import main
from symq.models.rates import parse_rate


def build(arrival="1/2", service=1, compatibility=None):
    return Model(compatibility=compatibility or {"a": ["x"]}, arrival_rates={"a": arrival},
                 service_rates={"x": service})


@pytest.mark.parametrize("rate,pattern", [
    (0.3, r"class 'a' is the float 0\.3; pass \"3/10\""),
    (-1, "class 'a' is -1, which is not positive"),
    (0, "class 'a' is 0"),
    ("0", "class 'a' is 0"),
    (sympy.oo, "class 'a' is infinite"),
    (sympy.nan, "class 'a' is NaN"),
    (float("nan"), "class 'a' is nan"),
    (math.inf, "class 'a' is inf"),
    ("nan", "class 'a' is nan"),
    ("-2/3", "not positive"),
    ("1/0", "class 'a'"),
    ("lambda_1 +", "class 'a'"),
    (True, "class 'a' is the boolean"),
])
def test_bad_arrival_rate_is_rejected(rate, pattern):
    with pytest.raises(ModelError, match=pattern):
        build(arrival=rate)


def test_bad_service_rate_names_the_server():
    with pytest.raises(ModelError, match="server 'x' is the float 1.5"):
        build(service=1.5)


def test_wrong_type_is_type_error():
    with pytest.raises(TypeError, match="arrival rate of class 'a'"):
        build(arrival=[1])


def test_class_without_server():
    with pytest.raises(ModelError, match="class 'a' has no compatible server"):
        build(compatibility={"a": []})


def test_server_without_class():
    with pytest.raises(ModelError, match="server 'y' serves no class"):
        Model(compatibility={"a": ["x"]}, arrival_rates={"a": 1}, service_rates={"x": 2, "y": 1})


def test_unknown_server():
    with pytest.raises(ModelError, match="class 'a' names the unknown server 'z'"):
        build(compatibility={"a": ["z"]})


def test_duplicate_server_in_a_class():
    with pytest.raises(ModelError, match="duplicate server of class 'a' name 'x'"):
        build(compatibility={"a": ["x", "x"]})


def test_duplicate_names_across_int_and_str():
    with pytest.raises(ModelError, match="duplicate server name '1'"):
        Model(compatibility={"a": ["1"]}, arrival_rates={"a": 1}, service_rates={1: 2, "1": 3})


def test_unknown_builtin_name():
    with pytest.raises(UnknownModelError, match="unknown model 'v'.*built-in models"):
        symq.model("v")


@pytest.mark.parametrize("name,pattern", [("redundancy:3", "redundancy:K:D"),
                                          ("redundancy:3:5", "D .* between 1 and 3"),
                                          ("ring:x", "'x' is not an integer")])
def test_bad_parametric_names(name, pattern):
    with pytest.raises(UnknownModelError, match=pattern):
        symq.model(name)


TOML_CASES = [
    ("[classes.1\narrival_rate = 1", "malformed TOML"),
    ('[classes.1]\narrival_rate = 0.3\nservers = ["1"]\n[servers.1]\nservice_rate = "1"',
     "class '1' is the float 0.3"),
    ('[classes.1]\narrival_rate = "1"\nservers = ["2"]\n[servers.1]\nservice_rate = "1"',
     "unknown server '2'"),
    ('[classes.1]\narrival_rate = "1"\n[servers.1]\nservice_rate = "1"',
     "class '1' has no compatible server"),
    ('[classes.1]\narrival_rate = "1"\nservers = ["1"]\n[servers.1]\nservice_rate = "1"\n'
     '[servers.2]\nservice_rate = "1"', "server '2' serves no class"),
    ('[classes.1]\narrival_rate = "1"\nservers = ["1"]\n[classes.1]\narrival_rate = "2"',
     "malformed TOML"),
    ('[classes.1]\narival_rate = "1"\nservers = ["1"]\n[servers.1]\nservice_rate = "1"',
     "class '1' has unknown key"),
    ('[classes.1]\narrival_rate = "-1"\nservers = ["1"]\n[servers.1]\nservice_rate = "1"',
     "class '1' is -1"),
    ('[classes.1]\narrival_rate = nan\nservers = ["1"]\n[servers.1]\nservice_rate = "1"',
     "class '1' is nan"),
    ('[classes.1]\narrival_rate = "1"\nservers = ["1"]\n[servers.1]\nservice_rate = inf',
     "server '1' is inf"),
]


@pytest.mark.parametrize("text,pattern", TOML_CASES)
def test_bad_toml_file(tmp_path, capsys, text, pattern):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ModelError, match=pattern):
        symq.load(path)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("symq: error:") and "\n" not in err and "Traceback" not in err


def test_missing_file():
    with pytest.raises(UnknownModelError, match="does not exist"):
        symq.load("/nonexistent/model.toml")


@pytest.mark.parametrize("argv,pattern", [
    (["show", "v"], "unknown model 'v'"),
    (["evaluate", "w", "empty-probability", "--set", "lambda_1=0"], "--set lambda_1 is 0"),
    (["evaluate", "w", "empty-probability", "--set", "lambda_9=1"], "no symbol 'lambda_9'"),
    (["evaluate", "w", "empty-probability", "--set", "lambda_1"], "write NAME=VALUE"),
    (["evaluate", "w", "empty-probability", "--set", "lambda_1=1"], "missing: lambda_2"),
    (["evaluate", "n", "empty-probability", "--set", "lambda_1=1", "--set", "lambda_2=1",
      "--set", "mu_1=1", "--set", "mu_2=1"], r"unstable: classes \{'1'.*\} bring"),
    (["derive", "w", "no-such-quantity"], "invalid choice: 'no-such-quantity'"),
    (["derive", "w", "empty-probability", "--discipline", "fifo"], "invalid choice: 'fifo'"),
    (["evaluate", "w", "empty-probability", "--digits", "0"], "--digits must be from 1"),
])
def test_cli_bad_input_exit_status_2(capsys, argv, pattern):
    import re
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert re.search(pattern, err), err
    assert err.count("\n") == 1 and "Traceback" not in err


@given(st.text(max_size=200))
def test_random_toml_only_raises_symq_errors(text):
    try:
        symq.loads(text)
    except ModelError:
        pass


@given(st.text(alphabet=st.sampled_from(list("0123456789./-+*() eEabcxyz_lambdnfio")), max_size=30))
def test_random_rate_strings_only_raise_symq_errors(text):
    try:
        value = parse_rate(text, "rate")
    except ModelError:
        return
    assert isinstance(value, sympy.Expr) and not value.has(sympy.Float)
    assert value.is_positive is not False


@given(st.dictionaries(st.sampled_from(["1", "2", "x"]),
                       st.one_of(st.text(max_size=8), st.integers(-3, 3), st.floats()),
                       max_size=3))
def test_random_rate_tables_in_toml_only_raise_symq_errors(rates):
    import json
    lines = []
    for name, value in rates.items():
        literal = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) \
            else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))
        lines += [f'[classes."{name}"]', f"arrival_rate = {literal}", 'servers = ["1"]']
    lines += ["[servers.1]", 'service_rate = "1"']
    try:
        symq.loads("\n".join(lines))
    except ModelError:
        pass
