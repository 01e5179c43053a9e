"""``Identity`` and ``Linear``."""
import math

from ... import _factories
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "LazyLinear", "Bilinear"]


class Identity(Module):
    r"""A placeholder that returns its input; any constructor arguments are ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    r"""Applies an affine transformation: :math:`y = xA^T + b`.

    Args:
        in_features: size of each input sample
        out_features: size of each output sample
        bias: if ``False``, the layer learns no additive bias. Default: ``True``

    Both ``weight`` (``out_features x in_features``) and ``bias`` start as
    :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{in\_features}`.

    >>> m = nn.Linear(20, 30)
    >>> m(torch.randn(128, 20)).size()
    torch.Size([128, 30])
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_factories.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_factories.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_ with a = sqrt(5): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn as PyTorch draws it.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """The ``Linear`` that ``MultiheadAttention`` keeps as its ``out_proj`` (named so in its repr)."""


class LazyLinear(LazyModuleMixin, Linear):
    r"""A ``Linear`` whose ``in_features`` is the last dim of its first input; it becomes a
    ``Linear`` then, its parameters drawn as ``Linear`` draws them.

    Args:
        out_features: size of each output sample
        bias: if ``False``, the layer learns no additive bias. Default: ``True``
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class Bilinear(Module):
    r"""Applies a bilinear transformation: :math:`y = x_1^T A x_2 + b`, ``weight`` of shape
    (out_features, in1_features, in2_features), both drawn from U(-1/sqrt(in1), 1/sqrt(in1)).

    >>> nn.Bilinear(20, 30, 40)
    Bilinear(in1_features=20, in2_features=30, out_features=40, bias=True)
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_factories.empty((out_features, in1_features, in2_features), device=device,
                                                 dtype=dtype))
        if bias:
            self.bias = Parameter(_factories.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
