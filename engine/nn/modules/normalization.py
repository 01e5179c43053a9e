"""``LayerNorm``, ``GroupNorm`` and ``RMSNorm``: normalization within each sample, so the same in
training and evaluation."""
import numbers

from ... import _factories
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


def _as_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    return tuple(normalized_shape)


def _affine_parameters(module, shape, affine, bias, device, dtype):
    """A normalization layer's ``weight`` and ``bias`` (registered as None when not learned)."""
    module.register_parameter("weight", Parameter(_factories.empty(shape, device=device, dtype=dtype))
                              if affine else None)
    module.register_parameter("bias", Parameter(_factories.empty(shape, device=device, dtype=dtype))
                              if affine and bias else None)


def _reset_affine(module):
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    r"""Normalizes each sample over its last ``len(normalized_shape)`` dims (mean and biased
    variance), then scales by ``weight`` (ones) and shifts by ``bias`` (zeros), both shaped
    ``normalized_shape``.

    Args:
        normalized_shape: the trailing shape to normalize over (an int for the last dim)
        eps: added to the variance for numerical stability. Default: 1e-5
        elementwise_affine: learn ``weight`` (and ``bias``). Default: ``True``
        bias: learn ``bias`` too (with ``elementwise_affine``). Default: ``True``

    >>> m = nn.LayerNorm(2)
    >>> m(torch.tensor([[1., 3.]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    r"""Splits the ``num_channels`` channels (dim 1) into ``num_groups`` groups and normalizes each
    group of each sample, then scales and shifts per channel (``weight`` ones, ``bias`` zeros).

    Args:
        num_groups: the number of groups; it must divide ``num_channels``
        num_channels: the number of channels ``C`` of the input ``(N, C, *)``
        eps: added to the variance for numerical stability. Default: 1e-5
        affine: learn ``weight`` and ``bias``. Default: ``True``

    >>> m = nn.GroupNorm(2, 4)
    >>> m(torch.tensor([[1., 3., 0., 4.]]))
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]],
           grad_fn=<NativeGroupNormBackward0>)
    """

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, num_channels, affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    r"""Divides each sample by its root mean square over the last ``len(normalized_shape)`` dims,
    then scales by ``weight`` (ones): :math:`y = \frac{x}{\sqrt{\mathrm{mean}(x^2) + \epsilon}} \gamma`.

    Args:
        normalized_shape: the trailing shape to normalize over (an int for the last dim)
        eps: added to the mean square; ``None`` for the machine epsilon of the input's dtype.
            Default: ``None``
        elementwise_affine: learn ``weight``. Default: ``True``

    >>> m = nn.RMSNorm(2)
    >>> m(torch.tensor([[3., 4.]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(_factories.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    r"""Each element over :math:`(k + \alpha / n \sum x^2)^\beta`, the sum over ``size``
    neighbouring channels: ``F.local_response_norm``.

    >>> nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
