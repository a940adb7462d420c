"""The docs site builds (``mkdocs build --strict``), with math rendered by MathJax served from the
built site itself (no network), and with no trace of files outside the repository.

Where a headless Chromium is installed (CI installs it with apt, as it installs texlive), every
built page is loaded in it and, once MathJax has finished, its visible text (code blocks aside)
must hold no raw ``\\(``, ``\\[``, ``\\frac`` or ``$``: every formula of the pages, the API
reference and the notebooks' outputs is typeset (a slow test; CI runs it). Without Chromium that
part is skipped with a message.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# rendered in the browser (the API reference is checked without one: MathJax needs minutes there
# on a loaded machine)
PAGES = ["index.html", "quantities/index.html", "compensation/index.html",
         "theory-subset-dp/index.html", "notebooks/tour/index.html", "errata-survey/index.html",
         "api/stability/index.html", "tutorial/index.html", "gallery/index.html"]
RAW_MATH = re.compile(r"\$[^$\n]{1,80}\$|\\\([^)]{1,80}\\\)")
OUTSIDE = re.compile(r"INTERFACE\.md|DESIGN\.md|STYLE\.md|notes/[a-z-]+\.md|papers/|"
                     r"\bissue \d+|\bissues? #\d+")
BROWSERS = ("chromium", "chromium-headless-shell", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs")
    target = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                          str(target)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return target


def _text(page: str) -> str:
    """The visible text of a page: no code blocks, no scripts, no tags."""
    page = re.sub(r"<(pre|code|script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_site_builds_with_mathjax_served_locally(site):
    assert (site / "mathjax" / "MathJax.js").is_file()
    assert (site / "mathjax" / "config" / "TeX-AMS-MML_HTMLorMML-full.js").is_file()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'src="mathjax/MathJax.js"' in index and "cdn" not in index.lower().split("<body")[1]
    # math is marked up for MathJax, not left as $...$
    compensation = (site / "compensation" / "index.html").read_text(encoding="utf-8")
    assert compensation.count('class="arithmatex"') > 10


def test_no_reference_to_files_outside_the_repository(site):
    found = []
    for page in site.rglob("*.html"):
        for match in OUTSIDE.finditer(_text(page.read_text(encoding="utf-8"))):
            found.append(f"{page.relative_to(site)}: {match.group(0)}")
    assert not found, "\n".join(found[:20])


def _api_pages(site) -> list[Path]:
    return sorted((site / "api").glob("*/index.html"))


def test_no_sphinx_roles_or_rst_math_left_in_the_api_reference(site):
    for page in _api_pages(site) + [site / "reference" / "index.html"]:
        text = _text(page.read_text(encoding="utf-8"))
        assert not re.search(r":(func|mod|class|meth|attr|exc):", text), page
        assert ".. math::" not in text, page
        assert "~symq." not in page.read_text(encoding="utf-8"), page


# ------------------------------------------------------------------ API reference pages
_ROW = re.compile(r'<tr class="doc-section-item">(.*?)</tr>', re.S)
_CELL = re.compile(r"<td>(.*?)</td>", re.S)


def parameter_rows(page: str) -> list[tuple[str, str, str]]:
    """(name, type, description) of every row of the Parameters tables of a built API page."""
    rows = []
    for table in re.findall(r'Parameters:</span></p>\s*<table>(.*?)</table>', page, re.S):
        for row in _ROW.findall(table):
            cells = [" ".join(html.unescape(re.sub(r"<[^>]+>", "", c)).split())
                     for c in _CELL.findall(row)]
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def bad_parameter_rows(page: str) -> list[str]:
    """Rows whose Type cell holds prose (the broken tables: the description landed there, cut
    at the first ``;`` or ``(``)."""
    sys.path.insert(0, str(ROOT / "docs" / "_site"))
    from griffe_symq import type_like

    bad = []
    for name, kind, description in parameter_rows(page):
        if kind and not type_like(kind.replace("|", " or ")) or "``" in kind or "$" in kind:
            bad.append(f"{name}: type {kind!r}")
    return bad


def test_parameter_tables_put_the_description_in_the_description_column(site):
    found, rows = [], 0
    for page in _api_pages(site):
        source = page.read_text(encoding="utf-8")
        rows += len(parameter_rows(source))
        found += [f"{page.parent.name}: {b}" for b in bad_parameter_rows(source)]
    assert rows > 300
    described = sum(bool(text) for page in _api_pages(site)
                    for _n, _k, text in parameter_rows(page.read_text(encoding="utf-8")))
    assert described > 0.9 * rows
    assert not found, "\n".join(found[:20])
    verify = (site / "api" / "product-forms" / "index.html").read_text(encoding="utf-8")
    verify = verify[verify.index('id="symq.verify"'):]
    table = dict((name, (kind, text)) for name, kind, text in parameter_rows(verify)[:7])
    assert table["max_jobs"] == ("int", "every valid state with at most this many jobs is checked")
    assert table["model"][1] == ("a symq.models.model.Model, or a symq.engines.processes.base."
                                 "Process (then discipline is ignored)")


def test_the_table_checker_fails_on_the_old_broken_table():
    old = ('<p><span class="doc-section-title">Parameters:</span></p> <table><tbody>'
           '<tr class="doc-section-item"><td><code>max_jobs</code></td>'
           '<td><code>every valid state with at most this many jobs is checked</code></td>'
           '<td><div class="doc-md-description"></div></td><td>4</td></tr></tbody></table>')
    assert bad_parameter_rows(old) == [
        "max_jobs: type 'every valid state with at most this many jobs is checked'"]
    fixed = old.replace("every valid state with at most this many jobs is checked", "int")
    assert bad_parameter_rows(fixed) == []


def test_every_object_is_documented_once_at_its_public_path(site):
    import symq

    ids: dict[str, str] = {}
    for page in _api_pages(site):
        for anchor in re.findall(r'id="([\w.]+)" class="doc doc-heading"',
                                 page.read_text(encoding="utf-8")):
            assert anchor not in ids, f"{anchor} on {ids.get(anchor)} and {page.parent.name}"
            ids[anchor] = page.parent.name
    for name in symq.__all__:
        assert f"symq.{name}" in ids, f"symq.{name} has no entry"
    # the public objects are not documented a second time at their module path
    for twice in ("symq.models.model.Model", "symq.engines.balance.verify",
                  "symq.queries.quantities.evaluate", "symq.queries.quantities.empty_probability"):
        assert twice not in ids
    assert not [i for i in ids if i.endswith(".response_time_law") and i.count(".") > 3][1:]
    # the index links every documented module member (modules and methods aside)
    index = (site / "reference" / "index.html").read_text(encoding="utf-8")
    linked = set(re.findall(r'href="[^"#]*#([\w.]+)"', index))
    objects = {i for i in ids if not _is_module(i) and _is_module(i.rsplit(".", 1)[0])}
    assert len(objects) > 300
    assert objects <= linked, sorted(objects - linked)[:10]


def _is_module(path: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(path) is not None
    except (ImportError, ValueError):
        return False


def test_family_members_link_to_each_other(site):
    page = (site / "api" / "stability" / "index.html").read_text(encoding="utf-8")
    start = page.index('id="symq.is_stable"')
    section = page[start:page.index('class="doc doc-heading"', start + 40)]
    see_also = section[section.index('class="see-also"'):]
    see_also = see_also[:see_also.index("</details>")]
    assert set(re.findall(r'href="[^"]*#(symq\.\w+)"', see_also)) == {
        "symq.check_stability", "symq.stability_conditions", "symq.stability_report"}


def test_api_pages_are_small_enough_for_mathjax(site):
    # the single reference page was 1.7 MB with ~1,500 formulas: MathJax took over a minute
    for page in _api_pages(site):
        source = page.read_text(encoding="utf-8")
        assert len(source) < 400_000, page
        assert source.count('class="arithmatex"') < 300, page


# ------------------------------------------------------------------ gallery
def test_gallery_is_what_its_script_writes_with_every_kind(tmp_path):
    pytest.importorskip("matplotlib")
    from symq.presentation.pictures import kinds

    run = subprocess.run([sys.executable, "docs/_site/gallery.py", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    page = (tmp_path / "gallery.md").read_text(encoding="utf-8")
    assert page == (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8"), \
        "docs/gallery.md is stale: run python docs/_site/gallery.py"
    sections = re.findall(r"^## (\S+)\n\n[^\n]+\n\n!\[\1\]\(img/gallery/\1\.png\)\n\n```console\n"
                          r"\$ (symq plot [^\n]*)\nwrote ([^\n]*)\n```", page, re.M)
    assert sorted(kind for kind, _c, _w in sections) == sorted(kinds())
    for kind, command, written in sections:
        assert f" {kind}" in command or kind in ("heatmap", "levels")
        fresh = (tmp_path / "img" / "gallery" / f"{kind}.png").read_bytes()
        committed = (ROOT / "docs" / "img" / "gallery" / f"{kind}.png").read_bytes()
        assert committed[:8] == fresh[:8] == b"\x89PNG\r\n\x1a\n"
        assert committed[16:24] == fresh[16:24], f"{kind}: the committed picture has another size"


# ------------------------------------------------------------------ version, source, how to build
def test_footer_shows_the_version_and_links_to_the_source(site):
    import symq

    for name in ("index.html", "api/stability/index.html", "notebooks/tour/index.html"):
        page = (site / name).read_text(encoding="utf-8")
        footer = page[page.index("<footer"):]
        assert f"symq {symq.__version__}" in footer, name
        (link,) = re.findall(r'href="([^"]*source/index\.html)"', footer)
        assert (site / name).parent.joinpath(link).resolve() == (site / "source" / "index.html")


def test_api_objects_link_to_their_source_line(site):
    page = (site / "api" / "product-forms" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'id="([\w.]+)" class="doc doc-heading">.*?</h\d><p class="doc-source">'
                       r'<a href="([^"#]+)#L(\d+)"', page, re.S)
    found = {anchor: (path, int(line)) for anchor, path, line in links}
    path, line = found["symq.verify"]
    source = (site / "api" / "product-forms").joinpath(path).resolve()
    text = html.unescape(re.sub(r"<[^>]+>", "", source.read_text(encoding="utf-8")))
    numbered = {int(m.group(1)): m.group(2) for m in re.finditer(r"^\s*(\d+)  (.*)$", text, re.M)}
    assert numbered[line].startswith("def verify(")
    assert len(found) > 20


def test_the_docs_say_how_to_build_the_site_and_convert_notebooks():
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "python -m mkdocs build --strict" in text and "python -m mkdocs serve" in text
    assert "jupyter nbconvert" in text and "--HTMLExporter.mathjax_url='mathjax/MathJax.js" in text


def test_tables_of_notebooks_are_html_and_the_tutorial_typesets_its_formula(site):
    tour = (site / "notebooks" / "tour" / "index.html").read_text(encoding="utf-8")
    # the failing verify report of the tour is an HTML table, not one tall LaTeX array
    assert re.search(r'<div class="notebook-html">.*?<table', tour, re.S)
    blocks = re.findall(r'<div class="arithmatex">(.*?)</div>', tour, re.S)
    assert blocks and max(len(b) for b in blocks) < 1500
    tutorial = (site / "tutorial" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="arithmatex">\\\[\s*\\begin\{aligned\}.*?P\(\\emptyset\)',
                     tutorial, re.S)


# ------------------------------------------------------------------ every page after MathJax
#: what a reader must never see once MathJax has run: TeX delimiters, a TeX command, a dollar
RAW_AFTER_MATHJAX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\\frac\b|\$")


def _browser() -> str | None:
    for name in BROWSERS:
        if shutil.which(name):
            return shutil.which(name)
    return None


def rendered_text(browser: str, page: Path) -> tuple[str, int]:
    """The visible text of ``page`` after its scripts (MathJax) have run in headless Chromium
    (code blocks, scripts and styles left out: MathJax keeps each formula's TeX in a script), and
    the number of formulas MathJax typeset."""
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=120000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=600)
    dom = run.stdout
    typeset = len(re.findall(r'<span class="MathJax"|<div class="MathJax_Display"', dom))
    return _text(dom), typeset


def raw_tex(text: str) -> list[str]:
    """Each raw TeX fragment or dollar of ``text``, with a little context."""
    return [text[max(0, m.start() - 30):m.end() + 30].replace("\n", " ")
            for m in RAW_AFTER_MATHJAX.finditer(text)]


def built_pages(site: Path) -> list[Path]:
    """Every page of the site a reader opens (the MathJax copy and the source listings aside)."""
    return sorted(p for p in site.rglob("*.html")
                  if p.relative_to(site).parts[0] not in ("mathjax", "source"))


def test_the_raw_tex_scan_sees_an_untypeset_formula(tmp_path):
    # must fail on purpose: math outside the elements MathJax typesets stays raw, and the scan
    # reports it (and a dollar in prose)
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium (CI installs chromium-headless-shell)")
    page = tmp_path / "raw.html"
    page.write_text("<!doctype html><p>total \\(\\frac{4135}{6188}\\) costs $5</p>"
                    "<pre>$ symq list</pre>", encoding="utf-8")
    text, typeset = rendered_text(browser, page)
    found = raw_tex(text)
    assert typeset == 0 and len(found) == 4, found  # \( \frac \) and the dollar; not the code


@pytest.mark.slow
def test_every_page_is_typeset_with_no_raw_tex_left(site):
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium (CI installs chromium-headless-shell)")
    pages = built_pages(site)
    assert len(pages) > 50
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda page: rendered_text(browser, page), pages))
    found, typeset = [], {}
    for page, (text, count) in zip(pages, results):
        typeset[str(page.relative_to(site))] = count
        found += [f"{page.relative_to(site)}: ...{fragment}..." for fragment in raw_tex(text)]
    assert not found, f"{len(found)} raw TeX fragments after MathJax:\n" + "\n".join(found[:30])
    # MathJax ran: the notebook tables and the pages full of math are typeset
    assert typeset["notebooks/tour/index.html"] >= 8  # the two tables of values at least
    assert typeset["theory-subset-dp/index.html"] > 100 and typeset["reference/index.html"] > 50


def page_width(browser: str, site: Path, page: str, window: int = 1280) -> tuple[int, int]:
    """``(scrollWidth, clientWidth)`` of ``page`` shown in a window ``window`` px wide (loaded in
    a frame of a helper page written into the built site; MathJax has run)."""
    helper = site / "_width_probe.html"
    helper.write_text(
        f'<!doctype html><body><iframe id="f" src="{page}" style="width:{window}px;'
        'height:900px"></iframe><script>document.getElementById("f").onload = function () {'
        'setTimeout(function () { var d = document.getElementById("f").contentDocument;'
        'var out = document.createElement("pre"); out.textContent = "WIDTH " + '
        'd.documentElement.scrollWidth + " " + d.documentElement.clientWidth;'
        'document.body.appendChild(out); }, 5000); };</script>', encoding="utf-8")
    try:
        run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                              "--allow-file-access-from-files", "--virtual-time-budget=120000",
                              "--dump-dom", helper.as_uri()],
                             capture_output=True, text=True, timeout=600)
    finally:
        helper.unlink()
    scroll, client = re.search(r"WIDTH (\d+) (\d+)", run.stdout).groups()
    return int(scroll), int(client)


def test_the_index_of_objects_fits_the_window_with_no_raw_math(site):
    index = (site / "reference" / "index.html").read_text(encoding="utf-8")
    assert "$" not in _text(index)  # every summary's math is whole, so arithmatex marked it up
    assert 'href="../api/optimize/#symq.optimize"' in index
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium (CI installs chromium-headless-shell)")
    scroll, client = page_width(browser, site, "reference/index.html")
    assert scroll <= client, f"the index is {scroll} px wide in a {client} px window"


def test_signatures_are_wrapped_one_parameter_a_line(site):
    page = (site / "api" / "quantities" / "index.html").read_text(encoding="utf-8")
    start = page.index('id="symq.solve"')
    signature = re.search(r'<div class="[^"]*doc-signature[^"]*"[^>]*>(.*?)</div>', page[start:],
                          re.S)
    lines = html.unescape(re.sub(r"<[^>]+>", "", signature.group(1))).strip().splitlines()
    assert lines[0] == "solve(" and lines[1].strip() == "model," and lines[-1] == ")"


def test_optimize_cite_changelog_and_license_are_in_the_navigation(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    nav = index[:index.index('<div class="col-md-9"')]
    for target in ("cite/", "changelog/", "license/", "api/optimize/", "cli/", "sensitivities/"):
        assert f'href="{target}"' in nav, target
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert 'id="optimize"' in cli
    assert "symq optimize w mean-response-time" in html.unescape(re.sub(r"<[^>]+>", "", cli))
    # the pages are written from the repository's files at every build
    import symq
    page = (site / "cite" / "index.html").read_text(encoding="utf-8")
    cite, everything = _text(page), html.unescape(re.sub(r"<[^>]+>", "", page))
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    version = re.search(r"^version: (\S+)$", citation, re.M).group(1)
    assert version == symq.__version__ and f"(version {version})" in cite
    assert "@software{symq," in everything and f"version = {{{version}}}," in everything
    assert "author = {{The symq developers}}," in everything
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert f"[{symq.__version__}]" in changelog and "Unreleased" in changelog
    licence = (site / "license" / "index.html").read_text(encoding="utf-8")
    assert "MIT License" in licence and "Permission is hereby granted" in licence


def test_code_is_highlighted_and_has_a_copy_button(site):
    page = (site / "tutorial" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="language-python highlight"><pre><span></span><code>'
                     r'<span class="kn">import</span>', page)
    assert '<div class="language-console highlight">' in page
    assert 'src="../js/copy.js"' in page and 'href="../css/pygments.css"' in page
    assert ".highlight .k" in (site / "css" / "pygments.css").read_text(encoding="utf-8")
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium (CI installs chromium-headless-shell)")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=60000", "--dump-dom",
                          (site / "cli" / "index.html").as_uri()],
                         capture_output=True, text=True, timeout=600).stdout
    blocks = len(re.findall(r"<pre\b", dom))
    assert blocks > 5 and dom.count('class="symq-copy"') == blocks
