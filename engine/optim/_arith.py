"""PyTorch's CPU kernel arithmetic for the optimizer updates, on NumPy arrays.

Each function is one PyTorch op on arrays of a parameter's dtype and returns a new array of that
dtype, rounded where PyTorch's kernel rounds: float16 is computed in float32 (PyTorch's "opmath"
type), a Python-number operand is first cast to that type (to the tensor's own dtype for ``add``),
and the multiply-adds PyTorch's x86 kernels compile to fused instructions (``add`` with ``alpha``,
``lerp``, ``addcmul``) are rounded once: through float64 for float32 (where the product of two
float32 values is exact), and with error-free transformations for float64.

What is left: PyTorch's float32 ``sqrt`` (MKL's) is off by an ulp for about one value in a hundred,
and float16 is within an ulp of PyTorch's, not bit for bit.
"""
import numpy as np

from .._fma import fma

_F32 = np.dtype(np.float32)


def _op(dt):
    return _F32 if dt == np.float16 else dt


def _in(a, op):
    return a.astype(op, copy=False)


def add(a, b, alpha):
    """``torch.add(a, b, alpha=alpha)``."""
    op = _op(a.dtype)
    return fma(op.type(a.dtype.type(alpha)), _in(b, op), _in(a, op), op).astype(a.dtype, copy=False)


def add_scalar(a, s):
    """``a + s`` (``a.add_(eps)``)."""
    op = _op(a.dtype)
    return (_in(a, op) + op.type(a.dtype.type(s))).astype(a.dtype, copy=False)


def mul(a, s):
    """``a * s`` for a number ``s``."""
    op = _op(a.dtype)
    return (_in(a, op) * op.type(s)).astype(a.dtype, copy=False)


def div(a, s):
    """``a / s`` for a number ``s``."""
    op = _op(a.dtype)
    return (_in(a, op) / op.type(s)).astype(a.dtype, copy=False)


def sqrt(a):
    op = _op(a.dtype)
    return np.sqrt(_in(a, op)).astype(a.dtype, copy=False)


def lerp(a, b, weight):
    """``torch.lerp(a, b, weight)`` for a number ``weight``: PyTorch steps from the nearer end."""
    op = _op(a.dtype)
    w = op.type(weight)
    a_, b_ = _in(a, op), _in(b, op)
    diff = b_ - a_
    if abs(w) < 0.5:
        out = fma(w, diff, a_, op)
    else:
        out = fma(-diff, op.type(1) - w, b_, op)
    return out.astype(a.dtype, copy=False)


def addcmul(a, t1, t2, value):
    """``torch.addcmul(a, t1, t2, value=value)``: ``a + (value * t1) * t2``."""
    op = _op(a.dtype)
    return fma(op.type(value) * _in(t1, op), _in(t2, op), _in(a, op), op).astype(a.dtype, copy=False)


def addcdiv(a, t1, t2, value):
    """``torch.addcdiv(a, t1, t2, value=value)``: ``a + (value * t1) / t2``."""
    op = _op(a.dtype)
    return (_in(a, op) + op.type(value) * _in(t1, op) / _in(t2, op)).astype(a.dtype, copy=False)
