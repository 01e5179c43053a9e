"""``torch.autograd.grad_mode``: the switches that turn graph recording off and on."""
from .._grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]
