"""Dropout modules: ``F.dropout`` in training, the identity in evaluation; the channel-wise
``Dropout1d/2d/3d`` draw one keep-or-zero per (sample, channel), as PyTorch's ``feature_dropout``."""
import warnings

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"]


def _feature_dropout(input, p, training, inplace):
    return F._dropout(input, p, training, inplace, feature=True)


def _unbatched_feature_dropout(input, p, training, inplace):
    """``_feature_dropout`` of ``input`` given a batch dimension of 1, which is taken off again."""
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def _warn_rank(n, ndim):
    warnings.warn(
        f"dropout{n}d: Received a {ndim}-D input to dropout{n}d, which is deprecated "
        "and will result in an error in a future release. To retain the behavior "
        f"and silence this warning, please use dropout instead. Note that dropout{n}d "
        f"exists to provide channel-wise dropout on inputs with {n} spatial dimensions, "
        f"a channel dimension, and an optional batch dimension (i.e. {n + 1}D or {n + 2}D inputs).", stacklevel=4)


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
        F._check_dropout_p(self.p)
        ndim = input.dim()
        if ndim not in (2, 3):
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. "
                "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                "spatial dimension, a channel dimension, and an optional batch dimension "
                "(i.e. 2D or 3D inputs).")
        if ndim == 2:
            return _unbatched_feature_dropout(input, self.p, self.training, self.inplace)
        return _feature_dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    r"""In training, zeroes whole channels (``input[i, j]`` of an ``(N, C, H, W)`` input) with
    probability ``p`` and scales the others by :math:`1 / (1 - p)`. A 3-D input is taken as
    ``(N, C, L)`` (with PyTorch's warning), not as an unbatched ``(C, H, W)``.

    Args:
        p: the probability of a channel being zeroed. Default: 0.5
        inplace: zero and scale the input in place. Default: ``False``
    """

    def forward(self, input):
        F._check_dropout_p(self.p)
        ndim = input.dim()
        if ndim not in (3, 4):
            _warn_rank(2, ndim)
        if ndim == 3:
            warnings.warn(
                "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                "is the channel dim. This behavior will change in a future release to interpret the "
                "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
                "channel-wise dropout behavior, please switch to using dropout1d instead.", stacklevel=3)
        return _feature_dropout(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    r"""In training, zeroes whole channels (``input[i, j]`` of an ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` input) with probability ``p`` and scales the others by :math:`1 / (1 - p)`.

    Args:
        p: the probability of a channel being zeroed. Default: 0.5
        inplace: zero and scale the input in place. Default: ``False``
    """

    def forward(self, input):
        F._check_dropout_p(self.p)
        ndim = input.dim()
        if ndim not in (4, 5):
            _warn_rank(3, ndim)
        if ndim != 5:
            return _unbatched_feature_dropout(input, self.p, self.training, self.inplace)
        return _feature_dropout(input, self.p, self.training, self.inplace)
