"""Part of the bare-install check (.ci/bare_install_check.sh): run in a venv with only
``pip install -e .``.

1. Every module of the ``symq`` package imports (so no extra is imported at module level).
2. Every third-party module that ``symq/`` imports anywhere (module level or inside a function)
   is importable, except the extras' modules below, which must be missing in a bare install and
   are imported only inside the feature that needs them. So a dependency that the code uses but
   pyproject.toml lists only in an extra (or not at all) fails here, whichever command uses it.

Exit status 0 when both hold, 1 otherwise (one line per problem).
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import pkgutil
import sys

#: modules of the optional extras (import name -> extra)
EXTRAS = {"matplotlib": "plot", "dask": "cluster", "distributed": "cluster", "pandas": "dataframe"}


def third_party_imports(package: pathlib.Path) -> dict[str, list[str]]:
    """Top-level module name -> the files of ``package`` that import it (absolute imports that
    are neither the standard library nor the package itself)."""
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("symq", "__future__"):
                    continue
                found.setdefault(top, []).append(str(path.relative_to(package.parent)))
    return found


def main() -> int:
    import symq
    package = pathlib.Path(symq.__file__).resolve().parent
    problems = []
    modules = 0
    for info in pkgutil.walk_packages([str(package)], prefix="symq."):
        if info.name.endswith("__main__"):
            continue
        modules += 1
        try:
            importlib.import_module(info.name)
        except Exception as error:  # noqa: BLE001 - report every failure, one line each
            problems.append(f"import {info.name}: {type(error).__name__}: {error}")
    imports = third_party_imports(package)
    for name, files in sorted(imports.items()):
        try:
            importlib.import_module(name)
        except ImportError:
            if name not in EXTRAS:
                problems.append(f"{name} (imported by {', '.join(sorted(set(files)))}) is not "
                                f"installed by a bare `pip install -e .`: make it a core "
                                f"dependency in pyproject.toml")
        else:
            if name in EXTRAS:
                problems.append(f"{name} (the {EXTRAS[name]} extra) is importable in a bare "
                                f"install: this check expects a venv without extras")
    for problem in problems:
        print(f"bare_imports: {problem}", file=sys.stderr)
    core = sorted(n for n in imports if n not in EXTRAS)
    print(f"bare_imports: {modules} symq modules import; third-party imports of symq/: "
          f"core {', '.join(core)}; extras {', '.join(sorted(n for n in imports if n in EXTRAS))}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
