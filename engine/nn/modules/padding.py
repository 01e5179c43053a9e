"""Padding layers (``F.pad`` with a fixed padding), laid out as PyTorch's ``torch/nn/modules/padding.py``."""
from ... import _conv as C
from ..._conv import _ntuple, _pair
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_quadruple, _sextuple = _ntuple(4), _ntuple(6)


class _PadNd(Module):
    """A fixed ``F.pad``: ``padding`` is an int (the same on every side) or (left, right, top, bottom, ...)."""

    __constants__ = ["padding"]
    _parse = staticmethod(_pair)

    def __init__(self, padding):
        super().__init__()
        self.padding = self._parse(padding)

    def forward(self, input):
        return C.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        n = len(self.padding) // 2
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return C.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    r"""Pads the last dim by wrapping around: ``CircularPad1d(2)`` on ``[0, 1, 2, 3]`` gives
    ``[2, 3, 0, 1, 2, 3, 0, 1]``."""


class CircularPad2d(_CircularPadNd):
    r"""Pads the last two dims by wrapping around."""

    _parse = staticmethod(_quadruple)


class CircularPad3d(_CircularPadNd):
    r"""Pads the last three dims by wrapping around."""

    _parse = staticmethod(_sextuple)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__()
        self.padding = self._parse(padding)
        self.value = value

    def forward(self, input):
        return C.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    r"""Pads the last dim with ``value``.

    >>> nn.ConstantPad1d(2, 3.5)
    ConstantPad1d(padding=(2, 2), value=3.5)
    """

    _parse = staticmethod(_pair)


class ConstantPad2d(_ConstantPadNd):
    r"""Pads the last two dims with ``value``: ``padding`` is an int or (left, right, top, bottom)."""

    _parse = staticmethod(_quadruple)


class ConstantPad3d(_ConstantPadNd):
    r"""Pads the last three dims with ``value``."""

    _parse = staticmethod(_sextuple)


class _Zeros:
    """A constant pad of zeros, shown by its padding alone."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_Zeros, ConstantPad1d):
    r"""Pads the last dim with zeros.

    >>> nn.ZeroPad1d((1, 2))
    ZeroPad1d((1, 2))
    """


class ZeroPad2d(_Zeros, ConstantPad2d):
    r"""Pads the last two dims with zeros: ``padding`` is an int or (left, right, top, bottom)."""


class ZeroPad3d(_Zeros, ConstantPad3d):
    r"""Pads the last three dims with zeros."""


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    r"""Pads the last dim with its mirror image, without the edge: ``ReflectionPad1d(2)`` on
    ``[0, 1, 2, 3]`` gives ``[2, 1, 0, 1, 2, 3, 2, 1]``."""


class ReflectionPad2d(_ReflectionPadNd):
    r"""Pads the last two dims with their mirror image: ``padding`` is an int or (left, right, top, bottom).

    >>> nn.ReflectionPad2d(1)
    ReflectionPad2d((1, 1, 1, 1))
    """

    _parse = staticmethod(_quadruple)


class ReflectionPad3d(_ReflectionPadNd):
    r"""Pads the last three dims with their mirror image."""

    _parse = staticmethod(_sextuple)


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    r"""Pads the last dim by repeating its edge: ``ReplicationPad1d(2)`` on ``[0, 1, 2]`` gives
    ``[0, 0, 0, 1, 2, 2, 2]``."""


class ReplicationPad2d(_ReplicationPadNd):
    r"""Pads the last two dims by repeating their edges: ``padding`` is an int or (left, right, top, bottom)."""

    _parse = staticmethod(_quadruple)


class ReplicationPad3d(_ReplicationPadNd):
    r"""Pads the last three dims by repeating their edges."""

    _parse = staticmethod(_sextuple)
