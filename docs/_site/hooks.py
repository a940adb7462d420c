"""MkDocs hooks of the symq docs site (named in mkdocs.yml; not a page).

* ``on_page_content``: the API reference renders numpy-style docstrings written with a few
  reStructuredText habits; turn them into what a reader expects: Sphinx roles
  (``:func:`x```) become code, ``.. math::`` paragraphs become display math, and citation keys
  ``[GR20]_`` (in docstrings and pages alike) become links to the bibliography page.
* ``on_files``: the generated pages: the notebooks (their HTML outputs' math marked up for
  MathJax, :func:`typeset_html_output`), the API reference of docs/_site/api_pages.py (a page
  the navigation lacks is added to it), and "Cite symq", the changelog and the license, written
  from CITATION.cff, CHANGELOG.md and LICENSE (:func:`project_pages`).
* ``on_config``/``on_post_page``: the footer shows the version and links to the source pages.
* ``on_post_build``: write the source of the package as HTML pages (``site/source/``, one anchor
  a line, linked from every object of the API pages), and copy MathJax into the built site
  (``site/mathjax/``) from an installed package, so that math renders without a network: the
  pip package ``jupyter-server-mathjax`` (in the ``docs`` and ``test`` extras), else Debian's
  ``libjs-mathjax``; and write the colours of the highlighted code (``css/pygments.css``).
"""

from __future__ import annotations

import html
import os
import re
import shutil

_ROLE = re.compile(r":(?:py:)?(?:func|mod|class|meth|attr|data|exc|obj|const|ref|term|doc):"
                   r"(<code>[^<]*</code>)")
_ROLE_RAW = re.compile(r":(?:py:)?(?:func|mod|class|meth|attr|data|exc|obj|const|ref|term|doc):"
                       r"`~?([^`]+)`")
_MATH = re.compile(r"<p>\.\. math::\s*(.*?)</p>", re.S)
_CITE = re.compile(r"\[([A-Z][A-Za-z]*[0-9]*[a-z]?(?:\+[0-9]+)?)\]_")
_PROMPTS = re.compile(r"<blockquote>\s*<blockquote>\s*<blockquote>\s*<p>(.*?)</p>\s*"
                      r"</blockquote>\s*</blockquote>\s*</blockquote>", re.S)
_REF_DEF = re.compile(r"<p>\.\. \[([A-Z][A-Za-z0-9+]*)\]\s*(.*?)</p>", re.S)


def _cite(match: re.Match, page_url: str) -> str:
    key = match.group(1)
    depth = page_url.count("/") if page_url else 0
    prefix = "../" * depth
    return f'<a class="citation" href="{prefix}bibliography/#{key.lower()}">[{key}]</a>'


_HEADING = re.compile(r'(<h([1-6]) id="([\w.]+)" class="doc doc-heading">.*?</h\2>)', re.S)


def _source_links(text: str, page) -> str:
    """After the heading of every documented object, a link to its line in the source pages."""
    import api_pages

    prefix = "../" * page.url.count("/")

    def link(match: re.Match) -> str:
        found = api_pages.SOURCES.get(match.group(3))
        if found is None:
            return match.group(1)
        path, line = found
        return (match.group(1) + f'<p class="doc-source"><a href="{prefix}source/{path}.html#L{line}">'
                f"source: {path}, line {line}</a></p>")

    return _HEADING.sub(link, text)


def on_page_content(html_text: str, page, config, files) -> str:
    """Clean reStructuredText habits out of a rendered page (see the module docstring); on the
    API pages, link every object to its source."""
    if page.url.startswith("api/"):
        html_text = _source_links(html_text, page)
    text = _ROLE.sub(lambda m: m.group(1).replace("<code>~", "<code>"), html_text)
    text = text.replace("<code>~symq.", "<code>symq.")
    text = _ROLE_RAW.sub(lambda m: f"<code>{m.group(1).lstrip('~')}</code>", text)

    def display(match: re.Match) -> str:
        body = match.group(1).strip()
        return f'<div class="arithmatex">\\[{body}\\]</div>'

    text = _MATH.sub(display, text)
    # ">>>" examples outside a numpy Examples section become nested blockquotes in Markdown;
    # show them as the code they are
    text = _PROMPTS.sub(lambda m: "<pre><code>" + "\n".join(
        line.strip() for line in re.sub(r"<[^>]+>", "", m.group(1)).splitlines()) +
        "</code></pre>", text)
    text = _REF_DEF.sub(lambda m: f'<p>[{m.group(1)}] {m.group(2)} (see the '
                                  f'<a href="{"../" * page.url.count("/")}bibliography/#'
                                  f'{m.group(1).lower()}">bibliography</a>)</p>', text)
    # citation keys, outside code and pre blocks
    parts = re.split(r"(<pre.*?</pre>|<code>.*?</code>)", text, flags=re.S)
    for k in range(0, len(parts), 2):
        parts[k] = _CITE.sub(lambda m: _cite(m, page.url), parts[k])
    return "".join(parts)


def _mathjax_source() -> str | None:
    try:
        import jupyter_server_mathjax
        path = os.path.join(os.path.dirname(jupyter_server_mathjax.__file__), "static")
        if os.path.isfile(os.path.join(path, "MathJax.js")):
            return path
    except ImportError:
        pass
    debian = "/usr/share/javascript/mathjax"
    return debian if os.path.isfile(os.path.join(debian, "MathJax.js")) else None


def _write_sources(site: str) -> None:
    """The package's source as HTML pages ``source/symq/....py.html`` with a ``#L<n>`` anchor a
    line, and an index ``source/index.html``: the API pages link here (no network needed)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    names = []
    for folder, dirs, filenames in os.walk(os.path.join(root, "symq")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            names.append(relative)
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            body = "\n".join(f'<span id="L{k}"><a href="#L{k}">{k:5d}</a>  {html.escape(line)}</span>'
                             for k, line in enumerate(lines, start=1))
            target = os.path.join(site, "source", relative + ".html")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            depth = relative.count("/") + 1
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(f"<!doctype html><meta charset=utf-8><title>{relative}</title>"
                             "<style>span:target{background:#ffd}a{color:#888;"
                             "text-decoration:none}</style>"
                             f'<p><a href="{"../" * depth}index.html">symq docs</a> / '
                             f'<a href="{"../" * (depth - 1)}index.html">source</a> / '
                             f"{relative}</p><pre>{body}</pre>")
    items = "".join(f'<li><a href="{n}.html">{n}</a></li>' for n in names)
    with open(os.path.join(site, "source", "index.html"), "w", encoding="utf-8") as handle:
        handle.write("<!doctype html><meta charset=utf-8><title>symq source</title>"
                     f'<p><a href="../index.html">symq docs</a> / source</p><ul>{items}</ul>')


def on_config(config):
    """Show the version of symq and a link to its source in the footer of every page (unless
    mkdocs.yml sets a footer line itself)."""
    import symq

    if not config.get("copyright"):
        config["copyright"] = (f"symq {symq.__version__} &middot; "
                               '<a href="SYMQ_ROOT/source/index.html">source code</a>')
    return config


def on_post_page(output: str, page, config) -> str:
    """Make the footer's link relative to the page."""
    prefix = "/".join([".."] * page.url.count("/")) or "."
    return output.replace("SYMQ_ROOT/", prefix + "/")


def on_post_build(config) -> None:
    """Copy MathJax into the built site, write the source pages and the colours of the
    highlighted code (``css/pygments.css``, from Pygments; see the module docstring)."""
    _write_sources(config["site_dir"])
    from pygments.formatters import HtmlFormatter

    os.makedirs(os.path.join(config["site_dir"], "css"), exist_ok=True)
    with open(os.path.join(config["site_dir"], "css", "pygments.css"), "w",
              encoding="utf-8") as handle:
        handle.write("/* Pygments colours of the highlighted code (written by docs/_site/hooks.py)"
                     " */\n" + HtmlFormatter(style="friendly").get_style_defs(".highlight") + "\n")
    source = _mathjax_source()
    if source is None:
        raise RuntimeError("MathJax not found: pip install jupyter-server-mathjax (in the docs "
                           "extra of symq) or apt-get install libjs-mathjax")
    target = os.path.join(config["site_dir"], "mathjax")
    if os.path.isdir(target):
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.md"))
    with open(os.path.join(target, "SOURCE.txt"), "w", encoding="utf-8") as handle:
        handle.write(f"MathJax copied from {html.escape(source)} (Apache License 2.0)\n")


# ------------------------------------------------------------------ notebooks as pages
_MATH_IN_TEXT = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]|\$\$(.+?)\$\$|(?<![\\$])\$([^$\n]+?)\$", re.S)


def _arithmatex(text: str) -> str:
    """Plain text of an HTML output with its math marked up as arithmatex does on the pages
    (``<span class="arithmatex">\(...\)</span>``, ``<div class="arithmatex">\[...\]</div>``), the
    only elements the site's MathJax typesets; the rest escaped."""
    out, at = [], 0
    for match in _MATH_IN_TEXT.finditer(text):
        out.append(html.escape(text[at:match.start()], quote=False))
        inline, display, display_dollars, inline_dollars = match.groups()
        if display is not None or display_dollars is not None:
            body = display if display is not None else display_dollars
            out.append(f'<span class="arithmatex">\\[{html.escape(body, quote=False)}\\]</span>')
        else:
            body = inline if inline is not None else inline_dollars
            out.append(f'<span class="arithmatex">\\({html.escape(body, quote=False)}\\)</span>')
        at = match.end()
    out.append(html.escape(text[at:], quote=False))
    return "".join(out)


def typeset_html_output(source: str) -> str:
    r"""A notebook's ``text/html`` output with the math of its text (``\(...\)``, ``\[...\]``,
    ``$...$``, ``$$...$$``, as Jupyter typesets it) marked up for the site's MathJax, which only
    typesets arithmatex elements. Text inside ``tex2jax_ignore`` elements (names, which are data),
    ``pre``, ``code``, ``script`` and ``style`` is left as it is.

    >>> print(typeset_html_output('<td class="tex2jax_ignore">$x$</td><td>\\(\\frac{1}{2}\\)</td>'))
    <td class="tex2jax_ignore">$x$</td><td><span class="arithmatex">\(\frac{1}{2}\)</span></td>
    """
    from html.parser import HTMLParser

    class Marker(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.out: list[str] = []
            self.stack: list[tuple[str, bool]] = []

        def quiet(self) -> bool:
            return any(ignored for _tag, ignored in self.stack)

        def handle_starttag(self, tag, attrs):
            self.out.append(self.get_starttag_text())
            if tag in ("br", "hr", "img", "input", "meta", "link", "col", "wbr"):
                return
            classes = (dict(attrs).get("class") or "").split()
            self.stack.append((tag, "tex2jax_ignore" in classes or tag in (
                "pre", "code", "script", "style", "textarea")))

        def handle_startendtag(self, tag, attrs):
            self.out.append(self.get_starttag_text())

        def handle_endtag(self, tag):
            self.out.append(f"</{tag}>")
            for k in range(len(self.stack) - 1, -1, -1):
                if self.stack[k][0] == tag:
                    del self.stack[k:]
                    break

        def handle_data(self, data):
            self.out.append(html.escape(data, quote=False) if self.quiet() else _arithmatex(data))

        def handle_comment(self, data):
            self.out.append(f"<!--{data}-->")

        def handle_decl(self, decl):
            self.out.append(f"<!{decl}>")

    marker = Marker()
    marker.feed(source)
    marker.close()
    return "".join(marker.out)


def _notebook_markdown(path: str, name: str) -> str:
    """A page from an executed notebook: markdown cells as they are, code as Python blocks, and
    outputs in their richest form the site can show offline (LaTeX for MathJax, HTML, PNG)."""
    import base64
    import nbformat

    nb = nbformat.read(path, as_version=4)
    parts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source + "\n")
            continue
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        parts.append(f"```python\n{cell.source}\n```\n")
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(f"```text\n{out.text.rstrip()}\n```\n")
                continue
            if out.output_type == "error":
                parts.append(f"```text\n{out.ename}: {out.evalue}\n```\n")
                continue
            data = out.get("data", {})
            if "image/png" in data:
                raw = data["image/png"]
                raw = raw if isinstance(raw, str) else base64.b64encode(raw).decode()
                parts.append(f'<img alt="picture" src="data:image/png;base64,{raw.strip()}">\n')
            elif "text/html" in data and "text/latex" in data and (
                    "\\begin{array}" in data["text/latex"] or "\\begin{tabular}" in data["text/latex"]
                    or len(data["text/latex"]) > 1500):
                # a table (a verify report, a per-class table): the HTML table reads better
                # than one tall LaTeX array, and its cells still carry math for MathJax
                parts.append(f'<div class="notebook-html">{typeset_html_output(data["text/html"])}'
                             '</div>\n')
            elif "text/latex" in data:
                tex = data["text/latex"].strip()
                tex = tex[2:-2] if tex.startswith("$$") else tex.strip("$")
                tex = tex.replace("\\displaystyle", "").strip()
                parts.append(f'<div class="arithmatex">\\[{html.escape(tex, quote=False)}\\]</div>\n')
            elif "text/html" in data:
                parts.append(f'<div class="notebook-html">{typeset_html_output(data["text/html"])}'
                             '</div>\n')
            elif "text/plain" in data:
                parts.append(f"```text\n{data['text/plain']}\n```\n")
    parts.append(f"[Download this notebook]({name}) (stored executed; the tests run it again).\n")
    return "\n".join(parts)


def on_files(files, config):
    """Add the generated pages: one per notebook of docs/notebooks/ (``notebooks/NAME.md``), the
    API reference pages ``api/TOPIC.md`` and their index ``reference.md``
    (docs/_site/api_pages.py; a page the navigation lacks, such as a new topic, is added under
    "Python API"), and the project's own files as pages (:func:`project_pages`)."""
    import sys
    from mkdocs.structure.files import File

    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    import api_pages

    for relative, content in api_pages.pages().items():
        old = files.get_file_from_path(relative)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, relative, content=content))

    for relative, content in project_pages().items():
        files.append(File.generated(config, relative, content=content))
    _api_pages_in_nav(config, [relative for relative in api_pages.pages() if
                               relative.startswith("api/")])

    folder = os.path.join(config["docs_dir"], "notebooks")
    if not os.path.isdir(folder):
        return files
    for name in sorted(os.listdir(folder)):
        if name.endswith(".ipynb"):
            content = _notebook_markdown(os.path.join(folder, name), name)
            files.append(File.generated(config, f"notebooks/{name[:-6]}.md", content=content))
    return files


# ------------------------------------------------------------------ the project's files as pages
def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cite_page(citation_text: str) -> str:
    r"""The "Cite symq" page from the text of CITATION.cff: its message, a BibTeX entry and a
    reference in words built from its fields, and the file itself.

    >>> page = cite_page("message: Cite it.\ntitle: symq\nauthors:\n  - name: The symq developers"
    ...                  "\nversion: 0.1.0\ndate-released: '2026-12-02'\nlicense: MIT\n")
    >>> "author = {{The symq developers}}" in page and "year = {2026}" in page
    True
    """
    import yaml

    data = yaml.safe_load(citation_text)
    names = []
    for author in data.get("authors", []):
        if "name" in author:
            names.append("{" + author["name"] + "}")
        else:
            names.append(f"{author.get('family-names', '')}, {author.get('given-names', '')}")
    year = str(data.get("date-released", ""))[:4]
    url = data.get("repository-code") or data.get("url")
    fields = [("title", f"{{{data['title']}}}"), ("author", " and ".join(names)),
              ("version", data.get("version")), ("year", year), ("license", data.get("license")),
              ("url", url)]
    bibtex = "@software{symq,\n" + "".join(f"  {key} = {{{value}}},\n" for key, value in fields
                                           if value) + "}"
    people = ", ".join(n.strip("{}") for n in names)
    words = (f"{people} ({year}). *{data['title']}* (version {data.get('version')}) "
             "[Computer software]." + (f" {url}" if url else ""))
    return "\n".join([
        "# Cite symq", "", data.get("message", ""), "",
        "BibTeX (with `biblatex`; classic BibTeX styles read `@software` as `@misc`):", "",
        "```bibtex", bibtex, "```", "", "In words:", "", words, "",
        "Please also cite the papers whose results you use; the [bibliography](bibliography.md) "
        "lists them, and every docstring names its source.", "",
        "The citation file of the repository, `CITATION.cff` "
        "([Citation File Format](https://citation-file-format.github.io/)), from which this page "
        "is written:", "", "```yaml", citation_text.rstrip(), "```", ""])


def project_pages() -> dict[str, str]:
    """``{page: text}`` of the pages made from the repository's own files at every build, so they
    never drift: ``cite.md`` (CITATION.cff), ``changelog.md`` (CHANGELOG.md) and ``license.md``
    (LICENSE)."""
    root = _root()

    def read(name: str) -> str:
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            return handle.read()

    licence = read("LICENSE")
    return {"cite.md": cite_page(read("CITATION.cff")),
            "changelog.md": read("CHANGELOG.md"),
            "license.md": "# License\n\nsymq is free software under the MIT License (the file "
                          "`LICENSE` of the repository):\n\n```text\n" + licence.rstrip() +
                          "\n```\n"}


def _api_pages_in_nav(config, pages: list[str]) -> None:
    """Add to the "Python API" section of the navigation every generated API page it lacks
    (``api/further.md``, where public objects no topic lists land, or a new topic), titled by
    the page's heading."""
    import api_pages

    def listed(items) -> set[str]:
        found = set()
        for item in items or []:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                found |= listed(value)
            elif isinstance(value, str):
                found.add(value)
        return found

    def section(items):
        for item in items or []:
            if isinstance(item, dict):
                (key, value), = item.items()
                if key == "Python API" and isinstance(value, list):
                    return value
                if isinstance(value, list):
                    inner = section(value)
                    if inner is not None:
                        return inner
        return None

    nav = config.get("nav")
    target = section(nav)
    if target is None:
        return
    have = listed(nav)
    titles = {f"api/{row[0]}.md": row[1] for row in api_pages.TOPICS}
    for page in pages:
        if page not in have:
            target.append({titles.get(page, "Further objects"): page})
