"""``torch.optim.Adagrad``."""
import numpy as np

from .._tensor import Tensor, _wrap
from . import _arith
from .optimizer import Optimizer, _scalar_tensor, _set, _to_scalar, _update_param, _use_grad_for_differentiable

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Implements Adagrad algorithm.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), at step ``t``::

        g = g + weight_decay * p
        s = s + g * g                       (s starts at initial_accumulator_value)
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-2)
        lr_decay (float, optional): learning rate decay (default: 0)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        initial_accumulator_value (float, optional): initial value of the sum of squares of
            gradients (default: 0)
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-10)
        foreach, fused (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # Unlike the other optimizers, Adagrad makes every parameter's state up front.
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group, initial_accumulator_value)

    def _init_state(self, p, group, initial_accumulator_value):
        state = self.state[p]
        state["step"] = _scalar_tensor(0.0, group["fused"])
        state["sum"] = _wrap(np.full_like(p._data, initial_accumulator_value))

    def __setstate__(self, state):
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False), ("differentiable", False)):
                group.setdefault(key, default)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _scalar_tensor(float(p_state["step"]), group["fused"])
        state_values = list(self.state.values())
        if state_values and not isinstance(state_values[0]["step"], Tensor):
            for s in state_values:
                s["step"] = _scalar_tensor(float(s["step"]), fused)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        return self._step(closure)

    def _step_group(self, group):
        lr, lr_decay, eps = _to_scalar(group["lr"]), group["lr_decay"], group["eps"]
        weight_decay = group["weight_decay"]
        params = [p for p in group["params"] if p.grad is not None]
        for p in params:
            if len(self.state[p]) == 0:
                self._init_state(p, group, self.defaults["initial_accumulator_value"])
        for p in params:
            state = self.state[p]
            step_t, state_sum = state["step"], state["sum"]
            _set(step_t, step_t._data + 1)
            step = step_t._data.item()
            grad = p.grad._data
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = _arith.add(grad, p._data, weight_decay)
            clr = lr / (1 + (step - 1) * lr_decay)
            _set(state_sum, _arith.addcmul(state_sum._data, grad, grad, 1))
            std = _arith.add_scalar(_arith.sqrt(state_sum._data), eps)
            _update_param(p, _arith.addcdiv(p._data, grad, std, -clr))
