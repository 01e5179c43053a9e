"""``torch.nn.functional``: activations and losses, each a single node as in PyTorch."""
from .._ops import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, elu, l1_loss,
                    leaky_relu, log_softmax, mse_loss, nll_loss, relu, sigmoid, silu, softmax, softplus, tanh)
from .._ops import addmm, matmul


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``AddmmBackward0`` for a 2-D input with bias, as in PyTorch)."""
    if input.dim() == 2 and bias is not None:
        return addmm(bias, input, weight.t())
    if input.dim() == 3 and bias is not None and input.is_contiguous():
        n, m, k = input.shape
        out = addmm(bias, input.view(n * m, k), weight.t())
        return out.view(n, m, out.shape[1])
    out = matmul(input, weight.t())
    return out + bias if bias is not None else out


__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu", "softplus", "silu", "elu",
           "mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "nll_loss", "linear"]
