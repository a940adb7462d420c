"""The docs site builds (``mkdocs build --strict``), with math rendered by MathJax served from the
built site itself (no network), and with no trace of files outside the repository.

Where a headless Chromium is installed (CI installs it with apt, as it installs texlive), pages
are loaded in it and checked: MathJax ran (``MathJax`` elements exist) and no raw ``$...$`` or
``\\(...\\)`` is left in the text. Without Chromium that part is skipped with a message.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# rendered in the browser (the API reference is checked without one: MathJax needs minutes there
# on a loaded machine)
PAGES = ["index.html", "quantities/index.html", "compensation/index.html",
         "theory-subset-dp/index.html", "notebooks/tour/index.html", "errata-survey/index.html"]
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


def test_no_sphinx_roles_or_rst_math_left_in_the_api_reference(site):
    text = _text((site / "reference" / "index.html").read_text(encoding="utf-8"))
    assert not re.search(r":(func|mod|class|meth|attr|exc):", text)
    assert ".. math::" not in text


def test_no_raw_dollar_math_outside_the_math_markup(site):
    # math that arithmatex did not recognise (e.g. "$2^n + $") would stay raw in the browser
    found = []
    for page in site.rglob("*.html"):
        source = page.read_text(encoding="utf-8")
        source = re.sub(r'<(span|div) class="arithmatex">.*?</\1>', " ", source, flags=re.S)
        raw = [r for r in RAW_MATH.findall(_text(source)) if "\\" in r or "_" in r or "^" in r]
        found += [f"{page.relative_to(site)}: {r}" for r in raw]
    assert not found, "\n".join(found[:20])


def test_citation_keys_link_to_the_bibliography(site):
    bibliography = (site / "bibliography" / "index.html").read_text(encoding="utf-8")
    keys = set(re.findall(r'id="([a-z0-9+]+)"', bibliography))
    used = set()
    for page in site.rglob("*.html"):
        used |= set(re.findall(r'bibliography/#([a-z0-9+]+)"', page.read_text(encoding="utf-8")))
    assert used, "no citation links at all"
    assert used <= keys, f"keys without a bibliography entry: {sorted(used - keys)}"
    assert not re.search(r"\[[A-Z][A-Za-z]*\d*\]_", _text(
        (site / "reference" / "index.html").read_text(encoding="utf-8")))


def _browser() -> str | None:
    return next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)


def test_math_renders_in_a_headless_browser(site):
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium here (apt-get install chromium-headless-shell): the pages were "
                    "built and checked, but not rendered in a browser")
    for name in PAGES:
        path = site / name
        run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                              "--virtual-time-budget=10000", "--dump-dom", path.as_uri()],
                             capture_output=True, text=True, timeout=300)
        dom = run.stdout
        assert "</html>" in dom, f"{name}: no DOM from {browser}: {run.stderr[-500:]}"
        source = path.read_text(encoding="utf-8")
        if 'class="arithmatex"' in source:
            assert 'class="MathJax' in dom, f"{name}: MathJax did not typeset the math"
        text = _text(dom)
        raw = re.findall(r"\$[^$\n]{1,80}\$|\\\([^)]{1,80}\\\)|\\\[[^\]]{1,80}\\\]", text)
        raw = [r for r in raw if "\\" in r or "_" in r or "^" in r]
        assert not raw, f"{name}: raw math left: {raw[:5]}"
