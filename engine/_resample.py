"""Resampling: ``F.interpolate``'s nearest, nearest-exact, (bi/tri)linear and bicubic modes and the
antialiased bilinear, bicubic and lanczos ones, each one node as PyTorch records it
(``UpsampleBilinear2DBackward0``, ``UpsampleBicubic2DAaBackward0``, ...) with its backward an op of
its own (``UpsampleBilinear2DBackwardBackward0``), so double backward works as in PyTorch.

Every mode is separable: along each spatial dim an output element is a weighted sum of a few input
elements (``taps``). The taps are computed as PyTorch's CPU kernels compute them (in float for a
float or half input, with their index rounding and fused multiply-adds), and applied one dim at a
time, the last dim first, which is the order PyTorch's kernels sum in; uint8 images go through
PyTorch's fixed-point passes.
"""
import math

import numpy as np

from . import _conv
from ._fma import fma
from ._ops import _quietly, _saved_attr, _scalar_type, defop, mean, register_saved
from ._tensor import record

# mode -> its part of the node's name
_KINDS = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear", "bilinear": "Bilinear",
          "trilinear": "Trilinear", "bicubic": "Bicubic", "lanczos": "Lanczos"}
_AXES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}


# ----- Taps: which input elements, with which weights, make each output element -----

def _scale_value(scale, n_in, n_out, ft):
    """PyTorch's ``compute_scales_value``: 1 / the scale given, else in / out."""
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def _area_scale(n_in, n_out, align_corners, scale, ft):
    """PyTorch's ``area_pixel_compute_scale``."""
    if align_corners:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    return _scale_value(scale, n_in, n_out, ft)


def _fused(a, b, c, ft):
    """``a * b + c`` rounded once (PyTorch's kernels are built with fused multiply-adds)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    return fma(*(np.broadcast_to(np.asarray(v, ft), shape) for v in (a, b, c)), np.dtype(ft))


def _source_index(scale, n_out, align_corners, cubic, ft):
    """PyTorch's ``area_pixel_compute_source_index`` for every output index."""
    o = np.arange(n_out).astype(ft)
    if align_corners:
        return scale * o
    src = _fused(scale, o + ft(0.5), ft(-0.5), ft)
    return src if cubic else np.maximum(src, ft(0))


def _guard(real, n_in):
    """PyTorch's ``guard_index_and_lambda``: the index below and the fraction past it."""
    index = np.minimum(np.floor(real).astype(np.int64), n_in - 1)
    return index, np.clip(real - index.astype(real.dtype), 0, 1).astype(real.dtype)


def _cubic_polynomials(a, ft, last_fused=False):
    """Keys' cubic for ``|x| <= 1`` and for ``1 < |x| < 2``, with the contractions PyTorch's build
    makes of them: all but the last product fused (every one, ``last_fused``, in its antialiased
    filter)."""
    def near(x):
        r = _fused(a + 2, x, -(a + 3), ft) * x
        return _fused(r, x, ft(1), ft) if last_fused else r * x + ft(1)

    def far(x):
        r = _fused(_fused(a, x, -5 * a, ft), x, 8 * a, ft)
        return _fused(r, x, -4 * a, ft) if last_fused else r * x - 4 * a

    return near, far


def _cubic_coefficients(t, ft):
    """The four weights of Keys' cubic (a = -0.75) at ``t`` past the index below."""
    near, far = _cubic_polynomials(ft(-0.75), ft)
    x2 = ft(1) - t
    return np.stack([far(t + ft(1)), near(t), near(x2), far(x2 + ft(1))], -1).astype(ft)


def _taps(kind, n_in, n_out, scale, align_corners, dt, indexed=False):
    """``(index, weight)``, each ``(n_out, taps)``, of one spatial dim; ``weight`` is None for the
    nearest modes. ``dt``: the input's dtype (weights are kept in it, computed in float for half).

    The nearest modes have two index rules in PyTorch: its generic kernel's (in the input's
    precision), and ``nearest_idx``'s (``indexed``: in float, ``o // 2`` whenever the size doubles
    whatever the scale given), which every nearest backward and the 2-d forward of small outputs use."""
    o = np.arange(n_out)
    if kind in ("Nearest", "NearestExact"):
        if kind == "Nearest" and indexed and n_out in (n_in, 2 * n_in):
            return (o if n_out == n_in else o >> 1)[:, None], None
        ft = np.float64 if dt == np.float64 and not indexed else np.float32
        s = _scale_value(scale, n_in, n_out, ft)
        if kind == "Nearest":
            src = o.astype(ft) * s
        elif indexed:  # floorf((o + 0.5) * s), the product in double
            src = ((o + 0.5) * np.float64(s)).astype(np.float32)
        else:
            src = np.maximum(_fused(s, o.astype(ft) + ft(0.5), ft(-0.5), ft), ft(0)) + ft(0.5)
        return np.minimum(np.floor(src).astype(np.int64), n_in - 1)[:, None], None
    ft = np.float64 if dt == np.float64 else np.float32
    scale_ = _area_scale(n_in, n_out, align_corners, scale, ft)
    if kind == "Bicubic":
        i0, t = _guard(_source_index(scale_, n_out, align_corners, True, ft), n_in)
        index = np.clip(i0[:, None] + np.arange(-1, 3), 0, n_in - 1)
        return index, _cubic_coefficients(t, ft).astype(dt).astype(ft)
    if n_out == n_in:
        return np.stack([o, o], -1), np.tile(np.array([1, 0], ft), (n_out, 1))
    i0, lambda1 = _guard(_source_index(scale_, n_out, align_corners, False, ft), n_in)
    lambda1 = lambda1.astype(dt)
    lambda0 = (dt.type(1) - lambda1).astype(dt)
    return np.stack([i0, i0 + (i0 < n_in - 1)], -1), np.stack([lambda0, lambda1], -1).astype(ft)


_AA_SIZE = {"BilinearAa": 2, "BicubicAa": 4, "LanczosAa": 6}


def _aa_filter(kind, x, ft):
    """The filters of PyTorch's antialiased kernels (Pillow's): triangle, Keys' cubic with a = -0.5,
    Lanczos-3."""
    x = np.abs(x)
    one = ft(1)
    if kind == "BilinearAa":
        return np.where(x < one, one - x, ft(0)).astype(ft)
    if kind == "BicubicAa":
        near, far = _cubic_polynomials(ft(-0.5), ft, last_fused=True)
        return np.where(x < one, near(x), np.where(x < 2, far(x), ft(0))).astype(ft)

    def sinc(v):  # (the sine of the float argument, rounded once from double)
        pv = (v * ft(np.pi)).astype(ft)
        return np.where(v == 0, one, np.sin(pv.astype(np.float64)).astype(ft) / np.where(v == 0, one, pv))

    return np.where(x < 3, sinc(x) * sinc((x / ft(3.0)).astype(ft)), ft(0)).astype(ft)


def _aa_weights(kind, n_in, n_out, scale, align_corners, ft):
    """PyTorch's ``_compute_indices_min_size_weights_aa``: per output the first input index, the
    count, and the filter's weights over them (normalised), the filter widened by the scale when
    downsampling."""
    scale_ = _area_scale(n_in, n_out, align_corners, scale, ft)
    size = _AA_SIZE[kind]
    support = ft(size * 0.5 * scale_) if scale_ >= 1 else ft(size * 0.5)
    width = int(math.ceil(support)) * 2 + 1
    o = np.arange(n_out)
    center = (np.float64(scale_) * (o + 0.5)).astype(ft)
    invscale = ft(1.0 / scale_) if scale_ >= 1 else ft(1)
    start = np.maximum(np.trunc((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    count = np.clip(np.minimum(np.trunc((center + support).astype(np.float64) + 0.5).astype(np.int64), n_in) - start,
                    0, width)
    j = np.arange(width)
    at = ((start[:, None] + j).astype(ft) - center[:, None]).astype(np.float64) + 0.5
    w = np.where(j < count[:, None], _aa_filter(kind, (at * np.float64(invscale)).astype(ft), ft), ft(0))
    total = np.zeros(n_out, ft)
    for k in range(width):  # (summed in order, as PyTorch's loop does)
        total += w[:, k]
    w = np.where(total[:, None] != 0, w / np.where(total == 0, ft(1), total)[:, None], w).astype(ft)
    return start, count, w


def _aa_taps(kind, n_in, n_out, scale, align_corners, dt):
    ft = np.float64 if dt == np.float64 else np.float32
    start, count, w = _aa_weights(kind, n_in, n_out, scale, align_corners, ft)
    index = np.minimum(start[:, None] + np.arange(w.shape[1]), n_in - 1)
    return index, w


def _all_taps(kind, in_size, out_size, scales, align_corners, dt, indexed=False):
    if kind in _AA_SIZE:
        return [_aa_taps(kind, i, o, s, align_corners, dt) for i, o, s in zip(in_size, out_size, scales)]
    return [_taps(kind, i, o, s, align_corners, dt, indexed) for i, o, s in zip(in_size, out_size, scales)]


# ----- Kernels on NumPy arrays: spatial dims last -----

def _along(shape_len, axis, v):
    shape = [1] * shape_len
    shape[axis] = -1
    return v.reshape(shape)


def _weighted_sum(ts, ws, work, first_fused=True):
    """``sum(t * w)`` as PyTorch's float kernels round it: ``fma(t0, w0, t1 * w1)``, then a fused
    add of each next product (float64: plain arithmetic, its rounding far below what anything
    compares)."""
    if work != np.float32:
        acc = ts[0] * ws[0]
        for t, w in zip(ts[1:], ws[1:]):
            acc += t * w
        return acc
    if first_fused:
        acc = (np.multiply(ts[0], ws[0], dtype=np.float64) + ts[1] * ws[1]).astype(work)
        rest = zip(ts[2:], ws[2:])
    else:  # (the antialiased kernels' loop: the first product, then fused adds)
        acc = ts[0] * ws[0]
        rest = zip(ts[1:], ws[1:])
    for t, w in rest:
        acc = (np.multiply(t, w, dtype=np.float64) + acc).astype(work)
    return acc


def _resample_arrays(x, taps, separable=False):
    """``x`` resampled along its last ``len(taps)`` dims, the last dim first (the innermost sum of
    PyTorch's generic kernel). ``separable``: PyTorch's antialiased kernels, which skip a dim whose
    size stays and round to the input's dtype between passes."""
    nd = len(taps)
    work = np.float64 if x.dtype == np.float64 else np.float32
    y = x if x.dtype == work or all(w is None for _, w in taps) else x.astype(work)
    for i in reversed(range(nd)):
        axis = y.ndim - nd + i
        index, weight = taps[i]
        index = index.astype(np.intp, copy=False)  # (np.take's index type: 32 bits in Pyodide)
        if weight is None:
            y = np.take(y, index[:, 0], axis=axis)
            continue
        if separable and index.shape[0] == y.shape[axis]:
            continue
        k = range(index.shape[1])
        y = _weighted_sum([np.take(y, index[:, j], axis=axis) for j in k],
                          [_along(y.ndim, axis, weight[:, j]) for j in k], work, not separable)
    return y.astype(x.dtype, copy=False)



def _bilinear_small_arrays(x, taps):
    """PyTorch's channels-last bilinear kernel (which it takes for outputs of H + W <= 128): each
    output one sum of four products with ``w01 = h0 * w1`` and so on (weights in float for half).
    Its channels come in vectors (8 floats, 4 doubles, 16 halfs) and a scalar tail, whose sums its
    build contracts to fused multiply-adds each in its own order."""
    (ih, wh), (iw, ww) = taps
    ih, iw = ih.astype(np.intp, copy=False), iw.astype(np.intp, copy=False)  # (np.take's: 32 bits in Pyodide)
    work = np.float64 if x.dtype == np.float64 else np.float32
    lanes = {np.float64: 4, np.float32: 8}.get(x.dtype.type, 16)
    vec = x.shape[1] - x.shape[1] % lanes
    xw = x.astype(work, copy=False)
    rows = [np.take(xw, ih[:, a], axis=2) for a in (0, 1)]
    i00, i01, i10, i11 = (np.take(r, iw[:, b], axis=3) for r in rows for b in (0, 1))
    w00, w01, w10, w11 = (wh[:, a].astype(work)[:, None] * ww[:, b].astype(work)[None, :]
                          for a in (0, 1) for b in (0, 1))
    fused = (lambda a, b, c: (np.multiply(a, b, dtype=np.float64) + c).astype(work)) if work == np.float32 else (
        lambda a, b, c: a * b + c)
    out = fused(i11, w11, fused(i10, w10, fused(i00, w00, i01 * w01)))
    if vec:
        v = slice(0, vec)
        a, b, c, d = (t[:, v] for t in (i00, i01, i10, i11))
        if x.dtype == np.float16:
            out[:, v] = fused(a, w00, fused(b, w01, fused(c, w10, d * w11)))
        else:
            out[:, v] = fused(a, w00, fused(b, w01, fused(d, w11, c * w10)))
    return out.astype(x.dtype, copy=False)


def _uint8_taps(kind, n_in, n_out, scale, align_corners):
    """PyTorch's uint8 weights (``_compute_index_ranges_int16_weights``): per output a first index,
    a count and int16 weights, in float64 first (without antialiasing, taps falling outside the
    input folded onto its edge); then the fixed-point precision the largest weight allows."""
    if kind in _AA_SIZE:
        start, count, weights = _aa_weights(kind, n_in, n_out, scale, align_corners, np.float64)
        return (start, count) + _fixed_point(weights)
    size = 4 if kind == "Bicubic" else 2
    scale_ = _area_scale(n_in, n_out, align_corners, scale, np.float64)
    o = np.arange(n_out, dtype=np.float64)
    real = scale_ * o if align_corners else scale_ * (o + 0.5) - 0.5
    if size == 2 and not align_corners:
        real = np.maximum(real, 0)
    i0, lam = _guard(real, n_in)
    support = size // 2
    lo = i0 - support + 1
    start = np.maximum(lo, 0)
    count = np.clip(np.minimum(i0 + support + 1, n_in) - start, 0, size)
    weights = np.zeros((n_out, size))
    for j in range(size):
        x = np.abs((j + 1 - support) - lam)
        if size == 2:
            w = np.where(x < 1, 1 - x, 0)
        else:
            a = -0.75
            w = np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                         np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))
        slot = np.where(lo + j <= 0, 0, np.where(lo + j >= n_in - 1, count - 1, j - np.maximum(0, -lo)))
        np.add.at(weights, (np.arange(n_out), slot), w)
    return (start, count) + _fixed_point(weights)


def _fixed_point(weights):
    """int16 weights with as many fraction bits as the largest weight allows, and that count."""
    precision = 0
    top = weights.max()
    while precision < 22 and int(0.5 + top * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    v = weights * (1 << precision)
    return np.trunc(np.where(v < 0, v - 0.5, v + 0.5)).astype(np.int64), precision


def _uint8_resample_arrays(x, kind, out_size, scales, align_corners):
    """Bilinear or bicubic resampling of uint8 ``x`` as PyTorch's uint8 kernels do it: one pass per
    dim whose size changes (the last dim first), each in fixed point rounded back to uint8."""
    y = x
    nd = len(out_size)
    for i in [nd - 1] + list(range(nd - 1)):
        axis = 2 + i
        n_in = y.shape[axis]
        if n_in == out_size[i]:
            continue
        start, count, weights, precision = _uint8_taps(kind, n_in, out_size[i], scales[i], align_corners)
        acc = np.full(y.shape[:axis] + (out_size[i],) + y.shape[axis + 1:], 1 << (precision - 1), np.int64)
        for j in range(weights.shape[1]):
            valid = j < count
            t = np.take(y, np.minimum(start + j, n_in - 1).astype(np.intp), axis=axis).astype(np.int64)
            acc += t * _along(y.ndim, axis, np.where(valid, weights[:, j], 0))
        y = np.clip(acc >> precision, 0, 255).astype(np.uint8)
    return y


def _scatter_along(buf, axis, index, part):
    """``buf[..., index[o], ...] += part[..., o, ...]`` along ``axis``: runs of equal (sorted)
    indices summed with one ``reduceat``."""
    moved_buf, moved = np.moveaxis(buf, axis, 0), np.moveaxis(part, axis, 0)
    if index.size and np.all(index[1:] >= index[:-1]):
        starts = np.flatnonzero(np.concatenate([[True], index[1:] != index[:-1]]))
        moved_buf[index[starts]] += np.add.reduceat(moved, starts, axis=0)
    else:
        np.add.at(moved_buf, index, moved)


def _resample_backward_arrays(g, in_size, taps):
    """The input grad of ``_resample_arrays``: each dim's taps scattered back, the first dim first."""
    nd = len(taps)
    work = np.float32 if g.dtype == np.float16 else g.dtype
    y = g.astype(work, copy=False)
    for i in range(nd):
        axis = y.ndim - nd + i
        index, weight = taps[i]
        buf = np.zeros(y.shape[:axis] + (in_size[i],) + y.shape[axis + 1:], work)
        for k in range(index.shape[1]):
            part = y if weight is None else y * _along(y.ndim, axis, weight[:, k].astype(work))
            _scatter_along(buf, axis, index[:, k], part)
        y = buf
    return y.astype(g.dtype, copy=False)


# ----- The ops -----

def _node_name(kind, nd):
    """``UpsampleBilinear2D``, or ``UpsampleBilinear2DAa`` for an antialiased kind."""
    return f"Upsample{kind[:-2]}{nd}DAa" if kind in _AA_SIZE else f"Upsample{kind}{nd}D"


def _upsample_ops(kind, nd):
    ops = {}
    ops["back"] = defop(f"{_node_name(kind, nd)}BackwardBackward0",
                        lambda gg, ans, grad_output, **attrs: _upsample(kind, gg, attrs))
    ops["fwd"] = defop(f"{_node_name(kind, nd)}Backward0",
                       lambda g, ans, x, **attrs: _upsample_backward(kind, g, tuple(x.shape), attrs))
    return ops


_OPS = {(kind, nd): _upsample_ops(kind, nd) for kind, nd in (
    ("Nearest", 1), ("Nearest", 2), ("Nearest", 3), ("NearestExact", 1), ("NearestExact", 2), ("NearestExact", 3),
    ("Linear", 1), ("Bilinear", 2), ("Bicubic", 2), ("Trilinear", 3), ("BilinearAa", 2), ("BicubicAa", 2),
    ("LanczosAa", 2))}


def _dtype_check(kind, nd, input):
    x = input._data
    kinds = "f" if kind in ("Linear", "Trilinear") else "fu"
    if kind in _AA_SIZE and x.dtype not in (np.float32, np.float64, np.uint8):
        raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for '{_scalar_type(input)}'")
    if x.dtype.kind not in kinds or x.dtype.kind == "u" and x.dtype != np.uint8:
        if nd == 2 and kind in ("Nearest", "NearestExact", "Bilinear"):
            name = "upsample_bilinear2d" if kind == "Bilinear" else "upsample_nearest2d"
            name += "_channels_last"
        else:
            name = {"Nearest": "nearest", "NearestExact": "nearest", "Bicubic": "cubic"}.get(kind, "linear")
            name = f"compute_indices_weights_{name}"
        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_type(input)}\'')


def _upsample(kind, input, attrs):
    """The forward op: ``input`` (N, C, *spatial) resampled to ``attrs["output_size"]``."""
    x = input._data
    out_size, scales = attrs["output_size"], attrs["scales"]
    nd = len(out_size)
    _check_sizes(x, nd, out_size)
    y = np.zeros(x.shape[:2] + tuple(out_size), x.dtype)
    if x.size:
        _dtype_check(kind, nd, input)
        small = nd == 2 and sum(out_size) <= 128  # (where PyTorch takes its channels-last kernels)
        align_corners = attrs.get("align_corners")
        if x.dtype == np.uint8 and kind not in ("Nearest", "NearestExact"):
            y = _uint8_resample_arrays(x, kind, out_size, scales, align_corners)
        elif kind in _AA_SIZE:
            taps = _all_taps(kind, x.shape[2:], out_size, scales, align_corners, x.dtype)
            y = _quietly(_resample_arrays, x, taps, True)
        else:
            small = small and kind in ("Bilinear", "Nearest", "NearestExact")
            dt = np.dtype(np.float32) if small and x.dtype == np.float16 else x.dtype
            taps = _all_taps(kind, x.shape[2:], out_size, scales, align_corners, dt, small)
            y = _quietly(_bilinear_small_arrays if small and kind == "Bilinear" else _resample_arrays, x, taps)
    return record(_OPS[kind, nd]["fwd"], (input,), np.ascontiguousarray(y), attrs)


def _upsample_backward(kind, g, in_size, attrs):
    gd = g._data
    taps = _all_taps(kind, in_size[2:], attrs["output_size"], attrs["scales"], attrs.get("align_corners"), gd.dtype,
                     True)
    gi = _quietly(_resample_backward_arrays, gd, in_size[2:], taps)
    return record(_OPS[kind, len(taps)]["back"], (g,), np.ascontiguousarray(gi), attrs)


def _check_sizes(x, nd, out_size):
    """PyTorch's ``upsample_{1,2,3}d_common_check`` and its check of an empty input."""
    names, in_size = _AXES[nd], x.shape[2:]
    if min(in_size) <= 0 or min(out_size) <= 0:
        given = lambda sizes: ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))  # noqa: E731
        joint = " and output" if nd == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given(in_size)})"
                           f"{joint} ({given(out_size)})")
    if x.size == 0 and math.prod(x.shape[1:]) == 0:
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with sizes {list(x.shape)}")


def upsample(input, mode, output_size, scale_factors, align_corners=None, antialias=False):
    """``torch._C._nn.upsample_<mode><nd>d`` (``_upsample_<mode>2d_aa`` with ``antialias``):
    ``output_size`` or ``scale_factors`` (the size then ``int(in * scale)``, the scale kept for the
    kernel)."""
    nd = input.dim() - 2
    if output_size is None:
        output_size = tuple(int(n * s) for n, s in zip(input.shape[2:], scale_factors))
        scales = tuple(float(s) for s in scale_factors)
    else:
        scales = (None,) * nd
    attrs = {"output_size": tuple(int(s) for s in output_size), "scales": scales}
    kind = _KINDS[mode] + ("Aa" if antialias else "")
    if kind not in ("Nearest", "NearestExact"):
        attrs["align_corners"] = bool(align_corners)
    return _upsample(kind, input, attrs)


def area(input, output_size):
    """``mode='area'``: adaptive average pooling to ``output_size``, as PyTorch resamples it."""
    nd = input.dim() - 2
    if nd == 1:
        return _conv.adaptive_avg_pool1d(input, output_size)
    if nd == 2:
        return _conv.adaptive_avg_pool2d(input, output_size)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"adaptive_avg_pool3d_cpu\" not implemented for '{_scalar_type(input)}'")
    if tuple(output_size) == (1, 1, 1):
        return mean(input, (-1, -2, -3), keepdim=True)
    return _conv._adaptive_avg(3, input, tuple(output_size))


# ----- grad_fn._saved_* -----

def _saved_scale(i):
    return lambda node: node._attrs["scales"][i]


_SAVED = {}
for (_kind, _nd), _ops_of in _OPS.items():
    _common = {"output_size": _saved_attr("output_size"),
               **{name: _saved_scale(i) for i, name in enumerate(_SCALE_NAMES[_nd])}}
    if _kind not in ("Nearest", "NearestExact"):
        _common["align_corners"] = _saved_attr("align_corners")
    _SAVED[f"{_node_name(_kind, _nd)}Backward0"] = {**_common, "self_sym_sizes": lambda node: tuple(node._metas[0][0])}
    _SAVED[f"{_node_name(_kind, _nd)}BackwardBackward0"] = _common
register_saved(_SAVED)
