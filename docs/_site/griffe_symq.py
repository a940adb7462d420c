"""Griffe extension of the symq docs site (named in mkdocs.yml; not a page).

Three things the API pages need that griffe cannot see by reading the source:

* **Public paths.** ``symq`` loads most of its public names on first use (PEP 562, the ``_LAZY``
  table of ``symq/__init__.py``), so ``symq.verify`` is not an assignment griffe can read. The
  extension adds an alias ``symq.NAME`` -> ``module.attribute`` for each of them, so that
  ``::: symq.verify`` documents the function once, under the path users type.
* **Parameter lines written as prose.** Many docstrings write ``name : what it is`` (prose where
  numpy style puts a type). The numpy parser would put that prose into the Type column, cut at
  ``;`` or ``(``. Such a line becomes ``name`` with the prose as the first line of its
  description; a real type (``int``, ``Model or str``, ``list of Fraction, optional``) stays.
* **See Also.** The members of a family (the quantities, the stability tests, the nesting tests,
  the routing policies, ...) get a "See Also" section linking to each other, as in networkx.
"""

from __future__ import annotations

import re

import griffe

# words that may appear in a numpy type; anything else makes the text prose
_TYPE_WORDS = set("""
or of and optional default none false true int integer str float bool dict list tuple set
frozenset mapping callable sequence sequences iterable object number numbers exact rational mpf
mpmath sympy expression expressions field element elements hashable pairs pair state argparse
subparsers action text stream numpy arrays array class exception any path fraction fmpq basic
expr poly symbol rational function arb acb fmpz
""".split())
_PROSE_MARK = re.compile(r"`|\$|:[a-z]+:|->|\bthe\b|\ba\b|\ban\b")
_ITEM = re.compile(r"^(\s*)([A-Za-z_*][\w*]*(?:\s*,\s*[A-Za-z_*][\w*]*)*)\s+:\s+(.*\S)\s*$")
_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Keyword Arguments"}

#: families of public objects: each member's page links to the others under "See Also"
FAMILIES = {
    "quantities": ["symq.solve", "symq.empty_probability", "symq.normalizing_constant",
                   "symq.server_idle_probability", "symq.mean_number", "symq.mean_response_time",
                   "symq.derive", "symq.evaluate"],
    "models": ["symq.Model", "symq.model", "symq.load", "symq.loads", "symq.example_model",
               "symq.builtin_names"],
    "stability": ["symq.check_stability", "symq.is_stable", "symq.stability_conditions",
                  "symq.stability_report"],
    "nesting": ["symq.is_nested", "symq.nesting_tree", "symq.nested_empty_probability"],
    "product forms": ["symq.verify", "symq.BalanceReport"],
    "compensation": ["symq.compensation_solve", "symq.symmetric_jsq", "symq.asymmetric_jsq",
                     "symq.sed", "symq.CompensationResult"],
    "supermarket": ["symq.decompose", "symq.drift_rates", "symq.simulate_jlw"],
}


def type_like(text: str) -> bool:
    """True when ``text`` reads as a numpy type (``int, optional``), False for prose.

    >>> type_like("Model or str"), type_like("list of Fraction, optional")
    (True, True)
    >>> type_like("every valid state with at most this many jobs is checked")
    False
    >>> type_like("a :class:`~symq.models.model.Model`")
    False
    """
    if _PROSE_MARK.search(text):
        return False
    for word in re.findall(r"[A-Za-z_][\w.]*", text):
        if word.lower() in _TYPE_WORDS or "." in word or word[0].isupper():
            continue
        return False
    return True


def fix_prose_items(doc: str) -> str:
    """Rewrite ``name : prose`` items of the parameter-like sections as ``name`` + description.

    >>> print(fix_prose_items("Parameters\\n----------\\nn : how many\\n    jobs in all\\n"
    ...                       "k : int\\n    a count"))
    Parameters
    ----------
    n
        how many
        jobs in all
    k : int
        a count
    """
    lines = doc.split("\n")
    out: list[str] = []
    section = None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if nxt.strip() and set(nxt.strip()) == {"-"} and line.strip():
            section = line.strip()
            out.append(line)
            continue
        match = _ITEM.match(line)
        if section in _SECTIONS and match and not type_like(match.group(3)):
            indent, names, prose = match.groups()
            out.append(indent + names)
            out.append(indent + "    " + prose)
            continue
        out.append(line)
    return "\n".join(out)


_DISPLAY_LINE = re.compile(r"^\s*\$\$.*\$\$\s*$")


def separate_display_math(doc: str) -> str:
    """Put a blank line around a line that is one ``$$...$$`` display, as Markdown's math
    extension (arithmatex) needs: glued to the text around it, the display shows raw ``$``.

    >>> print(separate_display_math("if\\n$$x=1$$\\nthen"))
    if
    <BLANKLINE>
    $$x=1$$
    <BLANKLINE>
    then
    """
    lines = doc.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if _DISPLAY_LINE.match(line):
            if out and out[-1].strip():
                out.append("")
            out.append(line)
            if i + 1 < len(lines) and lines[i + 1].strip():
                out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def _see_also(path: str) -> str | None:
    for members in FAMILIES.values():
        if path in members:
            others = [m for m in members if m != path]
            return "\n".join(f"[`{m}`][{m}]" + ("" if k == len(others) - 1 else ",")
                             for k, m in enumerate(others))
    return None


class SymqDocs(griffe.Extension):
    """Public aliases, prose parameter lines and See Also links (see the module docstring)."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = separate_display_math(fix_prose_items(obj.docstring.value))

    def on_package(self, *, pkg, **kwargs) -> None:
        if pkg.path != "symq":
            return
        import symq
        for name, (module, attribute, _wrapper) in symq._LAZY.items():
            if name not in pkg.members:
                pkg.set_member(name, griffe.Alias(name, f"{module}.{attribute}", parent=pkg))
        for members in FAMILIES.values():
            for path in members:
                name = path.split(".", 1)[1]
                try:
                    target = pkg.members[name]
                    target = target.final_target if isinstance(target, griffe.Alias) else target
                except Exception:  # a family member that does not exist: the test sees it
                    continue
                links = _see_also(path)
                if target.docstring is None or links is None or "See Also" in target.docstring.value:
                    continue
                value = target.docstring.value.rstrip("\n")
                block = f"See Also\n--------\n{links}\n"
                # numpy order: See Also before Notes/Examples
                at = re.search(r"^(Notes|References|Examples)\n-{3,}", value, re.M)
                if at:
                    value = value[:at.start()] + block + "\n" + value[at.start():]
                else:
                    value += "\n\n" + block
                target.docstring.value = value
