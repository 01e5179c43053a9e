"""Tensor constructors: ``tensor``, ``zeros``, ``randn``, the ``*_like`` family, legacy ``torch.Tensor(...)``."""
import math
import numbers
import warnings

import numpy as np

from . import _dtypes, _grad_mode
from ._tensor import _CPP_TYPE_NAMES, Tensor, _wrap, check_device, check_size, record

from ._fma import fma
from ._memory import aligned, aligned_copy, aligned_empty
from ._random import Generator, default_generator, generator_or_default  # noqa: F401
from ._ops import _quietly, invalid_arguments, need_tensor
from ._sampling import _node


def manual_seed(seed):
    """Seed the default generator: the same draws as PyTorch's CPU generator from this seed."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _finish(data, dtype=None, requires_grad=False, device=None):
    check_device(device)
    if dtype is not None:
        data = data.astype(_dtypes.to_numpy_dtype(dtype), copy=False)
    t = _wrap(aligned(data))  # (an inference tensor in inference mode: _wrap marks it)
    if requires_grad:
        t._set_requires_grad(True, "Only Tensors of floating point and complex dtype can require gradients")
    return t


def _infer(data, target=None):
    """NumPy array for nested Python data, with PyTorch's dtype inference. With a ``target``
    dtype, Python numbers convert straight to it (``torch.tensor(0.1, dtype=torch.float64)`` is
    never rounded through float32 on the way)."""
    if isinstance(data, Tensor):
        return aligned_copy(data._data)
    if isinstance(data, np.ndarray):
        return aligned_copy(data)
    if isinstance(data, (list, tuple)):
        dt = _sequence_dtype(data)
        unwrapped = _unwrap_nested(data)
        try:
            arr = np.array(unwrapped)
        except ValueError:
            arr = None
        if arr is None or arr.dtype == object:
            kind = target or dt
            raise _ragged_error(data, kind is not None and kind.is_floating_point)
        return arr.astype((target or dt or _dtypes.get_default_dtype()).np)
    if isinstance(data, np.generic):  # before the Python checks: np.float64 is a float, np.int32 Integral
        return np.asarray(data)
    if isinstance(data, bool):
        return np.asarray(data)
    if isinstance(data, numbers.Integral):
        try:
            return np.asarray(data, dtype=target.np if target is not None else np.int64)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
    if isinstance(data, numbers.Real):
        return np.asarray(data, dtype=(target or _dtypes.get_default_dtype()).np)
    if isinstance(data, np.generic):
        return np.asarray(data)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _ragged_error(data, floating):
    """PyTorch's error for nested sequences that do not form a rectangular array: the shape comes
    from the first elements, then each element is checked against it, depth first."""
    shape, x = [], data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def check(x, dim):
        if dim == len(shape):
            if isinstance(x, (list, tuple)):
                kind = type(x).__name__
                return TypeError(f"must be real number, not {kind}" if floating
                                 else f"'{kind}' object cannot be interpreted as an integer")
            return None
        if not isinstance(x, (list, tuple)):
            return TypeError("not a sequence")
        if len(x) != shape[dim]:
            return ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})")
        for y in x:
            err = check(y, dim + 1)
            if err is not None:
                return err
        return None

    return check(data, 0) or ValueError("expected sequence of length consistent with the first dimension")


def _sequence_dtype(data):
    """The dtype PyTorch infers for nested data: the leaves' own dtypes promoted together (a Python
    float is the default dtype, an int int64, a bool bool; NumPy scalars, arrays and tensors keep
    theirs, so ``[np.float64(1.), 2.]`` is float64 and ``[torch.tensor(1), 2.5]`` float32).
    None when there are no leaves."""
    dt = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            d = _dtypes.from_numpy_dtype(x._data.dtype)
        elif isinstance(x, (np.ndarray, np.generic)):
            d = _dtypes.from_numpy_dtype(x.dtype)
        elif isinstance(x, bool):
            d = _dtypes.bool_
        elif isinstance(x, numbers.Integral):
            if not -2**63 <= x < 2**63:
                raise ValueError("Overflow when unpacking long long")
            d = _dtypes.int64
        elif isinstance(x, numbers.Real):
            d = _dtypes.get_default_dtype()
        elif isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
        dt = d if dt is None else _dtypes.promote_types(dt, d)
    return dt


def _unwrap_nested(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_tensor_as_scalar(x) if isinstance(x, Tensor) else _unwrap_nested(x) for x in data]
    return data


def _tensor_as_scalar(t):
    """A tensor inside a list is a number to PyTorch: ``[torch.tensor([1.]), torch.tensor([2.])]``
    makes ``tensor([1., 2.])``, and a tensor of several elements is refused (use ``torch.stack``)."""
    d = t._data
    if d.size != 1:
        if d.dtype.kind == "f":
            raise ValueError("only one element tensors can be converted to Python scalars")
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return d.reshape(())


_warned_ndarray_list = False
_NDARRAY_LIST = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list "
    "to a single numpy.ndarray with numpy.array() before converting to a tensor. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)"
)
_COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor copied from ``data`` (nested lists, scalars, NumPy arrays or tensors).

    >>> torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    tensor([[1., 2.],
            [3., 4.]], requires_grad=True)
    """
    global _warned_ndarray_list
    if isinstance(data, Tensor):
        warnings.warn(_COPY_CONSTRUCT, UserWarning, stacklevel=2)
    elif (isinstance(data, list) and data and isinstance(data[0], np.ndarray)
          and not _warned_ndarray_list):  # PyTorch warns once per process
        _warned_ndarray_list = True
        warnings.warn(_NDARRAY_LIST, UserWarning, stacklevel=2)
    arr = _infer(data, _dtypes.from_numpy_dtype(np.dtype(_dtypes.to_numpy_dtype(dtype))) if dtype is not None else None)
    check_size(arr.size)
    return _finish(arr, dtype, requires_grad, device)


def as_tensor(data, *, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dtypes.to_numpy_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)




def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``as_tensor`` with PyTorch's ``copy`` (True: always a copy; False: never, or ValueError) and
    ``requires_grad``."""
    if copy is False:
        src = obj._data if isinstance(obj, Tensor) else obj if isinstance(obj, np.ndarray) else None
        if src is not None and dtype is not None and _dtypes.to_numpy_dtype(dtype) != src.dtype:
            have = _dtypes.from_numpy_dtype(src.dtype)
            raise ValueError(f"can't alias tensor with dtype '{have._legacy[:-6]}' into dtype '{dtype._legacy[:-6]}'.")
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy and (t is obj or isinstance(obj, np.ndarray) and np.shares_memory(t._data, obj)):
        t = _wrap(t._data.copy())
    return t.requires_grad_() if requires_grad else t


def from_numpy(ndarray):
    """A tensor sharing memory with the NumPy array ``arr``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtypes.from_numpy_dtype(ndarray.dtype)
    return _wrap(ndarray)


def _size(size, name="zeros", keyword=False):
    """The shape from ``*size`` (ints, one tuple or list, a ``torch.Size``, 0-d integer tensors),
    with PyTorch's messages when it is not one, naming the factory ``name``."""
    prefix = f"{name}(): argument 'size'"
    if keyword:
        if not isinstance(size, (list, tuple)):
            raise TypeError(f"{prefix} must be tuple of ints, not {type(size).__name__}")
        size, packed = tuple(size), True
    elif len(size) == 1 and isinstance(size[0], (list, tuple)):
        size, packed = tuple(size[0]), True
    else:
        if len(size) > 1 and isinstance(size[0], (list, tuple)) or (size and isinstance(size[0], float)
                                                                    and len(size) > 1):
            raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
        packed = False
    out = []
    for pos, s in enumerate(size):
        if isinstance(s, Tensor) and s._data.ndim == 0 and s._data.dtype.kind in "iu":
            s = int(s)
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            kind = type(s).__name__
            if pos:
                raise TypeError(f"{prefix} failed to unpack the object at pos {pos + 1} with error "
                                f"\"type must be tuple of ints,but got {kind}\"")
            if packed:
                raise TypeError(f"{prefix} (position 1) must be tuple of ints, but found element of type {kind} at pos 0")
            raise TypeError(f"{prefix} (position 1) must be tuple of ints, not {kind}")
        out.append(int(s))
    for s in out:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    check_size(int(np.prod(out)))
    return tuple(out)


def _default(dtype):
    return _dtypes.to_numpy_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype().np


def _full(shape, fill, dtype):
    out = aligned_empty(shape, dtype)
    np.copyto(out, fill, casting="unsafe")  # (np.full's own fill)
    return out


def _filled(fill, size, dtype, requires_grad, device, kw, name):
    keyword = "size" in kw
    if keyword:
        size = kw.pop("size")
    kw.pop("out", None)
    kw.pop("layout", None)
    kw.pop("pin_memory", None)
    return _finish(_full(_size(size, name, keyword), fill, _default(dtype)), None, requires_grad, device)


def zeros(*size, dtype=None, device=None, requires_grad=False, **kw):
    return _filled(0, size, dtype, requires_grad, device, kw, "zeros")


def ones(*size, dtype=None, device=None, requires_grad=False, **kw):
    return _filled(1, size, dtype, requires_grad, device, kw, "ones")


def empty(*size, dtype=None, device=None, requires_grad=False, **kw):
    return _filled(0, size, dtype, requires_grad, device, kw, "empty")


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, **kw):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtypes.bool_
        elif isinstance(fill_value, numbers.Integral):
            dtype = _dtypes.int64
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if isinstance(fill_value, Tensor):
        if fill_value.dim():  # (a 0-d tensor is a Number to PyTorch's argument parser)
            raise TypeError("full(): argument 'fill_value' (position 2) must be Number, not Tensor")
        fill_value = fill_value.item()
    return _finish(_full(_size((size,), "full"), fill_value, _default(dtype)), None, requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, **kw):
    return _finish(np.eye(n, m if m is not None else n, dtype=_default(dtype)), None, requires_grad, device)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, **kw):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = _dtypes.int64 if all(isinstance(v, numbers.Integral) for v in vals) else _dtypes.get_default_dtype()
    _no_bool(dtype, "arange_cpu")
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    check_size(max(n, 0))
    dt = np.dtype(dtype.np)
    if dt.kind == "f":
        data = _arange_floats(float(vals[0]), float(vals[2]), max(n, 0), dt)
    else:
        data = np.arange(vals[0], vals[1], vals[2])
    return _finish(data.astype(dt), None, requires_grad, device)


def _arange_floats(start, step, n, dt):
    """PyTorch's kernel as its x86 builds run it: ``start + step * i`` (a fused multiply-add) in its
    accumulate type (float64; float32 for half), except in the 256-bit vectors it fills two at a time
    (whole pairs only), where the first element is that, rounded to the dtype, and the rest step on from it."""
    acc = np.dtype(np.float32 if dt.itemsize < 4 else np.float64)
    start, step = acc.type(start), acc.type(step)
    width = 32 // dt.itemsize
    whole = n // (2 * width) * 2 * width
    lanes = np.arange(width, dtype=acc)
    out = np.empty(n, acc)
    for c in range(0, n, _CHUNK):  # (in chunks: float64's fused multiply-add takes a dozen temporaries)
        part = fma(step, np.arange(c, min(c + _CHUNK, n), dtype=acc), start, acc)
        k = min(whole - c, len(part))
        if k > 0:
            bases = np.repeat(part[:k:width].astype(dt).astype(acc), width)
            part[:k] = fma(np.tile(lanes, k // width), step, bases, acc)
        out[c:c + len(part)] = part
    return out


_CHUNK = 1 << 16  # (a multiple of every vector pair's length)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, **kw):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _no_bool(dtype, "linspace_cpu")
    check_size(steps)
    out = _quietly(_linspace, start, end, steps, np.dtype(_default(dtype)))  # (inf * 0 is nan, silently)
    return _finish(out, None, requires_grad, device)


def _linspace(start, end, steps, dt):
    """PyTorch's kernel: ``start + step * i`` up to halfway, ``end - step * (steps - 1 - i)`` from there,
    each a fused multiply-add as its x86 builds compile them (in half, each operation rounded);
    integers stepped in float64 and truncated."""
    if steps <= 1:
        return np.linspace(start, end, steps).astype(dt)
    start, end = _scalar_to(start, dt), _scalar_to(end, dt)
    acc = dt if dt.kind == "f" else np.dtype(np.float64)
    start, end = acc.type(start), acc.type(end)
    step = (end - start) / acc.type(steps - 1)
    up, down = _from_both_ends(steps, acc)
    if acc.itemsize < 4:
        return np.concatenate([start + step * up, end - step * down])
    return np.concatenate([fma(step, up, start, acc), fma(-step, down, end, acc)]).astype(dt)


def _from_both_ends(steps, dtype):
    """The steps taken from start up to halfway (0, 1, ...) and from end back after it (..., 1, 0), as
    PyTorch's linspace and logspace count them."""
    half = steps // 2
    return np.arange(half, dtype=dtype), np.arange(steps - half - 1, -1, -1, dtype=dtype)


_SCALAR_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t", "int32": "int",
                 "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t"}


def _scalar_to(v, dt):
    """PyTorch's checked ``Scalar::to<T>``: an error past the type's range (inf and nan pass to a float
    type); to an unsigned type, a negative integer down to minus its maximum wraps (a float does not)."""
    v = v.item() if isinstance(v, Tensor) else v
    if dt.kind == "f":
        f = float(v)
        if math.isfinite(f) and abs(f) > float(np.finfo(dt).max):
            raise RuntimeError(f"value cannot be converted to type {_SCALAR_NAMES[dt.name]} without overflow")
        return dt.type(f)
    info = np.iinfo(dt)
    lowest = -info.max if info.min == 0 and not isinstance(v, float) else info.min
    if isinstance(v, float) and not math.isfinite(v) or v > float(info.max) or v < lowest:
        raise RuntimeError(f"value cannot be converted to type {_SCALAR_NAMES[dt.name]} without overflow")
    bits = 8 * dt.itemsize
    n = int(v) % (1 << bits)  # (two's complement, as the cast wraps on x86)
    return dt.type(n - (1 << bits) if info.min and n > info.max else n)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    _no_bool(dtype, "logspace_cpu")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    check_size(steps)
    out = _quietly(_logspace, start, end, steps, float(base), np.dtype(_default(dtype)))
    return _finish(out, None, requires_grad, device)


def _logspace(start, end, steps, base, dt):
    """PyTorch's: the exponents stepped in float64 as linspace steps (from each end to halfway), then C's
    pow, element by element (NumPy's vectorised float64 power can differ from it in the last bit)."""
    if steps <= 1:  # (PyTorch fills in C's pow of start, in float64)
        return np.full(steps, _c_pow(base, float(start.item() if isinstance(start, Tensor) else start))).astype(dt)
    start, end = _scalar_to(start, dt), _scalar_to(end, dt)
    step = float(end - start if dt.kind == "f" else int(end) - int(start)) / (steps - 1)  # (C's int promotion)
    up, down = _from_both_ends(steps, np.float64)
    x = np.concatenate([float(start) + step * up, float(end) - step * down])
    if steps > 1 << 16:  # (a Python loop past this size costs more than the last bit is worth)
        return np.power(base, x).astype(dt)
    return np.array([_c_pow(base, v) for v in x.tolist()]).astype(dt)


def _c_pow(base, x):
    try:
        return math.pow(base, x)
    except (OverflowError, ValueError):  # (C's pow gives inf or nan)
        return float(np.power(np.float64(base), x))


def _no_bool(dtype, kernel):
    if dtype is _dtypes.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _drawn(shape, dtype, draw, generator, requires_grad, device):
    """A new tensor: ``draw(generator, shape, np_dtype)``, a Generator method."""
    if dtype is not None and not dtype.is_floating_point:
        kernel = "check_uniform_bounds" if draw is Generator.uniform else "normal_kernel_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype._legacy[:-6]}\'')
    return _finish(draw(generator_or_default(generator), shape, _default(dtype)), None, requires_grad, device)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, **kw):
    keyword = "size" in kw
    if keyword:
        size = kw.pop("size")
    return _drawn(_size(size, "rand", keyword), dtype, Generator.uniform, generator, requires_grad, device)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, **kw):
    keyword = "size" in kw
    if keyword:
        size = kw.pop("size")
    return _drawn(_size(size, "randn", keyword), dtype, Generator.normal, generator, requires_grad, device)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    shape = _size(tuple(size))
    _check_range(low, high)
    if dtype is not None and not dtype.is_floating_point:
        top = 1 if dtype is _dtypes.bool_ else np.iinfo(dtype.np).max
        if int(high) - 1 > top:
            raise RuntimeError(f"to - 1 is out of bounds for {_CPP_TYPE_NAMES[dtype.name]}")
    data = generator_or_default(generator).integers(shape, int(low), int(high))
    return _finish(data, dtype, requires_grad, device)


def _check_range(low, high):
    if not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")


def randperm(n, *, dtype=None, device=None, requires_grad=False, generator=None):
    _no_bool(dtype, "randperm")
    check_size(n)
    return _finish(generator_or_default(generator).permutation(n), dtype, requires_grad, device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    g = generator_or_default(generator)
    if isinstance(std, Tensor):
        if std.numel() and bool((std._data < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:  # (no overload takes a size with a tensor mean or std)
            raise invalid_arguments("normal", mean, std, size)
        # PyTorch draws N(0, 1) shaped like the broadcast of mean and std, then scales and shifts
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        ref = (mean if isinstance(mean, Tensor) else std)._data.dtype
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        z = g.normal(shape, ref)
        out = _finish((z * s + m).astype(ref), None, requires_grad, device)
        if _grad_mode._enabled and any(isinstance(a, Tensor) and a._requires_grad for a in (mean, std)):
            inputs = tuple(a for a in (mean, std) if isinstance(a, Tensor))
            name = "NormalBackward3" if len(inputs) == 2 else "NormalBackward1" if inputs[0] is mean else \
                "NormalBackward2"
            out = record(_node(name, len(inputs)), inputs, out._data)
        return out
    return _drawn(_size(tuple(size)), dtype, lambda g, shape, dt: g.normal(shape, dt, mean, std), generator,
                  requires_grad, device)


def _dense_dims(d):
    """``d``'s dims from outermost to innermost in memory when it is laid out other than C order yet
    non-overlapping and dense (a transpose, a permute): the layout ``empty_like`` keeps. Else None:
    a fresh tensor is C-contiguous."""
    if d.ndim < 2 or d.flags.c_contiguous:
        return None
    dims = sorted(range(d.ndim), key=lambda i: -d.strides[i])
    expected = d.itemsize
    for i in reversed(dims):
        if d.shape[i] != 1:
            if d.strides[i] != expected:
                return None
            expected *= d.shape[i]
    return dims


def filled_like(d, fill, dt):
    """``fill(shape, dt)`` (an array) laid out as ``empty_like(d)`` lays it out: what fills memory in order,
    a random draw, lands where PyTorch's does."""
    dims = _dense_dims(d)
    if dims is None:
        return fill(d.shape, dt)
    return fill(tuple(d.shape[i] for i in dims), dt).transpose(np.argsort(dims))


def _like(name, fill_fn):
    def like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
        need_tensor(name, "input", 1, input)
        dt = _dtypes.to_numpy_dtype(dtype) if dtype is not None else input._data.dtype
        return _finish(filled_like(input._data, fill_fn, dt), None, requires_grad, device)

    return like


zeros_like = _like("zeros_like", lambda s, dt: np.zeros(s, dtype=dt))
ones_like = _like("ones_like", lambda s, dt: np.ones(s, dtype=dt))
empty_like = _like("empty_like", lambda s, dt: np.zeros(s, dtype=dt))
rand_like = _like("rand_like", default_generator.uniform)
randn_like = _like("randn_like", default_generator.normal)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    need_tensor("full_like", "input", 1, input)
    dt = _dtypes.to_numpy_dtype(dtype) if dtype is not None else input._data.dtype
    return _finish(np.full(input._data.shape, fill_value, dtype=dt), None, requires_grad, device)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("randint_like", input, low, *(() if high is None else (high,)))
    if high is None:
        low, high = 0, low
    dt = _dtypes.to_numpy_dtype(dtype) if dtype is not None else input._data.dtype
    _check_range(low, high)
    data = default_generator.integers(input._data.shape, int(low), int(high))
    return _finish(data.astype(dt), None, requires_grad, device)


def _tensor_options(dt):
    return (f"TensorOptions(dtype={_CPP_TYPE_NAMES.get(dt.name, dt.name)}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def legacy_new(dt, args, kwargs):
    """``torch.Tensor(...)`` (``dt`` None: the default dtype) / ``torch.FloatTensor(...)``: sizes or data.

    As in PyTorch: no argument gives an empty 1-D tensor, ints or a ``torch.Size`` are sizes, a
    tensor is aliased (``torch.Tensor`` keeps its dtype, a typed constructor insists on its own),
    and anything else is data converted to the constructor's dtype.
    """
    from ._tensor import Size

    device = kwargs.pop("device", None)
    check_device(device)
    if "size" in kwargs and not args:
        args = tuple(kwargs.pop("size"))
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got unexpected keyword "
                        f"argument '{next(iter(kwargs))}'")
    typed = dt is not None
    dt = dt if typed else _dtypes.get_default_dtype()
    if not args:
        return _wrap(np.zeros((0,), dtype=dt.np))
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    elif len(args) == 1 and (isinstance(args[0], bool) or not isinstance(args[0], (int, np.integer))):
        data = args[0]
        if isinstance(data, Tensor):
            if typed and data._data.dtype != dt.np:
                raise TypeError(f"expected {_tensor_options(dt)} (got {_tensor_options(data.dtype)})")
            from ._ops import alias

            return alias(data)
        if isinstance(data, (numbers.Number, np.generic)):
            kind = type(data)
            kind = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
            raise TypeError(f"new(): data must be a sequence (got {kind})")
        return _wrap(np.asarray(_infer(data, dt), dtype=dt.np) if not isinstance(data, np.ndarray) else data.astype(dt.np))
    return _wrap(np.zeros(_size(args, "new"), dtype=dt.np))


class _LegacyTensorType(type):
    """``torch.FloatTensor`` and friends: calling one builds a tensor of its ``dtype``, and
    ``isinstance(t, torch.FloatTensor)`` checks ``t``'s dtype, as in PyTorch."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np


def _legacy(dt, name):
    return _LegacyTensorType(name, (), {"dtype": dt, "__module__": "torch", "__slots__": ()})


FloatTensor = _legacy(_dtypes.float32, "FloatTensor")
DoubleTensor = _legacy(_dtypes.float64, "DoubleTensor")
HalfTensor = _legacy(_dtypes.float16, "HalfTensor")
LongTensor = _legacy(_dtypes.int64, "LongTensor")
IntTensor = _legacy(_dtypes.int32, "IntTensor")
ShortTensor = _legacy(_dtypes.int16, "ShortTensor")
ByteTensor = _legacy(_dtypes.uint8, "ByteTensor")
CharTensor = _legacy(_dtypes.int8, "CharTensor")
BoolTensor = _legacy(_dtypes.bool_, "BoolTensor")


# ----- Window functions: PyTorch's formulas (a periodic window is the symmetric one of length N + 1, cut) -----

def _window(name, n, periodic, dtype, device, requires_grad, make):
    if type(n) is not int:
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    dtype = _dtypes.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={_CPP_TYPE_NAMES[dtype.np.name]}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))")
    if n <= 1:
        data = np.ones(n)
    else:
        m = n + 1 if periodic else n
        data = make(np.arange(m, dtype=np.float64), m)[:n]
    return _finish(data.astype(dtype.np), None, requires_grad, device)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, m: alpha - beta * np.cos(k * (2 * np.pi / (m - 1))))


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, m: 0.5 - 0.5 * np.cos(k * (2 * np.pi / (m - 1))))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def make(k, m):
        w = k * (np.pi / (m - 1))
        return 0.08 * np.cos(4 * w) - 0.5 * np.cos(2 * w) + 0.42

    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, make)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def make(k, m):
        w = k * (2 / (m - 1))
        half = (m - 1) // 2 + 1
        w[half:] = 2 - w[half:]
        return w

    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, make)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    def make(k, m):
        a = (m - 1) / 2
        return np.i0(beta * np.sqrt(np.maximum(1 - ((k - a) / a) ** 2, 0))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, make)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An (here zero-filled) tensor of ``size`` laid out with ``stride`` in elements."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    dt = np.dtype(_default(dtype))
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    check_size(extent)
    buf = np.zeros(extent, dtype=dt)
    data = np.lib.stride_tricks.as_strided(buf, size, tuple(s * dt.itemsize for s in stride))
    return _finish(data, None, requires_grad, device)
