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
from .._tensor import Tensor, _SavedResult, _wrap

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
        raise _size_error(tensor, tangent)
    from .._ops import _same_view, view

    if _same_view(tangent._data, tensor._data, tensor._data) is None:
        # laid out otherwise than the primal: copied into the primal's layout, as PyTorch does
        copy = np.empty_like(tensor._data, dtype=tangent._data.dtype)
        copy[...] = tangent._data
        tangent = _wrap(copy)
    with _grad_mode.forward_ad_off():  # the view gets no tangent from its base
        out = view(tensor, tensor._data.shape)
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

    on = _grad_mode._fw_active  # (off inside a custom Function's forward: its inputs show no tangent)
    with _grad_mode.forward_ad_off():
        primal = fw_primal(tensor)
    return UnpackedDualTensor(primal, tensor._fw_grad if on else None)


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
    prev = _grad_mode._enabled
    _grad_mode._set(True)
    try:
        with _grad_mode.forward_ad_off():
            jts = _tangents_through_rule(op, inputs, outs, attrs, n_outputs, keep, tangents, out_list, wanted,
                                         graph)
    except (NotImplementedError, RuntimeError) as e:
        raise _not_implemented(op, str(e)) from None
    finally:
        _grad_mode._set(prev)
    if jts is None:  # (no output depends on a tangent)
        return
    for o, jt in jts:
        set_tangent(o, _wrap(np.zeros_like(o._data)) if jt is None else _as_dtype(jt, o))
    _save_tangent(op, out_list[0])


def _tangents_through_rule(op, inputs, outs, attrs, n_outputs, keep, tangents, out_list, wanted, graph):
    """[(output, its tangent or None for zeros)], from ``op``'s backward rule (see _op_tangents)."""
    from . import grad
    from .._ops import ELEMENTWISE, alias
    from .._tensor import record

    multi = n_outputs != 1
    if op in ELEMENTWISE:
        # A diagonal Jacobian: J t is the rule itself applied to t (what PyTorch's auto_element_wise
        # forward formulas are), one call instead of two backward passes.
        _grad_mode._set(graph)
        x, tan = inputs[0], tangents[0][1]
        if not graph:
            x, outs = _wrap(x._data), _wrap(outs._data)
        return [(out_list[0], op.vjps[0](tan, outs, x, **(attrs or {})))]
    shadows = list(inputs)
    ids = [id(t) for t in inputs]
    for k, t in enumerate(inputs):
        if isinstance(t, Tensor):
            # One stand-in per position (x * x has two); x itself, or an alias of it when it comes
            # twice, when the tangent's graph must reach x's.
            if not (graph and t._requires_grad):
                shadows[k] = _wrap(t._data, t._fw_grad is not None)
            elif ids.count(id(t)) > 1:
                shadows[k] = alias(t)
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
        return None
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
    return [(out_list[k], jt) for k, jt in zip(wanted, jts)]


def _save_tangent(op, out):
    """A node that saved its result keeps the result's tangent with it (PyTorch's SavedVariable does)."""
    node = out._grad_fn
    if "result" in op.saves and node is not None and getattr(node, "_saved", None):
        s = node._saved[op.saves.index("result")]
        if type(s) is _SavedResult:
            s.tangent = out._fw_grad


def _as_dtype(tangent, out):
    if tangent._data.dtype == out._data.dtype:
        return tangent
    from .._ops import to_dtype

    return to_dtype(tangent, out.dtype)


def _size_error(tensor, tangent):
    return RuntimeError(
        "Trying to set a forward gradient that has a different size than that of the original Tensor, this is not "
        f"supported. Tensor is of size {list(tensor._data.shape)} while the given forward gradient is of size "
        f"{list(tangent._data.shape)}.")


def function_tangents(cls, ctx, args, outs):
    """A custom Function's output tangents: its ``jvp(ctx, *input_tangents)`` (zeros for a tensor
    input without one, None for other arguments); ``ctx.saved_tensors`` there are ``save_for_forward``'s."""
    tangents = [None if not isinstance(a, Tensor) else a._fw_grad if a._fw_grad is not None
                else _wrap(np.zeros_like(a._data)) for a in args]
    ctx._jvp_saved = getattr(ctx, "saved_for_forward", ())
    try:
        with _grad_mode.forward_ad_off():
            result = cls.jvp(ctx, *tangents)
    finally:
        ctx._jvp_saved = None
    if not isinstance(result, tuple):
        result = (result,)
    if len(result) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outs)} "
                           f"but got {len(result)})")
    for i, (o, r) in enumerate(zip(outs, result)):
        if r is None:
            continue
        if not isinstance(r, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(r).__name__}) for grad output {i}.")
        if isinstance(o, Tensor) and o._data.dtype.kind == "f":
            if r._data.shape != o._data.shape:
                raise _size_error(o, r)
            set_tangent(o, r)


def _not_implemented(op, message):
    """PyTorch's error for an op without a forward formula: a rule that raises in a double backward."""
    if op.node_cls.__name__ == "NotImplemented":  # "derivative for aten::heaviside is not implemented"
        name = message.split("derivative for ", 1)[-1].split(" ", 1)[0]
        return NotImplementedError(f"Trying to use forward AD with {name} that does not support it.")
    name = op.aten or op.node_cls.__name__
    return not_implemented_yet(name[:-len("Backward0")] if name.endswith("Backward0") else name)


def not_implemented_yet(name):
    """PyTorch's error for the ATen op ``name``, which has no forward formula in derivatives.yaml."""
    return NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not been implemented yet.\n"
        "Please file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml"
        " so that we can prioritize its implementation or submit a PR adding the implementation to derivatives.yaml")
