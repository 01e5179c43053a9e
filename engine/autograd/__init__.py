"""``torch.autograd``: ``backward``, ``grad``, custom ``Function`` and the grad-mode switches.

>>> x = torch.tensor(3., requires_grad=True)
>>> (dy,) = torch.autograd.grad(x ** 3, x, create_graph=True)
>>> dy, torch.autograd.grad(dy, x)
(tensor(27., grad_fn=<MulBackward0>), (tensor(18.),))
"""
from .. import _grad_mode
from .._tensor import Tensor
from .. import _lazy
from . import anomaly_mode, function, functional, grad_mode, graph, variable
from ._engine import is_checkpoint_valid as _is_checkpoint_valid, make_grads, run_backward
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .variable import Variable


def _tensors(x):
    if x is None:
        return None
    return (x,) if isinstance(x, (Tensor, graph.GradientEdge)) else tuple(x)


def _grad_list(grads, n):
    if grads is None:
        return [None] * n
    if isinstance(grads, Tensor) or not isinstance(grads, (list, tuple)):
        grads = (grads,)
    grads = list(grads)
    if len(grads) != n:
        raise RuntimeError(f"got {n} tensors and {len(grads)} gradients")
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves of their graph."""
    tensors = _tensors(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = make_grads(tensors, _grad_list(grad_tensors, len(tensors)), create_graph)
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned instead of accumulated."""
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = make_grads(outputs, _grad_list(grad_outputs, len(outputs)), create_graph)
    return run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False,
                        allow_unused=allow_unused, materialize_grads=materialize_grads)


__all__ = ["Variable", "Function", "backward", "grad_mode", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "detect_anomaly", "set_detect_anomaly", "once_differentiable", "functional",
           "gradcheck", "gradgradcheck"]


# Loaded at first use (its NamedTuple costs start-up time the page's first view waits for).
__getattr__ = _lazy.lazy_getattr(__name__, "torch.autograd", {"forward_ad": ("forward_ad", None)})
