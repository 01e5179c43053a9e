"""``torch.optim.SGD``."""
from .._tensor import Tensor, _wrap
from . import _arith
from .optimizer import Optimizer, _to_scalar, _update_param, _set, _use_grad_for_differentiable

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Implements stochastic gradient descent (optionally with momentum).

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``)::

        g = g + weight_decay * p
        b = g on the first step, else momentum * b + (1 - dampening) * g   (when momentum != 0)
        g = g + momentum * b if nesterov else b
        p = p - lr * g

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-3)
        momentum (float, optional): momentum factor (default: 0)
        dampening (float, optional): dampening for momentum (default: 0)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        nesterov (bool, optional): enables Nesterov momentum. Only applicable when momentum is
            non-zero. (default: False)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        foreach, fused (bool, optional): accepted for PyTorch compatibility; the update is always
            PyTorch's single-tensor (for-loop) one (default: None)
        differentiable (bool, optional): run the step with autograd on (default: False)

    Example:
        >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> optimizer.zero_grad()
        >>> loss_fn(model(input), target).backward()
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        return self._step(closure)

    def _step_group(self, group):
        lr, momentum = _to_scalar(group["lr"]), group["momentum"]
        weight_decay, dampening = group["weight_decay"], group["dampening"]
        params = [p for p in group["params"] if p.grad is not None]
        # Read before the updates, as PyTorch does (a parameter listed twice starts two buffers).
        buffers = [self.state[p].get("momentum_buffer") for p in params] if momentum != 0 else None
        for i, p in enumerate(params):
            grad = p.grad._data
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = _arith.add(grad, p._data, _to_scalar(weight_decay))
            if momentum != 0:
                buf = buffers[i]
                if buf is None:
                    buf = buffers[i] = _wrap(grad.copy())
                else:
                    _set(buf, _arith.mul(buf._data, momentum))
                    _set(buf, _arith.add(buf._data, grad, 1 - dampening))
                grad = _arith.add(grad, buf._data, momentum) if group["nesterov"] else buf._data
            _update_param(p, _arith.add(p._data, grad, -lr))
        if momentum != 0:
            for p, buf in zip(params, buffers):
                self.state[p]["momentum_buffer"] = buf
