"""Sums added in PyTorch's order, so that float32 sums and means are PyTorch's to the last bit; and
variances (``var_reduce``), vector norms (``norm_reduce``) and nll_loss's total (``nll_reduce``) by
PyTorch's algorithms, likewise.

PyTorch's CPU sum (``cascade_sum`` in aten/src/ATen/native/cpu/SumKernel.cpp) adds a contiguous row
of at least a vector's worth of numbers in vector lanes, four vectors at a time, then the lanes one
after another; a shorter row as four interleaved partial sums; the columns of a row-major matrix down
its rows; each in chunks of 16 or more, and chunks of chunks (a cascade). NumPy adds pairwise in eight
accumulators, and so about two thirds of float32 sums of eight or more numbers differ from PyTorch's in
the last bit: ``loss.item()`` of a mean over a batch among them. ``add_reduce`` follows PyTorch for
float32 and float64 with one thread (PyTorch splits a single sum of 32768 or more numbers between its
threads); other dtypes add as NumPy does, exactly for integers. The vectors are 256 bits wide (8 float32
lanes), as the sum kernel's are on x86 CPUs with AVX2, and with AVX-512 too (it is not built for AVX-512)
and in PyTorch's portable build."""
import math

import numpy as np

from ._fma import _F32, _F64, fma

_LANES = {_F32: 8, _F64: 4}


def _seq(a):
    """``a[0] + a[1] + ...`` down axis 0 of a 2-d array, in that order."""
    if a.shape[0] == 1:
        return a[0]
    if a.shape[1] > 1:  # (down a C-ordered axis that is not the innermost, NumPy adds row after row)
        return np.add.reduce(np.ascontiguousarray(a), 0)
    return np.add.accumulate(a[:, 0])[-1:]


def _groups(c, step):
    """The sum of each whole group of ``step`` rows of ``c`` in order, and that of the rows left (or None)."""
    g = c.shape[0] // step
    done = None
    if g:
        x = np.ascontiguousarray(c[:g * step]).reshape(g, step, -1)
        done = np.add.reduce(x, axis=1) if x.shape[2] > 1 else np.add.accumulate(x, axis=1)[:, -1]
    return done, (_seq(c[g * step:]) if c.shape[0] > g * step else None)


def _cascade(a):
    """PyTorch's ``multi_row_sum``: each column of ``a`` (size, m) down its rows, in chunks of ``step``
    rows, the chunks' sums in groups of ``step``, those in groups of ``step`` again, then the four levels'
    running sums added from the lowest."""
    size, m = a.shape
    if size <= 16:  # (one chunk or less: one after another)
        return _seq(a) if size else np.zeros(m, a.dtype)
    if size < 256 and m > 1:  # (under 16 chunks only the first level runs: the sums below, in fewer calls)
        g = size // 16
        total = np.add.reduce(np.add.reduce(np.ascontiguousarray(a[:16 * g]).reshape(g, 16, m), 1), 0)
        return total if size == 16 * g else _seq(a[16 * g:]) + total
    step = 1 << max(4, (size - 1).bit_length() // 4)
    chunks, total = _groups(a, step)
    if chunks is not None:
        level1, acc1 = _groups(chunks, step)
        acc2 = acc3 = None
        if level1 is not None:
            level2, acc2 = _groups(level1, step)
            acc3 = None if level2 is None else _seq(level2)
        for acc in (acc1, acc2, acc3):
            if acc is not None:
                total = acc if total is None else total + acc
    return np.zeros(a.shape[1], a.dtype) if total is None else total


def _row_sum(a):
    """PyTorch's ``row_sum``: each column of ``a`` (size, m) as four interleaved cascades, the rows past a
    multiple of four added to the first, then the four added in order."""
    size, m = a.shape
    k = size // 4
    if not k:
        return _seq(a)
    p = np.ascontiguousarray(a[:4 * k]).reshape(k, 4 * m)
    p = (_seq(p) if k <= 16 else _cascade(p)).reshape(4, m)
    if size > 4 * k:
        p = np.concatenate((p[:1], a[4 * k:], p[1:]))
    return _seq(p)


def _inner(x, lanes):
    """PyTorch's ``vectorized_inner_sum`` of each row of ``x`` (rows, n), contiguous, n >= lanes: the
    vectors' lanes by ``_row_sum``, then 0 + the numbers past the last whole vector + each lane."""
    rows, n = x.shape
    nv = n // lanes
    if rows == 1:
        acc = _row_sum(x[0, :nv * lanes].reshape(nv, lanes))
        return np.add.accumulate(np.concatenate((x[0, nv * lanes:], acc)) if n > nv * lanes else acc)[-1:]
    vecs = x[:, :nv * lanes].reshape(rows, nv, lanes).transpose(1, 0, 2).reshape(nv, rows * lanes)
    acc = _row_sum(vecs).reshape(rows, lanes)
    return _seq(np.concatenate((x[:, nv * lanes:], acc), axis=1).T)


def _down_columns(a, block):
    """Each column of ``a`` (size, c) summed down its rows: the first columns in whole blocks of ``block``
    by ``multi_row_sum``, the rest by ``row_sum`` (PyTorch's ``vectorized_outer_sum`` and
    ``scalar_outer_sum``). ``a`` may hold several matrices side by side: (size, k, c)."""
    c = a.shape[-1]
    b = c // block * block
    if b == c and a.ndim == 2:
        return _cascade(a)
    parts = []
    if b:
        parts.append(_shaped(_cascade(a[..., :b].reshape(a.shape[0], -1)), a.shape[1:-1] + (b,)))
    if b < c:
        parts.append(_shaped(_row_sum(a[..., b:].reshape(a.shape[0], -1)), a.shape[1:-1] + (c - b,)))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)


def _shaped(r, shape):
    """``r`` reshaped, itself when it has that shape already: an array of its own, not a view, which
    a leaf's ``.grad`` then takes without a copy."""
    return r if r.shape == shape else r.reshape(shape)


def _along_rows(x, lanes, itemsize, stride):
    """The sum of each row of ``x`` (rows, n) whose numbers lie ``stride`` bytes apart."""
    if stride == itemsize and x.shape[1] >= lanes:
        return _inner(x, lanes)
    return _row_sum(x.T)


_PLANS = {}  # (shape, dims, keepdim, dtype) of a C-ordered array -> how to add it up (see _plan)


def _result_shape(shape, dims, keepdim):
    """(the reduced dims, all of them for None; the result's shape)."""
    dims = tuple(range(len(shape))) if dims is None else dims
    if keepdim:
        return dims, tuple(1 if i in dims else k for i, k in enumerate(shape))
    return dims, tuple(k for i, k in enumerate(shape) if i not in dims)


def _plan(d, dims, keepdim):
    """(how, n, lanes or block, result's shape): 0, NumPy's reduce (its order is PyTorch's, or the dtype
    is not float32/64); 1 and 2, rows of n numbers by ``_inner`` or ``row_sum``; 3, columns n deep by
    ``_down_columns``; 4, any other layout (``_general``)."""
    lanes = _LANES.get(d.dtype)
    shape = d.shape
    dims, out_shape = _result_shape(shape, dims, keepdim)
    reduced = [i in dims for i in range(d.ndim)]
    big = [r for r, n in zip(reduced, shape) if n > 1]  # (a dim of one number changes no order)
    n = math.prod(shape[i] for i in dims)
    if lanes is None or big.count(True) <= 1 and n <= 4 or d.size == 0:
        # (up to four numbers along a dim, NumPy and PyTorch both add one after another)
        return 0, n, None, out_shape
    k = big.index(True)
    if all(big[k:]):  # the reduced dims all after the kept ones: rows
        return (1 if n >= lanes else 2), n, lanes, out_shape
    if k == 0 and not any(big[big.index(False):]):  # all before: columns
        return 3, n, (4 * lanes if d.size // n >= lanes else 4), out_shape
    return 4, n, lanes, out_shape


def add_reduce(d, dims=None, keepdim=False):
    """``np.add.reduce(d, dims, keepdims=keepdim)`` (``dims``: a tuple of dims >= 0, or None for all)
    with the terms added in PyTorch's order."""
    if not d.flags.c_contiguous:
        return _general(d, dims, keepdim)
    key = (d.shape, dims, keepdim, d.dtype)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        plan = _PLANS[key] = _plan(d, dims, keepdim)
    how, n, arg, out_shape = plan
    if how == 0:
        return _numpy_sum(d, dims, keepdim)
    if how == 1:
        r = _inner(d.reshape(-1, n), arg)
    elif how == 2:
        r = _row_sum(d.reshape(-1, n).T)
    elif how == 3:
        r = _down_columns(d.reshape(n, -1), arg)
    else:
        return _general(d, dims, keepdim)
    return _shaped(r + d.dtype.type(0), out_shape)


def _numpy_sum(d, dims, keepdim):
    """NumPy's sum, where its order is PyTorch's. PyTorch's totals start at 0, and 0 + -0 is 0: NumPy's
    keep a sum of -0s at -0."""
    r = np.add.reduce(d, dims, keepdims=keepdim)
    return r + d.dtype.type(0) if d.dtype.kind == "f" else r


def nll_reduce(terms, count, kept=None):
    """The total of nll_loss's terms (a 1-d float32/64 array, in the targets' order) as PyTorch's
    nll_loss_out_frame adds them: eight running sums, the first taking each term; at a target index b
    that is a multiple of 16**(j + 1) (0 included), sums 0 to j move up one level each; at the end the
    eight are added from the lowest. ``count``: the number of targets; ``kept``: the indices of the
    terms when some targets are ignored (those neither add nor move sums up)."""
    zero = terms.dtype.type(0)
    if not len(terms):
        return zero
    step = 1 << max(4, (count - 1).bit_length() // 8)  # (16 below 2**40 targets)
    if kept is None:
        top, rest = terms[:1], terms[1:]  # (b = 0 moves the first term to the top level)
    else:
        top, rest = (terms[:1], terms[1:]) if kept[0] == 0 else (terms[:0], terms)
        kept = kept[1:] if kept[0] == 0 else kept
    parts = []
    for j in range(1, 8):
        if not len(rest):
            break
        if kept is None:  # every target kept: the level's runs are whole groups of ``step``
            g = len(rest) // step
            if not g:  # (what is left stays at this level)
                break
            parts.append(rest[g * step:])
            rest = np.add.accumulate(rest[:g * step].reshape(g, step), axis=1)[:, -1]
            continue
        ends = np.flatnonzero(kept % step ** j == 0)
        if not len(ends):
            break
        parts.append(rest[ends[-1] + 1:])
        rest, kept = _runs(rest, ends), kept[ends]
    else:
        top, rest = np.concatenate((top, rest)), rest[:0]
    parts.append(rest)
    parts.append(top)
    parts = [p for p in parts if len(p)]
    # each level number after number, side by side in a grid (a level's trailing zeros change no
    # sum but -0, which adding it to the total does not see); then the levels' sums from the lowest
    grid = np.zeros((max(map(len, parts)), len(parts)), terms.dtype)
    for i, p in enumerate(parts):
        grid[:len(p), i] = p
    return _seq(_seq(grid)[:, None])[0] + zero


def _runs(x, ends):
    """The sum of each run of ``x`` (1-d) up to and including each of ``ends``, number after number."""
    starts = np.concatenate(([0], ends[:-1] + 1))
    lens = ends - starts + 1
    width = int(lens.max())
    if width * len(ends) > 4 * len(x) + 4096:  # (a few long runs among many short: no grid that large)
        return np.array([_seq(x[a:b + 1, None])[0] for a, b in zip(starts, ends)]) + x.dtype.type(0)
    grid = np.zeros((width, len(ends)), x.dtype)  # (a run's trailing zeros change no sum but -0)
    grid[np.arange(ends[-1] + 1) - np.repeat(starts, lens), np.repeat(np.arange(len(ends)), lens)] = x[:ends[-1] + 1]
    return _seq(grid) + x.dtype.type(0)


def mean_reduce(d, dims=None, keepdim=False):
    """PyTorch's CPU mean: its sum (``add_reduce``) divided by the count."""
    count = d.size if dims is None else math.prod(d.shape[i] for i in dims)
    return np.asarray(add_reduce(d, dims, keepdim) / d.dtype.type(count), dtype=d.dtype)


def _general(d, dims, keepdim):
    """``add_reduce`` of any layout: strided views, dims reduced between kept ones."""
    how, _, _, out_shape = _plan(d, dims, keepdim)
    if how == 0 or 0 in d.strides:
        return _numpy_sum(d, dims, keepdim)
    lanes = _LANES[d.dtype]
    nd = d.ndim
    if dims is None:
        dims = tuple(range(nd))
    shape, strides = d.shape, d.strides
    reduced = [i in dims for i in range(nd)]
    # PyTorch's TensorIterator: the dims of more than one number, the reduced ones first from the smallest
    # stride, then the kept ones from the result's innermost (the result is C-ordered); neighbours merged
    # where they lie one after the other in memory (and, kept, in the result)
    out_strides, step = [0] * nd, 1
    for i in reversed(range(nd)):
        if not reduced[i]:
            out_strides[i], step = step, step * shape[i]
    order = sorted((i for i in reversed(range(nd)) if shape[i] > 1),
                   key=lambda i: (0, abs(strides[i])) if reduced[i] else (1, 0))
    groups = []
    for i in order:
        j = groups[-1][-1] if groups else None
        if j is not None and reduced[i] == reduced[j] and strides[i] == shape[j] * strides[j] and \
                (reduced[i] or out_strides[i] == shape[j] * out_strides[j]):
            groups[-1].append(i)
        else:
            groups.append([i])
    sizes = [math.prod(shape[i] for i in g) for g in groups]
    red = [reduced[g[0]] for g in groups]
    gstrides = [strides[g[0]] for g in groups]
    v = np.lib.stride_tricks.as_strided(d, sizes[::-1], gstrides[::-1], writeable=False)
    itemsize = d.itemsize
    if len(groups) == 1:
        q, axes = _along_rows(v.reshape(1, -1), lanes, itemsize, gstrides[0]).reshape(()), []
    else:  # the innermost two dims, the first reduced: its rows one by one or its columns side by side
        outer, (n1, n0) = v.shape[:-2], v.shape[-2:]
        s0, s1 = gstrides[0], gstrides[1]
        if s0 == itemsize and n0 >= lanes or s0 < s1 and not (s1 == itemsize and n1 >= lanes):
            q = _along_rows(v.reshape(-1, n0), lanes, itemsize, s0)
        else:
            block = 4 * lanes if s1 == itemsize and n1 >= lanes else 4
            q = _down_columns(v.reshape(-1, n1, n0).transpose(2, 0, 1), block)
        q, axes = q.reshape(outer + (n1,)), list(range(len(groups) - 1, 0, -1))
    # the reduced outer dims: their partial sums added to the result in the order PyTorch visits them
    rq = [k for k, g in enumerate(axes) if red[g]]
    kq = [k for k, g in enumerate(axes) if not red[g]]
    if rq:
        q = _seq(q.transpose(rq + kq).reshape(math.prod(q.shape[k] for k in rq), -1))
    # back to the result's order of dims
    odims = [i for k in kq for i in reversed(groups[axes[k]])]
    q = q.reshape([shape[i] for i in odims]) if odims else q.reshape(())
    q = q.transpose(np.argsort(odims)) if odims else q
    return (q + d.dtype.type(0)).reshape(out_shape)  # (a new array: q may still be a view of d)


def _reduced_first(d, dims):
    """``d`` as (n, m): the reduced numbers of each result down its column, in the order PyTorch's
    TensorIterator visits them (the reduced dims from the largest stride to the smallest)."""
    keep = [i for i in range(d.ndim) if i not in dims]
    red = sorted(dims, key=lambda i: -abs(d.strides[i]))
    n = math.prod(d.shape[i] for i in dims)
    return d.transpose(red + keep).reshape(n, -1)


def _welford(x, correction):
    """PyTorch's ``WelfordOps`` in float64 down the columns of ``x`` (n, m), one number after another:
    (mean, m2 / (n - correction)), the divisor 0 when it is not positive."""
    n = x.shape[0]
    if x.shape[1] == 1:  # (Python's floats are doubles, and quicker than 1-number arrays)
        mean = m2 = 0.0
        for i, v in enumerate(x[:, 0].tolist(), 1):
            delta = v - mean
            mean += delta / i
            m2 += delta * (v - mean)
        mean, m2 = np.array([mean]), np.array([m2])
    else:
        mean, m2 = np.zeros(x.shape[1]), np.zeros(x.shape[1])
        for i in range(n):
            delta = x[i] - mean
            mean += delta / float(i + 1)
            m2 += delta * (x[i] - mean)
    return mean, m2 / (n - correction if n > correction else 0.0)


def var_reduce(d, dims, correction, keepdim, take_sqrt, with_mean=False):
    """PyTorch's CPU ``var``/``std`` (and with ``with_mean``, ``var_mean``/``std_mean``, whose mean is the
    variance's own) of a float array over ``dims`` (a tuple of dims >= 0, or None for all).

    Both of PyTorch's algorithms work in float64 whatever the dtype: a variance of one number overall
    (``std_var_all_cpu``) squares the distances to the dtype's mean and adds them one after another;
    any other is Welford's running update, number after number (``WelfordOps``). A float32 or float16
    variance is that float64 value rounded, which a two-pass float64 variance gives too; a float64 one is
    Welford's own rounding, so the update runs here, for up to 32768 numbers a result (beyond, PyTorch
    splits the work between its threads)."""
    dims, out_shape = _result_shape(d.shape, dims, keepdim)
    n = math.prod(d.shape[i] for i in dims)
    with np.errstate(all="ignore"):
        if d.size == 0:
            out = np.full(out_shape, np.nan, d.dtype)
            return (out, out.copy()) if with_mean else out
        if not with_mean and math.prod(out_shape) == 1 and d.dtype in _LANES:
            m = float(mean_reduce(d))
            dx = np.ravel(d, order="K").astype(_F64) - m
            var = np.add.accumulate(dx * dx)[-1] / max(0.0, n - correction)
            out = np.sqrt(var) if take_sqrt else var
            return np.full(out_shape, out).astype(d.dtype)
        x = _reduced_first(d, dims).astype(_F64)
        if d.dtype == _F64 and n <= 32768:
            mean, var = _welford(x, correction)
        else:
            mean = np.add.reduce(x, 0) / n
            dx = x - mean
            var = np.add.reduce(dx * dx, 0) / (n - correction if n > correction else 0.0)
        out = (np.sqrt(var) if take_sqrt else var).astype(d.dtype).reshape(out_shape)
    return (out, mean.astype(d.dtype).reshape(out_shape)) if with_mean else out


def _norm2_rows(r):
    """PyTorch's vectorised 2-norm of each contiguous row of ``r`` (m, n), float32 or float64: squares
    added in the lanes of 256-bit vectors, vector after vector; the lanes added one after another;
    then the numbers past the last whole vector as GCC compiled that loop: four squares rounded and
    added, the rest as fused multiply-adds."""
    lanes = _LANES[r.dtype]
    m, n = r.shape
    nv = n // lanes
    if nv:
        v = r[:, :nv * lanes].reshape(m, nv, lanes)
        total = np.add.accumulate(np.add.accumulate(v * v, 1)[:, -1], 1)[:, -1]
    else:
        total = np.zeros(m, r.dtype)
    for k, i in enumerate(range(nv * lanes, n)):
        x = r[:, i]
        total = total + x * x if n - nv * lanes >= 4 and k < 4 else fma(x, x, total, r.dtype)
    return np.sqrt(total)


def _c_pow(x, p):
    try:
        return math.pow(x, p)
    except (ValueError, OverflowError):  # (0 to a negative power, or past the range: C's pow gives inf)
        return math.inf


_libm_pow = np.frompyfunc(_c_pow, 2, 1)


def _pow(x, p, acc):
    """``x ** p`` as PyTorch's reductions take it, C's ``pow`` or ``powf``: a float32 one through float64,
    a float64 one from Python's ``math.pow`` (the C library's; NumPy's float64 power has loops of its
    own, which differ in the last bit for a few inputs in a hundred) up to a million numbers."""
    if acc == _F32:
        return np.power(x, p, dtype=_F64).astype(_F32)
    if x.size > 1 << 20:
        return np.power(x, p)
    with np.errstate(all="ignore"):
        return _libm_pow(x, p).astype(_F64) if x.size else x.copy()


def norm_reduce(d, p, dims, keepdim):
    """PyTorch's CPU ``linalg.vector_norm`` of a float array over ``dims`` (a tuple of dims >= 0, or None).

    Over dims of one number each it is ``abs``. A 2-norm whose reduced numbers lie one after another in
    memory (a row, or the whole of a contiguous tensor) runs the vectorised kernel (``_norm2_rows``);
    any other adds number after number in the dtype (float32 for float16): squares, absolute values or
    powers, the root's exponent ``1 / p`` rounded to the dtype."""
    dims, out_shape = _result_shape(d.shape, dims, keepdim)
    if d.size == 0 or math.isinf(p) or p == 0:  # (no rounding to follow)
        a = np.abs(d)
        if d.size == 0:
            return np.full(out_shape, math.inf if p < 0 else 0.0, d.dtype)
        if p == 0:
            return np.asarray(np.sum(a != 0, axis=dims, keepdims=keepdim), d.dtype)
        return np.asarray((np.max if p > 0 else np.min)(a, axis=dims, keepdims=keepdim))
    big = sorted((i for i in dims if d.shape[i] > 1), key=lambda i: d.strides[i])
    if not big:
        return np.abs(d).reshape(out_shape)
    if p == 2 and d.dtype in _LANES and d.strides[big[0]] == d.itemsize and \
            all(d.strides[j] == d.strides[i] * d.shape[i] for i, j in zip(big, big[1:])):
        return _norm2_rows(np.ascontiguousarray(_reduced_first(d, dims).T)).reshape(out_shape)
    acc = _F32 if d.dtype.itemsize < 4 else d.dtype
    x = np.abs(_reduced_first(d, dims).astype(acc))
    if p == 1:
        terms = x
    elif p == 2:
        terms = x * x
    else:
        terms = _pow(x, acc.type(p), acc)
    total = np.add.accumulate(terms, 0)[-1]
    if p == 1:
        out = total
    elif p == 2:
        out = np.sqrt(total)
    else:
        root = acc.type(1) / acc.type(p)
        out = _pow(total, root, acc)
    return out.astype(d.dtype).reshape(out_shape)
