"""``torch.optim.Adamax``."""
import numpy as np

from . import _arith
from .optimizer import (Optimizer, _check_adam_args, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Implements Adamax algorithm (a variant of Adam based on infinity norm).

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), at step ``t``::

        g = g + weight_decay * p
        m = lerp(m, g, 1 - beta1)
        u = max(beta2 * u, |g| + eps)
        p = p - lr / (1 - beta1 ** t) * m / u

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 2e-3)
        betas (tuple[float, float], optional): coefficients used for computing running averages of
            gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
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
        lr, eps = _to_scalar(group["lr"]), group["eps"]
        beta1, beta2 = group["betas"]
        weight_decay = group["weight_decay"]
        def init(p):
            return {"step": _scalar_tensor(0.0), "exp_avg": _zeros_like(p), "exp_inf": _zeros_like(p)}

        for p, state, grad in self._group_params(group, init):
            step_t, exp_avg, exp_inf = state["step"], state["exp_avg"], state["exp_inf"]
            _set(step_t, step_t._data + 1)
            if weight_decay != 0:
                grad = _arith.add(grad, p._data, weight_decay)
            _set(exp_avg, _arith.lerp(exp_avg._data, grad, 1 - beta1))
            _set(exp_inf, np.maximum(_arith.mul(exp_inf._data, beta2), _arith.add_scalar(np.abs(grad), eps)))
            clr = lr / (1 - beta1 ** step_t._data.item())
            _update_param(p, _arith.addcdiv(p._data, exp_avg._data, exp_inf._data, -clr))
