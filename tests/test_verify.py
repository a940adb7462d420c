"""``symq verify``: the product-form checks and the JSON contract of docs/json-schema.md."""

import json

import pytest

from symq.cli import main

RING_TOML = """
name = "ring of 3"
[classes.1]
arrival_rate = "lambda_1"
servers = ["1", "2"]
[classes.2]
arrival_rate = "lambda_2"
servers = ["2", "3"]
[classes.3]
arrival_rate = "lambda_3"
servers = ["3", "1"]
[servers.1]
service_rate = "mu_1"
[servers.2]
service_rate = "mu_2"
[servers.3]
service_rate = "mu_3"
"""

FIELDS = ["model", "discipline", "max_jobs", "states_checked", "equations_checked",
          "nonzero_residuals", "ok", "failures"]


def run_json(capsys, *argv):
    status = main(["verify", *argv, "--json"])
    data = json.loads(capsys.readouterr().out)
    return status, data


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
@pytest.mark.parametrize("name", ["w", "n", "redundancy:3:2", "ring:3"])
def test_done_when_runs_verify_with_symbolic_rates(capsys, name, discipline):
    status, data = run_json(capsys, name, "--discipline", discipline, "--max-jobs", "5")
    assert status == 0
    assert data["ok"] is True and data["nonzero_residuals"] == 0 and data["failures"] == []
    assert data["schema_version"] == 1
    assert [k for k in data if k != "schema_version"][:len(FIELDS)] == FIELDS
    assert data["model"] == name and data["discipline"] == discipline and data["max_jobs"] == 5
    assert data["states_checked"] > 0 and data["equations_checked"] > data["states_checked"]


def test_non_nested_toml_ring(capsys, tmp_path):
    path = tmp_path / "ring3.toml"
    path.write_text(RING_TOML)
    for discipline in ("collaborative", "alis", "rais"):
        status, data = run_json(capsys, str(path), "--discipline", discipline, "--max-jobs", "4")
        assert status == 0 and data["ok"] is True, data


def test_counts_of_the_w_model():
    """States with at most 2 jobs: W collaborative has 1 + 3 + 9 = 13 job sequences."""
    from symq import model
    from symq.engines.balance import verify
    assert verify(model("w"), "collaborative", max_jobs=2).states_checked == 13


def test_failing_verification_exits_1_and_lists_failures(capsys):
    status, data = run_json(capsys, "n", "--discipline", "rais", "--routing", "uniform",
                            "--max-jobs", "2")
    assert status == 1
    assert data["ok"] is False and data["nonzero_residuals"] == len(data["failures"]) > 0
    assert {"state", "equation", "residual"} == set(data["failures"][0])
    assert data["failures"][0]["state"] == "(1_b)"
    assert data["routing"] == "uniform"


def test_numeric_settings_text_and_latex(capsys):
    assert main(["verify", "w", "--discipline", "alis", "--max-jobs", "3", "--set",
                 "lambda_1=3/20", "--set", "mu_1=1"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["verify", "n", "--max-jobs", "2", "--format", "latex"]) == 0
    assert r"\text{verified}" in capsys.readouterr().out
    assert main(["verify", "w", "--discipline", "dbm", "--server-buffer", "2", "--max-jobs",
                 "3"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("argv, message", [
    (["verify", "nosuchmodel"], "nosuchmodel"),
    (["verify", "n", "--max-jobs", "-1"], "max-jobs"),
    (["verify", "n", "--max-jobs", "many"], "max-jobs"),
    (["verify", "w", "--discipline", "rais", "--routing", "maxflow"], "numeric arrival rates"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
