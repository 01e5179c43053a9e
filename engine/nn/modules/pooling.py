"""Pooling layers: max, average and adaptive pooling, laid out as PyTorch's ``torch/nn/modules/pooling.py``."""
from ... import _conv as C
from ..._conv import _pair, _single, _triple
from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "LPPool1d", "LPPool2d", "LPPool3d",
           "MaxUnpool1d", "MaxUnpool2d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return self._functional(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    r"""1-D max pooling over (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``; with
    ``return_indices``, also the maxima's places.

    >>> nn.MaxPool1d(2)(torch.tensor([[[1., 3., 2., 5.]]]))
    tensor([[[3., 5.]]])
    """

    _functional = staticmethod(C.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    r"""2-D max pooling over (N, C, H, W) or (C, H, W); ``stride`` defaults to ``kernel_size``.

    >>> nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _functional = staticmethod(C.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    r"""3-D max pooling over (N, C, D, H, W) or (C, D, H, W)."""

    _functional = staticmethod(C.max_pool3d)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    r"""1-D average pooling over (N, C, L) or (C, L).

    >>> nn.AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return C.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolWithDivisor(_AvgPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._functional(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolWithDivisor):
    r"""2-D average pooling over (N, C, H, W) or (C, H, W); zero padding counts in the average unless
    ``count_include_pad`` is off; ``divisor_override`` replaces the window size as divisor.

    >>> nn.AvgPool2d(2)
    AvgPool2d(kernel_size=2, stride=2, padding=0)
    """

    _functional = staticmethod(C.avg_pool2d)


class AvgPool3d(_AvgPoolWithDivisor):
    r"""3-D average pooling over (N, C, D, H, W) or (C, D, H, W)."""

    _functional = staticmethod(C.avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return self._functional(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    r"""1-D max pooling to the output length ``output_size``, whatever the input's length."""

    _functional = staticmethod(C.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    r"""2-D max pooling to ``output_size`` (int, or (H, W) where None keeps the input's size).

    >>> nn.AdaptiveMaxPool2d((5, 7))(torch.randn(1, 64, 8, 9)).shape
    torch.Size([1, 64, 5, 7])
    """

    _functional = staticmethod(C.adaptive_max_pool2d)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return self._functional(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    r"""1-D average pooling to the output length ``output_size``, whatever the input's length."""

    _functional = staticmethod(C.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    r"""2-D average pooling to ``output_size`` (int, or (H, W) where None keeps the input's size);
    ``(1, 1)`` is a global average (PyTorch computes it as a mean: ``MeanBackward1``).

    >>> nn.AdaptiveAvgPool2d((1, 1))
    AdaptiveAvgPool2d(output_size=(1, 1))
    """

    _functional = staticmethod(C.adaptive_avg_pool2d)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)

    def forward(self, input):
        return self._functional(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    r"""1-D power-average pooling: :math:`(\sum x^p)^{1/p}` over each window.

    >>> nn.LPPool1d(2, 3, stride=2)
    LPPool1d(norm_type=2, kernel_size=3, stride=2, ceil_mode=False)
    """

    _functional = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    r"""2-D power-average pooling: :math:`(\sum x^p)^{1/p}` over each window."""

    _functional = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    r"""3-D power-average pooling: :math:`(\sum x^p)^{1/p}` over each window."""

    _functional = staticmethod(F.lp_pool3d)


class _MaxUnpoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    r"""The partial inverse of ``MaxPool1d``: each value put back at its index (from the pooling's
    ``return_indices=True``), zeros elsewhere.

    >>> nn.MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    r"""The partial inverse of ``MaxPool2d``: each value put back at its index, zeros elsewhere."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
