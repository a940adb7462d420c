"""The API reference pages ``api/*.md`` and the index ``reference.md`` of the docs site.

The docs hook (docs/_site/hooks.py) adds them to the site at every build, so they always match
the code; ``python docs/_site/api_pages.py OUTDIR`` writes them to a folder to read them.

One page a topic; the public objects of ``symq`` (``symq.Model``, ``symq.verify``, ...) are
documented at the path users type, first on their topic's page, and every other object once, in
the first module (in the order below) that defines or exports it. Module blocks list their members
explicitly, so an object re-exported by a package is not documented a second time. The index
(``reference.md``) links every documented object to its page, with its summary line.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (file, title, introduction, public names of symq, modules)
TOPICS = [
    ("models", "Models and input",
     "Build a model from a built-in name, a TOML file or Python, and read its rates.",
     "Model model example_model load loads builtin_names",
     "symq.models.model symq.models.catalog symq.models.rates"),
    ("quantities", "Quantities: solve, derive, evaluate",
     "The front door (`symq.solve`), the per-quantity functions and exact evaluation.",
     "solve Result ROUTES empty_probability normalizing_constant server_idle_probability "
     "mean_number mean_response_time derive evaluate Evaluated",
     "symq.queries.solve symq.queries.routes symq.queries.quantities symq.arithmetic.numeric "
     "symq.engines.aggregated symq.engines.distributions"),
    ("sensitivities", "Sensitivities",
     "Exact and certified gradients and elasticities of the quantities.",
     "gradient",
     "symq.queries.gradient"),
    ("optimize", "Capacity allocation",
     "The capacity split that minimises a quantity, with certified digits (`symq optimize`).",
     "optimize Optimum",
     "symq.queries.optimize"),
    ("stability", "Stability and nesting",
     "Stability conditions of a model and the nested structure behind the closed forms.",
     "check_stability is_stable stability_conditions stability_report is_nested nesting_tree "
     "nested_empty_probability",
     "symq.models.stability symq.engines.nested"),
    ("normalization", "Normalizing constants",
     "The routes that compute normalizing constants and means, one module a method.",
     "",
     "symq.engines.normalization symq.engines.normalization.entry "
     "symq.engines.normalization.subsets symq.engines.normalization.collaborative "
     "symq.engines.normalization.alis symq.engines.normalization.rais "
     "symq.engines.normalization.structured symq.engines.normalization.ring"),
    ("certified", "Certified digits",
     "Interval (ball) arithmetic that proves every printed digit.",
     "",
     "symq.engines.normalization.certified symq.arithmetic.interval "
     "symq.engines.normalization.interval_collaborative "
     "symq.engines.normalization.interval_noncollaborative"),
    ("arithmetic", "Exact arithmetic and set functions",
     "Exact numbers, set functions, elementary symmetric polynomials and certificates.",
     "",
     "symq.arithmetic.exact symq.engines.set_functions symq.arithmetic.elementary_symmetric "
     "symq.arithmetic.certificates"),
    ("response-times", "Response and waiting times",
     "Laws of the response and waiting time of a tagged job.",
     "",
     "symq.engines.response_time symq.engines.response_time.laws "
     "symq.engines.response_time.noncollaborative symq.engines.response_time.collaborative "
     "symq.engines.response_time.law symq.engines.response_time.setfunctions "
     "symq.queries.response_time symq.engines.response_time.tagged_chain "
     "symq.engines.response_time.simulation symq.presentation.pictures.response_time"),
    ("product-forms", "Product forms and their proofs",
     "Balance equations checked state by state, and the truncated Markov chains.",
     "verify BalanceReport",
     "symq.engines.processes symq.engines.balance symq.engines.ctmc"),
    ("uninformed", "Uninformed customers",
     "Heterogeneous servers and customers who do not see the queue (Cabral).",
     "",
     "symq.studies.uninformed symq.studies.uninformed.queue symq.studies.uninformed.law "
     "symq.studies.uninformed.chain symq.studies.uninformed.theorem "
     "symq.studies.uninformed.handlers"),
    ("supermarket", "Supermarket model",
     "Join-the-shortest-queue clusters, their decomposition and simulation.",
     "decompose drift_rates simulate_jlw",
     "symq.studies.supermarket symq.studies.supermarket.policy symq.studies.supermarket.clusters "
     "symq.studies.supermarket.decomposition symq.studies.supermarket.maxflow "
     "symq.studies.supermarket.signs symq.studies.supermarket.simulation"),
    ("compensation", "Compensation approach",
     "Two-queue routing (JSQ, asymmetric JSQ, SED) solved by the compensation approach.",
     "compensation_solve CompensationResult symmetric_jsq asymmetric_jsq sed",
     "symq.studies.compensation"),
    ("sweeps", "Sweeps over graphs",
     "Enumerate compatibility graphs and check a claim on each.",
     "",
     "symq.models.graphs symq.studies.sweep symq.studies.sweep.engine symq.studies.sweep.checks "
     "symq.studies.sweep.registry symq.studies.sweep.sampling symq.studies.sweep.verdict"),
    ("reports", "Reports and LaTeX",
     "Derivation documents and the LaTeX of formulas.",
     "",
     "symq.presentation.report symq.presentation.latex"),
    ("errors", "Errors",
     "The exceptions symq raises; every one is a `symq.SymqError`.",
     "SymqError ModelError UnknownModelError UnstableModelError UnsupportedError "
     "VerificationError",
     "symq.errors"),
]


def _canonical(obj, fallback: str) -> str:
    if inspect.isfunction(obj) or inspect.isclass(obj):
        target = inspect.unwrap(obj)
        return f"{target.__module__}.{target.__qualname__}"
    return fallback


SUMMARY_LENGTH = 120


def _summary(obj) -> str:
    """The first sentence of the docstring, at most about ``SUMMARY_LENGTH`` characters cut at a
    word, never inside math (a ``$...$`` cut in two would show a raw ``$`` in the index)."""
    doc = inspect.getdoc(obj) or ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    sentence, at = first, 0
    for match in re.finditer(r"\. ", first):  # the first ". " outside math ends the sentence
        if first[:match.start()].count("$") % 2 == 0:
            sentence = first[:match.start()]
            break
    sentence = sentence.rstrip(".")
    if len(sentence) > SUMMARY_LENGTH:
        cut = sentence.rfind(" ", 0, SUMMARY_LENGTH)
        sentence = sentence[:cut if cut > 0 else SUMMARY_LENGTH]
        if sentence.count("$") % 2:  # the cut fell inside math: end before it
            sentence = sentence[:sentence.rindex("$")]
        sentence = sentence.rstrip(" ,;:(") + " ..."
    elif sentence.count("$") % 2:
        sentence = sentence[:sentence.rindex("$")].rstrip(" ,;:(") + " ..."
    return sentence.replace("|", "\\|")


def _members(module) -> list[tuple[str, object]]:
    """The public members mkdocstrings would show for ``module``, in source order."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_") and not inspect.ismodule(v)
                 and (not (inspect.isfunction(v) or inspect.isclass(v))
                      or v.__module__ == module.__name__)
                 and (inspect.isfunction(v) or inspect.isclass(v) or n.isupper())]
    return [(n, getattr(module, n)) for n in names
            if hasattr(module, n) and not inspect.ismodule(getattr(module, n))]


#: anchor of a documented object -> (source file relative to the repository, first line); filled
#: by :func:`pages`, read by the docs hook to link every object to its source
SOURCES: dict[str, tuple[str, int]] = {}


def _source(anchor: str, obj) -> None:
    try:
        target = inspect.unwrap(obj)
        path = Path(inspect.getsourcefile(target)).resolve()
        line = 1 if inspect.ismodule(target) else inspect.getsourcelines(target)[1]
        SOURCES[anchor] = (str(path.relative_to(ROOT)), line)
    except (TypeError, OSError, ValueError):
        pass


def pages() -> dict[str, str]:
    """``{relative path: text}`` of the API pages and the index."""
    import symq

    topics = [list(row) for row in TOPICS]
    # a public name no topic lists goes to the topic of its module, else to "Further objects",
    # so that a new public name is documented before anyone files it under a topic
    listed = {n for row in topics for n in row[3].split()}
    for name in symq.__all__:
        if name in listed:
            continue
        module = symq._LAZY.get(name, ("symq", name, None))[0]
        home = next((row for row in topics
                     if any(module == m or module.startswith(m + ".") for m in row[4].split())),
                    None)
        if home is None:
            home = next((row for row in topics if row[0] == "further"), None)
            if home is None:
                home = ["further", "Further objects",
                        "Public objects not yet filed under a topic.", "", ""]
                topics.insert(len(topics) - 1, home)
        home[3] = (home[3] + " " + name).strip()
    documented: dict[str, str] = {}   # canonical path -> "page#anchor"
    index: list[tuple[str, str, str]] = []  # (shown path, link, summary)
    out: dict[str, str] = {}
    # the public names first, so that they are documented at their public path
    for file, _title, _intro, public, _modules in topics:
        for name in public.split():
            module, attribute, _ = symq._LAZY.get(name, ("symq", name, None))
            obj = getattr(importlib.import_module(module), attribute)
            documented[_canonical(obj, f"{module}.{attribute}")] = f"symq.{name}"
            documented[f"{module}.{attribute}"] = f"symq.{name}"
    for file, title, intro, public, modules in topics:
        lines = [f"# {title}", "", intro, ""]
        for name in public.split():
            lines += [f"::: symq.{name}", ""]
            index.append((f"symq.{name}", f"api/{file}.md#symq.{name}",
                          _summary(getattr(symq, name))))
            module, attribute, _ = symq._LAZY.get(name, ("symq", name, None))
            _source(f"symq.{name}", getattr(importlib.import_module(module), attribute))
        for modname in modules.split():
            module = importlib.import_module(modname)
            _source(modname, module)
            keep = []
            for name, obj in _members(module):
                key = _canonical(obj, f"{modname}.{name}")
                if key in documented or f"{modname}.{name}" in documented:
                    continue
                documented[key] = f"{modname}.{name}"
                keep.append(name)
                _source(f"{modname}.{name}", obj)
                index.append((f"{modname}.{name}", f"api/{file}.md#{modname}.{name}",
                              _summary(obj)))
            lines += [f"::: {modname}", "    options:",
                      f"      members: [{', '.join(keep)}]" if keep else "      members: false",
                      ""]
        out[f"api/{file}.md"] = "\n".join(lines)
    rows = ["# Python API reference", "",
            "Generated from the docstrings; every example in them runs as a doctest in the test "
            "suite. One page a topic:", ""]
    rows += [f"- [{title}](api/{file}.md): {intro}" for file, title, intro, _p, _m in topics]
    rows += ["", "## Index of objects", "",
             "Every documented object, at the path to import it from "
             "(`symq.NAME` for the public names).", "",
             "| Object | Summary |", "| --- | --- |"]
    for shown, link, summary in sorted(index, key=lambda r: r[0].lower()):
        rows.append(f"| [`{shown}`]({link}) | {summary} |")
    out["reference.md"] = "\n".join(rows) + "\n"
    return out


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "site-api"
    for relative, text in pages().items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(pages())} pages under {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
