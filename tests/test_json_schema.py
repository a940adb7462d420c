"""Every command's JSON carries ``schema_version`` and every top-level field it prints is listed
on the docs page ``docs/json-schema.md`` (in that command's section)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from symq.cli import build_parser, main
from symq.schema import SCHEMA_VERSION, with_schema_version

DOC = Path(__file__).resolve().parent.parent / "docs" / "json-schema.md"
W = ["--set", "lambda_1=1/4", "--set", "lambda_2=1/4", "--set", "lambda_3=1/4", "--set", "mu_1=1",
     "--set", "mu_2=1"]
CASES = {
    "list": [["list"]],
    "routes": [["routes"]],
    "explain": [["explain", "n", "mean-number"], ["explain", "w", "mean-number", "--discipline",
                "alis", "--set", "lambda_1=1/4", "--set", "lambda_2=1/4", "--set",
                "lambda_3=1/4", "--set", "mu_1=1", "--set", "mu_2=1"]],
    "show": [["show", "w"], ["show", "w", *W]],
    "derive": [["derive", "w", "mean-number"]],
    "evaluate": [["evaluate", "w", "mean-number", *W]],
    "verify": [["verify", "w", "--max-jobs", "1"], ["verify", "n", "--discipline", "rais",
                                                    "--max-jobs", "1", *W[:4], *W[6:]]],
    "supermarket": [["supermarket", "w", "--set", "lambda_1=2", "--set", "lambda_2=1/2",
                     "--set", "lambda_3=1", "--set", "mu_1=1", "--set", "mu_2=1"]],
    "compensation": [["compensation", "jsq", "--rho", "1/2", "--digits", "8"]],
    "uninformed": [["uninformed", "theorem", "--servers", "2"],
                   ["uninformed", "law", "--servers", "2"]],
    "sweep": [["sweep", "nested", "--classes", "2", "--servers", "1", "--workers", "0",
               "--quiet"]],
    "report": [["report", "n", "--discipline", "collaborative", "--verify-jobs", "0"]],
    "plot": [["plot", "w", "graph"]],
    "optimize": [["optimize", "w", "mean-response-time", *W[:6], "--budget", "mu_1 + mu_2 = 2",
                  "--digits", "8"], ["optimize", "w", "mean-response-time", *W, "--rank",
                                     "servers", "--digits", "8"]],
}


def _sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^## `symq (\w+)[^`]*`", text, flags=re.M)
    return {parts[k]: parts[k + 1] for k in range(1, len(parts) - 1, 2)}


def _commands() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)


def test_every_command_has_a_json_case_and_a_docs_section():
    assert _commands() <= set(CASES), "a new command needs a case here and a docs section"
    assert _commands() <= set(_sections())


@pytest.mark.parametrize("command", sorted(CASES))
def test_json_has_schema_version_and_documented_fields(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # plot writes its file here
    section = _sections()[command]
    for argv in CASES[command]:
        status = main([*argv, "--json"])
        assert status in (0, 1), argv
        data = json.loads(capsys.readouterr().out)
        objects = data if isinstance(data, list) else [data]
        for obj in objects:
            assert obj["schema_version"] == SCHEMA_VERSION
            assert next(iter(obj)) == "schema_version"   # first, easy to spot
            undocumented = [k for k in obj if f"`{k}`" not in section]
            assert not undocumented, f"{argv}: document {undocumented} in docs/json-schema.md"


def test_sweep_records_carry_schema_version(tmp_path, capsys):
    output = tmp_path / "results.jsonl"
    assert main(["sweep", "nested", "--classes", "2", "--servers", "1", "--workers", "0",
                 "--quiet", "--output", str(output)]) == 0
    capsys.readouterr()
    lines = output.read_text().splitlines()
    assert lines and all(json.loads(line)["schema_version"] == SCHEMA_VERSION for line in lines)
    # resuming from a file with the field works (the field is not an option of the sweep)
    assert main(["sweep", "nested", "--classes", "2", "--servers", "1", "--workers", "0",
                 "--quiet", "--output", str(output), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resumed"] == len(lines)


def test_the_field_check_can_fail():
    # an object without the field, or with an undocumented field, is caught by the test above
    assert "schema_version" not in {"model": "w"}
    assert with_schema_version({"schema_version": 7})["schema_version"] == 7
    assert "`no_such_field`" not in _sections()["verify"]
