"""Tensor methods and operators, bound from the functional ops (so ``torch.Tensor.exp(x)`` works too)."""
import numpy as np

from . import _dtypes, _grad_mode, _ops
from ._ops import _quiet_off, _quiet_on
from ._tensor import Tensor, _wrap, check_device, has_tangent

# ----- Methods that are the functional op with the tensor first -----
for _name in (
    "add", "sub", "mul", "div", "true_divide", "pow", "neg", "negative", "abs", "absolute", "square",
    "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sinh",
    "cosh", "atan", "sigmoid", "reciprocal", "relu", "clamp", "clip", "clamp_min", "clamp_max", "floor",
    "ceil", "round", "trunc", "frac", "sign", "sgn", "adjoint", "isnan", "isinf", "isfinite", "maximum", "minimum",
    "remainder", "fmod", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal",
    "less", "less_equal", "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "all",
    "any", "sum", "mean", "prod", "max", "min", "amax", "amin", "outer", "ger", "argmax", "argmin", "var", "std", "logsumexp",
    "norm", "cumsum", "softmax", "log_softmax", "mm", "mv", "dot", "bmm", "addmm", "matmul", "view",
    "reshape", "flatten", "unflatten", "transpose", "swapaxes", "t", "permute", "squeeze", "unsqueeze",
    "expand", "broadcast_to", "repeat", "clone", "contiguous", "select", "narrow",
    "index_select", "masked_fill", "gather", "unbind", "split", "chunk", "unsafe_split", "unsafe_chunk", "nonzero",
    "erf", "erfc", "asin", "acos", "asinh", "acosh", "atanh", "arcsin", "arccos", "arcsinh", "arccosh", "arctanh",
    "arctan", "exp2", "logit", "atan2", "arctan2", "hypot", "xlogy", "lerp", "addcmul", "addcdiv", "logaddexp",
    "nan_to_num", "heaviside", "deg2rad", "rad2deg", "sinc", "tril", "triu", "diag", "diagonal", "trace", "roll",
    "cumprod", "kron", "masked_select", "repeat_interleave", "tile", "unfold", "sum_to_size",
    "sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin", "take",
    "take_along_dim", "scatter", "scatter_add", "index_add", "index_fill", "index_copy", "index_put",
):
    setattr(Tensor, _name, getattr(_ops, _name))


def _as_method(fn, name, shown=None):
    """``fn`` as a method whose argument errors count positions as PyTorch's methods do: from the
    argument after ``self`` (``t.add(None)``: "argument 'other' (position 1)"), without ``self``
    among the types of an invalid combination; named ``shown`` (``add_``) if given."""
    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            form = getattr(e, "method_form", None)
            if form is None or form[0] != name:
                raise
            raise TypeError(form[1] if shown is None else form[1].replace(name, shown, 1)) from None

    method.__name__ = method.__qualname__ = shown or name
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    return method


# (the methods of a second tensor or number; the others have no argument worth the wrapper's call)
_OF_TWO = (
    "add", "sub", "mul", "div", "true_divide", "pow", "clamp", "clip", "clamp_min", "clamp_max", "maximum",
    "minimum", "remainder", "fmod", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "outer", "ger", "mm", "mv", "dot", "bmm", "addmm", "matmul",
    "atan2", "arctan2", "hypot", "xlogy", "lerp", "addcmul", "addcdiv", "logaddexp", "heaviside", "kron",
    "take", "take_along_dim", "masked_select", "index_select", "gather", "masked_fill", "dist", "copysign",
    "float_power", "logaddexp2", "fmax", "fmin", "inner", "cross", "bitwise_left_shift", "bitwise_right_shift",
    "multiply", "subtract", "divide", "vdot", "max", "min",
)
for _name in _OF_TWO:
    if hasattr(_ops, _name) and getattr(Tensor, _name, None) is getattr(_ops, _name):
        setattr(Tensor, _name, _as_method(getattr(_ops, _name), _name))


# The methods' own messages count positions from ``other`` (1), not ``input`` as the functions do.
def _equal(self, other=_ops._NO_OTHER):
    return _ops._equal(0, self, other)


def _allclose(self, other=_ops._NO_OTHER, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _ops._allclose(0, self, other, rtol, atol, equal_nan)


def _isclose(self, other=_ops._NO_OTHER, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _ops._isclose(0, self, other, rtol, atol, equal_nan)


Tensor.equal, Tensor.allclose, Tensor.isclose = _equal, _allclose, _isclose


def _flip(self, *dims):
    """``t.flip(0, 1)`` or ``t.flip([0, 1])``; the function ``torch.flip`` takes a sequence only."""
    return _ops.flip(self, _ops._shape_arg(dims))


Tensor.flip = _flip


def _view_as(self, other):
    _ops.need_tensor("view_as", "other", 1, other)
    return _ops.view(self, other._data.shape)


def _reshape_as(self, other):
    _ops.need_tensor("reshape_as", "other", 1, other)
    return _ops.reshape(self, other._data.shape)


def _expand_as(self, other):
    _ops.need_tensor("expand_as", "other", 1, other)
    return _ops.expand(self, other._data.shape)


def _type_as(self, other):
    _ops.need_tensor("type_as", "other", 1, other)
    return _ops.to_dtype(self, other.dtype)


def _where(self, condition, other):
    return _ops.where(condition, self, other)


def _to(self, *args, **kwargs):
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    check_device(kwargs.pop("device", None))
    for a in args:
        if isinstance(a, _dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        else:
            check_device(a)
    return _ops.to_dtype(self, dtype, copy) if dtype is not None else (_ops.clone(self) if copy else self)


def _cast(dt, name):
    def cast(self, *args, memory_format=None, **kwargs):
        if args:
            raise TypeError(f"{name}() takes 0 positional arguments but {len(args)} "
                            f"{'was' if len(args) == 1 else 'were'} given")
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return _ops.to_dtype(self, dt)

    cast.__name__ = cast.__qualname__ = name
    return cast


def _cuda(self, *args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


Tensor.view_as = _view_as
Tensor.reshape_as = _reshape_as
Tensor.expand_as = _expand_as
Tensor.type_as = _type_as
Tensor.where = _where
Tensor.to = _to
Tensor.cpu = lambda self, *a, **k: self
Tensor.cuda = _cuda
Tensor.float = _cast(_dtypes.float32, "float")
Tensor.double = _cast(_dtypes.float64, "double")
Tensor.half = _cast(_dtypes.float16, "half")
Tensor.long = _cast(_dtypes.int64, "long")
Tensor.int = _cast(_dtypes.int32, "int")
Tensor.short = _cast(_dtypes.int16, "short")
Tensor.bool = _cast(_dtypes.bool_, "bool")
Tensor.byte = _cast(_dtypes.uint8, "byte")
Tensor.T = property(_ops.numpy_T)
Tensor.mT = property(lambda self: _ops._matrix_transpose(self, "mT"))
Tensor.mH = property(lambda self: _ops._matrix_transpose(self, "mH"))
Tensor.H = property(lambda self: _ops._matrix_transpose(self, "H"))
Tensor.__getitem__ = _ops.getitem
Tensor.__setitem__ = _ops.setitem


def _new_factory(fill):
    def new(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _factories

        dt = dtype or self.dtype
        return getattr(_factories, fill)(*size, dtype=dt, requires_grad=requires_grad)

    return new


Tensor.new_zeros = _new_factory("zeros")
Tensor.new_ones = _new_factory("ones")
Tensor.new_empty = _new_factory("empty")


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._factories import tensor

    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning, stacklevel=2)
        data = data._data

    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    from ._factories import full

    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


Tensor.new_tensor = _new_tensor
Tensor.new_full = _new_full

# ----- Operators -----
Tensor.__sub__ = _ops.sub
Tensor.__rsub__ = _ops.rsub
Tensor.__rtruediv__ = _ops.rdiv
Tensor.__floordiv__ = _ops.floor_divide
Tensor.__rfloordiv__ = lambda self, other: _ops.floor_divide(other, self)
Tensor.__mod__ = _ops.remainder
Tensor.__rmod__ = lambda self, other: _ops.remainder(_ops.as_tensor_arg(other), self)
Tensor.__pow__ = _ops.pow
Tensor.__rpow__ = lambda self, other: _ops.pow(other, self)
# A matrix product has no scalar form: `t @ 2.0` is Python's "unsupported operand" TypeError.
Tensor.__rmatmul__ = lambda self, other: _ops.matmul(other, self) if isinstance(other, Tensor) else NotImplemented
Tensor.__neg__ = _ops.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = _ops.abs
Tensor.__invert__ = _ops.invert
Tensor.__eq__ = _ops.eq
Tensor.__ne__ = _ops.ne
Tensor.__lt__ = _ops.lt
Tensor.__le__ = _ops.le
Tensor.__gt__ = _ops.gt
Tensor.__ge__ = _ops.ge
Tensor.__and__ = _ops.bitwise_and
Tensor.__or__ = _ops.bitwise_or
Tensor.__xor__ = _ops.bitwise_xor
Tensor.__rand__ = lambda self, other: _ops.bitwise_and(other, self)
Tensor.__ror__ = lambda self, other: _ops.bitwise_or(other, self)
Tensor.__rxor__ = lambda self, other: _ops.bitwise_xor(other, self)
Tensor.__lshift__ = _ops.bitwise_left_shift
Tensor.__rshift__ = _ops.bitwise_right_shift
Tensor.__rlshift__ = lambda self, other: _ops.bitwise_left_shift(other, self)
Tensor.__rrshift__ = lambda self, other: _ops.bitwise_right_shift(other, self)
Tensor.real = property(_ops.real)
Tensor.imag = property(_ops.imag)
Tensor.char = _cast(_dtypes.int8, "char")
Tensor.split_with_sizes = lambda self, split_sizes, dim=0: _ops.split(self, list(split_sizes), dim)


def _fill_diagonal_(self, fill_value, wrap=False):
    """The main diagonal (of every dim, or wrapping down a tall matrix) set to ``fill_value``, as
    NumPy's fill_diagonal picks it: every ``step``-th element in memory, written through a view
    (CopySlices, as PyTorch records it) when the tensor is contiguous."""
    d = self._data
    if d.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if d.ndim > 2 and len(set(d.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self._requires_grad and self._grad_fn is None and _grad_mode._enabled:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    step = d.shape[1] + 1 if d.ndim == 2 else 1 + int(np.cumprod(d.shape[:-1]).sum())
    end = None if wrap or d.ndim > 2 else d.shape[1] * d.shape[1]
    if d.flags.c_contiguous:
        self.view(-1)[:end:step].fill_(fill_value)
    else:
        mask = np.zeros(d.size, bool)
        mask[:end:step] = True
        self[_wrap(mask.reshape(d.shape))] = fill_value
    return self


Tensor.fill_diagonal_ = _fill_diagonal_


# ----- Operands an operator takes: anything else is NotImplemented, as in PyTorch -----
# (so ``t + None`` and ``t + [1, 2]`` are TypeErrors and ``t != None`` is True). A NumPy array is
# NotImplemented too but for ``==``: NumPy's reflected operator then computes on ``t.__array__()``
# (refused when ``t`` requires grad) and ``__array_wrap__`` makes the result a tensor, so ``t + a``
# is float64 and ``a + t`` a TypeError (the array defers to ``__array_priority__``), as in PyTorch.
import numbers as _numbers  # noqa: E402

_FAST_OPERANDS = (Tensor, int, float, bool)
_OPERANDS = (Tensor, _numbers.Number, np.generic)


def _checks_operand(fn, operands=_OPERANDS):
    def operator(self, other):
        if type(other) in _FAST_OPERANDS or isinstance(other, operands):
            return fn(self, other)
        return NotImplemented

    operator.__name__ = operator.__qualname__ = getattr(fn, "__name__", "operator")
    return operator


for _name in ("__sub__", "__rsub__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
              "__rpow__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__",
              "__xor__", "__rand__", "__ror__", "__rxor__", "__lshift__", "__rshift__", "__rlshift__",
              "__rrshift__"):
    setattr(Tensor, _name, _checks_operand(getattr(Tensor, _name)))
_eq = Tensor.__eq__


def _eq_operator(self, other):
    if type(other) in _FAST_OPERANDS or isinstance(other, _OPERANDS) or (
            isinstance(other, np.ndarray) and other.dtype.kind in "biufc"):  # (an array of str: False)
        return _eq(self, other if not isinstance(other, np.ndarray) else _ops.as_tensor_arg(other))
    return NotImplemented


Tensor.__eq__ = _eq_operator
# PyTorch's reflected division is ``self.reciprocal() * other``: an array's product is NumPy's
Tensor.__rtruediv__ = _checks_operand(
    lambda self, other: _ops.rdiv(self, other) if not isinstance(other, np.ndarray) else self.reciprocal() * other,
    _OPERANDS + (np.ndarray,))


# The commonest operators are the shared kernel itself (see _ops.binary_operator).
def _matmul_operator(self, other):
    if type(other) is Tensor:
        if self._data.ndim == 2 and other._data.ndim == 2:  # every linear layer's forward: straight to mm
            return _ops.mm(self, other)
        return _ops.matmul(self, other)
    return _ops.matmul(self, other) if isinstance(other, Tensor) else NotImplemented


Tensor.__matmul__ = _matmul_operator
Tensor.__add__ = _ops.binary_operator("add", _ops.ADD, np.add, _OPERANDS)
Tensor.__radd__ = _checks_operand(lambda self, other: _ops.add(other, self) if isinstance(other, Tensor) else
                                  _ops._binary(self, other, _ops.ADD, np.add))
Tensor.__mul__ = Tensor.__rmul__ = _ops.binary_operator("mul", _ops.MUL, np.multiply, _OPERANDS)

Tensor.__truediv__ = _ops.binary_operator("div", _ops.DIV, np.true_divide, _OPERANDS, True)


# ----- NumPy functions on tensors -----
def _array_wrap(self, array, context=None, return_scalar=False):
    """What NumPy gives back for a tensor (``np.exp(t)``, ``np.round(t)``, ``a * t.detach()``): a
    tensor, with bool results as uint8, as PyTorch's ``__array_wrap__`` does. NumPy computes on
    ``t.__array__()``, refused when ``t`` requires grad."""
    array = np.asarray(array)
    return _wrap(array.astype(np.uint8) if array.dtype == np.bool_ else array)


Tensor.__array_wrap__ = _array_wrap


# ----- In-place ops: compute out of place, then write back and take over the history -----
# (When nothing is recorded, arithmetic on a float tensor with a same-dtype tensor or a Python
# number runs the ufunc in place instead, as ``p -= lr * p.grad`` in an optimizer step does; it
# computes what the out-of-place op would, and any error is left to the general path's message.)

_INPLACE_UFUNCS = {_ops.add: np.add, _ops.sub: np.subtract, _ops.mul: np.multiply, _ops.div: np.true_divide}


def _ufunc_in_place(self, other, ufunc):
    """``ufunc(self, other)`` written into self's array, for a float tensor and a same-dtype tensor or
    a Python number; False when that does not apply or fails (a read-only array, a broadcast that
    would grow self), and the general path then raises PyTorch's error."""
    d = self._data
    t = type(other)
    if d.dtype.kind != "f" or not (t is float or t is int or t is Tensor and other._data.dtype == d.dtype):
        return False
    quiet = _quiet_on()
    try:
        ufunc(d, other._data if t is Tensor else other, out=d)
    except (ValueError, TypeError):
        return False
    finally:
        _quiet_off(quiet)
    self._vc[0] += 1
    return True


def _inplace(fn):
    ufunc = _INPLACE_UFUNCS.get(fn)

    def method(self, *args, **kwargs):
        self._check_inplace()
        src = self
        if _grad_mode._enabled and (self._requires_grad or any(isinstance(a, Tensor) and a._requires_grad
                                                               for a in (*args, *kwargs.values()))):
            # The node may save its input, so it gets a snapshot of the old value and history.
            from ._tensor import _wrap

            src = _wrap(self._data.copy(), self._requires_grad)
            src._grad_fn, src._output_nr, src._fw_grad = self._grad_fn, self._output_nr, self._fw_grad
        elif ufunc is not None and len(args) == 1 and not kwargs and not _grad_mode._fw_active and \
                _ufunc_in_place(self, args[0], ufunc):
            return self
        return self._adopt(fn(src, *args, **kwargs))

    method.__wrapped__ = fn
    return method


def _inplace_method(name, fn):
    """``fn`` in place, as the method ``name`` (``add_``), whose argument errors name it when ``fn``
    takes a second operand."""
    method = _inplace(fn)
    return _as_method(method, fn.__name__, name) if fn.__name__ in _OF_TWO else method


for _name, _fn in {
    "add_": _ops.add, "sub_": _ops.sub, "mul_": _ops.mul, "div_": _ops.div, "pow_": _ops.pow,
    "neg_": _ops.neg, "abs_": _ops.abs, "exp_": _ops.exp, "log_": _ops.log, "sqrt_": _ops.sqrt,
    "sin_": _ops.sin, "cos_": _ops.cos, "tanh_": _ops.tanh, "sigmoid_": _ops.sigmoid, "relu_": _ops.relu,
    "clamp_": _ops.clamp, "clamp_min_": _ops.clamp_min, "clamp_max_": _ops.clamp_max,
    "floor_": _ops.floor, "ceil_": _ops.ceil, "round_": _ops.round, "reciprocal_": _ops.reciprocal,
    "square_": _ops.square, "masked_fill_": _ops.masked_fill, "t_": _ops.t,
    "transpose_": _ops.transpose, "squeeze_": _ops.squeeze, "unsqueeze_": _ops.unsqueeze,
    "remainder_": _ops.remainder, "sign_": _ops.sign, "sgn_": _ops.sgn,
    **{name + "_": fn for name, fn in _ops.COMPARED_IN_PLACE.items()},
    **{name + "_": getattr(_ops, name) for name in (
        "erf", "erfc", "asin", "acos", "arcsin", "arccos", "exp2", "logit", "atan2", "arctan2", "hypot", "xlogy",
        "lerp", "addcmul", "addcdiv", "nan_to_num", "heaviside", "deg2rad", "rad2deg", "sinc", "tril", "triu",
        "cumprod", "atan", "arctan", "scatter", "scatter_add", "index_add", "index_fill", "index_copy", "index_put")},
    "asinh_": _ops.INPLACE_WITHOUT_DERIVATIVE["asinh"], "arcsinh_": _ops.INPLACE_WITHOUT_DERIVATIVE["asinh"],
    "acosh_": _ops.INPLACE_WITHOUT_DERIVATIVE["acosh"], "arccosh_": _ops.INPLACE_WITHOUT_DERIVATIVE["acosh"],
    "atanh_": _ops.INPLACE_WITHOUT_DERIVATIVE["atanh"], "arctanh_": _ops.INPLACE_WITHOUT_DERIVATIVE["atanh"],
}.items():
    setattr(Tensor, _name, _inplace_method(_name, _fn))


def _inplace_operator(method, ufunc):
    def operator(self, other):
        # ``p -= lr * p.grad`` under no_grad (every optimizer step) needs no *args, **kwargs or
        # checks but this one: a broadcast self, whose elements share memory, takes the general path.
        if not _grad_mode._enabled and not _grad_mode._fw_active and 0 not in self._data.strides and \
                _ufunc_in_place(self, other, ufunc):
            return self
        return method(self, other)

    return operator


Tensor.__iadd__ = _inplace_operator(Tensor.add_, np.add)
Tensor.__isub__ = _inplace_operator(Tensor.sub_, np.subtract)
Tensor.__imul__ = _inplace_operator(Tensor.mul_, np.multiply)
Tensor.__itruediv__ = _inplace_operator(Tensor.div_, np.true_divide)
Tensor.__ipow__ = Tensor.pow_


def _shape_changing_inplace(name):
    # t_/squeeze_/... change the shape, so the tensor takes the result's array, not its values.
    fn = getattr(_ops, name[:-1])

    def method(self, *args):
        self._check_inplace()
        out = _ops.inplace_node(fn(self, *args))
        self._data = out._data
        if out._fw_grad is not None:  # (the tangent takes the new shape too)
            self._fw_grad = out._fw_grad
        self._bump()
        if out._grad_fn is not None:
            self._grad_fn, self._output_nr, self._requires_grad = out._grad_fn, 0, True
            if self._view_version is not None:  # a view keeps this node (SqueezeBackward3 ...), not AsStrided
                self._view_version = self._vc[0]
        return self

    return method


for _name in ("t_", "transpose_", "squeeze_", "unsqueeze_"):
    setattr(Tensor, _name, _shape_changing_inplace(_name))


def _zero_(self):
    """Fill with zeros in place (``x.grad.zero_()`` between backward calls)."""
    return _fill(self, 0, "ZeroBackward0")


def _fill_(self, value):
    if not isinstance(value, Tensor) and not _ops.is_scalar(value):
        raise _ops.invalid_arguments("fill_", value)  # (a method: self is not listed)
    if isinstance(value, Tensor) and has_tangent(value):  # the value's tangent fills self's
        return self.copy_(value.expand(self._data.shape))
    return _fill(self, value.item() if isinstance(value, Tensor) else value, "FillBackward2")


_FILL_OPS = {}


def _fill(self, value, node_name):
    self._check_inplace()
    if _grad_mode._enabled and self._requires_grad:
        from ._tensor import record

        op = _FILL_OPS.setdefault(node_name, _ops.defop(node_name, lambda g, ans, x, **kw: g * 0.0))
        out = record(op, (self,), np.full(self._data.shape, value, dtype=self._data.dtype))
        return self._adopt(out)
    self._data[...] = value
    self._bump()
    if has_tangent(self):
        self._fw_grad._data[...] = 0
    return self


_COPY = _ops.defop("CopyBackwards", lambda g, ans, x, src: g * 0.0,
                   lambda g, ans, x, src: _ops.sum_to(g, src.shape).to(src.dtype),
                   cpp_name="torch::autograd::CopyBackwards")


def _copy_(self, src, non_blocking=False):
    self._check_inplace()
    src = _ops.as_tensor_arg(src)
    data = np.broadcast_to(src._data if isinstance(src, Tensor) else src, self._data.shape).astype(self._data.dtype)
    if _grad_mode._enabled and (self._requires_grad or isinstance(src, Tensor) and src._requires_grad) or \
            has_tangent(self, src):
        from ._tensor import _wrap, record

        old = _wrap(self._data, self._requires_grad)
        old._grad_fn, old._output_nr, old._fw_grad = self._grad_fn, self._output_nr, self._fw_grad
        return self._adopt(record(_COPY, (old, src), data.copy()))
    self._data[...] = data
    self._bump()
    return self


Tensor.zero_ = _zero_
Tensor.fill_ = _fill_
Tensor.copy_ = _copy_


def _linalg_method(name):
    def method(self, *args, **kwargs):
        from . import linalg  # (at first use: see engine.__getattr__)

        return getattr(linalg, name)(self, *args, **kwargs)
    method.__name__ = name.lstrip("_").replace("torch_", "")
    return _as_method(method, method.__name__) if name == "_torch_cross" else method


Tensor.det = _linalg_method("det")
Tensor.logdet = _linalg_method("_logdet")
Tensor.slogdet = _linalg_method("_torch_slogdet")
Tensor.inverse = _linalg_method("inv")
Tensor.cholesky_solve = _linalg_method("_torch_cholesky_solve")
Tensor.cholesky_inverse = _linalg_method("_torch_cholesky_inverse")
Tensor.triangular_solve = _linalg_method("_torch_triangular_solve")
Tensor.matrix_power = _linalg_method("matrix_power")
Tensor.matrix_exp = _linalg_method("matrix_exp")
_householder_product = _linalg_method("householder_product")


def _orgqr(self, input2):
    _ops.need_tensor("orgqr", "input2", 1, input2)
    return _householder_product(self, input2)


Tensor.orgqr = _orgqr
Tensor.geqrf = _linalg_method("_torch_geqrf")
Tensor.cholesky = _linalg_method("_torch_cholesky")
Tensor.cross = _linalg_method("_torch_cross")
for _name, _of in (("svd", "_torch_svd"), ("qr", "_torch_qr"), ("pinverse", "_pinverse"), ("lu", "_tensor_lu"),
                   ("lu_solve", "_torch_lu_solve"), ("solve", "_tensor_solve"), ("lstsq", "_tensor_lstsq"),
                   ("eig", "_tensor_eig"), ("symeig", "_tensor_symeig")):
    setattr(Tensor, _name, _linalg_method(_of))


def _special_method(name):
    def method(self, *args, **kwargs):
        from . import special  # (at first use: see engine.__getattr__)

        return getattr(special, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


Tensor.i0 = _special_method("i0")
Tensor.igamma = _special_method("gammainc")
Tensor.igammac = _special_method("gammaincc")
Tensor.mvlgamma = _special_method("multigammaln")


# ----- The long tail (see the section of that name in _ops) -----
for _name in (
    "addbmm", "addmv", "addr", "aminmax", "argwhere", "baddbmm", "bincount", "copysign", "corrcoef",
    "count_nonzero", "cov", "diag_embed", "diagflat", "diff", "digamma", "dist", "dsplit", "erfinv", "fliplr",
    "flipud", "fmax", "fmin", "histc", "hsplit", "inner", "is_nonzero", "lgamma", "logaddexp2", "logcumsumexp",
    "masked_scatter", "moveaxis", "movedim", "nanmean", "nansum", "renorm", "rot90", "signbit", "swapdims",
    "tensor_split", "unique", "unique_consecutive", "vsplit",
):
    setattr(Tensor, _name, _as_method(getattr(_ops, _name), _name) if _name in _OF_TWO else getattr(_ops, _name))


def _polygamma(self, n):
    """``t.polygamma(n)``: the tensor comes first, unlike ``torch.polygamma(n, t)``."""
    return _ops.polygamma(n, self)


Tensor.polygamma = _polygamma
for _name in ("addbmm", "addmv", "addr", "baddbmm", "copysign", "digamma", "erfinv", "lgamma", "masked_scatter",
              "renorm"):
    setattr(Tensor, _name + "_", _inplace_method(_name + "_", getattr(_ops, _name)))
Tensor.polygamma_ = _inplace(_polygamma)
Tensor.swapdims_ = _shape_changing_inplace("swapdims_")


# ----- PyTorch's other names, and the in-place forms of more ops -----
for _name in ("multiply", "subtract", "divide", "fix", "vdot", "positive", "ravel", "float_power", "is_signed",
              "is_same_size", "is_conj", "is_neg", "conj", "resolve_conj", "resolve_neg", "isreal", "isposinf",
              "isneginf", "gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift"):
    setattr(Tensor, _name, _as_method(getattr(_ops, _name), _name) if _name in _OF_TWO else getattr(_ops, _name))
for _name, _fn in {
    "absolute_": _ops.abs, "negative_": _ops.neg, "clip_": _ops.clip, "cosh_": _ops.cosh, "sinh_": _ops.sinh,
    "tan_": _ops.tan, "expm1_": _ops.expm1, "log1p_": _ops.log1p, "log2_": _ops.log2, "log10_": _ops.log10,
    "rsqrt_": _ops.rsqrt, "frac_": _ops.frac, "trunc_": _ops.trunc, "fix_": _ops.trunc, "fmod_": _ops.fmod,
    "true_divide_": _ops.div, "divide_": _ops.divide, "multiply_": _ops.multiply, "subtract_": _ops.subtract,
    "floor_divide_": _ops.floor_divide, "cumsum_": _ops.cumsum, "addmm_": _ops.addmm, "addmv_": _ops.addmv,
    "bitwise_and_": _ops.bitwise_and, "bitwise_or_": _ops.bitwise_or, "bitwise_xor_": _ops.bitwise_xor,
    "bitwise_not_": _ops.bitwise_not, "gcd_": _ops.gcd, "lcm_": _ops.lcm,
    "bitwise_left_shift_": _ops.bitwise_left_shift, "bitwise_right_shift_": _ops.bitwise_right_shift,
    "i0_": Tensor.i0, "igamma_": Tensor.igamma, "igammac_": Tensor.igammac, "mvlgamma_": Tensor.mvlgamma,
}.items():
    setattr(Tensor, _name, _inplace_method(_name, _fn))
Tensor.swapaxes_ = _shape_changing_inplace("swapaxes_")
Tensor.__ilshift__ = Tensor.bitwise_left_shift_
Tensor.__irshift__ = Tensor.bitwise_right_shift_


_float_power_in_place = _inplace(_ops.float_power)


def _float_power_(self, exponent):
    if self._data.dtype != np.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_ops._scalar_type(self)} but the operation's "
                           "result requires dtype Double")
    return _float_power_in_place(self, exponent)


Tensor.float_power_ = _float_power_
Tensor.hardshrink = _ops.hardshrink
Tensor.prelu = _as_method(_ops.prelu, "prelu")
for _name in ("scatter_reduce", "index_reduce", "slice_scatter", "select_scatter", "diagonal_scatter", "put",
              "narrow_copy", "quantile", "nanquantile", "frexp", "ldexp", "nextafter", "histogram", "apply_", "map_",
              "map2_"):
    setattr(Tensor, _name, _as_method(getattr(_ops, _name), _name))
for _name, _fn in (("scatter_reduce", _ops.scatter_reduce), ("index_reduce", _ops.index_reduce), ("put", _ops.put),
                   ("ldexp", _ops.ldexp_checked), ("nextafter", _ops.nextafter)):
    setattr(Tensor, _name + "_", _as_method(_inplace(_fn), _name, _name + "_"))
Tensor.nbytes = property(lambda self: self._data.size * self._data.itemsize)
Tensor.itemsize = property(lambda self: self._data.itemsize)
