"""dtypes as PyTorch names them, and PyTorch's type-promotion rules."""
import builtins

import numpy as np


class dtype:
    """A tensor element type, printed as PyTorch prints it (``torch.float32``)."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_category", "_legacy")

    def __init__(self, name, np_dtype, category, legacy):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating
        self.is_floating_point = category == 2
        self.is_signed = self.np.kind in "if"
        self.itemsize = self.np.itemsize
        self._legacy = legacy

    @property
    def is_complex(self):
        return False

    def to_real(self):
        return self

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_dtype_named, (self.name,))


dtype.__module__ = "torch"  # type(torch.float32) shows "<class 'torch.dtype'>", as in PyTorch


def _dtype_named(name):
    return globals()["bool_" if name == "bool" else name]


float16 = dtype("float16", np.float16, 2, "HalfTensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int8 = dtype("int8", np.int8, 1, "CharTensor")
int16 = dtype("int16", np.int16, 1, "ShortTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
bool_ = dtype("bool", np.bool_, 0, "BoolTensor")

ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool_)
_FROM_NP = {d.np: d for d in ALL}
ALIASES = {
    "half": float16, "float": float32, "double": float64, "short": int16,
    "int": int32, "long": int64, "bool": bool_,
}

_default_float = float32


def get_default_dtype():
    """The dtype of floating tensors made from Python floats (``torch.float32``)."""
    return _default_float


def set_default_dtype(d):
    global _default_float
    if not (isinstance(d, dtype) and d.is_floating_point):
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def from_numpy_dtype(np_dtype):
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_numpy_dtype(d):
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.np
    if d in (builtins.float,):
        return np.float64
    if d in (builtins.int,):
        return np.int64
    if d in (builtins.bool,):
        return np.bool_
    return from_numpy_dtype(np.dtype(d)).np


def _need_dtypes(fname, *args):
    for pos, (arg, v) in enumerate(args, 1):
        if not isinstance(v, dtype):
            raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be torch.dtype, not {type(v).__name__}")


def promote_types(type1, type2):
    """PyTorch's ``promote_types``: the higher category wins, within one category the wider."""
    _need_dtypes("promote_types", ("type1", type1), ("type2", type2))
    if type1 is type2:
        return type1
    if type1._category != type2._category:
        return type1 if type1._category > type2._category else type2
    return _FROM_NP[np.promote_types(type1.np, type2.np)]


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value):
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, builtins.int):
        return int64
    return _default_float


def result_type(*operands):
    """PyTorch's result_type: dimensioned tensors outrank 0-d ones, which outrank Python scalars,
    except that a higher category (bool < int < float) always wins."""
    dim = zero = wrapped = None
    for x in operands:
        d = getattr(x, "_data", None)
        if d is None:
            if isinstance(x, np.generic):
                wrapped = _combine(wrapped, from_numpy_dtype(x.dtype)) if wrapped else from_numpy_dtype(x.dtype)
            else:
                s = scalar_dtype(x)
                wrapped = s if wrapped is None else promote_types(wrapped, s)
        else:
            t = _FROM_NP[d.dtype]
            if d.ndim:
                dim = t if dim is None else promote_types(dim, t)
            else:
                zero = t if zero is None else promote_types(zero, t)
    return _combine(dim, _combine(zero, wrapped))


class finfo:
    """``torch.finfo``: the limits of a floating dtype, as Python floats."""

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else _info_arg(type, "finfo")
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(type.np)
        self.bits, self.dtype = info.bits, type.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    __hash__ = None

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo``: the limits of an integer dtype, as Python ints."""

    def __init__(self, type):
        type = _info_arg(type, "iinfo")
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.dtype, self.min, self.max = info.bits, type.name, int(info.min), int(info.max)

    __hash__ = None

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _info_arg(type, name):
    if not isinstance(type, dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not {builtins.type(type).__name__}")
    return type


finfo.__module__ = iinfo.__module__ = "torch"
