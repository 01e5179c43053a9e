"""Forward-mode AD: ``torch.autograd.forward_ad`` (dual tensors carrying a tangent).

>>> import torch.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(torch.tensor([1., 2.]), torch.tensor([1., 0.]))
...     fwAD.unpack_dual(x * x).tangent
tensor([2., 0.])

Every op's tangent is its Jacobian-vector product, worked out from the op's own backward rule
(the rule is linear in the grad, so J t is the gradient of <vjp(u), t> with respect to u): one
registry of derivatives serves both modes, and every differentiable op has a tangent.
"""
import weakref
from typing import NamedTuple

import numpy as np

from .. import _grad_mode
from .._tensor import Tensor, _wrap

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_current_level = -1
_duals = []  # weak references to the tensors given a tangent at the current level: exit clears them


def enter_dual_level():
    """Enter a new forward grad level (only one at a time, as in PyTorch)."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    _grad_mode._fw_active = True
    return _current_level


def exit_dual_level(*, level=None):
    """Exit the forward grad level: every tangent made in it is dropped."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in _duals:
        t = ref()
        if t is not None:
            t._fw_grad = None
    _duals.clear()
    _current_level = level - 1
    _grad_mode._fw_active = False


class dual_level:
    """Context manager (and decorator) for forward AD: tangents live until it exits."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal (a view) and the tangent (or None)."""

    primal: Tensor
    tangent: "Tensor | None"


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"


def _level(level, what):
    if level is None:
        level = _current_level
    if level != _current_level or level < 0 and what == "_make_dual":
        raise RuntimeError(f"Invalid level given to {what}")
    return level


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: a view of ``tensor`` carrying ``tangent`` (kept as is, not copied)."""
    if (_current_level if level is None else level) < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    _level(level, "_make_dual")
    if tensor._data.dtype.kind != "f":
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tangent._data.dtype.kind != "f":
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tensor._fw_grad is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                           f"same level {_current_level} is not supported.")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {list(tensor._data.shape)} while the given forward gradient is of "
            f"size {list(tangent._data.shape)}.")
    from .._ops import view

    _grad_mode._fw_active = False  # the view itself gets no tangent from its base
    try:
        out = view(tensor, tensor._data.shape)
    finally:
        _grad_mode._fw_active = True
    set_tangent(out, tangent)
    return out


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without its tangent, and the tangent as is."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    if (_current_level if level is None else level) < 0:
        return UnpackedDualTensor(tensor, None)
    _level(level, "_fw_primal")
    from .._ops import fw_primal

    _grad_mode._fw_active = False
    try:
        primal = fw_primal(tensor)
    finally:
        _grad_mode._fw_active = True
    return UnpackedDualTensor(primal, tensor._fw_grad)


def set_tangent(t, tangent):
    """Give ``t`` its tangent at the current level."""
    if t._fw_grad is None:
        _duals.append(weakref.ref(t))
    t._fw_grad = tangent


# ----- Tangents of ops -----

def _op_tangents(op, inputs, outs, attrs, n_outputs, keep=None):
    """Give ``outs`` (what ``record`` made of ``op`` on ``inputs``) their tangents, J t, from the
    tangents of ``inputs``: the derivative of <vjp(u), t> with respect to u, through ``op``'s own
    backward rule on a node recorded for the purpose."""
    tangents = [(k, t._fw_grad) for k, t in enumerate(inputs) if isinstance(t, Tensor) and t._fw_grad is not None]
    if not tangents:
        return
    multi = n_outputs != 1
    out_list = list(outs) if multi else [outs]
    wanted = [k for k, o in enumerate(out_list)
              if o._data.dtype.kind == "f" and (not multi or k in op.differentiable_outputs)]
    if not wanted:
        return
    # A tangent that depends on what requires grad (reverse over forward) keeps that graph.
    graph = _grad_mode._enabled and (any(isinstance(t, Tensor) and t._requires_grad for t in inputs)
                                     or any(tan._requires_grad for _, tan in tangents))
    from . import grad
    from .._ops import ELEMENTWISE, alias
    from .._tensor import record

    prev = _grad_mode._enabled
    _grad_mode._fw_active = False
    _grad_mode._set(True)
    try:
        if op in ELEMENTWISE:
            # A diagonal Jacobian: J t is the rule itself applied to t (what PyTorch's
            # auto_element_wise forward formulas are), one call instead of two backward passes.
            _grad_mode._set(graph)
            x, tan = inputs[0], tangents[0][1]
            if not graph:
                x, outs = _wrap(x._data), _wrap(outs._data)
            set_tangent(out_list[0], _as_dtype(op.vjps[0](tan, outs, x, **(attrs or {})), out_list[0]))
            return
        shadows = list(inputs)
        for k, t in enumerate(inputs):
            if isinstance(t, Tensor):
                # One stand-in per position (x * x has two), joined to x's graph when it has one.
                shadows[k] = alias(t) if graph and t._requires_grad else _wrap(t._data, t._fw_grad is not None)
        result = tuple(o._data for o in out_list) if multi else out_list[0]._data
        if attrs is not None:  # the stand-in node's own: rules keep state in some (_Shared, _SavedOutputs)
            attrs = dict(attrs)
            if "shared" in attrs:
                from .._ops import _Shared

                attrs["shared"] = _Shared(shadows)
        shadow = record(op, shadows, result, attrs, n_outputs, keep)
        shadow_outs = list(shadow) if multi else [shadow]
        wanted = [k for k in wanted if shadow_outs[k]._grad_fn is not None]
        if not wanted:
            return
        us = [_wrap(np.zeros_like(out_list[k]._data), True) for k in wanted]
        vs = grad([shadow_outs[k] for k in wanted], [shadows[k] for k, _ in tangents], us, create_graph=True,
                  allow_unused=True)
        total = None
        for v, (_, tan) in zip(vs, tangents):
            if v is not None:
                term = (v * tan).sum()
                total = term if total is None else total + term
        jts = [None] * len(us)
        if total is not None and total._grad_fn is not None:
            jts = grad(total, us, create_graph=graph, allow_unused=True)
    except NotImplementedError:
        raise _not_implemented(op) from None
    except RuntimeError as e:
        if "not implemented" in str(e) or "once_differentiable" in str(e):
            raise _not_implemented(op) from None
        raise
    finally:
        _grad_mode._set(prev)
        _grad_mode._fw_active = True
    for k, jt in zip(wanted, jts):
        o = out_list[k]
        set_tangent(o, _wrap(np.zeros_like(o._data)) if jt is None else _as_dtype(jt, o))


def _as_dtype(tangent, out):
    if tangent._data.dtype == out._data.dtype:
        return tangent
    from .._ops import to_dtype

    return to_dtype(tangent, out.dtype)


def _not_implemented(op):
    name = op.node_cls.__name__
    name = name[:-len("Backward0")] if name.endswith("Backward0") else name
    return NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not been implemented yet.")
