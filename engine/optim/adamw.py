"""``torch.optim.AdamW``."""
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""Implements AdamW algorithm: Adam with decoupled weight decay, which shrinks the parameters
    (``p = p * (1 - lr * weight_decay)``) instead of adding to the gradient, so it does not
    accumulate in the momentum nor variance.

    Args:
        params (iterable): iterable of parameters or named_parameters to optimize or iterable of
            dicts defining parameter groups
        lr (float, Tensor, optional): learning rate (default: 1e-3)
        betas (tuple[float, float], optional): coefficients used for computing running averages of
            gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve numerical stability
            (default: 1e-8)
        weight_decay (float, optional): weight decay coefficient (default: 1e-2)
        amsgrad (bool, optional): whether to use the AMSGrad variant of this algorithm
            (default: False)
        maximize, foreach, capturable, differentiable, fused: as :class:`Adam`'s.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
