"""Hostile input for pictures (issue 37): a 4,000-digit weight makes no file name too long for
the file system; names holding ``$``, ``\\``, ``\\input{...}``, ESC or the text ``\\x1b`` are
drawn as text (never mathtext), every legend row once and distinct, and the CSV export keeps
them printable and not runnable as spreadsheet formulas."""

from __future__ import annotations

import csv
import re

import pytest

pytest.importorskip("matplotlib")

from symq.cli import main  # noqa: E402
from symq.models.model import Model  # noqa: E402
from symq.presentation.pictures import close, get, save, write_data  # noqa: E402

HOSTILE = ["$x$", "a\\b", "\\input{f}", "\x1b", "\\x1b", "A" * 50 + "1", "A" * 50 + "2",
           "=cmd|' /C calc'!A0"]
SERVERS = ["s$1", "\\mathrm{", "\\"]


def hostile_model():
    comp = {c: [SERVERS[k % 3], SERVERS[(k + 1) % 3]] for k, c in enumerate(HOSTILE)}
    return Model(compatibility=comp, arrival_rates={c: "1/10" for c in HOSTILE},
                 service_rates={s: 2 for s in SERVERS}, name="$\\input{x}$ model")


def test_huge_weight_gives_a_short_file_name(tmp_path, capsys):
    args = ["plot", "w", "clusters", "--set", "lambda_1=2", "--set", "lambda_2=1/2", "--set",
            "lambda_3=1", "--set", "mu_1=1", "--set", "mu_2=1", "--dir", str(tmp_path)]
    assert main([*args, "--weights", "1=1e3999", "--data", str(tmp_path / "d.csv")]) == 0
    out = capsys.readouterr().out.splitlines()
    (png,) = [p for p in tmp_path.iterdir() if p.suffix == ".png"]
    assert len(png.name) <= 120 and out[0] == f"wrote {png}"
    with open(tmp_path / "d.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["curve"] == "drift V_k" and rows[0]["y"] == str(10 ** 3999)  # exact
    # another huge weight: another name (the digest), not an overwrite
    assert main([*args, "--weights", "1=2e3999"]) == 0
    assert len([p for p in tmp_path.iterdir() if p.suffix == ".png"]) == 2


def _math_segments(text):
    """The parts of a matplotlib text that mathtext would typeset (between unescaped $)."""
    if len(re.findall(r"(?<!\\)\$", text)) < 2:
        return []
    return re.split(r"(?<!\\)\$", text)[1::2]


@pytest.mark.parametrize("kind, options", [
    ("graph", {}), ("load", {"points": 2}), ("distribution", {"max_jobs": 2}), ("clusters", {}),
    ("response-time-survival", {"points": 4}), ("disciplines", {"points": 1}),
    ("elasticities", {}), ("response-time-load", {"points": 1}),
])
def test_hostile_names_are_text_and_legend_rows_distinct(kind, options, tmp_path):
    picture = get(kind).draw(hostile_model(), **options)
    try:
        save(picture, str(tmp_path / "p.png"))  # a mathtext error would raise here
        texts = [t.get_text() for t in picture.figure.findobj(
            lambda a: hasattr(a, "get_text"))]
        for text in texts:
            for segment in _math_segments(text):
                assert "input" not in segment and "mathrm" not in segment, text
        for ax in picture.figure.axes:
            legend = ax.get_legend()
            if legend is not None:
                rows = [t.get_text() for t in legend.get_texts()]
                assert len(rows) == len(set(rows)), rows
        write_data(picture, str(tmp_path / "d.csv"), "$\\input{x}$ model", kind)
        with open(tmp_path / "d.csv", encoding="utf-8") as handle:
            content = handle.read()
        assert "\x1b" not in content
        for row in csv.reader(content.splitlines()):
            assert not any(cell[:1] in "=+@" and cell for cell in row), row
    finally:
        close(picture)


def test_legend_rows_of_names_that_print_alike_are_distinct():
    from symq.presentation.pictures._drawing import distinct
    rows = distinct(HOSTILE, "class ")
    assert len(set(rows.values())) == len(HOSTILE)
    assert all(len(r) <= len("class ") + 60 for r in rows.values())


def test_a_huge_rate_is_labelled_by_its_digits(tmp_path):
    import symq
    picture = get("graph").draw(symq.model("w").substitute({"mu_1": "1e3999"}))
    try:
        labels = [t.get_text() for t in picture.figure.axes[0].texts]
        assert r"$\mu\approx 1.00000\times10^{3999}$" in labels
        save(picture, str(tmp_path / "g.png"))
        from PIL import Image
        assert Image.open(tmp_path / "g.png").size[0] < 2000  # was 38,610 px wide
    finally:
        close(picture)


def test_latex_format_refuses_a_file_name_latex_would_run(tmp_path, capsys):
    target = tmp_path / "a}\\input{x.png"
    assert main(["plot", "w", "graph", "-o", str(target), "--format", "latex"]) == 2
    err = capsys.readouterr().err
    assert "rename the file" in err and err.count("\n") == 1 and not target.exists()
    assert main(["plot", "w", "graph", "-o", str(tmp_path / "ok_1.png"), "--format",
                 "latex"]) == 0
    assert capsys.readouterr().out == f"\\includegraphics{{{tmp_path / 'ok_1.png'}}}\n"
