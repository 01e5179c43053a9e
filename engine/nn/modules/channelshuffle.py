"""``ChannelShuffle``, laid out as PyTorch's ``torch/nn/modules/channelshuffle.py``."""
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    r"""Splits the channels of (N, C, *) into ``groups`` and interleaves them (ShuffleNet).

    >>> nn.ChannelShuffle(2)(torch.arange(4.).view(1, 4, 1))
    tensor([[[0.],
             [2.],
             [1.],
             [3.]]])
    """

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
