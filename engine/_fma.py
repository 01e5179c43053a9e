"""``x * y + z`` rounded once, as the fused multiply-adds of PyTorch's x86 CPU kernels round it."""
import numpy as np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def fma(x, y, z, dt):
    """``x * y + z`` in dtype ``dt`` (float32 or float64) with a single rounding: float32 through
    float64, where the product of two float32 values is exact; float64 with the product's and the
    sum's rounding errors computed exactly (Dekker's product, Knuth's sum) and added back before
    the last rounding."""
    if dt == _F32:
        return (np.multiply(x, y, dtype=_F64) + z).astype(_F32)
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    p_err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    s = p + z
    b = s - p
    s_err = (p - (s - b)) + (z - b)
    return s + (s_err + p_err)


def _split(a):
    c = 134217729.0 * a  # 2**27 + 1: splits a float64 into two halves of 26 bits
    hi = c - (c - a)
    return hi, a - hi
