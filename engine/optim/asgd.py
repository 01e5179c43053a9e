"""``torch.optim.ASGD``."""
import numpy as np

from .._tensor import Tensor, _wrap
from . import _arith
from .optimizer import (Optimizer, _get_scalar_dtype, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["ASGD"]

_CAPTURABLE_ON_CPU = ("If capturable=True, params, mus, etas, and state_steps must be on supported devices: "
                      "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


class ASGD(Optimizer):
    r"""Implements Averaged Stochastic Gradient Descent.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), at step ``t``::

        g = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + mu * (p - ax)             (ax = p while mu is 1)
        eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

    ``eta`` and ``mu`` are 0-d tensors of the scalar dtype (float32 unless the default dtype is
    float64), as PyTorch keeps them; ``ax`` is the running average of the parameter.

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-2)
        lambd (float, optional): decay term (default: 1e-4)
        alpha (float, optional): power for eta update (default: 0.75)
        t0 (float, optional): point at which to start averaging (default: 1e6)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._restore_state((("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False)),
                            ("step", "eta", "mu"))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        return self._step(closure)

    def _step_group(self, group):
        lr, lambd, alpha, t0 = _to_scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        def init(p):
            return {"step": _scalar_tensor(0.0), "eta": _wrap(np.array(lr, dtype=_get_scalar_dtype().np)),
                    "mu": _scalar_tensor(1.0), "ax": _zeros_like(p)}

        for p, state, grad in self._group_params(group, init, _CAPTURABLE_ON_CPU):
            step_t, eta, mu, ax = state["step"], state["eta"], state["mu"], state["ax"]
            _set(step_t, step_t._data + 1)
            if weight_decay != 0:
                grad = _arith.add(grad, p._data, weight_decay)
            eta_value = eta._data.item()
            _update_param(p, _arith.mul(p._data, 1 - lambd * eta_value))
            _update_param(p, _arith.add(p._data, grad, -eta_value))
            if mu._data.item() != 1:
                # param.sub(ax).mul_(mu): mu, a 0-d tensor, takes the parameter's dtype
                diff = p._data - ax._data
                _set(ax, ax._data + (diff * mu._data.astype(diff.dtype)).astype(diff.dtype, copy=False))
            else:
                _set(ax, p._data)
            step = step_t._data.item()
            _set(eta, lr / ((1 + lambd * lr * step) ** alpha))
            _set(mu, 1 / max(1, step - t0))
