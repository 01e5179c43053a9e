"""Tensor constructors: ``tensor``, ``zeros``, ``randn``, the ``*_like`` family, legacy ``torch.Tensor(...)``."""
import numbers

import numpy as np

from . import _dtypes
from ._tensor import Tensor, _wrap, check_device, check_size

# PyTorch's default generator starts from this seed; a fixed start makes shared links reproducible.
DEFAULT_SEED = 67280421310721
_rng = np.random.default_rng(DEFAULT_SEED)
_seed = DEFAULT_SEED


def manual_seed(seed):
    """Seed the random generator (values differ from PyTorch's generator, but are reproducible)."""
    global _rng, _seed
    _seed = int(seed)
    _rng = np.random.default_rng(_seed % (2**64))
    return _Generator()


def seed():
    return manual_seed(np.random.SeedSequence().entropy % (2**63))


def initial_seed():
    return _seed


class _Generator:
    def manual_seed(self, s):
        return manual_seed(s)

    def initial_seed(self):
        return _seed


def Generator(device="cpu"):
    return _Generator()


def _finish(data, dtype=None, requires_grad=False, device=None):
    check_device(device)
    if dtype is not None:
        data = data.astype(_dtypes.to_numpy_dtype(dtype), copy=False)
    t = _wrap(data)
    if requires_grad:
        t.requires_grad = True
    return t


def _infer(data):
    """NumPy array for nested Python data, with PyTorch's dtype inference."""
    if isinstance(data, Tensor):
        return data._data.copy()
    if isinstance(data, np.ndarray):
        return data.copy() if data.dtype != np.float64 or True else data
    if isinstance(data, (list, tuple)):
        flat = _flatten_kinds(data)
        arr = np.array(_unwrap_nested(data))
        if arr.dtype == object:
            raise ValueError("expected sequence of length consistent with the first dimension")
        if flat == "float" or (arr.dtype.kind == "f" and flat != "ndarray"):
            return arr.astype(_dtypes.get_default_dtype().np)
        if arr.dtype.kind in "iu":
            return arr.astype(np.int64)
        if arr.size == 0:
            return arr.astype(_dtypes.get_default_dtype().np)
        return arr
    if isinstance(data, bool):
        return np.asarray(data)
    if isinstance(data, numbers.Integral):
        return np.asarray(data, dtype=np.int64)
    if isinstance(data, numbers.Real):
        return np.asarray(data, dtype=_dtypes.get_default_dtype().np)
    if isinstance(data, np.generic):
        return np.asarray(data)
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _flatten_kinds(data):
    kind = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, Tensor):
            k = "float" if x._data.dtype.kind == "f" else None
            kind = kind or k
        elif isinstance(x, float) and not isinstance(x, np.floating):
            kind = "float"
        elif isinstance(x, np.ndarray):
            kind = kind or "ndarray"
    return kind


def _unwrap_nested(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor copied from ``data`` (nested lists, scalars, NumPy arrays or tensors).

    >>> torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    tensor([[1., 2.],
            [3., 4.]], requires_grad=True)
    """
    arr = _infer(data)
    check_size(arr.size)
    return _finish(arr, dtype, requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and (dtype is None or data.dtype == dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _dtypes.to_numpy_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(arr):
    """A tensor sharing memory with the NumPy array ``arr``."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    _dtypes.from_numpy_dtype(arr.dtype)
    return _wrap(arr)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)):
            raise TypeError(
                f"zeros(): argument 'size' (position 1) must be tuple of ints, but found element of type {type(s).__name__} at pos 0")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    check_size(int(np.prod(out)))
    return tuple(out)


def _default(dtype):
    return _dtypes.to_numpy_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype().np


def _filled(fill, size, dtype, requires_grad, device, kw):
    if "size" in kw:
        size = (kw.pop("size"),)
    kw.pop("out", None)
    kw.pop("layout", None)
    kw.pop("pin_memory", None)
    return _finish(np.full(_size(size), fill, dtype=_default(dtype)), None, requires_grad, device)


def zeros(*size, dtype=None, device=None, requires_grad=False, **kw):
    return _filled(0, size, dtype, requires_grad, device, kw)


def ones(*size, dtype=None, device=None, requires_grad=False, **kw):
    return _filled(1, size, dtype, requires_grad, device, kw)


def empty(*size, dtype=None, device=None, requires_grad=False, **kw):
    return _filled(0, size, dtype, requires_grad, device, kw)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, **kw):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtypes.bool_
        elif isinstance(fill_value, numbers.Integral):
            dtype = _dtypes.int64
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    size = (size,) if isinstance(size, int) else tuple(size)
    return _finish(np.full(_size(size), fill_value, dtype=_default(dtype)), None, requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, **kw):
    return _finish(np.eye(n, m if m is not None else n, dtype=_default(dtype)), None, requires_grad, device)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, **kw):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = _dtypes.int64 if all(isinstance(v, numbers.Integral) for v in vals) else _dtypes.get_default_dtype()
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    check_size(max(n, 0))
    # Computed in float64 and cast, as PyTorch does, so float32 ranges match to the last bit.
    data = (vals[0] + np.arange(max(n, 0), dtype=np.float64) * vals[2]) if dtype.is_floating_point else \
        np.arange(vals[0], vals[1], vals[2])
    return _finish(data.astype(dtype.np), None, requires_grad, device)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, **kw):
    check_size(steps)
    return _finish(np.linspace(start, end, steps).astype(_default(dtype)), None, requires_grad, device)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    return _finish(np.logspace(start, end, steps, base=base).astype(_default(dtype)), None, requires_grad, device)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, **kw):
    if "size" in kw:
        size = (kw.pop("size"),)
    return _finish(_rng.random(_size(size)).astype(_default(dtype)), None, requires_grad, device)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, **kw):
    if "size" in kw:
        size = (kw.pop("size"),)
    return _finish(_rng.standard_normal(_size(size)).astype(_default(dtype)), None, requires_grad, device)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    data = _rng.integers(low, high, _size(tuple(size)), dtype=np.int64)
    return _finish(data, dtype, requires_grad, device)


def randperm(n, *, dtype=None, device=None, requires_grad=False, generator=None):
    return _finish(_rng.permutation(n).astype(np.int64), dtype, requires_grad, device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        out = _rng.normal(m, s)
        ref = mean if isinstance(mean, Tensor) else std
        return _finish(np.asarray(out).astype(ref._data.dtype), None, requires_grad, device)
    return _finish(_rng.normal(mean, std, _size(tuple(size))).astype(_default(dtype)), None, requires_grad, device)


def _like(fill_fn):
    def like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
        dt = _dtypes.to_numpy_dtype(dtype) if dtype is not None else input._data.dtype
        return _finish(fill_fn(input._data.shape, dt), None, requires_grad, device)

    return like


zeros_like = _like(lambda s, dt: np.zeros(s, dtype=dt))
ones_like = _like(lambda s, dt: np.ones(s, dtype=dt))
empty_like = _like(lambda s, dt: np.zeros(s, dtype=dt))
rand_like = _like(lambda s, dt: _rng.random(s).astype(dt))
randn_like = _like(lambda s, dt: _rng.standard_normal(s).astype(dt))


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dt = _dtypes.to_numpy_dtype(dtype) if dtype is not None else input._data.dtype
    return _finish(np.full(input._data.shape, fill_value, dtype=dt), None, requires_grad, device)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    dt = _dtypes.to_numpy_dtype(dtype) if dtype is not None else input._data.dtype
    return _finish(_rng.integers(low, high, input._data.shape).astype(dt), None, requires_grad, device)


def legacy_new(dt, args, kwargs):
    """``torch.Tensor(...)`` / ``torch.FloatTensor(...)``: sizes or data, always of dtype ``dt``."""
    device = kwargs.pop("device", None)
    check_device(device)
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        data = args[0]
        if isinstance(data, Tensor):
            return data if data._data.dtype == dt.np else _wrap(data._data.astype(dt.np))
        if isinstance(data, tuple) and all(isinstance(s, int) for s in data) and False:
            pass
        return _wrap(np.asarray(_infer(data), dtype=dt.np) if not isinstance(data, np.ndarray) else data.astype(dt.np))
    return _wrap(np.zeros(_size(args), dtype=dt.np))


def _legacy(dt, name):
    def ctor(*args, **kwargs):
        return legacy_new(dt, args, kwargs)

    ctor.__name__ = ctor.__qualname__ = name
    return ctor


FloatTensor = _legacy(_dtypes.float32, "FloatTensor")
DoubleTensor = _legacy(_dtypes.float64, "DoubleTensor")
HalfTensor = _legacy(_dtypes.float16, "HalfTensor")
LongTensor = _legacy(_dtypes.int64, "LongTensor")
IntTensor = _legacy(_dtypes.int32, "IntTensor")
ShortTensor = _legacy(_dtypes.int16, "ShortTensor")
ByteTensor = _legacy(_dtypes.uint8, "ByteTensor")
CharTensor = _legacy(_dtypes.int8, "CharTensor")
BoolTensor = _legacy(_dtypes.bool_, "BoolTensor")
