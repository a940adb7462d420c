"""The rate grammar reads ASCII only, values keep the text the user wrote, and what
``Model.to_toml`` writes reads back (issue 37, part 3).

Every refusal is checked by the exact culprit it names (the code point and its Unicode name),
every acceptance by the value it yields, compared with the value written in ASCII.
"""

import subprocess
import sys
import unicodedata

import pytest
import sympy
from hypothesis import given, strategies as st

import symq
from symq.arithmetic.expressions import parse_expression, rate_text
from symq.cli import main
from symq.errors import ArgumentTypeError, ModelError
from symq.models.rates import RateText

#: one digit of each script the issue names, and the value written with it
FOREIGN_DIGITS = {"\u0660": "ARABIC-INDIC DIGIT ZERO", "\uff15": "FULLWIDTH DIGIT FIVE",
                  "\u06f5": "EXTENDED ARABIC-INDIC DIGIT FIVE",
                  "\u096b": "DEVANAGARI DIGIT FIVE"}


def _every_non_ascii_digit():
    return [chr(c) for c in range(0x80, 0x110000) if chr(c).isdigit()]


@pytest.mark.parametrize("digit", ["\u0660", "\uff15", "\u06f5", "\u096b", "\u0665"])
def test_foreign_digits_are_refused_by_name(digit):
    text = f"1{digit}5"
    with pytest.raises(ModelError) as error:
        parse_expression(text, "value of mu_1")
    assert str(error.value) == (f"value of mu_1: {text!r} holds U+{ord(digit):04X} "
                                f"{unicodedata.name(digit)}; write ASCII digits 0-9")


def test_every_unicode_digit_is_refused():
    """Python's int() reads all of these; the grammar none."""
    digits = _every_non_ascii_digit()
    assert len(digits) > 600
    for digit in digits:
        with pytest.raises(ModelError, match=f"U\\+{ord(digit):04X}"):
            parse_expression("2" + digit, "rate")


@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\u3000", "\u200b", "\u2009"])
def test_foreign_spaces_are_refused_by_name(space):
    with pytest.raises(ModelError, match=f"U\\+{ord(space):04X}"):
        parse_expression(f"1{space}+ 2", "rate")


def test_cli_set_and_weights_refuse_arabic_indic_zero(capsys):
    assert main(["show", "n", "--set", "mu_1=1\u06605"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["symq: error: --set mu_1: '1\u06605' holds U+0660 ARABIC-INDIC DIGIT ZERO; "
                   "write ASCII digits 0-9"]
    rates = ["--set", "lambda_1=1/4", "--set", "lambda_2=1/4", "--set", "mu_1=1", "--set",
             "mu_2=1"]
    assert main(["supermarket", "n", *rates, "--weights", "1=\uff12"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "U+FF12 FULLWIDTH DIGIT TWO" in err[0]


@pytest.mark.parametrize("argv", [["show", "ring:\uff13"], ["show", "redundancy:\u0663:2"],
                                  ["uninformed", "law", "--servers", "\uff12"]])
def test_whole_number_arguments_refuse_foreign_digits(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds U+" in err[0] and "ASCII digits" in err[0]


def test_set_value_is_read_once_and_keeps_its_text():
    """A 27-character value whose number has 2,278 digits: refused before only because its
    printed form was read again."""
    value = RateText.read("9**1000*7**1000*3**1000", "--set mu_1")
    assert value.written == "9**1000*7**1000*3**1000"
    assert value.expr == sympy.Integer(189) ** 1000
    m = symq.model("n").substitute({"mu_1": value})
    assert m.service_rates["1"] == sympy.Integer(189) ** 1000


def test_set_value_naming_another_set_value(capsys):
    """``--set mu_1=lambda_1*4`` with lambda_1 set: both values are put in (not "missing")."""
    args = ["--set", "lambda_1=1/4", "--set", "lambda_2=1/5", "--set", "lambda_3=1/5",
            "--set", "mu_2=1"]
    assert main(["evaluate", "w", "empty-probability", "--discipline", "alis", *args,
                 "--set", "mu_1=lambda_1*4", "--json"]) == 0
    chained = capsys.readouterr().out
    assert main(["evaluate", "w", "empty-probability", "--discipline", "alis", *args,
                 "--set", "mu_1=1", "--json"]) == 0
    direct = capsys.readouterr().out
    import json
    assert json.loads(chained)["result"] == json.loads(direct)["result"]


def test_cyclic_set_values_are_refused(capsys):
    assert main(["show", "n", "--set", "mu_1=lambda_2", "--set", "lambda_2=mu_1"]) == 2
    assert capsys.readouterr().err.strip() == (
        "symq: error: the values of lambda_2, mu_1 refer to each other in a cycle; give each "
        "one a number or a symbol that has no value")


def test_set_given_twice_is_refused(capsys):
    assert main(["show", "n", "--set", "mu_1=1", "--set", "mu_1=2"]) == 2
    assert capsys.readouterr().err.strip() == \
        "symq: error: --set mu_1 is given twice; give each symbol one value"


def test_to_toml_writes_fourth_roots_the_grammar_reads():
    m = symq.Model(compatibility={"1": ["1"]},
                   arrival_rates={"1": sympy.Integer(2) ** sympy.Rational(1, 4) / 10},
                   service_rates={"1": sympy.Integer(3) ** sympy.Rational(3, 2)})
    back = symq.loads(m.to_toml())
    assert back == m
    assert back.arrival_rates["1"] == sympy.root(2, 4) / 10


def test_to_toml_refuses_a_cube_root_by_name():
    m = symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": sympy.cbrt(2)},
                   service_rates={"1": 4})
    with pytest.raises(ModelError, match="arrival rate of class '1' '2\\*\\*\\(1/3\\)' cannot be "
                                         "written"):
        m.to_toml()


_NAMES = st.sampled_from([sympy.Symbol(n, positive=True) for n in ("lambda_1", "mu", "x_2")])
_NUMBERS = st.builds(sympy.Rational, st.integers(-10**30, 10**30), st.integers(1, 10**30))
_ATOMS = st.one_of(_NAMES, _NUMBERS, st.integers(1, 50).map(sympy.sqrt))


def _extend(children):
    return st.one_of(
        st.tuples(children, children).map(lambda ab: ab[0] + ab[1]),
        st.tuples(children, children).map(lambda ab: ab[0] * ab[1]),
        st.tuples(children, children).filter(lambda ab: ab[1] != 0)
        .map(lambda ab: ab[0] / ab[1]),
        st.tuples(children, st.integers(-6, 6)).filter(lambda ab: ab[0] != 0 or ab[1] > 0)
        .map(lambda ab: ab[0] ** ab[1]),
        children.filter(lambda a: a.is_positive).map(sympy.sqrt),
        st.tuples(_NAMES, st.sampled_from([sympy.Rational(1, 4), sympy.Rational(3, 4),
                                           sympy.Rational(-1, 2), sympy.Rational(5, 8)]))
        .map(lambda ab: ab[0] ** ab[1]))


@given(st.recursive(_ATOMS, _extend, max_leaves=8))
def test_rate_text_round_trips(expr):
    """Whatever the grammar can express, ``rate_text`` writes it so that it reads back equal."""
    if expr.has(sympy.zoo, sympy.nan, sympy.oo) or not expr.is_finite:
        return
    text = rate_text(expr)
    assert sympy.simplify(parse_expression(text, "rate") - expr) == 0


@given(st.recursive(_ATOMS, _extend, max_leaves=6))
def test_to_toml_round_trips_positive_rates(expr):
    rate = expr ** 2 + 1 if not expr.is_positive else expr
    if rate.has(sympy.zoo, sympy.nan, sympy.oo):
        return
    m = symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": rate},
                   service_rates={"1": rate + 1})
    back = symq.loads(m.to_toml())
    assert back.compatibility == m.compatibility
    for mine, theirs in ((back.arrival_rates, m.arrival_rates),
                         (back.service_rates, m.service_rates)):
        assert sympy.simplify(mine["1"] - theirs["1"]) == 0


def test_byte_order_mark_is_accepted(tmp_path):
    text = '[classes.1]\narrival_rate = "1/2"\nservers = ["1"]\n[servers.1]\nservice_rate = 1\n'
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert symq.load(path) == symq.loads(text)


def test_deep_toml_nesting_says_so():
    with pytest.raises(ModelError) as error:
        symq.loads("a = " + "[" * 5000 + "]" * 5000)
    assert str(error.value).startswith("model: the TOML is nested too deep")


@pytest.mark.parametrize("call, message", [
    (lambda: symq.load(None), "symq.load(path): path must be a str or a pathlib.Path naming a "
                              ".toml file, not NoneType"),
    (lambda: symq.loads(b"x"), "symq.loads(text): text must be a str holding a TOML document, "
                               "not bytes (decode the bytes first: data.decode('utf-8'))"),
    (lambda: symq.Model(compatibility={"1": None}, arrival_rates={"1": 1},
                        service_rates={"1": 2}),
     "compatibility of class '1': give a list of server names, not NoneType"),
    (lambda: symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": [1]},
                        service_rates={"1": 2}),
     "arrival rate of class '1' must be a sympy expression, an int, a Fraction or a string, "
     "not list"),
])
def test_wrong_python_types_name_the_argument(call, message):
    with pytest.raises(ArgumentTypeError) as error:
        call()
    assert str(error.value) == message
    assert isinstance(error.value, TypeError)


def test_numpy_scalars_as_rates():
    numpy = pytest.importorskip("numpy")
    with pytest.raises(ModelError) as error:
        symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": numpy.float64(0.5)},
                   service_rates={"1": 2})
    assert str(error.value) == ("arrival rate of class '1' is the float64 0.5; pass \"1/2\" "
                                "(a string) or a symbol so results stay exact")
    m = symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": numpy.int64(1)},
                   service_rates={"1": 2})
    assert m.arrival_rates["1"] == 1 and isinstance(m.arrival_rates["1"], sympy.Integer)


def test_python_number_past_the_digit_limit_is_refused():
    with pytest.raises(ModelError, match="about 5,000 digits; rates take at most 4,000 digits"):
        symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": 10 ** 5000},
                   service_rates={"1": 2})
