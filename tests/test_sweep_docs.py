"""docs/sweeps.md runs: its Python examples (doctest) and its worked example's user checks."""

import doctest
import re
import sys
from pathlib import Path

from symq.studies.sweep import InlineExecutor, sweep

DOC = Path(__file__).parent.parent / "docs" / "sweeps.md"


def test_python_examples_in_the_docs_run():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 4


def test_worked_example_finds_what_the_docs_say(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    source = next(b for b in blocks if "def alis_overall" in b)
    (tmp_path / "more_servers.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "more_servers", raising=False)
    alis = sweep("more_servers:alis_overall", 2, 2, rates="random:5",
                 executor=InlineExecutor(), progress=False)
    assert [r["graph"] for r, _ in alis.counterexamples()] == ["{1},{1,2}"]
    collaborative = sweep("more_servers:collaborative_per_class", 2, 2, rates="random:5",
                          executor=InlineExecutor(), progress=False)
    assert collaborative.ok and collaborative.passed == 5
