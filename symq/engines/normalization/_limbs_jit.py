"""The numba-compiled bodies of :mod:`symq.engines.normalization.limbs` (imported on first use
only: importing numba costs a few tenths of a second). Machine code is cached beside this file
(``cache=True``). Limbs of 31 bits in int64 arithmetic: see :mod:`~symq.engines.normalization.limbs`.
"""

import numpy as np
from numba import njit

LIMB = 31
MASK = np.int64((1 << LIMB) - 1)
L = np.int64(LIMB)

@njit(cache=True)
def bitlen(a, n):
    for i in range(n - 1, -1, -1):
        v = np.int64(a[i])
        if v:
            b = 0
            while v:
                v >>= 1
                b += 1
            return i * L + b
    return 0

@njit(cache=True)
def normalize(a, n):
    carry = np.int64(0)
    for i in range(n):
        v = a[i] + carry
        a[i] = v & MASK
        carry = v >> L
    return carry

@njit(cache=True)
def shift_into(src, n, shift, up, out, m):
    """out[0:m] = src[0:n] * 2**shift, rounded down (or up) when shift < 0; returns the
    carry flag (nonzero if the result does not fit m limbs)."""
    for i in range(m):
        out[i] = 0
    over = np.int64(0)
    if shift >= 0:
        ls = shift // L
        bs = shift % L
        for i in range(n):
            v = np.int64(src[i])
            if v == 0:
                continue
            lo = (v << bs) & MASK
            hi = v >> (L - bs) if bs else np.int64(0)
            if i + ls < m:
                out[i + ls] |= lo
            elif lo:
                over = 1
            if hi:
                if i + ls + 1 < m:
                    out[i + ls + 1] |= hi
                else:
                    over = 1
        return over
    s = -shift
    ls = s // L
    bs = s % L
    dropped = False
    for i in range(min(ls, n)):
        if src[i]:
            dropped = True
    if bs and ls < n and (np.int64(src[ls]) & ((np.int64(1) << bs) - 1)):
        dropped = True
    for i in range(ls, n):
        v = np.int64(src[i]) >> bs
        if bs and i + 1 < n:
            v |= (np.int64(src[i + 1]) << (L - bs)) & MASK
        if i - ls < m:
            out[i - ls] = v
        elif v:
            over = 1
    if up and dropped:
        carry = np.int64(1)
        for i in range(m):
            v = out[i] + carry
            out[i] = v & MASK
            carry = v >> L
            if carry == 0:
                break
        if carry:
            over = 1
    return over

@njit(cache=True)
def divide_into(num, n, d, up, out, m):
    """out[0:m] = num[0:n] // d (ceil if up); returns nonzero if it does not fit."""
    rem = np.uint64(0)
    ud = np.uint64(d)
    over = np.int64(0)
    for i in range(m):
        out[i] = 0
    top = n - 1
    while top >= 0 and num[top] == 0:
        top -= 1
    for i in range(top, -1, -1):
        cur = (rem << np.uint64(31)) | np.uint64(num[i])
        q = cur // ud
        rem = cur - q * ud
        if i < m:
            out[i] = np.int64(q)
        elif q:
            over = 1
    if up and rem:
        carry = np.int64(1)
        for i in range(m):
            v = out[i] + carry
            out[i] = v & MASK
            carry = v >> L
            if carry == 0:
                break
        if carry:
            over = 1
    return over

@njit(cache=True)
def arrival_rate(x, masks, lam):
    total = np.int64(0)
    for c in range(masks.shape[0]):
        if x & masks[c]:
            total += lam[c]
    return total

@njit(cache=True)
def layer_dp(size, bits, up, forward, mult, den, table, exps, has_src, src, src_exp, src_tops,
             k_acc, k_comb, buf, sbuf, xs_layer):
    """One directed run of the layer DP (module docstring); table rows and exps filled.
    Returns a nonzero code on overflow (the caller widens and reruns).

    Per layer: pass A forms each set's exact sum of its neighbours (and, with a source, adds
    the source term, both brought by directed shifts to one exponent that keeps ``bits + 96``
    bits below an upper bound of the layer's largest value); pass C shifts the layer to about
    ``bits`` bits and divides each set by its ``den`` (directed)."""
    K = table.shape[1]
    ks = src.shape[1]
    full = (np.int64(1) << size) - 1
    acc = np.zeros(k_acc, dtype=np.int64)
    comb = np.zeros(k_comb, dtype=np.int64)
    tmp = np.zeros(k_comb, dtype=np.int64)
    wide = np.zeros(k_comb + bits // L + 3, dtype=np.int64)
    q = np.zeros(K, dtype=np.int64)
    mult_bits = np.int64(0)
    total = np.int64(0)
    for j in range(size):
        total += mult[j]
    while total:
        total >>= 1
        mult_bits += 1
    prev_top = np.int64(1)
    if forward:
        table[0, 0] = 1
        for i in range(1, K):
            table[0, i] = 0
        exps[0] = 0
        start, stop, step = 1, size + 1, 1
    else:
        start, stop, step = size, 0, -1
    for k in range(start, stop, step):
        prev = k - 1 if forward else k + 1
        has_prev = (forward and k >= 1) or ((not forward) and k < size)
        e_acc = exps[prev] if has_prev else np.int64(0)
        # the masks of the layer, increasing (Gosper's hack)
        x = (np.int64(1) << k) - 1
        count = 0
        dmin = np.int64(1) << 62
        while x <= full:
            xs_layer[count] = x
            count += 1
            d = np.int64(den[x])
            if d < dmin:
                dmin = d
            if x == 0:
                break
            c = x & -x
            r = x + c
            x = (((r ^ x) >> 2) // c) | r
        e_t = e_acc
        if has_src:  # one exponent for sums and sources, from upper bounds of both
            hi = src_exp + src_tops[size - k]
            e_t = src_exp
            if has_prev:
                hi = max(hi, e_acc + prev_top + mult_bits)
                e_t = min(e_acc, src_exp)
            if e_t < hi - (bits + 96):
                e_t = hi - (bits + 96)
        # pass A: exact sums (plus the source), the layer's largest bit length
        top = np.int64(0)
        for i in range(count):
            x = xs_layer[i]
            for t in range(k_acc):
                acc[t] = 0
            if has_prev:
                for j in range(size):
                    bit = np.int64(1) << j
                    if ((x & bit) != 0) == forward:
                        y = x ^ bit
                        mj = mult[j]
                        for t in range(K):
                            p = np.int64(table[y, t]) * mj
                            acc[t] += p & MASK
                            acc[t + 1] += p >> L
                if normalize(acc, k_acc):
                    return 6
            if has_src:
                if has_prev:
                    if shift_into(acc, k_acc, e_acc - e_t, up, comb, k_comb):
                        return 1
                else:
                    for t in range(k_comb):
                        comb[t] = 0
                if shift_into(src[full ^ x], ks, src_exp - e_t, up, tmp, k_comb):
                    return 1
                for t in range(k_comb):
                    comb[t] += tmp[t]
                if normalize(comb, k_comb):
                    return 2
                for t in range(k_comb):
                    sbuf[i, t] = comb[t]
                b = bitlen(comb, k_comb)
            else:
                for t in range(k_acc):
                    buf[i, t] = acc[t]
                b = bitlen(acc, k_acc)
            if b > top:
                top = b
        dbits = np.int64(0)
        v = dmin
        while v:
            v >>= 1
            dbits += 1
        shift = bits - (top - dbits + 1) if top > 0 else np.int64(0)
        # pass C: the directed division by den(X), after the layer's shift
        prev_top = np.int64(0)
        for i in range(count):
            x = xs_layer[i]
            d = np.int64(den[x])
            if has_src:
                over = shift_into(sbuf[i], k_comb, shift, up, wide, wide.shape[0])
            else:
                over = shift_into(buf[i], k_acc, shift, up, wide, wide.shape[0])
            if over:
                return 3
            if divide_into(wide, wide.shape[0], d, up, q, K):
                return 4
            for t in range(K):
                table[x, t] = q[t]
            b = bitlen(q, K)
            if b > prev_top:
                prev_top = b
        exps[k] = e_t - shift
        if count == 0:
            return 5
    return 0


@njit(cache=True)
def zeta_kernel(table, size):
    """In place: table[X] = sum of table[Y], Y subset of X (exact); nonzero on overflow."""
    n = table.shape[0]
    K = table.shape[1]
    over = 0
    for j in range(size):
        bit = np.int64(1) << j
        for x in range(n):
            if x & bit:
                y = x ^ bit
                carry = np.int64(0)
                for t in range(K):
                    v = np.int64(table[x, t]) + np.int64(table[y, t]) + carry
                    table[x, t] = v & MASK
                    carry = v >> L
                if carry:
                    over = 1
    return over

@njit(cache=True)
def common_kernel(table, exps, e_min, out, size):
    """out[X] = table[X] * 2**(exps[|X|] - e_min) (exact left shifts); nonzero on
    overflow."""
    n = table.shape[0]
    K = table.shape[1]
    m = out.shape[1]
    tmp = np.zeros(m, dtype=np.int64)
    over = 0
    for x in range(n):
        k = 0
        y = x
        while y:
            y &= y - 1
            k += 1
        if shift_into(table[x], K, exps[k] - e_min, False, tmp, m):
            over = 1
        for t in range(m):
            out[x, t] = tmp[t]
    return over

@njit(cache=True)
def place_kernel(rows, where, out):
    for i in range(rows.shape[0]):
        for t in range(rows.shape[1]):
            out[where[i], t] = rows[i, t]

@njit(cache=True)
def mul_add(a, na, b, nb, acc):
    """acc += a * b, lazily (int64 columns, carries deferred)."""
    for i in range(na):
        ai = np.int64(a[i])
        if ai == 0:
            continue
        for j in range(nb):
            p = ai * np.int64(b[j])
            acc[i + j] += p & MASK
            acc[i + j + 1] += p >> L

@njit(cache=True)
def dot_kernel(a, ia, b, ib, out):
    """out = sum over i of a[ia[i]] * b[ib[i]] (exact, out wide enough)."""
    na = a.shape[1]
    nb = b.shape[1]
    for i in range(ia.shape[0]):
        mul_add(a[ia[i]], na, b[ib[i]], nb, out)
        if (i & 0xFFFF) == 0xFFFF:
            normalize(out, out.shape[0])
    return normalize(out, out.shape[0])

@njit(cache=True)
def layer_products_kernel(w, hat, size, out):
    """out[j, k] = sum over sets I containing j with |I| = k of w[I] * hat[full ^ I]
    (exact; out of shape (size, size + 1, width))."""
    n = w.shape[0]
    nw = w.shape[1]
    nh = hat.shape[1]
    width = out.shape[2]
    full = n - 1
    prod = np.zeros(width, dtype=np.int64)
    counts = np.zeros(size + 1, dtype=np.int64)
    for x in range(1, n):
        for t in range(width):
            prod[t] = 0
        mul_add(w[x], nw, hat[full ^ x], nh, prod)
        normalize(prod, width)
        k = 0
        y = x
        while y:
            y &= y - 1
            k += 1
        for j in range(size):
            if (x >> j) & 1:
                for t in range(width):
                    out[j, k, t] += prod[t]
        counts[k] += 1
        if (counts[k] & 0xFFFFF) == 0:
            for j in range(size):
                normalize(out[j, k], width)
    over = 0
    for j in range(size):
        for k in range(size + 1):
            if normalize(out[j, k], width):
                over = 1
    return over

@njit(cache=True)
def arrival_kernel(w, z, size, m, out):
    """out[k] = sum over P subset of the complement of m, |P| = k, of
    w[P] * sum_{j in m} z[P | j] (exact)."""
    nw = w.shape[1]
    nz = z.shape[1]
    width = out.shape[1]
    full = (np.int64(1) << size) - 1
    comp = full ^ m
    inner = np.zeros(nz + 1, dtype=np.int64)
    counts = np.zeros(size + 1, dtype=np.int64)
    p = np.int64(0)
    while True:
        for t in range(nz + 1):
            inner[t] = 0
        for j in range(size):
            bit = np.int64(1) << j
            if m & bit:
                row = z[p | bit]
                for t in range(nz):
                    inner[t] += np.int64(row[t])
        normalize(inner, nz + 1)
        k = 0
        y = p
        while y:
            y &= y - 1
            k += 1
        mul_add(w[p], nw, inner, nz + 1, out[k])
        counts[k] += 1
        if (counts[k] & 0xFFFF) == 0:
            normalize(out[k], width)
        if p == comp:
            break
        p = (p - comp) & comp
    over = 0
    for k in range(size + 1):
        if normalize(out[k], width):
            over = 1
    return over



@njit(cache=True)
def layer_bits(table, layers):
    """The largest bit length of the rows of each popcount."""
    out = np.zeros(layers, dtype=np.int64)
    K = table.shape[1]
    for x in range(table.shape[0]):
        k = 0
        y = x
        while y:
            y &= y - 1
            k += 1
        b = bitlen(table[x], K)
        if b > out[k]:
            out[k] = b
    return out


@njit(cache=True)
def add_scaled(acc, row, n, m):
    """acc += row * m (lazy int64 columns; row of n limbs, m below 2**31)."""
    for t in range(n):
        p = np.int64(row[t]) * m
        acc[t] += p & MASK
        acc[t + 1] += p >> L


@njit(cache=True)
def union_idle_sums(h, xs, size, out):
    """out[size] = sum of every row; out[j] = sum of the rows of the unions without server j
    (exact; out of shape (size + 1, width))."""
    K = h.shape[1]
    width = out.shape[1]
    for i in range(xs.shape[0]):
        for t in range(K):
            v = np.int64(h[i, t])
            out[size, t] += v
            for j in range(size):
                if not (xs[i] >> j) & 1:
                    out[j, t] += v
        if (i & 0xFFFFF) == 0xFFFFF:
            for j in range(size + 1):
                normalize(out[j], width)
    over = 0
    for j in range(size + 1):
        if normalize(out[j], width):
            over = 1
    return over


@njit(cache=True)
def arrival_table(size, masks, lam, out):
    """out[X] = sum of lam[c] over the classes c whose server set meets X (int32: the callers
    check that the total is below 2**31)."""
    n = np.int64(1) << size
    for x in range(n):
        total = np.int64(0)
        for c in range(masks.shape[0]):
            if x & masks[c]:
                total += lam[c]
        out[x] = total


@njit(cache=True)
def union_closure(masks, size, words):
    """Every union of the class server sets (with 0), unsorted: a breadth-first closure under
    X -> X | S_c; ``words`` (2^size bits, zero on entry) ends as the bitmap of the unions."""
    found = np.zeros(1024, dtype=np.int64)
    found[0] = 0
    words[0] = np.uint64(1)
    n = 1
    head = 0
    while head < n:
        x = found[head]
        head += 1
        for c in range(masks.shape[0]):
            y = x | masks[c]
            w = y >> 6
            bit = np.uint64(1) << np.uint64(y & 63)
            if (words[w] & bit) == 0:
                words[w] |= bit
                if n == found.shape[0]:
                    bigger = np.zeros(2 * n, dtype=np.int64)
                    bigger[:n] = found
                    found = bigger
                found[n] = y
                n += 1
    return found[:n].copy()


@njit(cache=True)
def popcount64(v):
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def union_targets(order, words, rank, masks, nxt):
    """nxt[i, c] = the index (in ``order``) of order[i] | S_c, or -1 when S_c is inside it:
    the value position of a union is the number of unions below it in the bitmap ``words``
    (a prefix count per word and a popcount), ``rank`` maps it to ``order``."""
    prefix = np.zeros(words.shape[0] + 1, dtype=np.int64)
    for w in range(words.shape[0]):
        prefix[w + 1] = prefix[w] + popcount64(words[w])
    n = order.shape[0]
    for i in range(n):
        x = order[i]
        for c in range(masks.shape[0]):
            y = x | masks[c]
            if y == x:
                nxt[i, c] = -1
            else:
                w = y >> 6
                below = words[w] & ((np.uint64(1) << np.uint64(y & 63)) - np.uint64(1))
                nxt[i, c] = rank[prefix[w] + popcount64(below)]


@njit(cache=True)
def push_forward(nxt, lam, r, one, out_lo, out_hi, acc):
    r"""The exact-cover weights on the unions, the floor run (``out_lo``) and the ceil run
    (``out_hi``) together, pushing along the steps: row 0 is ``one``; in size order,
    out[i] = round(acc[i] / r[i]) and then acc[nxt[i, c]] += lam[c] * out[i] (lazy int64
    columns; ``acc`` holds both runs side by side, so one memory access serves both).
    Nonzero if a row overflows."""
    n = out_lo.shape[0]
    K = out_lo.shape[1]
    J = nxt.shape[1]
    q = np.zeros(K, dtype=np.int64)
    for i in range(n):
        for side in range(2):
            out = out_hi if side else out_lo
            if i == 0:
                for t in range(K):
                    out[0, t] = one[t] if t < one.shape[0] else 0
            else:
                row = acc[i, side * (K + 2):(side + 1) * (K + 2)]
                if normalize(row, K + 2):
                    return 1
                if divide_into(row, K + 2, r[i], side == 1, q, K):
                    return 1
                for t in range(K):
                    out[i, t] = q[t]
        for c in range(J):
            j = nxt[i, c]
            if j >= 0:
                add_scaled(acc[j, 0:K + 2], out_lo[i], K, lam[c])
                add_scaled(acc[j, K + 2:2 * K + 4], out_hi[i], K, lam[c])
    return 0


@njit(cache=True)
def pull_reverse(nxt, lam, r, one, out_lo, out_hi):
    r"""The adjoint weights, floor run (``out_lo``) and ceil run (``out_hi``) together:
    out[i] = round((one + sum_c lam[c] * out[nxt[i, c]]) / r[i]) for i > 0, out[0]
    undivided. Nonzero if a row overflows."""
    n = out_lo.shape[0]
    K = out_lo.shape[1]
    J = nxt.shape[1]
    acc = np.zeros(K + 2, dtype=np.int64)
    acc2 = np.zeros(K + 2, dtype=np.int64)
    q = np.zeros(K, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        for t in range(K + 2):
            acc[t] = one[t] if t < one.shape[0] else 0
            acc2[t] = acc[t]
        for c in range(J):
            j = nxt[i, c]
            if j >= 0:
                add_scaled(acc, out_lo[j], K, lam[c])
                add_scaled(acc2, out_hi[j], K, lam[c])
        for side in range(2):
            a = acc2 if side else acc
            out = out_hi if side else out_lo
            if normalize(a, K + 2):
                return 1
            if i == 0:
                if a[K] or a[K + 1]:
                    return 1
                for t in range(K):
                    out[0, t] = a[t]
            else:
                if divide_into(a, K + 2, r[i], side == 1, q, K):
                    return 1
                for t in range(K):
                    out[i, t] = q[t]
    return 0


@njit(cache=True)
def step_class_sums(nxt, h, a, out):
    r"""out[c] = sum over the unions i of h[i] * a[t], t = nxt[i, c] (the step i -> i | S_c),
    or t = i when S_c is inside union i != 0 (exact)."""
    n = h.shape[0]
    K = h.shape[1]
    J = nxt.shape[1]
    width = out.shape[1]
    for i in range(n):
        for c in range(J):
            t = nxt[i, c]
            if t < 0:
                if i == 0:
                    continue
                t = i
            mul_add(h[i], K, a[t], K, out[c])
        if (i & 0x3FFF) == 0x3FFF:
            for c in range(J):
                normalize(out[c], width)
    over = 0
    for c in range(J):
        if normalize(out[c], width):
            over = 1
    return over
