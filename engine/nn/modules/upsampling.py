"""Upsampling layers, laid out as PyTorch's ``torch/nn/modules/upsampling.py``: each one calls
``F.interpolate``."""
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    r"""Resamples (N, C, L), (N, C, H, W) or (N, C, D, H, W) inputs to ``size`` or by
    ``scale_factor`` with ``mode`` (``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``,
    ``'trilinear'``, ``'area'``, ``'nearest-exact'``): ``F.interpolate``.

    >>> nn.Upsample(scale_factor=2, mode='bilinear')
    Upsample(scale_factor=2.0, mode='bilinear')
    """

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state):
        if "recompute_scale_factor" not in state:
            state["recompute_scale_factor"] = True
        super().__setstate__(state)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    r"""``Upsample`` with ``mode='nearest'`` for (N, C, H, W) inputs.

    >>> nn.UpsamplingNearest2d(scale_factor=2)(torch.tensor([[[[1., 2.]]]]))
    tensor([[[[1., 1., 2., 2.],
              [1., 1., 2., 2.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""``Upsample`` with ``mode='bilinear'`` and ``align_corners=True`` for (N, C, H, W) inputs."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
