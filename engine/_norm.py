"""Normalization: ``batch_norm``, ``layer_norm`` and ``group_norm`` are one node each, as PyTorch
records them (``NativeBatchNormBackward0``, ...), and ``instance_norm`` and ``rms_norm`` are
composed of engine ops as PyTorch composes them, so their graphs show the same nodes.

The first backward of batch and layer norm is an op of its own with three outputs (PyTorch's
``native_batch_norm_backward``): a double backward shows its node, ``NativeBatchNormBackwardBackward0``,
whose rules are written with engine ops. Group norm's first backward is, when a graph is built,
PyTorch's composite ``infinitely_differentiable_native_group_norm_backward``, reading the saved mean
and rstd as outputs of the forward node, so that its second derivatives flow through them.

>>> x = torch.randn(4, 3, requires_grad=True)
>>> F.batch_norm(x, None, None, training=True).grad_fn.name()
'NativeBatchNormBackward0'
"""
import math
import warnings

import numpy as np

from . import _grad_mode
from ._ops import (_add_scalar, _mul_scalar, _record_shared, _saved_attr, _saved_optional, _saved_output, _saved_slot,
                   _saved_tensor_attr, _scalar_type, _shared_rules, defop, not_differentiable, register_saved)
from ._tensor import Size, _wrap

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm"]


# ----- Checks, with PyTorch's messages -----

def _check_floating(x, kernel):
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type(x)}\'')


def _check_dtypes(x, *params):
    """PyTorch's CPU rule: parameters (their type set by the first one given) of another dtype
    than the input are allowed only as float ones for a half input."""
    given = [p for p in params if p is not None]
    if not given:
        return
    xd = x._data.dtype
    if given[0]._data.dtype != xd:
        if any(p._data.dtype != np.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if xd != np.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in given:
        if p._data.dtype != xd:
            raise RuntimeError(f"expected scalar type {_scalar_type(x)} but found {_scalar_type(p)}")


def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size):
    n = 1
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def _normalized_shape(normalized_shape, fname):
    if isinstance(normalized_shape, int) or not isinstance(normalized_shape, (tuple, list, Size)):
        raise TypeError(f"{fname}(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    shape = tuple(int(s) for s in normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    return shape


def _check_layer_norm(x, shape, weight, bias, sep=", "):
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p._data.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(p._data.shape)} and normalized_shape = {list(shape)}")
    d = x._data
    if d.ndim < len(shape) or d.shape[d.ndim - len(shape):] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{sep}{', '.join(map(str, shape))}], but got input of size{list(d.shape)}")


def _float(d):
    """The array a kernel computes on: half in float, as PyTorch's CPU kernels compute it."""
    return d.astype(np.float32) if d.dtype == np.float16 else d


def _data_or(t, default):
    return default if t is None else _float(t._data)


def _not_implemented(what):
    def rule(g, ans, *inputs, **attrs):
        raise RuntimeError(f"the derivative for '{what}' is not implemented.")
    return rule


# ----- The double backward, shared by batch norm (in training) and layer norm -----

def _double_backward(gs, g, x, w, mu, r, dims, batch_stats):
    """The grads of the first backward's inputs (grad_out, input, weight) from those of its outputs
    (input, weight, bias) ``gs``. ``x`` and ``g`` are laid out so that the statistics reduce
    ``dims``, and ``w`` (or None), ``mu``, ``r`` and the grads of weight and bias broadcast against
    them. ``batch_stats``: ``mu`` and ``r`` (the inverse standard deviation) are x's own statistics;
    else they are constants (batch norm's running ones in evaluation). The weight's grad comes
    back shaped as x, for the caller to sum."""
    ggI, ggW, ggB = gs
    xhat = (x - mu) * r

    def mean(t):
        return t.mean(dims, keepdim=True)

    def P(v):  # the first backward's map from (grad_out * weight) to grad_input: symmetric
        return r * (v - mean(v) - xhat * mean(v * xhat))

    ggO = gI = gW = None
    if ggI is not None:
        if batch_stats:
            Pa = P(ggI)
            ggO = Pa if w is None else Pa * w
            if w is not None:
                gW = g * Pa
            h = g if w is None else g * w
            m2 = mean(h * xhat)
            ax = mean(ggI * xhat)
            k = mean(ggI * h) - mean(h) * mean(ggI) - m2 * ax
            # <ggI, P(h)> through r (d r = -r^2 mean(xhat dx)) and through xhat (whose VJP is P)
            gI = -(r * r * xhat * k + r * P(ax * h + m2 * ggI))
        else:
            ggO = ggI * r if w is None else ggI * r * w
            if w is not None:
                gW = ggI * g * r
    if ggW is not None and w is not None:
        term = ggW * xhat
        ggO = term if ggO is None else ggO + term
        term = P(ggW * g) if batch_stats else ggW * g * r
        gI = term if gI is None else gI + term
    if ggB is not None:
        ggO = ggB.expand(x.shape) if ggO is None else ggO + ggB
    return ggO, gI, gW


# ----- batch_norm -----

def _channel_shape(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


def _stat_dims(ndim):
    return (0,) + tuple(range(2, ndim))


def _native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """``(output, save_mean, save_invstd)``, the output recorded as NativeBatchNormBackward0;
    in training the running statistics (when given) are updated in place, their version kept."""
    not_differentiable("native_batch_norm", "running_mean", running_mean)
    not_differentiable("native_batch_norm", "running_var", running_var)
    d = x._data
    dt = d.dtype
    f = _float(d)
    c = d.shape[1]
    shape, dims = _channel_shape(d.ndim, c), _stat_dims(d.ndim)
    with np.errstate(all="ignore"):
        if training:
            mean = f.mean(dims) if f.size else np.zeros(c, f.dtype)
            centered = f - mean.reshape(shape)
            var = (centered * centered).mean(dims) if f.size else np.zeros(c, f.dtype)
            invstd = (1 / np.sqrt(var + f.dtype.type(eps))).astype(f.dtype)
            n = f.size // c if c else 0
            if running_mean is not None and n:
                rm, rv = running_mean._data, running_var._data
                rm[...] = (1 - momentum) * rm + momentum * mean.astype(rm.dtype)
                rv[...] = (1 - momentum) * rv + momentum * (var * (n / (n - 1) if n > 1 else np.inf)).astype(rv.dtype)
            use_mean, use_invstd = mean, invstd
        else:
            use_mean = _float(running_mean._data).astype(f.dtype)
            use_invstd = (1 / np.sqrt(_float(running_var._data) + eps)).astype(f.dtype)
            mean = invstd = np.zeros(0, f.dtype)
        alpha = use_invstd if weight is None else use_invstd * _float(weight._data)
        beta = -use_mean * alpha if bias is None else _float(bias._data) - use_mean * alpha
        out = (f * alpha.reshape(shape) + beta.reshape(shape)).astype(dt, copy=False)
    # (half keeps its statistics in half, but in float beside float parameters: PyTorch's mixed type)
    mixed = dt == np.float16 and any(t is not None and t._data.dtype == np.float32
                                     for t in (weight, bias, running_mean, running_var))
    stat_dt = np.float32 if mixed else dt
    save_mean, save_invstd = _wrap(mean.astype(stat_dt, copy=False)), _wrap(invstd.astype(stat_dt, copy=False))
    attrs = {"running_mean": running_mean, "running_var": running_var, "training": training, "eps": eps,
             "save_mean": save_mean, "save_invstd": save_invstd}
    return _record_shared(BATCH_NORM, (x, weight, bias), out, attrs), save_mean, save_invstd


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps):
    """``(grad_input, grad_weight, grad_bias)`` of batch norm, one NativeBatchNormBackwardBackward0
    node when a graph is built."""
    go, d = _float(grad_out._data), _float(input._data)
    c = d.shape[1]
    shape, dims = _channel_shape(d.ndim, c), _stat_dims(d.ndim)
    with np.errstate(all="ignore"):
        if train:
            mean, invstd = save_mean._data, save_invstd._data
        else:
            mean = _float(running_mean._data)
            invstd = 1 / np.sqrt(_float(running_var._data) + eps)
        mean, invstd = mean.astype(d.dtype, copy=False), invstd.astype(d.dtype, copy=False)
        xhat = (d - mean.reshape(shape)) * invstd.reshape(shape)
        gb = go.sum(dims)
        gw = (go * xhat).sum(dims)
        scale = (invstd * _data_or(weight, 1)).reshape(shape)
        if train:
            m = d.size // c
            gi = scale * (go - (gb / m).reshape(shape) - xhat * (gw / m).reshape(shape))
        else:
            gi = go * scale
    dt = input._data.dtype
    pdt = dt if weight is None else weight._data.dtype
    attrs = {"running_mean": running_mean, "running_var": running_var, "train": train, "eps": eps}
    return _record_shared(BATCH_NORM_BACKWARD, (grad_out, input, weight, save_mean, save_invstd),
                          (gi.astype(dt, copy=False), gw.astype(pdt, copy=False), gb.astype(pdt, copy=False)),
                          attrs, n_outputs=3)


def _batch_norm_grads(g, x, w, b, running_mean, running_var, training, eps, save_mean, save_invstd):
    return native_batch_norm_backward(g, x, w, running_mean, running_var, save_mean, save_invstd, training, eps)


def _batch_norm_double(gs, grad_out, input, weight, save_mean, save_invstd, running_mean, running_var, train, eps):
    nd = input.dim()
    shape, dims = _channel_shape(nd, input.shape[1]), _stat_dims(nd)
    if train:
        mu, r = save_mean.view(shape), save_invstd.view(shape)
    else:
        mu, r = running_mean.view(shape), (_add_scalar(running_var, eps) ** -0.5).view(shape)
    w = None if weight is None else weight.view(shape)
    ggI, ggW, ggB = gs
    gs = (ggI, None if ggW is None else ggW.view(shape), None if ggB is None else ggB.view(shape))
    ggO, gI, gW = _double_backward(gs, grad_out, input, w, mu, r, dims, train)
    return ggO, gI, None if gW is None else gW.sum(dims)


BATCH_NORM = defop("NativeBatchNormBackward0", *_shared_rules(3, _batch_norm_grads), saves=(0, 1))
BATCH_NORM_BACKWARD = defop("NativeBatchNormBackwardBackward0", *_shared_rules(3, _batch_norm_double),
                            _not_implemented("native_batch_norm_backward save_mean"),
                            _not_implemented("native_batch_norm_backward save_invstd"),
                            saves=(0, 1, 2, 3, 4), outputs=(0, 1, 2))


def _check_batch_norm(x, weight, bias, running_mean, running_var, training):
    d = x._data
    if d.ndim < 2:
        lo, hi = (-1, 0) if d.ndim == 0 else (-d.ndim, d.ndim - 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got 1)")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _check_floating(x, "batch_norm")
    c = d.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is None:
            if not training and name.startswith("running"):
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        elif t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    _check_dtypes(x, weight, bias, running_mean, running_var)


def _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """``torch.batch_norm``: ``F.batch_norm`` without its Python checks, arguments in ATen's order."""
    _check_batch_norm(input, weight, bias, running_mean, running_var, training)
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm``: ``(output, save_mean, save_invstd)``."""
    _check_batch_norm(input, weight, bias, running_mean, running_var, training)
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    r"""Normalizes each channel (dim 1) over the batch and any further dims:
    :math:`y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \gamma + \beta`.

    In training the batch's statistics are used, and ``running_mean`` / ``running_var`` (when
    given) move towards them by ``momentum``, the variance unbiased; in evaluation the running
    statistics are used. One ``NativeBatchNormBackward0`` node.

    >>> x = torch.tensor([[1., 2.], [3., 6.]], requires_grad=True)
    >>> F.batch_norm(x, None, None, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]], grad_fn=<NativeBatchNormBackward0>)
    """
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


# ----- instance_norm: batch norm of a (1, N * C, ...) view, as PyTorch composes it -----

def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                         cudnn_enabled):
    """``torch.instance_norm``: each (sample, channel) normalized over its own values."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    shape = list(input.shape)
    b, c = shape[0], shape[1]
    shape[0], shape[1] = 1, b * c

    def repeated(t):
        return None if t is None else t.repeat(b)

    weight_, bias_ = repeated(weight), repeated(bias)
    running_mean_, running_var_ = repeated(running_mean), repeated(running_var)
    out = _torch_batch_norm(input.contiguous().view(shape), weight_, bias_, running_mean_, running_var_,
                            use_input_stats, momentum, eps, cudnn_enabled)
    with _grad_mode.no_grad():
        for t, t_ in ((running_mean, running_mean_), (running_var, running_var_)):
            if t is not None:
                t.copy_(t_.view(b, c).mean(0))
    return out.view(input.shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    r"""Normalizes each channel of each sample over its own values (its spatial dims): batch norm of
    the input viewed as one sample of ``N * C`` channels, as PyTorch composes it (``ViewBackward0``
    around ``NativeBatchNormBackward0``, the affine parameters through ``RepeatBackward0``).

    >>> x = torch.tensor([[[1., 3.], [0., 4.]]], requires_grad=True)
    >>> F.instance_norm(x)
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]], grad_fn=<ViewBackward0>)
    """
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                                False)


# ----- layer_norm -----

def _native_layer_norm(x, shape, weight, bias, eps):
    d = x._data
    axis = d.ndim - len(shape)
    outer = d.shape[:axis]
    f = _float(d).reshape((math.prod(outer), math.prod(shape)))
    with np.errstate(all="ignore"):
        mean = f.mean(1, keepdims=True) if f.size else np.zeros((f.shape[0], 1), f.dtype)
        centered = f - mean
        var = (centered * centered).mean(1, keepdims=True) if f.size else np.zeros_like(mean)
        rstd = (1 / np.sqrt(var + f.dtype.type(eps))).astype(f.dtype)
        out = centered * rstd
        if weight is not None:
            out = out * _float(weight._data).reshape(1, -1)
        if bias is not None:
            out = out + _float(bias._data).reshape(1, -1)
    stat_shape = outer + (1,) * len(shape)
    dt = d.dtype
    mean, rstd = _wrap(mean.reshape(stat_shape).astype(dt)), _wrap(rstd.reshape(stat_shape).astype(dt))
    attrs = {"normalized_shape": shape, "mean": mean, "rstd": rstd}
    out = _record_shared(LAYER_NORM, (x, weight, bias), out.reshape(d.shape).astype(dt, copy=False), attrs)
    return out, mean, rstd


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias):
    """``(grad_input, grad_weight, grad_bias)`` of layer norm, one NativeLayerNormBackwardBackward0
    node when a graph is built."""
    d = input._data
    n = math.prod(normalized_shape)
    f = _float(d).reshape(-1, n)
    go = _float(grad_out._data).reshape(-1, n)
    mu, r = _float(mean._data).reshape(-1, 1), _float(rstd._data).reshape(-1, 1)
    with np.errstate(all="ignore"):
        xhat = (f - mu) * r
        gw = (go * xhat).sum(0)
        gb = go.sum(0)
        h = go if weight is None else go * _float(weight._data).reshape(1, -1)
        gi = r * (h - h.mean(1, keepdims=True) - xhat * (h * xhat).mean(1, keepdims=True))
    dt = d.dtype
    pdt = dt if weight is None else weight._data.dtype
    attrs = {"normalized_shape": normalized_shape}
    return _record_shared(LAYER_NORM_BACKWARD, (grad_out, input, mean, rstd, weight, bias),
                          (gi.reshape(d.shape).astype(dt, copy=False),
                           gw.reshape(normalized_shape).astype(pdt, copy=False),
                           gb.reshape(normalized_shape).astype(pdt, copy=False)), attrs, n_outputs=3)


def _layer_norm_grads(g, x, w, b, normalized_shape, mean, rstd):
    return native_layer_norm_backward(g, x, normalized_shape, mean, rstd, w, b)


def _layer_norm_double(gs, grad_out, input, mean, rstd, weight, bias, normalized_shape):
    n = math.prod(normalized_shape)
    m = input._data.size // n if n else 0
    w = None if weight is None else weight.reshape(1, n)
    ggI, ggW, ggB = gs
    gs = (None if ggI is None else ggI.reshape(m, n), None if ggW is None else ggW.reshape(1, n),
          None if ggB is None else ggB.reshape(1, n))
    ggO, gI, gW = _double_backward(gs, grad_out.reshape(m, n), input.reshape(m, n), w, mean.reshape(m, 1),
                                   rstd.reshape(m, 1), (1,), True)
    shape = input.shape
    return (None if ggO is None else ggO.reshape(shape), None if gI is None else gI.reshape(shape), None, None,
            None if gW is None else gW.sum(0).reshape(normalized_shape), None)


LAYER_NORM = defop("NativeLayerNormBackward0", *_shared_rules(3, _layer_norm_grads), saves=(0, 1, 2))
LAYER_NORM_BACKWARD = defop("NativeLayerNormBackwardBackward0", *_shared_rules(6, _layer_norm_double),
                            saves=(0, 1, 2, 3, 4), outputs=(0, 1, 2))


def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm``."""
    return native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm``: ``(output, mean, rstd)``."""
    shape = _normalized_shape(normalized_shape, "layer_norm")
    _check_layer_norm(input, shape, weight, bias)
    _check_floating(input, "LayerNormKernelImpl")
    _check_dtypes(input, weight, bias)
    return _native_layer_norm(input, shape, weight, bias, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    r"""Normalizes over the last ``len(normalized_shape)`` dims of each sample, then scales by
    ``weight`` and shifts by ``bias`` (both shaped ``normalized_shape``). One
    ``NativeLayerNormBackward0`` node.

    >>> x = torch.tensor([[1., 3.], [2., 2.]], requires_grad=True)
    >>> F.layer_norm(x, (2,))
    tensor([[-1.0000,  1.0000],
            [ 0.0000,  0.0000]], grad_fn=<NativeLayerNormBackward0>)
    """
    return _torch_layer_norm(input, normalized_shape, weight, bias, eps)


# ----- group_norm -----

def _native_group_norm(x, weight, bias, n, c, hxw, group, eps):
    d = x._data
    f = _float(d).reshape(n, group, c // group * hxw)
    with np.errstate(all="ignore"):
        mean = f.mean(2) if f.size else np.zeros((n, group), f.dtype)
        centered = f - mean[..., None]
        var = (centered * centered).mean(2) if f.size else np.zeros_like(mean)
        rstd = (1 / np.sqrt(var + f.dtype.type(eps))).astype(f.dtype)
        out = (centered * rstd[..., None]).reshape(n, c, hxw)
        if weight is not None:
            out = out * _float(weight._data).reshape(1, c, 1)
        if bias is not None:
            out = out + _float(bias._data).reshape(1, c, 1)
    dt = d.dtype
    attrs = {"N": n, "C": c, "HxW": hxw, "group": group, "eps": eps}
    outs = _record_shared(GROUP_NORM, (x, weight, bias),
                          (out.reshape(d.shape).astype(dt, copy=False), mean.astype(dt), rstd.astype(dt)), attrs,
                          n_outputs=3, keep=(1, 2))  # (mean and rstd: outputs of the node its rules read back)
    return outs


def _var_mean_backward(gvar, gmean, x, dims, n):
    """The grad of x from those of its (biased) variance and mean over ``dims`` (keepdim)."""
    gx = None
    if gvar is not None:
        gx = _mul_scalar(gvar, 2.0 / n) * (x - x.mean(dims, keepdim=True))
    if gmean is not None:
        term = (gmean / n).expand(x.shape)
        gx = term if gx is None else gx + term
    return gx


def _group_norm_grads(gs, x, w, b, N, C, HxW, group, eps, outs):
    """PyTorch's infinitely_differentiable_native_group_norm_backward when a graph is built; the
    same on arrays otherwise."""
    dY, dmean, drstd = gs
    G = group
    D = C // G
    if not _grad_mode._enabled and not _grad_mode._fw_active:
        return _group_norm_grads_arrays(dY, dmean, drstd, x, w, b, N, C, HxW, G, outs)
    s = 1.0 / (D * HxW)
    X = x.reshape(N, G, D, HxW)
    mean, rstd = outs.get(1).reshape(N, G, 1, 1), outs.get(2).reshape(N, G, 1, 1)
    dX = dgamma = dbeta = None
    if dY is not None:
        dY_t = dY.reshape(N, G, D, HxW)
        ds = (dY_t * X).sum(3).unsqueeze_(-1)
        db = dY_t.sum(3).unsqueeze_(-1)
    gamma = None if w is None else w.reshape(1, G, D, 1)
    rstd_cube = rstd * rstd * rstd
    dvar = None if drstd is None else _mul_scalar(rstd_cube, -0.5) * drstd.view(N, G, 1, 1)
    if dY is not None:
        a = rstd if gamma is None else rstd * gamma
        bb = (ds.sum(2) if gamma is None else (ds * gamma).sum(2)).unsqueeze_(-2)
        cc = (db.sum(2) if gamma is None else (db * gamma).sum(2)).unsqueeze_(-2)
        bb = _mul_scalar((cc * mean - bb) * rstd_cube, s)
        cc = -bb * mean - _mul_scalar(cc * rstd, s)
        dX = a * dY_t + bb * X + cc
    if dmean is not None and drstd is not None:  # (PyTorch drops either grad without the other)
        term = _var_mean_backward(dvar, dmean.view(N, G, 1, 1), X, (2, 3), D * HxW)
        dX = term if dX is None else dX + term
    if dX is not None:
        dX = dX.reshape(x.shape)
    if dY is not None:
        dgamma = ((ds - db * mean) * rstd).sum(0).reshape(C)
        dbeta = db.sum(0).reshape(C)
    return dX, dgamma, dbeta


def _group_norm_grads_arrays(dY, dmean, drstd, x, w, b, N, C, HxW, G, outs):
    d = x._data
    D = C // G
    X = _float(d).reshape(N, G, D * HxW)
    mean, rstd = (_float(outs.get(i, graph=False)._data)[..., None] for i in (1, 2))
    dX = dgamma = dbeta = None
    with np.errstate(all="ignore"):
        xhat = (X - mean) * rstd
        if dY is not None:
            go = _float(dY._data).reshape(N, G, D * HxW)
            per_channel = (N, G, D, HxW)
            dgamma = (go * xhat).reshape(per_channel).sum((0, 3)).reshape(C)
            dbeta = go.reshape(per_channel).sum((0, 3)).reshape(C)
            h = go if w is None else (go.reshape(per_channel) * _float(w._data).reshape(1, G, D, 1)).reshape(go.shape)
            dX = rstd * (h - h.mean(2, keepdims=True) - xhat * (h * xhat).mean(2, keepdims=True))
        if dmean is not None and drstd is not None:
            m = D * HxW
            gmean, grstd = _float(dmean._data)[..., None], _float(drstd._data)[..., None]
            term = gmean / m - rstd * rstd * rstd / m * (X - mean) * grstd
            dX = term if dX is None else dX + term
    dt = d.dtype
    return (None if dX is None else _wrap(dX.reshape(d.shape).astype(dt, copy=False)),
            None if dgamma is None or w is None else _wrap(dgamma.astype(dt, copy=False)),
            None if dbeta is None or b is None else _wrap(dbeta.astype(dt, copy=False)))


GROUP_NORM = defop("NativeGroupNormBackward0", *_shared_rules(3, _group_norm_grads), saves=(0, 1),
                   outputs=(0, 1, 2))


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm``: ``(output, mean, rstd)``, all three outputs of its node."""
    d = input._data
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(d.shape)} and num_groups={group}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.size != C):
            # (PyTorch's message for the bias shows the weight's shape: [0] without one)
            shown = [0] if weight is None else list(weight._data.shape)
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shown} and input of shape {list(d.shape)}")
    _check_floating(input, "GroupNormKernelImpl")
    _check_dtypes(input, weight, bias)
    return _native_group_norm(input, weight, bias, N, C, HxW, group, eps)


def _torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm``."""
    d = input._data
    n, c = d.shape[:2]
    return native_group_norm(input, weight, bias, n, c, math.prod(d.shape[2:]), num_groups, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    r"""Splits the channels (dim 1) into ``num_groups`` groups and normalizes each group of each
    sample over its values, then scales and shifts per channel. One ``NativeGroupNormBackward0``
    node.

    >>> x = torch.tensor([[1., 3., 0., 4.]], requires_grad=True)
    >>> F.group_norm(x, 2)
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]],
           grad_fn=<NativeGroupNormBackward0>)
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = list(input.shape)
    _verify_batch_size([size[0] * size[1] // num_groups, num_groups] + size[2:])
    return _torch_group_norm(input, num_groups, weight, bias, eps)


# ----- rms_norm: composed as PyTorch composes it on the CPU -----

_warned = {"rms_norm": False}


def rms_norm(input, normalized_shape, weight=None, eps=None):
    r"""Divides by the root mean square over the last ``len(normalized_shape)`` dims, then scales by
    ``weight``: ``x * rsqrt(mean(x ** 2) + eps) * weight``, with ``eps`` by default the machine
    epsilon of the input's dtype. PyTorch composes it of ops (Pow, Mean, Add, Rsqrt, Mul): so
    does this (half computes in float).

    >>> x = torch.tensor([[3., 4.]], requires_grad=True)
    >>> F.rms_norm(x, (2,))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """
    shape = _normalized_shape(normalized_shape, "rms_norm")
    _check_layer_norm(input, shape, weight, None, sep="")
    if weight is not None and weight._data.dtype != input._data.dtype and not _warned["rms_norm"]:
        _warned["rms_norm"] = True  # TORCH_WARN_ONCE: once per process
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = {_scalar_type(input).lower()}, weight "
                      f"dtype = {_scalar_type(weight).lower()}, Cannot dispatch to fused implementation. (Triggered "
                      "internally at /__w/pytorch/pytorch/aten/src/ATen/native/layer_norm.cpp:346.)", UserWarning,
                      stacklevel=2)
    nd = input.dim()
    dims = [nd - i - 1 for i in range(len(shape))]
    half = input._data.dtype == np.float16
    x = input.float() if half else input
    if eps is None:
        eps = float(np.finfo(x._data.dtype).eps)
    out = x * _add_scalar(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    if weight is not None:
        out = out * (weight.float() if half else weight)
    return out.to(input.dtype) if half else out


# ----- grad_fn._saved_* of these nodes, named as PyTorch names them -----

_TENSOR = _saved_tensor_attr
_SAVED = {
    "NativeBatchNormBackward0": {"eps": _saved_attr("eps"), "input": _saved_slot(0), "result1": _TENSOR("save_mean"),
                                 "result2": _TENSOR("save_invstd"), "running_mean": _TENSOR("running_mean"),
                                 "running_var": _TENSOR("running_var"), "training": _saved_attr("training"),
                                 "weight": _saved_optional(1)},
    "NativeBatchNormBackwardBackward0": {"eps": _saved_attr("eps"), "grad_out": _saved_slot(0),
                                         "input": _saved_slot(1), "running_mean": _TENSOR("running_mean"),
                                         "running_var": _TENSOR("running_var"), "save_invstd": _saved_slot(4),
                                         "save_mean": _saved_slot(3), "train": _saved_attr("train"),
                                         "weight": _saved_optional(2)},
    "NativeLayerNormBackward0": {"bias": _saved_optional(2), "input": _saved_slot(0),
                                 "normalized_shape": _saved_attr("normalized_shape"), "result1": _TENSOR("mean"),
                                 "result2": _TENSOR("rstd"), "weight": _saved_optional(1)},
    "NativeLayerNormBackwardBackward0": {"grad_out": _saved_slot(0), "input": _saved_slot(1), "mean": _saved_slot(2),
                                         "normalized_shape": _saved_attr("normalized_shape"),
                                         "rstd": _saved_slot(3), "weight": _saved_optional(4)},
    "NativeGroupNormBackward0": {"C": _saved_attr("C"), "HxW": _saved_attr("HxW"), "N": _saved_attr("N"),
                                 "eps": _saved_attr("eps"), "group": _saved_attr("group"), "input": _saved_slot(0),
                                 "result1": _saved_output(1), "result2": _saved_output(2),
                                 "weight": _saved_optional(1)},
}
register_saved(_SAVED)
