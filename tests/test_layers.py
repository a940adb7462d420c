"""The package is laid out by layer, and no module imports a higher layer or takes part in a cycle.

Layers, lowest first: the base modules (errors, lazy imports, display, schema, progress, the limits
table), ``arithmetic``, ``models``, ``engines``, ``studies``, ``queries``, ``presentation``,
``commands`` (with ``symq.cli``). Every ``import`` statement counts, at module level or inside a
function. A must-fail case feeds the checker an upward import.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "symq"
ORDER = ("base", "arithmetic", "models", "engines", "studies", "queries", "presentation",
         "commands")
BASE = {"symq._lazy", "symq.errors", "symq.display", "symq.schema", "symq.progress",
        "symq.limits"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(module: str, source: str, known: set[str], package: bool) -> set[str]:
    base = module if package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                name = ".".join(parts) + (f".{node.module}" if node.module else "")
            else:
                name = node.module or ""
            targets = [name] + [f"{name}.{a.name}" for a in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module and not module.startswith(target + "."):
                found.add(target)
    return found


def _layer(module: str) -> int:
    if module in BASE:
        return 0
    if module == "symq.cli":
        return ORDER.index("commands")
    return ORDER.index(module.split(".")[1])


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``"a (layer) -> b (layer)"`` for every import of a higher layer (the root package,
    which only re-exports lazily, is left out)."""
    return sorted(f"{m} ({ORDER[_layer(m)]}) -> {d} ({ORDER[_layer(d)]})"
                  for m, deps in graph.items() if m != "symq"
                  for d in deps if d != "symq" and _layer(d) > _layer(m))


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = set()
            while True:
                w = stack.pop()
                on.discard(w)
                part.add(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(part)
    for v in graph:
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph():
    modules = _modules()
    known = set(modules)
    return {m: _imports(m, p.read_text(encoding="utf-8"), known, p.name == "__init__.py")
            for m, p in modules.items()}


def test_every_module_is_in_a_layer(graph):
    for module in graph:
        if module != "symq":
            _layer(module)  # raises ValueError for a module outside every layer


def test_no_module_imports_a_higher_layer(graph):
    assert upward_imports(graph) == []


def test_no_import_cycle(graph):
    assert cycles(graph) == []


def test_the_checkers_see_an_upward_import_and_a_cycle(graph):
    # must fail on purpose: an engine importing the route table, and the route table importing
    # that engine back, are both reported
    bad = {m: set(d) for m, d in graph.items()}
    bad["symq.engines.ctmc"].add("symq.queries.routes")
    bad["symq.queries.routes"].add("symq.engines.ctmc")
    assert upward_imports(bad) == ["symq.engines.ctmc (engines) -> symq.queries.routes (queries)"]
    assert {"symq.engines.ctmc", "symq.queries.routes"} <= set().union(*cycles(bad))
