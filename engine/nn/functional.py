"""``torch.nn.functional``: activations, losses and the like. An op PyTorch records as a node of
its own is one here too (see engine._ops); the others are composed of ops as PyTorch composes
them, so their graphs show the same nodes."""
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
    return hardtanh(input, 0.0, 6.0, inplace)


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


def _dropout(input, p, training, inplace, feature=False):
    """``input * noise``, the noise a Bernoulli(1 - p) draw divided by ``1 - p``: one per element, or
    with ``feature`` one per (sample, channel), shaped ``(N, C, 1, ...)`` as PyTorch's
    ``feature_dropout``. ``p == 1`` multiplies by a zero scalar."""
    _check_dropout_p(p)
    if not training or p == 0 or input.numel() == 0:
        return input
    d = input._data
    dt = d.dtype if d.dtype.kind == "f" else np.dtype(np.float32)
    if p == 1:
        noise = _wrap(np.zeros((), dtype=dt))
    else:
        shape = d.shape
        if feature:
            if d.ndim < 2:
                raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
            shape = shape[:2] + (1,) * (d.ndim - 2)
        if feature:
            keep = default_generator.uniform(shape, np.dtype(np.float64)) < 1 - p
        else:  # (drawn in the memory order of the input's layout, as PyTorch's empty_like noise is)
            keep = filled_like(d, default_generator.uniform, np.dtype(np.float64)) < 1 - p
        noise = _wrap(keep.astype(dt) / dt.type(1 - p))
    return input.mul_(noise) if inplace else input * noise


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
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    need_tensor("pairwise_distance", "x1", 1, x1)
    need_tensor("pairwise_distance", "x2", 2, x2)
    dim = max(x1.dim(), x2.dim()) - 1
    d = _ops._add_scalar(x1 - x2, eps)
    return _ops._norm(d, p, dim, keepdim, None, _ops.NORM_DIM)


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


__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu", "softplus", "silu", "elu",
           "mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "nll_loss", "linear", "gelu", "hardtanh", "relu6", "softsign", "logsigmoid", "selu", "celu", "mish",
           "hardsigmoid", "hardswish", "softmin", "glu", "threshold", "smooth_l1_loss", "huber_loss", "kl_div",
           "normalize", "cosine_similarity", "pairwise_distance", "one_hot", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "embedding"]


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

