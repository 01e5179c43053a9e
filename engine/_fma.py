"""Results rounded once, as PyTorch's x86 CPU kernels round them: ``x * y + z`` of their fused
multiply-adds, and float32 functions such as exp and tanh."""
import numpy as np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_ndarray = np.ndarray


def rounded(f):
    """``f`` (a NumPy ufunc) on float32 computed in float64 and rounded once, as good as correctly
    rounded: the float32 exp, log, tanh, sin, ... of MKL and glibc that PyTorch's kernels call are
    within an ulp of that and equal it in 99% of values (exp), where NumPy's own float32 loops
    differ from PyTorch's in a third (and from Pyodide's, which have other loops). Other dtypes
    get ``f`` itself."""
    def g(x):
        if type(x) is not _ndarray:
            x = np.asarray(x)
        if x.dtype != _F32:
            return f(x)
        if x.size <= 4096:
            return f(x.astype(_F64)).astype(_F32)
        # (in NumPy's buffered chunks: no float64 copy of a large array)
        return f(x, dtype=_F64, out=np.empty(x.shape, _F32), casting="unsafe")
    g.__name__ = g.__qualname__ = f.__name__
    return g


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
