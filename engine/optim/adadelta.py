"""``torch.optim.Adadelta``."""
from .._tensor import Tensor
from . import _arith
from .optimizer import (Optimizer, _scalar_tensor, _set, _to_scalar, _update_param, _use_grad_for_differentiable,
                        _zeros_like)

__all__ = ["Adadelta"]

# Adadelta's capturable check leaves out XLA.
_CAPTURABLE_ON_CPU = ("If capturable=True, params and state_steps must be on supported devices: "
                      "['cuda', 'xpu', 'hpu', 'privateuseone'].")


class Adadelta(Optimizer):
    r"""Implements Adadelta algorithm.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``)::

        g = g + weight_decay * p
        v = rho * v + (1 - rho) * g * g
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): coefficient that scale delta before it is applied to the
            parameters (default: 1.0)
        rho (float, optional): coefficient used for computing a running average of squared
            gradients (default: 0.9)
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-6)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
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
        lr, rho, eps = _to_scalar(group["lr"]), group["rho"], group["eps"]
        weight_decay = group["weight_decay"]
        def init(p):
            return {"step": _scalar_tensor(0.0), "square_avg": _zeros_like(p), "acc_delta": _zeros_like(p)}

        for p, state, grad in self._group_params(group, init, _CAPTURABLE_ON_CPU):
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            _set(state["step"], state["step"]._data + 1)
            if weight_decay != 0:
                grad = _arith.add(grad, p._data, weight_decay)
            _set(square_avg, _arith.mul(square_avg._data, rho))
            _set(square_avg, _arith.addcmul(square_avg._data, grad, grad, 1 - rho))
            std = _arith.sqrt(_arith.add_scalar(square_avg._data, eps))
            delta = _arith.sqrt(_arith.add_scalar(acc_delta._data, eps))
            delta = (delta / std * grad).astype(delta.dtype, copy=False)
            _set(acc_delta, _arith.mul(acc_delta._data, rho))
            _set(acc_delta, _arith.addcmul(acc_delta._data, delta, delta, 1 - rho))
            _update_param(p, _arith.add(p._data, delta, -lr))
