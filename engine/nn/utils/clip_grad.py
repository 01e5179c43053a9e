"""Gradient clipping: by the total norm of all gradients, or element-wise by value.

PyTorch's CPU path (foreach or not) computes each gradient's norm in its own dtype, stacks those
norms (promoting mixed dtypes) and takes their norm; the clip factor is ``max_norm / (total + 1e-6)``
capped at 1, and each gradient is multiplied by it in place. The engine does the same operations.
"""
import types
import warnings

from ... import _ops
from ..._factories import tensor
from ..._grad_mode import no_grad
from ..._tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all ``tensors`` taken together as one vector (0-d, their dtype)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    total = _ops.norm(_ops.stack([_ops.norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and not bool(_ops.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    # multiplied even when the factor is 1, as PyTorch does (its result is the same either way)
    factor = _ops.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(factor)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients of ``parameters`` in place so that their total norm is at most ``max_norm``;
    return that total norm, measured before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        was_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if was_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    total = get_total_norm([p.grad for p in parameters if p.grad is not None], norm_type, error_if_nonfinite,
                           foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated: ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
