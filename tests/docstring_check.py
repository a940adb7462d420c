"""The public functions of symq (names in each module's ``__all__``) whose docstring lacks a numpy
section: Parameters (if it takes arguments), Returns (unless it returns None), Raises (if its body
raises), Examples, and a "Running time" line. Not a test module: a helper for a future
tests/test_docstrings.py, and a script: ``python tests/docstring_check.py [symq.module ...]``."""
import ast, importlib, inspect, pkgutil, re, sys, textwrap
import symq

def modules():
    yield symq
    for info in pkgutil.walk_packages(symq.__path__, "symq."):
        yield importlib.import_module(info.name)

def problems(function):
    doc = inspect.getdoc(function) or ""
    out = []
    sig = inspect.signature(function)
    params = [p for p in sig.parameters if p not in ("self", "cls")]
    def has(section):
        return re.search(rf"^{section}\n-+$", doc, re.M) is not None
    if params and not has("Parameters"):
        out.append("Parameters")
    returns_none = sig.return_annotation in (None, "None")
    if not returns_none and not has("Returns") and not has("Yields"):
        out.append("Returns")
    try:
        src = textwrap.dedent(inspect.getsource(function))
        tree = ast.parse(src)
        raises = any(isinstance(n, ast.Raise) for n in ast.walk(tree))
    except (OSError, TypeError, SyntaxError):
        raises = False
    if raises and not has("Raises"):
        out.append("Raises")
    if not has("Examples"):
        out.append("Examples")
    if "Running time" not in doc:
        out.append("Running time")
    return out

def main(prefixes=()):
    bad = {}
    seen = set()
    for module in modules():
        if prefixes and not module.__name__.startswith(tuple(prefixes)):
            continue
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if not inspect.isfunction(obj):
                continue
            target = inspect.unwrap(obj)
            key = (target.__module__, target.__qualname__)
            if key in seen:
                continue
            seen.add(key)
            p = problems(target)
            if p:
                bad[f"{target.__module__}.{target.__qualname__}"] = p
    return bad

if __name__ == "__main__":
    bad = main(sys.argv[1:])
    for k, v in sorted(bad.items()):
        print(f"{k}: missing {', '.join(v)}")
    print(len(bad), "functions with missing sections")
