"""``torch.nn.functional``: activations, losses and the like. An op PyTorch records as a node of
its own is one here too (see engine._ops); the others are composed of ops as PyTorch composes
them, so their graphs show the same nodes."""
import math
import warnings

import numpy as np

from .._ops import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, gelu, glu, hardsigmoid,
                    hardswish, huber_loss, l1_loss, logsigmoid, mish, mse_loss, nll_loss,
                    smooth_l1_loss, softplus)
from .. import _grad_mode, _lazy, _ops
from .._ops import addmm, matmul
from .._factories import filled_like
from .._random import default_generator
from .._ops import need_number, need_tensor
from .._tensor import Tensor, _wrap


# PyTorch writes these in Python as ``input.<method>(...)``, so a number is an AttributeError there
# (``torch.softmax(1.0)`` is the TypeError of its argument parser).
def _no_method(input, name):
    return AttributeError(f"'{type(input).__name__}' object has no attribute '{name}'")


def sigmoid(input):
    if not isinstance(input, Tensor):
        raise _no_method(input, "sigmoid")
    return _ops.sigmoid(input)


def tanh(input):
    if not isinstance(input, Tensor):
        raise _no_method(input, "tanh")
    return _ops.tanh(input)


def _softmax_like(name, of, method, negate=False):
    def f(input, dim=None, _stacklevel=3, dtype=None):
        if not isinstance(input, Tensor):
            raise _no_method(input, "dim" if dim is None else method)
        if dim is None:
            dim = _ops._softmax_dim(input, None, name)  # (its warning names the caller's line)
        return of(-input if negate else input, dim, dtype=dtype)

    f.__name__ = f.__qualname__ = name
    return f


softmax = _softmax_like("softmax", _ops.softmax, "softmax")
log_softmax = _softmax_like("log_softmax", _ops.log_softmax, "log_softmax")
softmin = _softmax_like("softmin", _ops.softmax, "softmax", negate=True)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``AddmmBackward0`` for a 2-D input with bias, as in PyTorch)."""
    need_tensor("linear", "input", 1, input)
    need_tensor("linear", "weight", 2, weight)
    if input.dim() == 2 and bias is not None:
        return addmm(bias, input, weight.t())
    if bias is not None and input.is_contiguous():  # any other rank: flattened to 2-D around one addmm
        shape = input.shape
        out = addmm(bias, input.view(-1, shape[-1]), weight.t())
        return out.view(*shape[:-1], out.shape[1])
    out = matmul(input, weight.t())
    return out + bias if bias is not None else out


# ----- Activations -----

def _maybe_inplace(fn, input, inplace, *args):
    """``fn(input, *args)``, or with ``inplace`` its result written into ``input``, which takes over
    its history (under the in-place node name where PyTorch has one, e.g. EluBackward1)."""
    if not inplace:
        return fn(input, *args)
    from .._methods import _inplace

    return _ops.inplace_node(_inplace(fn)(input, *args))


def relu(input, inplace=False):
    return _maybe_inplace(_ops.relu, input, inplace)


def silu(input, inplace=False):
    need_tensor("silu", "input", 1, input)
    return _maybe_inplace(_ops.silu, input, inplace)


def elu(input, alpha=1.0, inplace=False):
    need_tensor("elu", "input", 1, input)
    need_number("elu", "alpha", 2, alpha)
    return _maybe_inplace(_ops.elu, input, inplace, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    need_tensor("leaky_relu", "input", 1, input)
    need_number("leaky_relu", "negative_slope", 2, negative_slope)
    return _maybe_inplace(_ops.leaky_relu, input, inplace, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    need_tensor("hardtanh", "input", 1, input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(_ops.hardtanh, input, inplace, min_val, max_val)


def relu6(input, inplace=False):
    need_tensor("relu6", "input", 1, input)
    return hardtanh(input, 0, 6, inplace)  # (ATen's relu6: hardtanh with ints, as its node keeps them)


def selu(input, inplace=False):
    need_tensor("selu", "input", 1, input)
    return _maybe_inplace(_ops.selu, input, inplace)


def celu(input, alpha=1.0, inplace=False):
    need_tensor("celu", "input", 1, input)
    need_number("celu", "alpha", 2, alpha)
    return _maybe_inplace(_ops.celu, input, inplace, alpha)


def threshold(input, threshold, value, inplace=False):
    need_tensor("threshold", "input", 1, input)
    return _maybe_inplace(_ops.threshold, input, inplace, threshold, value)


def hardshrink(input, lambd=0.5):
    return _ops.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    return _ops.softshrink(input, lambd)


def tanhshrink(input):
    """``input - tanh(input)`` (SubBackward0 after TanhBackward0), as PyTorch composes it."""
    need_tensor("tanhshrink", "input", 1, input)
    return input - input.tanh()


def prelu(input, weight):
    return _ops.prelu(input, weight)


def relu_(input):
    return relu(input, inplace=True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def softsign(input):
    return input / (input.abs() + 1)


def mish(input, inplace=False):
    need_tensor("mish", "input", 1, input)
    return _maybe_inplace(_ops.mish, input, inplace)


def hardsigmoid(input, inplace=False):
    need_tensor("hardsigmoid", "input", 1, input)
    return _maybe_inplace(_ops.hardsigmoid, input, inplace)


def hardswish(input, inplace=False):
    need_tensor("hardswish", "input", 1, input)
    return _maybe_inplace(_ops.hardswish, input, inplace)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` (drawn from the engine's generator) and scales
    the rest by ``1 / (1 - p)``: ``input * noise``, as PyTorch computes it on the CPU."""
    need_tensor("dropout", "input", 1, input)
    return _dropout(input, p, training, inplace)


def _check_dropout_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, training, inplace, feature=False, alpha=False):
    """``input * noise``, the noise a Bernoulli(1 - p) draw divided by ``1 - p``: one per element, or
    with ``feature`` one per (sample, channel), shaped ``(N, C, 1, ...)`` as PyTorch's
    ``feature_dropout``. ``p == 1`` multiplies by a zero scalar. With ``alpha`` (``alpha_dropout``),
    ``input * a * keep + b`` with PyTorch's ``a`` and ``b``, which keep a SELU output's statistics."""
    _check_dropout_p(p)
    if not training or p == 0 or input.numel() == 0:
        return input
    d = input._data
    dt = d.dtype if d.dtype.kind == "f" else np.dtype(np.float32)
    if p == 1:
        noise = _wrap(np.zeros((), dtype=d.dtype if alpha else dt))
        return input.mul_(noise) if inplace else input * noise
    shape = d.shape
    if feature:
        if d.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (d.ndim - 2)
    if alpha and d.dtype.kind != "f":  # (PyTorch's noise takes the input's dtype, then a float scale)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_ops._scalar_type(input)}")
    if feature:
        keep = default_generator.uniform(shape, np.dtype(np.float64)) < 1 - p
    else:  # (drawn in the memory order of the input's layout, as PyTorch's empty_like noise is)
        keep = filled_like(d, default_generator.uniform, np.dtype(np.float64)) < 1 - p
    if not alpha:
        noise = _wrap(keep.astype(dt) / dt.type(1 - p))
        return input.mul_(noise) if inplace else input * noise
    selu_alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((selu_alpha * selu_alpha * p + 1) * (1 - p))
    noise = keep.astype(dt)
    b = _wrap((noise - dt.type(1)) * dt.type(selu_alpha * a) + dt.type(selu_alpha * a * p))
    noise = _wrap(noise * dt.type(a))
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def _feature_dropout(input, p, training, inplace):
    return _dropout(input, p, training, inplace, feature=True)


def _unbatched_feature_dropout(input, p, training, inplace):
    """``_feature_dropout`` of ``input`` given a batch dimension of 1, which is taken off again."""
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def _warn_rank(n, ndim):
    warnings.warn(
        f"dropout{n}d: Received a {ndim}-D input to dropout{n}d, which is deprecated "
        "and will result in an error in a future release. To retain the behavior "
        f"and silence this warning, please use dropout instead. Note that dropout{n}d "
        f"exists to provide channel-wise dropout on inputs with {n} spatial dimensions, "
        f"a channel dimension, and an optional batch dimension (i.e. {n + 1}D or {n + 2}D inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (``input[i, j]`` of an ``(N, C, L)`` or ``(C, L)`` input) with
    probability ``p`` and scales the others by ``1 / (1 - p)``."""
    _check_dropout_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    if ndim == 2:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (``input[i, j]`` of an ``(N, C, H, W)`` input) with probability ``p``
    and scales the others by ``1 / (1 - p)``. A 3-D input is taken as ``(N, C, L)`` (with PyTorch's
    warning), not as an unbatched ``(C, H, W)``."""
    _check_dropout_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        _warn_rank(2, ndim)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (``input[i, j]`` of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input)
    with probability ``p`` and scales the others by ``1 / (1 - p)``."""
    _check_dropout_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        _warn_rank(3, ndim)
    if ndim != 5:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


# ----- Losses -----

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    need_tensor("kl_div", "input", 1, input)
    need_tensor("kl_div", "target", 2, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.", UserWarning,
            stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    for t in (input, target):
        if t._data.dtype.kind != "f":
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        diff = target - input  # (evaluated first in PyTorch's C++, so its node comes first)
        loss = _ops.exp(target) * diff
    else:
        cross = target * input
        loss = _ops.xlogy(target, target) - cross
    if reduction == "mean":
        return loss.mean()
    if reduction in ("sum", "batchmean"):
        loss = loss.sum()
        return loss / input.shape[0] if reduction == "batchmean" and input.dim() else loss
    return loss


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  UserWarning, stacklevel=3)
    return reduction


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _ops.soft_margin_loss(input, target, reduction)


def _reduced(loss, reduction):
    """A composite loss's ``reduction``, as the ops that show in its graph."""
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, composed as PyTorch composes it."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    for pos, (arg, t) in enumerate((("input1", input1), ("input2", input2), ("target", target)), 1):
        need_tensor("margin_ranking_loss", arg, pos, t)
    if not (input1.dim() == input2.dim() == target.dim()):
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduced(_ops.clamp_min(_ops._add_scalar(_ops.neg(target) * (input1 - input2), margin), 0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1, as PyTorch composes it."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    need_tensor("hinge_embedding_loss", "input", 1, input)
    need_tensor("hinge_embedding_loss", "target", 2, target)
    zeros = _wrap(np.zeros_like(input._data))
    margin_clamp = _ops.clamp_min(_ops.sub(_wrap(np.asarray(margin, dtype=input._data.dtype)), input), 0)
    output_margin = _ops.where(_ops.ne(target, 1), margin_clamp, zeros)
    output_self = _ops.where(_ops.ne(target, -1), input, zeros)
    return _reduced(output_margin + output_self, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """The Poisson negative log likelihood of ``target`` given the rate ``input`` (its log if
    ``log_input``), with Stirling's term if ``full``, composed as PyTorch composes it."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    need_tensor("poisson_nll_loss", "input", 1, input)
    need_tensor("poisson_nll_loss", "target", 2, target)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:  # (the product first, as PyTorch evaluates it: the order its backward runs in)
        product = target * input
        loss = _ops.exp(input) - product
    else:
        loss = input - target * _ops.log(_ops._add_scalar(input, eps))
    if full:
        t = target._data
        stirling = np.where(t > 1, t * np.log(np.where(t > 1, t, 1)) - t + 0.5 * np.log(2 * np.pi * np.where(t > 1, t, 1)), 0)
        loss = loss + _wrap(stirling.astype(loss._data.dtype, copy=False))
    return _reduced(loss, reduction)


# ----- Distances and normalization -----

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        from .. import div

        return div(input, denom, out=out)
    return input / denom


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """PyTorch's composite: each input over its norm (a clone, clamped to ``eps`` outside the
    graph), then the product summed over ``dim``."""
    need_tensor("cosine_similarity", "x1", 1, x1)
    need_tensor("cosine_similarity", "x2", 2, x2)
    if x1.shape != x2.shape:
        shape = tuple(np.broadcast_shapes(x1.shape, x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = _ops.clone(x1.norm(2, dim, keepdim=True))
    n2 = _ops.clone(x2.norm(2, dim, keepdim=True))
    for n in (n1, n2):
        np.maximum(n._data, eps, out=n._data)
        n._vc[0] += 1
    b = x2 / n2  # (first, as C++ evaluates ATen's (x1 / n1) * (x2 / n2): the graph's order is PyTorch's)
    return ((x1 / n1) * b).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    need_tensor("pairwise_distance", "x1", 1, x1)
    need_tensor("pairwise_distance", "x2", 2, x2)
    dim = max(x1.dim(), x2.dim()) - 1
    d = _ops._add_scalar(x1 - x2, eps)
    return _ops._norm(d, float(p), dim, keepdim, None, _ops.NORM_DIM)  # (p is a double in ATen's)


def one_hot(tensor, num_classes=-1):
    need_tensor("one_hot", "input", 1, tensor)
    d = tensor._data
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if d.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _wrap(np.zeros(d.shape + (num_classes,), dtype=np.int64))
    if d.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(d.max()) + 1
    elif d.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _wrap((d[..., None] == np.arange(num_classes)).astype(np.int64))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` looked up by the integer tensor ``input``: shape ``input.shape + (embedding_dim,)``.
    ``padding_idx``'s row gets no grad; with ``max_norm``, the rows looked up are first scaled down in
    place (without grad) to that norm where they exceed it."""
    need_tensor("embedding", "weight", 1, weight)
    n = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -n <= padding_idx < n:
        raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        padding_idx += n
    if not isinstance(input, _ops.Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not {type(input).__name__}")
    if max_norm is not None:
        with _grad_mode.no_grad():
            _ops.embedding_renorm_(weight, input, max_norm, norm_type)
    return _ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# ----- Resampling -----

def _is_integer(x):
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resamples ``input`` (N, C, *spatial) to ``size`` or by ``scale_factor``, as PyTorch's
    ``interpolate`` does: the same checks, then one upsample op (``UpsampleBilinear2DBackward0``,
    ...), or adaptive average pooling for ``mode='area'``."""
    from .. import _resample

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            output_size = [int(x) for x in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    spatial = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
    if 1 <= dim <= 3 and mode in ("nearest", "nearest-exact"):
        return _resample.upsample(input, mode, output_size, scale_factors)
    if 1 <= dim <= 3 and mode == "area":
        return _resample.area(input, output_size)
    if spatial.get(mode) == dim:
        return _resample.upsample(input, mode, output_size, scale_factors, align_corners, antialias)
    if dim == 2 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _resample.upsample(input, mode, output_size, scale_factors, align_corners, antialias)
    wants = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if 1 <= dim <= 3 and wants.get(mode, dim + 2) != dim + 2:
        raise NotImplementedError(f"Got {dim + 2}D input, but {mode} mode needs {wants[mode]}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | linear "
        f"| bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ----- Shuffles, gumbel_softmax, bilinear, pdist -----

def pixel_shuffle(input, upscale_factor):
    from .._nn_more import pixel_shuffle

    return pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    from .._nn_more import pixel_unshuffle

    return pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):
    from .._nn_more import channel_shuffle

    return channel_shuffle(input, groups)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution over ``dim``: ``softmax((logits + g) / tau)``
    with ``g = -log(Exp(1))`` drawn from the engine's generator; with ``hard``, the one-hot of its
    argmax, whose grads are the soft sample's (``y_hard - y_soft.detach() + y_soft``)."""
    from .._factories import empty_like, zeros_like

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def bilinear(input1, input2, weight, bias=None):
    from .._nn_more import bilinear

    return bilinear(input1, input2, weight, bias)


def pdist(input, p=2):
    from .._nn_more import pdist

    return pdist(input, p)


# ----- More losses -----

def _reduction_arg(size_average, reduce, reduction):
    """``reduction``, or what the deprecated flags stand for (with their warning); checked."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The Gaussian negative log likelihood ``0.5 (log var + (input - target)^2 / var)`` (+ 0.5
    log 2 pi with ``full``), ``var`` clamped to ``eps`` outside the graph, as PyTorch composes it."""
    from .. import _ops as ops
    from .._factories import ones_like

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif ops.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass  # (one dim of size 1 in var: the heteroscedastic case)
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (ops.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``pairwise_distance``, as PyTorch composes it."""
    reduction = _reduction_arg(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)


def _triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction):
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not a_dim == p_dim == n_dim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _ops.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduced(_ops.clamp_min(_ops._add_scalar(dist_pos, margin) - dist_neg, 0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with any ``distance_function`` (``pairwise_distance``
    by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _ops.minimum(dist_neg, distance_function(positive, negative))
    loss = _ops.clamp_min(margin + dist_pos - dist_neg, 0)
    return _reduced(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1,
    as PyTorch composes it."""
    reduction = _reduction_arg(size_average, reduce, reduction)
    return _cosine_embedding_loss(input1, input2, target, margin, reduction)


def _cosine_embedding_loss(input1, input2, target, margin, reduction):
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = _ops._add_scalar((input1 * input1).sum(targ_dim), 1e-12)
    mag_square2 = _ops._add_scalar((input2 * input2).sum(targ_dim), 1e-12)
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = _wrap(np.zeros_like(cos._data))
    pos = _ops.sub(_wrap(np.asarray(1, cos._data.dtype)), cos)
    neg = _ops._sub_scalar(cos, margin).clamp_min_(0)
    output_pos = _ops.where(_ops.eq(target, 1), pos, zeros)
    output_neg = _ops.where(_ops.eq(target, -1), neg, zeros)
    return _reduced(output_pos + output_neg, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """The multi-class hinge loss ``sum over j != y of max(0, margin - x[y] + x[j])^p`` (times
    ``weight[y]``) over the classes: one MultiMarginLossBackward0 node."""
    from .._nn_more import multi_margin_loss

    reduction = _reduction_arg(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return multi_margin_loss(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss: for each target class ``t`` (the target's leading indices up to
    a -1) and each other class ``d``, ``max(0, 1 - x[t] + x[d])``, over the classes."""
    from .._nn_more import multilabel_margin_loss

    reduction = _reduction_arg(size_average, reduce, reduction)
    return multilabel_margin_loss(input, target, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The per-class logistic loss averaged over the classes, as PyTorch composes it."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


# ----- Normalization, activations, dropout and pooling -----

def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Each element over ``(k + alpha * mean of squares over size neighbouring channels)^beta``,
    as PyTorch composes it (an average pooling over a padded channel axis)."""
    from .. import _conv

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = _conv.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = _conv.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = _conv.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = _conv.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """``input`` where positive, else ``input`` times a slope: drawn from U(lower, upper) per
    element in training, ``(lower + upper) / 2`` in evaluation (RreluWithNoiseBackward0)."""
    from .._nn_more import rrelu_with_noise

    if not inplace:
        return rrelu_with_noise(input, lower, upper, training)
    from .._methods import _inplace

    return _inplace(lambda x: rrelu_with_noise(x, lower, upper, training, inplace=True))(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def _torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return rrelu(input, lower, upper, training)


def _torch_rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return rrelu(input, lower, upper, training, inplace=True)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance: each dropped element set to
    SELU's negative saturation, then an affine map, as PyTorch's ``alpha_dropout``."""
    _check_dropout_p(p)
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` with one draw per (sample, channel)."""
    _check_dropout_p(p)
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


def _torch_alpha_dropout(input, p, train):
    return alpha_dropout(input, p, train)


def _torch_alpha_dropout_(input, p, train):
    return alpha_dropout(input, p, train, inplace=True)


def _torch_feature_alpha_dropout(input, p, train):
    return feature_alpha_dropout(input, p, train)


def _torch_feature_alpha_dropout_(input, p, train):
    return feature_alpha_dropout(input, p, train, inplace=True)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    from .. import _conv

    max_pool, avg_pool = ((_conv.max_pool1d, _conv.avg_pool1d), (_conv.max_pool2d, _conv.avg_pool2d),
                          (_conv.max_pool3d, _conv.avg_pool3d))[nd - 1]
    if isinstance(norm_type, (int, float)):
        if norm_type == math.inf:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -math.inf:
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    size = math.prod(_conv._ntuple(nd)(kernel_size)) if nd > 1 else kernel_size
    return (_ops.sign(out) * relu(_ops.abs(out))).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm over sliding windows: ``(sum x^p)^(1/p)``, from an average pooling as PyTorch computes it."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    default_size = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
                    for d in range(len(kernel_size))]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} or "
                             f"{len(kernel_size) + 2} elements, but it has a length of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {min_size} and '
                                 f'{max_size})')
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: each value put back where its index says, zeros elsewhere."""
    from .. import _conv, _nn_more

    kernel_size = _conv._single(kernel_size)
    stride = _conv._single(stride) if stride is not None else kernel_size
    padding = _conv._single(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    output_size = list(output_size) + [1] if isinstance(output_size, list) else tuple(output_size) + (1,)
    return _nn_more.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value put back where its index says, zeros elsewhere."""
    from .. import _conv, _nn_more

    kernel_size = _conv._pair(kernel_size)
    stride = _conv._pair(stride) if stride is not None else kernel_size
    padding = _conv._pair(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _nn_more.max_unpool2d(input, indices, output_size)


# ----- torch.* forms, whose reduction is PyTorch's enum -----

_REDUCTION_NAMES = ("none", "mean", "sum")


def _torch_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1):
    return _triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, _REDUCTION_NAMES[reduction])


def _torch_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _cosine_embedding_loss(input1, input2, target, margin, _REDUCTION_NAMES[reduction])


__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu", "softplus", "silu", "elu",
           "mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "nll_loss", "linear", "gelu", "hardtanh", "relu6", "softsign", "logsigmoid", "selu", "celu", "mish",
           "hardsigmoid", "hardswish", "softmin", "glu", "threshold", "smooth_l1_loss", "huber_loss", "kl_div",
           "normalize", "cosine_similarity", "pairwise_distance", "one_hot", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "embedding", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "gumbel_softmax", "bilinear", "pdist",
           "gaussian_nll_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss", "cosine_embedding_loss",
           "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "local_response_norm",
           "rrelu", "rrelu_", "alpha_dropout", "feature_alpha_dropout", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_unpool1d", "max_unpool2d"]


# Loaded at first use, not at import (see engine.__getattr__): name -> (module under engine, attribute).
_LAZY = {"scaled_dot_product_attention": ("_attention", "scaled_dot_product_attention"),
         "multi_head_attention_forward": ("_attention", "multi_head_attention_forward"),
         "batch_norm": ("_norm", "batch_norm"), "instance_norm": ("_norm", "instance_norm"),
         "layer_norm": ("_norm", "layer_norm"), "group_norm": ("_norm", "group_norm"), "rms_norm": ("_norm", "rms_norm"),
         **{name: ("_conv", name) for name in (
             "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "max_pool1d",
             "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
             "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
             "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
             "adaptive_max_pool2d_with_indices", "pad", "unfold", "fold")}}


__getattr__ = _lazy.lazy_getattr("engine", "torch.nn.functional", _LAZY)

