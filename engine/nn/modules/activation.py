"""Activation modules, each the functional form of ``torch.nn.functional``."""
from ... import _methods, _ops
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "LeakyReLU", "Softmax", "LogSoftmax", "Softplus", "SiLU", "ELU"]

# In-place forms for ``inplace=True``, with the checks and history of every in-place op.
_leaky_relu_ = _methods._inplace(_ops.leaky_relu)
_silu_ = _methods._inplace(_ops.silu)
_elu_ = _methods._inplace(_ops.elu)


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class ReLU(Module):
    r"""Applies the rectified linear unit elementwise: :math:`\max(0, x)`.

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return input.relu_() if self.inplace else F.relu(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Sigmoid(Module):
    r"""Applies :math:`1 / (1 + e^{-x})` elementwise."""

    def forward(self, input):
        return _ops.sigmoid(input)


class Tanh(Module):
    r"""Applies the hyperbolic tangent elementwise."""

    def forward(self, input):
        return _ops.tanh(input)


class LeakyReLU(Module):
    r"""Applies :math:`\max(0, x) + \text{negative\_slope} \min(0, x)` elementwise.

    Args:
        negative_slope: the slope for negative inputs. Default: 1e-2
        inplace: modify the input in place. Default: ``False``
    """

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        if self.inplace:
            return _leaky_relu_(input, self.negative_slope)
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Softmax(Module):
    r"""Applies softmax along ``dim``: the values along it are in [0, 1] and sum to 1.

    Args:
        dim: the dimension softmax is computed along.
    """

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    r"""Applies :math:`\log(\text{softmax}(x))` along ``dim``.

    Args:
        dim: the dimension it is computed along.
    """

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softplus(Module):
    r"""Applies :math:`\frac{1}{\beta} \log(1 + e^{\beta x})` elementwise, linear above ``threshold``.

    Args:
        beta: the :math:`\beta`. Default: 1
        threshold: values of :math:`\beta x` above it are left linear. Default: 20
    """

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class SiLU(Module):
    r"""Applies :math:`x \sigma(x)` elementwise (the swish).

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return _silu_(input) if self.inplace else F.silu(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class ELU(Module):
    r"""Applies :math:`x` for :math:`x > 0`, else :math:`\alpha (e^x - 1)`, elementwise.

    Args:
        alpha: the :math:`\alpha`. Default: 1.0
        inplace: modify the input in place. Default: ``False``
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return _elu_(input, self.alpha) if self.inplace else F.elu(input, self.alpha)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")
