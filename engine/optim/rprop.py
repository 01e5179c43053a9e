"""``torch.optim.Rprop``."""
import numpy as np

from .._tensor import Tensor, _wrap
from . import _arith
from .optimizer import (Optimizer, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Implements the resilient backpropagation algorithm.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), elementwise::

        f = etaplus if g * g_prev > 0, etaminus if g * g_prev < 0, else 1
        step_size = clamp(step_size * f, step_size_min, step_size_max)   (starts at lr)
        g = 0 where f == etaminus
        p = p - sign(g) * step_size;  g_prev = g

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-2)
        etas (tuple[float, float], optional): pair of (etaminus, etaplus), that are
            multiplicative increase and decrease factors (default: (0.5, 1.2))
        step_sizes (tuple[float, float], optional): a pair of minimal and maximal allowed step
            sizes (default: (1e-6, 50))
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._restore_state((("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False)))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        return self._step(closure)

    def _step_group(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        def init(p):
            return {"step": _scalar_tensor(0.0), "prev": _zeros_like(p),
                    "step_size": _wrap(np.full_like(p.grad._data, _to_scalar(group["lr"])))}

        for p, state, grad in self._group_params(group, init):
            prev, step_size = state["prev"], state["step_size"]
            _set(state["step"], state["step"]._data + 1)
            dt = grad.dtype.type
            sign = np.sign(grad * prev._data)
            # one masked write after another, as PyTorch's (a NaN sign stays NaN)
            sign[sign > 0] = etaplus
            sign[sign < 0] = etaminus
            sign[sign == 0] = 1
            new_size = (step_size._data * sign).astype(step_size._data.dtype, copy=False)
            _set(step_size, np.clip(new_size, dt(step_size_min), dt(step_size_max)))
            grad = grad.copy()
            grad[sign == dt(etaminus)] = 0
            _update_param(p, _arith.addcmul(p._data, np.sign(grad), step_size._data, -1))
            _set(prev, grad)
