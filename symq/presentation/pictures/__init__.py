r"""Pictures drawn by ``symq plot MODEL KIND``: one registry, one module per kind of picture.
Every module of this package registers its kinds with :func:`register` when it is imported, and
:func:`kinds` imports them all, so a new picture is a new module here and nothing else; a kind
has a ``summary``, a ``subject`` (a compatibility model or a two-queue routing policy), its extra
options and a ``draw`` function that returns a :class:`Picture`, which records the points of
every curve it draws (:class:`Curve`, written by ``symq plot --data FILE.csv``). The kinds shipped
(``graph``, ``load``, ``disciplines``, ``response-time-load``, ``elasticities``, ``split``,
``distribution``, ``heatmap``, ``levels``, ``clusters``, the survival pictures) and how the
registry works are in docs/pictures.md.

Examples
--------
>>> from symq.presentation.pictures import kinds
>>> sorted(k for k in kinds() if k in ("graph", "load", "distribution", "heatmap", "clusters"))
['clusters', 'distribution', 'graph', 'heatmap', 'load']
>>> kinds()["graph"].subject
'model'
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from symq.errors import ModelError, UnsupportedError
from symq.models.model import DISCIPLINES

__all__ = ["Picture", "PictureKind", "Curve", "Digits", "register", "kinds", "get", "pyplot",
           "save", "file_stem", "SUBJECTS", "FORMATS", "QUANTITY_NAMES", "SHARED_OPTIONS",
           "quantity_name", "rates_title", "scientific", "agreed_digits", "ball_digits",
           "data_rows", "write_data", "DATA_COLUMNS", "DATA_DIGITS", "STEM_LIMIT", "QUANTITY_OPTION",
           "NUMBER_LIMIT", "short_latex"]

#: the options that several kinds take, defined once (``symq plot`` has one ``--discipline``,
#: one ``--quantity`` and one ``--points`` for all of them)
SHARED_OPTIONS: dict[str, dict[str, Any]] = {
    "discipline": dict(default="collaborative", choices=list(DISCIPLINES),
                       help="load, distribution, split, elasticities, response-time-load, "
                            "response-/waiting-time-survival: the service discipline"),
    "quantity": dict(default="mean-response-time",
                     help="load, split, disciplines, elasticities: the quantity drawn (default "
                          "mean-response-time)"),
    "points": dict(type=int, default=12, help="load, split, disciplines, response-time-load: "
                                              "number of exact points (default 12)"),
}

#: ``--quantity`` as every kind that takes it declares it (argparse keeps the first kind's
#: declaration of a shared option, so they are all this one; each kind checks its own subset)
QUANTITY_OPTION: dict[str, Any] = {**SHARED_OPTIONS["quantity"],
                                   "choices": ["empty-probability", "normalizing-constant",
                                               "server-idle-probability", "mean-number",
                                               "mean-response-time"]}

#: what the ``MODEL`` argument of ``symq plot`` names, per kind
SUBJECTS = {"model": "a built-in model name or a TOML file (with --set for its symbols)",
            "routing": "a two-queue routing policy: jsq, asymmetric or sed (with --rho, --s, --q, "
                       "--lam, --mu1, --mu2)"}
#: file formats, by the suffix of ``--output``
FORMATS = (".png", ".svg", ".pdf")


class Digits(str):
    """A decimal string whose every digit is correct (a certified ball's or an enclosure's
    digits) where no exact rational exists: written to the ``*_decimal`` column of
    ``--data`` and never to the exact one."""

    __slots__ = ()


@dataclass
class Curve:
    r"""One curve (or row of bars) a picture draws, with the points it draws, for ``--data``.

    ``points`` are ``(x, y)`` pairs as drawn: an exact rational (``int``, ``Fraction``,
    ``sympy.Rational``), an :class:`~symq.arithmetic.numeric.Evaluated` (its exact value when
    rational, else its correct digits), :class:`Digits` (correct digits, no exact value) or a
    label (a server's name on a bar chart, a symbolic rate). ``name`` says which curve
    (``class 1``, ``total``, ``alis``), ``quantity`` what $y$ is and ``x_name`` what $x$ is;
    ``discipline`` is empty where the picture has none.
    """

    name: str
    quantity: str
    discipline: str = ""
    x_name: str = "x"
    points: list = field(default_factory=list)


@dataclass
class Picture:
    """A drawn picture: the matplotlib ``figure`` and the ``stem`` of its default file name.

    ``data`` holds the exact numbers drawn (as strings), for the JSON output; ``curves`` the
    points of every curve drawn (:class:`Curve`), for ``symq plot --data FILE.csv``.
    """

    figure: Any
    stem: str
    data: dict = field(default_factory=dict)
    curves: list = field(default_factory=list)

    def _repr_png_(self) -> bytes:
        """Jupyter shows the picture itself."""
        import io
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()


@dataclass(frozen=True)
class PictureKind:
    """One kind of picture (see the module docstring).

    Parameters
    ----------
    name : the ``KIND`` argument of ``symq plot``
    summary : one line for ``symq plot --help``
    draw : ``draw(subject, **options) -> Picture``; ``options`` has one entry per option name
    subject : ``"model"`` or ``"routing"`` (see :data:`SUBJECTS`)
    options : command-line option name (``"points"`` for ``--points``) to argparse keyword
        arguments, passed to ``draw`` by name; kinds that share an option name must give it the
        same meaning. The options that make the subject (``--set``; ``--rho``, ``--s``, ...
        for a routing policy) are the command's, not the kind's.
    progress : whether ``draw`` takes a ``progress(done, total)`` callback (see
        :mod:`symq.progress`)
    """

    name: str
    summary: str
    draw: Callable[..., Picture]
    subject: str = "model"
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    progress: bool = False


_KINDS: dict[str, PictureKind] = {}
_LOADED = False


def register(kind: PictureKind) -> PictureKind:
    """Add ``kind`` to the registry (a module calls this when imported); return it.

    Parameters
    ----------
    kind : PictureKind
        Its ``name`` becomes a ``symq plot`` KIND.

    Returns
    -------
    PictureKind
        ``kind`` itself, so a module can write ``KIND = register(PictureKind(...))``.

    Raises
    ------
    ValueError
        A kind of the same name from another draw function, or an unknown subject.

    Examples
    --------
    >>> register(get("load")) is get("load")
    True

    Running time: O(1).
    """
    if kind.subject not in SUBJECTS:
        raise ValueError(f"picture kind {kind.name!r}: subject must be one of {', '.join(SUBJECTS)}")
    old = _KINDS.get(kind.name)
    if old is not None and old.draw is not kind.draw:
        raise ValueError(f"picture kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def kinds() -> dict[str, PictureKind]:
    """Every registered kind, by name (imports the modules of this package once).

    Returns
    -------
    dict
        ``{name: PictureKind}``, the KIND choices of ``symq plot`` (a copy: changing it does
        not register anything).

    Examples
    --------
    >>> "load" in kinds()
    True

    Running time: the first call imports the picture modules; later calls O(number of kinds).
    """
    global _LOADED
    if not _LOADED:
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{__name__}.{info.name}")
        _LOADED = True
    return dict(sorted(_KINDS.items()))


def get(name: str) -> PictureKind:
    """The kind called ``name``.

    Parameters
    ----------
    name : str
        A ``symq plot`` KIND such as ``"load"``.

    Returns
    -------
    PictureKind
        With its draw function, subject and options.

    Raises
    ------
    ModelError
        An unknown kind (the message lists the known ones).

    Examples
    --------
    >>> get("load").subject
    'model'

    Running time: that of :func:`kinds`.
    """
    known = kinds()
    if name not in known:
        raise ModelError(f"unknown picture {name!r}; use one of: {', '.join(known)}")
    return known[name]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend.

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    UnsupportedError
        matplotlib is not installed (the ``plot`` extra).

    Examples
    --------
    >>> hasattr(pyplot(), "figure")
    True

    Running time: the first call imports matplotlib (about a second).
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise UnsupportedError("pictures need matplotlib; install it with pip install "
                               "\"symq[plot]\"") from None
    return plt


#: the longest stem :func:`file_stem` returns (file systems allow 255 bytes for a name)
STEM_LIMIT = 100


def file_stem(*parts: Any, **parameters: Any) -> str:
    """A file-name stem from ``parts`` and ``name=value`` parameters, safe on every system.

    Parameters
    ----------
    *parts
        Leading words (model name, kind).
    **parameters
        ``name=value`` pairs, in the order given.

    Returns
    -------
    str
        Joined by ``-``; ``/`` and other unsafe characters become ``_``. A stem longer than
        :data:`STEM_LIMIT` characters (a weight of 4,000 digits) keeps its first characters
        and ends in ``-`` and the first 10 hex digits of the SHA-256 of the whole text, so it
        fits every file system and different parameters still give different names.

    Examples
    --------
    >>> file_stem("sed", "heatmap", s=3, q="2/5", rho="9/10")
    'sed-heatmap-s=3-q=2_5-rho=9_10'
    >>> stem = file_stem("w", "clusters", w1=10**3999)
    >>> len(stem), stem[:15], stem[-11:]
    (100, 'w-clusters-w1=1', '-6439b60b7c')

    Running time: O(total length).
    """
    import hashlib
    words = [str(p) for p in parts if p not in (None, "")]
    words += [f"{k}={v}" for k, v in parameters.items() if v not in (None, "")]
    text = "-".join(words).replace("/", "_")
    stem = re.sub(r"[^A-Za-z0-9_.+=-]+", "_", text).strip("_") or "picture"
    if len(stem) <= STEM_LIMIT:
        return stem
    digest = hashlib.sha256("-".join(words).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{stem[:STEM_LIMIT - 11]}-{digest}"


#: axis and title words for the CLI's quantity names
QUANTITY_NAMES = {"mean-response-time": "mean response time", "mean-number": "mean number in system",
                  "mean-waiting-time": "mean waiting time", "empty-probability": "P(empty system)",
                  "normalizing-constant": "normalizing constant",
                  "server-idle-probability": "P(server idle)",
                  "mean-queue-length": "mean queue length"}


def quantity_name(quantity: str) -> str:
    """The words for a CLI quantity name in a title or on an axis.

    Parameters
    ----------
    quantity : str
        A quantity name of the command line, e.g. ``"mean-response-time"``.

    Returns
    -------
    str
        ``"mean response time"``; an unknown name with its hyphens as spaces.

    Examples
    --------
    >>> quantity_name("mean-response-time"), quantity_name("mean-number")
    ('mean response time', 'mean number in system')

    Running time: O(length).
    """
    return QUANTITY_NAMES.get(quantity, quantity.replace("-", " "))


#: the longest exact number a picture writes out; longer ones are shown to 6 digits
NUMBER_LIMIT = 40


def short_latex(value: Any, limit: int = NUMBER_LIMIT, relation: bool = False) -> str:
    r"""Mathtext (without ``$``) of an exact value for a label: the value itself when its LaTeX
    has at most ``limit`` characters, else $pprox$ and its first 6 significant digits
    (correctly rounded), so a rate of 4,000 digits gives a label, not a 38,000-pixel picture.

    Parameters
    ----------
    value : sympy.Expr or number
        A rate, a drift.
    limit : int
        The longest exact text kept.
    relation : bool
        Start with ``=`` for an exact value (``\\approx`` starts a rounded one), to follow a
        name: ``f"$\\mu{short_latex(v, relation=True)}$"``.

    Returns
    -------
    str

    Examples
    --------
    >>> import sympy
    >>> short_latex(sympy.Rational(3, 2)), short_latex(sympy.Integer(10) ** 3999 / 3)
    ('\\frac{3}{2}', '\\approx 3.33333\\times10^{3998}')
    >>> short_latex(2, relation=True)
    '=2'

    Running time: O(size of the value).
    """
    import sympy

    from symq.arithmetic.numeric import decimal_string
    value = value if isinstance(value, sympy.Basic) else sympy.sympify(value)
    text = sympy.latex(value)
    if len(text) <= limit or not value.is_number:
        text = text if len(text) <= 4 * limit else text[:limit] + r"\ldots"
        return "=" + text if relation else text
    digits = decimal_string(value, 6)
    mantissa, _, exponent = digits.partition("e")
    return (f"\\approx {mantissa}\\times10^{{{int(exponent)}}}" if exponent
            else f"\\approx {digits}")


def rates_title(model) -> str:
    r"""The rates of ``model`` as mathtext for a title: ``$\lambda=(1,1,1),\ \mu=(2,2)$``.

    Parameters
    ----------
    model : Model
        Rates in class and server order (symbols shown by name).

    Returns
    -------
    str
        Mathtext.

    Examples
    --------
    >>> from symq import example_model
    >>> print(rates_title(example_model("n")))
    $\lambda=(1/4,1/4),\ \mu=(1,1)$

    Running time: O(classes + servers).
    """
    import sympy

    def text(values) -> str:
        return ",".join(str(v) if isinstance(v, sympy.Rational) and len(str(v)) <= NUMBER_LIMIT
                        else short_latex(v) for v in values)

    lam = text(model.arrival_rates[c] for c in model.classes)
    mu = text(model.service_rates[s] for s in model.servers)
    return f"$\\lambda=({lam}),\\ \\mu=({mu})$"


def scientific(value: float, digits: int = 3) -> str:
    r"""``value`` in mathtext scientific notation: ``$1.28\times10^{-6}$``, never ``1.28e-06``.

    Parameters
    ----------
    value : float
        The number (a rounded view of an exact value).
    digits : int
        Significant digits.

    Returns
    -------
    str
        Mathtext.

    Examples
    --------
    >>> print(scientific(1.2834e-06), scientific(0.25))
    $1.28\times10^{-6}$ $0.25$

    Running time: O(1).
    """
    text = f"{value:.{digits}g}"
    if "e" not in text:
        return f"${text}$"
    mantissa, exponent = text.split("e")
    return f"${mantissa}\\times10^{{{int(exponent)}}}$"


def save(picture: Picture, path: str) -> str:
    """Write ``picture`` to ``path`` (PNG, SVG or PDF by its suffix); return the path.

    Parameters
    ----------
    picture : Picture
        A drawn picture (its figure is kept open).
    path : str
        Ends in ``.png``, ``.svg`` or ``.pdf`` (vector output for a paper).

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ModelError
        A suffix other than ``.png``, ``.svg`` or ``.pdf``.

    Examples
    --------
    >>> import os, tempfile
    >>> from symq import example_model
    >>> picture = get("graph").draw(example_model("n"))
    >>> path = save(picture, os.path.join(tempfile.mkdtemp(), "n.svg"))
    >>> os.path.getsize(path) > 0
    True
    >>> close(picture)

    Running time: matplotlib's rendering of the figure.
    """
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise ModelError(f"--output {path!r}: give a file name ending in .png, .svg or .pdf")
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    # no dates: the same picture gives the same file
    metadata = {".svg": {"Date": None}, ".pdf": {"CreationDate": None}}.get(suffix, {})
    picture.figure.savefig(path, format=suffix[1:], dpi=120, metadata=metadata,
                           bbox_inches="tight")
    return path


#: significant digits of the ``*_decimal`` columns of ``--data`` (exactly rounded from the
#: exact value; fewer where only that many are known to be correct)
DATA_DIGITS = 20

#: the columns of ``symq plot --data FILE.csv``, in order
DATA_COLUMNS = ("model", "kind", "curve", "quantity", "discipline", "x_name", "x", "x_decimal",
                "y", "y_decimal")


def agreed_digits(low: Any, high: Any, digits: int) -> str:
    """The decimal digits (at most ``digits`` significant) on which both ends of an exact
    enclosure ``[low, high]`` round alike: every digit shown is correct.

    Parameters
    ----------
    low, high : Fraction
        The ends, ``low <= high``.
    digits : int
        The most significant digits.

    Returns
    -------
    str
        The digits, or ``[low, high]`` to 3 digits each when not even one digit agrees.

    Examples
    --------
    >>> from fractions import Fraction
    >>> agreed_digits(Fraction(1414, 1000), Fraction(1415, 1000), 10)   # 1.41 and 1.42 differ
    '1.4'
    >>> agreed_digits(Fraction(1, 3), Fraction(1, 3), 5)
    '0.33333'

    Running time: O(digits) roundings.
    """
    import sympy

    from symq.arithmetic.numeric import decimal_string
    a, b = (sympy.Rational(v.numerator, v.denominator) for v in (low, high))
    for d in range(digits, 0, -1):
        text = decimal_string(a, d)
        if text == decimal_string(b, d):
            return text
    return f"[{decimal_string(a, 3)}, {decimal_string(b, 3)}]"


def ball_digits(ball: Any, digits: int = DATA_DIGITS) -> Digits:
    """The correct digits of an ``arb`` ball (those both ends of the ball agree on).

    Parameters
    ----------
    ball : flint.arb
        A finite ball.
    digits : int
        The most significant digits.

    Returns
    -------
    Digits

    Examples
    --------
    >>> import flint
    >>> print(ball_digits(flint.arb(1) / 3, 10))
    0.3333333333

    Running time: O(digits) roundings of the two ends.
    """
    from symq.engines.normalization.certified import ball_endpoints
    return Digits(agreed_digits(*ball_endpoints(ball), digits))


def _cells(value: Any) -> tuple[str, str]:
    """The exact and the decimal column of one coordinate (see :class:`Curve`)."""
    from fractions import Fraction

    import sympy

    from symq.arithmetic.numeric import Evaluated, decimal_string
    if isinstance(value, Evaluated):
        exact = value.exact
        if exact is not None and getattr(sympy.sympify(exact), "is_Rational", False):
            value = exact
        else:
            return "", value.value
    if isinstance(value, Digits):
        return "", str(value)
    if isinstance(value, bool):
        return str(value).lower(), ""
    if isinstance(value, (int, Fraction)):
        value = sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, sympy.Basic) and value.is_Rational:
        return str(value), decimal_string(value, DATA_DIGITS)
    return _text_cell(value), ""


def _text_cell(value: Any) -> str:
    """A name as a CSV cell: printable (:func:`symq.display.printable`), and one that a
    spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@`` first) prefixed with ``'``."""
    from symq.display import printable
    text = printable(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def data_rows(picture: Picture, model: str, kind: str) -> list[tuple[str, ...]]:
    """The rows of ``--data`` (after the header :data:`DATA_COLUMNS`): one per point drawn.

    Parameters
    ----------
    picture : Picture
        With its :attr:`Picture.curves`.
    model : str
        The model's name (or the routing policy).
    kind : str
        The picture's kind.

    Returns
    -------
    list of tuple
        ``(model, kind, curve, quantity, discipline, x_name, x, x_decimal, y, y_decimal)``;
        ``x`` and ``y`` exact rationals where they are exact (else empty, or a label such as a
        server's name), the decimal columns exactly rounded to :data:`DATA_DIGITS` significant
        digits (only correct digits where no exact value exists). Names are printable, and a
        name a spreadsheet would run as a formula starts with ``'``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> p = Picture(None, "s", curves=[Curve("total", "mean-number", "alis", "load",
    ...                                      [(Fraction(1, 2), Fraction(2, 3))])])
    >>> data_rows(p, "w", "load")[0][6:]
    ('1/2', '0.50000000000000000000', '2/3', '0.66666666666666666667')

    Running time: O(points) roundings.
    """
    rows = []
    for curve in picture.curves:
        head = tuple(_text_cell(v) for v in (model, kind, curve.name, curve.quantity,
                                             curve.discipline, curve.x_name))
        for x, y in curve.points:
            rows.append(head + _cells(x) + _cells(y))
    return rows


def write_data(picture: Picture, path: str, model: str, kind: str) -> str:
    """Write ``--data FILE.csv``: the header :data:`DATA_COLUMNS` and :func:`data_rows`.

    Parameters
    ----------
    picture : Picture
        A drawn picture.
    path : str
        Ends in ``.csv``.
    model, kind : str
        As :func:`data_rows`.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ModelError
        A name not ending in ``.csv``, or a picture that records no curve.

    Examples
    --------
    >>> import csv, os, tempfile
    >>> from fractions import Fraction
    >>> p = Picture(None, "s", curves=[Curve("P(N=n)", "law", "", "n", [(0, Fraction(1, 4))])])
    >>> path = write_data(p, os.path.join(tempfile.mkdtemp(), "law.csv"), "n", "distribution")
    >>> next(csv.DictReader(open(path)))["y"]
    '1/4'

    Running time: O(points).
    """
    import csv
    if not path.lower().endswith(".csv"):
        raise ModelError(f"--data {path!r}: give a file name ending in .csv")
    if not picture.curves:  # pragma: no cover - every kind records its curves
        raise ModelError(f"the {kind} picture records no curve to write with --data")
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(DATA_COLUMNS)
        writer.writerows(data_rows(picture, model, kind))
    return path


def close(picture: Picture) -> None:
    """Free the figure's memory."""
    pyplot().close(picture.figure)
