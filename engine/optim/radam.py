"""``torch.optim.RAdam``."""
from . import _arith
from .optimizer import (Optimizer, _check_adam_args, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["RAdam"]


def _rdiv(s, a):
    """``s / a`` for a number ``s`` and an array ``a``, in ``a``'s opmath type."""
    op = _arith._op(a.dtype)
    return (op.type(s) / _arith._in(a, op)).astype(a.dtype, copy=False)


def _mul(a, b):
    """Elementwise ``a * b`` of two arrays of one dtype."""
    op = _arith._op(a.dtype)
    return (_arith._in(a, op) * _arith._in(b, op)).astype(a.dtype, copy=False)


class RAdam(Optimizer):
    r"""Implements RAdam algorithm: Adam whose adaptive step is rectified (turned off while the
    variance estimate is unreliable).

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), at step ``t``::

        g = g + weight_decay * p            (p = p * (1 - lr * weight_decay) if decoupled_weight_decay)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2 ** t / (1 - beta2 ** t)
        p = p - m / (1 - beta1 ** t) * lr * sqrt(1 - beta2 ** t) / (sqrt(v) + eps) * r_t   (rho_t > 5)
        p = p - m / (1 - beta1 ** t) * lr                                                 (otherwise)

    with ``r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-3)
        betas (tuple[float, float], optional): coefficients used for computing running averages of
            gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        decoupled_weight_decay (bool, optional): whether to decouple the weight decay as in AdamW
            to obtain RAdamW (default: False)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._restore_state((("foreach", None), ("maximize", False), ("differentiable", False),
                             ("decoupled_weight_decay", False), ("capturable", False)))

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
            return {"step": _scalar_tensor(0.0), "exp_avg": _zeros_like(p), "exp_avg_sq": _zeros_like(p)}

        for p, state, grad in self._group_params(group, init):
            step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
            _set(step_t, step_t._data + 1)
            step = step_t._data.item()

            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _update_param(p, _arith.mul(p._data, 1 - lr * weight_decay))
                else:
                    grad = _arith.add(grad, p._data, weight_decay)

            _set(exp_avg, _arith.lerp(exp_avg._data, grad, 1 - beta1))
            _set(exp_avg_sq, _arith.mul(exp_avg_sq._data, beta2))
            _set(exp_avg_sq, _arith.addcmul(exp_avg_sq._data, grad, grad, 1 - beta2))

            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            update = _arith.mul(_arith.div(exp_avg._data, bias_correction1), lr)
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = _rdiv(bias_correction2 ** 0.5,
                                    _arith.add_scalar(_arith.sqrt(exp_avg_sq._data), eps))
                update = _arith.mul(_mul(update, adaptive_lr), rect)
            _update_param(p, _arith.add(p._data, update, -1.0))
