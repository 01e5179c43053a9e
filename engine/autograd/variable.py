"""The legacy ``Variable``: since PyTorch 0.4 it just returns a tensor."""
from .._tensor import Tensor, _wrap


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(t, requires_grad=True)`` returns a tensor sharing ``t``'s data, as in PyTorch."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            import warnings

            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            from .._factories import tensor

            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError("Variable data has to be a tensor, but got " + type(data).__name__)
        t = _wrap(data._data)
        t._vc = data._vc
        if requires_grad:
            t.requires_grad = True
        return t
