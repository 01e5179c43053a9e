"""``torch.optim.RMSprop``."""
from .._tensor import Tensor
from . import _arith
from .optimizer import (Optimizer, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""Implements RMSprop algorithm.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``)::

        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        avg = sqrt(v - m * m) + eps,  m = lerp(m, g, 1 - alpha)    (centered)
        avg = sqrt(v) + eps                                         (otherwise)
        b = momentum * b + g / avg;  p = p - lr * b                 (momentum > 0)
        p = p - lr * g / avg                                        (otherwise)

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-2)
        alpha (float, optional): smoothing constant (default: 0.99)
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        momentum (float, optional): momentum factor (default: 0)
        centered (bool, optional): if ``True``, compute the centered RMSProp, the gradient is
            normalized by an estimation of its variance (default: False)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._restore_state((("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                             ("differentiable", False), ("capturable", False)))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        return self._step(closure)

    def _step_group(self, group):
        lr, alpha, eps = _to_scalar(group["lr"]), group["alpha"], group["eps"]
        weight_decay, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]

        def init(p):
            state = {"step": _scalar_tensor(0.0), "square_avg": _zeros_like(p)}
            if momentum > 0:
                state["momentum_buffer"] = _zeros_like(p)
            if centered:
                state["grad_avg"] = _zeros_like(p)
            return state

        for p, state, grad in self._group_params(group, init):
            square_avg = state["square_avg"]
            _set(state["step"], state["step"]._data + 1)
            if weight_decay != 0:
                grad = _arith.add(grad, p._data, weight_decay)
            _set(square_avg, _arith.mul(square_avg._data, alpha))
            _set(square_avg, _arith.addcmul(square_avg._data, grad, grad, 1 - alpha))
            if centered:
                grad_avg = state["grad_avg"]
                _set(grad_avg, _arith.lerp(grad_avg._data, grad, 1 - alpha))
                avg = _arith.sqrt(_arith.addcmul(square_avg._data, grad_avg._data, grad_avg._data, -1))
            else:
                avg = _arith.sqrt(square_avg._data)
            avg = _arith.add_scalar(avg, eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                _set(buf, _arith.mul(buf._data, momentum))
                _set(buf, _arith.addcdiv(buf._data, grad, avg, 1))
                _update_param(p, _arith.add(p._data, buf._data, -lr))
            else:
                _update_param(p, _arith.addcdiv(p._data, grad, avg, -lr))
