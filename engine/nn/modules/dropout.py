"""Dropout modules: ``F.dropout`` in training, the identity in evaluation; the channel-wise
``Dropout1d/2d/3d`` (``F.dropout1d/2d/3d``) draw one keep-or-zero per (sample, channel)."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        F._check_dropout_p(p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    r"""In training, zeroes each element with probability ``p`` and scales the others by
    :math:`1 / (1 - p)`; in evaluation, returns its input.

    Args:
        p: the probability of an element being zeroed. Default: 0.5
        inplace: zero and scale the input in place. Default: ``False``

    >>> m = nn.Dropout(p=0.2)
    >>> m.eval()(torch.ones(3))
    tensor([1., 1., 1.])
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    r"""In training, zeroes whole channels (``input[i, j]`` of an ``(N, C, L)`` or ``(C, L)`` input)
    with probability ``p`` and scales the others by :math:`1 / (1 - p)`.

    Args:
        p: the probability of a channel being zeroed. Default: 0.5
        inplace: zero and scale the input in place. Default: ``False``
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    r"""In training, zeroes whole channels (``input[i, j]`` of an ``(N, C, H, W)`` input) with
    probability ``p`` and scales the others by :math:`1 / (1 - p)`. A 3-D input is taken as
    ``(N, C, L)`` (with PyTorch's warning), not as an unbatched ``(C, H, W)``.

    Args:
        p: the probability of a channel being zeroed. Default: 0.5
        inplace: zero and scale the input in place. Default: ``False``
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    r"""In training, zeroes whole channels (``input[i, j]`` of an ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` input) with probability ``p`` and scales the others by :math:`1 / (1 - p)`.

    Args:
        p: the probability of a channel being zeroed. Default: 0.5
        inplace: zero and scale the input in place. Default: ``False``
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    r"""Dropout for SELU networks: in training, each element dropped with probability ``p`` is set
    to SELU's negative saturation and the result scaled and shifted to keep zero mean and unit
    variance; in evaluation, returns its input."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    r"""``AlphaDropout`` of whole channels (``input[i, j]``), one draw per (sample, channel)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
