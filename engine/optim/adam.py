"""``torch.optim.Adam``."""
import numpy as np

from .._tensor import Tensor
from . import _arith
from .optimizer import (Optimizer, _check_adam_args, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Implements Adam algorithm.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), at step ``t``::

        g = g + weight_decay * p            (p = p * (1 - lr * weight_decay) if decoupled_weight_decay)
        m = lerp(m, g, 1 - beta1)
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)               (amsgrad; then v_max replaces v below)
        p = p - lr / (1 - beta1 ** t) * m / (sqrt(v) / sqrt(1 - beta2 ** t) + eps)

    with PyTorch's single-tensor arithmetic, operation for operation.

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-3)
        betas (tuple[float, float], optional): coefficients used for computing running averages of
            gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        decoupled_weight_decay (bool, optional): if True, this optimizer is equivalent to AdamW
            and the algorithm will not accumulate weight decay in the momentum nor variance.
            (default: False)
        amsgrad (bool, optional): whether to use the AMSGrad variant of this algorithm
            (default: False)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        foreach, fused (bool, optional): accepted for PyTorch compatibility; the update is always
            PyTorch's single-tensor (for-loop) one (default: None)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_adam_args(lr, eps, betas, weight_decay)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)
                or isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas):
            if isinstance(beta, Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b for b in betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        self._restore_state((("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                             ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None)),
                            ("step",), lambda group: group["fused"] or group["capturable"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        return self._step(closure)

    def _step_group(self, group):
        lr, eps = _to_scalar(group["lr"]), group["eps"]
        beta1, beta2 = (_to_scalar(b) for b in group["betas"])
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]

        def init(p):
            state = {"step": _scalar_tensor(0.0, group["fused"] or group["capturable"]),
                     "exp_avg": _zeros_like(p), "exp_avg_sq": _zeros_like(p)}
            if amsgrad:
                state["max_exp_avg_sq"] = _zeros_like(p)
            return state

        for p, state, grad in self._group_params(group, init):
            step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
            _set(step_t, step_t._data + 1)

            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _update_param(p, _arith.mul(p._data, 1 - lr * weight_decay))
                else:
                    grad = _arith.add(grad, p._data, weight_decay)

            _set(exp_avg, _arith.lerp(exp_avg._data, grad, 1 - beta1))
            _set(exp_avg_sq, _arith.mul(exp_avg_sq._data, beta2))
            _set(exp_avg_sq, _arith.addcmul(exp_avg_sq._data, grad, grad, 1 - beta2))

            # Python floats, as PyTorch computes them from step.item()
            step = step_t._data.item()
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5

            if amsgrad:
                max_exp_avg_sq = state["max_exp_avg_sq"]
                _set(max_exp_avg_sq, np.maximum(max_exp_avg_sq._data, exp_avg_sq._data))
                second = max_exp_avg_sq._data
            else:
                second = exp_avg_sq._data
            denom = _arith.add_scalar(_arith.div(_arith.sqrt(second), bias_correction2_sqrt), eps)
            _update_param(p, _arith.addcdiv(p._data, exp_avg._data, denom, -step_size))
