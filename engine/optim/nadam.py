"""``torch.optim.NAdam``."""
from . import _arith
from .optimizer import (Optimizer, _check_adam_args, _scalar_tensor, _set, _to_scalar, _update_param,
                        _use_grad_for_differentiable, _zeros_like)

__all__ = ["NAdam"]

_CAPTURABLE_ON_CPU = ("If capturable=True, params, mu_products and state_steps must be on supported devices: "
                      "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


class NAdam(Optimizer):
    r"""Implements NAdam algorithm: Adam with Nesterov momentum.

    For each parameter with a gradient ``g`` (``-g`` when ``maximize``), at step ``t``::

        g = g + weight_decay * p            (p = p * (1 - lr * weight_decay) if decoupled_weight_decay)
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay));  mu_product = mu_product * mu_t
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        denom = sqrt(v / (1 - beta2 ** t)) + eps
        p = p - lr * (1 - mu_t) / (1 - mu_product) * g / denom
              - lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 2e-3)
        betas (tuple[float, float], optional): coefficients used for computing running averages of
            gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        momentum_decay (float, optional): momentum momentum_decay (default: 4e-3)
        decoupled_weight_decay (bool, optional): whether to decouple the weight decay as in AdamW
            to obtain NAdamW (default: False)
        foreach (bool, optional): accepted for PyTorch compatibility (default: None)
        maximize (bool, optional): maximize the objective with respect to the params, instead of
            minimizing (default: False)
        capturable (bool, optional): graph capture needs an accelerator: True raises PyTorch's
            CPU error at the first step (default: False)
        differentiable (bool, optional): run the step with autograd on (default: False)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._restore_state((("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False),
                             ("decoupled_weight_decay", False)), ("step", "mu_product"))

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
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        def init(p):
            return {"step": _scalar_tensor(0.0), "mu_product": _scalar_tensor(1.0), "exp_avg": _zeros_like(p),
                    "exp_avg_sq": _zeros_like(p)}

        for p, state, grad in self._group_params(group, init, _CAPTURABLE_ON_CPU):
            step_t, mu_product = state["step"], state["mu_product"]
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            _set(step_t, step_t._data + 1)
            step = step_t._data.item()
            bias_correction2 = 1 - beta2 ** step

            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    _update_param(p, _arith.mul(p._data, 1 - lr * weight_decay))
                else:
                    grad = _arith.add(grad, p._data, weight_decay)

            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            # mu_product is a 0-d tensor of the scalar dtype (float32): its product rounds there
            _set(mu_product, _arith.mul(mu_product._data, mu))

            _set(exp_avg, _arith.lerp(exp_avg._data, grad, 1 - beta1))
            _set(exp_avg_sq, _arith.mul(exp_avg_sq._data, beta2))
            _set(exp_avg_sq, _arith.addcmul(exp_avg_sq._data, grad, grad, 1 - beta2))
            denom = _arith.add_scalar(_arith.sqrt(_arith.div(exp_avg_sq._data, bias_correction2)), eps)

            mu_product_value = mu_product._data.item()
            mu_product_next = mu_product_value * mu_next
            _update_param(p, _arith.addcdiv(p._data, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product_value)))
            _update_param(p, _arith.addcdiv(p._data, exp_avg._data, denom, (-lr * mu_next) / (1.0 - mu_product_next)))
