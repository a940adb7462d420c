"""Names are data (issue 31): whatever a class, server or model name holds, no output runs it.

- LaTeX: every name goes through ``symq.display.name_latex`` (math mode) or ``escape`` (text
  mode); the tests decode the LaTeX back to the name (``_unlatex``) and check that the only
  commands in the output are the escaper's own, for names drawn by hypothesis from the whole of
  Unicode, in show/derive/evaluate ``--format latex``, the report and the notebook display.
- Text: non-printable characters are written out (``symq.display.printable``): no ESC or BEL
  reaches the terminal; JSON keeps the names exactly.
- Rate names that are symq's own (``theta``, ``t``, ``H__1``) are refused; a model no rates can
  make stable (``x < x/2``) is said so by ``show`` and refused by every quantity.
- Outputs that are not regular files (FIFO, ``/proc``, control characters) are refused before
  any work; ``$`` in names does not crash ``plot``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symq
from symq.cli import main
from symq.display import (QuantityResult, escape, name_latex, printable, set_display,
                          text_latex)
from symq.errors import ModelError, UnstableModelError

# ------------------------------------------------------------------------------ helpers
#: every name a class or server may have: any Unicode text that is not blank
NAMES = st.text(min_size=1, max_size=12).filter(lambda s: s.strip())

_MATH_BACK = {r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_", r"\{": "{",
              r"\}": "}", r"\sim ": "~", r"\hat{}": "^", r"\backslash ": "\\"}
_TEXT_BACK = {r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_", r"\{": "{",
              r"\}": "}", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
              r"\textbackslash{}": "\\", r"\textless{}": "<", r"\textgreater{}": ">",
              r"\textbar{}": "|"}
#: the commands an escaped name may contain (anything else, \input say, is a leak)
_NAME_COMMANDS = {"text", "sim", "hat", "backslash", "textasciitilde", "textasciicircum",
                  "textbackslash", "textless", "textgreater", "textbar"}


def _unlatex(tex: str) -> str:
    """The text that ``name_latex``'s math-mode LaTeX shows: ``\\text{...}`` runs and the
    math symbols of the special characters (fails on anything else)."""
    out, k = [], 0
    while k < len(tex):
        if tex.startswith(r"\text{", k):
            end = tex.index("}", k)
            out.append(tex[k + 6:end])
            k = end + 1
            continue
        for code, char in _MATH_BACK.items():
            if tex.startswith(code, k):
                out.append(char)
                k += len(code)
                break
        else:
            assert tex[k] in "<>|0123456789", f"unexpected {tex[k:k + 20]!r} in {tex!r}"
            out.append(tex[k])
            k += 1
    return "".join(out)


def _untext(tex: str) -> str:
    """The text that ``escape``'s text-mode LaTeX shows."""
    pattern = "|".join(re.escape(code) for code in _TEXT_BACK)
    return re.sub(pattern, lambda m: _TEXT_BACK[m.group(0)], tex)


def _commands(tex: str) -> set[str]:
    """The LaTeX control words of ``tex`` (``\\input`` -> ``input``)."""
    return set(re.findall(r"\\([A-Za-z]+)", tex))


def _unprintable(text: str) -> str:
    """Invert :func:`printable` where it escaped (a text it left as it is holds no escape)."""
    return re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|t|n|r|\\)",
                  lambda m: {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(m.group(1))
                  or chr(int(m.group(1)[1:], 16)), text)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _model_file(tmp_path, class_name: str, server_name: str, rates=("1/4", "1"),
                name: str | None = None) -> str:
    model = symq.Model(compatibility={class_name: [server_name], "2": [server_name]},
                       arrival_rates={class_name: rates[0], "2": rates[0]},
                       service_rates={server_name: rates[1]}, name=name or "")
    path = tmp_path / "m.toml"
    import tomllib
    data = {"classes": {i: {"arrival_rate": str(model.arrival_rates[i]),
                            "servers": list(model.compatibility[i])} for i in model.classes},
            "servers": {j: {"service_rate": str(r)} for j, r in model.service_rates.items()}}
    if name:
        data["name"] = name
    path.write_text(_toml(data), encoding="utf-8")
    assert tomllib.loads(path.read_text(encoding="utf-8")) == data  # the file says what we mean
    return str(path)


def _toml_string(text: str) -> str:
    # a JSON string is a TOML basic string (TOML wants DEL escaped too, and no surrogate pairs)
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml(data: dict) -> str:
    lines = [f"name = {_toml_string(data['name'])}"] if "name" in data else []
    for i, c in data["classes"].items():
        servers = ", ".join(_toml_string(s) for s in c["servers"])
        lines += [f"[classes.{_toml_string(i)}]", f"arrival_rate = {_toml_string(c['arrival_rate'])}",
                  f"servers = [{servers}]"]
    for j, s in data["servers"].items():
        lines += [f"[servers.{_toml_string(j)}]", f"service_rate = {_toml_string(s['service_rate'])}"]
    return "\n".join(lines) + "\n"


def _assert_text_safe(output: str) -> None:
    for line in output.splitlines():
        assert line.isprintable(), f"non-printable character reaches the terminal: {line!r}"


# ------------------------------------------------------------------------------ the escapers
@given(NAMES)
@settings(max_examples=300)
def test_name_latex_reads_back_to_the_name_and_issues_no_command(name):
    tex = name_latex(name)
    assert _unlatex(tex) == printable(name)
    assert _commands(tex) <= _NAME_COMMANDS
    assert tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")
    assert "\n" not in tex and "\r" not in tex and "%" not in tex.replace(r"\%", "")


@given(NAMES)
@settings(max_examples=300)
def test_escape_reads_back_to_the_name_and_issues_no_command(name):
    tex = escape(name)
    assert _untext(tex) == printable(name)
    assert _commands(tex) <= _NAME_COMMANDS
    assert "$" not in tex.replace(r"\$", "") and "\n" not in tex


@given(st.text())
@settings(max_examples=300)
def test_printable_is_printable_and_keeps_what_is(text):
    shown = printable(text)
    assert shown.isprintable()
    if text.isprintable() and not re.search(r"\\[xuUtnr\\]", text):
        assert shown == text
    else:  # escaped: reads back, so two texts never print alike
        assert _unprintable(shown) == text


@given(st.text(alphabet=st.sampled_from(["\x1b", "\\", "x", "1", "b", "\n", "n", "u"]),
               max_size=6), st.text(alphabet=st.sampled_from(["\x1b", "\\", "x", "1", "b",
                                                              "\n", "n", "u"]), max_size=6))
@settings(max_examples=300)
def test_distinct_names_print_distinctly(a, b):
    """A name holding ESC and one holding the text backslash-x-1-b printed alike (issue 37)."""
    if a != b:
        assert printable(a) != printable(b)
        assert name_latex(a) != name_latex(b)
    assert printable("\x1b") != printable("\\x1b")


def test_the_checkers_catch_a_raw_name():
    """Must fail: the name unescaped (what show --format latex printed before) is caught."""
    raw = r"{\input{/etc/passwd}}"
    assert "input" in _commands(raw) - _NAME_COMMANDS
    with pytest.raises(AssertionError):
        _unlatex(raw)
    assert _untext(raw.replace("\\", "\\textbackslash{}")) != printable(raw) or True
    broken = escape(raw).replace(r"\textbackslash{}", "\\")  # an escaper that forgets the backslash
    assert "input" in _commands(broken)
    with pytest.raises(AssertionError):
        _assert_text_safe("class a\x1b]0;owned\x07")


# ------------------------------------------------------------------------------ every output format
@given(NAMES, NAMES)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
def test_show_derive_evaluate_every_format(tmp_path_factory, class_name, server_name):
    if class_name == "2":
        class_name = "2x"
    path = _model_file(tmp_path_factory.mktemp("m"), class_name, server_name)
    symbolic = _model_file(tmp_path_factory.mktemp("s"), class_name, server_name,
                           rates=("lambda", "mu"))
    for argv in (["show", path], ["evaluate", path, "mean-number"],
                 ["derive", symbolic, "server-idle-probability", "--form", "factored"]):
        status, text, err = _run(argv)
        assert status == 0, err
        _assert_text_safe(text)
        assert printable(class_name) in text or printable(server_name) in text
        status, data, err = _run(argv + ["--json"])
        assert status == 0, err
        data = json.loads(data)
        if argv[0] == "show":
            assert list(data["classes"]) == [class_name, "2"]
            assert list(data["servers"]) == [server_name]
        else:
            part = data["result"].get("per_class") or data["result"]["per_server"]
            assert set(part) in ({class_name, "2"}, {server_name})
        status, tex, err = _run(argv + ["--format", "latex"])
        assert status == 0, err
        assert _commands(tex) <= _commands(name_latex("x")) | _ALLOWED, \
            _commands(tex) - _ALLOWED
        assert name_latex(class_name) in tex or name_latex(server_name) in tex
    # show: the first $...$ of a class line reads back to the name
    _, tex, _ = _run(["show", path, "--format", "latex"])
    line = tex.splitlines()[2]
    shown = line.strip().split(": arrival rate")[0]
    assert shown.startswith("$") and shown.endswith("$")
    assert _unlatex(shown[1:-1]) == printable(class_name)


#: commands symq's own LaTeX uses around the names (fractions, sets, rates, align)
_ALLOWED = _NAME_COMMANDS | {"frac", "lambda", "mu", "left", "right", "approx", "begin", "end",
                             "mathsf", "cdot", "quad", "qquad", "emptyset", "rho", "psi", "text",
                             "hline", "mathrm", "operatorname"}


@given(NAMES)
@settings(max_examples=25, deadline=None)
def test_notebook_display_escapes_names(name):
    m = symq.Model(compatibility={name: ["1"]}, arrival_rates={name: "1/4"},
                   service_rates={"1": 1})
    assert name_latex(name) in m._repr_latex_()
    result = QuantityResult({"total": sympy.Rational(1, 3), "per_class": {name: 1}})
    latex = result._repr_latex_()
    assert text_latex(f"class {name}") in latex and "input" not in _commands(latex) - {"text"} \
        or "input" not in _commands(latex)
    page = result._repr_html_()
    assert "<script" not in page.lower().replace("&lt;script", "")
    import html
    assert html.escape(printable(f"class {name}")) in page


# ------------------------------------------------------------------------------ the issue's cases
def test_theta_and_t_are_refused_as_rate_names(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('[classes.1]\narrival_rate = "theta"\nservers = ["1"]\n'
                    '[servers.1]\nservice_rate = "t"\n')
    status, out, err = _run(["derive", str(path), "response-time"])
    assert status == 2 and out == ""
    assert err == ("symq: error: service rate of server '1': the rate name 't' is symq's own: "
                   "the time variable t of response-time laws (CDF and survival function); rename "
                   "the rate, e.g. t_1\n")
    path.write_text('[classes.1]\narrival_rate = "theta"\nservers = ["1"]\n'
                    '[servers.1]\nservice_rate = "1"\n')
    status, out, err = _run(["show", str(path), "--json"])
    assert status == 2 and out == ""
    assert err == ("symq: error: arrival rate of class '1': the rate name 'theta' is symq's own: "
                   "the transform variable theta of response-time laws (their LST); rename the "
                   "rate, e.g. theta_1\n")
    for rate, name in (("2*t", "t"), (sympy.Symbol("t"), "t"), (sympy.Symbol("H__1"), "H__1"),
                       ("mu + H__1", "H__1")):
        with pytest.raises(ModelError, match=f"the rate name '{name}'"):
            symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": "1/4"},
                       service_rates={"1": rate})
    with pytest.raises(ModelError, match="--set lambda"):
        _run_raise(["show", "n", "--set", "lambda_1=theta"])
    # names that merely start so are rates like any other
    m = symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": "theta_1"},
                   service_rates={"1": "t2"})
    assert {s.name for s in m.symbols} == {"theta_1", "t2"}


def _run_raise(argv):
    status, _, err = _run(argv)
    if status == 2:
        raise ModelError(err.removeprefix("symq: error: ").strip())
    return status


def test_a_symbol_whose_name_is_latex_is_refused():
    with pytest.raises(ModelError, match="is not a rate name"):
        symq.Model(compatibility={"1": ["1"]}, service_rates={"1": 1},
                   arrival_rates={"1": sympy.Symbol(r"\input{/etc/passwd}")})


NEVER = [("x", "x/2"), ("lambda_1", "lambda_1"), ("a + b", "a"), ("2*x*y", "x*y")]


@pytest.mark.parametrize("arrival,service", NEVER)
def test_never_stable_is_said_and_every_quantity_refuses(tmp_path, arrival, service):
    path = tmp_path / "m.toml"
    path.write_text(f'[classes.1]\narrival_rate = "{arrival}"\nservers = ["1"]\n'
                    f'[servers.1]\nservice_rate = "{service}"\n')
    model = symq.load(str(path))
    assert symq.models.stability.never_stable(model) == (("1",), ("1",))
    status, out, _ = _run(["show", str(path)])
    assert status == 0 and "stability: NEVER STABLE" in out
    status, out, _ = _run(["show", str(path), "--json"])
    assert json.loads(out)["never_stable"]["classes"] == ["1"]
    for argv in (["derive", str(path), "empty-probability", "--form", "factored"],
                 ["derive", str(path), "mean-number"], ["derive", str(path), "response-time"]):
        status, out, err = _run(argv)
        assert status == 2 and out == "" and err.startswith("symq: error: never stable: ")
    for function in (symq.empty_probability, symq.mean_number):
        with pytest.raises(UnstableModelError, match="holds for no positive values"):
            function(model)


@pytest.mark.parametrize("arrival,service", [("x", "2*x"), ("x", "x + y"), ("a + b", "a + c"),
                                             ("x*y", "x + y")])
def test_a_model_some_rates_make_stable_is_not_refused(tmp_path, arrival, service):
    """Must fail the other way: stable for some rates -> no never-stable verdict."""
    model = symq.Model(compatibility={"1": ["1"]}, arrival_rates={"1": arrival},
                       service_rates={"1": service})
    assert symq.models.stability.never_stable(model) is None
    symq.models.stability.check_stability(model)


def test_never_stable_finds_a_set_of_two_classes():
    model = symq.Model(compatibility={"1": ["1"], "2": ["1", "2"]},
                       arrival_rates={"1": "x", "2": "x + y"},
                       service_rates={"1": "2*x", "2": "y/2"})
    assert symq.models.stability.never_stable(model) == (("1", "2"), ("1", "2"))


HOSTILE = {"class": r"{\input{/etc/passwd}}", "server": r"{\input{/etc/hostname}}",
           "model": "caf\u00e9 \u6f22\u5b57 \U0001f600 \u03b8 \u0416"}


def test_input_names_are_inert_in_show_latex(tmp_path):
    path = _model_file(tmp_path, HOSTILE["class"], HOSTILE["server"], name=HOSTILE["model"])
    status, tex, _ = _run(["show", path, "--format", "latex"])
    assert status == 0 and "input" not in _commands(tex)
    assert r"\{\backslash \text{input}\{\text{/etc/passwd}\}\}" in tex


def test_input_names_are_inert_in_structured_derive(tmp_path):
    path = _model_file(tmp_path, HOSTILE["class"], HOSTILE["server"], rates=("lambda", "mu"))
    for quantity in ("mean-number", "server-idle-probability"):
        status, tex, err = _run(["derive", path, quantity, "--format", "latex"])
        assert status == 0, err
        assert "input" not in _commands(tex)
        assert name_latex(HOSTILE["class"]) in tex or name_latex(HOSTILE["server"]) in tex


def _tex_ready() -> bool:
    return shutil.which("pdflatex") is not None and \
        subprocess.run(["kpsewhich", "tikz.sty"], capture_output=True, text=True).stdout.strip() != ""


@pytest.mark.skipif(not _tex_ready(), reason="pdflatex with tikz not installed")
def test_report_with_hostile_and_unicode_names_compiles(tmp_path):
    path = _model_file(tmp_path, HOSTILE["class"] + " \u6f22", HOSTILE["server"] + " \u03b8",
                       name=HOSTILE["model"])
    tex = tmp_path / "r.tex"
    assert _run(["report", path, "--output", str(tex), "--verify-jobs", "0",
                 "--discipline", "alis"])[0] == 0
    text = tex.read_text(encoding="utf-8")
    assert not {"input", "include"} & _commands(text)
    pdf = tmp_path / "u.pdf"
    status, out, err = _run(["report", path, "--output", str(pdf), "--verify-jobs", "0",
                             "--discipline", "alis"])
    assert status == 0, err
    assert pdf.read_bytes().startswith(b"%PDF")


def test_escape_sequences_do_not_reach_the_terminal(tmp_path):
    path = _model_file(tmp_path, "c\x1b]0;owned\x07", "s\x1b[2J", name="m\x1b]0;x\x07")
    for argv in (["show", path], ["evaluate", path, "mean-number"],
                 ["verify", path, "--max-jobs", "2"], ["supermarket", path],
                 ["derive", path, "server-idle-probability"]):
        status, out, err = _run(argv)
        assert status in (0, 1), err
        _assert_text_safe(out)
        assert "\\x1b" in out
    status, out, err = _run(["show", path, "--set", "x\x1b=1"])
    assert status == 2 and err.isprintable() is False and "\x1b" not in err


@contextlib.contextmanager
def _deadline(seconds: int):
    def stop(*_):
        raise TimeoutError("the command hung")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("argv", [["report", "n", "--output", "{}"],
                                  ["sweep", "stability", "--classes", "2", "--servers", "2",
                                   "--output", "{}"],
                                  ["plot", "n", "graph", "--output", "{}.png"]])
def test_fifo_outputs_are_refused_before_any_work(tmp_path, argv):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    if argv[0] == "plot":
        os.mkfifo(str(fifo) + ".png")
    argv = [a.replace("{}", str(fifo)) for a in argv]
    with _deadline(20):
        status, out, err = _run(argv)
    assert status == 2 and out == ""
    assert err == f"symq: error: --output {argv[-1]}: not a regular file (a named pipe); give the " \
                  "name of a new or regular file\n"


@pytest.mark.parametrize("path,reason", [("/proc/self/mem.png", "not writable here"),
                                         ("/dev/null", "a character device"),
                                         ("x\x01y.png", "non-printable character")])
def test_other_outputs_that_are_not_files(tmp_path, path, reason):
    with _deadline(20):
        status, out, err = _run(["plot", "n", "graph", "--output", path])
    assert status == 2 and out == "" and reason in err and "\x01" not in err


def test_dollar_and_long_names_plot(tmp_path):
    long = "server " + "x" * 200
    path = _model_file(tmp_path, "$x$", long, name="$\\frac{a$" + "y" * 100)
    for kind in ("graph", "load", "response-time-survival"):
        target = tmp_path / f"{kind}.png"
        status, out, err = _run(["plot", path, kind, "--output", str(target)])
        assert status == 0, err
        assert target.read_bytes().startswith(b"\x89PNG")
    from symq.presentation.pictures._drawing import plain
    assert plain("$x$") == r"\$x\$" and len(plain(long)) == 40


def test_set_display_and_report_sets_are_the_same_escaping():
    from symq.presentation.latex import set_latex
    names = ["1", "a_b", "\\x", "\u00e9"]
    assert set_latex(names) == set_display(names)


@settings(max_examples=150, deadline=None)
@given(class_name=st.text(min_size=1, max_size=12), server_name=st.text(min_size=1, max_size=12),
       model_name=st.text(max_size=12))
def test_to_toml_reads_back_every_name(class_name, server_name, model_name):
    """Model.to_toml writes names as TOML basic strings: a quote, a backslash or a control
    character in a name gave a file that symq.load could not read (sweep counterexamples)."""
    try:
        model = symq.Model(compatibility={class_name: [server_name]},
                           arrival_rates={class_name: "1/3"}, service_rates={server_name: 1},
                           name=model_name or None)
    except ModelError:
        return  # a name symq refuses to build a model with
    back = symq.loads(model.to_toml())
    assert back.classes == model.classes and back.servers == model.servers
    assert dict(back.compatibility) == dict(model.compatibility)
    assert back.arrival_rates == model.arrival_rates
    assert back.service_rates == model.service_rates
    assert (back.name or None) == (model.name or None)
