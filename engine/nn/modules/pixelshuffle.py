"""``PixelShuffle`` and ``PixelUnshuffle``, laid out as PyTorch's ``torch/nn/modules/pixelshuffle.py``."""
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    r"""(*, C r^2, H, W) to (*, C, H r, W r), r the ``upscale_factor``: sub-pixel convolution's last step.

    >>> nn.PixelShuffle(3)(torch.randn(1, 9, 4, 4)).shape
    torch.Size([1, 1, 12, 12])
    """

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    r"""(*, C, H r, W r) to (*, C r^2, H, W), r the ``downscale_factor``: the reverse of ``PixelShuffle``."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
