"""``Fold`` and ``Unfold`` (col2im and im2col), laid out as PyTorch's ``torch/nn/modules/fold.py``."""
from ... import _conv as C
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    r"""Combines sliding local blocks (N, C * prod(kernel_size), L) into a tensor (N, C, *output_size),
    summing where they overlap: the reverse of ``Unfold``.

    >>> nn.Fold(output_size=(4, 5), kernel_size=(2, 2))
    Fold(output_size=(4, 5), kernel_size=(2, 2), dilation=1, padding=0, stride=1)
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return C.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}".format(**self.__dict__))


class Unfold(Module):
    r"""Extracts sliding local blocks: (N, C, H, W) to (N, C * prod(kernel_size), L).

    >>> nn.Unfold(kernel_size=(2, 3))(torch.randn(2, 5, 3, 4)).shape
    torch.Size([2, 30, 4])
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return C.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, stride={stride}".format(
            **self.__dict__)
