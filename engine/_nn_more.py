"""Kernels of ``torch.nn.functional`` that PyTorch records as nodes of their own: the pixel and
channel shuffles, ``_trilinear`` (under ``bilinear``), ``pdist``, the multi-class margin losses,
``rrelu`` and ``max_unpool2d``. Each backward is an op too, so a double backward shows PyTorch's
nodes (or fails as PyTorch's does where it has no formula)."""
import math

import numpy as np

from ._ops import (_grad_edges_only, _not_implemented, _quietly, _saved_attr, _saved_slot, _saved_tensor_attr,
                   _scalar_type, _zero_grad, defop, leaky_relu_backward, need_int, need_number, need_tensor,
                   not_differentiable, register_saved)
from ._tensor import record

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


# ----- pixel_shuffle, pixel_unshuffle, channel_shuffle -----

def _pixel_shuffle_arrays(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    y = y.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return np.ascontiguousarray(y).reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def _pixel_unshuffle_arrays(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    n = len(lead)
    y = y.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return np.ascontiguousarray(y).reshape(tuple(lead) + (c * r * r, h // r, w // r))


PIXEL_SHUFFLE = defop("PixelShuffleBackward0", lambda g, ans, x, upscale_factor: pixel_unshuffle(g, upscale_factor))
PIXEL_UNSHUFFLE = defop("PixelUnshuffleBackward0",
                        lambda g, ans, x, downscale_factor: pixel_shuffle(g, downscale_factor))
CHANNEL_SHUFFLE = defop("ChannelShuffleBackward0",
                        lambda g, ans, x, groups: channel_shuffle(g, g.shape[1] // groups))


def _shuffle_args(fname, arg, input, factor):
    need_tensor(fname, "input", 1, input)
    need_int(fname, arg, 2, factor)
    if input.dim() < 3:
        raise RuntimeError(f"{fname} expects input to have at least 3 dimensions, but got input with {input.dim()} "
                           "dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fname} expects a positive {arg}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) to (*, C, H r, W r): each group of r^2 channels spread over an r x r block."""
    _shuffle_args("pixel_shuffle", "upscale_factor", input, upscale_factor)
    c, r = input.shape[-3], int(upscale_factor)
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return record(PIXEL_SHUFFLE, (input,), _pixel_shuffle_arrays(input._data, r), {"upscale_factor": r})


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) to (*, C r^2, H, W): the reverse of ``pixel_shuffle``."""
    _shuffle_args("pixel_unshuffle", "downscale_factor", input, downscale_factor)
    r = int(downscale_factor)
    for what, i in (("height", -2), ("width", -1)):
        if input.shape[i] % r:
            raise RuntimeError(f"pixel_unshuffle expects {what} to be divisible by downscale_factor, but "
                               f"input.size({i})={input.shape[i]} is not divisible by {r}")
    return record(PIXEL_UNSHUFFLE, (input,), _pixel_unshuffle_arrays(input._data, r), {"downscale_factor": r})


def channel_shuffle(input, groups):
    """(N, C, *) with its channels seen as (groups, C / groups) and transposed to (C / groups, groups)."""
    need_tensor("channel_shuffle", "input", 1, input)
    need_int("channel_shuffle", "groups", 2, groups)
    x = input._data
    if x.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = x.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    y = x.reshape((x.shape[0], groups, c // groups) + x.shape[2:]).swapaxes(1, 2)
    return record(CHANNEL_SHUFFLE, (input,), np.ascontiguousarray(y).reshape(x.shape), {"groups": int(groups)})


# ----- _trilinear, under bilinear -----

def _trilinear_arrays(a, b, c, expand1, expand2, expand3, sumdim):
    """``sum over sumdim of a * b * c``, each first given size-1 dims at its ``expand`` positions."""
    total = a.ndim + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:total]

    def spec(expand):
        return "".join(l for i, l in enumerate(letters) if i not in expand)

    out = "".join(l for i, l in enumerate(letters) if i not in sumdim)
    return np.einsum(f"{spec(expand1)},{spec(expand2)},{spec(expand3)}->{out}", a, b, c, optimize=True)


TRILINEAR = defop(
    "TrilinearBackward0",
    lambda g, ans, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim: _trilinear(
        g, i2, i3, sumdim, expand2, expand3, expand1),
    lambda g, ans, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim: _trilinear(
        i1, g, i3, expand1, sumdim, expand3, expand2),
    lambda g, ans, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim: _trilinear(
        i1, i2, g, expand1, expand2, sumdim, expand3),
    saves=(0, 1, 2))


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    y = _trilinear_arrays(i1._data, i2._data, i3._data, expand1, expand2, expand3, sumdim)
    return record(TRILINEAR, (i1, i2, i3), np.asarray(y, i1._data.dtype),
                  {"expand1": tuple(expand1), "expand2": tuple(expand2), "expand3": tuple(expand3),
                   "sumdim": tuple(sumdim), "unroll_dim": unroll_dim})


_CPP_DTYPE = {"float16": "c10::Half", "float32": "float", "float64": "double", "uint8": "unsigned char",
              "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int", "bool": "bool"}


def bilinear(input1, input2, weight, bias=None):
    """``x1^T A x2 + b`` per output feature: PyTorch's ``_trilinear`` of the inputs flattened to
    2-D, viewed back (``ViewBackward0`` below ``TrilinearBackward0``), then the bias added."""
    for pos, (arg, t) in enumerate((("input1", input1), ("input2", input2), ("weight", weight)), 1):
        need_tensor("bilinear", arg, pos, t)
    if bias is not None:
        need_tensor("bilinear", "bias", 4, bias)
    dts = [t._data.dtype for t in (input1, input2, weight)]
    if not dts[0] == dts[1] == dts[2]:
        raise RuntimeError("All tensors must have the same dtype, got input1: {}, input2: {}, weight: {}".format(
            *(_CPP_DTYPE[d.name] for d in dts)))
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    if weight.dim() < 3:
        n = max(weight.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 2)")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    out_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    out = _trilinear(input1.reshape(-1, input1.shape[-1]), weight, input2.reshape(-1, input2.shape[-1]),
                     (1, 3), (0,), (1, 2), (2, 3)).reshape(out_shape)
    return out + bias if bias is not None else out


# ----- pdist -----

def _pairs(n):
    return np.triu_indices(n, 1)


def _pdist_arrays(x, p):
    i, j = _pairs(x.shape[0])
    d = np.abs(x[i] - x[j])
    if p == 0:
        return (d != 0).sum(-1).astype(x.dtype)
    if p == math.inf:
        return d.max(-1, initial=0).astype(x.dtype)
    if p == 1:
        return d.sum(-1)
    if p == 2:
        return np.sqrt((d * d).sum(-1))
    return ((d ** x.dtype.type(p)).sum(-1) ** x.dtype.type(1 / p)).astype(x.dtype)


def _pdist_backward_arrays(g, x, p, dist):
    """PyTorch's ``_pdist_backward``: each pair's grad spread over its two rows, with the formula
    its kernel takes for this ``p``."""
    i, j = _pairs(x.shape[0])
    diff = x[i] - x[j]
    gd, dd = g[:, None], dist[:, None]
    t = x.dtype.type
    if p == 0:
        part = np.zeros_like(diff)
    elif p == 1:
        part = gd * np.sign(diff)
    elif p == math.inf:
        part = gd * np.sign(diff) * (1 - np.minimum(1, np.ceil(np.abs(np.abs(diff) - dd))))
    elif p < 2:
        part = np.where(dd == 0, 0, np.sign(diff) * np.abs(diff) ** t(p - 1) * gd / dd ** t(p - 1))
    elif p == 2:
        part = np.where(dd == 0, 0, gd * diff / dd)
    else:
        part = np.where(dd == 0, 0, diff * np.abs(diff) ** t(p - 2) * gd / dd ** t(p - 1))
    out = np.zeros_like(x)
    np.add.at(out, i, part)
    np.add.at(out, j, -part)
    return out.astype(x.dtype, copy=False)


def _pdist_double_backward(*args, **kwargs):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


PDIST_BACKWARD = defop("PdistBackwardBackward0", _pdist_double_backward, _pdist_double_backward,
                       _pdist_double_backward)
PDIST = defop("PdistBackward0", lambda g, ans, x, p: record(
    PDIST_BACKWARD, (g, x, ans), _quietly(_pdist_backward_arrays, g._data, x._data, p, ans._data), {"p": p}),
    saves=(0, "result"), aten="_pdist_forward")


def pdist(input, p=2):
    """The p-norm distances between every two rows of a 2-D ``input``, rows ``i < j`` in order."""
    need_tensor("pdist", "input", 1, input)
    need_number("pdist", "p", 2, p)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input._data.dtype == np.float16:
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    if not input.is_contiguous():
        input = input.contiguous()
    return record(PDIST, (input,), _quietly(_pdist_arrays, input._data, float(p)), {"p": float(p)})


# ----- multi_margin_loss, multilabel_margin_loss -----

def _reduced_in_double(per_sample, reduction, per_frame, dt):
    """PyTorch's margin-loss kernels: per-sample losses (N,) where ``reduction`` is 'none' (0-dim
    unless ``per_frame``), else their sum (or mean) accumulated in double, then rounded."""
    if reduction == "none":
        return per_sample.astype(dt) if per_frame else per_sample.astype(dt).reshape(())
    total = per_sample.astype(np.float64).sum()
    return np.asarray(total / per_sample.shape[0] if reduction == "mean" else total, dt)


def _scale_by_grad(gi, go, reduction, per_frame):
    if reduction == "none" and per_frame:
        return gi * go[:, None]
    return gi * go.reshape(())


def _margin_frames(input):
    x = input._data
    return x.reshape(1, -1) if x.ndim <= 1 else x


def _margin_input_check(input):
    shape = input.shape
    if not ((len(shape) == 2 and shape[1] != 0) or (len(shape) == 1 and shape[0] != 0) or len(shape) == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(shape)}")


def _long_target(target):
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_scalar_type(target)}")


def _multi_margin_arrays(x, y, p, margin, w):
    """Per sample: ``sum over j != y of max(0, margin - x[y] + x[j])^p * w[y]``, over the classes."""
    n, dim = x.shape
    rows = np.arange(n)
    z = x.dtype.type(margin) - x[rows, y][:, None] + x
    h = np.where(z > 0, z if p == 1 else z * z, 0).astype(x.dtype)
    if w is not None:
        h = h * w[y][:, None]
    h[rows, y] = 0
    total = np.zeros(n, x.dtype)
    for d in range(dim):  # (summed in order, in the input's dtype, as PyTorch's loop does)
        total += h[:, d]
    return (total / x.dtype.type(dim)).astype(x.dtype)


def _multi_margin_backward_arrays(go, x, y, p, margin, w, reduction, per_frame):
    n, dim = x.shape
    rows = np.arange(n)
    g = x.dtype.type(1 / (n * dim) if reduction == "mean" else 1 / dim)
    z = x.dtype.type(margin) - x[rows, y][:, None] + x
    h = np.where(z > 0, g if p == 1 else 2 * g * z, 0).astype(x.dtype)
    if w is not None:
        h = h * w[y][:, None]
    h[rows, y] = 0
    h[rows, y] = -h.sum(1)
    return _scale_by_grad(h, go, reduction, per_frame)


# PyTorch has no formula for these backwards: a second derivative is an error, when it is reached.
MULTI_MARGIN_BACKWARD = defop("NotImplemented", _not_implemented("multi_margin_loss_backward"),
                              _not_implemented("multi_margin_loss_backward"),
                              cpp_name="torch::autograd::NotImplemented")
MULTILABEL_MARGIN_BACKWARD = defop("NotImplemented", _not_implemented("multilabel_margin_loss_backward"),
                                   _not_implemented("multilabel_margin_loss_backward"),
                                   cpp_name="torch::autograd::NotImplemented")


def _multi_margin_backward(g, x, target, p, margin, weight, reduction):
    xd = _margin_frames(x)
    gi = _multi_margin_backward_arrays(g._data, xd, target.reshape(-1), p, margin,
                                       None if weight is None else weight.reshape(-1), reduction, target.ndim > 0)
    return _grad_edges_only(record(MULTI_MARGIN_BACKWARD, (g, x), gi.reshape(x.shape).astype(xd.dtype)))


MULTI_MARGIN = defop("MultiMarginLossBackward0",
                     lambda g, ans, x, target, p, margin, weight, reduction: _multi_margin_backward(
                         g, x, target, p, margin, weight, reduction), saves=(0,), aten="multi_margin_loss")


def multi_margin_loss(input, target, p, margin, weight, reduction):
    """``torch._C._nn.multi_margin_loss``: one MultiMarginLossBackward0 node."""
    need_tensor("multi_margin_loss", "input", 1, input)
    need_tensor("multi_margin_loss", "target", 2, target)
    not_differentiable("multi_margin_loss", "weight", weight)
    _margin_input_check(input)
    nframe = 1 if input.dim() <= 1 else input.shape[0]
    dim = 1 if input.dim() == 0 else input.shape[-1]
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    x = _margin_frames(input)
    if x.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"multi_margin_loss_cpu_kernel\" not implemented for '{_scalar_type(input)}'")
    _long_target(target)
    w = None
    if weight is not None:
        if weight._data.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found {_scalar_type(weight)}")
        w = weight._data.reshape(-1)
    y = target._data.reshape(-1)
    if y.size and (y.min() < 0 or y.max() >= dim):
        raise RuntimeError("target out of range")
    loss = _quietly(_multi_margin_arrays, x, y, p, margin, w)
    out = _reduced_in_double(loss, reduction, target.dim() > 0, x.dtype)
    return record(MULTI_MARGIN, (input,), out,
                  {"target": target._data, "p": p, "margin": margin, "weight": w, "reduction": reduction})


def _is_target_arrays(y, dim):
    """1 at each class a row's targets name, up to its first -1."""
    n = y.shape[0]
    ended = np.cumsum(y < 0, axis=1) > 0
    is_target = np.zeros((n, dim), bool)
    rows, cols = np.nonzero(~ended)
    is_target[rows, y[rows, cols]] = True
    return is_target, ~ended


def _multilabel_terms(x, y, is_target, named):
    """For each row and each target class t (in order) and non-target class d: ``1 - x[t] + x[d]``."""
    n, dim = x.shape
    xt = np.take_along_axis(x, np.where(named, y, 0), 1)  # (n, targets)
    z = 1 - xt[:, :, None] + x[:, None, :]
    return np.where(named[:, :, None] & ~is_target[:, None, :] & (z > 0), z, 0).astype(x.dtype)


def _multilabel_backward(g, x, target, is_target, reduction):
    xd = _margin_frames(x)
    y = target.reshape(xd.shape)
    dim = xd.shape[1]
    named = np.cumsum(y < 0, axis=1) == 0
    scale = xd.dtype.type(1 / (xd.shape[0] * dim) if reduction == "mean" else 1 / dim)
    hit = (_multilabel_terms(xd, y, is_target.reshape(xd.shape).astype(bool), named) > 0).astype(xd.dtype) * scale
    gi = hit.sum(1)
    np.add.at(gi, (np.arange(xd.shape[0])[:, None], np.where(named, y, 0)), -hit.sum(2) * named)
    gi = _scale_by_grad(gi, g._data, reduction, target.ndim > 1)
    return _grad_edges_only(record(MULTILABEL_MARGIN_BACKWARD, (g, x), gi.reshape(x.shape).astype(xd.dtype)))


MULTILABEL_MARGIN = defop("MultilabelMarginLossBackward0",
                          lambda g, ans, x, target, is_target, reduction: _multilabel_backward(
                              g, x, target, is_target, reduction), saves=(0,), aten="multilabel_margin_loss_forward")


def multilabel_margin_loss(input, target, reduction):
    """``torch._C._nn.multilabel_margin_loss``: one MultilabelMarginLossBackward0 node."""
    need_tensor("multilabel_margin_loss", "input", 1, input)
    need_tensor("multilabel_margin_loss", "target", 2, target)
    _margin_input_check(input)
    shape, tshape = list(input.shape), list(target.shape)
    if input.dim() <= 1:
        dim = 1 if input.dim() == 0 else shape[0]
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        dim = shape[1]
        ok = target.dim() == 2 and tshape == shape
    if not ok:
        raise RuntimeError(f"inconsistent target size: {tshape} for input of size: {shape}")
    x = _margin_frames(input)
    if x.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"multilabel_margin_loss_forward_out_frame\" not implemented for "
                                  f"'{_scalar_type(input)}'")
    y = target._data.reshape(x.shape)
    # (checked before its dtype, on its extremes read as integers, as in PyTorch)
    if y.size and (int(y.min()) < -1 or int(y.max()) >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    _long_target(target)
    is_target, named = _is_target_arrays(y, dim)
    terms = _quietly(_multilabel_terms, x, y, is_target, named)
    sums = terms.astype(np.float64).sum((1, 2))  # (in double, as PyTorch accumulates)
    if reduction == "none" and target.dim() > 1:
        out = (sums / dim).astype(x.dtype)
    else:
        total = sums.sum() / dim
        out = np.asarray(total / x.shape[0] if reduction == "mean" else total, x.dtype)
    is_target = is_target.astype(x.dtype).reshape(input.shape)
    return record(MULTILABEL_MARGIN, (input,), out,
                  {"target": target._data, "is_target": is_target, "reduction": reduction})


# ----- rrelu -----

def _rrelu_backward(grad_output, x, noise, lower, upper, training):
    attrs = {"noise": noise, "lower": lower, "upper": upper, "training": training}
    if training and upper - lower > 1e-6:
        gi = grad_output._data * noise
    else:
        gi = leaky_relu_backward(grad_output, x, (lower + upper) / 2)._data
    return record(RRELU_BACKWARD, (grad_output, x), np.asarray(gi, grad_output._data.dtype), attrs)


RRELU_BACKWARD = defop("RreluWithNoiseBackwardBackward0",
                       lambda g, ans, grad_output, x, noise, lower, upper, training: _rrelu_backward(
                           g, x, noise, lower, upper, training),
                       lambda g, ans, grad_output, x, noise, lower, upper, training: _zero_grad(g), saves=(1,))
RRELU = defop("RreluWithNoiseBackward0",
              lambda g, ans, x, noise, lower, upper, training: _rrelu_backward(g, x, noise, lower, upper, training),
              saves=(0,))
# (in place, its rule reads the result, which has the input's signs)
RRELU_ = defop("RreluWithNoiseBackward1",
               lambda g, ans, x, noise, lower, upper, training: _rrelu_backward(g, ans, noise, lower, upper, training),
               saves=("result",))


def _rrelu_slopes(n, lower, upper, dt):
    """``n`` draws of PyTorch's ``uniform_real_distribution<double>(lower, upper)``, the bounds first
    rounded to the input's compute type, as its rrelu kernel passes them."""
    from ._random import default_generator

    ft = np.float64 if dt == np.float64 else np.float32
    lo, hi = float(ft(lower)), float(ft(upper))
    return default_generator._unit(n, np.dtype(np.float64)) * (hi - lo) + lo


def rrelu_with_noise(input, lower, upper, training, inplace=False):
    """``input`` where positive; elsewhere times a slope: in training one draw from U(lower, upper)
    per non-positive element, in memory order; in evaluation ``(lower + upper) / 2``. ``inplace``:
    recorded as ``rrelu_with_noise_``, whose input the result replaces."""
    need_tensor("rrelu_with_noise", "input", 1, input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for '{_scalar_type(input)}'")
    if training:
        if x.dtype == np.float16:
            raise NotImplementedError("\"rrelu_with_noise_out_cpu\" not implemented for 'Half'")
        work = np.float64 if x.dtype == np.float64 else np.float32
        flat = np.ascontiguousarray(x).reshape(-1)
        noise = np.ones(flat.shape, work)
        neg = flat <= 0
        noise[neg] = _rrelu_slopes(int(neg.sum()), lower, upper, x.dtype).astype(work)
        y = (flat.astype(work) * noise).astype(x.dtype).reshape(x.shape)
        noise = noise.astype(x.dtype).reshape(x.shape)
    else:  # (leaky_relu with their mean as slope, computed in float for half)
        noise = np.ones_like(x)
        work = np.float64 if x.dtype == np.float64 else np.float32
        y = np.where(x > 0, x, (x.astype(work) * work((lower + upper) / 2)).astype(x.dtype))
    attrs = {"noise": noise, "lower": float(lower), "upper": float(upper), "training": bool(training)}
    return record(RRELU_ if inplace else RRELU, (input,), np.asarray(y, x.dtype), attrs)


# ----- max_unpool2d -----

def _unpool_backward(g, indices):
    from ._conv import _gathered

    return _gathered(g, indices, 2)


MAX_UNPOOL2D = defop("MaxUnpool2DBackward0", lambda g, ans, x, indices: _unpool_backward(g, indices), keeps=True)


def max_unpool2d(input, indices, output_size):
    """``torch._C._nn.max_unpool2d``: zeros of (N, C, *output_size) with each ``input`` value put at
    its flat index in its plane."""
    need_tensor("max_unpool2d", "input", 1, input)
    need_tensor("max_unpool2d", "indices", 2, indices)
    idx = indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_scalar_type(indices)}")
    output_size = tuple(int(s) for s in output_size)
    if len(output_size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                           f"{x.ndim} dimensions.")
    if x.shape != idx.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(x.shape)}) but "
                           f"got indices tensor with shape: {list(idx.shape)}")
    for i in range(1, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError("max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got {list(x.shape)} with dimension {i} being empty.")
    area = output_size[0] * output_size[1]
    planes = x.reshape(-1, x.shape[-2] * x.shape[-1])
    flat = idx.reshape(planes.shape)
    bad = (flat < 0) | (flat >= area)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {flat[bad][0]} (output volumes are of size "
                           f"{output_size[0]}x{output_size[1]})")
    out = np.zeros((planes.shape[0], area), x.dtype)
    out[np.arange(planes.shape[0])[:, None], flat] = planes
    return record(MAX_UNPOOL2D, (input,), out.reshape(x.shape[:-2] + output_size), {"indices": idx})


# ----- grad_fn._saved_* -----

register_saved({
    "PixelShuffleBackward0": {"upscale_factor": _saved_attr("upscale_factor")},
    "PixelUnshuffleBackward0": {"downscale_factor": _saved_attr("downscale_factor")},
    "ChannelShuffleBackward0": {"groups": _saved_attr("groups")},
    "TrilinearBackward0": {**{name: _saved_attr(name) for name in ("expand1", "expand2", "expand3", "sumdim")},
                           "i1": _saved_slot(0), "i2": _saved_slot(1), "i3": _saved_slot(2)},
    "PdistBackward0": {"p": _saved_attr("p"), "self": _saved_slot(0), "result": _saved_slot("result")},
    "MultiMarginLossBackward0": {"margin": lambda node: float(node._attrs["margin"]), "p": _saved_attr("p"),
                                 "reduction": lambda node: _REDUCTIONS[node._attrs["reduction"]],
                                 "self": _saved_slot(0), "target": _saved_tensor_attr("target"),
                                 "weight": _saved_tensor_attr("weight")},
    "MultilabelMarginLossBackward0": {"is_target": _saved_tensor_attr("is_target", output=True),
                                      "reduction": lambda node: _REDUCTIONS[node._attrs["reduction"]],
                                      "self": _saved_slot(0), "target": _saved_tensor_attr("target")},
    "RreluWithNoiseBackward0": {"lower": _saved_attr("lower"), "upper": _saved_attr("upper"),
                                "training": _saved_attr("training"), "noise": _saved_tensor_attr("noise"),
                                "self": _saved_slot(0)},
    "RreluWithNoiseBackward1": {"lower": _saved_attr("lower"), "upper": _saved_attr("upper"),
                                "training": _saved_attr("training"), "noise": _saved_tensor_attr("noise"),
                                "result": _saved_slot("result")},
    "RreluWithNoiseBackwardBackward0": {"lower": _saved_attr("lower"), "upper": _saved_attr("upper"),
                                        "training": _saved_attr("training"), "noise": _saved_tensor_attr("noise"),
                                        "self": _saved_slot(1)},
    "MaxUnpool2DBackward0": {"indices": _saved_tensor_attr("indices")},
})
