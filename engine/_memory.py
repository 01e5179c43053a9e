"""New tensors' memory on 64-byte boundaries, as PyTorch's CPU allocator places every storage.

NumPy's allocator gives 16. OpenBLAS's sgemm reads the second operand of ``x @ w`` (a layer's
weight) up to 6% faster when it starts on a cache line. So every factory's large array starts on
one. Small arrays stay with NumPy: nothing there is worth the extra Python.
"""
import math

import numpy as np

ALIGNMENT = 64
ALIGNED_FROM = 4096  # bytes


def address(a):
    """Where an array's first element sits in memory."""
    return a.__array_interface__["data"][0]


def aligned_empty(shape, dtype):
    """``np.empty(shape, dtype)``, starting on a 64-byte boundary when it takes ALIGNED_FROM bytes or more."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < ALIGNED_FROM:
        return np.empty(shape, dtype)
    # A bytearray, not an ndarray, holds the memory: the array is then its own base as far as
    # storages can tell (_storage._owner), so its storage is its own bytes, without the padding.
    buf = bytearray(nbytes + ALIGNMENT)
    start = -address(np.frombuffer(buf, np.uint8, 1)) % ALIGNMENT
    return np.ndarray(shape, dtype, buffer=buf, offset=start)


def aligned_copy(a):
    """A C-ordered copy of ``a``, aligned as ``aligned_empty``."""
    out = aligned_empty(a.shape, a.dtype)
    np.copyto(out, a)
    return out


def aligned(a):
    """``a``, a new array nothing else sees, or its aligned copy when it is large and off a boundary
    and all of its memory (not a strided view into a larger buffer, which is that tensor's storage)."""
    if a.nbytes < ALIGNED_FROM or not address(a) % ALIGNMENT or not a.flags.c_contiguous:
        return a
    base = a.base
    if a.flags.owndata or type(base) is np.ndarray and base.flags.owndata and base.nbytes == a.nbytes:
        return aligned_copy(a)
    return a
