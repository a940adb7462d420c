"""Every public function of symq (names in each module's ``__all__``) has a numpy-style docstring:
Parameters (if it takes arguments), Returns or Yields (unless it returns None), Raises (if its body
raises), Examples and a "Running time" line. The check itself is tests/docstring_check.py (also a
script: ``python tests/docstring_check.py [symq.module ...]``); the examples run as doctests
(``--doctest-modules``)."""

from docstring_check import main, problems


def test_every_public_function_has_all_sections():
    missing = main()
    assert not missing, "\n".join(f"{k}: missing {', '.join(v)}" for k, v in sorted(missing.items()))


def test_the_check_only_looks_at_the_given_modules():
    assert main(["symq.limits", "symq.display"]) == {}


# ------------------------------------------------------------------ must fail: wrong docstrings
def _bare(x, y):
    """Adds two numbers."""
    if x is None:
        raise ValueError("x is None")
    return x + y


def _complete(x: int) -> int:
    """Twice ``x``, a complete docstring.

    Parameters
    ----------
    x : int
        Any whole number (the one to double).

    Returns
    -------
    int
        ``2 * x``.

    Raises
    ------
    TypeError
        ``x`` is not an int.

    Examples
    --------
    >>> _complete(2)
    4

    Running time: O(1).
    """
    if not isinstance(x, int):
        raise TypeError("x is not an int")
    return 2 * x


def _no_return(x) -> None:
    """Nothing back.

    Parameters
    ----------
    x : object

    Examples
    --------
    >>> _no_return(1)

    Running time: O(1).
    """


def _section_word_without_underline(x: int) -> int:
    """Parameters: x. Returns the same. Examples: none. Running time: O(1)."""
    return x


def test_a_bare_docstring_is_reported_with_every_missing_section():
    assert problems(_bare) == ["Parameters", "Returns", "Raises", "Examples", "Running time"]


def test_no_docstring_at_all_is_reported():
    def undocumented(a):
        return a
    assert problems(undocumented) == ["Parameters", "Returns", "Examples", "Running time"]


def test_a_section_name_needs_its_underline():
    assert problems(_section_word_without_underline) == ["Parameters", "Returns", "Examples"]


def test_a_complete_docstring_passes():
    assert problems(_complete) == []
    assert problems(_no_return) == []  # returns None: no Returns section needed
