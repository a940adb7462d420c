r"""Compiled multi-word fixed-point kernels for the certified subset DPs of ALIS and RAIS
([GR20]_ Thm 3.9, 3.10; the programs of docs/howto-digits.md): one floor run or one ceil run of
the idle-order layer DP, the backward layer DP of the mean numbers, the zeta transforms and the
exact sums of products, compiled by numba (``cache=True``: the compiled machine code is kept
beside this file and reused by later processes).

Representation. A nonnegative integer is a row of ``K`` limbs of 31 bits each, stored in
``uint32`` (least significant limb first): $v=\sum_i \ell_i2^{31i}$. Every arithmetic step runs in
int64 on limbs below $2^{31}$: a limb times a multiplier below $2^{31}$ is below $2^{62}$, a
remainder below a divisor $d<2^{31}$ shifted by one limb is below $2^{62}$, so no step
overflows (the kernels accept only multipliers and divisors below $2^{31}$; the callers keep the
Python-integer kernels for larger ones). A table over the $2^M$ server sets is an array of shape
$(2^M, K)$ indexed by the set's bitmask, with one binary exponent per layer of equal-size sets
(``exps[k]``): the value of row $X$ is ``row * 2**exps[|X|]``.

Rounding. Only three steps round: the division of a layer's sums by the exact integer
$L_s(X)$, the right shifts that bring a layer to about ``bits`` bits, and the alignment of a
source term to the layer's exponent. Each rounds down in the floor run (``up`` false) and up
in the ceil run, and $\lfloor\lfloor x/a\rfloor/b\rfloor=\lfloor x/(ab)\rfloor$ (the same for
ceilings) for positive integers, so a shift followed by a division is one directed rounding.
Sums, products and the zeta transforms are exact (their widths are sized, and checked, so that
nothing overflows). Every step is monotone in its nonnegative inputs, so by induction over the
layers the floor run bounds every value from below and the ceil run from above. The proof in
full: docs/howto-digits.md.

Examples
--------
>>> import numpy as np
>>> rows = to_limbs([0, 1, 2**31, 3**100], 6)
>>> rows.shape, from_limbs(rows) == [0, 1, 2**31, 3**100]
((4, 6), True)
"""

from __future__ import annotations

from typing import Any

# the public names; the limb helpers (to_limbs, from_limbs, limbs_for, forward_weights, ...)
# are the kernels' own, used by interval_collaborative and interval_noncollaborative
__all__ = ["available", "kernel_memory_bytes", "LIMB", "MAX_FACTOR"]

#: bits per limb
LIMB = 31
#: multipliers and divisors of the kernels stay below this
MAX_FACTOR = 1 << 31


def available() -> bool:
    """Whether numba is installed (the kernels need it; the Python-integer kernels do not).

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(available(), bool)
    True

    Running time: one lookup of the module's spec (numba is not imported).
    """
    import importlib.util   # found, not imported: the planner asks before anything runs
    return importlib.util.find_spec("numba") is not None


def limbs_for(bits: int) -> int:
    """Limbs that hold a nonnegative integer below ``2**bits``.

    >>> limbs_for(31), limbs_for(32), limbs_for(200)
    (1, 2, 7)
    """
    return max(1, -(-bits // LIMB))


def to_limbs(values, k: int):
    """The ``(len(values), k)`` uint32 array of 31-bit limbs of nonnegative Python integers.

    Running time: O(n k) Python operations.
    """
    import numpy as np
    out = np.zeros((len(values), k), dtype=np.uint32)
    mask = (1 << LIMB) - 1
    for i, v in enumerate(values):
        v = int(v)
        if v < 0 or v.bit_length() > LIMB * k:
            raise ValueError(f"{v} does not fit {k} limbs")
        j = 0
        while v:
            out[i, j] = v & mask
            v >>= LIMB
            j += 1
    return out


def from_limbs(rows) -> list[int]:
    """The Python integers of the rows of a limb array (inverse of :func:`to_limbs`).

    Running time: O(n k) Python operations.
    """
    import numpy as np
    rows = np.asarray(rows)
    if rows.ndim == 1:
        rows = rows.reshape(1, -1)
    k = rows.shape[1]
    out = []
    cols = [rows[:, j].tolist() for j in range(k)]
    for i in range(rows.shape[0]):
        v = 0
        for j in range(k - 1, -1, -1):
            v = (v << LIMB) | cols[j][i]
        out.append(v)
    return out


def kernel_memory_bytes(servers: int, classes: int, unions: int, discipline: str, bits: int,
                        per_class: bool, idle: bool = False) -> int:
    r"""Predicted peak bytes of the compiled kernels for one component, the interpreter and
    numpy not included (about 150 MB more in a process).

    ALIS/RAIS (one run at a time): the table $L_s$ (4 bytes a set), the weights $W$ ($K$
    limbs a set), then either the zeta table of $W$ (about $p+M+40$ bits a set) or, for idle
    probabilities and mean numbers, $\hat H$ (as wide) and the mean numbers' table $Z$ ($K$
    limbs) with the buffers of the widest layer. Collaborative: the $U	imes J$ table of
    steps, the bitmap of $2^M$ bits and four rows of $K$ limbs a union with the forward
    pass's accumulators.

    Parameters
    ----------
    servers, classes, unions : int
        $M$, $J$ and the number $U$ of unions of class server sets.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    bits : int
        Fixed-point bits.
    per_class, idle : bool
        Mean numbers / idle probabilities too.

    Returns
    -------
    int

    Examples
    --------
    >>> kernel_memory_bytes(24, 24, 63703, "alis", 214, True) < 4 * 2**30
    True

    Running time: O(M).
    """
    from math import comb
    k = limbs_for(bits + 16)
    union_part = unions * (classes * 4 + 24 + 4 * k * 4 + 2 * (k + 2) * 8) + (1 << servers) // 8
    if discipline == "collaborative":
        return union_part
    k = limbs_for(bits + 2)
    sets = 1 << servers
    wide = limbs_for(bits + servers + 40)
    widest = comb(servers, servers // 2)
    layer = widest * ((k + 2) * 8 + 8)
    base = sets * 4 + sets * 4 * k + union_part
    if per_class or idle:
        layer += widest * (limbs_for(bits + 70) + 1) * 4
        return base + max(sets * 4 * wide, sets * 4 * (wide + k) + layer)
    return base + sets * 4 * wide + layer


_KERNELS: dict[str, Any] = {}


def _kernels() -> dict[str, Any]:
    """The numba-compiled functions (compiled, or loaded from numba's cache, on first use)."""
    if not _KERNELS:
        from symq.engines.normalization import _limbs_jit as jit
        _KERNELS.update(layer_dp=jit.layer_dp, zeta=jit.zeta_kernel, common=jit.common_kernel,
                        place=jit.place_kernel, dot=jit.dot_kernel,
                        layer_products=jit.layer_products_kernel, arrival=jit.arrival_kernel,
                        bitlen=jit.bitlen, layer_bits=jit.layer_bits)
    return _KERNELS


def _layer_run(size, bits, up, forward, mult, masks, lam, source=None):
    """Run :func:`layer_dp` with buffers sized for it (widened and rerun on overflow)."""
    import numpy as np
    from math import comb
    kern = _kernels()
    den = _arrival_table(size, masks, lam)
    k = limbs_for(bits + 2)
    widest = max(comb(size, j) for j in range(size + 1))
    extra = 0
    while True:
        k_acc = k + 2 + extra
        k_comb = limbs_for(bits + 100) + 1 + extra
        table = np.zeros((1 << size, k), dtype=np.uint32)
        exps = np.zeros(size + 1, dtype=np.int64)
        xs_layer = np.zeros(widest, dtype=np.int64)
        if source is not None:
            src, src_exp = source
            src_tops = kern["layer_bits"](src, size + 1)
            buf = np.zeros((1, 1), dtype=np.int64)
            sbuf = np.zeros((widest, k_comb), dtype=np.uint32)
        else:
            src, src_exp = np.zeros((1, 1), dtype=np.uint32), 0
            src_tops = np.zeros(size + 1, dtype=np.int64)
            buf = np.zeros((widest, k_acc), dtype=np.int64)
            sbuf = np.zeros((1, 1), dtype=np.uint32)
        code = kern["layer_dp"](size, bits, up, forward, mult, den, table, exps,
                                source is not None, src, src_exp, src_tops, k_acc, k_comb,
                                buf, sbuf, xs_layer)
        del buf, sbuf
        if code == 0:
            return table, exps
        if extra > 8:  # pragma: no cover - the widths above are proved sufficient
            raise RuntimeError(f"fixed-point layer DP overflow (code {code})")
        extra += 2


_DEN: dict = {}


def _arrival_table(size, masks, lam):
    """$L_s(X)$ for every mask (int32, computed once per model and kept for the next run)."""
    import numpy as np
    key = (size, masks.tobytes(), lam.tobytes())
    if key not in _DEN:
        _DEN.clear()
        out = np.zeros(1 << size, dtype=np.int32)
        from symq.engines.normalization import _limbs_jit as jit
        jit.arrival_table(size, masks, lam, out)
        _DEN[key] = out
    return _DEN[key]


def forward_weights(size: int, bits: int, up: bool, mult, masks, lam):
    r"""One directed run of $T(\emptyset)=1$,
    $T(X)=\frac{1}{L_s(X)}\sum_{j\in X}m_jT(X\setminus j)$ with
    $L_s(X)=\sum_{c:S_c\cap X\ne\emptyset}\lambda_c$ (integers): ``(table, exps)``, rows in
    limbs with ``table[X] * 2**exps[|X|]`` below (``up`` false) or above the exact value.

    Running time: O(2^M M K) machine operations for K limbs.
    """
    import numpy as np
    return _layer_run(size, bits, up, True, np.asarray(mult, dtype=np.int64),
                      np.asarray(masks, dtype=np.int64), np.asarray(lam, dtype=np.int64))


def backward_weights(size: int, bits: int, up: bool, mult, masks, lam, source, source_exp):
    r"""One directed run of $T(X)=\frac{1}{L_s(X)}\bigl(S(\mathcal M\setminus X)
    +\sum_{t\notin X}m_tT(X\cup t)\bigr)$ for $X\ne\emptyset$, the source ``S`` a limb table
    with one exponent; ``(table, exps)`` as :func:`forward_weights` (row 0 unused).

    Running time: O(2^M M K) machine operations.
    """
    import numpy as np
    return _layer_run(size, bits, up, False, np.asarray(mult, dtype=np.int64),
                      np.asarray(masks, dtype=np.int64), np.asarray(lam, dtype=np.int64),
                      (source, int(source_exp)))


def zeta(table, size: int):
    """In place, exact: ``table[X] = sum(table[Y] for Y subset of X)``; raises on overflow
    (the caller sizes the rows).

    Running time: O(2^M M K).
    """
    if _kernels()["zeta"](table, size):
        raise RuntimeError("zeta transform overflow: rows too narrow")
    return table


def place(rows, where, n: int):
    """A zero ``(n, width)`` table with ``rows[i]`` at row ``where[i]``."""
    import numpy as np
    out = np.zeros((n, rows.shape[1]), dtype=np.uint32)
    _kernels()["place"](rows, np.asarray(where, dtype=np.int64), out)
    return out


def common_table(table, exps, size: int):
    """``(wide, e_min)``: the table brought to its smallest layer exponent by exact left shifts,
    with room for ``size`` more bits (a zeta transform of it cannot overflow).

    Running time: O(2^M K).
    """
    import numpy as np
    kern = _kernels()
    e_min = int(exps.min())
    tops = _kernels()["layer_bits"](table, size + 1)
    top = max(int(exps[k]) - e_min + int(tops[k]) for k in range(size + 1))
    width = limbs_for(top + size + 2)
    out = np.zeros((table.shape[0], width), dtype=np.uint32)
    if kern["common"](table, exps, e_min, out, size):  # pragma: no cover - sized above
        raise RuntimeError("fixed-point table overflow")
    return out, e_min


def dot_rows(a, ia, b, ib) -> int:
    """The exact integer $\\sum_i a[ia_i]\\,b[ib_i]$ of two limb tables.

    Running time: O(n K_a K_b).
    """
    import numpy as np
    ia = np.asarray(ia, dtype=np.int64)
    ib = np.asarray(ib, dtype=np.int64)
    width = a.shape[1] + b.shape[1] + limbs_for(len(ia).bit_length() + 1) + 1
    out = np.zeros(width, dtype=np.int64)
    if _kernels()["dot"](a, ia, b, ib, out):  # pragma: no cover - sized above
        raise RuntimeError("fixed-point dot product overflow")
    return from_limbs(out.astype(np.uint32))[0]


def layer_products(w, hat, size: int) -> list[list[int]]:
    """``out[j][k]``: the exact sum of ``w[I] * hat[full ^ I]`` over the sets I of size k that
    contain server j.

    Running time: O(2^M (K_w K_h + M K)).
    """
    import numpy as np
    width = w.shape[1] + hat.shape[1] + limbs_for(size + 2) + 1
    out = np.zeros((size, size + 1, width), dtype=np.int64)
    if _kernels()["layer_products"](w, hat, size, out):  # pragma: no cover - sized above
        raise RuntimeError("fixed-point sum overflow")
    flat = from_limbs(out.reshape(-1, width).astype(np.uint32))
    return [flat[j * (size + 1):(j + 1) * (size + 1)] for j in range(size)]


def class_arrival_sums(w, z, size: int, mask: int) -> list[int]:
    r"""``out[k]``: the exact $\sum_{P\subseteq\mathcal M\setminus S,|P|=k}w[P]\sum_{j\in S}
    z[P\cup j]$ for the server set ``mask`` $=S$.

    Running time: O(|S| 2^{M-|S|} K^2).
    """
    import numpy as np
    width = w.shape[1] + z.shape[1] + limbs_for(size + 8) + 2
    out = np.zeros((size + 1, width), dtype=np.int64)
    if _kernels()["arrival"](w, z, size, int(mask), out):  # pragma: no cover - sized above
        raise RuntimeError("fixed-point sum overflow")
    return from_limbs(out.astype(np.uint32))
