r"""Weight normalisation (https://arxiv.org/abs/1602.07868): :math:`w = g\, v / \|v\|`.

``_weight_norm(v, g, dim)`` is PyTorch's ``torch._weight_norm``: over the first or the last dim its
CPU kernel is the fused ``_weight_norm_interface`` (one ``WeightNormInterfaceBackward0`` node, whose
derivative is FunctionsManual's ``_weight_norm_differentiable_backward``), otherwise it is composed,
``v * (g / norm_except_dim(v, 2, dim))``. The deprecated ``weight_norm`` here recomputes the weight
in a forward pre-hook; ``parametrizations.weight_norm`` is its replacement.
"""
import warnings

import numpy as np

from ... import _dtypes, _ops
from ..._ops import NORM, _norm, _RESULT, _SELF, _saved_attr, _saved_slot, _saved_tensor_attr, defop, register_saved
from ..._tensor import _wrap, record
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

# at::norm(v, p) inside PyTorch (no dim): the same rule as its other nodes
NORM_ALL = defop("NormBackward0", NORM.vjps[0], saves=(0, "result"))


def norm_except_dim(v, pow=2, dim=0):
    """PyTorch's ``torch.norm_except_dim``: the ``pow``-norm over every dim but ``dim`` (over all of
    them for ``dim=-1``), shaped to broadcast against ``v``."""
    if dim == -1:
        return _norm(v, pow, None, False, None, NORM_ALL)
    if dim == 0:
        output_size = [v.size(0)] + [1] * (v.dim() - 1)
        return _norm(v.contiguous().view(v.size(0), -1), pow, 1, False, None, _ops.NORM_DIM).view(output_size)
    if dim == v.dim() - 1:
        output_size = [1] * (v.dim() - 1) + [v.size(-1)]
        return _norm(v.contiguous().view(-1, v.size(-1)), pow, 0, False, None, _ops.NORM_DIM).view(output_size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _per_dim_sums(grad, v, dim):
    """``grad * v`` summed over every dim but ``dim`` (the first or the last), kept broadcastable."""
    bcast_size = [1] * v.dim()
    if dim == 0:
        bcast_size[0] = v.size(0)
        return (grad * v).view(v.size(0), -1).sum(1).view(bcast_size)
    bcast_size[-1] = v.size(-1)
    return (grad * v).view(-1, v.size(-1)).sum(0).view(bcast_size)


def _weight_norm_grad_v(grad, ans, v, g, dim, norms):
    per_dim_sums = _per_dim_sums(grad, v, dim)
    return (g / norms) * (grad - v * (per_dim_sums / (norms * norms)))


def _weight_norm_grad_g(grad, ans, v, g, dim, norms):
    return _per_dim_sums(grad, v, dim) / norms


WEIGHT_NORM = defop("WeightNormInterfaceBackward0", _weight_norm_grad_v, _weight_norm_grad_g, saves=(0, 1),
                    keeps=True)
register_saved({
    "WeightNormInterfaceBackward0": {"dim": _saved_attr("dim"), "v": _saved_slot(0), "g": _saved_slot(1),
                                     "result1": _saved_tensor_attr("norms")},
    "NormBackward0": {"p": _saved_attr("ord"), "self": _SELF, "result": _RESULT},
})


def _weight_norm(v, g, dim=0):
    """PyTorch's ``torch._weight_norm``: ``v * (g / ||v||)``, the norm over every dim but ``dim``."""
    v, g = v.contiguous(), g.contiguous()
    if _dtypes.float16 in (v.dtype, g.dtype) or dim not in (0, v.dim() - 1):
        return v * (g / norm_except_dim(v, 2, dim))
    vd = v._data
    axes = tuple(a for a in range(vd.ndim) if a != dim % max(vd.ndim, 1))
    norms = np.sqrt(np.sum(vd * vd, axis=axes, keepdims=True)).reshape(g._data.shape)
    w = vd * (g._data / norms)
    return record(WEIGHT_NORM, (v, g), w.astype(vd.dtype, copy=False), {"dim": dim, "norms": _wrap(norms)})


class WeightNorm:
    """The forward pre-hook of the deprecated :func:`weight_norm`."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    r"""Deprecated (use ``torch.nn.utils.parametrizations.weight_norm``): replace the parameter
    ``name`` by ``name_g`` (the norm over every dim but ``dim``; ``dim=None`` for the whole tensor)
    and ``name_v`` (the direction), and recompute ``name`` from them before each forward.

    >>> m = weight_norm(nn.Linear(20, 40), name='weight')
    >>> m.weight_g.size(), m.weight_v.size()
    (torch.Size([40, 1]), torch.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    r"""Undo :func:`weight_norm`: ``name`` is a parameter again, of the current weight's value."""
    return _remove_hook_form(module, name, WeightNorm, "weight_norm")


def _remove_hook_form(module, name, hook_type, what):
    """Take the deprecated reparametrisation ``what`` (a forward pre-hook of ``hook_type``) off ``name``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
