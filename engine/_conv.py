"""Convolution, pooling and padding, each one node as PyTorch records it: ``ConvolutionBackward0``,
``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0``, ``ReflectionPad2DBackward0``, ...

The kernels are NumPy on strided windows: a window view (``as_strided``) of the padded input is
copied once into columns and multiplied (im2col + matmul), with no Python loop over pixels; writing
windows back (col2im: a transposed convolution, an input grad) loops over the kernel's offsets
only. Each backward is an op of its own (``ConvolutionBackwardBackward0``, ...) whose rules are
these ops again, so double backward works as in PyTorch.

>>> import engine as torch
>>> x = torch.ones(1, 1, 3, 3, requires_grad=True)
>>> torch.nn.functional.conv2d(x, torch.ones(1, 1, 2, 2))
tensor([[[[4., 4.],
          [4., 4.]]]], grad_fn=<ConvolutionBackward0>)
"""
import collections.abc
import itertools
import math
import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import _dtypes, _grad_mode
from ._ops import (_int64, _record_shared, _saved_attr, _saved_slot, _saved_tensor_attr, _scalar_type, _shared_rules,
                   _zero_grad, defop, gather, mean, register_saved, tensor_expected)
from ._tensor import _CPP_TYPE_NAMES, Tensor, _wrap, record

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "pad", "constant_pad_nd", "unfold", "fold"]


# ----- Arguments, as PyTorch's parser and torch.nn.modules.utils read them -----

def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(itertools.repeat(x, n))
    return parse


_single, _pair, _triple = _ntuple(1), _ntuple(2), _ntuple(3)


def _ints(v, n, fname, arg, pos):
    """An ``int[n]`` argument: an int repeated ``n`` times, or a sequence of ints as given."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),) * n
    if isinstance(v, (tuple, list)):
        for i, e in enumerate(v):
            if not isinstance(e, (int, np.integer)) or isinstance(e, bool):
                raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, but found "
                                f"element of type {type(e).__name__} at pos {i}")
        return tuple(int(e) for e in v)
    raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, not {type(v).__name__}")


def _tensor_arg(fname, arg, pos, t, optional=False):
    if t is None and optional or isinstance(t, Tensor):
        return
    raise tensor_expected(fname, arg, pos, t)


def _work_dtype(d):
    """Half is computed in float, as PyTorch's CPU kernels accumulate it."""
    return np.float32 if d.dtype == np.float16 else None


# ----- Kernels on NumPy arrays -----
# ``lead`` dims (batch, channels) come first; the spatial dims follow.

def _padded(x, lead, before, after=None, value=0):
    """``x`` with ``value`` added around its spatial dims: ``before[i]`` in front, ``after[i]`` behind."""
    after = before if after is None else after
    if not any(before) and not any(after):
        return x
    shape = x.shape[:lead] + tuple(s + b + a for s, b, a in zip(x.shape[lead:], before, after))
    out = np.full(shape, value, x.dtype)
    out[(slice(None),) * lead + tuple(slice(b, b + s) for b, s in zip(before, x.shape[lead:]))] = x
    return out


def _windows(xp, lead, kernel, stride, dilation, out):
    """The sliding windows of ``xp`` as a read-only view shaped ``lead + out + kernel``:
    ``[..., o, k] = xp[..., o * stride + k * dilation]``."""
    for size, o, k, s, d in zip(xp.shape[lead:], out, kernel, stride, dilation):
        if o and (o - 1) * s + (k - 1) * d >= size:  # (never: a view past the end would read other memory)
            raise AssertionError("window past the end of its input")
    st = xp.strides
    return as_strided(xp, xp.shape[:lead] + tuple(out) + tuple(kernel),
                      st[:lead] + tuple(a * s for a, s in zip(st[lead:], stride))
                      + tuple(a * d for a, d in zip(st[lead:], dilation)), writeable=False)


def _add_windows(buf, lead, kernel, stride, dilation, out, part):
    """``buf[..., o * stride + k * dilation] += part(k)[..., o]`` for each kernel offset ``k``: what
    ``_windows`` reads, written back (col2im). One strided add per offset, none per pixel."""
    head = (slice(None),) * lead
    for k in np.ndindex(*kernel):
        buf[head + tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                         for i, d, s, o in zip(k, dilation, stride, out))] += part(k)


def _cropped(buf, lead, before, size):
    """The ``size`` spatial elements of ``buf`` after ``before`` (a padded buffer's inside)."""
    if not any(before) and buf.shape[lead:] == tuple(size):
        return buf
    return np.ascontiguousarray(buf[(slice(None),) * lead + tuple(slice(b, b + s) for b, s in zip(before, size))])


def _conv_forward(x, w, stride, padding, dilation, groups):
    """``x`` (N, C, *S) with ``w`` (O, C / groups, *K): (N, O, *out), one matmul per sample and group."""
    n, c = x.shape[:2]
    o, kernel = w.shape[0], w.shape[2:]
    nd = len(kernel)
    xp = _padded(x, 2, padding)
    out = tuple((xp.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(nd))
    win = _windows(xp, 2, kernel, stride, dilation, out).reshape((n, groups, c // groups) + out + kernel)
    cols = win.transpose((0, 1, 2) + tuple(range(3 + nd, 3 + 2 * nd)) + tuple(range(3, 3 + nd)))
    cols = cols.reshape(n, groups, c // groups * math.prod(kernel), math.prod(out))
    y = np.matmul(w.reshape(groups, o // groups, cols.shape[2]), cols)
    return y.reshape((n, o) + out)


def _conv_transpose_forward(x, w, stride, padding, dilation, groups, size):
    """The transposed convolution (an input's grad): ``x`` (N, Ci, *L) with ``w`` (Ci, Co / groups, *K)
    gives (N, Co, *size); each input element adds its kernel-weighted window to the output."""
    n, ci = x.shape[:2]
    length, (cog, *kernel) = x.shape[2:], w.shape[1:]
    kernel = tuple(kernel)
    w3 = w.reshape(groups, ci // groups, cog * math.prod(kernel)).transpose(0, 2, 1)
    cols = np.matmul(w3, x.reshape(n, groups, ci // groups, math.prod(length)))
    cols = cols.reshape((n, groups * cog) + kernel + length)
    buf = np.zeros((n, groups * cog) + tuple(s + 2 * p for s, p in zip(size, padding)), cols.dtype)
    _add_windows(buf, 2, kernel, stride, dilation, length, lambda k: cols[(slice(None), slice(None)) + k])
    return _cropped(buf, 2, padding, size)


def _conv_weight_grad(x, g, kernel, stride, padding, dilation, groups):
    """The weight grad of ``conv(x, w)`` given the output grad ``g``: one matmul per group, over the
    batch and the output positions at once."""
    n, c = x.shape[:2]
    o, out = g.shape[1], g.shape[2:]
    nd, ll = len(kernel), math.prod(out)
    win = _windows(_padded(x, 2, padding), 2, kernel, stride, dilation, out)
    win = win.reshape((n, groups, c // groups) + out + kernel)
    cols = win.transpose((1, 2) + tuple(range(3 + nd, 3 + 2 * nd)) + (0,) + tuple(range(3, 3 + nd)))
    cols = cols.reshape(groups, c // groups * math.prod(kernel), n * ll)
    g3 = g.reshape(n, groups, o // groups, ll).transpose(1, 2, 0, 3).reshape(groups, o // groups, n * ll)
    return np.matmul(g3, cols.transpose(0, 2, 1)).reshape((o, c // groups) + tuple(kernel))


def _conv_backward_arrays(g, x, w, stride, padding, dilation, transposed, groups, mask):
    """The grads of input, weight and bias that ``mask`` asks for (None for the others)."""
    work = _work_dtype(g)
    if work is not None:
        grads = _conv_backward_arrays(g.astype(work), x.astype(work), w.astype(work), stride, padding, dilation,
                                      transposed, groups, mask)
        return tuple(None if r is None else r.astype(np.float16) for r in grads)
    gi = gw = gb = None
    if mask[0]:
        if transposed:
            gi = _conv_forward(g, w, stride, padding, dilation, groups)
            gi = _cropped(gi, 2, (0,) * len(stride), x.shape[2:])  # (longer when output_padding >= stride)
        else:
            gi = _conv_transpose_forward(g, w, stride, padding, dilation, groups, x.shape[2:])
    if mask[1]:
        gw = (_conv_weight_grad(g, x, w.shape[2:], stride, padding, dilation, groups) if transposed
              else _conv_weight_grad(x, g, w.shape[2:], stride, padding, dilation, groups))
    if mask[2]:
        gb = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
    return gi, gw, gb


# ----- convolution and its backward, ops of their own -----
# Their nodes keep stride, padding, dilation and output_padding as given (``_saved_stride`` shows
# ``(1,)`` where one value stands for every dim, as PyTorch's does); ``_params`` expands them.

_PARAMS = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")


def _params(attrs, nd):
    """stride, padding, dilation and output_padding, one value per spatial dim."""
    return tuple(v * nd if len(v) == 1 else v for v in (attrs["stride"], attrs["padding"], attrs["dilation"],
                                                        attrs["output_padding"]))


def _given(attrs):
    return {k: attrs[k] for k in _PARAMS}


def _conv_grads(g, input, weight, bias, **attrs):
    """``(grad_input, grad_weight, grad_bias)``, computed at once as PyTorch does (see _shared_rules): a
    double backward is then one ConvolutionBackwardBackward0 node with three outputs."""
    mask = attrs["output_mask"]
    if _grad_mode._enabled or _grad_mode._fw_active:
        return convolution_backward(g, input, weight, mask=mask, **_given(attrs))
    stride, padding, dilation, _ = _params(attrs, weight.dim() - 2)  # (a first backward: no node)
    grads = _conv_backward_arrays(g._data, input._data, weight._data, stride, padding, dilation, attrs["transposed"],
                                  attrs["groups"], mask)
    return tuple(None if r is None else _wrap(r) for r in grads)


CONV = defop("ConvolutionBackward0", *_shared_rules(3, _conv_grads), saves=(0, 1))


def _ggO(gs, grad_output, input, weight, attrs):
    """The grad of ``grad_output``: the convolution again, of the grads' grads (PyTorch's
    ``_convolution_double_backward``)."""
    ggI, ggW, ggb = gs
    r = None
    if ggI is not None:
        r = _convolution(ggI, weight, None, **_given(attrs))
    if ggW is not None:
        t = _convolution(input, ggW, None, **_given(attrs))
        r = t if r is None else r + t
    if ggb is not None:
        t = ggb.reshape((1, -1) + (1,) * (grad_output.dim() - 2))
        r = t.expand(tuple(grad_output.shape)) if r is None else r + t
    return r


def _ggI_input(gs, grad_output, input, weight, attrs):
    """The grad of ``input`` through the weight's grad: the input grad of ``conv(input, ggW)``, a
    convolution of the other kind."""
    ggW = gs[1]
    if ggW is None:
        return None
    stride, padding, dilation, _ = _params(attrs, weight.dim() - 2)
    groups, size = attrs["groups"], tuple(input.shape[2:])
    if attrs["transposed"]:
        r = _convolution(grad_output, ggW, None, stride, padding, dilation, False, (0,), groups)
        for d, n in enumerate(size):
            if r.shape[2 + d] != n:  # (longer when output_padding >= stride)
                r = r.narrow(2 + d, 0, n)
        return r
    out_pad = tuple(n + 2 * p - ((o - 1) * s + d * (k - 1) + 1) for n, p, o, s, d, k in zip(
        size, padding, grad_output.shape[2:], stride, dilation, ggW.shape[2:]))
    return _convolution(grad_output, ggW, None, stride, padding, dilation, True, out_pad, groups)


def _ggW_weight(gs, grad_output, weight, attrs):
    """The grad of ``weight`` through the input's grad: the weight grad of ``conv(ggI, weight)``."""
    ggI = gs[0]
    if ggI is None:
        return None
    return convolution_backward(grad_output, ggI, weight.detach(), mask=(False, True, False), **_given(attrs))[1]


CONV_BACKWARD = defop(
    "ConvolutionBackwardBackward0",
    lambda gs, ans, grad_output, input, weight, **attrs: _ggO(gs, grad_output, input, weight, attrs),
    lambda gs, ans, grad_output, input, weight, **attrs: _ggI_input(gs, grad_output, input, weight, attrs),
    lambda gs, ans, grad_output, input, weight, **attrs: _ggW_weight(gs, grad_output, weight, attrs),
    saves=(0, 1, 2), outputs=(0, 1, 2))


def convolution_backward(grad_output, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                         mask):
    """``(grad_input, grad_weight, grad_bias)`` of a convolution, None where ``mask`` says not needed
    (``ConvolutionBackwardBackward0``)."""
    attrs = {"stride": stride, "padding": padding, "dilation": dilation, "transposed": transposed,
             "output_padding": output_padding, "groups": groups}
    stride, padding, dilation, _ = _params(attrs, weight.dim() - 2)
    g = grad_output._data
    grads = _conv_backward_arrays(g, input._data, weight._data, stride, padding, dilation, transposed, groups, mask)
    placeholder = np.empty(0, g.dtype)  # (an output not asked for: PyTorch's undefined tensor, never seen)
    outs = record(CONV_BACKWARD, (grad_output, input, weight), tuple(placeholder if r is None else r for r in grads),
                  attrs, n_outputs=3)
    return tuple(o if m else None for o, m in zip(outs, mask))


def _expand_param(v, name, nd):
    if len(v) == 1:
        return v * nd
    if len(v) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} values to match the "
                           f"convolution dimensions, but got {name}={list(v)}")
    return tuple(v)


def _check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's checks of ``_convolution``, in its order, with its messages."""
    k = weight.dim()
    x, ws = input._data, list(weight.shape)
    if k < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if x.ndim != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight {ws}, but got "
                           f"{x.ndim}-dimensional input of size {list(x.shape)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    b = None if bias is None else list(bias.shape)
    if not transposed:
        if x.shape[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{list(x.shape)} to have "
                               f"{ws[1] * groups} channels, but got {x.shape[1]} channels instead")
        if b is not None and b != [ws[0]]:
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with {ws[0]} elements, "
                               f"but got bias of size {b} instead")
        padded = [s + 2 * p for s, p in zip(x.shape[2:], padding)]
        kernel = [d * (n - 1) + 1 for d, n in zip(dilation, ws[2:])]
        if any(s < n for s, n in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                               "input size")
    else:
        if x.shape[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{list(x.shape)} to have "
                               f"{ws[0]} channels, but got {x.shape[1]} channels instead")
        if b is not None and b != [ws[1] * groups]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                               f"{ws[1] * groups} elements, but got bias of size {b} instead")
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            axes = ("height", "width") if len(stride) == 2 else ("depth", "height", "width")[-len(stride):]
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                + " ".join(f"output_padding_{a}: {v}" for a, v in zip(axes, output_padding)) + " "
                + " ".join(f"stride_{a}: {v}" for a, v in zip(axes, stride)) + " "
                + " ".join(f"dilation_{a}: {v}" for a, v in zip(axes, dilation)))
    if any(d == 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    dt, wt = x.dtype, weight._data.dtype
    if bias is not None and bias._data.dtype != dt:
        raise RuntimeError(f"Input type ({_CPP_TYPE_NAMES[dt.name]}) and bias type ({_CPP_TYPE_NAMES[bias._data.dtype.name]}) "
                           "should be the same")
    if wt != dt:
        if dt == np.float32:
            legacy = _dtypes.from_numpy_dtype
            raise RuntimeError(f"Input type (torch.{legacy(dt)._legacy}) and weight type (torch.{legacy(wt)._legacy}) "
                               "should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found {_scalar_type(weight)}")
    if dt == np.bool_:
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
                 bias_sizes=None):
    """``torch.convolution``: every conv and transposed conv is this op (``ConvolutionBackward0``)."""
    given = {"stride": tuple(stride), "padding": tuple(padding), "dilation": tuple(dilation),
             "transposed": bool(transposed), "output_padding": tuple(output_padding), "groups": groups}
    nd = weight.dim() - 2
    if nd > 0:
        stride, padding, dilation, output_padding = (_expand_param(given[name], name, nd) for name in (
            "stride", "padding", "dilation", "output_padding"))
    _check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    x, w = input._data, weight._data
    work = _work_dtype(x)
    xw, ww = (x, w) if work is None else (x.astype(work), w.astype(work))
    if transposed:
        size = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 + op for n, s, p, d, k, op in zip(
            x.shape[2:], stride, padding, dilation, w.shape[2:], output_padding))
        if any(s <= 0 for s in size):
            lift = (1,) if nd == 1 else ()  # (PyTorch computes a 1-d one as 2-d)
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, lift + x.shape[2:]))}). "
                               f"Calculated output size per channel: ({' x '.join(map(str, lift + size))}). Output "
                               "size is too small")
        y = _conv_transpose_forward(xw, ww, stride, padding, dilation, groups, size)
    else:
        y = _conv_forward(xw, ww, stride, padding, dilation, groups)
    if bias is not None:
        y += bias._data.reshape((1, -1) + (1,) * nd).astype(y.dtype, copy=False)
    if work is not None:
        y = y.astype(x.dtype)
    mask = tuple(isinstance(t, Tensor) and t._requires_grad for t in (input, weight, bias))
    return _record_shared(CONV, (input, weight, bias), y, {**given, "bias_sizes": bias_sizes, "output_mask": mask})


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: the op every ``conv*d`` and ``conv_transpose*d`` records."""
    for pos, (name, t) in enumerate((("input", input), ("weight", weight)), 1):
        _tensor_arg("convolution", name, pos, t)
    return _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
                        None if bias is None else tuple(bias.shape))


# ----- F.conv1d/2d/3d and conv_transpose1d/2d/3d -----

_warned_same = False


def _conv_same(input, weight, bias, stride, dilation, groups, bias_sizes):
    """``padding='same'``: PyTorch's ``_convolution_same``, zero-padding the input first (a
    ``ConstantPadNdBackward0``) when a dim needs one more on its right than on its left."""
    global _warned_same
    k = weight.dim()
    if k < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    nd = k - 2
    if input.dim() != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{list(weight.shape)}, but got "
                           f"{input.dim()}-dimensional input of size {list(input.shape)} instead")
    for name, v in (("stride", stride), ("dilation", dilation)):
        if len(v) not in (1, nd):
            raise RuntimeError(f"{name} cannot broadcast to {nd} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = dilation * nd if len(dilation) == 1 else dilation
    left, right = [], []
    for d, n in zip(dilation, weight.shape[2:]):
        total = d * (n - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left != right:
        if not _warned_same:
            _warned_same = True  # TORCH_WARN_ONCE: once per process
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created (Triggered internally at "
                          "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)", UserWarning, stacklevel=4)
        pads = [0] * (2 * nd)
        for i in range(nd):
            pads[2 * (nd - 1 - i) + 1] = right[i] - left[i]
        input = constant_pad_nd(input, pads, 0)
    return _convolution(input, weight, bias, stride, tuple(left), dilation, False, (0,) * nd, groups, bias_sizes)


def _batched(nd, fname, input, weight, bias, conv):
    """``conv(input)`` on a batch: an unbatched input gets a batch dim of 1, taken off again."""
    _tensor_arg(fname, "input", 1, input)
    _tensor_arg(fname, "weight", 2, weight)
    _tensor_arg(fname, "bias", 3, bias, optional=True)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fname}, but got input "
                           f"of size: {list(input.shape)}")
    if input.dim() == nd + 2:
        return conv(input)
    return conv(input.unsqueeze(0)).squeeze(0)


def _conv_nd(nd, fname, input, weight, bias, stride, padding, dilation, groups):
    stride, dilation = _ints(stride, nd, fname, "stride", 4), _ints(dilation, nd, fname, "dilation", 6)
    if not isinstance(padding, str):
        padding = _ints(padding, nd, fname, "padding", 5)
    bias_sizes = (0,) if bias is None else tuple(bias.shape)

    def conv(x):
        if padding == "same":
            return _conv_same(x, weight, bias, stride, dilation, groups, bias_sizes)
        if padding == "valid":  # (PyTorch passes {0} as padding and output_padding: its nodes show (0,))
            return _convolution(x, weight, bias, stride, (0,), dilation, False, (0,), groups, bias_sizes)
        if isinstance(padding, str):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        return _convolution(x, weight, bias, stride, padding, dilation, False, (0,) * nd, groups, bias_sizes)
    return _batched(nd, fname, input, weight, bias, conv)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""1-D convolution (cross-correlation) of ``input`` (N, C, L) or (C, L) with ``weight``
    (out_channels, C / groups, kW); ``padding`` may also be ``'valid'`` or ``'same'``.

    >>> F.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2))
    tensor([[[2., 2., 2.]]])
    """
    return _conv_nd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""2-D convolution of ``input`` (N, C, H, W) or (C, H, W) with ``weight``
    (out_channels, C / groups, kH, kW); ``padding`` may also be ``'valid'`` or ``'same'``.

    >>> F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(2, 1, 2, 2)).shape
    torch.Size([1, 2, 2, 2])
    """
    return _conv_nd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""3-D convolution of ``input`` (N, C, D, H, W) or (C, D, H, W) with ``weight``
    (out_channels, C / groups, kD, kH, kW)."""
    return _conv_nd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose_nd(nd, fname, input, weight, bias, stride, padding, output_padding, groups, dilation):
    stride, padding, output_padding, dilation = (_ints(v, nd, fname, name, pos) for v, name, pos in (
        (stride, "stride", 4), (padding, "padding", 5), (output_padding, "output_padding", 6),
        (dilation, "dilation", 8)))
    return _batched(nd, fname, input, weight, bias, lambda x: _convolution(
        x, weight, bias, stride, padding, dilation, True, output_padding, groups,
        (0,) if bias is None else tuple(bias.shape)))


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    r"""1-D transposed convolution ("deconvolution") of ``input`` (N, C, L) with ``weight``
    (C, out_channels / groups, kW): the input grad of ``conv1d``."""
    return _conv_transpose_nd(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    r"""2-D transposed convolution of ``input`` (N, C, H, W) with ``weight`` (C, out_channels / groups, kH, kW).

    >>> F.conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2))
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    return _conv_transpose_nd(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    r"""3-D transposed convolution of ``input`` (N, C, D, H, W) with ``weight``
    (C, out_channels / groups, kD, kH, kW)."""
    return _conv_transpose_nd(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


# ----- Pooling: the kernels -----
# They see ``x`` as (planes, *spatial): every leading dim (batch, channels) flattened into one.

def _pool_out(size, k, p, s, d, ceil_mode):
    """PyTorch's ``pooling_output_shape``: with ``ceil_mode``, a last window must start inside the
    input or its left padding."""
    n = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (n - 1) * s >= size + p:
        n -= 1
    return n


def _planes(x, nd):
    return x.reshape((math.prod(x.shape[:-nd]),) + x.shape[-nd:])


def _last_nan_or_first_max(win):
    """The argmax over the last axis as PyTorch's kernels scan (``val > max || isnan(val)``): the
    first maximum, or the last nan when there is one."""
    idx = win.argmax(-1)
    if win.dtype.kind == "f":
        nan = np.isnan(win)
        if nan.any():
            idx = np.where(nan.any(-1), win.shape[-1] - 1 - nan[..., ::-1].argmax(-1), idx)
    return idx


def _max_pool_arrays(x, kernel, stride, padding, dilation, out):
    """(maxima, the flat index of each in its input plane) of ``x`` (planes, *spatial)."""
    nd, size = len(kernel), x.shape[1:]
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    after = [max(0, (o - 1) * s + (k - 1) * d + 1 - n - p)
             for o, s, k, d, n, p in zip(out, stride, kernel, dilation, size, padding)]
    win = _windows(_padded(x, 1, padding, after, fill), 1, kernel, stride, dilation, out)
    win = win.reshape((x.shape[0],) + out + (math.prod(kernel),))
    idx = _last_nan_or_first_max(win)
    values = np.take_along_axis(win, idx[..., None], -1)[..., 0]
    offsets = np.unravel_index(idx, kernel)
    lowest = values == fill  # nothing above the fill: PyTorch keeps the window's first element inside the input
    lowest = lowest if lowest.any() else None
    flat = 0
    for i in range(nd):
        o = np.arange(out[i]).reshape((-1,) + (1,) * (nd - 1 - i))
        k = offsets[i]
        if lowest is not None:
            k = np.where(lowest, np.maximum(0, -((o * stride[i] - padding[i]) // dilation[i])), k)
        flat = flat * size[i] + o * stride[i] - padding[i] + k * dilation[i]
    return values, np.asarray(flat, np.int64)


def _scatter_back(g, indices, shape, nd):
    """An input's grad: ``g`` added where ``indices`` point in each plane (the maxima's places)."""
    planes, area = math.prod(shape[:-nd]), math.prod(shape[-nd:])
    g = g.reshape(-1)
    if indices.size and indices.max() >= area:
        # A dilated window with ceil_mode can hold no input element; PyTorch's index then points past
        # the plane (and its backward writes out of bounds). Its grad goes nowhere here.
        g = np.where(indices.reshape(-1) < area, g, 0)
        indices = np.minimum(indices, area - 1)
    flat = indices.reshape(planes, -1) + np.arange(planes).reshape(-1, 1) * area
    # (intp: 32 bits in Pyodide, where bincount refuses int64)
    return np.bincount(flat.reshape(-1).astype(np.intp), g, planes * area).astype(g.dtype).reshape(shape)


def _avg_divisors(size, kernel, stride, padding, out, count_include_pad, divisor_override):
    """Each window's divisor: its size (clipped to the padded input), or with ``count_include_pad``
    off the part inside the input, or ``divisor_override``."""
    if divisor_override is not None:
        return divisor_override
    div = np.ones((), np.int64)
    for n, k, s, p, o in zip(size, kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        part = end - start if count_include_pad else np.minimum(end, n) - np.maximum(start, 0)
        div = np.multiply.outer(div, part)
    return div


def _avg_pool_arrays(x, kernel, stride, padding, out, count_include_pad, divisor_override):
    nd = len(kernel)
    after = [max(0, (o - 1) * s + k - n - p) for o, s, k, n, p in zip(out, stride, kernel, x.shape[1:], padding)]
    work = np.float32 if x.dtype == np.float16 else x.dtype
    win = _windows(_padded(x.astype(work, copy=False), 1, padding, after), 1, kernel, stride, (1,) * nd, out)
    sums = win.sum(axis=tuple(range(1 + nd, 1 + 2 * nd)))
    div = _avg_divisors(x.shape[1:], kernel, stride, padding, out, count_include_pad, divisor_override)
    if sums.dtype.kind != "f":  # integer division, truncated as C truncates
        q = np.abs(sums) // np.abs(div)
        return np.where((sums < 0) != (np.asarray(div) < 0), -q, q).astype(x.dtype)
    return (sums / np.asarray(div, work)).astype(x.dtype, copy=False)


def _avg_pool_backward_arrays(g, size, kernel, stride, padding, count_include_pad, divisor_override):
    nd, out = len(kernel), g.shape[1:]
    part = g / np.asarray(_avg_divisors(size, kernel, stride, padding, out, count_include_pad, divisor_override),
                          g.dtype)
    buf = np.zeros(g.shape[:1] + tuple(max(n + 2 * p, (o - 1) * s + k) for n, p, o, s, k in zip(
        size, padding, out, stride, kernel)), g.dtype)
    _add_windows(buf, 1, kernel, stride, (1,) * nd, out, lambda k: part)
    return _cropped(buf, 1, padding, size)


def _adaptive_bounds(size, out):
    o = np.arange(out)
    return o * size // out, ((o + 1) * size + out - 1) // out


def _adaptive_sums(size, out, dt):
    """The (out, size) 0/1 matrix of which inputs each adaptive window holds, and the windows' sizes."""
    start, end = _adaptive_bounds(size, out)
    i = np.arange(size)
    return ((i >= start[:, None]) & (i < end[:, None])).astype(dt), end - start


def _adaptive_avg_arrays(x, out):
    """Adaptive average pooling of ``x`` (planes, *spatial): a 0/1 matmul per spatial dim, then
    each window's sum over its size."""
    if x.dtype == np.float16:
        return _adaptive_avg_arrays(x.astype(np.float32), out).astype(np.float16)
    y, div = x, np.ones((), x.dtype)
    for i, (n, o) in enumerate(zip(x.shape[1:], out)):
        m, count = _adaptive_sums(n, o, x.dtype)
        y = np.moveaxis(np.tensordot(y, m.T, axes=([1 + i], [0])), -1, 1 + i)
        div = np.multiply.outer(div, count.astype(x.dtype))
    return np.ascontiguousarray(y / div)


def _adaptive_avg_backward_arrays(g, size):
    """Each window's grad over its size, spread back over the window."""
    if g.dtype == np.float16:
        return _adaptive_avg_backward_arrays(g.astype(np.float32), size).astype(np.float16)
    div = np.ones((), g.dtype)
    sums = []
    for n, o in zip(size, g.shape[1:]):
        m, count = _adaptive_sums(n, o, g.dtype)
        sums.append(m)
        div = np.multiply.outer(div, count.astype(g.dtype))
    y = g / div
    for i, m in enumerate(sums):
        y = np.moveaxis(np.tensordot(y, m, axes=([1 + i], [0])), -1, 1 + i)
    return np.ascontiguousarray(y)


def _adaptive_max_arrays(x, out):
    """(maxima, flat plane indices) of adaptive max pooling: every window gathered at once, the
    short ones padded with their last element (it comes after the original, so argmax is unchanged)."""
    nd, size = len(out), x.shape[1:]
    picks, lengths = [], []
    for n, o in zip(size, out):
        start, end = _adaptive_bounds(n, o)
        length = int((end - start).max()) if o else 1
        picks.append(np.minimum(start[:, None] + np.arange(length), end[:, None] - 1))
        lengths.append(length)
    index = tuple(p.reshape((1,) * (2 * i) + p.shape + (1,) * (2 * (nd - 1 - i))) for i, p in enumerate(picks))
    win = x[(slice(None),) + index]  # (planes, o1, l1, o2, l2, ...)
    win = win.transpose((0,) + tuple(range(1, 2 * nd, 2)) + tuple(range(2, 2 * nd + 1, 2)))
    win = win.reshape((x.shape[0],) + tuple(out) + (math.prod(lengths),))
    idx = _last_nan_or_first_max(win)
    values = np.take_along_axis(win, idx[..., None], -1)[..., 0]
    flat = 0
    for i, l in enumerate(np.unravel_index(idx, lengths)):
        o = np.arange(out[i]).reshape((-1,) + (1,) * (nd - 1 - i))
        flat = flat * size[i] + picks[i][o, l]
    return values, np.asarray(flat, np.int64)


# ----- Pooling: the ops (one per spatial rank; 1-d pooling is the 2-d op on an unsqueezed input) -----

def _gathered(g, indices, nd):
    """``g`` read where ``indices`` point in each plane: PyTorch's ``max_pool_double_backward``."""
    flat = _wrap(indices.reshape(indices.shape[:-nd] + (-1,)))
    return gather(g.flatten(-nd), -1, flat).view(indices.shape)


def _index_pool_backward(op, nd, g, x, indices):
    """The input grad of a max pooling (``indices``: where each maximum came from)."""
    return record(op, (g, x), _scatter_back(g._data, indices, tuple(x.shape), nd), {"indices": indices})


def _pool_ops(nd):
    """The forward and backward ops of the ``nd``-d poolings."""
    ops = {}
    ops["max_back"] = defop(f"MaxPool{nd}DWithIndicesBackwardBackward0",
                            lambda gg, ans, grad_output, x, indices: _gathered(gg, indices, nd),
                            lambda gg, ans, grad_output, x, indices: _zero_grad(gg), keeps=True)
    ops["max"] = defop(f"MaxPool{nd}DWithIndicesBackward0",
                       lambda g, ans, x, indices, **attrs: _index_pool_backward(ops["max_back"], nd, g, x, indices),
                       saves=(0,))
    ops["avg_back"] = defop(f"AvgPool{nd}DBackwardBackward0",
                            lambda gg, ans, grad_output, x, **attrs: _avg_pool(nd, gg, **attrs),
                            lambda gg, ans, grad_output, x, **attrs: _zero_grad(gg))
    ops["avg"] = defop(f"AvgPool{nd}DBackward0", lambda g, ans, x, **attrs: _avg_pool_backward(nd, g, x, attrs),
                       saves=(0,))
    ops["adaptive_avg_back"] = defop(f"AdaptiveAvgPool{nd}DBackwardBackward0",
                                     lambda gg, ans, grad_output, x, output_size: _adaptive_avg(nd, gg, output_size),
                                     lambda gg, ans, grad_output, x, output_size: _zero_grad(gg))
    ops["adaptive_avg"] = defop(f"AdaptiveAvgPool{nd}DBackward0",
                                lambda g, ans, x: _adaptive_avg_backward(nd, g, x), saves=(0,))
    ops["adaptive_max_back"] = defop(f"AdaptiveMaxPool{nd}DBackwardBackward0",
                                     lambda gg, ans, grad_output, x, indices: _gathered(gg, indices, nd),
                                     lambda gg, ans, grad_output, x, indices: _zero_grad(gg), keeps=True)
    ops["adaptive_max"] = defop(f"AdaptiveMaxPool{nd}DBackward0",
                                lambda g, ans, x, indices: _index_pool_backward(ops["adaptive_max_back"], nd, g, x,
                                                                                indices),
                                saves=(0,))
    return ops


_POOL = {nd: _pool_ops(nd) for nd in (2, 3)}


def _cdiv(a, b):
    return int(a / b)  # C's division, truncated toward zero


def _pool_params(nd, fname, kernel_size, stride, padding, dilation=None):
    """kernel, stride, padding (and dilation) as ``nd``-tuples, after PyTorch's checks of their lengths."""
    ints = "two" if nd == 2 else "three"

    def full(v, what, may_omit=False):
        if len(v) == 1:
            return v * nd
        if len(v) != nd and not (may_omit and not v):
            raise RuntimeError(f"{fname}: {what} a tuple of {ints} ints")
        return v
    kernel = full(kernel_size, "kernel_size must either be a single int, or")
    stride = full(stride, "stride must either be omitted, a single int, or", True) or kernel
    padding = full(padding, "padding must either be a single int, or")
    if dilation is None:
        return kernel, stride, padding, (1,) * nd
    return kernel, stride, padding, full(dilation, "dilation must be either a single int, or")


def _pool_shape(x, nd, kernel, stride, padding, dilation, ceil_mode):
    """The output's spatial size, after ``pooling_output_shape``'s and ``pool2d_shape_check``'s checks."""
    out = []
    for size, k, p, s, d in zip(x.shape[-nd:], kernel, padding, stride, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _cdiv((k - 1) * d + 1, 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
        out.append(_pool_out(size, k, p, s, d, ceil_mode))
    names = ("T", "H", "W")[-nd:]
    for what, prefix, values in (("kernel size", "k", kernel), ("stride", "d", stride),
                                 ("dilation", "dilation", dilation)):
        if any(v <= 0 for v in values):
            raise RuntimeError(f"{what} should be greater than zero, but got "
                               + " ".join(f"{prefix}{n}: {v}" for n, v in zip(names, values)))
    if x.ndim not in (nd + 1, nd + 2) or 0 in x.shape[-nd - 1:] or x.ndim == nd + 1 and x.shape[0] == 0:
        raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(x.shape)}")
    if any(k // 2 < p for k, p in zip(kernel, padding)):  # (the kernel without its dilation, unlike the check above)
        if nd == 2:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = "
                               f"{padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {kernel[0]} kW: "
                           f"{kernel[2]} kH: {kernel[1]} padT: {padding[0]} padW: {padding[2]} padH: {padding[1]}")
    if any(o < 1 for o in out):
        plane = x.shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (plane,) + x.shape[-nd:]))}). Calculated output "
                           f"size: ({'x'.join(map(str, [plane] + out))}). Output size is too small")
    return tuple(out)


def _not_for(x, fname, kinds):
    if x._data.dtype.kind not in kinds:
        raise NotImplementedError(f"\"{fname}\" not implemented for '{_scalar_type(x)}'")


def _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool2d_with_indices`` (``nd`` = 2) and ``max_pool3d_with_indices``: (maxima, indices)."""
    fname = f"max_pool{nd}d"
    kernel, stride_, padding_, dilation_ = _pool_params(nd, fname, kernel_size, stride, padding, dilation)
    x = input._data
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    out = _pool_shape(x, nd, kernel, stride_, padding_, dilation_, ceil_mode)
    _not_for(input, fname, "fiu")
    values, indices = _max_pool_arrays(_planes(x, nd), kernel, stride_, padding_, dilation_, out)
    shape = x.shape[:-nd] + out
    values, indices = values.reshape(shape), indices.reshape(shape)
    result = record(_POOL[nd]["max"], (input,), values,
                    {"kernel_size": kernel_size, "stride": stride, "padding": padding, "dilation": dilation,
                     "ceil_mode": ceil_mode, "indices": indices})
    return result, _wrap(indices)


def _avg_pool(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """``avg_pool2d`` (``nd`` = 2) and ``avg_pool3d``, their arguments as PyTorch keeps them."""
    fname = f"avg_pool{nd}d"
    kernel, stride_, padding_, _ = _pool_params(nd, fname, kernel_size, stride, padding)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x = input._data
    if x.ndim < nd + 1:
        n = max(x.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {-nd - 1})")
    out = _pool_shape(x, nd, kernel, stride_, padding_, (1,) * nd, ceil_mode)
    if x.dtype != np.int64:
        _not_for(input, fname, "f")
    y = _avg_pool_arrays(_planes(x, nd), kernel, stride_, padding_, out, count_include_pad, divisor_override)
    return record(_POOL[nd]["avg"], (input,), y.reshape(x.shape[:-nd] + out),
                  {"kernel_size": kernel_size, "stride": stride, "padding": padding, "ceil_mode": ceil_mode,
                   "count_include_pad": count_include_pad, "divisor_override": divisor_override})


def _avg_pool_backward(nd, g, x, attrs):
    kernel, stride, padding, _ = _pool_params(nd, "", attrs["kernel_size"], attrs["stride"], attrs["padding"])
    size = tuple(x.shape[-nd:])
    gi = _avg_pool_backward_arrays(_planes(g._data, nd), size, kernel, stride, padding, attrs["count_include_pad"],
                                   attrs["divisor_override"])
    return record(_POOL[nd]["avg_back"], (g, x), gi.reshape(tuple(x.shape)), attrs)


def _adaptive_check(x, nd, fname, colon=""):
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{colon} {list(x.shape)}")


def _adaptive_avg(nd, input, output_size):
    """``_adaptive_avg_pool2d``: ``AdaptiveAvgPool2DBackward0``."""
    x = input._data
    fname = f"adaptive_avg_pool{nd}d"
    _adaptive_check(x, nd, fname)
    for i in range(-nd, 0):
        if x.shape[i] <= 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(x.shape)} with dimension {i + x.ndim} being empty")
    _not_for(input, fname, "f")
    y = _adaptive_avg_arrays(_planes(x, nd), output_size)
    return record(_POOL[nd]["adaptive_avg"], (input,), y.reshape(x.shape[:-nd] + tuple(output_size)))


def _adaptive_avg_backward(nd, g, x):
    size = tuple(x.shape[-nd:])
    gi = _adaptive_avg_backward_arrays(_planes(g._data, nd), size).reshape(tuple(x.shape))
    return record(_POOL[nd]["adaptive_avg_back"], (g, x), gi, {"output_size": tuple(g.shape[-nd:])})


def _adaptive_max(nd, input, output_size):
    """``adaptive_max_pool2d``: (maxima, indices), ``AdaptiveMaxPool2DBackward0``."""
    x = input._data
    fname = f"adaptive_max_pool{nd}d"
    _adaptive_check(x, nd, fname, ":")
    for i in range(1, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(x.shape)} with dimension {i} being empty")
    if any(o < 0 for o in output_size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(output_size)}: "
                           f"{list(x.shape[:-nd] + tuple(output_size))}")
    _not_for(input, fname, "f")
    values, indices = _adaptive_max_arrays(_planes(x, nd), tuple(output_size))
    shape = x.shape[:-nd] + tuple(output_size)
    values, indices = values.reshape(shape), indices.reshape(shape)
    return record(_POOL[nd]["adaptive_max"], (input,), values, {"indices": indices}), _wrap(indices)


# ----- Pooling: torch.nn.functional -----

def _check_dim_range(input, lo, hi, fname):
    if not lo <= input.dim() < hi:
        raise RuntimeError(f"Expected {lo} to {hi - 1} dimensions, but got {input.dim()}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for {fname})")


def _check_1d(fname, arg, v):
    if len(v) != 1:
        raise RuntimeError(f"{fname}() argument '{arg}' should contain one int (got {len(v)})")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``max_pool2d`` that returns (maxima, indices): each index is the maximum's place in its
    input plane (row * width + column)."""
    _tensor_arg("max_pool2d_with_indices", "input", 1, input)
    return _max_pool(2, input, _ints(kernel_size, 2, "max_pool2d_with_indices", "kernel_size", 2),
                     () if stride is None else _ints(stride, 2, "max_pool2d_with_indices", "stride", 3),
                     _ints(padding, 2, "max_pool2d_with_indices", "padding", 4),
                     _ints(dilation, 2, "max_pool2d_with_indices", "dilation", 5), ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r"""2-D max pooling over ``input`` (N, C, H, W) or (C, H, W); ``stride`` defaults to ``kernel_size``.
    With ``return_indices``, also the maxima's places (``MaxPool2DWithIndicesBackward0`` either way).

    >>> F.max_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    _tensor_arg("max_pool2d", "input", 1, input)
    out = _max_pool(2, input, _ints(kernel_size, 2, "max_pool2d", "kernel_size", 2),
                    () if stride is None else _ints(stride, 2, "max_pool2d", "stride", 3),
                    _ints(padding, 2, "max_pool2d", "padding", 4), _ints(dilation, 2, "max_pool2d", "dilation", 5),
                    ceil_mode)
    return out if return_indices else out[0]


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``max_pool1d`` that returns (maxima, indices): the 2-d op on ``input.unsqueeze(-2)``."""
    fname = "max_pool1d_with_indices"
    _tensor_arg(fname, "input", 1, input)
    kernel = _ints(kernel_size, 1, fname, "kernel_size", 2)
    stride = kernel if stride is None or stride == [] or stride == () else _ints(stride, 1, fname, "stride", 3)
    padding, dilation = _ints(padding, 1, fname, "padding", 4), _ints(dilation, 1, fname, "dilation", 5)
    _check_dim_range(input, 2, 4, "max_pool1d")
    for arg, v in (("kernel_size", kernel), ("stride", stride), ("padding", padding), ("dilation", dilation)):
        _check_1d("max_pool1d", arg, v)
    values, indices = _max_pool(2, input.unsqueeze(-2), (1, kernel[0]), (1, stride[0]), (0, padding[0]),
                                (1, dilation[0]), ceil_mode)
    return values.squeeze(-2), indices.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r"""1-D max pooling over ``input`` (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``.

    >>> F.max_pool1d(torch.tensor([[[1., 3., 2., 5.]]]), 2)
    tensor([[[3., 5.]]])
    """
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    fname = "max_pool1d"
    _tensor_arg(fname, "input", 1, input)
    kernel = _ints(kernel_size, 1, fname, "kernel_size", 2)
    stride_ = () if stride is None else _ints(stride, 1, fname, "stride", 3)
    padding, dilation = _ints(padding, 1, fname, "padding", 4), _ints(dilation, 1, fname, "dilation", 5)
    x = input._data
    if x.ndim not in (2, 3) or 0 in x.shape[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(x.shape)}")
    for arg, v, also in (("kernel_size", kernel, ""), ("stride", stride_, "None, "), ("padding", padding, ""),
                         ("dilation", dilation, "")):
        if len(v) != 1 and not (arg == "stride" and not v):
            comma = "," if arg in ("stride", "padding") else ""
            raise RuntimeError(f"max_pool1d() {arg} must be {also}an int, list of ints{comma} or tuple of ints of "
                               f"size 1 but got size {len(v)}")
    k, s, p, d = kernel[0], (stride_ or kernel)[0], padding[0], dilation[0]
    for bad, message in ((k <= 0, f"kernel_size must be greater than zero, but got {k}"),
                         (s <= 0, f"stride must be greater than zero, but got {s}"),
                         (p < 0, f"padding must be non-negative, but got {p}"),
                         (p > k // 2, f"padding should be at most half of kernel size, but got padding={p} and "
                                      f"kernel_size={k}"),
                         (d <= 0, f"dilation must be greater than zero, but got {d}")):
        if bad:
            raise RuntimeError(f"max_pool1d() {message}")
    width = _pool_out(x.shape[-1], k, p, s, d, ceil_mode)
    if width <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {width}")
    if not (input._requires_grad and _grad_mode._enabled):
        _not_for(input, "max_pool1d_impl", "f")
    return max_pool1d_with_indices(input, kernel, stride, padding, dilation, ceil_mode)[0]


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    r"""2-D average pooling over ``input`` (N, C, H, W) or (C, H, W); ``stride`` defaults to
    ``kernel_size``; zero padding counts in the average unless ``count_include_pad`` is off.

    >>> F.avg_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    _tensor_arg("avg_pool2d", "input", 1, input)
    return _avg_pool(2, input, _ints(kernel_size, 2, "avg_pool2d", "kernel_size", 2),
                     () if stride is None else _ints(stride, 2, "avg_pool2d", "stride", 3),
                     _ints(padding, 2, "avg_pool2d", "padding", 4), ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    r"""1-D average pooling over ``input`` (N, C, L) or (C, L): the 2-d op on ``input.unsqueeze(-2)``."""
    fname = "avg_pool1d"
    _tensor_arg(fname, "input", 1, input)
    kernel = _ints(kernel_size, 1, fname, "kernel_size", 2)
    stride = kernel if stride is None else _ints(stride, 1, fname, "stride", 3)
    padding = _ints(padding, 1, fname, "padding", 4)
    _check_dim_range(input, 2, 4, fname)
    for arg, v in (("kernel_size", kernel), ("stride", stride), ("padding", padding)):
        _check_1d(fname, arg, v)
    return _avg_pool(2, input.unsqueeze(-2), (1, kernel[0]), (1, stride[0]), (0, padding[0]), ceil_mode,
                     count_include_pad, None).squeeze(-2)


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input, output_size):
    r"""2-D average pooling to a given output size (int or (H, W); None keeps the input's size):
    window ``i`` covers ``floor(i * n / out)`` to ``ceil((i + 1) * n / out)``. An output of 1 x 1 is
    the mean over the last two dims (``MeanBackward1``), as PyTorch computes it."""
    _tensor_arg("adaptive_avg_pool2d", "input", 1, input)
    size = _ints(_list_with_default(output_size, input.shape), 2, "adaptive_avg_pool2d", "output_size", 2)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if any(v < 0 for v in size):
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{', '.join(map(str, size))}}}")
    if size == (1, 1):
        return mean(input, (-1, -2), keepdim=True)
    return _adaptive_avg(2, input, size)


def adaptive_avg_pool1d(input, output_size):
    r"""1-D average pooling to a given output length: the 2-d op on ``input.unsqueeze(-2)``."""
    fname = "adaptive_avg_pool1d"
    _tensor_arg(fname, "input", 1, input)
    size = _ints(output_size, 1, fname, "output_size", 2)
    _check_dim_range(input, 2, 4, fname)
    _check_1d(fname, "output_size", size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size[0])).squeeze(-2)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` that returns (maxima, indices)."""
    _tensor_arg("adaptive_max_pool2d", "input", 1, input)
    size = _ints(_list_with_default(output_size, input.shape), 2, "adaptive_max_pool2d", "output_size", 2)
    return _adaptive_max(2, input, size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    r"""2-D max pooling to a given output size (int or (H, W)); with ``return_indices``, also the
    maxima's places in their input planes."""
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` that returns (maxima, indices): the 2-d op on ``input.unsqueeze(-2)``."""
    fname = "adaptive_max_pool1d"
    _tensor_arg(fname, "input", 1, input)
    size = _ints(output_size, 1, fname, "output_size", 2)
    _check_dim_range(input, 2, 4, fname)
    _check_1d(fname, "output_size", size)
    for i in range(1, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {i} being empty")
    values, indices = _adaptive_max(2, input.unsqueeze(-2), (1, size[0]))
    return values.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    r"""1-D max pooling to a given output length; with ``return_indices``, also the maxima's places."""
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def _torch_adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: always (maxima, indices)."""
    return adaptive_max_pool1d_with_indices(input, output_size)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``max_pool3d`` that returns (maxima, indices)."""
    _tensor_arg("max_pool3d_with_indices", "input", 1, input)
    return _max_pool(3, input, _ints(kernel_size, 3, "max_pool3d_with_indices", "kernel_size", 2),
                     () if stride is None else _ints(stride, 3, "max_pool3d_with_indices", "stride", 3),
                     _ints(padding, 3, "max_pool3d_with_indices", "padding", 4),
                     _ints(dilation, 3, "max_pool3d_with_indices", "dilation", 5), ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r"""3-D max pooling over ``input`` (N, C, D, H, W) or (C, D, H, W)."""
    out = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    r"""3-D average pooling over ``input`` (N, C, D, H, W) or (C, D, H, W)."""
    _tensor_arg("avg_pool3d", "input", 1, input)
    return _avg_pool(3, input, _ints(kernel_size, 3, "avg_pool3d", "kernel_size", 2),
                     () if stride is None else _ints(stride, 3, "avg_pool3d", "stride", 3),
                     _ints(padding, 3, "avg_pool3d", "padding", 4), ceil_mode, count_include_pad, divisor_override)


# ----- Padding -----

def _constant_pad_arrays(x, pad, value):
    """``x`` with ``pad`` (last dim's left and right first) of ``value`` added, or cut off where negative."""
    shape, src, dst = list(x.shape), [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for i in range(len(pad) // 2):
        dim, (left, right) = x.ndim - 1 - i, pad[2 * i:2 * i + 2]
        length = x.shape[dim] - max(-left, 0) - max(-right, 0)
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        src[dim] = slice(max(-left, 0), max(-left, 0) + length)
        dst[dim] = slice(max(left, 0), max(left, 0) + length)
        shape[dim] = length + max(left, 0) + max(right, 0)
    out = np.full(shape, value, x.dtype)
    out[tuple(dst)] = x[tuple(src)]
    return out


CONSTANT_PAD = defop("ConstantPadNdBackward0", lambda g, ans, x, pad: constant_pad_nd(g, tuple(-p for p in pad)))


def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``F.pad``'s constant mode (``ConstantPadNdBackward0``)."""
    _tensor_arg("constant_pad_nd", "input", 1, input)
    pad = _ints(pad, 1, "constant_pad_nd", "pad", 2)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {input.dim()}dimensions.")
    return record(CONSTANT_PAD, (input,), _constant_pad_arrays(input._data, pad, value), {"pad": pad})


def _pad_index(n, left, right, mode):
    """The input element each padded position reads: mirrored without the edge, or the edge repeated."""
    i = np.arange(-left, n + right)
    return n - 1 - np.abs(n - 1 - np.abs(i)) if mode == "reflect" else np.clip(i, 0, n - 1)


def _pad_indices(shape, padding, mode):
    nd = len(padding) // 2
    return [_pad_index(shape[j - nd], padding[2 * (nd - 1 - j)], padding[2 * (nd - 1 - j) + 1], mode)
            for j in range(nd)]


def _index_pad_backward_arrays(g, shape, padding, mode):
    """Each padded position's grad added to the element it read: a 0/1 matmul per padded dim."""
    nd = len(padding) // 2
    for j, idx in enumerate(_pad_indices(shape, padding, mode)):
        axis = g.ndim - nd + j
        onehot = (idx[:, None] == np.arange(shape[axis])).astype(g.dtype)
        g = np.moveaxis(np.tensordot(g, onehot, axes=([axis], [0])), -1, axis)
    return np.ascontiguousarray(g)


def _index_pad_ops(mode, nd):
    name = f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{nd}D"
    back = defop(f"{name}BackwardBackward0", lambda gg, ans, grad_output, x, padding: _index_pad(mode, nd, gg, padding),
                 lambda gg, ans, grad_output, x, padding: _zero_grad(gg))
    forward = defop(f"{name}Backward0", lambda g, ans, x, padding: record(
        back, (g, x), _index_pad_backward_arrays(g._data, tuple(x.shape), padding, mode), {"padding": padding}),
        saves=(0,))
    return forward


_INDEX_PAD = {(mode, nd): _index_pad_ops(mode, nd) for mode in ("reflect", "replicate") for nd in (1, 2, 3)}


def _index_pad(mode, nd, input, padding):
    """``reflection_pad{nd}d`` and ``replication_pad{nd}d``, with PyTorch's checks."""
    x = input._data
    batched = x.ndim == nd + 2
    if 0 in x.shape[1 if batched else 0:]:
        raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(x.shape)}")
    names = ("D", "H", "W")[-nd:]
    sizes = x.shape[-nd:]
    outs = [n + padding[2 * (nd - 1 - j)] + padding[2 * (nd - 1 - j) + 1] for j, n in enumerate(sizes)]
    if mode == "reflect":
        for i in range(nd):  # (the last dim first)
            left, right = padding[2 * i:2 * i + 2]
            n = sizes[nd - 1 - i]
            if left >= n or right >= n:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({left}, {right}) at dimension {x.ndim - 1 - i} of "
                                   f"input {list(x.shape)}")
    if all(o < 1 for o in outs):
        sizes = dict(zip(names, sizes))
        given = {1: "W: {W}", 2: "H: {H}, W: {W} " if mode == "replicate" else "H: {H}, W: {W}",
                 3: "D: {D} H: {H}, W: {W}"}[nd].format(**sizes)
        raise RuntimeError(f"input ({given}) is too small. Calculated output "
                           + " ".join(f"{a}: {o}" for a, o in zip(names, outs)))
    shape = list(x.shape[:-nd]) + outs
    if min(outs) < 0:
        if mode == "reflect" and nd == 2:
            raise RuntimeError("numel: integer multiplication overflow")
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: {shape}")
    y = x[(Ellipsis,) + np.ix_(*_pad_indices(x.shape, padding, mode))]
    return record(_INDEX_PAD[mode, nd], (input,), y, {"padding": tuple(padding)})


def _pad_circular(input, pad):
    """PyTorch's ``_pad_circular``: the input copied into the middle of a new tensor, then each
    padded side copied from the other end of it (so its graph is PyTorch's CopySlices and slices)."""
    from ._ops import _slice

    shape, nd = tuple(input.shape), len(pad) // 2
    lead = len(shape) - nd
    out_shape = list(shape)
    for i in range(nd):
        left, right = pad[2 * (nd - i - 1)], pad[2 * (nd - i - 1) + 1]
        n = shape[lead + i]
        out_shape[lead + i] = n + left + right
        if left > n or right > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[lead + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(out_shape)
    if not out.numel():  # (nothing to copy: the engine refuses to write into an empty tensor's zero strides)
        return out
    out_slice, in_slice = out, input
    for i in range(nd):
        dim, left, right = len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]
        out_slice = _slice(out_slice, dim, slice(max(left, 0), out_shape[dim] - max(right, 0)))
        in_slice = _slice(in_slice, dim, slice(max(-left, 0), shape[dim] - max(-right, 0)))
    out_slice.copy_(in_slice)
    for i in range(nd):
        dim, left, right = len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]
        end = out_shape[dim] - max(right, 0)
        if left > 0:
            _slice(out, dim, slice(0, left)).copy_(_slice(out, dim, slice(end - left, end)))
        if right > 0:
            start = max(left, 0)
            _slice(out, dim, slice(out_shape[dim] - right, out_shape[dim])).copy_(
                _slice(out, dim, slice(start, start + right)))
    return out


_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    r"""Pads ``input``: ``pad`` gives (left, right) for the last dim, then for the one before, ...
    ``mode``: ``'constant'`` (``value``, default 0; negative pads cut), ``'reflect'`` (mirrored,
    without the edge), ``'replicate'`` (the edge repeated) or ``'circular'`` (wrapped around); the
    last three pad the last 1, 2 or 3 dims of a batched or unbatched input.

    >>> F.pad(torch.tensor([[1., 2., 3.]]), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
    """
    _tensor_arg("pad", "input", 1, input)
    pad = _ints(pad, 1, "pad", "pad", 2)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    dim = input.dim()
    if len(pad) > 2 * dim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {dim}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    nd = len(pad) // 2
    if nd in (1, 2, 3) and dim in (nd + 1, nd + 2):
        return _pad_circular(input, pad) if mode == "circular" else _index_pad(mode, nd, input, pad)
    raise NotImplementedError(
        f"Padding size {len(pad)} is not supported for {dim}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")



# ----- unfold (im2col) and fold (col2im): each the other's backward -----

def _fold_params(fname, args):
    """kernel_size, dilation, padding, stride (and output_size) as pairs, checked as PyTorch checks them."""
    pairs = []
    for name, v in args:
        v = _ints(v, 2, fname, name, 2)
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        pairs.append(v)
    return pairs


def _check_blocks(kernel, dilation, padding, stride, fold):
    checks = [("kernel size", "kernel", kernel, 0), ("dilation", "dilation", dilation, 0),
              ("padding", "pad", padding, -1), ("stride", "stride", stride, 0)]
    if fold:  # (col2im checks stride before dilation and padding)
        checks = [checks[0], checks[3], checks[1], checks[2]]
    for what, prefix, (h, w), low in checks:
        if h <= low or w <= low:
            rule = "be non-negative" if low < 0 else "be greater than zero"
            raise RuntimeError(f"{what} should {rule}, but got {prefix}_height: {h} {prefix}_width: {w}")


def _blocks(size, kernel, dilation, padding, stride):
    return tuple((n + 2 * p - (d * (k - 1) + 1)) // s + 1 for n, k, d, p, s in zip(size, kernel, dilation, padding,
                                                                                   stride))


def _im2col_arrays(x, kernel, dilation, padding, stride):
    n, c = x.shape[:2]
    blocks = _blocks(x.shape[2:], kernel, dilation, padding, stride)
    win = _windows(_padded(x, 2, padding), 2, kernel, stride, dilation, blocks)
    return win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * math.prod(kernel), math.prod(blocks))


def _col2im_arrays(cols, size, kernel, dilation, padding, stride):
    n, c = cols.shape[0], cols.shape[1] // math.prod(kernel)
    blocks = _blocks(size, kernel, dilation, padding, stride)
    cols = cols.reshape((n, c) + tuple(kernel) + blocks)
    buf = np.zeros((n, c) + tuple(s + 2 * p for s, p in zip(size, padding)), cols.dtype)
    _add_windows(buf, 2, kernel, stride, dilation, blocks, lambda k: cols[(slice(None), slice(None)) + k])
    return _cropped(buf, 2, padding, size)


IM2COL = defop("Im2ColBackward0", lambda g, ans, x, kernel_size, dilation, padding, stride, input_size:
               fold(g, input_size, kernel_size, dilation, padding, stride))
COL2IM = defop("Col2ImBackward0", lambda g, ans, x, kernel_size, dilation, padding, stride:
               unfold(g, kernel_size, dilation, padding, stride))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    r"""Extracts sliding local blocks (im2col): (N, C, H, W) to (N, C * prod(kernel_size), L), L
    the number of blocks; (C, H, W) to (C * prod(kernel_size), L).

    >>> F.unfold(torch.arange(9.).view(1, 1, 3, 3), 2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    _tensor_arg("unfold", "input", 1, input)
    kernel, dilation, padding, stride = _fold_params("im2col", (
        ("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding), ("stride", stride)))
    _check_blocks(kernel, dilation, padding, stride, False)
    x = input._data
    if x.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, "
                         f"{max(x.ndim, 1) - 1}], but got 2)")
    if x.ndim not in (3, 4) or 0 in x.shape[-3 if x.ndim == 4 else 0:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(x.shape)}")
    size = x.shape[-2:]
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
                           f"{padding[1]}), calculated shape of the array of sliding blocks as ({blocks[0]}, "
                           f"{blocks[1]}), but its components must be at least one.")
    _not_for(input, "im2col_out_cpu", "f")
    cols = _im2col_arrays(x if x.ndim == 4 else x[None], kernel, dilation, padding, stride)
    return record(IM2COL, (input,), cols if x.ndim == 4 else cols[0],
                  {"kernel_size": kernel, "dilation": dilation, "padding": padding, "stride": stride,
                   "input_size": tuple(size)})


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    r"""Combines sliding local blocks into a tensor, summing where they overlap (col2im, the
    reverse of ``unfold``): (N, C * prod(kernel_size), L) to (N, C, *output_size).

    >>> F.fold(torch.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    _tensor_arg("fold", "input", 1, input)
    size, kernel, dilation, padding, stride = _fold_params("col2im", (
        ("output_size", output_size), ("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding),
        ("stride", stride)))
    _check_blocks(kernel, dilation, padding, stride, True)
    x = input._data
    if not (x.ndim == 2 and 0 not in x.shape or x.ndim == 3 and 0 not in x.shape[1:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(x.shape)}")
    planes, length = x.shape[-2:]
    if planes % (kernel[0] * kernel[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={planes} and kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    described = (f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), dilation="
                 f"({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), stride=({stride[0]}, "
                 f"{stride[1]}), ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(described + "expected size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(described + f"calculated shape of the array of sliding blocks as ({blocks[0]}, "
                           f"{blocks[1]}), which is too small (non-positive)")
    _not_for(input, "col2im_out_cpu", "f")
    y = _col2im_arrays(x if x.ndim == 3 else x[None], size, kernel, dilation, padding, stride)
    return record(COL2IM, (input,), y if x.ndim == 3 else y[0],
                  {"kernel_size": kernel, "dilation": dilation, "padding": padding, "stride": stride})

# ----- grad_fn._saved_* of these nodes, named as PyTorch names them -----

def _ints_as_saved(name):  # (a negative int64 reads as unsigned, as PyTorch shows it)
    return lambda node: tuple(_int64(v) for v in node._attrs[name])


_CONV_PARAMS = {name: _saved_attr(name) for name in ("stride", "padding", "dilation", "transposed", "output_padding",
                                                     "groups")}
_SAVED = {
    "ConvolutionBackward0": {**_CONV_PARAMS, "bias_sym_sizes_opt": _saved_attr("bias_sizes"),
                             "input": _saved_slot(0), "weight": _saved_slot(1)},
    "ConvolutionBackwardBackward0": {**_CONV_PARAMS, "grad_output": _saved_slot(0), "input": _saved_slot(1),
                                     "weight": _saved_slot(2)},
    "ConstantPadNdBackward0": {"pad": _ints_as_saved("pad")},
    "Im2ColBackward0": {**{name: _saved_attr(name) for name in ("kernel_size", "dilation", "padding", "stride")},
                        "self_sym_argsize_minus_1": lambda node: node._attrs["input_size"][1],
                        "self_sym_argsize_minus_2": lambda node: node._attrs["input_size"][0]},
    "Col2ImBackward0": {name: _saved_attr(name) for name in ("kernel_size", "dilation", "padding", "stride")},
}
_AVG = {name: _saved_attr(name) for name in ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                             "divisor_override")}
for _nd in (2, 3):
    _SAVED.update({
        f"MaxPool{_nd}DWithIndicesBackward0": {
            **{name: _saved_attr(name) for name in ("kernel_size", "stride", "padding", "dilation", "ceil_mode")},
            "self": _saved_slot(0), "result1": _saved_tensor_attr("indices")},
        f"AvgPool{_nd}DBackward0": {**_AVG, "self": _saved_slot(0)},
        f"AvgPool{_nd}DBackwardBackward0": _AVG,
        f"AdaptiveAvgPool{_nd}DBackward0": {"self": _saved_slot(0)},
        f"AdaptiveAvgPool{_nd}DBackwardBackward0": {
            f"grad_output_sym_argsize_minus_{i}": (lambda i: lambda node: node._attrs["output_size"][-i])(i)
            for i in range(1, _nd + 1)},
        f"AdaptiveMaxPool{_nd}DBackward0": {"self": _saved_slot(0), "result1": _saved_tensor_attr("indices")},
        **{f"{kind}Pool{_nd}D{with_}BackwardBackward0": {"indices": _saved_tensor_attr("indices")}
           for kind, with_ in (("Max", "WithIndices"), ("AdaptiveMax", ""))},
    })
for _kind in ("Reflection", "Replication"):
    for _nd in (1, 2, 3):
        _SAVED[f"{_kind}Pad{_nd}DBackward0"] = {"self": _saved_slot(0), "padding": _ints_as_saved("padding")}
        _SAVED[f"{_kind}Pad{_nd}DBackwardBackward0"] = {"padding": _ints_as_saved("padding")}
register_saved(_SAVED)
