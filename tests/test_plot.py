"""``symq plot``: every registered picture kind is produced (PNG and SVG), with file names and
titles from the actual parameters; bad input is one line with exit status 2."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("matplotlib")

from symq.cli import main  # noqa: E402
from symq.presentation.pictures import kinds  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"
W = ["--set", "lambda_1=1", "--set", "lambda_2=1", "--set", "lambda_3=1", "--set", "mu_1=2",
     "--set", "mu_2=2"]
CASES = {
    "graph": ["w", "graph"],
    "load": ["w", "load", *W, "--points", "3"],
    "split": ["w", "split", "--set", "lambda_1=1", "--set", "lambda_2=1", "--set", "lambda_3=1",
              "--budget", "mu_1 + mu_2 = 4", "--points", "4"],
    "distribution": ["w", "distribution", *W, "--max-jobs", "6"],
    "clusters": ["w", "clusters", *W, "--weights", "1=2"],
    "heatmap": ["sed", "heatmap", "--s", "2", "--q", "1/2", "--rho", "1/2", "--size", "3"],
    "levels": ["sed", "levels", "--s", "2", "--q", "1/2", "--rho", "1/2", "--size", "1",
               "--max-levels", "2"],
    "response-time-survival": ["w", "response-time-survival", "--discipline", "alis", *W],
    "waiting-time-survival": ["w", "waiting-time-survival", "--discipline", "alis", *W],
    "disciplines": ["w", "disciplines", *W, "--points", "3"],
    "elasticities": ["w", "elasticities", *W, "--discipline", "alis"],
    "response-time-load": ["w", "response-time-load", *W, "--points", "3"],
}


def _plot(capsys, args):
    assert main(["plot", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_picture_is_written_as_png_and_svg(kind, tmp_path, capsys):
    png, svg = tmp_path / "p.png", tmp_path / "p.svg"
    data = _plot(capsys, [*CASES[kind], "-o", str(png), "-o", str(svg)])
    assert data["kind"] == kind and data["files"] == [str(png), str(svg)]
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5000
    assert b"<svg" in svg.read_bytes()[:400]


def test_every_registered_kind_has_a_case():
    # a kind added to symq/pictures without a test here fails this test
    missing = set(kinds()) - set(CASES)
    assert not missing


def test_default_file_name_carries_the_actual_parameters(tmp_path, capsys):
    # the old compensation pictures named `asymmetric --s 3` as s=1; now mu_2 = 3 is in the name
    data = _plot(capsys, ["asymmetric", "heatmap", "--s", "3", "--rho", "1/2", "--size", "1",
                          "--dir", str(tmp_path)])
    (path,) = data["files"]
    assert "mu2=3" in path and "s=1" not in path
    other = _plot(capsys, ["asymmetric", "heatmap", "--s", "2", "--rho", "1/2", "--size", "1",
                           "--dir", str(tmp_path)])
    assert other["files"] != data["files"]  # runs with other parameters do not overwrite


def test_load_points_are_exact_and_below_the_stability_limit(capsys, tmp_path):
    data = _plot(capsys, [*CASES["load"], "--dir", str(tmp_path)])["data"]
    assert data["stability_limit"] == "4/3"  # min over A of mu(S(A))/lambda(A): A = all classes
    xs = [p["relative_load"] for p in data["points"]]
    assert xs == ["1/4", "1/2", "3/4"]
    # the mean response time grows with the load, per class and overall
    for name in data["points"][0]["values"]:
        values = [float(__import__("fractions").Fraction(p["values"][name])) for p in data["points"]]
        assert values == sorted(values)


def test_distribution_agrees_with_the_truncated_chain():
    from fractions import Fraction

    from symq import model
    from symq.engines.ctmc import job_count, truncated_stationary
    from symq.presentation.pictures.distribution import number_law

    m = model("w").substitute({"lambda_1": "1/3", "lambda_2": "1/4", "lambda_3": "1/2",
                               "mu_1": "1", "mu_2": "3/2"})
    law = number_law(m, 3)
    chain = truncated_stationary(m, "collaborative", 3)
    by_n = [sum((p for s, p in chain.items() if job_count(s) == n), Fraction(0)) for n in range(4)]
    total = sum(law)
    assert [Fraction(str(p / total)) for p in law] == by_n  # exact: blocking keeps the product form


def test_distribution_check_fails_on_a_wrong_law(monkeypatch):
    # the comparison above must be able to fail: the code made wrong (the service rate of the
    # busy servers of one set of classes off by 1/1000), the same model, the same comparison
    from fractions import Fraction

    from symq import model
    from symq.engines.ctmc import job_count, truncated_stationary
    from symq.models.model import Model
    from symq.presentation.pictures.distribution import number_law

    m = model("w").substitute({"lambda_1": "1/3", "lambda_2": "1/4", "lambda_3": "1/2",
                               "mu_1": "1", "mu_2": "3/2"})
    chain = truncated_stationary(m, "collaborative", 3)
    by_n = [sum((p for s, p in chain.items() if job_count(s) == n), Fraction(0)) for n in range(4)]
    real = Model.service_rate

    def wrong(self, servers):
        rate = real(self, servers)
        return rate * Fraction(1001, 1000) if set(servers) == {"2"} else rate
    monkeypatch.setattr(Model, "service_rate", wrong)
    law = number_law(m, 3)
    assert [Fraction(str(p / sum(law))) for p in law] != by_n


@pytest.mark.parametrize("args, match", [
    (["w", "nosuchkind"], "unknown picture"),
    (["w", "load"], "needs a value for every symbol"),
    (["w", "graph", "-o", "picture.jpg"], ".png, .svg or .pdf"),
    (["w", "heatmap"], "routing policy"),
    (["w", "graph", "--rho", "1/2"], "--set"),
])
def test_bad_input_is_one_line(args, match, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["plot", *args]) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err and err.count("\n") == 1


# ------------------------------------------------------------- file names, --force, titles
def _written(capsys, args, tmp_path):
    assert main(["plot", *args, "--dir", str(tmp_path)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("wrote ")
    return line[len("wrote "):]


def test_pictures_of_other_parameters_get_other_file_names(capsys, tmp_path):
    plain = _written(capsys, ["w", "graph"], tmp_path)
    assert plain.endswith("w-graph.png")
    other = _written(capsys, ["w", "graph", "--set", "mu_1=3"], tmp_path)
    assert other.endswith("w-graph-mu_1=3.png")
    load = _written(capsys, CASES["load"][:2] + W + ["--points", "2"], tmp_path)
    load3 = _written(capsys, CASES["load"][:2] + W + ["--points", "3"], tmp_path)
    rates = _written(capsys, CASES["load"][:2] + W[:-1] + ["mu_2=3", "--points", "2"], tmp_path)
    assert len({load, load3, rates}) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.rsplit("/", 1)[1] for p in (plain, other, load, load3, rates))


def test_an_existing_picture_is_replaced_only_with_force(capsys, tmp_path):
    path = _written(capsys, ["w", "graph"], tmp_path)
    before = (tmp_path / "w-graph.png").stat().st_mtime_ns
    assert main(["plot", "w", "graph", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists" in err and "--force" in err
    assert (tmp_path / "w-graph.png").stat().st_mtime_ns == before
    assert _written(capsys, ["w", "graph", "--force"], tmp_path) == path
    # an explicit --output is the user's choice of file: it is written
    target = tmp_path / "mine.png"
    target.write_bytes(b"old")
    assert main(["plot", "w", "graph", "-o", str(target)]) == 0
    assert target.read_bytes()[:8] == PNG


def test_default_stem_keeps_parameters_apart():
    from symq.commands.plot import default_stem

    assert default_stem("w-graph", {}, {}, {}) == "w-graph"
    assert default_stem("w-graph", {"mu_1": "1/2"}, {}, {}) == "w-graph-mu_1=1_2"
    many = {f"lambda_{k}": f"{k}/7" for k in range(9)}
    other = {**many, "lambda_8": "9/7"}
    first, second = default_stem("w-load", many, {}, {}), default_stem("w-load", other, {}, {})
    assert first != second and len(first) == len("w-load-") + 10
    assert default_stem("w-load", many, {}, {}) == first  # the same parameters, the same name


def test_pdf_output_for_a_paper(tmp_path, capsys):
    pdf = tmp_path / "graph.pdf"
    assert main(["plot", "w", "graph", "-o", str(pdf)]) == 0
    assert pdf.read_bytes()[:5] == b"%PDF-"


def test_help_shows_no_placeholders(capsys):
    try:
        main(["plot", "--help"])
    except SystemExit:
        pass
    text = capsys.readouterr().out
    assert "OPT_" not in text and "--max-jobs N" in text and "--force" in text


def _figure_texts(picture):
    texts = [picture.figure._suptitle.get_text()] if picture.figure._suptitle else []
    for ax in picture.figure.axes:
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    return texts


def test_titles_carry_the_rates_and_readable_names():
    from symq import model
    from symq.presentation.pictures import close, get

    values = {"lambda_1": "1", "lambda_2": "1", "lambda_3": "1", "mu_1": "2", "mu_2": "2"}
    w = model("w").substitute(values)
    load = get("load").draw(w, points=2)
    ax = load.figure.axes[0]
    assert ax.get_ylabel() == "mean response time"
    assert r"\lambda=(1,1,1),\ \mu=(2,2)" in ax.get_title()
    close(load)
    law = get("distribution").draw(w, max_jobs=40)
    title = law.figure.axes[0].get_title()
    assert not re.search(r"\de-\d", title) and r"\times10^{-" in title
    close(law)


def test_heatmap_panels_share_one_scale_and_only_sed_has_sed_lines():
    from symq.studies.compensation import asymmetric_jsq, sed, symmetric_jsq
    from symq.presentation.pictures import close
    from symq.presentation.pictures.compensation import draw_heatmap, draw_levels

    picture = draw_heatmap(sed(2, "1/2", "9/10"), rhos=["1/2", "7/10"], size=3)
    images = [ax.images[0] for ax in picture.figure.axes if ax.images]
    assert len(images) == 3 and len({(i.norm.vmin, i.norm.vmax) for i in images}) == 1
    titles = [ax.get_title() for ax in picture.figure.axes if ax.images]
    assert titles == [r"$\rho=1/2$", r"$\rho=7/10$", r"$\rho=9/10$"]
    assert r"\rho" not in picture.figure._suptitle.get_text()  # not one load over three panels
    close(picture)
    for model, labels in ((symmetric_jsq("1/2"), ["$q_1=q_2$ (ties)"]),
                          (asymmetric_jsq("1", "1", "2"), [])):
        picture = draw_heatmap(model, size=3)
        legend = picture.figure.axes[0].get_legend()
        shown = [t.get_text() for t in legend.get_texts()] if legend else []
        assert shown == labels
        close(picture)
    levels = draw_levels(sed(2, "1/2", "1/2"), size=3, max_levels=2)
    sizes = {t.get_fontsize() for t in levels.figure.axes[0].texts}
    assert min(sizes) >= 7
    close(levels)
