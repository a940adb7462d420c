"""The command line contract of docs/cli.md and docs/json-schema.md for the foundation commands."""

import json
import subprocess
import sys

import sympy

from symq.cli import main

W_SETTINGS = ["--set", "lambda_1=3/10", "--set", "lambda_2=1/5", "--set", "lambda_3=1/2",
              "--set", "mu_1=1", "--set", "mu_2=4/5"]


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_evaluate_json_issue_example(capsys):
    data = run_json(capsys, ["evaluate", "w", "empty-probability", *W_SETTINGS, "--digits", "40",
                             "--json"])
    assert data["model"] == "w" and data["quantity"] == "empty-probability"
    assert data["discipline"] == "collaborative" and data["digits"] == 40
    assert data["parameters"] == {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2",
                                  "mu_1": "1", "mu_2": "4/5"}
    assert data["result"] == {"exact": "21/65",
                              "value": "0.3230769230769230769230769230769230769231"}
    assert sympy.Rational(data["result"]["exact"]) == sympy.Rational(21, 65)


def test_decimal_settings_are_exact(capsys):
    settings = [s.replace("3/10", "0.3") for s in W_SETTINGS]
    data = run_json(capsys, ["evaluate", "w", "empty-probability", *settings, "--json"])
    assert data["parameters"]["lambda_1"] == "3/10"
    assert data["result"]["exact"] == "21/65"


def test_derive_latex_uses_greek_symbols(capsys):
    assert main(["derive", "n", "empty-probability", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert r"\lambda_{1}" in out and r"\mu_{1}" in out and r"\mu_{2}" in out


def test_derive_json(capsys):
    data = run_json(capsys, ["derive", "w", "empty-probability", "--form", "expanded",
                                   "--json"])
    expr = sympy.sympify(data["result"]["expr"])
    values = {s: v for s, v in zip(sorted(expr.free_symbols, key=str), [3, 2, 5, 10, 8])}
    assert data["method"]
    assert expr.subs(values).is_Rational


def test_show_text_and_json(capsys):
    assert main(["show", "w"]) == 0
    out = capsys.readouterr().out
    assert "lambda_1 + lambda_2 + lambda_3 < mu_1 + mu_2" in out and "nested: yes" in out
    data = run_json(capsys, ["show", "ring:3", "--json"])
    assert data["nested"] is False and len(data["stability_conditions"]) == 4
    data = run_json(capsys, ["show", "w", *W_SETTINGS, "--json"])
    assert data["stable"] is True and data["stability"]["margin"] == "3/5"


def test_list(capsys):
    data = run_json(capsys, ["list", "--json"])
    assert {"n", "w", "redundancy:K:D", "uninformed:N"} <= {d["name"] for d in data}


def test_toml_model_file(tmp_path, capsys):
    path = tmp_path / "w.toml"
    path.write_text('name = "W model"\n[classes.1]\narrival_rate = "3/10"\nservers = ["1"]\n'
                    '[classes.2]\narrival_rate = "1/5"\nservers = ["2"]\n'
                    '[classes.3]\narrival_rate = "1/2"\nservers = ["1", "2"]\n'
                    '[servers.1]\nservice_rate = "1"\n[servers.2]\nservice_rate = "4/5"\n')
    data = run_json(capsys, ["evaluate", str(path), "empty-probability", "--json"])
    assert data["result"]["exact"] == "21/65" and data["model"] == "W model"


def test_console_script_runs_and_exits_2_on_error():
    ok = subprocess.run([sys.executable, "-m", "symq.cli", "evaluate", "w", "empty-probability",
                         *W_SETTINGS, "--digits", "12"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.strip() == "21/65 = 0.323076923077"
    bad = subprocess.run([sys.executable, "-m", "symq.cli", "show", "nonexistent"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("symq: error: unknown model")


def test_evaluate_response_time_keeps_functions_exact(capsys):
    """LST and CDF stay functions of theta and t; means and variances get digits. Class 3 of W
    is fully flexible: its response time is Exp(mu - lambda) = Exp(4/5) (Cor 4.4)."""
    data = run_json(capsys, ["evaluate", "w", "response-time", *W_SETTINGS, "--json"])
    result = data["result"]
    assert result["lst"]["3"] == {"exact": "4/(5*theta + 4)"}
    assert result["mean"]["3"]["exact"] == "5/4"
    assert result["cdf"]["3"]["exact"] == "1 - exp(-4*t/5)"


def test_verify_reports_progress_and_stays_quiet_off_a_terminal(capsys):
    import symq
    calls = []
    symq.verify(symq.model("w"), "collaborative", max_jobs=4,
                progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 121) and all(total == 121 for _, total in calls)
    assert main(["verify", "w", "--max-jobs", "2"]) == 0
    assert capsys.readouterr().err == ""   # stderr is not a terminal here: no progress line
