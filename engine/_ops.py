"""Every differentiable primitive: its NumPy forward and, beside it, its backward rule.

A rule ``vjp(g, ans, *inputs, **attrs)`` maps the output grad ``g`` to one input's grad using
this engine's own ops, so the rules are themselves differentiable (``create_graph=True`` works
for every op). ``ans`` is the saved output (or None); an input the rule does not save arrives as
a stand-in with only ``shape`` and ``dtype``. Broadcasting is undone once, by the engine
(``sum_to``), never inside a rule.
"""
import builtins
import dis
import functools
import math
import numbers
import operator
import types
import warnings
import weakref

import numpy as np

from . import _dtypes, _grad_mode
from ._fma import _F32, _F64, fma, rounded as _rounded
from ._graph import HookedAttrs, expose, freed_error, node_class
from ._memory import aligned_copy
from ._reduce import _seq, add_reduce, mean_reduce, nll_reduce, norm_reduce, var_reduce
from ._tensor import (_CPP_TYPE_NAMES, _LEAF_INPLACE, _UNUSED, _UNWORKED, _VIEW_LEAF_INPLACE, SavedTensor, Size, Tensor,
                      _ndarray, _new, _version_message, _wrap, check_size, has_tangent, is_scalar, record,
                      saved_value, unpack_saved, unpack_with_attrs)


class Op:
    __slots__ = ("node_cls", "vjps", "saves", "keeps", "differentiable_outputs", "save_for", "_standins",
                 "_array_vjps", "aten", "_plan")

    def __init__(self, name, vjps, saves=(), cpp_name=None, outputs=(0,), keeps=False, aten=None):
        self.node_cls = node_class(name, cpp_name)
        self.aten = aten  # the ATen op's name, where PyTorch's messages name it otherwise than the node
        self.vjps = vjps
        self.saves = tuple(saves)
        # Tensors among the attrs (an index, a mask) that PyTorch saves: backward frees them with the
        # rest, so a second backward through the node raises as PyTorch's does.
        self.keeps = keeps
        self.differentiable_outputs = outputs
        self.save_for = None  # {saved position: inputs whose rules read it}; see the table at the end
        # Worked out at an op's first backward, not at import (which the page's first view waits
        # for). The hot paths read the slots and call the property only while they are _UNWORKED.
        self._standins = self._array_vjps = _UNWORKED
        self._plan = None  # what pack hooks get, in PyTorch's order: see _tensor._pack_plan

    @property
    def standins(self):
        if self._standins is _UNWORKED:
            self._standins = _standins(self.vjps, self.saves, self.save_for)
        return self._standins

    @property
    def array_vjps(self):
        if self._array_vjps is _UNWORKED:
            twins = tuple(map(_on_arrays, self.vjps))
            self._array_vjps = None if None in twins else twins
        return self._array_vjps


_NOT_GIVEN = object()  # an argument left out, where PyTorch tells that from any value given

def _standins(vjps, saves, save_for):
    """The inputs some rule reads that may not be saved (never, or not when ``save_for`` skips
    them): only these get a ``_Meta`` stand-in at backward, so recording an op keeps a plain
    ``(shape, dtype)`` per input. None when a rule's parameters can't be told (``*args``, not a
    plain function): all get one."""
    read = set()
    for rule in vjps:
        code = getattr(rule, "__code__", None)
        if code is None or code.co_flags & 0x04:  # CO_VARARGS
            return None
        names = code.co_varnames[2:code.co_argcount]  # after (g, ans): the inputs, then any attrs
        loaded = set(code.co_cellvars)
        for ins in dis.get_instructions(code):
            if "FAST" in ins.opname or "DEREF" in ins.opname or "CLOSURE" in ins.opname:
                loaded.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
        read.update(i for i, name in enumerate(names) if name in loaded)
    return tuple(sorted(i for i in read if i not in saves or save_for and i in save_for))


def defop(name, *vjps, saves=(), cpp_name=None, outputs=(0,), keeps=False, aten=None):
    return Op(name, vjps, saves, cpp_name, outputs, keeps, aten)


_ON_ARRAYS = {}  # an engine function -> what it computes, on NumPy arrays: see _on_arrays


# ----- Helpers: coercion, dims, broadcasting -----

# NumPy's floating-point warnings off around a kernel (1/0 is inf and 0/0 nan, silently, as in
# PyTorch). ``np.errstate`` costs more than a small kernel, so on NumPy 2 the context variable it
# sets is set directly; ``_quiet_off(_quiet_on())`` restores the caller's state either way. The
# backward walk stays quiet throughout, so the hottest kernels first check ``_quiet_state()``.
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _QUIET = _make_extobj(all="ignore")
    _quiet_on = functools.partial(_extobj_contextvar.set, _QUIET)
    _quiet_off = _extobj_contextvar.reset
    _quiet_state = _extobj_contextvar.get
except (ImportError, TypeError):  # NumPy 1.x
    _QUIET = object()
    _quiet_on = functools.partial(np.seterr, all="ignore")

    def _quiet_off(old):
        np.seterr(**old)

    def _quiet_state():
        return None


def _quietly(kernel, *args, **kwargs):
    """``kernel(*args, **kwargs)`` with the warnings off. The two kernels nearly every op runs
    (``_binary``, ``_unary``) inline these lines instead of paying a call."""
    quiet = None if _quiet_state() is _QUIET else _quiet_on()
    try:
        return kernel(*args, **kwargs)
    finally:
        if quiet is not None:
            _quiet_off(quiet)


def _quiet_op(fn):
    """``fn`` with NumPy's floating-point warnings off throughout: PyTorch gives inf and nan silently.
    (Not for an op a rule calls: the rule could then no longer run on arrays, see _on_arrays.)"""
    @functools.wraps(fn)
    def op(*args, **kwargs):
        return _quietly(fn, *args, **kwargs)

    return op


def as_tensor_arg(x):
    """Tensors and Python scalars pass through, anything else becomes a tensor. A NumPy scalar is the
    Python number, as PyTorch reads one (a ``numpy.bool_`` as a float: ``t + np.bool_(1)`` is float)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.generic):
        return float(x) if isinstance(x, np.bool_) else x.item()
    if is_scalar(x):
        return x
    from ._factories import tensor

    return tensor(x)


def type_name(x):
    """A value's type as PyTorch's argument errors name it: ``float``, ``numpy.float64``."""
    cls = type(x)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def tensor_expected(fname, arg, pos, x, kind="Tensor"):
    """PyTorch's TypeError for a non-tensor where ``fname`` takes a Tensor (``pos`` None: no position),
    or for another ``kind`` of argument ("int", "str", "torch.dtype")."""
    def message(pos):
        where = f"argument '{arg}'" + (f" (position {pos})" if pos is not None else "")
        return f"{fname}(): {where} must be {kind}, not {_arg_type(x)}"

    err = TypeError(message(pos))
    if pos is not None and pos > 1:
        err.method_form = (fname, message(pos - 1))
    return err


def need_int(fname, arg, pos, x):
    if type(x) is not int and (not isinstance(x, numbers.Integral) or isinstance(x, bool)):
        raise tensor_expected(fname, arg, pos, x, "int")


def need_number(fname, arg, pos, x, kind="Number"):
    """PyTorch's TypeError unless ``x`` is a number (or a tensor, which PyTorch reads as its value)."""
    if not is_scalar(x) and not isinstance(x, Tensor):
        raise tensor_expected(fname, arg, pos, x, kind)


def need_tensor(fname, arg, pos, x):
    """Raise ``tensor_expected``'s TypeError unless ``x`` is a tensor."""
    if type(x) is not Tensor and not isinstance(x, Tensor):
        raise tensor_expected(fname, arg, pos, x)


def not_differentiable(fname, arg, t):
    """PyTorch's error for a tensor requiring grad where ``fname``'s derivative formula has none
    (a loss's weight, batch norm's running statistics), checked only while grad mode is on."""
    if t is not None and t._requires_grad and _grad_mode._enabled:
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to argument '{arg}'. "
                           "This input cannot have requires_grad True.")


def _arg_type(v):
    return "Tensor" if isinstance(v, Tensor) else type_name(v)


def invalid_arguments(fname, *args, **kwargs):
    """The first line of PyTorch's TypeError when no overload of ``fname`` takes the arguments (the
    overloads it lists after it are left out). Keywords come last, in reverse, as PyTorch lists them."""
    def message(args):
        got = [_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}" for k, v in reversed(kwargs.items())]
        return f"{fname}() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:"

    err = TypeError(message(args))
    if args and isinstance(args[0], Tensor):
        err.method_form = (fname, message(args[1:]))
    return err


def _given_kw(**kwargs):
    """The keyword arguments that differ from their default None/False (for ``invalid_arguments``)."""
    return {k: v for k, v in kwargs.items() if v is not None and v is not False}


def _checked_alias(name, of):
    """``of`` under another of PyTorch's names, which its argument errors then name."""
    def f(input, *args, **kwargs):
        need_tensor(name, "input", 1, input)
        return of(input, *args, **kwargs)

    f.__name__ = f.__qualname__ = name
    return f


def _tensors_expected(tensors, arg=0):
    """PyTorch's TypeError for a non-tensor in a sequence of tensors."""
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {arg}, but got {type_name(x)}")


def _np_of(x):
    return x._data if isinstance(x, Tensor) else x


def _float_data(x):
    d = x._data
    return d if d.dtype.kind == "f" else d.astype(_dtypes.get_default_dtype().np)


def norm_dims(dim, ndim):
    """``dim`` (int, sequence or None) as a sorted tuple of non-negative axes; None means all."""
    if dim is None:
        return None
    if type(dim) is int and 0 <= dim < ndim:
        return (dim,)
    if type(dim) is tuple and len(dim) == 1 and type(dim[0]) is int and 0 <= dim[0] < ndim:
        return dim
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    n = builtins.max(ndim, 1)
    out = []
    for d in dims:
        if not -n <= d < n:
            lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
        out.append(d % n)
    return tuple(sorted(set(out))) if ndim else ()


def _given(out, **given):
    """Keep on ``out``'s node arguments as the user gave them (a negative dim, dims in the user's order),
    where its rule reads them normalized: PyTorch's ``grad_fn._saved_*`` show them as given."""
    if type(out) is tuple and not out:  # (unbind along a dim of size 0)
        return out
    node = (out[0] if type(out) is tuple else out)._grad_fn
    if node is not None:
        node._given = given
    return out


def _raw(dim):
    """True when ``dim`` is not what norm_dims makes of it: negative, or a sequence (kept as given)."""
    return type(dim) is not int or dim < 0


def _broadcast_error(sa, sb):
    la, lb = len(sa), len(sb)
    n = builtins.max(la, lb)
    for i in range(1, n + 1):
        a = sa[-i] if i <= la else 1
        b = sb[-i] if i <= lb else 1
        if a != b and a != 1 and b != 1:
            return RuntimeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {n - i}"
            )
    return RuntimeError("shapes cannot be broadcast")


def _broadcast_checked(sa, sb):
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        raise _broadcast_error(sa, sb) from None


def _broadcast_dims(gshape, shape):
    """The dims of a grad shaped ``gshape`` that broadcasting added to ``shape`` or stretched in it."""
    lead = len(gshape) - len(shape)
    if gshape[lead:] == shape:  # only leading dims added (a bias): no loop
        return tuple(range(lead))
    return tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)


def sum_to(g, shape):
    """Undo broadcasting: sum ``g`` down to ``shape``. The one place this happens."""
    gshape = g._data.shape
    if gshape == shape:
        return g
    if not _grad_mode._enabled and not _grad_mode._fw_active and g._data.dtype.kind == "f":
        return _wrap(_sum_to(g._data, shape))  # no graph to build: one reduction, no nodes
    if not shape:
        return sum(g)  # (SumBackward0 in a double backward, as PyTorch's sum_to)
    dims = _broadcast_dims(gshape, shape)
    if dims:
        g = sum(g, dims, keepdim=True)
    return reshape(g, shape) if g._data.shape != shape else g


def _sum_to(d, shape):
    """``sum_to`` on a NumPy array."""
    dshape = d.shape
    if dshape == shape:
        return d
    dims = _broadcast_dims(dshape, shape)
    if dims:
        # (the backward walk, which runs this for every bias, is quiet already: no _quietly call)
        d = add_reduce(d, dims) if _quiet_state() is _QUIET else _quietly(add_reduce, d, dims)
    return d if d.shape == shape else d.reshape(shape)


def _result_np_dtype(a, b):
    if isinstance(a, Tensor):
        da = a._data.dtype
        if isinstance(b, Tensor):
            db = b._data.dtype
            if db == da or db.kind == "b" and da.kind == "f":
                return da
            if da.kind == "b" and db.kind == "f":
                return db
        elif isinstance(b, float) and da.kind == "f" or isinstance(b, int) and not isinstance(b, bool) and da.kind in "fiu":
            return da
    return _dtypes.result_type(a, b).np


def _binary(a, b, op, fwd, attrs=None, true_div=False, operands=None):
    # Fast path: two tensors of one dtype, a float tensor and a bool mask (a ufunc casts the mask in
    # its loop: relu's backward), or a float tensor and a Python number. Most calls take it.
    if type(a) is Tensor:
        xa = a._data
        da = xa.dtype
        tb = type(b)
        if tb is Tensor:
            xb = b._data
            db = xb.dtype
            slow = (db is not da and db != da and (db.kind != "b" or da.kind != "f" or type(fwd) is not np.ufunc)
                    or true_div and da.kind != "f")
        else:
            xb = b
            slow = tb is not float and tb is not int or da.kind != "f"
    else:
        slow = True
    dt = None
    if slow:
        if operands is not None and not isinstance(b, operands):
            return NotImplemented  # an operator's other side it does not take (``t + None``): Python's TypeError
        a, b = as_tensor_arg(a), as_tensor_arg(b)
        dt = _result_np_dtype(a, b)
        if true_div and dt.kind != "f":
            dt = _dtypes.get_default_dtype().np
        xa, xb = _np_of(a), _np_of(b)
        if isinstance(a, Tensor) and xa.dtype != dt:
            xa = xa.astype(dt)
        if isinstance(b, Tensor) and xb.dtype != dt:
            xb = xb.astype(dt)
        elif not isinstance(b, Tensor) and dt.kind != "f" and isinstance(b, float):
            xb = dt.type(b)
    quiet = None if _quiet_state() is _QUIET else _quiet_on()  # 1/0 is inf and 0/0 nan, silently
    try:
        out = fwd(xa, xb) if attrs is None else fwd(xa, xb, **attrs)
    except ValueError:
        raise _broadcast_error(np.shape(xa), np.shape(xb)) from None
    finally:
        if quiet is not None:
            _quiet_off(quiet)
    if type(out) is not _ndarray:
        out = np.asarray(out)
    if dt is not None and out.dtype != dt:
        out = out.astype(dt)
    if _grad_mode._enabled or _grad_mode._fw_active or _grad_mode._inference[0]:
        return record(op, (a, b), out, attrs)
    t = _new(Tensor)  # _wrap(out), inlined: the rules of a backward pass run this for most ops
    t._data = out
    t._requires_grad = False
    t._grad_fn = None
    t._vc = [0]
    return t


def binary_operator(name, op, fwd, operands, true_div=False):
    """``Tensor.__mul__`` and the like: ``_binary`` itself, with ``op`` and ``fwd`` as its defaults,
    so ``t * x`` (which backward rules are made of) is one Python call, not a wrapper and a call.
    ``operands``: the types the operator takes; anything else is NotImplemented, as in PyTorch."""
    f = types.FunctionType(_binary.__code__, _binary.__globals__, name,
                           (op, fwd, None, true_div, operands), _binary.__closure__)
    f.__qualname__ = name
    return f


# ----- Binary arithmetic -----

ADD = defop("AddBackward0", lambda g, ans, a, b, alpha=1: g,
            lambda g, ans, a, b, alpha=1: g if alpha == 1 else _mul_scalar(g, alpha))
SUB = defop("SubBackward0", lambda g, ans, a, b, alpha=1: g,
            lambda g, ans, a, b, alpha=1: neg(g) if alpha == 1 else _mul_scalar(neg(g), alpha))
RSUB = defop("RsubBackward1", lambda g, ans, a, other, alpha=1: neg(g) if alpha == 1 else _mul_scalar(neg(g), alpha))
MUL = defop("MulBackward0", lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves=(0, 1))
DIV = defop("DivBackward0", lambda g, ans, a, b: g / b,
            lambda g, ans, a, b: neg(g) * ((a / b) / b), saves=(0, 1))
POW = defop("PowBackward0", lambda g, ans, a, exponent: _pow_grad(g, a, exponent), saves=(0,))
POW_T = defop("PowBackward1",
              lambda g, ans, a, b: where(b == 0, 0.0, g * (b * pow(a, _sub_scalar(b, 1)))),
              lambda g, ans, a, b: g * where(_eq0_and_nonneg(a, b), 0.0, ans * log(a)),
              saves=(0, 1, "result"))
RPOW = defop("PowBackward2", lambda g, ans, b, base: g * _mul_scalar(ans, math.log(base)) if base > 0
             else g * where(ans == 0, 0.0, ans * math.log(math.fabs(base)) if base else 0.0),
             saves=(0, "result"))  # (the exponent too, as PyTorch keeps it: grad_fn._saved_exponent)
MAXIMUM = defop("MaximumBackward0",
                lambda g, ans, a, b: _tie_grad(g, a, b, lt),
                lambda g, ans, a, b: _tie_grad(g, b, a, lt), saves=(0, 1))
MINIMUM = defop("MinimumBackward0",
                lambda g, ans, a, b: _tie_grad(g, a, b, gt),
                lambda g, ans, a, b: _tie_grad(g, b, a, gt), saves=(0, 1))
REMAINDER = defop("RemainderBackward1", lambda g, ans, a, b: g,
                  lambda g, ans, a, b: neg(g) * div(a, b, rounding_mode="floor"), saves=(0, 1))
DIV_ROUNDED = defop("DivBackward2", lambda g, ans, a, b: _zero_grad(g), lambda g, ans, a, b: _zero_grad(g),
                    saves=(0, 1))


def _not_implemented(name):
    def rule(g, ans, *args, **kw):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return rule


FLOOR_DIVIDE = defop("NotImplemented", _not_implemented("floor_divide"), _not_implemented("floor_divide"),
                     cpp_name="torch::autograd::NotImplemented")


def _grad_edges_only(out):
    """PyTorch's NotImplemented node has an edge only for each input that requires grad."""
    node = out._grad_fn
    if node is not None and builtins.any(fn is None for fn, _ in node._next):
        keep = [i for i, (fn, _) in enumerate(node._next) if fn is not None]
        node._next = tuple(node._next[i] for i in keep)
        node._metas = [node._metas[i] for i in keep]
    return out
REMAINDER_SCALAR = defop("RemainderBackward0", lambda g, ans, a, other: g)
FMOD = defop("FmodBackward1", lambda g, ans, a, b: g,
             lambda g, ans, a, b: neg(g) * div(a, b, rounding_mode="trunc"), saves=(0, 1))
FMOD_SCALAR = defop("FmodBackward0", lambda g, ans, a, other: g)
# What C++ code inside PyTorch gets for ``tensor * double`` (e.g. in the label-smoothing loss).
MUL_SCALAR = defop("MulBackward1", lambda g, ans, a, other: _mul_scalar(g, other))
DIV_SCALAR = defop("DivBackward1", lambda g, ans, a, other: _div_scalar(g, other))
ADD_SCALAR = defop("AddBackward1", lambda g, ans, a, other: g)


def _pow_grad(g, a, exponent):
    if exponent == 0:
        return _zero_grad(g)
    e = exponent if isinstance(exponent, complex) else float(exponent)  # (pow_backward works in double)
    return g * _mul_scalar(pow(a, e - 1), e)


def _eq0_and_nonneg(a, b):
    return (a == 0) & (b >= 0) if isinstance(b, Tensor) else a == 0


def _tie_grad(g, a, b, loses):
    """PyTorch's rule for maximum and minimum: half the grad on a tie, none where ``a`` loses (a nan
    on either side loses nothing)."""
    return masked_fill(where(a == b, _div_scalar(g, 2), g), loses(a, b), 0.0)


# ``g`` where ``mask`` is nonzero (scaled by it), else 0. A product is several times faster than
# np.where on a random mask, but 0 * inf is nan; so when the product's sum is not finite (an inf or
# nan somewhere, or an overflow), the zeros are put back.
def _masked_arrays(g, mask):
    r = g * mask
    if not np.isfinite(np.add.reduce(r, axis=None)):
        r = np.where(mask == 0, r.dtype.type(0), r)
    return r


def _need_operand(fname, input, other, invalid=False):
    """A tensor or a number for ``other``, else PyTorch's TypeError: its "must be Tensor" or, where
    ``fname`` has overloads (``invalid``), its "invalid combination"."""
    if not isinstance(other, Tensor) and not is_scalar(other):
        raise invalid_arguments(fname, input, other) if invalid else tensor_expected(fname, "other", 2, other)


def _alpha(alpha):
    # A tensor alpha is a Scalar to PyTorch (its value); computing with the tensor itself would mix
    # it with the arrays.
    return alpha.item() if isinstance(alpha, Tensor) else alpha


def add(input, other, *, alpha=1):
    if type(alpha) is not int:
        alpha = _alpha(alpha)
    if type(other) is not Tensor and type(other) is not float and type(other) is not int:
        _need_operand("add", input, other)
    return _binary(input, other, ADD, np.add if alpha == 1 else (lambda x, y, alpha: x + alpha * y),
                   None if alpha == 1 else {"alpha": alpha})


def _is_bool(x):  # (not a numpy.bool_: PyTorch reads that as a float)
    return isinstance(x, bool) or isinstance(x, Tensor) and x._data.dtype == np.bool_


def _sub_check(a, b):
    # A Python bool counts as a bool tensor, as PyTorch wraps it into one.
    bool_a, bool_b = _is_bool(a), _is_bool(b)
    if bool_a and bool_b:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
        )
    if bool_a or bool_b:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )


def sub(input, other, *, alpha=1):
    if type(alpha) is not int:
        alpha = _alpha(alpha)
    tb = type(other)
    if tb is not Tensor and tb is not float and tb is not int:
        _need_operand("sub", input, other)
    if not (type(input) is Tensor and input._data.dtype.kind == "f"
            and (tb is float or tb is int or tb is Tensor and other._data.dtype.kind == "f")):
        _sub_check(input, other)
    return _binary(input, other, SUB, np.subtract if alpha == 1 else (lambda x, y, alpha: x - alpha * y),
                   None if alpha == 1 else {"alpha": alpha})


def rsub(input, other, *, alpha=1):
    """``other - alpha * a`` for a Python scalar ``other`` (``2 - x`` is ``RsubBackward1``)."""
    if type(alpha) is not int:
        alpha = _alpha(alpha)
    if not isinstance(input, Tensor) or not (isinstance(other, Tensor) or is_scalar(other)):
        raise invalid_arguments("rsub", input, other, **_given_kw(alpha=None if alpha == 1 else alpha))
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    if isinstance(other, np.generic):
        other = as_tensor_arg(other)
    x = input._data
    if not ((type(other) is float or type(other) is int) and x.dtype.kind == "f"):  # else: no bool, no promotion
        _sub_check(input, other)
        x = x.astype(_result_np_dtype(input, other), copy=False)
    out = np.asarray(other - (x if alpha == 1 else alpha * x)).astype(x.dtype, copy=False)
    return record(RSUB, (input,), out, {"other": other, "alpha": alpha}) if (
        _grad_mode._enabled or _grad_mode._fw_active) else _wrap(out)


def mul(input, other):
    if type(other) is not Tensor and type(other) is not float and type(other) is not int:
        _need_operand("mul", input, other)
    return _binary(input, other, MUL, np.multiply)


def div(input, other, *, rounding_mode=None):
    if type(other) is not Tensor and type(other) is not float and type(other) is not int:
        _need_operand("div", input, other)
    if rounding_mode is None:
        return _binary(input, other, DIV, np.true_divide, true_div=True)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    _no_bool(input, other, "div_floor_cpu" if rounding_mode == "floor" else "div_trunc_cpu")
    out = _binary(input, other, DIV_ROUNDED, _floor_div if rounding_mode == "floor" else _trunc_div)
    return _given(out, rounding_mode=rounding_mode)


def _int_zero_check(x, y):
    if np.result_type(x, y).kind in "iub" and not np.all(y):
        raise RuntimeError("ZeroDivisionError")


def _floor_div(x, y):
    _int_zero_check(x, y)
    return np.floor_divide(x, y)


def _remainder(x, y):
    _int_zero_check(x, y)
    return np.remainder(x, y)


def _fmod(x, y):
    _int_zero_check(x, y)
    return np.fmod(x, y)


def _trunc_div(x, y):
    _int_zero_check(x, y)
    if np.result_type(x, y).kind in "iu":
        q = np.abs(x) // np.abs(y)
        return np.where((np.asarray(x) < 0) != (np.asarray(y) < 0), -q, q)
    return np.trunc(np.true_divide(x, y))


def _no_bool(a, b, kernel):
    if _is_bool(a) and _is_bool(b):
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def true_divide(input, other):
    _need_operand("true_divide", input, other, invalid=True)
    return div(input, other)


def rdiv(a, other):
    """``other / a``: PyTorch computes ``reciprocal(a) * other``, and so its graph shows that."""
    return mul(reciprocal(a), other)


def _pow_scalar(data, exponent):
    """PyTorch's pow_tensor_scalar kernels: of float32 and float64, sqrt, rsqrt and reciprocal for 0.5,
    -0.5 and -1, the products it writes out for 3 and -2 (``x * x * x``, ``1 / (x * x)``), and any other
    float32 power through float64 (Sleef's, in PyTorch's vector loops, is an ulp off in 1-2% of
    inputs; NumPy's float32 power in 20%)."""
    if exponent == 2:
        return data * data
    if exponent == 1:
        return data.copy()
    dt = data.dtype
    if dt != _F32 and dt != _F64:
        return np.power(data, exponent)
    if exponent == 0.5:
        return np.sqrt(data)
    if exponent == -0.5:
        return 1 / np.sqrt(data)
    if exponent == -1:
        return 1 / data
    if exponent == 3:
        return data * data * data
    if exponent == -2:
        return 1 / (data * data)
    if dt == _F32:
        return np.power(data, float(exponent), dtype=_F64).astype(_F32)
    return np.power(data, exponent)


def _power(base, exponent):
    """``np.power``, with PyTorch's integer powers: a negative exponent gives 0 (of 1 and -1, +-1)."""
    base, exponent = np.asarray(base), np.asarray(exponent)
    if base.dtype.kind not in "iu" or exponent.dtype.kind not in "iu" or not (exponent < 0).any():
        return np.power(base, exponent)
    neg = exponent < 0
    out = np.power(base, np.where(neg, 0, exponent))
    ones = np.where(base == 1, 1, np.where(base == -1, 1 - 2 * (-exponent % 2), 0))
    return np.where(neg, ones, out).astype(out.dtype)


def pow(input, exponent):
    if type(exponent) is not Tensor and type(exponent) is not float and type(exponent) is not int:
        _need_operand("pow", input, exponent, invalid=True)
    if isinstance(exponent, Tensor):
        _no_bool(input, exponent, "pow")
    if isinstance(input, Tensor) and is_scalar(exponent):
        dt = input._data.dtype
        if dt.kind != "f" or type(exponent) is not float and type(exponent) is not int:
            dt = _result_np_dtype(input, exponent)
        data = input._data if input._data.dtype == dt else input._data.astype(dt)
        if dt.kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        out = _quietly(_pow_scalar, data, exponent)  # (-1) ** 0.5 is nan, silently
        return record(POW, (input,), np.asarray(out, dtype=dt), {"exponent": exponent})
    if is_scalar(input):
        b = as_tensor_arg(exponent)
        dt = _dtypes.result_type(input, b).np
        with np.errstate(all="ignore"):
            out = _power(dt.type(input), b._data.astype(dt, copy=False))
        return record(RPOW, (b,), np.asarray(out, dtype=dt), {"base": input})
    return _binary(input, exponent, POW_T, _power)


def _tensor_pair(fname, input, other):
    """PyTorch's TypeError for a function of two tensors given something else (a number) for one."""
    need_tensor(fname, "input", 1, input)
    need_tensor(fname, "other", 2, other)


def _of_two_tensors(name, op, fwd, float_kernel=None, doc=None):
    """``name(input, other)``: ``fwd`` of two tensors (PyTorch takes no number for either); with
    ``float_kernel``, of float tensors only."""
    def f(input, other):
        _tensor_pair(name, input, other)
        if float_kernel is not None:
            _float_only(input, float_kernel)
        return _binary(input, other, op, fwd)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


maximum = _of_two_tensors("maximum", MAXIMUM, np.maximum)
minimum = _of_two_tensors("minimum", MINIMUM, np.minimum)


def _with_scalar(op, fwd, a, other):
    """``a`` (a tensor) with a Python scalar kept as an attribute: the node has one input."""
    d = a._data
    dt = d.dtype
    if dt.kind != "f" or type(other) is not float and type(other) is not int:  # else: no promotion
        dt = _result_np_dtype(a, other)
        d = d.astype(dt, copy=False)
    out = _quietly(fwd, d, other)
    if type(out) is not _ndarray or out.dtype != dt:
        out = np.asarray(out).astype(dt, copy=False)
    return record(op, (a,), out, {"other": other})


def _mul_scalar(a, other):
    return _with_scalar(MUL_SCALAR, np.multiply, a, other)


def _div_scalar(a, other):
    return _with_scalar(DIV_SCALAR, np.true_divide, a, other)


def _add_scalar(a, other):
    return _with_scalar(ADD_SCALAR, np.add, a, other)


def remainder(input, other):
    _need_operand("remainder", input, other, invalid=True)
    _no_bool(input, other, "remainder_cpu")
    if isinstance(input, Tensor) and is_scalar(other):
        return _with_scalar(REMAINDER_SCALAR, _remainder, input, other)
    return _binary(input, other, REMAINDER, _remainder)


def fmod(input, other):
    if isinstance(input, Tensor) and is_scalar(other):
        return _with_scalar(FMOD_SCALAR, _fmod, input, other)
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise invalid_arguments("fmod", input, other)
    return _binary(input, other, FMOD, _fmod)


def floor_divide(input, other):
    """``a // b``; like PyTorch, its backward is not implemented (the node raises when reached)."""
    _need_operand("floor_divide", input, other, invalid=True)
    _no_bool(input, other, "div_floor_cpu")
    if isinstance(input, Tensor) and is_scalar(other):
        return _with_scalar(FLOOR_DIVIDE, _floor_div, input, other)
    out = _binary(input, other, FLOOR_DIVIDE, _floor_div)
    return out if out is NotImplemented else _grad_edges_only(out)


# ----- Unary math -----

# Ops whose Jacobian is diagonal: their tangent is their rule applied to the input's tangent.
ELEMENTWISE = set()


def _unary(name, node, fwd, vjp, saves=()):
    op = defop(node, vjp, saves=saves)
    ELEMENTWISE.add(op)

    def f(input):
        if type(input) is not Tensor:  # (every elementwise op: one comparison in the common case)
            need_tensor(name, "input", 1, input)
        d = input._data
        quiet = None if _quiet_state() is _QUIET else _quiet_on()  # log(0) is -inf, silently
        try:
            out = fwd(d if d.dtype.kind == "f" else _float_data(input))
        finally:
            if quiet is not None:
                _quiet_off(quiet)
        if type(out) is not _ndarray:
            out = np.asarray(out)
        if _grad_mode._enabled or _grad_mode._fw_active or _grad_mode._inference[0]:
            return record(op, (input,), out)
        t = _new(Tensor)  # _wrap(out), inlined
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._vc = [0]
        return t

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}``; its backward node is ``{node}``."
    globals()[name] = f
    _ON_ARRAYS[f] = fwd
    return op


# Float32 exp, log, tanh, ... in float64, rounded once: PyTorch's values (see _fma.rounded)
_exp, _log, _tanh = _rounded(np.exp), _rounded(np.log), _rounded(np.tanh)
_unary("exp", "ExpBackward0", _exp, lambda g, ans, x: g * ans, saves=("result",))
_unary("log", "LogBackward0", _log, lambda g, ans, x: g / x, saves=(0,))
# The rules follow PyTorch's derivatives.yaml term by term (``x * 2`` with a Python number is
# MulBackward1 there), so a double backward builds the graph PyTorch builds.
_unary("log2", "Log2Backward0", _rounded(np.log2), lambda g, ans, x: g / _mul_scalar(x, math.log(2.0)), saves=(0,))
# (log10's: the literal of PyTorch's formula, 1 ulp below math.log(10.0))
_unary("log10", "Log10Backward0", _rounded(np.log10), lambda g, ans, x: g / _mul_scalar(x, 2.3025850929940456),
       saves=(0,))
_unary("log1p", "Log1PBackward0", _rounded(np.log1p), lambda g, ans, x: g / _add_scalar(x, 1), saves=(0,))
_unary("expm1", "Expm1Backward0", _rounded(np.expm1), lambda g, ans, x: g * _add_scalar(ans, 1), saves=("result",))
_unary("sqrt", "SqrtBackward0", np.sqrt, lambda g, ans, x: g / _mul_scalar(ans, 2), saves=("result",))
_unary("rsqrt", "RsqrtBackward0", lambda d: 1 / np.sqrt(d), lambda g, ans, x: _mul_scalar(g, -0.5) * pow(ans, 3),
       saves=("result",))
_unary("sin", "SinBackward0", _rounded(np.sin), lambda g, ans, x: g * cos(x), saves=(0,))
_unary("cos", "CosBackward0", _rounded(np.cos), lambda g, ans, x: g * neg(sin(x)), saves=(0,))
_unary("tan", "TanBackward0", _rounded(np.tan), lambda g, ans, x: g * _add_scalar(pow(ans, 2), 1), saves=("result",))
_unary("tanh", "TanhBackward0", _tanh, lambda g, ans, x: tanh_backward(g, ans), saves=("result",))
_unary("sinh", "SinhBackward0", _rounded(np.sinh), lambda g, ans, x: g * cosh(x), saves=(0,))
_unary("cosh", "CoshBackward0", _rounded(np.cosh), lambda g, ans, x: g * sinh(x), saves=(0,))
_unary("atan", "AtanBackward0", _rounded(np.arctan), lambda g, ans, x: g / _add_scalar(x * x, 1), saves=(0,))
_unary("sigmoid", "SigmoidBackward0", lambda d: _sigmoid(d), lambda g, ans, x: sigmoid_backward(g, ans), saves=("result",))
_unary("reciprocal", "ReciprocalBackward0", lambda d: 1 / d, lambda g, ans, x: neg(g) * (ans * ans), saves=("result",))


# ----- More elementwise math -----
# PyTorch's C++ rules write ``1 - t`` and ``s / t`` as a tensor filled with the number, then the
# op (SubBackward0 / DivBackward0 with no edge for the constant), but ``t + 1``, ``t - 1`` and
# ``t * 2`` as ops with a Python number (AddBackward1, SubBackward1, MulBackward1): the rules
# below write each term as PyTorch's rule does, so a double backward builds PyTorch's graph.

SUB_SCALAR = defop("SubBackward1", lambda g, ans, a, other: g)


def _sub_scalar(a, other):
    return _with_scalar(SUB_SCALAR, np.subtract, a, other)


def _rsub_scalar(s, x):
    """C++'s ``s - x`` for a number ``s``."""
    return sub(_wrap(np.asarray(s, dtype=x._data.dtype)), x)


def _rdiv_scalar(s, x):
    """C++'s ``s / x`` for a number ``s``: ``empty_like(x).fill_(s).div_(x)``, so the node keeps a full tensor."""
    return div(_wrap(np.full(x._data.shape, s, dtype=x._data.dtype)), x)


# erf and erfc as fdlibm (and so glibc) computes them, to within an ulp or two of float64
# rounding: rational approximations on four intervals of |x|, and for the far tails
# exp(-x*x) split in two exps so that it keeps its precision.
_ERX = 8.45062911510467529297e-01
_ERF_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
           -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_ERF_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
           1.32494738004321644526e-04, -3.96022827877536812320e-06)
_ERF_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
           3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
           -2.16637559486879084300e-03)
_ERF_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
           1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
_ERF_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
           -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
           -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_ERF_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
           6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
           6.57024977031928170135e+00, -6.04244152148580987438e-02)
_ERF_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
           -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
           -4.83519191608651397019e+02)
_ERF_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
           3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
           -2.24409524465858183362e+01)


def _horner(z, coefs):
    r = coefs[-1]
    for c in coefs[-2::-1]:
        r = r * z + c
    return r


def _erf(d, complement=False):
    """erf (or erfc) of a float array, in float64 and then rounded to ``d``'s dtype."""
    x = np.asarray(d, dtype=np.float64)
    a = np.abs(x)
    out = np.array(x, copy=True)  # (a nan stays nan: it is in no interval)
    small = a < 0.84375
    if small.any():
        xs = x[small]
        z = xs * xs
        y = _horner(z, _ERF_PP) / _horner(z, _ERF_QQ)
        out[small] = np.where(xs < 0.25, 1.0 - (xs + xs * y), 0.5 - (xs * y + (xs - 0.5))) if complement \
            else xs + xs * y
    mid = (a >= 0.84375) & (a < 1.25)
    if mid.any():
        xs = x[mid]
        s = np.abs(xs) - 1.0
        pq = _horner(s, _ERF_PA) / _horner(s, _ERF_QA)
        out[mid] = np.where(xs >= 0, (1.0 - _ERX) - pq, 1.0 + (_ERX + pq)) if complement \
            else np.where(xs >= 0, _ERX + pq, -_ERX - pq)
    end = 28.0 if complement else 6.0  # past this the result is 0, 1 or 2 in float64
    far = (a >= 1.25) & (a < end)
    if far.any():
        xs = x[far]
        ax = np.abs(xs)
        s = 1.0 / (ax * ax)
        rs = np.where(ax < 1 / 0.35, _horner(s, _ERF_RA) / _horner(s, _ERF_SA), _horner(s, _ERF_RB) / _horner(s, _ERF_SB))
        z = (ax.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)  # x to 20 bits: z * z is exact
        r = np.exp(-z * z - 0.5625) * np.exp((z - ax) * (z + ax) + rs) / ax
        out[far] = np.where(xs > 0, r, np.where(xs < -6.0, 2.0, 2.0 - r)) if complement \
            else np.where(xs > 0, 1.0 - r, r - 1.0)
    big = a >= end
    if big.any():
        out[big] = np.where(x[big] > 0, 0.0, 2.0) if complement else np.copysign(1.0, x[big])
    return out.astype(d.dtype, copy=False)


def _sinc(d):
    p = d * d.dtype.type(math.pi)
    return np.where(d == 0, d.dtype.type(1), np.sin(p) / p)


def _sinc_grad(g, x):
    # PyTorch's sinc_backward, term by term
    x_pi = _mul_scalar(x, math.pi)
    x_sq_pi = _mul_scalar(x * x, math.pi)
    return where(x_sq_pi == 0.0, 0.0, g * ((x_pi * cos(x_pi) - sin(x_pi)) / x_sq_pi))


_unary("erf", "ErfBackward0", _erf,
       lambda g, ans, x: _mul_scalar(exp(neg(pow(x, 2))), 2.0 / math.sqrt(math.pi)) * g, saves=(0,))
_unary("erfc", "ErfcBackward0", lambda d: _erf(d, True),
       lambda g, ans, x: _mul_scalar(exp(neg(pow(x, 2))), -2.0 / math.sqrt(math.pi)) * g, saves=(0,))
_unary("asin", "AsinBackward0", _rounded(np.arcsin), lambda g, ans, x: g * rsqrt(_add_scalar(neg(x) * x, 1)),
       saves=(0,))
_unary("acos", "AcosBackward0", _rounded(np.arccos), lambda g, ans, x: g * neg(rsqrt(_add_scalar(neg(x) * x, 1))),
       saves=(0,))
_unary("asinh", "AsinhBackward0", _rounded(np.arcsinh), lambda g, ans, x: g * rsqrt(_add_scalar(pow(x, 2), 1)),
       saves=(0,))
_unary("acosh", "AcoshBackward0", _rounded(np.arccosh), lambda g, ans, x: g * rsqrt(_sub_scalar(x * x, 1)), saves=(0,))
_unary("atanh", "AtanhBackward0", _rounded(np.arctanh),
       lambda g, ans, x: _mul_scalar(g, 1) / _rsub_scalar(1, pow(x, 2)), saves=(0,))
_unary("exp2", "Exp2Backward0", _rounded(np.exp2), lambda g, ans, x: _mul_scalar(g * ans, math.log(2.0)),
       saves=("result",))
_unary("sinc", "SincBackward0", _sinc, lambda g, ans, x: _sinc_grad(g, x), saves=(0,))
_unary("deg2rad", "Deg2RadBackward0", lambda d: d * d.dtype.type(math.pi / 180),
       lambda g, ans, x: _mul_scalar(g, math.pi / 180))
_unary("rad2deg", "Rad2DegBackward0", lambda d: d * d.dtype.type(180 / math.pi),
       lambda g, ans, x: _mul_scalar(g, 180 / math.pi))


def _unary_alias(name, of):
    """``of`` under NumPy's name, which PyTorch's argument errors name."""
    f = globals()[name] = _checked_alias(name, of)
    _ON_ARRAYS[f] = _ON_ARRAYS[of]


for _alias, _of in (("arcsin", asin), ("arccos", acos), ("arcsinh", asinh), ("arccosh", acosh),  # noqa: F821
                    ("arctanh", atanh), ("arctan", atan)):  # noqa: F821 (_unary made them)
    _unary_alias(_alias, _of)
del _alias, _of


def _inplace_without_derivative(name, fwd):
    """PyTorch records ``asinh_`` (and acosh_, atanh_) as a node of its own that has no derivative."""
    def rule(g, ans, x):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not implemented.")

    op = defop(f"{name.capitalize()}Backward1", rule)
    return lambda x: record(op, (x,), _quietly(fwd, _float_data(x)))


INPLACE_WITHOUT_DERIVATIVE = {name: _inplace_without_derivative(name, fwd)
                              for name, fwd in (("asinh", np.arcsinh), ("acosh", np.arccosh), ("atanh", np.arctanh))}


def _logit_grad(g, x, eps):
    # Building a graph, PyTorch's infinitely_differentiable_logit_backward: nan outside [0, 1], or 0
    # outside [eps, 1 - eps]; else its logit_backward kernel
    if not _grad_mode._enabled:
        return _wrap(_quietly(_logit_backward, _np_of(g), _np_of(x), eps))
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    return where((x >= lo) & (x <= hi), g / (x * _rsub_scalar(1.0, x)), math.nan if eps is None else 0.0)


def _logit_backward(go, x, eps):
    """PyTorch's kernel: at 0 and 1 (either zero) the grad times inf, not over a signed zero."""
    one = x.dtype.type(1)
    r = go / (x * (one - x))
    if eps is None:
        return np.where((x < 0) | (x > one), x.dtype.type(math.nan), np.where((x == 0) | (x == one), go * np.inf, r))
    return np.where((x < x.dtype.type(eps)) | (x > one - x.dtype.type(eps)), x.dtype.type(0), r)


def logit(input, eps=None):
    need_tensor("logit", "input", 1, input)
    d = _float_data(input)
    z = d if eps is None else np.clip(d, eps, 1 - eps)
    return record(LOGIT, (input,), _quietly(lambda: np.log(z / (1 - z))), None if eps is None else {"eps": eps})


def _float_only(x, kernel):
    dt = _np_of(x).dtype if isinstance(x, Tensor) else None
    if dt is not None and dt.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type(x)}\'')


def _atan2_recip(a, b):
    r = reciprocal(a * a + b * b)
    return masked_fill(r, isinf(r), 0.0)  # (0, 0): a zero grad, as in PyTorch


def _atan2_grads(g, a, b):
    # PyTorch's atan2_backward: one reciprocal for both grads, each computed only if needed
    recip = _atan2_recip(a, b)
    return (g * b * recip if a._requires_grad else None), (g * neg(a) * recip if b._requires_grad else None)


def _atan2_np(x, y, shared):
    return np.arctan2(x, y)

HYPOT = defop("HypotBackward0", lambda g, ans, a, b: g * a / ans, lambda g, ans, a, b: g * b / ans,
              saves=(0, 1, "result"))
XLOGY = defop("XlogyBackward0", lambda g, ans, a, b: masked_fill(xlogy(g, b), (a == 0.0) & (b <= 0.0), 0.0),
              lambda g, ans, a, b: g * a / b, saves=(0, 1))
XLOGY_SCALAR_SELF = defop("XlogyBackward1", lambda g, ans, b, self: _mul_scalar(g, self) / b, saves=(0,))
XLOGY_SCALAR_OTHER = defop("XlogyBackward2", lambda g, ans, a, other: xlogy(g, other) if other > 0
                           else masked_fill(xlogy(g, other), a == 0.0, 0.0), saves=(0,))
ELEMENTWISE.update((XLOGY_SCALAR_SELF, XLOGY_SCALAR_OTHER))  # (a tangent of 1 through log(0) is -inf, as in PyTorch)
LOGADDEXP = defop("LogaddexpBackward0", lambda g, ans, a, b: g / _add_scalar(exp(b - a), 1),
                  lambda g, ans, a, b: g / _add_scalar(exp(a - b), 1), saves=(0, 1))


def atan2(input, other):
    _tensor_pair("atan2", input, other)
    if not (_grad_mode._enabled or _grad_mode._fw_active):
        return _binary(input, other, ATAN2, np.arctan2, true_div=True)
    return _binary(input, other, ATAN2, _atan2_np, {"shared": _Shared((input, other))}, true_div=True)


def arctan2(input, other):
    _tensor_pair("arctan2", input, other)
    return atan2(input, other)


hypot = _of_two_tensors("hypot", HYPOT, np.hypot, "hypot_cpu")
logaddexp = _of_two_tensors("logaddexp", LOGADDEXP, np.logaddexp, "logaddexp_cpu")


def _xlogy(x, y):
    # 0 where x is 0 (even for y = 0), nan where y is nan
    return np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y))


def xlogy(input, other):
    _need_operand("xlogy", input, other, invalid=True)
    if is_scalar(input):
        if not isinstance(other, Tensor):
            raise invalid_arguments("xlogy", input, other)
        d = _float_data(other)
        out = _quietly(_xlogy, d.dtype.type(input), d)
        return record(XLOGY_SCALAR_SELF, (other,), np.asarray(out, dtype=d.dtype), {"self": input})
    if is_scalar(other):
        d = _float_data(input)
        out = _quietly(_xlogy, d, d.dtype.type(other))
        return record(XLOGY_SCALAR_OTHER, (input,), np.asarray(out, dtype=d.dtype), {"other": other})
    return _binary(input, other, XLOGY, _xlogy, true_div=True)


def _ternary_data(tensors, dt):
    """The arrays of ``tensors`` (tensors or numbers) in dtype ``dt``, and their broadcast shape."""
    arrays = [t._data.astype(dt, copy=False) if isinstance(t, Tensor) else dt.type(t) for t in tensors]
    shapes = [np.shape(a) for a in arrays]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        for i in range(len(shapes)):
            for j in range(i + 1, len(shapes)):
                if not _broadcastable(shapes[i], shapes[j]):
                    raise _broadcast_error(shapes[i], shapes[j]) from None
    return arrays


LERP = defop("LerpBackward0", lambda g, ans, a, b, weight: _mul_scalar(g, 1 - weight),
             lambda g, ans, a, b, weight: _mul_scalar(g, weight))
LERP_T = defop("LerpBackward1", lambda g, ans, a, b, w: g * _rsub_scalar(1, w), lambda g, ans, a, b, w: g * w,
               lambda g, ans, a, b, w: g * (b - a), saves=(0, 1, 2))
ADDCMUL = defop("AddcmulBackward0", lambda g, ans, a, t1, t2, value: g,
                lambda g, ans, a, t1, t2, value: g * _mul_scalar(t2, value),
                lambda g, ans, a, t1, t2, value: g * _mul_scalar(t1, value), saves=(1, 2))
ADDCDIV = defop("AddcdivBackward0", lambda g, ans, a, t1, t2, value: g,
                lambda g, ans, a, t1, t2, value: g * _rdiv_scalar(value, t2),
                lambda g, ans, a, t1, t2, value: neg(g) * (_mul_scalar(t1, value) / (t2 * t2)), saves=(1, 2))


def _lerp(a, b, w):
    # PyTorch's kernel: from the nearer end, so that lerp(a, b, 1) is b exactly
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def lerp(input, end, weight):
    if type(input) is not Tensor and not isinstance(input, Tensor) or not isinstance(end, Tensor) or not (
            isinstance(weight, Tensor) or is_scalar(weight)):
        raise invalid_arguments("lerp", input, end, weight)
    if input._data.dtype != end._data.dtype:
        raise RuntimeError(f"expected dtype {_scalar_type(input).lower()} for `end` but got dtype "
                           f"{_scalar_type(end).lower()}")
    _float_only(input, "lerp_kernel_scalar" if is_scalar(weight) else "lerp_kernel_tensor")
    dt = input._data.dtype
    if is_scalar(weight):
        a, b = _ternary_data((input, end), dt)
        out = _quietly(_lerp, a, b, dt.type(weight))
        return record(LERP, (input, end), np.asarray(out, dtype=dt), {"weight": weight})
    a, b, w = _ternary_data((input, end, weight), dt)
    return record(LERP_T, (input, end, weight), np.asarray(_quietly(_lerp, a, b, w), dtype=dt))


def _addc(name, op, fwd, x, t1, t2, value):
    for pos, (arg, t) in enumerate((("input", x), ("tensor1", t1), ("tensor2", t2)), 1):
        need_tensor(name, arg, pos, t)
    tensors = [x, t1, t2]
    dt = _dtypes.result_type(*tensors).np
    a, b, c = _ternary_data(tensors, dt)
    out = _quietly(fwd, a, b, c, value)
    return record(op, tuple(tensors), np.asarray(out, dtype=dt), {"value": value})


def addcmul(input, tensor1, tensor2, *, value=1):
    return _addc("addcmul", ADDCMUL, lambda a, b, c, v: a + v * b * c, input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    if builtins.all(isinstance(t, Tensor) and t._data.dtype.kind in "iub" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
            "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
            "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value "
            "* tensor1 / tensor2), for all dtypes.")
    return _addc("addcdiv", ADDCDIV, lambda a, b, c, v: a + v * (b / c), input, tensor1, tensor2, value)


NAN_TO_NUM = defop("NanToNumBackward0", lambda g, ans, x: g * isfinite(x), saves=(0,))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    need_tensor("nan_to_num", "input", 1, input)
    for pos, (arg, v) in enumerate((("nan", nan), ("posinf", posinf), ("neginf", neginf)), 2):
        if v is not None:
            need_number("nan_to_num", arg, pos, v, "float")
    if nan is None:
        nan = 0.0
    d = input._data
    if d.dtype.kind != "f":
        return _wrap(d.copy())
    info = np.finfo(d.dtype)
    out = np.nan_to_num(d, nan=nan, posinf=info.max if posinf is None else posinf,
                        neginf=info.min if neginf is None else neginf)
    return record(NAN_TO_NUM, (input,), out)


HEAVISIDE = defop("NotImplemented", _not_implemented("heaviside"), _not_implemented("heaviside"),
                  cpp_name="torch::autograd::NotImplemented")


def heaviside(input, values):
    need_tensor("heaviside", "input", 1, input)
    if not isinstance(values, Tensor):
        raise tensor_expected("heaviside", "values", 2, values)
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _grad_edges_only(_binary(input, values, HEAVISIDE, lambda a, v: np.where(a == 0, v, (a > 0).astype(a.dtype))))


# ----- PyTorch's backward kernels, ops of their own with their own rules -----
# (what a double backward through sigmoid, tanh, relu or softmax shows, and one kernel each)

def _zero_grad(g):
    """The grad of an input the function is constant in, wholly or piecewise (nll_loss's input,
    a sign, a mask): zeros."""
    return _wrap(np.zeros_like(g._data))


SIGMOID_BACKWARD = defop("SigmoidBackwardBackward0",
                         lambda g, ans, grad_output, output: sigmoid_backward(g, output),
                         lambda g, ans, grad_output, output: g * grad_output * _add_scalar(_mul_scalar(output, -2), 1),
                         saves=(0, 1))
TANH_BACKWARD = defop("TanhBackwardBackward0",
                      lambda g, ans, grad_output, output: tanh_backward(g, output),
                      lambda g, ans, grad_output, output: g * (_mul_scalar(output, -2) * grad_output),
                      saves=(0, 1))
THRESHOLD_BACKWARD = defop("ThresholdBackwardBackward0",
                           lambda g, ans, grad_output, x, threshold: threshold_backward(g, x, threshold),
                           lambda g, ans, grad_output, x, threshold: _zero_grad(g),
                           saves=(1,))


def _backward_kernel(op, kernel, inputs, attrs=None):
    """A backward kernel as an op: ``kernel`` (a function of NumPy arrays, which is also what a
    rule run on arrays calls) on the inputs' arrays and ``attrs``, recorded as ``op``."""
    return record(op, inputs, _quietly(kernel, *[_np_of(t) for t in inputs], **(attrs or {})), attrs)


def _sigmoid_backward(go, y):
    return (go * (1 - y)) * y  # (PyTorch's order, which rounds differently from go * (y * (1 - y)))


def sigmoid_backward(grad_output, output):
    return _backward_kernel(SIGMOID_BACKWARD, _sigmoid_backward, (grad_output, output))


def _tanh_backward(go, y):
    if y.dtype.kind == "f" and y.dtype.itemsize >= 4:  # PyTorch's kernel fuses 1 - y * y into one multiply-add
        return go * fma(-y, y, 1, y.dtype)
    return go * (1 - y * y)


def tanh_backward(grad_output, output):
    return _backward_kernel(TANH_BACKWARD, _tanh_backward, (grad_output, output))


def _threshold_backward(go, x, threshold):
    # The grad where not x <= threshold (so a nan x passes its grad), else 0, as in PyTorch: an inf
    # or nan grad gives 0 where it is dropped, which a product with the mask would make nan.
    u = _UINT_OF_SIZE.get(go.dtype.itemsize) if type(go) is _ndarray and go.dtype.kind == "f" else None
    if u is None or go.shape != np.shape(x):
        return _masked_arrays(go, _not_at_most(x, threshold))
    if go.size <= 2048:  # (np.where is the fewest calls, but several times slower on a large random mask)
        return np.where(x <= threshold, 0, go)
    # relu's backward at scale: the grad's bits AND a mask of all ones or all zeros, as fast as a product
    keep = (x <= threshold).astype(u)
    keep -= 1  # 0 where the grad is dropped, all ones elsewhere
    return np.bitwise_and(go.view(u), keep, out=keep).view(go.dtype)


_UINT_OF_SIZE = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def threshold_backward(grad_output, x, threshold):
    return _backward_kernel(THRESHOLD_BACKWARD, _threshold_backward, (grad_output, x), {"threshold": threshold})


def _not_at_most(d, threshold):
    m = d <= threshold
    return np.logical_not(m, out=m) if type(m) is np.ndarray else ~m


def _sigmoid(d):
    # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) is the right 0
    x = d if d.dtype.itemsize >= 4 else d.astype(np.float32)  # half: in float, as PyTorch computes it
    return np.asarray(_quietly(lambda: 1 / (1 + _exp(-x))), dtype=d.dtype)


NEG = defop("NegBackward0", lambda g, ans, x: neg(g))
ABS = defop("AbsBackward0", lambda g, ans, x: g * sgn(x), saves=(0,))
RELU = defop("ReluBackward0", lambda g, ans, x: threshold_backward(g, ans, 0), saves=("result",))
ELEMENTWISE.add(RELU)
LEAKY_RELU = defop("LeakyReluBackward0",
                   lambda g, ans, x, negative_slope: leaky_relu_backward(g, x, negative_slope), saves=(0,))
LEAKY_RELU_BACKWARD = defop("LeakyReluBackwardBackward0",
                            lambda g, ans, grad_output, x, negative_slope: leaky_relu_backward(g, x, negative_slope),
                            lambda g, ans, grad_output, x, negative_slope: _zero_grad(g),
                            saves=(1,))


def _leaky_relu_backward(go, x, negative_slope):
    return np.where(x > 0, go, go * go.dtype.type(negative_slope))


def leaky_relu_backward(grad_output, x, negative_slope):
    return _backward_kernel(LEAKY_RELU_BACKWARD, _leaky_relu_backward, (grad_output, x),
                            {"negative_slope": negative_slope})
SOFTPLUS = defop("SoftplusBackward0",
                 lambda g, ans, x, beta, threshold: softplus_backward(g, x, beta, threshold), saves=(0,))
SOFTPLUS_BACKWARD = defop(
    "SoftplusBackwardBackward0",
    lambda g, ans, grad_output, x, beta, threshold: softplus_backward(g, x, beta, threshold),
    lambda g, ans, grad_output, x, beta, threshold: _softplus_double_backward(g * grad_output, x, beta, threshold),
    saves=(0, 1))
SILU = defop("SiluBackward0", lambda g, ans, x: _silu_grad(g, x), saves=(0,))
# (elu, selu and celu: PyTorch's elu with a scale for the output and one for the input)
ELU = defop("EluBackward0", lambda g, ans, x, alpha, scale=1, input_scale=1: elu_backward(g, x, alpha, scale, input_scale),
            saves=(0,))
CELU = defop("CeluBackward0", lambda g, ans, x, alpha: elu_backward(g, x, alpha, 1, _celu_input_scale(alpha)), saves=(0,))
ELU_BACKWARD = defop("EluBackwardBackward0",
                     lambda g, ans, grad_output, x, alpha, scale, input_scale:
                     elu_backward(g, x, alpha, scale, input_scale),
                     lambda g, ans, grad_output, x, alpha, scale, input_scale:
                     elu_backward(_mul_scalar(g * grad_output, input_scale), x, alpha, scale, input_scale)
                     * (x < 0).to(g.dtype),
                     saves=(0, 1))
CLAMP = defop("ClampBackward1", lambda g, ans, x, min=None, max=None: where(_in_range(x, min, max), g, 0.0), saves=(0,))
CLAMP_T = defop("ClampBackward0",
                lambda g, ans, x, lo, hi: where(_in_range(x, lo, hi), g, 0.0),
                lambda g, ans, x, lo, hi: where((x < lo) & (lo < hi) if hi is not None else x < lo, g, 0.0),
                lambda g, ans, x, lo, hi: where((x > hi) | (hi < lo) if lo is not None else x > hi, g, 0.0),
                saves=(0, 1, 2))
CLAMP_MIN = defop("ClampMinBackward0", lambda g, ans, x, min: where(x >= min, g, 0.0), saves=(0,))
CLAMP_MAX = defop("ClampMaxBackward0", lambda g, ans, x, max: where(x <= max, g, 0.0), saves=(0,))
CLAMP_MIN_T = defop("ClampMinBackward1", lambda g, ans, x, lo: where(x >= lo, g, 0.0),
                    lambda g, ans, x, lo: where(x < lo, g, 0.0), saves=(0, 1))
CLAMP_MAX_T = defop("ClampMaxBackward1", lambda g, ans, x, hi: where(x <= hi, g, 0.0),
                    lambda g, ans, x, hi: where(x > hi, g, 0.0), saves=(0, 1))
ROUNDING = {name: defop(f"{name.capitalize()}Backward0", lambda g, ans, x: _zero_grad(g))
            for name in ("floor", "ceil", "round", "trunc", "frac")}
ROUNDING["frac"] = defop("FracBackward0", lambda g, ans, x: g)
ROUND_DECIMALS = defop("RoundBackward1", lambda g, ans, x, decimals: _zero_grad(g))
SIGN = defop("SignBackward0", lambda g, ans, x: _zero_grad(g))
SGN = defop("SgnBackward0", lambda g, ans, x: _zero_grad(g), saves=(0, "result"))


def _in_range(x, lo, hi):
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        mask = (x <= hi) if mask is None else mask & (x <= hi)
    return mask


def neg(input):
    if type(input) is not Tensor:
        need_tensor("neg", "input", 1, input)
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return record(NEG, (input,), np.negative(input._data))


negative = _checked_alias("negative", neg)


def abs(input):
    need_tensor("abs", "input", 1, input)
    return record(ABS, (input,), np.abs(input._data))


absolute = _checked_alias("absolute", abs)


def square(input):
    need_tensor("square", "input", 1, input)
    return pow(input, 2)


def relu(input):
    if type(input) is not Tensor:
        need_tensor("relu", "input", 1, input)
    d = input._data
    if d.dtype.kind != "f":
        return record(RELU, (input,), np.maximum(d, 0))
    # Against an array of zeros NumPy's maximum takes its vector loop (3 times faster than against
    # the scalar 0 at 32 K elements).
    out = np.zeros(d.shape, d.dtype)
    return record(RELU, (input,), _at_least(out, d, out))


def leaky_relu(x, negative_slope=0.01):
    d = _float_data(x)
    return record(LEAKY_RELU, (x,), np.where(d > 0, d, _quietly(np.multiply, d, negative_slope)),
                  {"negative_slope": negative_slope})


def _softplus_backward(go, x, beta, threshold):
    z = x * beta
    e = np.exp(z)
    return np.where(z > threshold, go, go * e / (e + 1))  # (PyTorch's formula, to its last bit)


def softplus_backward(grad_output, x, beta, threshold):
    return _backward_kernel(SOFTPLUS_BACKWARD, _softplus_backward, (grad_output, x),
                            {"beta": beta, "threshold": threshold})


def _softplus_double_backward(g, x, beta, threshold):
    z = _mul_scalar(x, beta)
    return _mul_scalar(sigmoid_backward(g, sigmoid(z)) * (z < threshold).to(g.dtype), beta)


def softplus(input, beta=1, threshold=20):
    need_tensor("softplus", "input", 1, input)
    need_number("softplus", "beta", 2, beta)
    need_number("softplus", "threshold", 3, threshold)
    x = _float_data(input)
    out = _quietly(_softplus_np, x, beta, threshold)  # (nan and overflow: no NumPy warning)
    return record(SOFTPLUS, (input,), out.astype(input._data.dtype), {"beta": beta, "threshold": threshold})


def _softplus_np(x, beta, threshold):
    d = x * beta
    return np.where(d > threshold, x, np.logaddexp(0, d) / beta)  # (past the threshold: x itself)


def _silu_grad(g, x):
    s = sigmoid(x)
    return g * s * _add_scalar(x * _rsub_scalar(1, s), 1.0)


def silu(x):
    d = _float_data(x)
    return record(SILU, (x,), _quietly(lambda: d * _sigmoid(d)))


def _elu_backward(go, x, alpha, scale=1, input_scale=1):
    neg = go * (input_scale * alpha * scale * np.exp(np.minimum(x, 0) * input_scale))
    return np.where(x <= 0, neg, go if scale == 1 else go * scale)


def elu_backward(grad_output, x, alpha, scale=1, input_scale=1):
    return _backward_kernel(ELU_BACKWARD, _elu_backward, (grad_output, x),
                            {"alpha": alpha, "scale": scale, "input_scale": input_scale})


def _elu(d, alpha, scale=1, input_scale=1):
    neg = np.expm1(_at_most(0, d) * input_scale) * (alpha * scale)  # (elu(-0.) is -0.)
    return np.where(d > 0, d if scale == 1 else d * scale, neg)


def elu(x, alpha=1.0):
    return record(ELU, (x,), _elu(_float_data(x), alpha), {"alpha": alpha})


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input):
    need_tensor("selu", "input", 1, input)
    return record(ELU, (input,), _elu(_float_data(input), _SELU_ALPHA, _SELU_SCALE),
                  {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1})


def _celu_input_scale(alpha):
    return 1.0 / float(np.float32(alpha))  # PyTorch's rule: 1.0 / alpha.toFloat()


def celu(input, alpha=1.0):
    need_tensor("celu", "input", 1, input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return record(CELU, (input,), _elu(_float_data(input), alpha, 1, 1.0 / alpha), {"alpha": alpha})


# ----- More activations, each one node as in PyTorch, with a backward kernel of its own -----

GELU = defop("GeluBackward0", lambda g, ans, x, approximate: gelu_backward(g, x, approximate), saves=(0,))
GELU_BACKWARD = defop("GeluBackwardBackward0",
                      lambda g, ans, grad_output, x, approximate: gelu_backward(g, x, approximate),
                      lambda g, ans, grad_output, x, approximate: _gelu_double_backward(g, grad_output, x, approximate),
                      saves=(0, 1))
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # sqrt(2 / pi), for the tanh form
_GELU_KAPPA = 0.044715
_GELU_PDF = (2.0 / math.sqrt(math.pi)) * math.sqrt(0.5) * 0.5  # 1 / sqrt(2 pi)


def _gelu(d, approximate):
    return _quietly(_gelu_kernel, d, approximate)


def _gelu_kernel(d, approximate):
    if approximate == "tanh":
        inner = _GELU_BETA * (d + _GELU_KAPPA * d * d * d)
        return 0.5 * d * (1 + np.tanh(inner))
    return d * 0.5 * (1 + _erf(d * d.dtype.type(math.sqrt(0.5))))


def _gelu_backward(go, x, approximate):
    if approximate == "tanh":
        x_sq = x * x
        inner = _GELU_BETA * (x + _GELU_KAPPA * x_sq * x)
        t = np.tanh(inner)
        left_derivative = 0.5 * (1 + t)
        right_derivative = 0.5 * x * (1 - t * t) * (_GELU_BETA * (1 + 3 * _GELU_KAPPA * x_sq))
        return go * (left_derivative + right_derivative)
    cdf = 0.5 * (1 + _erf(x * x.dtype.type(math.sqrt(0.5))))
    pdf = np.exp(-0.5 * x * x) * _GELU_PDF
    return go * (cdf + x * pdf)


def gelu_backward(grad_output, x, approximate):
    return _backward_kernel(GELU_BACKWARD, _gelu_backward, (grad_output, x), {"approximate": approximate})


def _gelu_double_backward(g, grad_output, x, approximate):
    # PyTorch's gelu_double_backward: the second derivative of gelu, times both grads
    if approximate == "tanh":
        inner = _mul_scalar(x + _mul_scalar(pow(x, 3), _GELU_KAPPA), _GELU_BETA)
        tanh_inner = tanh(inner)
        sech_inner = _rdiv_scalar(1, cosh(inner))
        f = _mul_scalar(x, 0.5)
        gx = _rsub_scalar(1, tanh_inner * tanh_inner)
        h = _mul_scalar(_add_scalar(_mul_scalar(x, 3 * _GELU_KAPPA) * x, 1), _GELU_BETA)
        f_prime_gh = _mul_scalar(gx, 0.5) * h
        g_prime = _mul_scalar(sech_inner, 2) * (neg(sech_inner) * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = _mul_scalar(_mul_scalar(x, 6 * _GELU_KAPPA), _GELU_BETA)
        h_prime_fg = f * gx * h_prime
        return g * grad_output * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = _mul_scalar(exp(_mul_scalar(x_sq, -0.5)), _GELU_PDF)
    return g * grad_output * (_mul_scalar(pdf, 2) - x_sq * pdf)


def gelu(input, approximate="none"):
    need_tensor("gelu", "input", 1, input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return record(GELU, (input,), _gelu(_float_data(input), approximate), {"approximate": approximate})


HARDTANH = defop("HardtanhBackward0",
                 lambda g, ans, x, min_val, max_val: hardtanh_backward(g, x, min_val, max_val), saves=(0,))
HARDTANH_BACKWARD = defop("HardtanhBackwardBackward0",
                          lambda g, ans, grad_output, x, min_val, max_val: hardtanh_backward(g, x, min_val, max_val),
                          lambda g, ans, grad_output, x, min_val, max_val: _zero_grad(g), saves=(1,))


def _hardtanh_backward(go, x, min_val, max_val):
    return np.where((x <= min_val) | (x >= max_val), 0, go)  # (a nan input passes its grad)


def hardtanh_backward(grad_output, x, min_val, max_val):
    return _backward_kernel(HARDTANH_BACKWARD, _hardtanh_backward, (grad_output, x),
                            {"min_val": min_val, "max_val": max_val})


def hardtanh(x, min_val=-1.0, max_val=1.0):
    return record(HARDTANH, (x,), np.clip(x._data, min_val, max_val), {"min_val": min_val, "max_val": max_val})


LOG_SIGMOID = defop("LogSigmoidBackward0", lambda g, ans, x: log_sigmoid_backward(g, x), saves=(0,))
LOG_SIGMOID_BACKWARD = defop("LogSigmoidBackwardBackward0",
                             lambda g, ans, grad_output, x: log_sigmoid_backward(g, x),
                             lambda g, ans, grad_output, x: _log_sigmoid_double_backward(g * grad_output, x),
                             saves=(0, 1))


def _log_sigmoid_backward(go, x):
    z = np.exp(-np.abs(x))
    r = z / (1 + z)
    return go * np.where(x < 0, 1 - r, r)


def log_sigmoid_backward(grad_output, x):
    return _backward_kernel(LOG_SIGMOID_BACKWARD, _log_sigmoid_backward, (grad_output, x))


def _log_sigmoid_double_backward(g, x):
    z = sigmoid(x)
    return g * _sub_scalar(z, 1) * z


def logsigmoid(input):
    need_tensor("log_sigmoid", "input", 1, input)
    d = _float_data(input)
    return record(LOG_SIGMOID, (input,), np.minimum(d, 0) - np.log1p(np.exp(-np.abs(d))))


MISH = defop("MishBackward0", lambda g, ans, x: _mish_grad(g, x), saves=(0,))


def _mish_grad(g, x):
    # PyTorch's infinitely_differentiable_mish_backward
    s = sigmoid(x)
    tanh_softplus = tanh(log1p(exp(x)))
    return g * (tanh_softplus + x * s * _rsub_scalar(1.0, tanh_softplus * tanh_softplus))


def mish(x):
    d = _float_data(x)
    return record(MISH, (x,), _quietly(lambda: d * np.tanh(np.logaddexp(0, d))))


HARDSIGMOID = defop("HardsigmoidBackward0", lambda g, ans, x: hardsigmoid_backward(g, x), saves=(0,))
# PyTorch has no rule for hardsigmoid_backward: a second derivative is an error, when it is reached
HARDSIGMOID_BACKWARD = defop("NotImplemented", _not_implemented("hardsigmoid_backward"),
                             _not_implemented("hardsigmoid_backward"), cpp_name="torch::autograd::NotImplemented")


def _hardsigmoid_backward(go, x):
    # PyTorch's kernel multiplies by the float 1.0f / 6.0f (so a double grad is off 1/6 by 3e-8), in float for halves
    g = go.astype(np.float32) * np.float32(1 / 6) if go.dtype.itemsize < 4 else go * go.dtype.type(np.float32(1 / 6))
    return np.where((x > -3) & (x < 3), g.astype(go.dtype, copy=False), 0)


def hardsigmoid_backward(grad_output, x):
    return _grad_edges_only(_backward_kernel(HARDSIGMOID_BACKWARD, _hardsigmoid_backward, (grad_output, x)))


ELEMENTWISE.add(HARDSIGMOID)


def hardsigmoid(x):
    d = _float_data(x)
    return record(HARDSIGMOID, (x,), np.minimum(np.maximum(d + 3, 0), 6) / 6)


HARDSWISH = defop("HardswishBackward0", lambda g, ans, x: hardswish_backward(g, x), saves=(0,))
HARDSWISH_BACKWARD = defop("HardswishBackwardBackward0",
                           lambda g, ans, grad_output, x: hardswish_backward(g, x),
                           lambda g, ans, grad_output, x: where((x > -3.0) & (x < 3.0),
                                                                _div_scalar(g * grad_output, 3.0), 0.0),
                           saves=(0, 1))


def _hardswish_backward(go, x):
    return np.where(x <= -3, 0, np.where(x < 3, go * (x / 3 + 0.5), go))


def hardswish_backward(grad_output, x):
    return _backward_kernel(HARDSWISH_BACKWARD, _hardswish_backward, (grad_output, x))


def hardswish(x):
    d = _float_data(x)
    return record(HARDSWISH, (x,), _quietly(lambda: d * np.minimum(np.maximum(d + 3, 0), 6) / 6))


THRESHOLD = defop("ThresholdBackward0", lambda g, ans, x, threshold, value: threshold_backward(g, x, threshold),
                  saves=(0,))


def threshold(input, threshold, value):
    need_tensor("threshold", "input", 1, input)
    d = input._data
    out = np.where(d <= threshold, np.asarray(value).astype(d.dtype), d)
    return record(THRESHOLD, (input,), out, {"threshold": threshold, "value": value})


GLU = defop("GluBackward0", lambda g, ans, x, dim: glu_backward(g, x, dim), saves=(0,))
GLU_BACKWARD = defop("GluBackwardBackward0",
                     lambda g, ans, grad_output, x, dim: _glu_double_backward_grad_output(g, x, dim),
                     lambda g, ans, grad_output, x, dim: _glu_double_backward(g, grad_output, x, dim),
                     saves=(0, 1))


def _halves(d, dim):
    dim %= d.ndim
    n = d.shape[dim] // 2
    return d[(slice(None),) * dim + (slice(0, n),)], d[(slice(None),) * dim + (slice(n, None),)]


def _glu_backward(go, x, dim):
    a, b = _halves(x, dim)
    s = _sigmoid(b)
    return np.concatenate([s * go, (1 - s) * s * go * a], axis=dim)


def glu_backward(grad_output, x, dim):
    return _backward_kernel(GLU_BACKWARD, _glu_backward, (grad_output, x), {"dim": dim})


def _glu_double_backward_grad_output(g, x, dim):
    sizes = list(x.shape)
    sizes[dim] //= 2
    tmp = g * glu_backward(_wrap(np.ones(sizes, dtype=x.dtype.np)), x, dim)
    return narrow(tmp, dim, 0, sizes[dim]) + narrow(tmp, dim, sizes[dim], sizes[dim])


def _glu_double_backward(g, grad_output, x, dim):
    # PyTorch's glu_double_backward
    n = x.shape[dim] // 2
    first_half, second_half = narrow(x, dim, 0, n), narrow(x, dim, n, n)
    sig_second_half = sigmoid(second_half)
    one_sub_sig_second_half = _rsub_scalar(1, sig_second_half)
    sig_one_sub_sig = sig_second_half * one_sub_sig_second_half
    ggi_first_half, ggi_second_half = narrow(g, dim, 0, n), narrow(g, dim, n, n)
    gi_first_half = ggi_second_half * grad_output * sig_one_sub_sig
    second_order_sh = sig_one_sub_sig * one_sub_sig_second_half - pow(sig_second_half, 2) * one_sub_sig_second_half
    gi_second_half = (ggi_second_half * first_half * grad_output * second_order_sh
                      + ggi_first_half * grad_output * sig_one_sub_sig)
    return cat([gi_first_half, gi_second_half], dim)


def glu(input, dim=-1):
    d = input._data
    if d.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    given, dim = dim, norm_dims(dim, d.ndim)[0]
    if d.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {d.shape[dim]}")
    a, b = _halves(_float_data(input), dim)
    return record(GLU, (input,), a * _sigmoid(b), {"dim": given})  # (as given, as glu_backward gets it)


def clamp(input, min=None, max=None):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("clamp", input, **_given_kw(min=min, max=max))
    _clamp_bounds("clamp", input, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo, hi = (as_tensor_arg(v) if v is not None else None for v in (min, max))
        out = _clamped(input._data, None if lo is None else _np_of(lo), None if hi is None else _np_of(hi))
        dt = _dtypes.result_type(*(v for v in (input, lo, hi) if v is not None)).np
        return record(CLAMP_T, (input, lo, hi), np.asarray(out).astype(dt, copy=False))
    dt = _dtypes.result_type(*(v for v in (input, min, max) if v is not None)).np  # an int tensor with 0.5 gives floats
    return record(CLAMP, (input,), _clamped(input._data.astype(dt, copy=False), min, max), {"min": min, "max": max})


def _clamped(d, lo, hi):
    if lo is not None:
        d = _at_least(lo, d)
    return d if hi is None else _at_most(hi, d)


def _tie_order():
    """Which operand NumPy's maximum and minimum return on a tie of 0. and -0. here, at every size and
    loop tried: "second" (x86 builds), "first", or None (it varies)."""
    seen = set()
    for dt in (np.float32, np.float64):
        for n in (1, 3, 8, 17, 64, 1000):  # (scalar loops, vector loops and their tails)
            pos, neg = np.zeros(n, dt), np.full(n, -0.0, dt)
            for f in (np.maximum, np.minimum):
                seen.update(np.signbit(f(pos, neg)).tolist(), (~np.signbit(f(neg, pos))).tolist(),
                            np.signbit(f(0.0, neg)).tolist(), (~np.signbit(f(-0.0, pos))).tolist())
    return {frozenset({True}): "second", frozenset({False}): "first"}.get(frozenset(seen))


_TIE = _tie_order()


def _keeping(ufunc, bound, d, out):
    """``ufunc`` (np.maximum, np.minimum) of ``bound`` and ``d``, giving ``d`` on a tie, as PyTorch's
    clamp and relu kernels replace an element only past the bound: clamp(-0., min=0) and relu(-0.)
    are -0. A nan, in either, gives nan."""
    if _TIE == "second":
        return ufunc(bound, d, out=out)
    if _TIE == "first":
        return ufunc(d, bound, out=out)
    r = np.asarray(ufunc(d, bound, out=out))
    np.copyto(r, d, where=np.equal(d, r), casting="unsafe")  # (out may be bound: compare with the result)
    return r


def _at_least(bound, d, out=None):
    return _keeping(np.maximum, bound, d, out)


def _at_most(bound, d, out=None):
    return _keeping(np.minimum, bound, d, out)


def _clamp_bounds(fname, input, *bounds):
    """Bounds are numbers, tensors or None; else PyTorch's "invalid combination" (as if positional)."""
    for b in bounds:
        if b is not None and not isinstance(b, Tensor) and not is_scalar(b):
            raise invalid_arguments(fname, input, *(b for b in bounds if b is not None))


def clip(input, min=None, max=None):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("clip", input, **_given_kw(min=min, max=max))
    _clamp_bounds("clip", input, min, max)
    return clamp(input, min, max)


def clamp_min(input, min):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("clamp_min", input, min)
    _need_operand("clamp_min", input, min, invalid=True)
    if isinstance(min, Tensor):
        return _clamp_one_tensor(CLAMP_MIN_T, _at_least, input, min)
    return record(CLAMP_MIN, (input,), _at_least(min, input._data).astype(input._data.dtype, copy=False), {"min": min})


def clamp_max(input, max):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("clamp_max", input, max)
    _need_operand("clamp_max", input, max, invalid=True)
    if isinstance(max, Tensor):
        return _clamp_one_tensor(CLAMP_MAX_T, _at_most, input, max)
    return record(CLAMP_MAX, (input,), _at_most(max, input._data).astype(input._data.dtype, copy=False), {"max": max})


def _clamp_one_tensor(op, clamped, input, bound):
    dt = _dtypes.result_type(input, bound).np
    return record(op, (input, bound), np.asarray(clamped(bound._data, input._data)).astype(dt, copy=False))


def _rounding(name, fwd):
    op = ROUNDING[name]

    def f(input):  # (no more: NumPy would take a second argument as ``out`` and write to it)
        need_tensor(name, "input", 1, input)
        return record(op, (input,), _quietly(fwd, input._data))  # (frac of inf: nan, without NumPy's warning)

    f.__name__ = f.__qualname__ = name
    globals()[name] = f


_rounding("floor", np.floor)
_rounding("ceil", np.ceil)
_rounding("round", np.round)
_rounding("trunc", np.trunc)
_rounding("frac", lambda d: d - np.trunc(d))


def round(input, *, decimals=0):
    need_tensor("round", "input", 1, input)
    if decimals == 0:
        return record(ROUNDING["round"], (input,), np.round(input._data))
    return record(ROUND_DECIMALS, (input,), _quietly(np.round, input._data, decimals), {"decimals": decimals})


def _sign_np(d):
    """PyTorch's sign: 0 for NaN (its kernel is ``(0 < x) - (x < 0)``), where NumPy's is NaN."""
    out = np.sign(d)
    if out.dtype.kind == "f" and np.isnan(out).any():
        out = np.where(np.isnan(out), out.dtype.type(0), out)
    return out


def _sign(op, x):
    if not isinstance(x, Tensor):
        raise tensor_expected("sign" if op is SIGN else "sgn", "input", 1, x)
    d = x._data
    return record(op, (x,), d.copy() if d.dtype == np.bool_ else _sign_np(d))


def sign(input):
    return _sign(SIGN, input)


def sgn(input):
    """``sign`` with its own node (SgnBackward0), as abs and the norms use it in PyTorch: the two
    differ only for complex tensors, which the engine does not have."""
    return _sign(SGN, input)


def _elementwise_test(name, fwd):
    """A boolean test of each element (never differentiable)."""
    def f(input):
        need_tensor(name, "input", 1, input)
        return _wrap(fwd(input._data))

    f.__name__ = f.__qualname__ = name
    return f


isnan = _elementwise_test("isnan", np.isnan)
isinf = _elementwise_test("isinf", np.isinf)
isfinite = _elementwise_test("isfinite", np.isfinite)
signbit = _elementwise_test("signbit", np.signbit)  # (True for -0.0)


# ----- Comparison and logic (never differentiable) -----

_COMPARED = (Tensor, numbers.Number, np.generic)


def _compare(fwd, name):
    logical = name.startswith("logical")

    def f(input, other):
        if logical and (type(input) is not Tensor or type(other) is not Tensor):  # (tensors only; eq and the like
            _tensor_pair(name, input, other)                                    # also take a number for other)
        if type(input) is not Tensor or type(other) is not Tensor and type(other) is not float and type(other) is not int:
            if not isinstance(input, Tensor) or not isinstance(other, _COMPARED):
                raise invalid_arguments(name, input, other)
            input, other = as_tensor_arg(input), as_tensor_arg(other)
        try:
            return _wrap(np.asarray(fwd(_np_of(input), _np_of(other))))
        except ValueError:
            raise _broadcast_error(np.shape(_np_of(input)), np.shape(_np_of(other))) from None

    f.__name__ = f.__qualname__ = name
    return f


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")
logical_xor = _compare(np.logical_xor, "logical_xor")
greater = _compare(np.greater, "greater")
greater_equal = _compare(np.greater_equal, "greater_equal")
less = _compare(np.less, "less")
less_equal = _compare(np.less_equal, "less_equal")
not_equal = _compare(np.not_equal, "not_equal")


def _compared_in_place(name, node):
    """What ``eq_`` (and the like) computes: the comparison in the input's dtype, recorded as
    PyTorch records it (EqBackward0 with a number, EqBackward1 with a tensor), with zero grads.
    ``logical_and_`` and the like record nothing."""
    compare = globals()[name]
    with_number = defop(f"{node}Backward0", lambda g, ans, x: _zero_grad(g)) if node else None
    with_tensor = defop(f"{node}Backward1", lambda g, ans, x, y: _zero_grad(g),
                        lambda g, ans, x, y: _zero_grad(g)) if node else None

    def f(input, other):
        result = compare(input, other)._data.astype(input._data.dtype, copy=False)
        if node is None:
            return _wrap(result)
        return record(with_tensor, (input, other), result) if isinstance(other, Tensor) else \
            record(with_number, (input,), result)

    f.__name__ = f.__qualname__ = name
    return f


COMPARED_IN_PLACE = {name: _compared_in_place(name, node) for name, node in (
    ("eq", "Eq"), ("ne", "Ne"), ("lt", "Lt"), ("le", "Le"), ("gt", "Gt"), ("ge", "Ge"), ("greater", "Gt"),
    ("greater_equal", "Ge"), ("less", "Lt"), ("less_equal", "Le"), ("not_equal", "Ne"), ("logical_and", None),
    ("logical_or", None), ("logical_xor", None))}
COMPARED_IN_PLACE["logical_not"] = lambda input: _wrap(np.logical_not(input._data).astype(input._data.dtype))


def _bitwise(name, fwd, kernel):
    def f(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor) or not (
                isinstance(input, Tensor) or is_scalar(input)) or not (isinstance(other, Tensor) or is_scalar(other)):
            raise invalid_arguments(name, input, other)
        a, b = as_tensor_arg(input), as_tensor_arg(other)
        dt = _result_np_dtype(a, b)
        if dt.kind == "f":
            raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_dtypes.from_numpy_dtype(dt)._legacy[:-6]}\'')
        return _wrap(np.asarray(fwd(np.asarray(_np_of(a), dt), np.asarray(_np_of(b), dt))))

    f.__name__ = f.__qualname__ = name
    return f


bitwise_and = _bitwise("bitwise_and", np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _bitwise("bitwise_left_shift", np.left_shift, "lshift")
bitwise_right_shift = _bitwise("bitwise_right_shift", np.right_shift, "rshift")


def real(input):
    """A real tensor's real part: itself (PyTorch has no complex here)."""
    need_tensor("real", "input", 1, input)
    return input


def imag(input):
    need_tensor("imag", "input", 1, input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def logical_not(input):
    need_tensor("logical_not", "input", 1, input)
    return _wrap(np.logical_not(input._data))


def bitwise_not(input):
    need_tensor("bitwise_not", "input", 1, input)
    if input._data.dtype.kind == "f":
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for \'{_scalar_type(input)}\'')
    return _wrap(np.invert(input._data))


def invert(input):
    """``~t``: as the operator, a float tensor is a TypeError (``bitwise_not`` names its kernel)."""
    if input._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(input)


_NO_OTHER = object()


def _tensor_operands(name, input, other, first):
    """PyTorch's argument errors of ``name(input, other)``. ``first`` is the position its messages give
    ``input``: 1 for ``torch.isclose(a, b)``, 0 for ``a.isclose(b)`` (whose ``other`` is position 1)."""
    if other is _NO_OTHER:
        raise TypeError(f'{name}() missing 1 required positional arguments: "other"')
    if first == 0 and not isinstance(input, Tensor):  # torch.Tensor.isclose(1.0, t)
        raise TypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                        f"'{type(input).__name__}' object")
    for pos, (arg, t) in enumerate((("input", input), ("other", other)), first):
        need_tensor(name, arg, pos, t)


def _equal(first, input, other):
    _tensor_operands("equal", input, other, first)
    return input._data.shape == other._data.shape and bool((input._data == other._data).all())


def equal(input, other=_NO_OTHER):
    return _equal(1, input, other)


def _close_operands(name, input, other, first):
    _tensor_operands(name, input, other, first)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{_scalar_type(input)} did not match {_scalar_type(other)}")
    return input._data, other._data


def _allclose(first, input, other, rtol, atol, equal_nan):
    return bool(np.allclose(*_close_operands("allclose", input, other, first), rtol=rtol, atol=atol,
                            equal_nan=equal_nan))


def allclose(input, other=_NO_OTHER, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _allclose(1, input, other, rtol, atol, equal_nan)


def _isclose(first, input, other, rtol, atol, equal_nan):
    return _wrap(np.isclose(*_close_operands("isclose", input, other, first), rtol=rtol, atol=atol,
                            equal_nan=equal_nan))


def isclose(input, other=_NO_OTHER, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _isclose(1, input, other, rtol, atol, equal_nan)


def all(input, dim=None, keepdim=False):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("all", input, **_given_kw(dim=dim, keepdim=keepdim))
    return _wrap(np.asarray(np.all(input._data, axis=norm_dims(dim, input._data.ndim), keepdims=keepdim)))


def any(input, dim=None, keepdim=False):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("any", input, **_given_kw(dim=dim, keepdim=keepdim))
    return _wrap(np.asarray(np.any(input._data, axis=norm_dims(dim, input._data.ndim), keepdims=keepdim)))


# ----- Reductions -----

def _expand_back(g, shape, dims, keepdim):
    """Broadcast a reduced grad back over the reduced dims (PyTorch's sum_backward)."""
    return expand(_unsqueeze_back(g, dims, keepdim or not shape), shape)


def _unsqueeze_back(g, dims, keepdim):
    """PyTorch's unsqueeze_multiple: the reduced dims back as size 1 (broadcasting does the rest). The
    dims as the user gave them: one unsqueezed as given (a double backward's node shows it so), several
    in increasing order."""
    if keepdim or dims is None:
        return g
    if type(dims) is int:
        return unsqueeze(g, dims)
    if len(dims) == 1:
        return unsqueeze(g, dims[0])
    n = len(g.shape) + len(dims)
    for d in sorted(d % n for d in dims):
        g = unsqueeze(g, d)
    return g


def _n_reduced(shape, dims):
    if dims is None:
        return int(math.prod(shape))
    if not shape:
        return 1
    return int(math.prod([shape[d] for d in ((dims,) if type(dims) is int else dims)]))


SUM = defop("SumBackward0", lambda g, ans, x: expand(g, x.shape))
SUM_DIM = defop("SumBackward1", lambda g, ans, x, dims, keepdim: _expand_back(g, x.shape, dims, keepdim))
def _mean_back(g, x, dims, keepdim):
    """PyTorch's mean_backward: expand, then divide (a double backward shows DivBackward1 on top)."""
    return _div_scalar(_expand_back(g, x.shape, dims, keepdim), _n_reduced(x.shape, dims))


MEAN = defop("MeanBackward0", lambda g, ans, x: _mean_back(g, x, None, False))
MEAN_DIM = defop("MeanBackward1", lambda g, ans, x, dims, keepdim: _mean_back(g, x, dims, keepdim))
PROD = defop("ProdBackward0", lambda g, ans, x: _prod_grad(g, ans, x, None, False), saves=(0, "result"))
PROD_DIM = defop("ProdBackward1", lambda g, ans, x, dims, keepdim: _prod_grad(g, ans, x, dims, keepdim),
                 saves=(0, "result"))
AMAX = defop("MaxBackward1", lambda g, ans, x: _extreme_grad(g, ans, x), saves=(0, "result"))
AMIN = defop("MinBackward1", lambda g, ans, x: _extreme_grad(g, ans, x), saves=(0, "result"))
AMAX_DIMS = defop("AmaxBackward0", lambda g, ans, x, dims, keepdim: _amax_grad(g, ans, x, dims, keepdim),
                  saves=(0, "result"))
AMIN_DIMS = defop("AminBackward0", lambda g, ans, x, dims, keepdim: _amax_grad(g, ans, x, dims, keepdim),
                  saves=(0, "result"))
MAX_DIM = defop("MaxBackward0", lambda g, ans, x, dim, keepdim, indices: _selected_grad(g, x.shape, dim, indices, keepdim),
                outputs=(0,), keeps=True)
MIN_DIM = defop("MinBackward0", lambda g, ans, x, dim, keepdim, indices: _selected_grad(g, x.shape, dim, indices, keepdim),
                outputs=(0,), keeps=True)
# (``dim``: as given, for the mean inside, whose node keeps it so)
VAR = defop("VarBackward0", lambda g, ans, x, dims, correction, keepdim, dim:
            _var_grad(g, x, dims, correction, keepdim, dim), saves=(0,))
# PyTorch's std_backward: var's rule applied to grad / (2 * std), with 0 where std is 0.
STD = defop("StdBackward0", lambda g, ans, x, dims, correction, keepdim, dim:
            _var_grad(masked_fill(g / _mul_scalar(ans, 2), ans == 0, 0.0), x, dims, correction, keepdim, dim),
            saves=(0, "result"))


def _var_grad(g, x, dims, correction, keepdim, dim):
    dof = _n_reduced(x.shape, dims) - correction
    if dims is None or not x.dim():
        if dof <= 0:  # PyTorch's var_backward: inf, or nan where x is its mean
            return g * where(x == mean(x), math.nan, math.inf)
        return _mul_scalar(g, 2.0 / dof) * (x - mean(x))
    # Over given dims, PyTorch just divides: by 0 into inf, by fewer than 0 into a negative factor.
    # (a 1-d input's 0-d grad broadcasts as it is: PyTorch unsqueezes it only for more dims)
    return (_mul_scalar(_unsqueeze_back(g, dim, keepdim or x.dim() == 1), 2.0 / dof if dof else math.inf)
            * (x - mean(x, dim, keepdim=True)))
LOGSUMEXP = defop("LogsumexpBackward0", lambda g, ans, x, dims, keepdim:
                  _unsqueeze_back(g, dims, keepdim or not x.dim())
                  * exp(x - _unsqueeze_back(ans, dims, keepdim or not x.dim())), saves=(0, "result"))
NORM = defop("LinalgVectorNormBackward0", lambda g, ans, x, ord, dims, keepdim: _norm_grad(g, ans, x, ord, dims, keepdim),
             saves=(0, "result"))
CUMSUM = defop("CumsumBackward0", lambda g, ans, x, dim: _cumsum_backward(g, dim))


def _cumsum_backward(g, dim):  # (PyTorch's: the grad itself where there is nothing to add up)
    return g if g.numel() <= 1 or g.shape[dim] == 1 else flip(cumsum(flip(g, (dim,)), dim), (dim,))



def _prod_grad(g, ans, x, dims, keepdim):
    """PyTorch's prod_backward: grad * result / input; with a zero in the input, the products of the
    others from both sides (prod_safe_zeros_backward), over the flattened input for a full product."""
    if not x.dim():
        return g
    zero = bool((x._data == 0).any())
    if dims is None:
        return view(_prod_safe_zeros(g, view(contiguous(x), -1), 0), x.shape) if zero else g * (ans / x)
    if not keepdim:
        g, ans = unsqueeze(g, dims[0]), unsqueeze(ans, dims[0])
    return _prod_safe_zeros(g, x, dims[0]) if zero else g * (ans / x)


def _prod_safe_zeros(g, x, dim):
    if not x.numel():
        return expand(g, x.shape)
    return g if x.shape[dim] == 1 else g * _prod_of_others(x, dim)


def _prod_of_others(x, dim):
    """For each element, the product of the others along ``dim``, safe with zeros: the exclusive
    cumulative products from both sides."""
    n = x.shape[dim]
    ones = _wrap(np.ones(x.shape[:dim] + (1,) + x.shape[dim + 1:], dtype=x._data.dtype))
    before = cumprod(cat([ones, narrow(x, dim, 0, n - 1)], dim), dim)
    after = flip(cumprod(cat([ones, flip(narrow(x, dim, 1, n - 1), (dim,))], dim), dim), (dim,))
    return before * after


def _norm_grad(g, ans, x, p, dims, keepdim):
    # PyTorch's norm_backward, case by case, with p a double (so pow's exponent is a float)
    p = float(p)
    g = _unsqueeze_back(g, dims, keepdim or not x.dim())
    n = _unsqueeze_back(ans, dims, keepdim or not x.dim())
    if p == 0:
        return None  # PyTorch returns an undefined grad: the input's .grad stays None
    if p == 1:
        return sgn(x) * g
    if p == 2:
        return g * masked_fill(x / n, n == 0, 0.0)
    if math.isinf(p):  # (a bool mask, and so an int64 count)
        a = abs(x)
        mask = _wrap(np.logical_or(_np_of(a) == _np_of(n), np.isnan(_np_of(a))))
        count = sum(mask, dims if dims is not None else tuple(range(x.dim())), keepdim=True)
        return sgn(x) * (g / count * mask)
    if p < 1:
        return sgn(x) * masked_fill(pow(abs(x), p - 1), x == 0, 0.0) * g * pow(n, 1 - p)
    scaled = sgn(x) * pow(abs(x), p - 1) if p < 2 else x * pow(abs(x), p - 2)
    return scaled * masked_fill(g / pow(n, p - 1), n == 0, 0.0)


def _extreme_grad(g, ans, x):
    """PyTorch's evenly_distribute_backward: the grad goes evenly to the elements equal to the
    result (to the nans when it is nan), put into zeros by masked_fill."""
    mask = isnan(x) if bool(np.isnan(ans._data)) else x == ans
    return masked_fill(_zeros(x.shape, g), mask, g / sum(mask))


def _restore_reduced(t, ndim, dims, keepdim):
    """PyTorch's restore_reduced_dims: a reduction's result reshaped with its reduced dims back as 1s."""
    if keepdim:
        return t
    dims = range(ndim) if dims is None else dims
    shape = iter(t.shape)
    return reshape(t, tuple(1 if d in dims else next(shape) for d in range(ndim)))


def _amax_grad(g, ans, x, dims, keepdim):
    # Ties share the gradient evenly, as in PyTorch's scale_grad_by_count.
    n = x.dim()
    mask = _restore_reduced(ans, n, dims, keepdim) == x
    count = sum(mask, tuple(range(n)) if dims is None else dims, keepdim=True)
    return _restore_reduced(g, n, dims, keepdim) / count * mask


def sum(input, dim=None, keepdim=False, *, dtype=None):
    if type(input) is not Tensor:
        need_tensor("sum", "input", 1, input)
    d = input._data
    if dtype is not None:
        d = d.astype(_dtypes.to_numpy_dtype(dtype))
    elif d.dtype.kind in "bui" and d.dtype != np.int64:
        d = d.astype(np.int64)
    if dim is None:  # (inf + -inf is nan, silently)
        return record(SUM, (input,), np.asarray(_quietly(add_reduce, d), dtype=d.dtype))
    # (the node keeps the dims as given, for its rule too)
    out = _quietly(add_reduce, d, norm_dims(dim, d.ndim), keepdim)
    return record(SUM_DIM, (input,), out, {"dims": dim, "keepdim": keepdim})


def _float_check(x, fname):
    if x._data.dtype.kind != "f":
        name = _dtypes.from_numpy_dtype(x._data.dtype)._legacy.replace("Tensor", "")
        raise RuntimeError(
            f"{fname}(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {name}"
        )


_NO_CONTEXT = __import__("contextlib").nullcontext()


def mean(input, dim=None, keepdim=False, *, dtype=None):
    if type(input) is not Tensor:
        need_tensor("mean", "input", 1, input)
    input = as_tensor_arg(input)
    if dtype is not None:
        input = input.to(dtype)
    _float_check(input, "mean")
    d = input._data
    with np.errstate(all="ignore"), warnings.catch_warnings() if d.size == 0 else _NO_CONTEXT:
        if d.size == 0:  # the mean of nothing is nan, silently, as in PyTorch
            warnings.simplefilter("ignore", RuntimeWarning)
        if dim is None:
            return record(MEAN, (input,), mean_reduce(d))
        out = mean_reduce(d, norm_dims(dim, d.ndim), keepdim)
    return record(MEAN_DIM, (input,), out, {"dims": dim, "keepdim": keepdim})  # (dims as given, as sum's)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    need_tensor("prod", "input", 1, input)
    d = input._data
    if dim is None:  # (a product past the dtype's range is inf, silently)
        return record(PROD, (input,), np.asarray(_quietly(d.prod), dtype=d.dtype if d.dtype.kind == "f" else np.int64))
    dims = norm_dims(dim, d.ndim)
    out = record(PROD_DIM, (input,), _quietly(d.prod, axis=dims, keepdims=keepdim), {"dims": dims, "keepdim": keepdim})
    return _given(out, dim=dim) if _raw(dim) else out


@functools.cache
def return_type(name, fields=("values", "indices")):
    """The class of ``torch.return_types.<name>``: a tuple with named fields (a structseq in PyTorch)."""
    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    ns = {"__slots__": (), "__new__": __new__, "__repr__": __repr__,
          "n_fields": len(fields), "n_sequence_fields": len(fields), "n_unnamed_fields": 0,
          **{f: property(operator.itemgetter(i)) for i, f in enumerate(fields)}}
    cls = type(name, (tuple,), ns)
    cls.__module__ = "torch.return_types"
    return cls


def _extreme(x, dim, keepdim, other, full_op, dim_op, npf, argf, name):
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        return (maximum if name == "max" else minimum)(x, other)
    d = x._data
    if dim is None:
        if d.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        return record(full_op, (x,), np.asarray(npf(d)))
    given, dim = dim, norm_dims(dim, d.ndim)[0] if d.ndim else 0
    if d.ndim and not d.shape[dim]:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    idx = argf(d, axis=dim, keepdims=True) if d.ndim else np.asarray(0)
    vals = np.take_along_axis(d, idx, axis=dim) if d.ndim else d.copy()
    if not keepdim and d.ndim:
        vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
    # (the dim as given, as PyTorch's rule unsqueezes and scatters along it)
    v = record(dim_op, (x,), vals, {"dim": given, "keepdim": keepdim, "indices": idx})
    return return_type(name)(v, _wrap(np.asarray(idx, dtype=np.int64)))


def max(input, dim=_NOT_GIVEN, keepdim=False, *, other=None):
    need_tensor("max", "input", 1, input)
    if dim is None:  # (left out, it is every element; given as None, no overload takes it)
        raise invalid_arguments("max", input, None)
    return _extreme(input, None if dim is _NOT_GIVEN else dim, keepdim, other, AMAX, MAX_DIM, np.max, np.argmax, "max")


def min(input, dim=_NOT_GIVEN, keepdim=False, *, other=None):
    need_tensor("min", "input", 1, input)
    if dim is None:  # (left out, it is every element; given as None, no overload takes it)
        raise invalid_arguments("min", input, None)
    return _extreme(input, None if dim is _NOT_GIVEN else dim, keepdim, other, AMIN, MIN_DIM, np.min, np.argmin, "min")


def _amax(op, npf, x, dim, keepdim):
    d = x._data
    dims = None if dim is None or not isinstance(dim, int) and len(dim) == 0 else norm_dims(dim, d.ndim)
    for k in range(d.ndim) if dims is None else dims:
        if not d.shape[k]:
            name = "amax" if op is AMAX_DIMS else "amin"
            raise IndexError(f"{name}(): Expected reduction dim {k} to have non-zero size.")
    out = record(op, (x,), np.asarray(npf(d, axis=dims, keepdims=keepdim)), {"dims": dims, "keepdim": keepdim})
    return _given(out, dim=dim)


def amax(input, dim=(), keepdim=False):
    need_tensor("amax", "input", 1, input)
    return _amax(AMAX_DIMS, np.max, input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    need_tensor("amin", "input", 1, input)
    return _amax(AMIN_DIMS, np.min, input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    need_tensor("argmax", "input", 1, input)
    return _arg_extreme(np.argmax, "argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    need_tensor("argmin", "input", 1, input)
    return _arg_extreme(np.argmin, "argmin", input, dim, keepdim)


def _arg_extreme(fn, name, x, dim, keepdim):
    d = x._data
    if d.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if not d.size:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        out = np.asarray(fn(d), dtype=np.int64)
        return _wrap(out.reshape((1,) * d.ndim) if keepdim else out)
    axis = norm_dims(dim, d.ndim)
    if not d.ndim:
        return _wrap(np.zeros((), dtype=np.int64))
    if not d.shape[axis[0]]:
        raise IndexError(f"{name}(): Expected reduction dim {axis[0]} to have non-zero size.")
    return _wrap(np.asarray(fn(d, axis=axis[0], keepdims=keepdim), dtype=np.int64))


def _var_check(x):
    if x._data.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")


def _dof_warning(name, x, dims, correction):
    n = _n_reduced(x._data.shape, dims)
    if n - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input "
            "numel divided by output numel). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
            "ReduceOps.cpp:1861.)", UserWarning, stacklevel=4)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _moment(name, op, x, dim, unbiased, keepdim, correction, with_mean=False):
    """``var`` and ``std`` (and with ``with_mean``, ``var_mean`` and ``std_mean``, whose node has the
    mean as a second output): one node each, with PyTorch's argument forms and warnings."""
    if type(x) is not Tensor and not isinstance(x, Tensor):
        raise invalid_arguments(name, x, **_given_kw(dim=dim, unbiased=unbiased, keepdim=keepdim,
                                                     correction=correction))
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    _var_check(x)
    c = _correction(unbiased, correction)
    dims = norm_dims(dim, x._data.ndim)
    _dof_warning(name, x, dims, c)
    out = var_reduce(x._data, dims, c, keepdim, op is STD or op is STD_MEAN, with_mean)
    out = record(op, (x,), out, {"dims": dims, "correction": c, "keepdim": keepdim, "dim": dim},
                 n_outputs=2 if with_mean else 1)
    # (PyTorch shows no correction when neither it, unbiased nor a dim was given: var() takes another overload)
    shown = c if correction is not None or unbiased is not None or dim is not None else None
    return _given(out, dim=dim, correction=shown)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moment("var", VAR, input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moment("std", STD, input, dim, unbiased, keepdim, correction)


def logsumexp(input, dim, keepdim=False):
    need_tensor("logsumexp", "input", 1, input)
    d = _float_data(input)
    dims = norm_dims(dim, d.ndim)
    m = np.max(d, axis=dims, keepdims=True) if d.size else np.zeros([1] * d.ndim, d.dtype)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(all="ignore"):  # all -inf gives -inf, silently, as in PyTorch
        out = np.log(np.sum(np.exp(d - m), axis=dims, keepdims=True)) + m
    if not keepdim:
        out = np.squeeze(out, axis=dims) if dims else out.reshape(())
    return record(LOGSUMEXP, (input,), out.astype(d.dtype, copy=False), {"dims": dim, "keepdim": keepdim})  # (as sum's)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector p-norm over ``dim`` (all elements by default): one ``LinalgVectorNormBackward0`` node."""
    return _norm(input, "fro" if p is None else p, dim, keepdim, dtype, NORM)


# What C++ inside PyTorch gets for ``at::norm(t, p, dim, keepdim)`` (pairwise_distance): the same rule
NORM_DIM = defop("NormBackward1", NORM.vjps[0], saves=(0, "result"))


def _norm(x, p, dim, keepdim, dtype, op):
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            p = 2
        else:
            # PyTorch sends these to linalg.matrix_norm.
            dims = list(range(x._data.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
            if len(dims) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
            from .linalg import matrix_norm  # (here: linalg imports this module)

            return matrix_norm(x, p, tuple(dims), keepdim, dtype=dtype)
    if x._data.dtype.kind != "f" and dtype is None:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {_scalar_type(x)}")
    d = _float_data(x.to(dtype) if dtype is not None else x)
    dims = norm_dims(dim, d.ndim)
    if d.size == 0 and (p < 0 or p == math.inf):
        _no_identity(p, dim, dims, d.shape)
    out = _quietly(norm_reduce, d, float(p), dims, keepdim)  # (a norm past the dtype's range is inf, silently)
    return record(op, (x,), np.asarray(out, dtype=d.dtype), {"ord": p, "dims": dim, "keepdim": keepdim})  # (as sum's)


def _no_identity(p, dim, dims, shape):
    """PyTorch's refusal of a negative or infinite norm of nothing (its message lacks a space)."""
    shown = f"{p:g}" if isinstance(p, float) else p  # (a C++ Scalar's print)
    if dims is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because the "
                           "operation does not have an identity")
    for given, i in zip([dim] if isinstance(dim, int) else dim, dims):
        if shape[i] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the dimension {given}"
                               "because this dimension is empty and the operation does not have an identity")


# PyTorch's at::acc_type on the CPU: what a running sum or product of a dtype is kept in
_CPU_ACC = {np.dtype(np.float16): _F32, _F32: _F64}


def _running(kernel, input, dim, dtype):
    """``kernel`` (np.cumsum, np.cumprod) along ``dim``, one number after another as PyTorch's
    ``cpu_cum_base_kernel``: in ``dtype`` when given (the node is then the op's own, its grad cast back by
    the walk, as in PyTorch), else integers and bools in int64 as PyTorch's (NumPy takes its platform
    integer: 32 bits in Pyodide); a float16 or float32 total kept in float32 or float64, each result
    rounded from it."""
    d = input._data
    if dtype is not None:
        rd = _dtypes.to_numpy_dtype(dtype)
    else:
        rd = np.dtype(np.int64) if d.dtype.kind in "biu" else d.dtype
    dim = norm_dims(dim, d.ndim)[0] if d.ndim else 0
    if not d.ndim:
        return dim, d.astype(rd)
    acc = _CPU_ACC.get(rd, rd)
    out = _quietly(kernel, d.astype(rd, copy=False), axis=dim, dtype=acc)
    if kernel is np.cumsum and rd.kind == "f":
        out += 0.0  # (PyTorch's total starts at 0: 0 + -0 is 0, where NumPy's starts at the first number)
    return dim, out.astype(rd, copy=False)


def cumsum(input, dim, *, dtype=None):
    need_tensor("cumsum", "input", 1, input)
    _, out = _running(np.cumsum, input, dim, dtype)
    return record(CUMSUM, (input,), out, {"dim": dim})  # (as given, as its rule uses it)


# ----- Softmax family -----

SOFTMAX = defop("SoftmaxBackward0", lambda g, ans, x, dim: _softmax_backward_data(g, ans, dim), saves=("result",))
LOG_SOFTMAX = defop("LogSoftmaxBackward0", lambda g, ans, x, dim: _log_softmax_backward_data(g, ans, dim),
                    saves=("result",))
SOFTMAX_BACKWARD = defop(
    "SoftmaxBackwardDataBackward0",
    lambda g, ans, grad_output, output, dim: _softmax_backward_data(g, output, dim),
    lambda g, ans, grad_output, output, dim: (grad_output * g - sum(output * grad_output, dim, keepdim=True) * g
                                              - grad_output * sum(output * g, dim, keepdim=True)),
    saves=(0, 1))
LOG_SOFTMAX_BACKWARD = defop(
    "LogSoftmaxBackwardDataBackward0",
    lambda g, ans, grad_output, output, dim: g - sum(g * exp(output), dim, keepdim=True),
    lambda g, ans, grad_output, output, dim: neg(sum(grad_output, dim, keepdim=True)) * exp(output) * g,
    saves=(0, 1))


def _softmax_backward(go, y, dim):
    if not y.ndim or dim % y.ndim == y.ndim - 1 or not _fused_dtype(y):
        # PyTorch runs a single row in the calling thread, where GCC fused the multiply into the add
        # of a float32 row's last, partial vector; rows OpenMP's threads share out are not fused
        one_row = y.dtype == _F32 and y.ndim and y.size == y.shape[-1]
        return (go - _softmax_sum(go * y, dim, (go, y) if one_row else None)) * y
    # along another dim PyTorch's kernel adds go * y slice after slice in fused multiply-adds
    total = np.zeros_like(np.take(y, 0, axis=dim))
    for k in range(y.shape[dim]):
        total = fma(np.take(go, k, axis=dim), np.take(y, k, axis=dim), total, y.dtype)
    return (go - np.expand_dims(total, dim)) * y


def _fused_dtype(d):
    return d.dtype.kind == "f" and d.dtype.itemsize in (4, 8)


def _softmax_backward_data(grad_output, output, dim):
    return _backward_kernel(SOFTMAX_BACKWARD, _softmax_backward, (grad_output, output), {"dim": dim})


def _log_softmax_backward(go, y, dim):
    total = _softmax_sum(go, dim)
    if not _fused_dtype(y):
        return go - _exp(y) * total
    return fma(_exp(y), -total, go, y.dtype)  # (PyTorch's kernel: go - exp(y) * total, one multiply-add)


def _softmax_sum(d, dim, fused_tail=None):
    """The sum along ``dim`` (kept) in the order of PyTorch's softmax kernels: along the last dim,
    ``vec::reduce_all`` (a row of fewer numbers than a vector one after another; else vector after
    vector in 16 float32 lanes, as the kernels are built for AVX-512, the lanes then halved four times,
    or 8 float64 lanes added in turn); along another dim, slice after slice (NumPy's order there).
    With ``fused_tail``, the pair (a, b) whose products ``d`` holds: the numbers past the last whole
    vector added as fused multiply-adds of those."""
    if not d.ndim:
        return d
    if dim % d.ndim != d.ndim - 1 or not _fused_dtype(d):
        return np.add.reduce(d, axis=dim, keepdims=True)
    n = d.shape[-1]
    lanes = 64 // d.dtype.itemsize
    if n < lanes:
        if not d.size:
            return np.add.reduce(d, axis=-1, keepdims=True)
        return _seq(d.reshape(-1, n).T).reshape(d.shape[:-1] + (1,))
    whole = n // lanes * lanes
    acc = np.add.reduce(d[..., :whole].reshape(d.shape[:-1] + (-1, lanes)), axis=-2)
    if whole < n and fused_tail is not None:
        a, b = fused_tail
        acc[..., :n - whole] = fma(a[..., whole:], b[..., whole:], acc[..., :n - whole], d.dtype)
    elif whole < n:
        acc[..., :n - whole] += d[..., whole:]
    if lanes == 8:
        return np.add.accumulate(acc, axis=-1)[..., -1:]
    while acc.shape[-1] > 1:
        half = acc.shape[-1] // 2
        acc = acc[..., :half] + acc[..., half:]
    return acc


def _log_softmax_backward_data(grad_output, output, dim):
    return _backward_kernel(LOG_SOFTMAX_BACKWARD, _log_softmax_backward, (grad_output, output), {"dim": dim})


def _softmax_dim(x, dim, name):
    if dim is None:
        nd = x._data.ndim
        dim = 0 if nd in (0, 1, 3) else 1
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
            UserWarning, stacklevel=3,
        )
    return norm_dims(dim, x._data.ndim)[0] if x._data.ndim else 0


def _softmax_kernel(x, dim, name):
    d = x._data
    if d.dtype.kind != "f":
        kernel = f"{name}_lastdim_kernel_impl" if dim == d.ndim - 1 or d.ndim == 0 else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type(x)}\'')


def softmax(input, dim=None, dtype=None, _stacklevel=3):
    need_tensor("softmax", "input", 1, input)
    given, dim = dim, _softmax_dim(input, dim, "softmax")
    xd = input.to(dtype) if dtype is not None else input
    _softmax_kernel(xd, dim, "softmax")
    # (the node keeps the dim as given, and hands it on to _softmax_backward_data as PyTorch's does)
    return record(SOFTMAX, (xd,), _quietly(_softmax_np, _float_data(xd), dim),  # (inf - inf: nan)
                  {"dim": dim if given is None else given})


def _max_along(d, dim):
    """``np.maximum.reduce(d, axis=dim, keepdims=True)`` (d.ndim >= 1). Along a short last dim of many
    rows (a batch's class scores), down the columns of a transposed copy: NumPy's loop along each
    short row costs three times as much."""
    n = d.shape[-1]
    if 0 < n <= 32 and d.ndim > 1 and dim % d.ndim == d.ndim - 1 and d.size >= 32 * n:
        return np.maximum.reduce(np.ascontiguousarray(d.reshape(-1, n).T), axis=0).reshape(d.shape[:-1] + (1,))
    return np.maximum.reduce(d, axis=dim, keepdims=True)


def _softmax_np(d, dim):
    """Softmax of an array along ``dim`` (of a 0-d array: 1)."""
    if not d.ndim:
        return np.ones_like(d)
    e = _exp(d - _max_along(d, dim))
    if dim % d.ndim == d.ndim - 1:  # (PyTorch's last-dim kernel multiplies by the sum's reciprocal)
        return e * (d.dtype.type(1) / _softmax_sum(e, dim))
    return e / _softmax_sum(e, dim)


def log_softmax(input, dim=None, dtype=None, _stacklevel=3):
    need_tensor("log_softmax", "input", 1, input)
    given, dim = dim, _softmax_dim(input, dim, "log_softmax")
    xd = input.to(dtype) if dtype is not None else input
    _softmax_kernel(xd, dim, "log_softmax")
    d = _float_data(xd)
    out = _quietly(_log_softmax_np, d, dim) if d.ndim else np.zeros_like(d)  # (inf - inf: nan)
    return record(LOG_SOFTMAX, (xd,), out, {"dim": dim if given is None else given})  # (as softmax keeps it)


def _log_softmax_np(d, dim):
    s = d - _max_along(d, dim)
    s -= _log(_softmax_sum(_exp(s), dim))
    return s


# ----- Linear algebra -----

MM = defop("MmBackward0", lambda g, ans, a, b, strides: _mm_mat1_grad(g, b, strides[0], a.shape),
           lambda g, ans, a, b, strides: _mm_mat2_grad(g, a, strides[1], b.shape), saves=(0, 1))
MV = defop("MvBackward0", lambda g, ans, m, v: mul(reshape(g, (-1, 1)), v),  # (PyTorch's ger: a reshape)
           lambda g, ans, m, v: mv(t(m), g), saves=(0, 1))
DOT = defop("DotBackward0", lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves=(0, 1))
BMM = defop("BmmBackward0", lambda g, ans, a, b: bmm(g, transpose(b, 1, 2)),
            lambda g, ans, a, b: bmm(transpose(a, 1, 2), g), saves=(0, 1))
ADDMM = defop("AddmmBackward0",
              lambda g, ans, c, a, b, strides, beta=1, alpha=1: g if beta == 1 else _mul_scalar(g, beta),
              lambda g, ans, c, a, b, strides, beta=1, alpha=1:
              _mm_mat1_grad(g, b, strides[0], a.shape, alpha),
              lambda g, ans, c, a, b, strides, beta=1, alpha=1:
              _mm_mat2_grad(g, a, strides[1], b.shape, alpha),
              saves=(1, 2))


def _grad_strides(x):
    """``x``'s strides in elements, kept (as PyTorch keeps them) only when ``x`` will get a grad."""
    if not x._requires_grad:
        return ()
    st, n = x._data.strides, x._data.itemsize
    return (st[0] // n, st[1] // n) if len(st) == 2 else tuple(s // n for s in st)


# PyTorch's mm_mat1_backward / mm_mat2_backward: a column-major input (``strides`` and ``shape``
# are the input's) gets its grad computed transposed (for speed there), which a double backward
# shows as TBackward0 around the product.
def _mm_mat1_grad(g, mat2, strides, shape, alpha=1):
    r = t(mm(mat2, t(g))) if _col_major(strides, shape) else mm(g, t(mat2))
    return r if alpha == 1 else _mul_scalar(r, alpha)


def _mm_mat2_grad(g, mat1, strides, shape, alpha=1):
    r = t(mm(t(g), mat1)) if _col_major(strides, shape) else mm(t(mat1), g)
    return r if alpha == 1 else _mul_scalar(r, alpha)


def _col_major(strides, shape):
    return len(strides) == 2 and strides[0] == 1 and strides[1] == shape[0]


def _scalar_type(x):
    return _dtypes.from_numpy_dtype(x._data.dtype)._legacy[:-len("Tensor")]


def _promote_pair(a, b, fname):
    """No implicit promotion in matrix products: PyTorch's message for each kernel."""
    if a._data.dtype == b._data.dtype:
        return
    if fname == "mm":
        cpp = _CPP_TYPE_NAMES
        msg = f"expected m1 and m2 to have the same dtype, but got: {cpp[a._data.dtype.name]} != {cpp[b._data.dtype.name]}"
    elif fname == "mv":
        msg = (f"addmv input tensors must have the same dtype, but got {_scalar_type(b)}, {_scalar_type(a)}, and "
               f"{_scalar_type(b)}")
    elif fname == "dot":
        msg = f"dot : expected both vectors to have same dtype, but found {_scalar_type(a)} and {_scalar_type(b)}"
    else:
        msg = f"expected scalar type {_scalar_type(a)} but found {_scalar_type(b)}"
    raise RuntimeError(msg)


def _mm_check(x, y):
    if x.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if y.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    (n, k), (k2, m) = x.shape, y.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")


def mm(input, mat2):
    try:
        x, y = input._data, mat2._data
    except AttributeError:
        need_tensor("mm", "input", 1, input)
        need_tensor("mm", "mat2", 2, mat2)
        raise
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        _mm_check(x, y)
    if x.dtype != y.dtype:
        _promote_pair(input, mat2, "mm")
    out = _quietly(np.matmul, x, y)  # (inf - inf is nan, silently)
    if not _grad_mode._enabled and not _grad_mode._fw_active:  # (a backward pass without create_graph: no node)
        return _wrap(out)
    # _grad_strides of each, inlined for two dims: this runs for every layer of every step
    sa = sb = ()
    if input._requires_grad:
        st, n = x.strides, x.itemsize
        sa = (st[0] // n, st[1] // n)
    if mat2._requires_grad:
        st, n = y.strides, y.itemsize
        sb = (st[0] // n, st[1] // n)
    return record(MM, (input, mat2), out, {"strides": (sa, sb)})


def mv(input, vec):
    need_tensor("mv", "input", 1, input)
    need_tensor("mv", "vec", 2, vec)
    if input._data.ndim != 2 or vec._data.ndim != 1 or input._data.shape[1] != vec._data.shape[0]:
        r, c = (input._data.shape + (0, 0))[:2]
        raise RuntimeError(f"size mismatch, got input ({r}), mat ({r}x{c}), vec ({vec._data.shape[0]})")
    _promote_pair(input, vec, "mv")
    return record(MV, (input, vec), _quietly(np.matmul, input._data, vec._data))


def dot(input, tensor):
    need_tensor("dot", "input", 1, input)
    need_tensor("dot", "tensor", 2, tensor)
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    if input._data.shape != tensor._data.shape:
        na, nb = input._data.shape[0], tensor._data.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{na}] and src [{nb}] to have the same number of elements, but got {na} and {nb} elements respectively"
        )
    _promote_pair(input, tensor, "dot")
    return record(DOT, (input, tensor), np.asarray(_quietly(np.dot, input._data, tensor._data)))


def bmm(input, mat2):
    need_tensor("bmm", "input", 1, input)
    need_tensor("bmm", "mat2", 2, mat2)
    if input._data.ndim != 3 or mat2._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if input._data.shape[0] != mat2._data.shape[0] or input._data.shape[2] != mat2._data.shape[1]:
        s1, s2 = list(input._data.shape), list(mat2._data.shape)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, {s1[2]}] but got: [{s2[0]}, {s2[1]}].")
    _promote_pair(input, mat2, "bmm")
    return record(BMM, (input, mat2), _quietly(np.matmul, input._data, mat2._data))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    need_tensor("addmm", "input", 1, input)
    if type(mat1) is not Tensor:
        need_tensor("addmm", "mat1", 2, mat1)
    if type(mat2) is not Tensor:
        need_tensor("addmm", "mat2", 3, mat2)
    for x, y, names in ((mat1, mat2, "mat1 and mat2"), (input, mat2, "self and mat2")):
        if x._data.dtype != y._data.dtype:
            raise RuntimeError(
                f"{names} must have the same dtype, but got {_scalar_type(x)} and {_scalar_type(y)}")
    _mm_check(mat1._data, mat2._data)
    shape = (mat1._data.shape[0], mat2._data.shape[1])
    _check_expandable(input._data.shape, shape, shape)  # (the bias is expanded to the product's shape)
    out = _quietly(_addmm_np, input._data, mat1._data, mat2._data, beta, alpha)
    attrs = {"strides": (_grad_strides(mat1), _grad_strides(mat2))}
    if (beta, alpha) != (1, 1) or type(beta) is not int or type(alpha) is not int:  # (1.0 shows as 1.0)
        attrs.update(beta=beta, alpha=alpha)
    return record(ADDMM, (input, mat1, mat2), out.astype(mat1._data.dtype, copy=False), attrs)


def _addmm_np(c, a, b, beta, alpha):
    return c * beta + (a @ b) * alpha if (beta, alpha) != (1, 1) else c + a @ b


def matmul(input, other):
    """``a @ b`` dispatched as PyTorch's ``_matmul_impl`` does (``dot``, ``mv``, ``mm``, a folded ``mm``/``mv``
    or a batched ``bmm``), so the graph shows the same nodes."""
    if type(input) is not Tensor or type(other) is not Tensor:
        if not isinstance(input, Tensor):
            raise tensor_expected("matmul", "input", 1, input)
        if not isinstance(other, Tensor):
            raise tensor_expected("matmul", "other", 2, other)
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return inplace_node(squeeze(mm(unsqueeze(input, 0), other), 0))  # PyTorch squeezes in place
    if da == 2 and db == 2:
        return mm(input, other)
    if _should_fold(input, other):
        # Fold the batch of the larger operand into the rows of one mm/mv.
        tr = db > da
        t1 = transpose(other, -2, -1) if tr else input
        t2 = (t(input) if da == 2 else input) if tr else other
        s1 = t1._data.shape
        folded = reshape(t1, (int(math.prod(s1[:-1])), s1[-1]))
        if t2._data.ndim == 2:
            out = _unsafe_view(mm(folded, t2), s1[:-1] + (t2._data.shape[1],))
            return contiguous(transpose(out, -2, -1)) if tr else out
        return _unsafe_view(mv(folded, t2), s1[:-1])
    # Broadcast the batch dims, flatten them into one, bmm, restore.
    sa, sb = input._data.shape, other._data.shape
    if da == 3 and db == 3 and sa[0] != sb[0]:
        # A batch of one that requires grad is squeezed, so the fold above applies (no expanded grad).
        if sa[0] == 1 and input._requires_grad:
            return matmul(squeeze(input, 0), other)
        if sb[0] == 1 and other._requires_grad:
            return matmul(input, squeeze(other, 0))
    n = sa[-2] if da > 1 else 1
    m1, m2 = sa[-1], (sb[-2] if db > 1 else sb[0])
    p = sb[-1] if db > 1 else 1
    batch = _broadcast_checked(sa[:-2], sb[:-2])
    nb = int(math.prod(batch))
    a3 = reshape(expand(input, batch + (n, m1)), (nb, n, m1))
    if db == 1:
        b3 = unsqueeze(reshape(expand(other, batch + (m2,)), (nb, m2)), 2)
    else:
        b3 = reshape(expand(other, batch + (m2, p)), (nb, m2, p))
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = bmm(a3, b3)
    return _unsafe_view(squeeze(out, -1) if db == 1 else out, shape)


# The node names PyTorch gives the in-place forms of view ops (``y.squeeze_(0)`` is SqueezeBackward4).
_INPLACE_NAMES = {
    "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
    "SqueezeBackward2": "SqueezeBackward5", "UnsqueezeBackward0": "UnsqueezeBackward1",
    "TBackward0": "TBackward1", "TransposeBackward0": "TransposeBackward1",
    # activations PyTorch computes in place from the result: elu_ (and selu_), celu_, leaky_relu_, threshold_
    "EluBackward0": "EluBackward1", "CeluBackward0": "CeluBackward1", "LeakyReluBackward0": "LeakyReluBackward1",
    "ThresholdBackward0": "ThresholdBackward1",
}


def inplace_node(out):
    """Rename ``out``'s node to the in-place form of its op; the rule stays the same."""
    fn = expose(out._grad_fn)
    if fn is not None and type(fn).__name__ in _INPLACE_NAMES:
        fn.__class__ = node_class(_INPLACE_NAMES[type(fn).__name__])
    return out


_warned_T = False


def numpy_T(x):
    """``x.T``: all dims reversed; PyTorch warns once that this is deprecated unless ``x`` is 2-D (or 0-D)."""
    global _warned_T
    nd = x._data.ndim
    if nd not in (0, 2) and not _warned_T:
        _warned_T = True
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
            "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
            "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered "
            "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)", UserWarning, stacklevel=3)
    return permute(x, tuple(reversed(range(nd))))


# The 0-D warnings of the last-two-dims transposes (each a TORCH_WARN_ONCE, at its TensorShape.cpp line).
_MATRIX_0D_WARNINGS = {
    "mT": ("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.", 4373),
    "mH": ("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", 4382),
    "adjoint()": ("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", 4390),
    "H": ("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", 4335),
}
_warned_matrix_0d = set()


def _matrix_transpose(x, name):
    """``x.mT``, ``x.mH``, ``x.adjoint()``, ``x.H``: a view with the last two dims swapped (with
    real tensors only, the conjugate of mH, adjoint and H is the identity). A 0-D tensor is returned
    as it is."""
    nd = x._data.ndim
    if nd == 0:
        if name not in _warned_matrix_0d:
            _warned_matrix_0d.add(name)
            text, line = _MATRIX_0D_WARNINGS[name]
            warnings.warn(f"{text} (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                          f"TensorShape.cpp:{line}.)", UserWarning, stacklevel=3)
        return x
    if name == "H":
        if nd != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor."
                               + (" For batches of matrices, consider using tensor.mH" if nd > 2 else ""))
    elif nd < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got {nd}-D tensor.")
    return transpose(x, -2, -1)


def adjoint(input):
    """The conjugate transpose of the last two dims, a view: ``input.transpose(-2, -1)`` for real tensors."""
    need_tensor("adjoint", "input", 1, input)
    return _matrix_transpose(input, "adjoint()")


def outer(input, vec2):
    """``input[:, None] * vec2``, built as PyTorch builds it (a ``ViewBackward0`` of ``input`` times ``vec2``)."""
    need_tensor("outer", "input", 1, input)
    need_tensor("outer", "vec2", 2, vec2)
    return mul(reshape(input, (input._data.shape[0], 1)), vec2)


def ger(input, vec2):
    need_tensor("ger", "input", 1, input)
    need_tensor("ger", "vec2", 2, vec2)
    return outer(input, vec2)


def _should_fold(a, b):
    """PyTorch's ``should_fold``: fold when one operand is >= 3-D and the other 1-D or 2-D, and either
    the smaller one requires grad or the folding costs no copy."""
    a_larger = a._data.ndim >= b._data.ndim
    t1 = a._data if a_larger else np.swapaxes(b._data, -1, -2)
    small = b if a_larger else a
    if not (t1.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if t1.size == 0:
        return True
    st = [s // t1.itemsize for s in t1.strides]
    return builtins.all(st[i] == st[i + 1] * t1.shape[i + 1] for i in range(t1.ndim - 2))


# ----- Shape and view ops -----

def _view_of(out, x):
    out._vc = x._vc
    out._base = x if x._base is None else x._base
    if x._inference or _grad_mode._inference[0]:  # a view is an inference tensor when its base is one
        out._inference = x._inference
    if _grad_mode._fw_active and x._fw_grad is not None:
        view_tangent(out, x)
    if _grad_mode._enabled:
        out._view_version = x._vc[0]  # a differentiable view: see refresh_view and copy_slices
        if x._custom_view is not None and out._grad_fn._n_outputs == 1:  # (unbind's outputs: multi-output views)
            out._custom_view = x._custom_view
        if x._no_grad_view and x._requires_grad:  # a view of a no_grad view is one too
            out._no_grad_view = True
            out._no_grad_version = x._no_grad_version
    else:
        out._no_grad_view = True
        # It reads requires_grad=True like its base, yet no grad flows into it (its edges are empty).
        out._requires_grad = x._requires_grad
        out._no_grad_version = x._vc[0]
    return out


def view_tangent(out, x):
    """A view's tangent is the same view of its input's tangent (when their layouts agree), so an
    in-place change to either tangent shows in the other, as in PyTorch."""
    from .autograd.forward_ad import set_tangent

    if x._fw_grad._requires_grad or out._fw_grad is not None and out._fw_grad._requires_grad:
        return  # a tangent with a graph keeps the one worked out through the op (its grad_fn)
    tv = _same_view(x._fw_grad._data, x._data, out._data)
    if tv is not None:
        set_tangent(out, _wrap(tv))


def _same_view(arr, like, view):
    """The view of ``arr`` that ``view`` is of ``like`` (same shape as ``arr``), or None when ``arr`` is
    laid out otherwise or ``view`` is not inside ``like``."""
    n, m = like.itemsize, arr.itemsize
    if arr.shape != like.shape or builtins.any(k > 1 and a * n != b * m for k, a, b in zip(like.shape, arr.strides, like.strides)):
        return None
    off = view.__array_interface__["data"][0] - like.__array_interface__["data"][0]
    if off % n:
        return None
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    start = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0] + off // n * m
    try:
        return np.ndarray(view.shape, arr.dtype, buffer=root, offset=start,
                          strides=tuple(s // n * m for s in view.strides))
    except (TypeError, ValueError):
        return None


# ----- In-place ops on views (PyTorch's view + inplace semantics) -----

AS_STRIDED = defop("AsStridedBackward0", lambda g, ans, x, index: _embed(g, x.shape, index))


def _view_index(v, b):
    """Where each element of the NumPy view ``v`` sits in the array ``b`` it shares memory with, as an
    advanced index; None if ``v`` does not lie inside ``b``."""
    if b.ndim == 0:
        return ()

    def offsets(a):
        off = np.zeros(a.shape, np.int64)
        for k, (n, st) in enumerate(zip(a.shape, a.strides)):
            off = off + (np.arange(n, dtype=np.int64) * st).reshape([n if j == k else 1 for j in range(a.ndim)])
        return off.ravel()

    bo = offsets(b)
    order = np.argsort(bo, kind="stable")
    sorted_bo = bo[order]
    vo = offsets(v) + (v.__array_interface__["data"][0] - b.__array_interface__["data"][0])
    pos = np.clip(np.searchsorted(sorted_bo, vo), 0, builtins.max(bo.size - 1, 0))
    if bo.size == 0 or not np.array_equal(sorted_bo[pos], vo):
        return None
    return tuple(i.reshape(v.shape) for i in np.unravel_index(order[pos], b.shape))


def refresh_view(t):
    """A view whose base (or another view of that base) changed in place gets ``AsStridedBackward0``
    of the base's current history as its grad_fn, as PyTorch regenerates it."""
    if t._custom_view is not None:
        from .autograd.function import custom_view_error

        raise custom_view_error(t, True)
    fn = t._grad_fn
    if fn is not None and fn._n_outputs > 1:
        name = fn.name()
        name = name[:-len("Backward0")] if name.endswith("Backward0") else name
        raise RuntimeError(
            f"Output {t._output_nr} of {name} is a view and its base or another view of its base has been modified "
            "inplace. This view is the output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
    t._view_version = t._vc[0]
    base = t._base
    if not base._requires_grad:
        return
    index = _view_index(t._data, base._data)
    if index is None:
        return
    prev = _grad_mode._enabled
    _grad_mode._set(True)
    try:
        fresh = record(AS_STRIDED, (base,), t._data, {"index": index})
    finally:
        _grad_mode._set(prev)
    t._grad_fn, t._output_nr, t._requires_grad = fresh._grad_fn, 0, True


def _copy_slices_rule(k):
    def rule(g, ans, *args, index, inner):
        r = _inner_vjp(inner, k, getitem_np(g, index))
        if k:
            return r
        rest = _zero_at(g, index)
        return rest if r is None else rest + _embed(r, g._data.shape, index)

    return rule


def _inner_vjp(inner, k, g):
    """Input ``k``'s grad from the node of an in-place op on a view, given the view's grad ``g``."""
    ans, args, attrs = unpack_with_attrs(inner)
    r = inner._op.vjps[k](g, ans, *args, **(attrs or {}))
    if r is not None:
        shape, dt = inner._metas[k]
        if r._data.shape != shape:
            r = sum_to(r, shape)
        if r._data.dtype != dt:
            r = to_dtype(r, dt)
    return r


COPY_SLICES_VIEW = defop("CopySlices", *[_copy_slices_rule(k) for k in range(8)],
                         cpp_name="torch::autograd::CopySlices")


def copy_slices(view, out):
    """``view`` took ``out``'s values in place: its base's history becomes ``CopySlices`` around
    ``out.grad_fn`` (edges: the base's old history, then the op's other inputs), and the view's
    becomes ``AsStridedBackward0`` of the base."""
    base, inner = view._base, out._grad_fn
    index = _view_index(view._data, base._data)
    if index is None:  # not sharing memory with its base any more: only the view changed
        view._grad_fn, view._output_nr, view._requires_grad = inner, out._output_nr, True
        return
    node = COPY_SLICES_VIEW.node_cls()
    node._op = COPY_SLICES_VIEW
    node._attrs = {"index": index, "inner": inner}
    if base._grad_fn is not None:
        edge = (base._grad_fn, base._output_nr)
    else:
        edge = (base._grad_accumulator(), 0) if base._requires_grad else (None, 0)
    node._next = (edge,) + tuple(inner._next[1:])
    node._metas = [(base._data.shape, base._data.dtype)] + list(inner._metas[1:])
    node._saved = []  # nothing of its own; released like any node so a second backward is caught
    base._grad_fn, base._output_nr, base._requires_grad = node, 0, True
    refresh_view(view)


def _shape_arg(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return tuple(map(int, shape))


def _infer_shape(shape, n):
    if -1 not in shape:
        if math.prod(shape) != n:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        return tuple(shape)
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    rest = 1
    for s in shape:
        if s != -1:
            rest *= s
    if rest == 0 or n % rest:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    shape[shape.index(-1)] = n // rest
    return tuple(shape)


VIEW = defop("ViewBackward0", lambda g, ans, x, shape: reshape(g, x.shape))
UNSAFE_VIEW = defop("UnsafeViewBackward0", lambda g, ans, x, shape: reshape(g, x.shape))
RESHAPE_ALIAS = defop("ReshapeAliasBackward0", lambda g, ans, x, shape: reshape(g, x.shape))
TRANSPOSE = defop("TransposeBackward0", lambda g, ans, x, d0, d1: transpose(g, d0, d1))
T = defop("TBackward0", lambda g, ans, x: t(g))
PERMUTE = defop("PermuteBackward0", lambda g, ans, x, dims: permute(g, tuple(np.argsort(dims))))
SQUEEZE = defop("SqueezeBackward0", lambda g, ans, x: _unsqueeze_to(g, x.shape))
SQUEEZE_DIM = defop("SqueezeBackward1", lambda g, ans, x, dim: _unsqueeze_to(g, x.shape, (dim,)))
SQUEEZE_DIMS = defop("SqueezeBackward2", lambda g, ans, x, dims: _unsqueeze_to(g, x.shape, dims))


def _unsqueeze_to(g, shape, dims=None):
    """PyTorch's unsqueeze_to: each squeezed size-1 dim back with an unsqueeze of its own."""
    n = builtins.max(len(shape), 1)
    wanted = None if dims is None else {d % n for d in dims}
    for d, size in enumerate(shape):
        if size == 1 and (wanted is None or d in wanted):
            g = unsqueeze(g, d)
    return g
UNSQUEEZE = defop("UnsqueezeBackward0", lambda g, ans, x, dim: squeeze(g, dim))
EXPAND = defop("ExpandBackward0", lambda g, ans, x, shape: sum_to(g, x.shape))
REPEAT = defop("RepeatBackward0", lambda g, ans, x, repeats: _repeat_grad(g, x.shape, repeats))
CLONE = defop("CloneBackward0", lambda g, ans, x: g)
TO_COPY = defop("ToCopyBackward0", lambda g, ans, x: g.to(x.dtype))
FLIP = defop("FlipBackward0", lambda g, ans, x, dims: flip(g, dims))


def view(x, *shape, dtype=None):
    if dtype is not None or len(shape) == 1 and isinstance(shape[0], _dtypes.dtype):
        return _view_dtype(x, shape[0] if dtype is None else dtype)
    shape = _infer_shape(_shape_arg(shape), x._data.size)
    out = x._data.view()
    try:
        out.shape = shape
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return _view_of(record(VIEW, (x,), out, {"shape": shape}), x)


def _view_dtype(x, dtype):
    """``x``'s memory read as ``dtype`` (no grad flows through it); the last dim scales with the element size."""
    d = x._data
    new = dtype.np
    a, b = d.itemsize, new.itemsize
    if a != b:
        what = f"to view {_scalar_type(x)} as {dtype._legacy[:-len('Tensor')]} (different element sizes)"
        if not d.ndim:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = [st // a for st in d.strides]
        ratio = b // a  # (0 when the elements get smaller: only the last stride is checked)
        if ratio:
            if d.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {d.shape[-1]}")
            offset = x.storage_offset()
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        for i, st in enumerate(strides[:-1]):
            if ratio and st % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}")
    t = _wrap(d.view(new))
    t._vc = x._vc  # (a view: in-place changes count for both)
    t._base = x if x._base is None else x._base
    return t


def reshape(input, *shape):
    """A view when the strides allow one (``ViewBackward0`` if ``x`` is contiguous, else
    ``ReshapeAliasBackward0``), otherwise a copy (``UnsafeViewBackward0`` over ``CloneBackward0``)."""
    need_tensor("reshape", "input", 1, input)
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    out = input._data.view()
    try:
        out.shape = shape
    except AttributeError:
        return _unsafe_view(clone(input), shape)
    op = VIEW if input._data.flags.c_contiguous else RESHAPE_ALIAS
    return _view_of(record(op, (input,), out, {"shape": shape}), input)


def _unsafe_view(x, shape):
    return record(UNSAFE_VIEW, (x,), x._data.reshape(shape), {"shape": tuple(shape)})


def flatten(input, start_dim=0, end_dim=-1):
    need_tensor("flatten", "input", 1, input)
    s = input._data.shape
    (a,), (b,) = norm_dims(start_dim, len(s)) or (0,), norm_dims(end_dim, len(s)) or (0,)
    if not s:
        return reshape(input, (1,))
    if a > b:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if a == b:
        return input
    return reshape(input, s[:a] + (int(math.prod(s[a:b + 1])),) + s[b + 1:])


def unflatten(input, dim, sizes):
    need_tensor("unflatten", "input", 1, input)
    s = input._data.shape
    dim, sizes = norm_dims(dim, len(s))[0], tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(n for n in sizes if n != -1)
    if -1 in sizes and known and s[dim] % known == 0:
        pass  # (reshape infers the -1)
    elif known != s[dim] or -1 in sizes:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({s[dim]}) in the input tensor")
    return reshape(input, s[:dim] + sizes + s[dim + 1:])


def transpose(input, dim0, dim1):
    need_tensor("transpose", "input", 1, input)
    nd = input._data.ndim
    d0, d1 = (norm_dims(dim0, nd) or (0,))[0], (norm_dims(dim1, nd) or (0,))[0]
    # (the node keeps the dims as given, for its rule too: PyTorch's grad.transpose(dim0, dim1))
    out = np.swapaxes(input._data, d0, d1) if nd else input._data[...]  # (a 0-d tensor's: itself)
    return _view_of(record(TRANSPOSE, (input,), out, {"d0": dim0, "d1": dim1}), input)


def swapaxes(input, axis0, axis1):
    need_tensor("swapaxes", "input", 1, input)
    return transpose(input, axis0, axis1)


def t(input):
    need_tensor("t", "input", 1, input)
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return _view_of(record(T, (input,), input._data.T), input)


def permute(input, *dims):
    need_tensor("permute", "input", 1, input)
    dims = _shape_arg(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    given, dims = dims, tuple(norm_dims(d, nd)[0] for d in dims) if nd else ()
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = _view_of(record(PERMUTE, (input,), np.transpose(input._data, dims), {"dims": dims}), input)
    return _given(out, dims=given) if given != dims else out


def squeeze(input, dim=None):
    need_tensor("squeeze", "input", 1, input)
    d = input._data
    if dim is None:
        return _view_of(record(SQUEEZE, (input,), d.reshape([s for s in d.shape if s != 1])), input)
    dims = norm_dims(dim, d.ndim)
    out = d.reshape([s for i, s in enumerate(d.shape) if not (i in dims and s == 1)])
    if isinstance(dim, int):
        out = _view_of(record(SQUEEZE_DIM, (input,), out, {"dim": dims[0] if dims else 0}), input)
        return _given(out, dim=dim) if _raw(dim) else out
    return _given(_view_of(record(SQUEEZE_DIMS, (input,), out, {"dims": dims}), input), dim=dim)


def unsqueeze(input, dim):
    need_tensor("unsqueeze", "input", 1, input)
    nd = input._data.ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    d = dim % nd
    # (the dim as given, for its rule's squeeze too, as in PyTorch)
    return _view_of(record(UNSQUEEZE, (input,), np.expand_dims(input._data, d), {"dim": dim}), input)


def _check_expandable(dshape, shape, sizes):
    lead = len(shape) - len(dshape)
    for i, n in enumerate(dshape):
        if n != 1 and n != shape[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[lead + i]}) must match the existing size ({n}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(dshape)}")


def expand(x, *sizes):
    sizes = _shape_arg(sizes)
    d = x._data
    if len(sizes) < d.ndim:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(d.shape)}}}, size=[{', '.join(map(str, sizes))}]): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({d.ndim})")
    lead = len(sizes) - d.ndim
    shape = tuple(d.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes)) if -1 in sizes else sizes
    _check_expandable(d.shape, shape, sizes)
    check_size(int(math.prod(shape)))
    return _view_of(record(EXPAND, (x,), _broadcast_view(d, shape), {"shape": shape}), x)


def _broadcast_view(d, shape):
    """``np.broadcast_to(d, shape)`` (a read-only view, stride 0 along every dim of size 1 in ``d``),
    built directly when ``d`` is one contiguous block: ``broadcast_to`` costs several small kernels."""
    if not d.flags.c_contiguous or not d.size:
        return np.broadcast_to(d, shape)
    if d.ndim:
        lead = len(shape) - d.ndim
        ds, st = d.shape, d.strides
        strides = tuple(0 if i < lead or ds[i - lead] == 1 else st[i - lead] for i in range(len(shape)))
    else:  # a scalar's grad spread over a sum's input: the commonest case in a backward pass
        strides = (0,) * len(shape)
    out = np.ndarray(shape, d.dtype, d, 0, strides)
    out.setflags(write=False)
    return out


def broadcast_to(input, shape):
    need_tensor("broadcast_to", "input", 1, input)
    return expand(input, tuple(shape))


def repeat(x, *repeats):
    repeats = _shape_arg(repeats)
    d = x._data
    if len(repeats) < d.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    shape = [r * n for r, n in zip(repeats, (1,) * (len(repeats) - d.ndim) + d.shape)]
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {shape}")
    check_size(int(math.prod(repeats)) * d.size)
    return record(REPEAT, (x,), np.tile(d, repeats), {"repeats": repeats})


def _repeat_grad(g, shape, repeats):
    """PyTorch's repeat_backward: the added leading dims summed one by one, then one reshape that
    splits each repeated dim into (repeat, size) and one sum over the repeats."""
    if 0 in repeats:
        return _zeros(shape, g)
    for _ in range(len(repeats) - len(shape)):
        g = sum(g, 0)
    split, dims = [], []
    for r, s in zip(repeats[len(repeats) - len(shape):], shape):
        if r != 1:
            dims.append(len(split))
            split.append(r)
        split.append(s)
    return sum(reshape(g, tuple(split)), tuple(dims)) if dims else g


def clone(input, *, memory_format=None):
    need_tensor("clone", "input", 1, input)
    return record(CLONE, (input,), aligned_copy(input._data))


ALIAS = defop("AliasBackward0", lambda g, ans, x: g)


def alias(x):
    """A view of all of ``x`` (what ``torch.Tensor(t)`` returns): ``AliasBackward0`` when ``x`` requires grad."""
    return _view_of(record(ALIAS, (x,), x._data.view()), x)


FW_PRIMAL = defop("CppFunction", lambda g, ans, x: g, cpp_name="torch::autograd::Identity")


def fw_primal(x):
    """``unpack_dual(x).primal``: a view of all of ``x``, whose node PyTorch prints as ``Identity``."""
    return _view_of(record(FW_PRIMAL, (x,), x._data.view()), x)


def contiguous(x, memory_format=None):
    return x if x._data.flags.c_contiguous else clone(x)


def to_dtype(x, dt, copy=False):
    npd = np.dtype(_dtypes.to_numpy_dtype(dt))
    if x._data.dtype == npd and not copy:
        return x
    d = x._data
    if d.dtype.kind == "f" and npd.kind in "iu" and npd.itemsize < 4:
        # (through int64, so that out-of-range values wrap as on PyTorch's x86 builds, in Pyodide too)
        d = _quietly(d.astype, np.int64)
    return record(TO_COPY, (x,), _quietly(d.astype, npd))  # (nan to an integer, or past half's range: silently)


def flip(input, dims):
    need_tensor("flip", "input", 1, input)
    if isinstance(dims, int):  # (the method takes ints: Tensor.flip)
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    given, dims = dims, norm_dims(dims, input._data.ndim)
    return _given(record(FLIP, (input,), np.flip(input._data, dims).copy(), {"dims": dims}), dims=given)


def _embed(g, shape, index):
    """Zeros of ``shape`` with ``g`` added at ``index``: the backward of every indexing op."""
    return record(EMBED, (g,), _embed_np(g._data, shape, index), {"index": index})


def _embed_np(gd, shape, index):
    out = np.zeros(shape, dtype=gd.dtype)
    np.add.at(out, index, gd)
    return out


def _view_backward(op, g, shape, index, dim=None):
    """Zeros of ``shape`` with ``g`` put at the basic ``index``: the backward of select and slice, an
    op of its own (SelectBackwardBackward0, SliceBackwardBackward0) as in PyTorch. ``dim``: the dim
    as given, where the index's position does not tell it (a negative one)."""
    return record(op, (g,), _put_np(g._data, shape, index), {"index": index} if dim is None else
                  {"index": index, "dim": dim})


def _put_np(gd, shape, index):
    out = np.zeros(shape, dtype=gd.dtype)
    out[index] = gd
    return out


def _index_backward(g, shape, index):
    """PyTorch's index_backward: the grad put into zeros of ``shape`` at an advanced ``index``,
    accumulating (IndexPutImplBackward0 over the zeros, which need no grad, and ``g``)."""
    zeros = _wrap(np.zeros(shape, dtype=g._data.dtype))
    return record(INDEX_PUT_IMPL, (zeros, g), _embed_np(g._data, shape, index), {"index": index, "accumulate": True})


EMBED = defop("IndexPutBackward0", lambda g, ans, x, index: getitem_np(g, index), keeps=True)
# (``dim``: as given, when negative: each node keeps it so, and hands it on to the next one's)
SELECT_BACKWARD = defop("SelectBackwardBackward0", lambda g, ans, grad, index, dim=None:
                        select(g, len(index) - 1 if dim is None else dim, index[-1]))
SLICE_BACKWARD = defop("SliceBackwardBackward0", lambda g, ans, grad, index, dim=None:
                       _slice(g, len(index) - 1, index[-1], dim))
SELECT = defop("SelectBackward0", lambda g, ans, x, index, dim=None:
               _view_backward(SELECT_BACKWARD, g, x.shape, index, dim))
SLICE = defop("SliceBackward0", lambda g, ans, x, index, dim=None:
              _view_backward(SLICE_BACKWARD, g, x.shape, index, dim))
INDEX = defop("IndexBackward0", lambda g, ans, x, index: _index_backward(g, x.shape, index), keeps=True)
COPY_SLICES = defop("CopySlices", lambda g, ans, x, v, index: _zero_at(g, index),
                    lambda g, ans, x, v, index: sum_to(getitem_np(g, index), v.shape), cpp_name="torch::autograd::CopySlices")
FILL_TENSOR = defop("FillBackward3", lambda g, ans, x, v: _zero_grad(g), lambda g, ans, x, v: sum(g))
INDEX_PUT = defop("IndexPutBackward0",
                  lambda g, ans, x, v, index, accumulate=False: g if accumulate else _zeros_at(g, index, v),
                  lambda g, ans, x, v, index, accumulate=False: sum_to(getitem_np(g, index), v.shape), keeps=True)
INDEX_PUT_IMPL = defop("IndexPutImplBackward0", *INDEX_PUT.vjps, keeps=True)
MASKED_FILL = defop("MaskedFillBackward0", lambda g, ans, x, mask: masked_fill(g, mask, 0.0), keeps=True)
MASKED_FILL_VALUE = defop("MaskedFillBackward1", lambda g, ans, x, v, mask: masked_fill(g, mask, 0.0),
                          lambda g, ans, x, v, mask: sum(masked_select(g, mask)), keeps=True)
# (the grad: zeros with g added at the gathered places, by scatter_add as PyTorch's gather_backward)
GATHER = defop("GatherBackward0", lambda g, ans, x, dim, index: scatter_add(_zeros(x.shape, g), dim, _wrap(index), g),
               saves=(0,))  # (PyTorch saves self too: a later in-place change to it is an error at backward)
# (PyTorch's index_select_backward: index_add into zeros, so a double backward shows IndexAddBackward0)
INDEX_SELECT = defop("IndexSelectBackward0",
                     lambda g, ans, x, dim, index: index_add(_zeros(x.shape, g), dim, _wrap(index), g), keeps=True)


def _zeros_at(g, index, values):
    """``g`` with zeros put at ``index``, as index_put records it (zeros shaped as ``values``, or 0-d for a number)."""
    out = g._data.copy()
    out[index] = 0
    zeros = _wrap(np.zeros(getattr(values, "shape", ()), dtype=out.dtype))
    return record(INDEX_PUT, (g, zeros), out, {"index": index})


def _zero_at(g, index):
    mask = np.ones(g._data.shape, dtype=bool)
    mask[index] = False
    return g * _wrap(mask)


def getitem_np(x, index):
    """Differentiable ``x[index]`` for an index already converted to NumPy form."""
    return _view_of(record(INDEX, (x,), x._data[index], {"index": index}), x) if _is_basic(index) else \
        record(INDEX, (x,), x._data[index], {"index": index})


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return builtins.all(i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in items)


_SEQUENCE_INDEX = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:{}.)")


_NO_PART = object()


def _index_items(index):
    """An index's parts in NumPy form. A short list holding a tensor, sequence, slice, None or ``...``
    is still read as a tuple, with PyTorch's deprecation warning (x[[0, None]] is x[0, None])."""
    parts = index if type(index) is tuple else (index,)
    if type(index) is list and len(index) < 32:
        first = next((i for i in index if i is None or i is Ellipsis
                      or isinstance(i, (Tensor, list, tuple, slice, np.ndarray))), _NO_PART)
        if first is not _NO_PART:
            warnings.warn(_SEQUENCE_INDEX.format(359 if first is None or first is Ellipsis else 349), UserWarning,
                          stacklevel=3)
            parts = tuple(index)
    return tuple(_index_item(i) for i in parts)


def _index_item(i):
    if isinstance(i, Tensor) and i._data.ndim == 0 and i._data.dtype.kind in "iu":
        return int(i._data)  # a 0-d integer tensor indexes like an int (SelectBackward0)
    if isinstance(i, Tensor):
        if i._data.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if i._data.dtype == np.uint8:  # a byte tensor is a mask, as it was before bool tensors existed
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                          "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)",
                          UserWarning, stacklevel=4)
            return i._data.astype(bool)
        return i._data
    if isinstance(i, (list, np.ndarray)):
        arr = np.asarray([v.item() if isinstance(v, Tensor) else v for v in i] if isinstance(i, list) else i)
        if arr.dtype.kind == "f":  # a list or array of floats is read as long (PyTorch's indexing_tensor_from_data)
            arr = arr.astype(np.int64)
        return int(arr) if arr.ndim == 0 and arr.dtype.kind in "iu" else arr
    if isinstance(i, (bool, np.bool_)):
        return np.asarray(i)
    if isinstance(i, (int, np.integer)):
        return int(i)
    if i is None or i is Ellipsis or isinstance(i, slice):
        if isinstance(i, slice):
            i = slice(*(int(v) if isinstance(v, Tensor) else v for v in (i.start, i.stop, i.step)))
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
            return i
        return i
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got "
        f"{type(i).__name__})")


def getitem(x, index):
    """``x[index]``: basic indexing becomes a chain of Select/Slice/Unsqueeze nodes, as in PyTorch;
    anything with an integer or boolean tensor becomes one IndexBackward0 node."""
    items = _index_items(index)
    if not _is_basic(items):
        basic, rest = _split_advanced(items, x._data.ndim)
        if _acts(basic):
            # x[0, :, [1, 2]] is x[0][:, [1, 2]] in PyTorch: IndexBackward0 over SelectBackward0, and
            # the shape the view gives (NumPy would move the broadcast dims first).
            return getitem(getitem(x, basic), rest)
        _check_indices(x._data.shape, rest)
        return record(INDEX, (x,), x._data[rest], {"index": rest})
    consumed = builtins.sum(1 for i in items if i is not None and i is not Ellipsis)
    nd = x._data.ndim
    if consumed and not nd:  # loss.data[0], from pre-0.4 code, gets PyTorch's hint
        first = next(i for i in items if i is not None and i is not Ellipsis)
        if isinstance(first, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if consumed > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out, dim, acted = x, 0, False
    for i in items:
        if i is Ellipsis:
            dim += nd - consumed
        elif i is None:
            out, acted = unsqueeze(out, dim), True
            dim += 1
        elif isinstance(i, int):
            size = out._data.shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
            out, acted = select(out, dim, i), True
        else:
            if i != slice(None):
                out, acted = _slice(out, dim, i), True
            dim += 1
    if not acted:  # x[:] is a slice all the same; x[...] or x[:, :] an alias
        out = _slice(out, 0, slice(None)) if type(index) is slice else alias(x)
    return out


def select(input, dim, index):
    need_tensor("select", "input", 1, input)
    nd = input._data.ndim
    given, dim = dim, norm_dims(dim, nd)[0]
    size = input._data.shape[dim]
    if not -size <= int(index) < size:
        raise IndexError(
            f"select(): index {int(index)} out of range for tensor of size {list(input._data.shape)} at dimension {dim}")
    idx = (slice(None),) * dim + (int(index),)
    # (the Ellipsis makes an element of a 1-d tensor a 0-d view, not a copy, so writes reach x)
    attrs = {"index": idx} if given == dim else {"index": idx, "dim": given}
    return _view_of(record(SELECT, (input,), input._data[idx + (...,)], attrs), input)


def _slice(x, dim, sl, given=None):
    """``x[..., sl]`` along ``dim``; ``given``: that dim as given, which the node keeps (see SLICE)."""
    idx = (slice(None),) * dim + (sl,)
    attrs = {"index": idx} if given is None or given == dim else {"index": idx, "dim": given}
    return _view_of(record(SLICE, (x,), x._data[idx], attrs), x)


def _cpp_slice(x, dim, start, end=None):
    """C++'s ``x.slice(dim, start, end)`` inside PyTorch's composites: its node keeps the dim and the
    end as given (None when left out, where Python's ``x[1:]`` keeps INT64_MAX)."""
    return _given(_slice(x, norm_dims(dim, x._data.ndim)[0], slice(start, end), dim), end=end)


def narrow(input, dim, start, length):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("narrow", input, dim, start, length)
    given, dim = dim, norm_dims(dim, input._data.ndim)[0]
    start, size = int(start), input._data.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(input, dim, slice(start, start + length), given)


def index_select(input, dim, index):
    need_tensor("index_select", "input", 1, input)
    given, dim = dim, norm_dims(dim, input._data.ndim)[0]
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    idx = idx.reshape(-1)  # a 0-d index selects one slice, keeping the dim
    n = input._data.shape[dim] if input._data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        # (PyTorch's CPU kernel checks dim 1 of a matrix or more in its own loop, with its own message)
        if input._data.ndim > 1 and n == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if dim == 1 and input._data.ndim > 1:
            bad = int(idx[((idx < 0) | (idx >= n)).argmax()])
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    # (np.take wants intp indices: 32 bits in Pyodide)
    out = record(INDEX_SELECT, (input,), np.take(input._data, idx.astype(np.intp), axis=dim), {"dim": dim, "index": idx})
    return _given(out, dim=given) if given != dim else out


def masked_fill(input, mask, value):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("masked_fill", input, mask, value)
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_CPP_TYPE_NAMES[m.dtype.name]}")
    if not isinstance(value, Tensor):
        return record(MASKED_FILL, (input,), np.where(m, np.asarray(value, dtype=input._data.dtype), input._data), {"mask": mask})
    if value._data.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    # A tensor value gets a grad too: the sum of the grad where the mask is set (MaskedFillBackward1)
    out = np.where(m, value._data.astype(input._data.dtype), input._data)
    return record(MASKED_FILL_VALUE, (input, value), out, {"mask": mask if isinstance(mask, Tensor) else _wrap(m)})


def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j][k] = x[index[i][j][k]][j][k]`` (for dim 0): the result has the index's shape, which
    may be smaller than ``x`` but never larger (NumPy's take_along_axis would broadcast it)."""
    need_tensor("gather", "input", 1, input)
    if type(index) is not Tensor:
        need_tensor("gather", "index", 3, index)
    d = input._data
    given, dim = dim, norm_dims(dim, d.ndim)[0] if d.ndim else 0
    idx = index._data
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if builtins.max(idx.ndim, 1) != builtins.max(d.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    shape = d.shape or (1,)
    for k, n in enumerate(idx.shape):
        if k != dim and n > shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no larger "
                               f"than self {list(d.shape)} apart from dimension {dim}")
    bad = idx[(idx < 0) | (idx >= shape[dim])]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {dim} with size {shape[dim]}")
    out = d.reshape(shape)[_along(idx, dim)].reshape(idx.shape) if idx.size else np.empty(idx.shape, d.dtype)
    out = record(GATHER, (input,), out, {"dim": dim, "index": idx})
    return _given(out, dim=given) if given != dim else out


def _along(index, dim):
    """The NumPy index that picks, at each position of ``index``, the element ``index`` names along ``dim``."""
    if not index.ndim:
        return index.reshape(1)
    at = list(np.indices(index.shape, sparse=True))
    at[dim] = index
    return tuple(at)


def _zeros(shape, like):
    """Zeros of ``shape`` in ``like``'s dtype: what the grads that scatter into zeros start from."""
    return _wrap(np.zeros(shape, dtype=like._data.dtype))


def _setitem_value(v, target, basic):
    """The value as PyTorch's setitem passes it on: leading 1s viewed away when the shapes differ,
    then expanded for a copy (so a broadcast value shows ViewBackward0 / ExpandBackward0)."""
    shape = v._data.shape
    stripped = shape[next((k for k, s in enumerate(shape) if s != 1), len(shape)):]
    if not basic:  # index_put_ takes the value with its leading 1s viewed away
        v = view(v, stripped) if stripped != shape else v
        if not _broadcastable(v._data.shape, target) or np.broadcast_shapes(v._data.shape, target) != target:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(v._data.shape)} cannot be broadcast to indexing "
                               f"result of shape {list(target)}")
        return v
    if shape == target:
        return v
    v = view(v, stripped)
    return expand(v, target) if v._data.shape != target else v


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _indexed_shape(x, items):
    """The shape ``x[items]`` has, and the IndexError for an out-of-range tensor index, which PyTorch
    reports only after checking the value's shape."""
    try:
        return x._data[items].shape, None
    except IndexError as e:
        error = IndexError(str(e).replace("axis", "dimension"))
    safe = tuple(np.zeros_like(i) if isinstance(i, np.ndarray) and i.dtype != np.bool_ else i for i in items)
    try:
        return x._data[safe].shape, error
    except IndexError:
        raise error from None


def _split_advanced(items, ndim):
    """PyTorch's applySlicing: ints, slices, None and ``...`` make a view first, then the tensor indices
    address that view's dims, a k-dim mask k of them. True and False add a dim, indexed by [0] or []."""
    consumed = builtins.sum(_dims_indexed(i) for i in items)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic, rest, dim, covered = [], [], 0, 0  # covered: the view's dims that rest reaches
    for i in items:
        if i is Ellipsis:
            basic.append(i)
            dim += ndim - consumed
        elif isinstance(i, int):
            basic.append(i)
        elif i is None or isinstance(i, slice):
            basic.append(i)
            dim += 1
        else:
            k = _dims_indexed(i)
            if i.ndim == 0:  # a bool
                basic.append(None)
                i, k = np.zeros(1 if i else 0, dtype=np.int64), 1
            else:
                basic += [slice(None)] * k
            rest += [slice(None)] * (dim - covered) + [i]
            dim += k
            covered = dim
    return tuple(basic), tuple(rest)


def _dims_indexed(i):
    if i is None or i is Ellipsis:
        return 0
    if isinstance(i, np.ndarray):
        return i.ndim if i.dtype == np.bool_ else 1
    return 1


def _check_indices(shape, index):
    """PyTorch's checks of an index of full slices and tensors, with its messages: each mask's shape,
    the tensors broadcasting together, each index within its dim (the first bad one in the order
    PyTorch's kernel meets them: by result element, then by index)."""
    arrays, dim = [], 0
    for i in index:
        if isinstance(i, slice):
            dim += 1
        elif i.dtype == np.bool_:
            for j, n in enumerate(i.shape):
                if n != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(i.shape)} at index {j} does not match the shape of "
                                     f"the indexed tensor {list(shape)} at index {dim + j}")
            dim += i.ndim
            arrays += [(None, a) for a in np.nonzero(i)]
        else:
            arrays.append((shape[dim], i))
            dim += 1
    try:
        common = np.broadcast_shapes(*(a.shape for _, a in arrays))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for _, a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") from None
    if not builtins.all(shape):
        return
    bad = [np.broadcast_to((a < -n) | (a >= n), common) for n, a in arrays if n is not None]
    if builtins.any(b.any() for b in bad):
        sizes = [(n, a) for n, a in arrays if n is not None]
        first = np.argmax(np.stack(bad, -1).reshape(-1))
        k = first % len(bad)
        n, a = sizes[k]
        value = np.broadcast_to(a, common).reshape(-1)[first // len(bad)]
        position = [p for p, (m, _) in enumerate(arrays) if m is not None][k]
        raise IndexError(f"index {value} is out of bounds for dimension {position} with size {n}")


def _acts(basic):
    """Whether the basic part of an index makes a view node (a full ``:`` or ``...`` does not)."""
    return builtins.any(i is None or isinstance(i, int) or isinstance(i, slice) and i != slice(None) for i in basic)


def setitem(x, index, value):
    """``x[index] = value``: in place, recorded as ``CopySlices`` (or ``IndexPutBackward0`` for
    tensor indices) when gradients flow, like PyTorch."""
    items = _index_items(index)
    trivial = builtins.all(i is Ellipsis or isinstance(i, slice) and i == slice(None) for i in items)
    if _grad_mode._enabled and x._no_grad_view and x._requires_grad:
        basic = items if _is_basic(items) else _split_advanced(items, x._data.ndim)[0]
        if _acts(basic):  # PyTorch writes through a view of it: its error names that view's op
            getitem(x, basic)._check_inplace()
    if _grad_mode._enabled and x._requires_grad and x._grad_fn is None and not x._no_grad_view:
        # PyTorch writes through a view unless the index selects the whole tensor or is only advanced.
        view = builtins.any(i is None or isinstance(i, (int, slice)) and i != slice(None) for i in items)
        raise RuntimeError(_VIEW_LEAF_INPLACE if view and not trivial else _LEAF_INPLACE)
    x._check_inplace()
    if not _is_basic(items):
        basic, rest = _split_advanced(items, x._data.ndim)
        if _acts(basic):
            setitem(getitem(x, basic), rest, value)  # index_put_ on a view: CopySlices on x
            return x
    v = as_tensor_arg(value)
    target, index_error = (x._data.shape, None) if trivial else _indexed_shape(x, items)
    if isinstance(v, Tensor) and v._data.ndim:
        v = _setitem_value(v, target, _is_basic(items))
    if index_error is not None:
        raise index_error
    vdata = _np_of(v)
    if trivial and isinstance(v, Tensor) and v._data.ndim:
        return x.copy_(v)
    if _grad_mode._enabled and (x._requires_grad or isinstance(v, Tensor) and v._requires_grad) or \
            has_tangent(x, v):
        src = _wrap(x._data, x._requires_grad)
        src._grad_fn, src._output_nr, src._fw_grad = x._grad_fn, x._output_nr, x._fw_grad
        if trivial and (not isinstance(v, Tensor) or v._data.ndim == 0):
            return x._adopt(record(FILL_TENSOR, (src, v), np.full(x._data.shape, vdata, dtype=x._data.dtype)))
        new = x._data.copy()
        new[items] = vdata
        op = COPY_SLICES if _is_basic(items) else INDEX_PUT
        return x._adopt(record(op, (src, v), new, {"index": items}))
    x._data[items] = vdata
    x._bump()
    return x


# ----- Joining and splitting -----

CAT = None  # defined with per-input rules at call time (one rule per input)


def _cat_op(n):
    return _CAT_OPS.setdefault(n, defop("CatBackward0", *[
        (lambda i: lambda g, ans, *xs, dim, sizes: narrow(g, dim, builtins.sum(sizes[:i]), sizes[i]))(i)
        for i in range(n)]))


def _stack_op(n):
    return _STACK_OPS.setdefault(n, defop("StackBackward0", *[
        (lambda i: lambda g, ans, *xs, dim: select(g, dim, i))(i) for i in range(n)]))


_CAT_OPS, _STACK_OPS = {}, {}


def cat(tensors, dim=0):
    tensors = [as_tensor_arg(x) for x in tensors]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, x in enumerate(tensors):
        if x._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    nd = tensors[0]._data.ndim
    given, dim = dim, norm_dims(dim, nd)[0] if nd else 0
    ref = tensors[0]._data.shape
    for k, x in enumerate(tensors[1:], 1):
        s = x._data.shape
        if len(s) != len(ref):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}")
        for a in range(len(ref)):
            if a != dim and s[a] != ref[a]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {ref[a]} but got size {s[a]} for tensor number {k} in the list.")
    dt = _dtypes.result_type(*tensors).np
    out = np.concatenate([x._data.astype(dt, copy=False) for x in tensors], axis=dim)
    sizes = tuple(x._data.shape[dim] for x in tensors)
    out = record(_cat_op(len(tensors)), tuple(tensors), out, {"dim": dim, "sizes": sizes})
    return _given(out, dim=given) if given != dim else out


concat = concatenate = cat


def stack(tensors, dim=0):
    tensors = [as_tensor_arg(x) for x in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._data.shape
    nd = len(ref) + 1
    given, dim = dim, norm_dims(dim, nd)[0]
    for k, x in enumerate(tensors[1:], 1):
        if x._data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and {list(x._data.shape)} at entry {k}")
    dt = _dtypes.result_type(*tensors).np
    out = np.stack([x._data.astype(dt, copy=False) for x in tensors], axis=dim)
    out = record(_stack_op(len(tensors)), tuple(tensors), out, {"dim": dim})
    return _given(out, dim=given) if given != dim else out


def _split_grad(gs, ans, x, dim, sizes):
    parts = []
    for g, n in zip(gs, sizes):
        if g is None:
            shape = list(x.shape)
            shape[dim] = n
            g = _wrap(np.zeros(shape, dtype=x.dtype.np))
        parts.append(g)
    return cat(parts, dim)


def _unbind_grad(gs, ans, x, dim):
    shape = list(x.shape)
    del shape[dim]
    return stack([g if g is not None else _wrap(np.zeros(shape, dtype=x.dtype.np)) for g in gs], dim)


UNBIND = defop("UnbindBackward0", _unbind_grad, outputs=None)
SPLIT = defop("SplitBackward0", _split_grad, outputs=None)
SPLIT_SIZES = defop("SplitWithSizesBackward0", _split_grad, outputs=None)
UNSAFE_SPLIT = defop("UnsafeSplitBackward0", _split_grad, outputs=None)
UNSAFE_SPLIT_SIZES = defop("UnsafeSplitWithSizesBackward0", _split_grad, outputs=None)


class _AllOutputs:
    def __contains__(self, i):
        return True


for _op in (UNBIND, SPLIT, SPLIT_SIZES, UNSAFE_SPLIT, UNSAFE_SPLIT_SIZES):
    _op.differentiable_outputs = _AllOutputs()

# A result of one part is recorded as a single output (record's multi-output path needs two or more) by
# a twin of the op, PyTorch's node all the same, whose rule gets that output's grad in a list.
_ONE_PART = {op: defop(op.node_cls.__name__, (lambda rule: lambda g, ans, x, **attrs: rule([g], ans, x, **attrs))(
    op.vjps[0])) for op in (UNBIND, SPLIT, SPLIT_SIZES, UNSAFE_SPLIT, UNSAFE_SPLIT_SIZES)}


def _record_parts(op, x, parts, attrs):
    if len(parts) == 1:
        return (record(_ONE_PART[op], (x,), parts[0], attrs),)
    return record(op, (x,), parts, attrs, n_outputs=len(parts))


def unbind(input, dim=0):
    need_tensor("unbind", "input", 1, input)
    d = input._data
    given, dim = dim, norm_dims(dim, d.ndim)[0]
    parts = tuple(d[(slice(None),) * dim + (i,)] for i in range(d.shape[dim]))  # views, as in PyTorch
    outs = _given(_record_parts(UNBIND, input, parts, {"dim": dim}), dim=given)
    for o in outs:
        _view_of(o, input)
    return outs


def split(tensor, split_size_or_sections, dim=0, unsafe=False):
    """``unsafe``: unsafe_split's parts, which are not views (an in-place op on one is no view's)."""
    d = tensor._data
    given, dim = dim, norm_dims(dim, d.ndim)[0]
    n = d.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        step = step or 1
        sizes = [builtins.min(step, n - i) for i in range(0, n, step)] or [0]
        op = UNSAFE_SPLIT if unsafe else SPLIT
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {dim}), but got split_sizes={sizes}")
        op = UNSAFE_SPLIT_SIZES if unsafe else SPLIT_SIZES
    bounds = np.cumsum([0] + sizes)
    parts = tuple(d[(slice(None),) * dim + (slice(bounds[i], bounds[i + 1]),)] for i in range(len(sizes)))
    if unsafe:
        parts = tuple(p.copy() for p in parts)
    outs = _record_parts(op, tensor, parts, {"dim": dim, "sizes": tuple(sizes)})
    _given(outs, dim=given, split_size=split_size_or_sections)
    if not unsafe:
        for o in outs:
            _view_of(o, tensor)
    return outs


def _chunk_size(x, chunks, dim):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = x._data.shape[norm_dims(dim, x._data.ndim)[0]]
    return -(-n // chunks) or 1  # (a dim of size 0: one empty chunk, as PyTorch splits it)


def chunk(input, chunks, dim=0):
    need_tensor("chunk", "input", 1, input)
    return split(input, _chunk_size(input, chunks, dim), dim)


def unsafe_split(input, split_size, dim=0):
    need_tensor("unsafe_split", "input", 1, input)
    return split(input, split_size, dim, unsafe=True)


def unsafe_chunk(input, chunks, dim=0):
    need_tensor("unsafe_chunk", "input", 1, input)
    return split(input, _chunk_size(input, chunks, dim), dim, unsafe=True)



WHERE = defop("WhereBackward0", lambda g, ans, a, b, cond: where(cond, g, 0.0),
              lambda g, ans, a, b, cond: where(cond, 0.0, g), keeps=True)


def where(condition, input=None, other=None):
    if type(condition) is not Tensor and not isinstance(condition, (Tensor, np.ndarray)):  # (rules pass arrays)
        raise tensor_expected("where", "condition", 1, condition)
    if input is None and other is None:
        return tuple(_wrap(i.astype(np.int64)) for i in np.nonzero(condition._data))
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    a, b = as_tensor_arg(input), as_tensor_arg(other)
    dt = _result_np_dtype(a, b)
    da, db = _np_of(a), _np_of(b)
    try:
        out = np.where(cond, da, db).astype(dt, copy=False)
    except ValueError:  # PyTorch's message: the condition against input, then against other
        _broadcast_checked(_broadcast_checked(np.shape(cond), np.shape(da)), np.shape(db))
        raise
    return record(WHERE, (a, b), out, {"cond": cond if isinstance(condition, Tensor) else condition})


def nonzero(input, *, as_tuple=False):
    need_tensor("nonzero", "input", 1, input)
    idx = np.nonzero(input._data)
    if as_tuple:
        return tuple(_wrap(i.astype(np.int64)) for i in idx)
    return _wrap(np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((0, 0), np.int64))


# ----- Losses (torch.nn.functional), each one node as in PyTorch -----

def _reduce(loss, reduction):
    if reduction == "mean":
        return mean_reduce(loss)
    if reduction == "sum":
        return np.asarray(add_reduce(loss), dtype=loss.dtype)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _bce_logits_grad_x(g, ans, x, y, weight=None, pos_weight=None, reduction="mean"):
    if pos_weight is None:
        d = sigmoid(x) - y
    else:
        t = pos_weight * y
        d = (_add_scalar(t, 1) - y) * sigmoid(x) - t
    return _weigh_and_reduce(d * g, weight, x, reduction)


def _bce_logits_grad_y(g, ans, x, y, weight=None, pos_weight=None, reduction="mean"):
    d = neg(x) if pos_weight is None else logsigmoid(neg(x)) - logsigmoid(x) * pos_weight
    return _weigh_and_reduce(d * g, weight, y, reduction)


def _weigh_and_reduce(r, weight, x, reduction):
    # The tail of PyTorch's binary_cross_entropy_with_logits backward kernels.
    if weight is not None:
        r = r * weight
    return _div_scalar(r, x.numel()) if reduction == "mean" else r


BCE_LOGITS = defop("BinaryCrossEntropyWithLogitsBackward0", _bce_logits_grad_x, _bce_logits_grad_y, saves=(0, 1))
BCE = defop("BinaryCrossEntropyBackward0",
            lambda g, ans, p, y, weight=None, reduction="mean": binary_cross_entropy_backward(g, p, y, weight, reduction),
            lambda g, ans, p, y, weight=None, reduction="mean":
            _weigh_and_reduce(neg(_logit(p)) * g, weight, y, reduction),
            saves=(0, 1))
BCE_BACKWARD = defop("BinaryCrossEntropyBackwardBackward0",
                     lambda g, ans, grad_output, p, y, weight, reduction: _bce_grad_grad_output(g, p, y, weight, reduction),
                     lambda g, ans, grad_output, p, y, weight, reduction: _bce_grad_p(grad_output, g, p, y, weight, reduction),
                     lambda g, ans, grad_output, p, y, weight, reduction: _bce_grad_y(g, grad_output, p, y, weight, reduction),
                     saves=(0, 1, 2))


LOGIT = defop("LogitBackward0", lambda g, ans, x, eps=None: _logit_grad(g, x, eps), saves=(0,))


def _logit(p):
    return record(LOGIT, (p,), _quietly(lambda: np.log(p._data / (1 - p._data))))


def _binary_cross_entropy_backward(go, x, t, weight, reduction):
    """PyTorch's kernel: ``grad * (p - y) / max(p * (1 - p), 1e-12)``, weighted, over N for "mean"."""
    r = go * (x - t) / np.maximum((1 - x) * x, x.dtype.type(1e-12))
    if weight is not None:
        r = r * _np_of(weight)
    return (r / x.size if reduction == "mean" else r).astype(x.dtype, copy=False)


def binary_cross_entropy_backward(grad_output, p, y, weight, reduction):
    return _backward_kernel(BCE_BACKWARD, _binary_cross_entropy_backward, (grad_output, p, y),
                            {"weight": weight, "reduction": reduction})


# Its own rules, from PyTorch's binary_cross_entropy_double_backward* (eps keeps 0 and 1 finite).
def _bce_grad_grad_output(g, p, y, weight, reduction):
    r = (p - y) / (_add_scalar(p, 1e-12) * _add_scalar(_rsub_scalar(1, p), 1e-12)) * g
    return _weigh_and_reduce(r, weight, p, reduction)


def _bce_grad_p(grad_output, g, p, y, weight, reduction):
    r = (p * p - _mul_scalar(p, 2) * y + y) / (pow(_add_scalar(p, 1e-12), 2) * pow(_add_scalar(_rsub_scalar(1, p), 1e-12), 2))
    return _weigh_and_reduce(r * (g * grad_output), weight, p, reduction)


def _bce_grad_y(g, grad_output, p, y, weight, reduction):
    r = neg(g) * grad_output
    if weight is not None:
        r = r * weight
    r = r / _wrap(np.maximum((1 - p._data) * p._data, p._data.dtype.type(1e-12)))
    return _div_scalar(r, y.numel()) if reduction == "mean" else r


MSE = defop("MseLossBackward0",
            lambda g, ans, a, b, reduction="mean": mse_loss_backward(g, a, b, reduction),
            lambda g, ans, a, b, reduction="mean": mse_loss_backward(g, b, a, reduction),
            saves=(0, 1))
MSE_BACKWARD = defop("MseLossBackwardBackward0",
                     lambda g, ans, grad_output, a, b, reduction: mse_loss_backward(g, a, b, reduction),
                     lambda g, ans, grad_output, a, b, reduction: _mse_double_backward(g * grad_output, a, reduction),
                     lambda g, ans, grad_output, a, b, reduction: neg(_mse_double_backward(g * grad_output, b, reduction)),
                     saves=(0, 1, 2))


def _mse_loss_backward(go, x, y, reduction):
    """PyTorch's kernel: ``2 * (a - b) * grad``, over the element count for "mean"."""
    norm = x.dtype.type(2.0)
    if reduction == "mean":
        norm = x.dtype.type(2.0 / math.prod(np.broadcast_shapes(x.shape, np.shape(y))))
    return norm * (x - y) * go


def mse_loss_backward(grad_output, a, b, reduction):
    return _backward_kernel(MSE_BACKWARD, _mse_loss_backward, (grad_output, a, b), {"reduction": reduction})


def _mse_double_backward(g, x, reduction):
    g = _mul_scalar(g, 2)
    return _div_scalar(g, x.numel()) if reduction == "mean" else g


def _nll_ops(name):
    """``nll_loss`` (or ``nll_loss2d``) and its backward kernel, whose own rules are PyTorch's:
    ``nll_loss`` again for the incoming grad, zeros for the input."""
    forward = defop(f"{name}Backward0", lambda g, ans, x, **attrs: _nll_loss_backward(backward, g, x, **attrs),
                    saves=(0,))
    backward = defop(f"{name}BackwardBackward0",
                     lambda g, ans, grad_output, x, target, weight, ignore_index, reduction, total:
                     _nll_loss(forward, g, _wrap(target), weight, ignore_index, reduction),
                     lambda g, ans, grad_output, x, **attrs: _zero_grad(g), keeps=True)
    return forward, backward


NLL, NLL_BACKWARD = _nll_ops("NllLoss")
NLL2D, NLL2D_BACKWARD = _nll_ops("NllLoss2D")


@_quiet_op
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Numerically stable sigmoid + binary cross entropy in one node."""
    _target_sized(target)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Target size ({Size(target._data.shape)}) must be the same as input size ({Size(input._data.shape)})")
    not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    x, y = input._data, target._data.astype(input._data.dtype, copy=False)
    sp = np.logaddexp(0, -x)  # log(1 + exp(-x)) without overflow
    if pos_weight is None:
        loss = (1 - y) * x + sp
    else:
        pw = _np_of(pos_weight)
        loss = (1 - y) * x + (1 + (pw - 1) * y) * sp
    if weight is not None:
        loss = loss * _np_of(weight)
    attrs = {"weight": weight, "pos_weight": pos_weight, "reduction": reduction}
    return record(BCE_LOGITS, (input, target), _reduce(loss.astype(x.dtype, copy=False), reduction), attrs)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    _target_sized(target)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}) is deprecated. Please ensure they have the same size.")
    if isinstance(weight, Tensor):  # (F.binary_cross_entropy's expand: the node keeps the weight expanded)
        weight = expand(weight, _broadcast_checked(target._data.shape, weight._data.shape))
    not_differentiable("binary_cross_entropy", "weight", weight)
    p, y = input._data, target._data
    if ((p < 0) | (p > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        loss = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log1p(-p), -100))
    if weight is not None:
        loss = loss * _np_of(weight)
    return record(BCE, (input, target), _reduce(loss.astype(p.dtype, copy=False), reduction),
                  {"weight": weight, "reduction": reduction})


def _target_sized(target):
    # PyTorch's Python losses read target.size() first: its AttributeError for None or a list, and
    # "'int' object is not callable" for a NumPy array (whose size is an int)
    if type(target) is not Tensor and not isinstance(target, Tensor):
        target.size()


def _size_warning(input, target):
    _target_sized(target)
    if input._data.shape != target._data.shape:
        warnings.warn(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", UserWarning, stacklevel=3)
        _broadcast_checked(input._data.shape, target._data.shape)


@_quiet_op
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _size_warning(input, target)
    d = input._data - _np_of(target)
    return record(MSE, (input, target), _reduce((d * d).astype(input._data.dtype, copy=False), reduction),
                  {"reduction": reduction})


SMOOTH_L1 = defop("SmoothL1LossBackward0",
                  lambda g, ans, a, b, reduction, beta: smooth_l1_loss_backward(g, a, b, reduction, beta),
                  lambda g, ans, a, b, reduction, beta: smooth_l1_loss_backward(g, b, a, reduction, beta),
                  saves=(0, 1))
SMOOTH_L1_BACKWARD = defop(
    "SmoothL1LossBackwardBackward0",
    lambda g, ans, grad_output, a, b, reduction, beta: smooth_l1_loss_backward(g, a, b, reduction, beta),
    lambda g, ans, grad_output, a, b, reduction, beta: _smooth_l1_double_backward(g * grad_output, a, b, reduction, beta),
    lambda g, ans, grad_output, a, b, reduction, beta:
    neg(_smooth_l1_double_backward(g * grad_output, a, b, reduction, beta)),
    saves=(0, 1, 2))
HUBER = defop("HuberLossBackward0",
              lambda g, ans, a, b, reduction, delta: huber_loss_backward(g, a, b, reduction, delta),
              lambda g, ans, a, b, reduction, delta: huber_loss_backward(g, b, a, reduction, delta),
              saves=(0, 1))
HUBER_BACKWARD = defop(
    "HuberLossBackwardBackward0",
    lambda g, ans, grad_output, a, b, reduction, delta: _huber_double_backward_grad_output(g, grad_output, a, b,
                                                                                          reduction, delta),
    lambda g, ans, grad_output, a, b, reduction, delta: _huber_double_backward(g * grad_output, a, b, reduction, delta),
    lambda g, ans, grad_output, a, b, reduction, delta:
    neg(_huber_double_backward(g * grad_output, a, b, reduction, delta)),
    saves=(0, 1, 2))


def _loss_norm(x, reduction):
    return 1.0 / x.size if reduction == "mean" else 1.0


def _smooth_l1_loss_backward(go, x, y, reduction, beta):
    d = x - y
    norm = x.dtype.type(_loss_norm(x, reduction))
    return np.where(d <= -beta, -norm * go, np.where(d >= beta, norm * go, norm * d * go / beta))


def smooth_l1_loss_backward(grad_output, a, b, reduction, beta):
    return _backward_kernel(SMOOTH_L1_BACKWARD, _smooth_l1_loss_backward, (grad_output, a, b),
                            {"reduction": reduction, "beta": beta})


def _smooth_l1_double_backward(g, a, b, reduction, beta):
    r = _div_scalar(g * (abs(a - b) < beta).to(g.dtype), beta)
    return _div_scalar(r, a.numel()) if reduction == "mean" else r


def _huber_loss_backward(go, x, y, reduction, delta):
    d = x - y
    norm = x.dtype.type(_loss_norm(x, reduction))
    return np.where(d <= -delta, -norm * go * delta, np.where(d >= delta, norm * go * delta, norm * d * go))


def huber_loss_backward(grad_output, a, b, reduction, delta):
    return _backward_kernel(HUBER_BACKWARD, _huber_loss_backward, (grad_output, a, b),
                            {"reduction": reduction, "delta": delta})


def _huber_double_backward(g, a, b, reduction, delta):
    r = g * (abs(a - b) < delta)
    return _div_scalar(r, a.numel()) if reduction == "mean" else r


def _huber_double_backward_grad_output(g, grad_output, a, b, reduction, delta):
    if reduction == "none":
        return huber_loss_backward(g, a, b, reduction, delta)
    return sum(huber_loss_backward(_wrap(np.ones(grad_output.shape, grad_output.dtype.np)), a, b, reduction, delta) * g)


def _smooth_terms(input, target, reduction, cutoff, small, large):
    _size_warning(input, target)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x = input._data
    z = np.abs(x - _np_of(target).astype(x.dtype, copy=False))
    return _reduce(np.where(z < cutoff, small(z), large(z)).astype(x.dtype, copy=False), reduction)


@_quiet_op
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _target_sized(target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    out = _smooth_terms(input, target, reduction, beta, lambda z: 0.5 * z * z / beta, lambda z: z - 0.5 * beta)
    return record(SMOOTH_L1, (input, target), out, {"reduction": reduction, "beta": beta})


@_quiet_op
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _target_sized(target)
    if weight is not None:
        raise NotImplementedError("huber_loss with a weight is not available in this engine")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    out = _smooth_terms(input, target, reduction, delta, lambda z: 0.5 * z * z, lambda z: delta * (z - 0.5 * delta))
    return record(HUBER, (input, target), out, {"reduction": reduction, "delta": delta})


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _size_warning(input, target)
    loss = abs(input - target)
    return mean(loss) if reduction == "mean" else sum(loss) if reduction == "sum" else loss


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of class indices; like PyTorch, 4-D input is ``nll_loss2d`` and 3-D or
    5-D+ input is viewed as 4-D first."""
    need_tensor("nll_loss_nd", "input", 1, input)
    if type(target) is not Tensor:
        need_tensor("nll_loss_nd", "target", 2, target)
    nd = input._data.ndim
    n_in, n_tgt = (input._data.shape[0] if nd > 1 else 1), (target._data.shape[0] if target._data.ndim else 1)
    if nd == 1 and target._data.ndim == 1 and n_tgt != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {n_tgt}")
    if nd > 1 and n_in != n_tgt:
        raise ValueError(f"Expected input batch_size ({n_in}) to match target batch_size ({n_tgt}).")
    if nd == 4:
        return _nll_loss(NLL2D, input, target, weight, ignore_index, reduction)
    if nd == 3 or nd > 4:
        n, c = input._data.shape[:2]
        out_size = (n,) + input._data.shape[2:]
        if target._data.shape[1:] != input._data.shape[2:]:
            raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target._data.shape)}")
        x4 = view(contiguous(input), (n, c, 1, -1))
        out = _nll_loss(NLL2D, x4, _wrap(target._data.reshape(n, 1, -1)), weight, ignore_index, reduction)
        return view(out, out_size) if reduction == "none" else out
    return _nll_loss(NLL, input, target, weight, ignore_index, reduction)


def _nll_loss(op, input, target, weight, ignore_index, reduction):
    not_differentiable("nll_loss_forward" if op is NLL else "nll_loss2d_forward", "weight", weight)
    x, tgt = input._data, target._data
    if tgt.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_dtypes.from_numpy_dtype(tgt.dtype)._legacy[:-6]}")
    if x.ndim == 1:
        x2, t2 = x[None], tgt.reshape(1)
    elif x.ndim == 2:
        x2, t2 = x, tgt.reshape(-1)
    else:
        x2, t2 = np.moveaxis(x, 1, -1).reshape(-1, x.shape[1]), tgt.reshape(-1)
    c = x2.shape[1]
    n = len(t2)
    picked = None
    if weight is None and ignore_index < 0 and n and np.minimum.reduce(t2) >= 0:
        # The common case: no weights, no target ignored. The indexing itself rejects a target >= c
        # (the general path below then names it).
        try:
            picked = x2[np.arange(n), t2]
        except IndexError:
            pass
    if picked is None:
        out, total = _nll_checked(x2, t2, weight, ignore_index, reduction, tgt.shape)
    else:
        total = n
        if reduction == "none":
            out = np.negative(picked).reshape(tgt.shape)
        else:
            s = nll_reduce(np.negative(picked), n)
            out = np.array(s / x.dtype.type(n) if reduction == "mean" else s, dtype=x.dtype)
    attrs = {"target": tgt, "weight": weight, "ignore_index": ignore_index, "reduction": reduction, "total": total}
    return record(op, (input,), out, attrs)


def _nll_checked(x2, t2, weight, ignore_index, reduction, out_shape):
    """nll_loss's output and total weight in general: weights, ignored targets, targets checked."""
    dt = x2.dtype
    valid = t2 != ignore_index
    every = np.logical_and.reduce(valid)
    tv = t2 if every else t2[valid]
    if tv.size and (np.minimum.reduce(tv) < 0 or np.maximum.reduce(tv) >= x2.shape[1]):
        bad = tv[(tv < 0) | (tv >= x2.shape[1])][0]
        raise IndexError(f"Target {bad} is out of bounds.")
    kept = None if every else np.flatnonzero(valid)
    rows = np.arange(len(t2)) if every else kept
    picked = x2[rows, tv]
    if weight is None:
        total = len(tv)
    else:
        w = _np_of(weight)[tv].astype(dt)
        picked = picked * w
        total = nll_reduce(w, len(t2), kept)
    if reduction == "none":
        out = np.zeros(len(t2), dt)
        out[rows] = -picked
        return out.reshape(out_shape), total
    s = nll_reduce(np.negative(picked), len(t2), kept)
    mean = _quietly(np.divide, s, dt.type(total)) if reduction == "mean" else s  # (every target ignored: nan)
    return np.asarray(mean, dtype=dt), total


def _nll_backward(go, x, target, weight, ignore_index, reduction, total):
    shape = x.shape
    c = shape[1] if len(shape) > 1 else shape[0]
    t2 = target.reshape(-1)
    n = len(t2)
    dt = x.dtype
    g = go / dt.type(total) if reduction == "mean" else go if reduction == "sum" else go.reshape(-1)
    grad = np.zeros((n, c), dtype=dt)  # -weight * g at each target, as PyTorch's kernel writes it
    if weight is None and total == n:  # no target ignored (the forward's total counts them)
        grad[np.arange(n), t2] = np.negative(g)
    else:
        rows = np.flatnonzero(t2 != ignore_index)  # (an ignored target's row keeps its zeros, even for a nan grad)
        kept, g = t2[rows], (g[rows] if np.ndim(g) else g)
        grad[rows, kept] = -g if weight is None else -_np_of(weight)[kept] * g
    if len(shape) == 1:
        return grad.reshape(shape)
    if len(shape) > 2:
        return np.ascontiguousarray(np.moveaxis(grad.reshape((shape[0],) + tuple(shape[2:]) + (c,)), -1, 1))
    return grad


def _nll_loss_backward(op, grad_output, x, target, weight, ignore_index, reduction, total):
    attrs = {"target": target, "weight": weight, "ignore_index": ignore_index, "reduction": reduction, "total": total}
    return _backward_kernel(op, _nll_backward, (grad_output, x), attrs)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """``log_softmax`` then ``nll_loss``, or PyTorch's composite graphs for class probabilities
    (a target shaped like the input) and for label smoothing."""
    need_tensor("cross_entropy_loss", "input", 1, input)
    if type(target) is not Tensor:
        need_tensor("cross_entropy_loss", "target", 2, target)
    cdim = 0 if input._data.ndim == 1 else 1
    logp = log_softmax(input, cdim)
    if target._data.shape == input._data.shape:
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, cdim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return nll
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    n_classes = input._data.shape[cdim]
    ignore = target._data == ignore_index
    if weight is not None:
        shape = [1] * logp._data.ndim
        shape[cdim] = n_classes
        smooth = neg(sum(logp * view(weight, shape), cdim))
    else:
        smooth = neg(sum(logp, cdim))
    smooth = masked_fill(smooth, _wrap(ignore), 0.0)
    if reduction == "mean":
        if weight is not None:
            denom = _wrap(np.asarray(_np_of(weight)[target._data[~ignore]].sum()))
        else:
            denom = _wrap(np.asarray((~ignore).sum(), dtype=np.int64))
        smooth = div(sum(smooth), denom)
    elif reduction == "sum":
        smooth = sum(smooth)
    return add(_mul_scalar(nll, 1 - label_smoothing), _mul_scalar(smooth, label_smoothing / n_classes))


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, cdim):
    if target._data.dtype.kind != "f":
        name = _dtypes.from_numpy_dtype(target._data.dtype)._legacy.replace("Tensor", "")
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got {name}")
    n_classes = logp._data.shape[cdim]
    if label_smoothing > 0.0:
        target = _add_scalar(_mul_scalar(target, 1 - label_smoothing), label_smoothing / n_classes)
    loss = logp * target
    if weight is not None:
        shape = [1] * logp._data.ndim
        shape[cdim] = n_classes
        loss = loss * view(weight, shape)
    if reduction == "none":
        return neg(sum(loss, cdim))
    loss = neg(sum(loss))
    return _div_scalar(loss, logp._data.size // n_classes) if reduction == "mean" else loss


# ----- Triangles, diagonals, rolls and other shape ops -----

TRIL = defop("TrilBackward0", lambda g, ans, x, diagonal: tril(g, diagonal))
TRIU = defop("TriuBackward0", lambda g, ans, x, diagonal: triu(g, diagonal))


def _triangle(op, npf, name, x, diagonal):
    if x._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return record(op, (x,), npf(x._data, diagonal), {"diagonal": diagonal})


def tril(input, diagonal=0):
    need_tensor("tril", "input", 1, input)
    return _triangle(TRIL, np.tril, "tril", input, diagonal)


def triu(input, diagonal=0):
    need_tensor("triu", "input", 1, input)
    return _triangle(TRIU, np.triu, "triu", input, diagonal)


DIAGONAL = defop("DiagonalBackward0",
                 lambda g, ans, x, offset, dim1, dim2: diagonal_backward(g, x.shape, offset, dim1, dim2))
DIAGONAL_COPY = defop("DiagonalBackward0_copy",
                      lambda g, ans, x, offset, dim1, dim2: diagonal_backward(g, x.shape, offset, dim1, dim2))
DIAGONAL_BACKWARD = defop("DiagonalBackwardBackward0",
                          lambda g, ans, grad_output, shape, offset, dim1, dim2: diagonal(g, offset, dim1, dim2))
DIAG_EMBED = defop("DiagEmbedBackward0", lambda g, ans, x, offset: diagonal(g, offset, -2, -1))  # (diag_embed's dims)


def _diagonal_np(d, offset, dim1, dim2):
    v = np.diagonal(d, offset, dim1, dim2)
    try:
        v.flags.writeable = d.flags.writeable  # a view to write through, as PyTorch's is
    except ValueError:
        pass
    return v


def _diagonal_backward(go, shape, offset, dim1, dim2):
    out = np.zeros(shape, dtype=go.dtype)
    _diagonal_np(out, offset, dim1, dim2)[...] = go
    return out


def diagonal_backward(grad_output, shape, offset, dim1, dim2):
    attrs = {"shape": tuple(shape), "offset": offset, "dim1": dim1, "dim2": dim2}
    return record(DIAGONAL_BACKWARD, (grad_output,), _diagonal_backward(_np_of(grad_output), **attrs), attrs)


def _diagonal_dims(x, dim1, dim2):
    nd = x._data.ndim
    d1, d2 = norm_dims(dim1, nd)[0], norm_dims(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input, offset=0, dim1=0, dim2=1):
    need_tensor("diagonal", "input", 1, input)
    d1, d2 = _diagonal_dims(input, dim1, dim2)
    # (the dims as given, which its rule hands on to diagonal_backward, as PyTorch's does)
    out = record(DIAGONAL, (input,), _diagonal_np(input._data, offset, d1, d2),
                 {"offset": offset, "dim1": dim1, "dim2": dim2})
    return _view_of(out, input)


# ----- Tensor.unfold: sliding windows, a view -----

def _windows(d, dim, size, step):
    """The windows of ``d`` along ``dim``: that dim counts them and a last dim of ``size`` runs along
    each, as strides into ``d`` (writable, as PyTorch's view is)."""
    if not d.ndim:
        return d.reshape(1)[:size]
    n = (d.shape[dim] - size) // step + 1
    st = d.strides
    return np.lib.stride_tricks.as_strided(d, d.shape[:dim] + (n,) + d.shape[dim + 1:] + (size,),
                                           st[:dim] + (st[dim] * step,) + st[dim + 1:] + (st[dim],))


def _unfold_backward(gd, shape, dim, size, step):
    if not len(shape):
        return gd.sum().astype(gd.dtype).reshape(())
    dim %= len(shape)
    out = np.zeros(shape, dtype=gd.dtype)
    n = gd.shape[dim]
    for k in range(size):  # (the k-th element of every window: distinct places, so += adds each once)
        out[(slice(None),) * dim + (slice(k, k + step * (n - 1) + 1, step),)] += gd[..., k]
    return out


UNFOLD_BACKWARD = defop("UnfoldBackwardBackward0",
                        lambda g, ans, grad, shape, dim, size, step: unfold(g, dim, size, step))
UNFOLD = defop("UnfoldBackward0", lambda g, ans, x, dim, size, step: unfold_backward(g, x.shape, dim, size, step))


def unfold_backward(grad, input_sizes, dim, size, step):
    attrs = {"shape": tuple(input_sizes), "dim": dim, "size": size, "step": step}
    return record(UNFOLD_BACKWARD, (grad,), _unfold_backward(_np_of(grad), **attrs), attrs)


def unfold(x, dimension, size, step):
    """``Tensor.unfold``: every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim."""
    d = x._data
    dims = norm_dims(dimension, d.ndim)  # (checks the range; a 0-d tensor takes dim 0 or -1)
    dim = dims[0] if d.ndim else 0
    length = d.shape[dim] if d.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    # (the dim as given, which its rule hands on to unfold_backward, as PyTorch's does)
    attrs = {"dim": dimension, "size": size, "step": step}
    return _view_of(record(UNFOLD, (x,), _windows(d, dim, size, step), attrs), x)


def sum_to_size(x, *size):
    """``Tensor.sum_to_size``: summed down to ``size``, to which it must expand."""
    shape = tuple(_shape_arg(size))
    gshape = x._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or builtins.any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(gshape)}}}.")
    return sum_to(x, shape)


def diag(input, diagonal=0):
    need_tensor("diag", "input", 1, input)
    d = input._data
    if d.ndim == 1:
        return record(DIAG_EMBED, (input,), np.diag(d, diagonal), {"offset": diagonal})
    if d.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {d.ndim}D")
    return record(DIAGONAL_COPY, (input,), np.diagonal(d, diagonal).copy(), {"offset": diagonal, "dim1": 0, "dim2": 1})


TRACE = defop("TraceBackward0", lambda g, ans, x: _trace_backward(g, x.shape))


def _trace_backward(g, shape):
    # PyTorch's trace_backward: zeros, the diagonal's flat indices filled with the grad, viewed as the input
    n, m = shape
    diagonal = _wrap(np.arange(0, n * m, m + 1, dtype=np.int64))
    return view(index_fill(_wrap(np.zeros(n * m, dtype=_np_of(g).dtype)), 0, diagonal, g), shape)


def trace(input):
    need_tensor("trace", "input", 1, input)
    d = input._data
    if d.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {d.ndim}")
    return record(TRACE, (input,), np.asarray(np.trace(d), dtype=d.dtype if d.dtype.kind == "f" else np.int64))


# (PyTorch's rule: the shifts negated, shifts and dims each reversed)
ROLL = defop("RollBackward0", lambda g, ans, x, shifts, dims: roll(g, tuple(-s for s in reversed(shifts)),
                                                                   None if dims is None else tuple(reversed(dims))))


def roll(input, shifts, dims=None):
    need_tensor("roll", "input", 1, input)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is not None:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    given = dims
    if dims is not None:
        dims = tuple(norm_dims(d, input._data.ndim)[0] for d in dims)
    out = np.roll(input._data, shifts if dims is not None else builtins.sum(shifts), dims)
    return record(ROLL, (input,), out, {"shifts": shifts, "dims": given})  # (dims as given)


CUMPROD = defop("CumprodBackward0", lambda g, ans, x, dim: _cumprod_backward(g, x, dim, ans), saves=(0, "result"))


def _cumprod_backward(g, x, dim, ans):
    # PyTorch's cumprod_backward: with a zero in the input, an O(n) form when no graph is built, else
    # the O(n**2) one (its derivative is cumprod's second), each slice of the grad written in place
    n = x.shape[dim]
    if x.numel() <= 1 or n == 1:
        return g
    w = ans * g
    if not bool((_np_of(x) == 0).any()):
        return div(flip(cumsum(flip(w, (dim,)), dim), (dim,)), x)
    if not _grad_mode._enabled:
        return _wrap(_cumprod_backward_np(_np_of(g), _np_of(x), dim, _np_of(w)))
    grad_input = _wrap(np.zeros(x.shape, dtype=_np_of(g).dtype))
    ones_size = list(x.shape)
    ones_size[dim] = 1
    ones = _wrap(np.ones(ones_size, dtype=_np_of(g).dtype))
    for k in range(n):
        if k == 0:
            omitted = cat([ones, cumprod(_cpp_slice(x, dim, 1), dim)], dim)
        elif k == n - 1:
            omitted = prod(_cpp_slice(x, dim, 0, k), dim, True)
        else:
            until_k = prod(_cpp_slice(x, dim, 0, k), dim, True)
            from_k_plus_1 = cumprod(_cpp_slice(x, dim, k + 1), dim)
            omitted = cat([until_k, expand(until_k, from_k_plus_1.shape) * from_k_plus_1], dim)
        setitem(grad_input, (slice(None),) * dim + (k,), sum(_cpp_slice(g, dim, k) * omitted, dim))
    return grad_input


def _cumprod_backward_np(g, x, dim, w):
    """Each slice's grad before its first zero (as without zeros), at that zero (the product of what
    comes before it, times the grads weighted by the products up to the second zero), and 0 after it."""
    zero = x.dtype.type(0)
    count = np.cumsum(x == 0, axis=dim)
    before = count == 0
    out = np.where(before, np.flip(np.cumsum(np.flip(np.where(before, w, zero), dim), dim), dim) / x, zero)
    first = (count == 1) & (x == 0)
    between = (count == 1) & ~first
    one = x.dtype.type(1)
    at_zero = (np.sum(np.cumprod(np.where(between, x, one), dim) * np.where(count == 1, g, zero), dim, keepdims=True)
               * np.prod(np.where(before, x, one), dim, keepdims=True))
    return np.where(first, at_zero, out)


def cumprod(input, dim, *, dtype=None):
    need_tensor("cumprod", "input", 1, input)
    d, out = _running(np.cumprod, input, dim, dtype)
    return _given(record(CUMPROD, (input,), out, {"dim": d}), dim=dim)


def kron(input, other):
    # PyTorch's KronImpl: each operand viewed with a size-1 dim beside each of its dims, their product
    # (broadcast) viewed back
    need_tensor("kron", "input", 1, input)
    need_tensor("kron", "other", 2, other)
    nd = builtins.max(input._data.ndim, other._data.ndim)
    sa = (1,) * (nd - input._data.ndim) + input._data.shape
    sb = (1,) * (nd - other._data.ndim) + other._data.shape
    a_shape = tuple(v for s in sa for v in (s, 1))
    b_shape = tuple(v for s in sb for v in (1, s))
    out = mul(_unsafe_view(input, a_shape), _unsafe_view(other, b_shape))
    return _unsafe_view(out, tuple(x * y for x, y in zip(sa, sb)))


MASKED_SELECT = defop("MaskedSelectBackward0", lambda g, ans, x, mask: _masked_select_backward(g, x, mask),
                      saves=(0,))
MASKED_SCATTER = defop("MaskedScatterBackward0", lambda g, ans, x, source, mask: masked_fill(g, _wrap(mask), 0.0),
                       lambda g, ans, x, source, mask: _masked_select_flat(g, np.broadcast_to(mask, g.shape),
                                                                           source.shape), keeps=True)


def _masked_select_flat(g, mask, shape):
    out = getitem_np(g, mask)
    return reshape(out, shape) if out.shape != shape else out


def _masked_select_backward(g, x, mask):
    # PyTorch's masked_select_backward: zeros of the broadcast shape, the grad scattered where the mask is set
    shape = np.broadcast_shapes(x.shape, mask.shape)
    zeros = _wrap(np.zeros(shape, dtype=_np_of(g).dtype))
    out = np.zeros(shape, dtype=_np_of(g).dtype)
    out[np.broadcast_to(mask, shape)] = _np_of(g)
    return record(MASKED_SCATTER, (zeros, g), out, {"mask": mask})


def masked_select(input, mask):
    need_tensor("masked_select", "input", 1, input)
    need_tensor("masked_select", "mask", 2, mask)
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast_checked(mask._data.shape, input._data.shape)
    m = np.broadcast_to(mask._data, shape)
    return record(MASKED_SELECT, (input,), np.broadcast_to(input._data, shape)[m], {"mask": mask._data})


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    need_tensor("repeat_interleave", "repeats", 1, input)
    if repeats is None:  # repeat_interleave(counts): each index repeated its count of times
        counts = input._data
        return _wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts.astype(np.intp)))
    if isinstance(repeats, Tensor):
        if dim is None:
            input, dim = flatten(input), 0
        dim = norm_dims(dim, input._data.ndim)[0]
        r = np.broadcast_to(repeats._data.reshape(-1), (input._data.shape[dim],)) if repeats._data.size == 1 \
            else repeats._data
        return index_select(input, dim, _wrap(np.repeat(np.arange(len(r), dtype=np.int64), r.astype(np.intp))))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # PyTorch's composite for a number: unsqueeze, expand, copy, view
    inp = input if dim is not None else flatten(input)
    dim = 0 if dim is None else norm_dims(dim, input._data.ndim)[0]
    inp = unsqueeze(inp, dim + 1)
    shape = list(inp._data.shape)
    shape[dim + 1] = repeats
    return flatten(clone(expand(inp, tuple(shape))), dim, dim + 1)


def tile(input, dims):
    need_tensor("tile", "input", 1, input)
    dims = tuple(dims)
    nd = input._data.ndim
    if len(dims) < nd:
        dims = (1,) * (nd - len(dims)) + dims
    return repeat(input, dims)


def _atleast(x, n):
    nd = x._data.ndim
    if nd >= n:
        return x
    if nd == 0:
        return reshape(x, (1,) * n)
    return unsqueeze(x, 0)


def vstack(tensors):
    return cat([_atleast(as_tensor_arg(t), 2) for t in tensors], 0)


row_stack = vstack


def hstack(tensors):
    ts = [_atleast(as_tensor_arg(t), 1) for t in tensors]
    return cat(ts, 0 if ts and ts[0]._data.ndim == 1 else 1)


def _var_mean_grad(gs, ans, x, dims, correction, keepdim, dim, std=False):
    gvar, gmean = gs
    r = None
    if gvar is not None:
        if std:
            gvar = masked_fill(gvar / _mul_scalar(ans, 2), ans == 0, 0.0)
        r = _var_grad(gvar, x, dims, correction, keepdim, dim)
    if gmean is not None:
        aux = _mean_back(gmean, x, dim, keepdim)
        r = aux if r is None else r + aux
    return r


VAR_MEAN = defop("VarMeanBackward0", lambda gs, ans, x, dims, correction, keepdim, dim:
                 _var_mean_grad(gs, ans, x, dims, correction, keepdim, dim), saves=(0,), outputs=(0, 1))
STD_MEAN = defop("StdMeanBackward0", lambda gs, ans, x, dims, correction, keepdim, dim:
                 _var_mean_grad(gs, ans, x, dims, correction, keepdim, dim, std=True), saves=(0, "result"),
                 outputs=(0, 1))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moment("var_mean", VAR_MEAN, input, dim, unbiased, keepdim, correction, with_mean=True)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moment("std_mean", STD_MEAN, input, dim, unbiased, keepdim, correction, with_mean=True)


# ----- Sorting and order statistics -----
# PyTorch's CPU kernels order each slice with libstdc++'s introsort (sort, mode), introselect or
# heap select (topk), or a median-of-three quickselect (kthvalue). None of these is stable: where
# equal values meet, the index that comes out is wherever the algorithm's swaps left it. NumPy's
# stable sort answers every slice without such ties; a slice with them is replayed, pair by pair,
# with the algorithm PyTorch's kernel runs.

_INSERTION = 16  # libstdc++'s cut-over to insertion sort (_S_threshold)


def _one_dim(dim, nd):
    """``dim`` wrapped for a tensor of ``nd`` dims (a 0-d tensor takes 0 and -1)."""
    dims = norm_dims(dim, nd)
    return dims[0] if nd else 0


def _slices(d, dim):
    """``d`` as rows along ``dim`` (moved last, the other dims flattened), and the other dims' sizes."""
    m = np.moveaxis(d.reshape(1) if not d.ndim else d, dim, -1)
    lead = m.shape[:-1]
    return m.reshape(int(math.prod(lead)), m.shape[-1]), lead


def _unslice(rows, lead, dim, nd):
    """Rows back to a tensor's layout, ``dim`` from last to its place (a 0-d input: a 0-d result)."""
    if not nd:
        return rows.reshape(())
    return np.ascontiguousarray(np.moveaxis(rows.reshape(lead + rows.shape[-1:]), -1, dim))


def _reduced(values, lead, dim, nd, keepdim):
    """One value per row back to a tensor's layout: the reduced ``dim`` dropped or kept as size 1."""
    out = values.reshape(lead)
    return np.expand_dims(out, dim) if keepdim and nd else out


def _stable_order(rows, descending):
    """Each row's stable order: ascending with nan last, or descending with nan first and, among
    equal values, the first one first."""
    if not descending:
        return np.argsort(rows, axis=-1, kind="stable").astype(np.int64)
    n = rows.shape[-1]
    return (n - 1) - np.argsort(rows[:, ::-1], axis=-1, kind="stable")[:, ::-1].astype(np.int64)


def _tied(s):
    """Per row of sorted values: whether two neighbours are equal (nan counting as equal to nan)."""
    a, b = s[:, 1:], s[:, :-1]
    same = a == b
    if s.dtype.kind == "f":
        same |= np.isnan(a) & np.isnan(b)
    return same.any(-1)


def _pairs(row):
    return list(zip(row.tolist(), range(len(row))))


def _ascending(p, q):  # PyTorch's order for sort and topk(largest=False): nan last
    return p[0] < q[0] or p[0] == p[0] and q[0] != q[0]


def _descending(p, q):  # sort(descending=True) and topk: nan first
    return p[0] > q[0] or p[0] != p[0] and q[0] == q[0]


def _introsort(v, before, first=0, last=None):
    """libstdc++'s std::sort of ``v[first:last]`` in place."""
    last = len(v) if last is None else last
    n = last - first
    if n < 2:
        return
    _introsort_loop(v, first, last, 2 * (n.bit_length() - 1), before)
    _insertion_sort(v, first, builtins.min(last, first + _INSERTION), before)
    for i in range(first + _INSERTION, last):
        _linear_insert(v, i, before)


def _introsort_loop(v, first, last, depth, before):
    while last - first > _INSERTION:
        if depth == 0:
            _heap_select(v, first, last, last, before)
            _sort_heap(v, first, last, before)
            return
        depth -= 1
        cut = _partition_around_median(v, first, last, before)
        _introsort_loop(v, cut, last, depth, before)
        last = cut


def _partition_around_median(v, first, last, before):
    # the median of v[first + 1], the middle and the last moves to v[first] as the pivot
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if before(v[a], v[b]):
        m = b if before(v[b], v[c]) else c if before(v[a], v[c]) else a
    else:
        m = a if before(v[a], v[c]) else c if before(v[b], v[c]) else b
    v[first], v[m] = v[m], v[first]
    pivot, lo, hi = v[first], first + 1, last
    while True:
        while before(v[lo], pivot):
            lo += 1
        hi -= 1
        while before(pivot, v[hi]):
            hi -= 1
        if lo >= hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _insertion_sort(v, first, last, before):
    for i in range(first + 1, last):
        if before(v[i], v[first]):
            v[first:i + 1] = [v[i]] + v[first:i]
        else:
            _linear_insert(v, i, before)


def _linear_insert(v, i, before):
    item = v[i]
    while before(item, v[i - 1]):
        v[i] = v[i - 1]
        i -= 1
    v[i] = item


def _sift(v, first, hole, n, item, before):
    """libstdc++'s __adjust_heap: the hole at ``hole`` goes down to a leaf, then ``item`` up from there."""
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if before(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and before(v[first + parent], item):
        v[first + hole] = v[first + parent]
        hole, parent = parent, (parent - 1) // 2
    v[first + hole] = item


def _heap_select(v, first, middle, last, before):
    n = middle - first
    for parent in range((n - 2) // 2, -1, -1) if n > 1 else ():
        _sift(v, first, parent, n, v[first + parent], before)
    for i in range(middle, last):
        if before(v[i], v[first]):
            item, v[i] = v[i], v[first]
            _sift(v, first, 0, n, item, before)


def _sort_heap(v, first, last, before):
    while last - first > 1:
        last -= 1
        item, v[last] = v[last], v[first]
        _sift(v, first, 0, last - first, item, before)


def _nth_element(v, nth, before):
    """libstdc++'s std::nth_element (introselect)."""
    first, last = 0, len(v)
    depth = 2 * (last.bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last, before)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_around_median(v, first, last, before)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, before)


def _quickselect(v, k):
    """kthvalue's selection: median-of-three quickselect, nan above every number."""
    def above(p, q):
        return p[0] > q[0] or p[0] != p[0] and q[0] == q[0]

    lo, hi = 0, len(v) - 1
    while hi > lo:
        if hi == lo + 1:
            if above(v[lo], v[hi]):
                v[lo], v[hi] = v[hi], v[lo]
            break
        mid = lo + (hi - lo) // 2
        v[mid], v[lo + 1] = v[lo + 1], v[mid]
        for a, b in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
            if above(v[a], v[b]):
                v[a], v[b] = v[b], v[a]
        i, j, pivot = lo + 1, hi, v[lo]
        while True:
            i += 1
            while above(pivot, v[i]):
                i += 1
            j -= 1
            while above(v[j], pivot):
                j -= 1
            if j < i:
                break
            v[i], v[j] = v[j], v[i]
        v[lo], v[j] = v[j], v[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return v[k]


def _sort_rows(rows, descending, stable):
    order = _stable_order(rows, descending)
    if not stable and rows.shape[-1] > _INSERTION:  # (shorter slices get insertion sort: stable)
        for r in np.flatnonzero(_tied(np.take_along_axis(rows, order, -1))):
            v = _pairs(rows[r])
            _introsort(v, _descending if descending else _ascending)
            order[r] = [i for _, i in v]
    return order


def _topk_rows(rows, k, largest, sort):
    n = rows.shape[-1]
    order = _stable_order(rows, largest)
    # Unsorted, the order is whatever the selection leaves; sorted, only ties among the first k + 1 matter.
    replay = _tied(np.take_along_axis(rows, order[:, :k + 1], -1)) if sort else np.ones(len(rows), bool)
    order = order[:, :k].copy()
    before = _descending if largest else _ascending
    for r in np.flatnonzero(replay) if k else ():
        v = _pairs(rows[r])
        if k * 64 <= n:  # PyTorch's kernel: std::partial_sort for a small k, else std::nth_element
            _heap_select(v, 0, k, n, before)
            _sort_heap(v, 0, k, before)
        else:
            _nth_element(v, k - 1, before)
            if sort:
                _introsort(v, before, 0, k - 1)
        order[r] = [i for _, i in v[:k]]
    return order


def _empty_dim_check(name, d, dim):
    if d.ndim and not d.shape[dim]:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _not_for_bool(d, kernel):
    if d.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _selected_grad(g, shape, dim, indices, keepdim):
    """The grad of values picked along ``dim`` at ``indices``: zeros with ``g`` scattered back."""
    if not keepdim and shape:
        g = unsqueeze(g, dim)
        indices = np.expand_dims(indices, dim)
    return scatter(_zeros(shape, g), dim, _wrap(indices), g)


def _cummaxmin_grad(g, x, dim, indices):
    if not math.prod(x.shape):
        return g
    return scatter_add(_zeros(x.shape, g), dim, _wrap(indices), g)


SORT = defop("SortBackward0", lambda g, ans, x, dim, indices: _selected_grad(g, x.shape, dim, indices, True),
             keeps=True)
SORT_STABLE = defop("SortBackward1", SORT.vjps[0], keeps=True)
TOPK = defop("TopkBackward0", SORT.vjps[0], keeps=True)
KTHVALUE = defop("KthvalueBackward0",
                 lambda g, ans, x, dim, keepdim, indices: _selected_grad(g, x.shape, dim, indices, keepdim), keeps=True)
MEDIAN_DIM = defop("MedianBackward1", KTHVALUE.vjps[0], keeps=True)
NANMEDIAN_DIM = defop("NanmedianBackward1", KTHVALUE.vjps[0], keeps=True)
MODE = defop("ModeBackward0", KTHVALUE.vjps[0], keeps=True)
# (the grad is shared by the elements equal to the median: PyTorch's evenly_distribute_backward)
MEDIAN = defop("MedianBackward0", lambda g, ans, x: _extreme_grad(g, ans, x), saves=(0, "result"))
NANMEDIAN = defop("NanmedianBackward0", MEDIAN.vjps[0], saves=(0, "result"))
CUMMAX = defop("CummaxBackward0", lambda g, ans, x, dim, indices: _cummaxmin_grad(g, x, dim, indices), saves=(0,))
CUMMIN = defop("CumminBackward0", CUMMAX.vjps[0], saves=(0,))


def sort(input, dim=-1, descending=False, *, stable=_NOT_GIVEN):
    need_tensor("sort", "input", 1, input)
    d = input._data
    given, dim = dim, _one_dim(dim, d.ndim)
    rows, lead = _slices(d, dim)
    order = _sort_rows(rows, descending, stable is not _NOT_GIVEN and bool(stable))
    vals = _unslice(np.take_along_axis(rows, order, -1), lead, dim, d.ndim)
    idx = _unslice(order, lead, dim, d.ndim)
    # (given at all, even as None or False, stable picks the overload whose node is SortBackward1)
    op = SORT if stable is _NOT_GIVEN else SORT_STABLE
    v = _given(record(op, (input,), vals, {"dim": dim, "indices": idx}), dim=given)
    return return_type("sort")(v, _wrap(idx))


def argsort(input, dim=-1, descending=False, *, stable=False):
    need_tensor("argsort", "input", 1, input)
    d = input._data
    dim = _one_dim(dim, d.ndim)
    rows, lead = _slices(d, dim)
    return _wrap(_unslice(_sort_rows(rows, descending, stable), lead, dim, d.ndim))


def msort(input):
    need_tensor("msort", "input", 1, input)
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    need_tensor("topk", "input", 1, input)
    d = input._data
    given, dim = dim, _one_dim(dim, d.ndim)
    if not 0 <= k <= (d.shape[dim] if d.ndim else 1):
        raise RuntimeError("selected index k out of range")
    if d.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    rows, lead = _slices(d, dim)
    order = _topk_rows(rows, k if d.ndim else 1, largest, sorted)  # (a 0-d tensor gives itself, even for k=0)
    vals = _unslice(np.take_along_axis(rows, order, -1), lead, dim, d.ndim)
    idx = _unslice(order, lead, dim, d.ndim)
    v = _given(record(TOPK, (input,), vals, {"dim": dim, "indices": idx}), dim=given)
    return return_type("topk")(v, _wrap(idx))


def _order_statistic(name, op, x, dim, keepdim, pick):
    """``pick(rows)`` gives each row's (value, index): a tensor of values with a node keeping the indices."""
    d = x._data
    given, dim = dim, _one_dim(dim, d.ndim)
    _empty_dim_check(name, d, dim)
    rows, lead = _slices(d, dim)
    vals, idx = pick(rows) if len(rows) else (rows[:, 0], np.zeros(0, np.int64))
    vals, idx = _reduced(vals, lead, dim, d.ndim, keepdim), _reduced(idx, lead, dim, d.ndim, keepdim)
    v = _given(record(op, (x,), vals, {"dim": dim, "keepdim": keepdim, "indices": idx}), dim=given)
    return return_type(name)(v, _wrap(idx))


def kthvalue(input, k, dim=-1, keepdim=False):
    need_tensor("kthvalue", "input", 1, input)
    d = input._data
    wrapped = _one_dim(dim, d.ndim)
    _empty_dim_check("kthvalue", d, wrapped)
    if not 1 <= k <= (d.shape[wrapped] if d.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {wrapped}")
    _not_for_bool(d, "kthvalue_cpu")

    def pick(rows):
        order = _stable_order(rows, False)
        at = order[:, k - 1].copy()
        # only a tie at the k-th place makes the index depend on the selection's swaps
        s = np.take_along_axis(rows, order[:, builtins.max(k - 2, 0):k + 1], -1)
        for r in np.flatnonzero(_tied(s)):
            at[r] = _quickselect(_pairs(rows[r]), k - 1)[1]
        return rows[np.arange(len(rows)), at], at

    return _order_statistic("kthvalue", KTHVALUE, input, dim, keepdim, pick)


def _median_rows(rows, ignore_nan):
    """Each row's lower median (the lower middle of the values in (value, index) order) and its index.
    With a nan, median gives the first nan; nanmedian leaves the nans out (all nan: the first)."""
    n = rows.shape[-1]
    order = _stable_order(rows, False)
    nans = np.isnan(rows) if rows.dtype.kind == "f" else np.zeros(rows.shape, bool)
    if ignore_nan:
        at = np.maximum((n - nans.sum(-1) - 1) // 2, 0)
    else:
        at = np.full(len(rows), (n - 1) // 2)
    idx = order[np.arange(len(rows)), at]
    if not ignore_nan:
        idx = np.where(nans.any(-1), np.argmax(nans, -1), idx)
    return rows[np.arange(len(rows)), idx], idx.astype(np.int64)


def median(input, dim=_NOT_GIVEN, keepdim=_NOT_GIVEN):
    need_tensor("median", "input", 1, input)
    return _median("median", MEDIAN, MEDIAN_DIM, input, dim, keepdim, False)


def nanmedian(input, dim=_NOT_GIVEN, keepdim=_NOT_GIVEN):
    need_tensor("nanmedian", "input", 1, input)
    return _median("nanmedian", NANMEDIAN, NANMEDIAN_DIM, input, dim, keepdim, True)


def _median(name, op, dim_op, x, dim, keepdim, ignore_nan):
    d = x._data
    if dim is _NOT_GIVEN:
        if keepdim is not _NOT_GIVEN:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        _not_for_bool(d, "median_cpu")
        if not d.size:  # the median of nothing
            return record(op, (x,), np.asarray(np.nan if d.dtype.kind == "f" else np.iinfo(d.dtype).min, d.dtype))
        return record(op, (x,), _median_rows(d.reshape(1, -1), ignore_nan)[0].reshape(()))
    if dim is None:
        raise TypeError(f"{name}(): argument 'dim' must be int, not NoneType")
    _empty_dim_check("median", d, _one_dim(dim, d.ndim))
    _not_for_bool(d, "median_out")
    keepdim = False if keepdim is _NOT_GIVEN else keepdim
    return _order_statistic(name, dim_op, x, dim, keepdim, lambda rows: _median_rows(rows, ignore_nan))


def _mode_replay(row):
    """PyTorch's mode of one slice: (value, index) pairs through std::sort by value, then the first
    of the longest runs, taken at its last pair."""
    v = _pairs(row)
    _introsort(v, lambda p, q: p[0] < q[0])
    best, run, found = 0, 0, v[0]
    for i, p in enumerate(v):
        run += 1
        if i == len(v) - 1 or p[0] != v[i + 1][0]:
            if run > best:
                best, found = run, p
            run = 0
    return found


def _mode_rows(rows):
    n = rows.shape[-1]
    order = np.argsort(rows, axis=-1, kind="stable").astype(np.int64)
    s = np.take_along_axis(rows, order, -1)
    step = s[:, 1:] != s[:, :-1]
    starts = np.concatenate([np.ones((len(rows), 1), bool), step], -1)
    ends = np.concatenate([step, np.ones((len(rows), 1), bool)], -1)
    pos = np.arange(n)
    runs = np.where(ends, pos - np.maximum.accumulate(np.where(starts, pos, 0), -1) + 1, 0)
    best = np.argmax(runs, -1)  # the first longest run: the smallest of the commonest values
    r = np.arange(len(rows))
    vals, idx = s[r, best], order[r, best]
    # Up to 16 values std::sort is an insertion sort, stable: the run's last pair is the value's last
    # occurrence. Past that (when the run has several) or with a nan, which pair ends it takes a replay.
    replay = runs[r, best] > 1 if n > _INSERTION else np.zeros(len(rows), bool)
    if rows.dtype.kind == "f":
        replay |= np.isnan(rows).any(-1)
    for i in np.flatnonzero(replay):
        vals[i], idx[i] = _mode_replay(rows[i])
    return vals, idx


def mode(input, dim=-1, keepdim=False):
    need_tensor("mode", "input", 1, input)
    return _order_statistic("mode", MODE, input, dim, keepdim, _mode_rows)


def _cummaxmin(name, op, accumulate, x, dim):
    d = x._data
    if not d.ndim and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    given, dim = dim, _one_dim(dim, d.ndim)
    if not d.ndim:
        vals, idx = d.copy(), np.zeros((), np.int64)
    else:
        vals = accumulate(d, axis=dim)
        # an element takes over when it equals the running extreme, or is nan (PyTorch's >= / <=)
        takes = d == vals
        if d.dtype.kind == "f":
            takes |= np.isnan(d)
        pos = np.arange(d.shape[dim], dtype=np.int64).reshape([-1 if a == dim else 1 for a in range(d.ndim)])
        idx = np.maximum.accumulate(np.where(takes, pos, 0), axis=dim) if d.size else np.zeros(d.shape, np.int64)
    v = _given(record(op, (x,), vals, {"dim": dim, "indices": idx}), dim=given)
    return return_type(name)(v, _wrap(idx))


def cummax(input, dim):
    need_tensor("cummax", "input", 1, input)
    return _cummaxmin("cummax", CUMMAX, np.maximum.accumulate, input, dim)


def cummin(input, dim):
    need_tensor("cummin", "input", 1, input)
    return _cummaxmin("cummin", CUMMIN, np.minimum.accumulate, input, dim)


# ----- take, take_along_dim -----

TAKE = defop("TakeBackward0", lambda g, ans, x, index: _put_zeros(g, x.shape, index), saves=(0,))
PUT = defop("PutBackward0", lambda g, ans, x, source, index: g, lambda g, ans, x, source, index: take(g, _wrap(index)),
            keeps=True)


def _put_zeros(g, shape, index):
    """Zeros of ``shape`` with ``g`` added at the flat positions ``index``: take's backward (zeros put_ g,
    accumulating)."""
    n = int(math.prod(shape))
    out = np.zeros(n, dtype=g._data.dtype)
    np.add.at(out, np.where(index < 0, index + n, index).reshape(-1), g._data.reshape(-1))
    return record(PUT, (_zeros(shape, g), g), out.reshape(shape), {"index": index})


def take(input, index):
    need_tensor("take", "input", 1, input)
    need_tensor("take", "index", 2, index)
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_scalar_type(index)}")
    d = input._data
    n = d.size
    if not n and idx.size:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {idx[bad].flat[0]} on a tensor of {n} elements.")
    return record(TAKE, (input,), d.reshape(-1)[idx], {"index": idx})


def take_along_dim(input, indices, dim=None):
    need_tensor("take_along_dim", "input", 1, input)
    need_tensor("take_along_dim", "indices", 2, indices)
    idx = indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_scalar_type(indices)}")
    if dim is None:
        return gather(view(input, -1), 0, view(indices, -1))
    d = input._data
    dim = _one_dim(dim, d.ndim)
    if idx.ndim != d.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {d.ndim} dimensions for input, and {idx.ndim} dimensions for indices")
    # PyTorch's helper: both broadcast over every dim but ``dim`` (expand nodes even at the same shape)
    sizes = d.shape[:dim] + idx.shape[dim:dim + 1] + d.shape[dim + 1:]
    shape = _broadcast_checked(sizes, idx.shape)
    indices = expand(indices, shape)
    return gather(expand(input, shape[:dim] + d.shape[dim:dim + 1] + shape[dim + 1:]), dim, indices)


# ----- scatter and the index_* ops: out of place here, in place through _methods._inplace -----

def _src_grad(node, g, src, dim, index):
    if tuple(index.shape) != tuple(src.shape):  # an index smaller than src: PyTorch's engine refuses the grad
        raise RuntimeError(f"Function {node} returned an invalid gradient at index 1 - got {list(index.shape)} but "
                           f"expected shape compatible with {list(src.shape)}")
    return gather(g, dim, _wrap(index))


def _index_source_grad(g, source, dim, index, alpha=1):
    r = index_select(g, dim, _wrap(index))
    r = expand(r, source.shape) if len(source.shape) else reshape(r, ())
    return r if alpha == 1 else _mul_scalar(r, alpha)


SCATTER = defop("ScatterBackward0", lambda g, ans, x, src, dim, index: scatter(g, dim, _wrap(index), 0.0),
                lambda g, ans, x, src, dim, index: _src_grad("ScatterBackward0", g, src, dim, index), keeps=True)
SCATTER_VALUE = defop("ScatterBackward1", lambda g, ans, x, dim, index: scatter(g, dim, _wrap(index), 0.0), keeps=True)
SCATTER_ADD = defop("ScatterAddBackward0", lambda g, ans, x, src, dim, index: g,
                    lambda g, ans, x, src, dim, index: _src_grad("ScatterAddBackward0", g, src, dim, index), keeps=True)
# PyTorch keeps the index (and index_add's source) only when the source needs a grad: without, a
# second backward goes through. These twins have the same names and rules, keeping nothing.
SCATTER_ADD_TO_SELF = defop("ScatterAddBackward0", *SCATTER_ADD.vjps)
SCATTER_REDUCE = defop("NotImplemented", _not_implemented("scatter"), _not_implemented("scatter"),
                       cpp_name="torch::autograd::NotImplemented")
INDEX_ADD = defop("IndexAddBackward0", lambda g, ans, x, source, dim, index, alpha: g,
                  lambda g, ans, x, source, dim, index, alpha: _index_source_grad(g, source, dim, index, alpha),
                  saves=(1,), keeps=True)
INDEX_ADD_TO_SELF = defop("IndexAddBackward0", *INDEX_ADD.vjps)
INDEX_COPY = defop("IndexCopyBackward0", lambda g, ans, x, source, dim, index: index_fill(g, dim, _wrap(index), 0),
                   lambda g, ans, x, source, dim, index: _index_source_grad(g, source, dim, index),
                   saves=(1,), keeps=True)
INDEX_FILL = defop("IndexFillBackward0", lambda g, ans, x, dim, index: index_fill(g, dim, _wrap(index), 0), keeps=True)
INDEX_FILL_T = defop("IndexFillBackward1", lambda g, ans, x, value, dim, index: index_fill(g, dim, _wrap(index), 0),
                     lambda g, ans, x, value, dim, index: sum(index_select(g, dim, _wrap(np.unique(index)))),
                     keeps=True)


def _scatter_checks(x, dim, index, src):
    """PyTorch's checks of scatter and scatter_add, in its order, with its messages."""
    d = x._data
    dim = _one_dim(dim, d.ndim)
    idx = index._data
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src._data.dtype != d.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if not idx.size:
        return dim, idx
    nd = builtins.max(d.ndim, 1)
    if builtins.max(idx.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    ishape, sshape = idx.shape or (1,), d.shape or (1,)
    wrong = builtins.any(ishape[k] > sshape[k] for k in range(nd) if k != dim)
    if src is not None:
        s = src._data
        for k in range(nd) if not wrong else ():
            if ishape[k] > (s.shape[norm_dims(k, s.ndim)[0]] if s.ndim else 1):  # (a src of fewer dims: IndexError)
                wrong = True
                break
        if builtins.max(s.ndim, 1) != nd:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        more = f" and to be no larger size than src {list(src._data.shape)}" if src is not None else ""
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(d.shape)} apart from "
                           f"dimension {dim}{more}")
    bad = (idx < 0) | (idx >= sshape[dim])
    if bad.any():
        raise RuntimeError(f"index {idx[bad].flat[0]} is out of bounds for dimension {dim} with size {sshape[dim]}")
    return dim, idx


def _scatter_np(d, dim, idx, src, ufunc=None):
    """``d`` with ``src`` (an array as large as ``idx`` or larger, or a number) written, or combined by
    ``ufunc``, at the positions ``idx`` names along ``dim``."""
    out = d.copy()
    if not idx.size:
        return out
    flat = out.reshape(d.shape or (1,))
    at = _along(idx, dim)
    if isinstance(src, np.ndarray):
        src = src.reshape(src.shape or (1,))[tuple(slice(0, n) for n in idx.shape or (1,))]
    else:
        src = np.asarray(src).astype(d.dtype)
    if ufunc is None:
        flat[at] = src
    else:
        ufunc.at(flat, at, np.broadcast_to(src, idx.shape or (1,)))
    return out


_SCATTER_REDUCE_WARNED = [False]


def scatter(input, dim, index, src=_NOT_GIVEN, value=_NOT_GIVEN, *, reduce=None):
    if src is _NOT_GIVEN and value is _NOT_GIVEN:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    if src is not _NOT_GIVEN and not isinstance(src, Tensor):
        src, value = _NOT_GIVEN, src  # a number in src's place is the value
    tensor = src if src is not _NOT_GIVEN else None
    if reduce is not None and tensor is not None and not _SCATTER_REDUCE_WARNED[0]:
        _SCATTER_REDUCE_WARNED[0] = True  # (once per process, as PyTorch's TORCH_WARN_ONCE)
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp"
                      ":225.)", UserWarning, stacklevel=2)
    given = dim
    dim, idx = _scatter_checks(input, dim, index, tensor)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        ufunc = np.add if reduce == "add" else np.multiply
        out = _scatter_np(input._data, dim, idx, value if tensor is None else tensor._data, ufunc)
        return _grad_edges_only(record(SCATTER_REDUCE, (input,) if tensor is None else (input, tensor), out))
    if tensor is None:
        out = record(SCATTER_VALUE, (input,), _scatter_np(input._data, dim, idx, value), {"dim": dim, "index": idx})
    else:
        out = record(SCATTER, (input, tensor), _scatter_np(input._data, dim, idx, tensor._data), {"dim": dim, "index": idx})
    return _given(out, dim=given) if given != dim else out


def scatter_add(input, dim, index, src):
    need_tensor("scatter_add", "input", 1, input)
    given = dim
    dim, idx = _scatter_checks(input, dim, index, src)
    out = _scatter_np(input._data, dim, idx, src._data, np.add)
    if _grad_mode._enabled and src._requires_grad:
        out = record(SCATTER_ADD, (input, src), out, {"dim": dim, "index": idx})
    else:
        out = record(SCATTER_ADD_TO_SELF, (input, src), out, {"dim": dim, "index": None})
    return _given(out, dim=given) if given != dim else out


def index_add(input, dim, index, source, *, alpha=1):
    need_tensor("index_add", "input", 1, input)
    d, s, idx = input._data, source._data, index._data
    given, dim = dim, _one_dim(dim, d.ndim)
    flat = _index_in_range(input, dim, _index_func_checks("index_add", input, dim, index, source))
    out = d.copy()
    np.add.at(out.reshape(d.shape or (1,)), (slice(None),) * dim + (flat,),
              (s if alpha == 1 else s * alpha).reshape(s.shape or (1,)))
    if _grad_mode._enabled and source._requires_grad:
        out = record(INDEX_ADD, (input, source), out, {"dim": dim, "index": idx, "alpha": alpha})
    else:
        out = record(INDEX_ADD_TO_SELF, (input, source), out, {"dim": dim, "index": None, "alpha": alpha})
    return _given(out, dim=given) if given != dim else out


def index_copy(input, dim, index, source):
    need_tensor("index_copy", "input", 1, input)
    d, s, idx = input._data, source._data, index._data
    given, dim = dim, _one_dim(dim, d.ndim)
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if not s.ndim and idx.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {idx.size})")
    if s.ndim != d.ndim and s.ndim and d.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({s.ndim}), destination dimensionality ({d.ndim})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_scalar_type(index)}")
    if s.dtype != d.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_scalar_type(input)} and (source) {_scalar_type(source)}")
    rest_self, rest_source = d.shape[:dim] + d.shape[dim + 1:], s.shape[:dim] + s.shape[dim + 1:]
    if rest_self != rest_source:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, rest_self))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, rest_source))} at dimension 0.")
    if s.ndim and idx.size != s.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                         f"({s.shape[dim]})")
    flat = idx.reshape(-1)
    size = d.shape[dim] if d.ndim else 1
    bad = (flat < 0) | (flat >= size)
    if bad.any():
        raise IndexError(f"index_copy_(): index {flat[np.argmax(bad)]} is out of bounds for dimension {dim} with "
                         f"size {size}")
    out = d.copy()
    out.reshape(d.shape or (1,))[(slice(None),) * dim + (flat,)] = s.reshape(s.shape or (1,))
    out = record(INDEX_COPY, (input, source), out, {"dim": dim, "index": idx})
    return _given(out, dim=given) if given != dim else out


def index_fill(input, dim, index, value):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("index_fill", input, dim, index, value)
    d, idx = input._data, index._data
    given, dim = dim, _one_dim(dim, d.ndim)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    flat = idx.reshape(-1)
    size = d.shape[dim] if d.ndim else 1
    bad = (flat < -size) | (flat >= size)
    if bad.any():
        raise IndexError(f"index {flat[np.argmax(bad)]} is out of bounds for dimension {dim} with size {size}")
    out = d.copy()
    out.reshape(d.shape or (1,))[(slice(None),) * dim + (flat,)] = np.asarray(_np_of(value)).astype(d.dtype)
    if isinstance(value, Tensor):
        out = record(INDEX_FILL_T, (input, value), out, {"dim": dim, "index": idx})
    else:
        out = record(INDEX_FILL, (input,), out, {"dim": dim, "index": idx})
    return _given(out, dim=given) if given != dim else out


# ----- scatter_reduce and index_reduce: one node each, with PyTorch's backward formulas -----
# (Each rule is PyTorch's scatter_reduce_backward / index_reduce_backward for one input: the counts
# and tie masks it computes without a graph are arrays here, the rest the engine's own ops.)

_REDUCE_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _reduce_identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce_into(d, at, values, reduce, include_self):
    """``d`` with ``values`` combined into the places ``at`` names (a NumPy index of ``d``), each
    place reduced with ``reduce`` over its values, and over ``d``'s own unless not ``include_self``."""
    out = d.copy()
    if not include_self:
        out[at] = _reduce_identity(reduce, d.dtype)
    _quietly(_REDUCE_UFUNC[reduce].at, out, at, values)
    if reduce == "mean":
        count = np.full(d.shape, 1 if include_self else 0, dtype=d.dtype)
        np.add.at(count, at, 1)
        count[count == 0] = 1
        out = np.floor_divide(out, count) if d.dtype.kind in "iu" else out / count
    return out


def _delayed_error(t, message):
    """PyTorch's DelayedError: ``t`` itself, whose backward raises ``message``."""
    return record(DELAYED_ERROR, (t,), t._data, {"message": message})


def _raise_delayed(g, ans, x, message):
    raise RuntimeError(message)


DELAYED_ERROR = defop("Error", _raise_delayed, cpp_name="torch::autograd::Error")


def _scatter_part(src, index):
    """The part of ``src`` that ``index`` covers (as large as ``index`` or larger), as scatter reads it."""
    s = src.reshape(src.shape or (1,))
    return s[tuple(slice(0, n) for n in index.shape or (1,))]


def _scatter_gather(d, dim, index):
    return d.reshape(d.shape or (1,))[_along(index, dim)].reshape(index.shape)


def _scatter_counts(shape, dtype, dim, index, values, start=0):
    """``full(shape, start).scatter_add(dim, index, values)`` on arrays."""
    out = np.full(shape or (1,), start, dtype=dtype)
    np.add.at(out, _along(index, dim), np.broadcast_to(values, index.shape or (1,)))
    return out.reshape(shape)


def _mean_count(f, g, dim, index, include_self):
    """How many values each place of a ``mean`` reduction averaged (1 where none)."""
    n = f.counts(g.shape, g.dtype, dim, index, 1, 1 if include_self else 0)
    n[n == 0] = 1
    return n


def _ties(f, x, src, result, dim, index):
    """How many of the values reduced into each place equal the result there (amax, amin)."""
    part = f.part(src, index)
    value = f.pick_np(result, dim, index).reshape(part.shape)
    return f.counts(x.shape, x.dtype, dim, index, (part == value).astype(x.dtype)) + (x == result).astype(x.dtype)


def _unknown_reduce(reduce, names):
    return RuntimeError(f"Expected 'reduce' to be one of {names} but got {reduce}.")


# PyTorch's scatter_reduce_backward and index_reduce_backward: one formula, the family ``f`` telling
# where the values of src go (f.op, f.pick and f.counts are scatter_reduce, gather and scatter_add's
# counting, or index_reduce, index_select and index_add's).
def _reduce_self_grad(f, g, ans, x, src, dim, index, reduce, include_self):
    if reduce not in f.kinds:
        raise _unknown_reduce(reduce, f.names)
    idx = _wrap(index)
    if reduce == "sum":
        grad = g
    elif reduce == "prod":
        masked = masked_fill(x, x == 0, 1)
        grad = g * f.op(masked, dim, idx, src, reduce, include_self=include_self) / masked
    elif reduce == "mean":
        grad = g / _wrap(_mean_count(f, g._data, dim, index, include_self))
    else:
        grad = _wrap(x._data == ans._data) * (g / _wrap(_ties(f, x._data, src._data, ans._data, dim, index)))
    return grad if include_self else f.unfill(grad, dim, idx, 0)


def _reduce_src_grad(f, g, ans, x, src, dim, index, reduce, include_self):
    if reduce not in f.kinds:
        raise _unknown_reduce(reduce, f.names)
    idx = _wrap(index)
    if reduce == "sum":
        return f.pick(g, dim, idx)
    if reduce == "prod":
        zero = src._data == 0
        zeros_there = f.pick_np(f.counts(x.shape, x._data.dtype, dim, index, zero.astype(x._data.dtype)),
                                dim, index).reshape(zero.shape)
        single = _wrap(zero & (zeros_there == 1))
        masked_result = f.op(x, dim, idx, masked_fill(src, single, 1), reduce, include_self=include_self)
        grad = where(single, f.pick(g * masked_result, dim, idx),
                     f.pick(g * ans, dim, idx) / masked_fill(src, _wrap(zero), 1))
        if _grad_mode._enabled and (zeros_there > 1).any():
            grad = _delayed_error(grad, f"{f.name}(): Double backward is unsupported for {f.noun} when >1 zeros in "
                                        f"{f.noun} are scattered to the same position in self")
        return grad
    if reduce == "mean":
        return f.pick(g, dim, idx) / _wrap(f.pick_np(_mean_count(f, g._data, dim, index, include_self), dim, index))
    ties = _ties(f, x._data, src._data, ans._data, dim, index)
    value = f.pick_np(ans._data, dim, index)
    return _wrap(src._data.reshape(value.shape) == value) * f.pick(g / _wrap(ties), dim, idx)


_SCATTER_FAMILY = types.SimpleNamespace(
    name="scatter_reduce", noun="src", kinds=("sum", "prod", "mean", "amax", "amin"),
    names="'sum', 'prod', 'mean', 'amax', 'amin'", op=lambda *a, **kw: scatter_reduce(*a, **kw), pick=gather,
    pick_np=_scatter_gather, counts=_scatter_counts, part=_scatter_part, unfill=scatter)


def _scatter_reduce_src_grad(g, ans, x, src, dim, index, reduce, include_self):
    if tuple(index.shape) != tuple(src.shape):  # an index smaller than src: PyTorch's engine refuses the grad
        raise RuntimeError(f"Function ScatterReduceBackward0 returned an invalid gradient at index 1 - got "
                           f"{list(index.shape)} but expected shape compatible with {list(src.shape)}")
    return _reduce_src_grad(_SCATTER_FAMILY, g, ans, x, src, dim, index, reduce, include_self)


SCATTER_REDUCE_TWO = defop("ScatterReduceBackward0", lambda g, ans, x, src, dim, index, reduce, include_self:
                           _reduce_self_grad(_SCATTER_FAMILY, g, ans, x, src, dim, index, reduce, include_self),
                           _scatter_reduce_src_grad,
                           saves=(0, 1, "result"), keeps=True)
_REDUCE_NAMES = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin", "max": "amax",
                 "min": "amin"}


def scatter_reduce(input, dim, index, src, reduce=_NOT_GIVEN, *, include_self=True):
    need_tensor("scatter_reduce", "input", 1, input)
    need_tensor("scatter_reduce", "index", 3, index)
    need_tensor("scatter_reduce", "src", 4, src)
    if reduce is _NOT_GIVEN:
        raise TypeError('scatter_reduce() missing 1 required positional arguments: "reduce"')
    given = dim
    dim, idx = _scatter_checks(input, dim, index, src)
    kind = _REDUCE_NAMES.get(reduce)
    if kind is None:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = input._data
    if kind == "mean" and d.dtype == np.bool_:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    out = d.copy()
    if idx.size:
        out = _reduce_into(d.reshape(d.shape or (1,)), _along(idx, dim), _scatter_part(src._data, idx), kind,
                           include_self).reshape(d.shape)
    attrs = {"dim": dim, "index": idx, "reduce": reduce, "include_self": include_self}
    if kind == "prod" and _grad_mode._fw_active:
        with _grad_mode.forward_ad_off():  # (PyTorch's scatter_reduce_jvp has no prod: no tangent)
            out = record(SCATTER_REDUCE_TWO, (input, src), out, attrs)
    else:
        out = record(SCATTER_REDUCE_TWO, (input, src), out, attrs)
    return _given(out, dim=given) if given != dim else out


def _index_func_checks(name, input, dim, index, source):
    """The checks index_add and index_reduce share (PyTorch's index_func_meta_impl), in its order."""
    d, s, idx = input._data, source._data, index._data
    if idx.ndim > 1:
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{_scalar_type(index)} and size: {list(idx.shape)}")
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{name}_(): Expected dtype int32/int64 for index but got: {_scalar_type(index)}")
    if s.dtype != d.dtype:
        raise RuntimeError(f"{name}_(): self ({_scalar_type(input)}) and source ({_scalar_type(source)}) must have "
                           "the same scalar type")
    n = s.shape[norm_dims(dim, s.ndim)[0]] if s.ndim else 1
    if idx.size != n:
        raise RuntimeError(f"{name}_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({n}), for dim: {dim}")
    rest_self = d.shape[:dim] + d.shape[dim + 1:] if d.ndim and s.ndim else d.shape
    rest_source = s.shape[:dim] + s.shape[dim + 1:] if d.ndim and s.ndim else s.shape
    if rest_self != rest_source:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {list(d.shape)} source.shape = {list(s.shape)}")
    return idx.reshape(-1)


def _index_in_range(input, dim, flat):
    size = input._data.shape[dim] if input._data.ndim else 1
    if flat.size and (flat.min() < 0 or flat.max() >= size):
        raise IndexError("index out of range in self")
    return flat


def _index_counts(shape, dtype, dim, index, values, start=0):
    """``full(shape, start).index_add(dim, index, values)`` on arrays."""
    out = np.full(shape or (1,), start, dtype=dtype)
    np.add.at(out, (slice(None),) * dim + (index.reshape(-1),), np.broadcast_to(values, _index_shape(out, dim, index)))
    return out.reshape(shape)


def _index_shape(d, dim, index):
    return d.shape[:dim] + (index.size,) + d.shape[dim + 1:]


def _index_select_np(d, dim, index):
    return np.take(d.reshape(d.shape or (1,)), index.reshape(-1).astype(np.intp), axis=dim)


_INDEX_FAMILY = types.SimpleNamespace(
    name="index_reduce", noun="source", kinds=("prod", "mean", "amax", "amin"), names="'prod', 'amax', 'amin' or 'mean'",
    op=lambda *a, **kw: index_reduce(*a, **kw), pick=index_select, pick_np=_index_select_np, counts=_index_counts,
    part=lambda s, index: s.reshape(s.shape or (1,)), unfill=index_fill)


INDEX_REDUCE = defop("IndexReduceBackward0",
                     lambda g, ans, x, source, dim, index, reduce, include_self:
                     _reduce_self_grad(_INDEX_FAMILY, g, ans, x, source, dim, index, reduce, include_self),
                     lambda g, ans, x, source, dim, index, reduce, include_self:
                     _reduce_src_grad(_INDEX_FAMILY, g, ans, x, source, dim, index, reduce, include_self),
                     saves=(0, 1, "result"), keeps=True)
_INDEX_REDUCE_WARNED = [False]


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    need_tensor("index_reduce", "input", 1, input)
    need_tensor("index_reduce", "index", 3, index)
    need_tensor("index_reduce", "source", 4, source)
    if _grad_mode._fw_active and (input._fw_grad is not None or source._fw_grad is not None):
        from .autograd.forward_ad import not_implemented_yet

        raise not_implemented_yet("index_reduce")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = input._data
    given, dim = dim, _one_dim(dim, d.ndim)
    flat = _index_func_checks("index_reduce", input, dim, index, source)
    if not _INDEX_REDUCE_WARNED[0]:
        _INDEX_REDUCE_WARNED[0] = True  # (once per process, as PyTorch's TORCH_WARN_ONCE)
        warnings.warn("index_reduce() is in beta and the API may change at any time. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)", UserWarning,
                      stacklevel=2)
    _index_in_range(input, dim, flat)
    s = source._data
    out = d.copy()
    if flat.size:
        out = _reduce_into(d.reshape(d.shape or (1,)), (slice(None),) * dim + (flat,), s.reshape(s.shape or (1,)),
                           reduce, include_self).reshape(d.shape)
    out = record(INDEX_REDUCE, (input, source), out,
                 {"dim": dim, "index": index._data, "reduce": reduce, "include_self": include_self})
    return _given(out, dim=given) if given != dim else out


def _index_put_items(x, indices, values):
    """index_put's indices as NumPy index arrays (a bool or byte tensor is a mask), checked as PyTorch checks them."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(i).__name__}")
    if not isinstance(values, Tensor):
        raise tensor_expected("index_put", "values", 2, values)
    if len(indices) == 1 and indices[0]._data.dtype == np.uint8 and values._data.size == 1:
        # (PyTorch hands a lone mask and a single value to masked_fill_, which takes bool masks only)
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    items = []
    for i in indices:
        a = i._data
        if a.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if a.dtype == np.uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                          "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)",
                          UserWarning, stacklevel=3)
            a = a.astype(bool)
        items.append(a)
    nd = x._data.ndim
    used = builtins.sum(_dims_indexed(i) for i in items)
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {used})")
    # A 0-d True covers no dim; a 0-d False selects nothing.
    if builtins.any(i.ndim == 0 and i.dtype == np.bool_ and not i for i in items):
        return None
    items = [i for i in items if i.ndim or i.dtype != np.bool_]
    return tuple(items) if items else (slice(None),)


def index_put(input, indices, values, accumulate=False):
    items = _index_put_items(input, indices, values)
    d, v = input._data, values._data
    if v.dtype != d.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_scalar_type(input)} for the "
                           f"destination and {_scalar_type(values)} for the source.")
    if items is None:
        return record(INDEX_PUT, (input, values), d.copy(), {"index": (np.zeros(0, np.int64),), "accumulate": accumulate})
    try:
        _check_indices(d.shape, items)
        out_of_bounds = None
    except IndexError as e:
        if not str(e).startswith("index "):
            raise
        out_of_bounds = e  # (PyTorch meets it after the value's shape)
    safe = items if out_of_bounds is None else tuple(
        np.zeros_like(i) if isinstance(i, np.ndarray) and i.dtype != np.bool_ else i for i in items)
    target = d[safe].shape
    if not _broadcastable(v.shape, target) or np.broadcast_shapes(v.shape, target) != target:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target)}")
    if out_of_bounds is not None:
        raise out_of_bounds
    out = d.copy()
    if accumulate:
        np.add.at(out, items, np.broadcast_to(v, target))
    else:
        out[items] = v
    return record(INDEX_PUT, (input, values), out, {"index": items, "accumulate": accumulate})


# ----- embedding -----

EMBEDDING = defop("EmbeddingBackward0", lambda g, ans, weight, indices, padding_idx, scale_grad_by_freq, sparse:
                  embedding_dense_backward(g, indices, weight.shape[0], padding_idx, scale_grad_by_freq), keeps=True)
EMBEDDING_DENSE_BACKWARD = defop(
    "EmbeddingDenseBackwardBackward0",
    lambda g, ans, grad_output, indices, num_weights, padding_idx, scale_grad_by_freq:
    _embedding_double_backward(g, indices, padding_idx), keeps=True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``: rows of ``weight`` picked by ``indices`` (``F.embedding`` checks and renorms first)."""
    need_tensor("embedding", "weight", 1, weight)
    need_tensor("embedding", "indices", 2, indices)
    w, idx = weight._data, indices._data
    if w.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                           f"Int; but got torch.{_dtypes.from_numpy_dtype(idx.dtype)._legacy} instead (while checking "
                           "arguments for embedding)")
    if sparse and _grad_mode._enabled and weight._requires_grad:
        raise NotImplementedError("embedding with sparse=True: sparse gradients are not available in this engine")
    flat = idx.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= w.shape[0]):
        raise IndexError("index out of range in self")
    return record(EMBEDDING, (weight,), w[flat].reshape(idx.shape + w.shape[1:]),
                  {"indices": idx, "padding_idx": padding_idx, "scale_grad_by_freq": scale_grad_by_freq,
                   "sparse": sparse})


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's grad: each index's rows of ``grad_output`` summed into its row (none into
    ``padding_idx``'s), divided by the index's count with ``scale_grad_by_freq``."""
    go = grad_output._data
    flat = indices.reshape(-1)
    keep = flat != padding_idx
    flat, rows = flat[keep], go.reshape(-1, go.shape[-1])[keep]
    out = np.zeros((num_weights, go.shape[-1]), dtype=go.dtype)
    if not scale_grad_by_freq:
        np.add.at(out, flat, rows)
    else:
        # Row by row in the indices' order, each added as out + scale * row rounded once (PyTorch's
        # kernel adds with alpha=scale, a fused multiply-add): one round per repeat of an index.
        counts = np.bincount(indices.reshape(-1).astype(np.intp), minlength=num_weights)  # (intp: 32 bits in Pyodide)
        scale = (1.0 / counts[flat]).astype(go.dtype)[:, None]
        order = np.argsort(flat, kind="stable")
        repeat = np.empty(flat.size, np.int64)
        repeat[order] = np.arange(flat.size) - np.searchsorted(flat[order], flat[order])
        for r in range(int(repeat.max()) + 1 if flat.size else 0):
            at = repeat == r
            out[flat[at]] = fma(scale[at], rows[at], out[flat[at]], go.dtype)
    return record(EMBEDDING_DENSE_BACKWARD, (grad_output,), out,
                  {"indices": indices, "num_weights": num_weights, "padding_idx": padding_idx,
                   "scale_grad_by_freq": scale_grad_by_freq})


def _embedding_double_backward(g, indices, padding_idx):
    # (PyTorch's: the rows picked again, padding zeroed; the count scaling, if any, is not applied again)
    flat = indices.reshape(-1)
    out = index_select(g, 0, _wrap(flat))
    if padding_idx >= 0:
        out = masked_fill(out, _wrap((flat == padding_idx)[:, None]), 0.0)
    return view(out, indices.shape + (-1,))


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rows of ``weight`` that ``indices`` name, scaled in place to norm ``max_norm`` where they exceed it."""
    w, idx = weight._data, indices._data
    rows = np.unique(idx)
    if rows.size and (rows[0] < 0 or rows[-1] >= w.shape[0]):
        raise IndexError("index out of range in self")
    for r in rows:
        norm = float(np.linalg.norm(w[r], norm_type))
        if norm > max_norm:
            w[r] *= max_norm / (norm + 1e-7)
    weight._bump()
    return weight


# ----- einsum: PyTorch's algorithm, so that its graph has PyTorch's nodes -----
# Each operand: diagonals for repeated labels, size-1 dims for missing labels, then permuted to
# (output labels, contracted labels); then the operands are contracted left to right, each pair by
# sumproduct_pair (a bmm between permuted and reshaped operands, or a mul when nothing is summed).

def _einsum_label(c):
    return ord(c) - ord("A") if c <= "Z" else ord(c) - ord("a") + 26


def _einsum_char(label):
    return chr(label + ord("A")) if label < 26 else chr(label - 26 + ord("a"))


_ELLIPSIS = 52


def _einsum_parse(equation, num_ops):
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = [[]]
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if lhs[i:i + 3] != "..." or _ELLIPSIS in op_labels[-1]:
                raise RuntimeError("einsum(): found '.' for operand "
                                   f"{len(op_labels) - 1} that is not part of any ellipsis")
            op_labels[-1].append(_ELLIPSIS)
            i += 2
        elif c == ",":
            op_labels.append([])
            if len(op_labels) > num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
        elif c.isascii() and c.isalpha():
            op_labels[-1].append(_einsum_label(c))
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        i += 1
    if len(op_labels) < num_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    out = None
    if arrow >= 0:
        out = []
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if rhs[i:i + 3] != "..." or _ELLIPSIS in out:
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis")
                out.append(_ELLIPSIS)
                i += 2
            elif c.isascii() and c.isalpha():
                out.append(_einsum_label(c))
            else:
                raise RuntimeError(f"einsum(): invalid subscript given at index {arrow + 2 + i} in the equation "
                                   "string, subscripts must be in [a-zA-Z]")
            i += 1
    return op_labels, out


def _sumproduct_pair(left, right, sum_dims, keepdim):
    if not sum_dims:
        return mul(left, right)
    ndim = left._data.ndim
    ls, rs = left._data.shape, right._data.shape
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = ls[i] != 1, rs[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= ls[i]
            elif sl:
                left = sum(left, i, keepdim=True)
            elif sr:
                right = sum(right, i, keepdim=True)
        elif sl and sr:
            lro.append(i)
            lro_size *= ls[i]
        elif sl:
            lo.append(i)
            lo_size *= ls[i]
        else:
            ro.append(i)
            ro_size *= rs[i]
    out_size = [ls[d] for d in lro] + [ls[d] for d in lo] + [1] * len(sum_dims) + [rs[d] for d in ro]
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(lperm)
    for i, d in enumerate(lperm):
        operm[d] = i
    left = reshape(permute(left, lperm), (lro_size, lo_size, sum_size))
    right = reshape(permute(right, rperm), (lro_size, sum_size, ro_size))
    result = permute(view(bmm(left, right), out_size), operm)
    if not keepdim:
        result = view(result, [s for i, s in enumerate(result._data.shape) if i not in sum_dims])
    return result


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        if not isinstance(equation, Tensor):
            raise tensor_expected("einsum", "equation", 1, equation, "str")
        raise NotImplementedError("einsum in the sublist format is not available in this engine")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    op_labels, out_labels = _einsum_parse(equation, num_ops)

    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (labels, op) in enumerate(zip(op_labels, operands)):
        nd = op._data.ndim
        has_ell = _ELLIPSIS in labels
        n_named = len(labels) - has_ell
        if has_ell:
            if n_named > nd:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) is more than the "
                                   f"number of dimensions ({nd}) for operand {i}")
            ell_num_dim = builtins.max(ell_num_dim, nd - n_named)
        elif n_named != nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) does not match the "
                               f"number of dimensions ({nd}) for operand {i} and no ellipsis was given")
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1

    label_perm_index = [-1] * _ELLIPSIS
    perm_index = 0
    ell_index = 0
    found_ell = False
    if out_labels is None:  # implicit output: the ellipsis, then the labels seen once, in order
        perm_index = ell_num_dim
        found_ell = True
        for label in range(_ELLIPSIS):
            if label_count[label] == 1:
                label_perm_index[label] = perm_index
                perm_index += 1
    else:
        for s in out_labels:
            if s == _ELLIPSIS:
                ell_index = perm_index
                perm_index += ell_num_dim
                found_ell = True
                continue
            if label_count[s] == 0:
                raise RuntimeError(f"einsum(): output subscript {_einsum_char(s)} does not appear in the equation "
                                   "for any input operand")
            if label_perm_index[s] != -1:
                raise RuntimeError(f"einsum(): output subscript {_einsum_char(s)} appears more than once in the output")
            label_perm_index[s] = perm_index
            perm_index += 1
    out_num_dim = perm_index
    if not found_ell:
        ell_index = perm_index
        perm_index += ell_num_dim
    for label in range(_ELLIPSIS):
        if label_count[label] > 0 and label_perm_index[label] == -1:
            label_perm_index[label] = perm_index
            perm_index += 1

    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, (labels, op) in enumerate(zip(op_labels, operands)):
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            size = op._data.shape[dim] if dim < op._data.ndim else None
            if s == _ELLIPSIS:
                ndim = operands[i]._data.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._data.shape[dim]
                    if size != 1:
                        if ell_sizes[j] not in (1, size):
                            raise RuntimeError("einsum(): operands do not broadcast with remapped shapes "
                                               "(original->remapped)")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                if size != 1:
                    if label_size[s] not in (1, size):
                        raise RuntimeError(f"einsum(): subscript {_einsum_char(s)} has size {size} for operand {i} "
                                           f"which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = size
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, moved to where the label first was
                prev = permutation[label_perm_index[s]]
                if size != op._data.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {_einsum_char(s)} is repeated for operand {i} but the "
                                       f"sizes don't match, {size} != {op._data.shape[prev]}")
                op = diagonal(op, 0, prev, dim)
                nd = op._data.ndim
                order = list(range(nd - 1))
                order.insert(prev, nd - 1)
                op = permute(op, order)  # movedim(-1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(permute(op, permutation))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_dims, b_dims = [], [], []
        sa, sb = a._data.shape, b._data.shape
        for dim in range(out_num_dim, perm_index):
            if sa[dim] != 1 and sb[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if sa[dim] != 1:
                    a_dims.append(dim)
                    dim_counts[dim] = 0
                elif sb[dim] != 1:
                    b_dims.append(dim)
                    dim_counts[dim] = 0
        if a_dims:
            a = sum(a, a_dims, keepdim=True)
        if b_dims:
            b = sum(b, b_dims, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims, True))

    result = ops[0]
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return view(result, result._data.shape[:out_num_dim])
        return sum(result, list(range(out_num_dim, perm_index)))
    return result


# ----- The rules on NumPy arrays -----
# A backward pass that builds no graph (create_graph=False: nearly every one) runs each rule on
# the NumPy arrays themselves: the rule's own code, with the engine ops it calls bound to what
# they compute on arrays. The rule stays the one definition of its derivative, and a backward
# pass makes no tensor per op of it.

def _sum(x, dim=None, keepdim=False):
    if dim is None:
        return add_reduce(x)
    return add_reduce(x, norm_dims(dim, np.ndim(x)), keepdim)


def _squeeze(x, dim=None):
    shape = np.shape(x)
    dims = range(len(shape)) if dim is None else norm_dims(dim, len(shape))
    return np.reshape(x, [s for i, s in enumerate(shape) if not (i in dims and s == 1)])


def _expand(x, *sizes):
    # A rule passes a shape it read (a tuple of ints): no need to coerce it.
    shape = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], tuple) else _shape_arg(sizes)
    return _broadcast_view(x if type(x) is _ndarray else np.asarray(x), shape)


def _pow(a, exponent):
    return _pow_scalar(a, exponent) if is_scalar(exponent) else _power(a, exponent)


_ON_ARRAYS.update({
    neg: np.negative, sgn: _sign_np, mul: np.multiply, pow: _pow, where: np.where, _zero_grad: np.zeros_like,
    _mul_scalar: np.multiply, _div_scalar: np.true_divide, _add_scalar: np.add,
    sum: _sum, sum_to: _sum_to, expand: _expand,
    reshape: lambda x, *shape: np.reshape(x, _shape_arg(shape)), squeeze: _squeeze, unsqueeze: np.expand_dims,
    transpose: lambda x, d0, d1: x.swapaxes(d0, d1) if x.ndim else x, t: operator.attrgetter("T"),
    permute: lambda x, *dims: x.transpose(_shape_arg(dims)),
    mm: np.matmul, mv: np.matmul, bmm: np.matmul, _logit_grad: _logit_backward,
    sigmoid_backward: _sigmoid_backward, tanh_backward: _tanh_backward, threshold_backward: _threshold_backward,
    leaky_relu_backward: _leaky_relu_backward, softplus_backward: _softplus_backward, elu_backward: _elu_backward,
    _softmax_backward_data: _softmax_backward, _log_softmax_backward_data: _log_softmax_backward,
    mse_loss_backward: _mse_loss_backward, binary_cross_entropy_backward: _binary_cross_entropy_backward,
    gelu_backward: _gelu_backward, hardtanh_backward: _hardtanh_backward, log_sigmoid_backward: _log_sigmoid_backward,
    hardsigmoid_backward: _hardsigmoid_backward, hardswish_backward: _hardswish_backward, glu_backward: _glu_backward,
    smooth_l1_loss_backward: _smooth_l1_loss_backward, huber_loss_backward: _huber_loss_backward,
    _sub_scalar: np.subtract, _rsub_scalar: np.subtract, _rdiv_scalar: np.true_divide,
    _nll_loss_backward: lambda op, go, x, **attrs: _nll_backward(go, x, **attrs),
    masked_fill: lambda x, mask, value: np.where(mask._data if isinstance(mask, Tensor) else mask,
                                                 np.asarray(value, x.dtype), x),
    _zeros: lambda shape, like: np.zeros(shape, like.dtype),
    _view_backward: lambda op, g, shape, index, dim=None: _put_np(g, shape, index),
    _index_backward: lambda g, shape, index: _embed_np(g, shape, index),
    unfold_backward: _unfold_backward,
    # (their argument checks read ``Tensor``, which has no array twin)
    square: lambda x: _pow(x, 2), broadcast_to: lambda x, shape: _expand(x, tuple(shape)),
    swapaxes: lambda x, d0, d1: x.swapaxes(d0, d1), negative: np.negative,
})
_array_twins = {}
_array_globals = None


def _on_arrays(fn):
    """``fn`` (a rule, or a helper a rule calls) with each engine op it calls bound to its
    counterpart in ``_ON_ARRAYS``; None when it uses anything else a tensor has and an array has
    not (another op, a tensor method or attribute but ``shape``, a closure over a function).
    Such a rule runs on tensors, as every rule does when a graph is built."""
    twin = _ON_ARRAYS.get(fn)
    if twin is not None:
        return twin
    if fn in _array_twins:
        return _array_twins[fn]
    _array_twins[fn] = None  # (meanwhile: a helper that calls itself back stays on tensors)
    global _array_globals
    if _array_globals is None:  # (at the first backward: every op and helper is defined by then)
        _array_globals = dict(globals())
    code = getattr(fn, "__code__", None)
    if (code is None or getattr(fn, "__globals__", None) is not globals()
            or builtins.any(callable(c.cell_contents) for c in fn.__closure__ or ())):
        return None
    bound = {}
    for name in _names_read(code):
        if name is None:
            return None
        value = globals().get(name, _NOT_GLOBAL)
        if value is _NOT_GLOBAL:
            if not hasattr(builtins, name):
                return None
        elif callable(value):
            bound[name] = _on_arrays(value)
            if bound[name] is None:
                return None
    _array_globals.update(bound)
    twin = types.FunctionType(code, _array_globals, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__kwdefaults__ = fn.__kwdefaults__
    _array_twins[fn] = twin
    return twin


_NOT_GLOBAL = object()


def _names_read(code):
    """The global names ``code`` (and the functions inside it) reads, and None for each attribute
    it reads of anything but NumPy, math and builtins, other than ``shape``, or for any name whose
    use it cannot tell (an opcode this scan does not know)."""
    on_module = False
    told = set()
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_GLOBAL":
            on_module = ins.argval in ("np", "math", "builtins")
            told.add(ins.argval)
            yield ins.argval
        elif "ATTR" in ins.opname or ins.opname == "LOAD_METHOD":
            told.add(ins.argval)
            if on_module and ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                continue
            if ins.opname != "LOAD_ATTR" or ins.argval != "shape":
                yield None
            on_module = False
        else:
            on_module = False
    if not told.issuperset(code.co_names):
        yield None
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _names_read(c)


# ----- The trapezoidal rule, composed as PyTorch composes it (so its graph is PyTorch's) -----

def _trapezoid_args(fname, y, x, dx, dim):
    need_tensor(fname, "y", 1, y)
    if x is not None and dx is not None:
        raise invalid_arguments(fname, y, x, dx=dx, dim=dim)
    if x is not None:
        if not isinstance(x, Tensor):
            raise invalid_arguments(fname, y, x, **_given_kw(dim=None if dim == -1 else dim))
    elif dx is not None and (isinstance(dx, (bool, np.bool_)) or not is_scalar(dx)):
        if isinstance(dx, (bool, np.bool_)):
            raise RuntimeError(f"{fname}: Currently, we only support dx as a real number.")
        raise invalid_arguments(fname, y, dx=dx, dim=dim)
    (d,) = norm_dims(dim, y._data.ndim)
    if y._data.dtype == np.bool_ or x is not None and x._data.dtype == np.bool_:
        which = "`x` or `y`" if x is not None else "`y`"
        raise RuntimeError(f"{fname}: received a bool input for {which}, but bool is not supported")
    return d


def _spacing(fname, y, x, d):
    """``x``'s differences along ``d``, ``x`` viewed first to broadcast against ``y`` (NumPy's way)."""
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[d]:
            raise RuntimeError(f"{fname}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[d] = x._data.shape[0]
        x = view(x, tuple(shape))
    elif x._data.ndim < y._data.ndim:
        x = view(x, (1,) * (y._data.ndim - x._data.ndim) + x._data.shape)
    left, right = _ends(x, d)  # (left first: the order PyTorch makes them, and so its backward's)
    return right - left


def _ends(y, dim):
    return _cpp_slice(y, dim, 0, -1), _cpp_slice(y, dim, 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``: ``sum(dx_i * (y_i + y_i+1) / 2)``, spaced by ``x`` or by ``dx``."""
    d = _trapezoid_args("trapezoid", y, x, dx, dim)
    if y._data.shape[d] == 0:
        return _wrap(np.zeros(y._data.shape[:d] + y._data.shape[d + 1:], y._data.dtype))
    if x is not None:
        spacing = _spacing("trapezoid", y, x, d)
        left, right = _ends(y, d)
        return _div_scalar(sum((left + right) * spacing, d), 2.0)
    # (with dx, PyTorch's dims are as given: with x, wrapped first)
    last = select(y, dim, -1)  # (first: GCC evaluates the operands of PyTorch's ``+`` right to left)
    ends = _mul_scalar(select(y, dim, 0) + last, 0.5)
    return _mul_scalar(sum(y, dim) - ends, float(1 if dx is None else dx))


def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid``, by its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along ``dim``: one value per spacing, as ``cumsum`` to ``sum``."""
    d = _trapezoid_args("cumulative_trapezoid", y, x, dx, dim)
    left, right = _ends(y, d if x is not None else dim)
    if x is not None:
        return _div_scalar(cumsum((left + right) * _spacing("cumulative_trapezoid", y, x, d), d), 2.0)
    return cumsum(_mul_scalar(left + right, float(1 if dx is None else dx) / 2.0), dim)


# ----- PyTorch's other names for these, and its small functions of them -----

def _renamed_binary(name, of):
    """``of`` (mul, sub, div) under another of PyTorch's names, whose argument errors are that name's
    "invalid combination"."""
    def f(input, other, **kwargs):
        if not (isinstance(input, Tensor) or isinstance(other, Tensor)) or not builtins.all(
                isinstance(x, Tensor) or is_scalar(x) for x in (input, other)):
            raise invalid_arguments(name, input, other, **kwargs)
        return of(input, other, **kwargs)

    f.__name__ = f.__qualname__ = name
    return f


multiply = _renamed_binary("multiply", mul)
subtract = _renamed_binary("subtract", sub)
divide = _renamed_binary("divide", div)
fix = _checked_alias("fix", trunc)
VDOT = defop("VdotBackward0", lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves=(0, 1))


def vdot(input, other):
    """``dot`` with the first argument conjugated: for real tensors, ``dot`` (node VdotBackward0)."""
    need_tensor("vdot", "input", 1, input)
    need_tensor("vdot", "other", 2, other)
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.shape != other._data.shape:
        na, nb = input._data.shape[0], other._data.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{na}] and src [{nb}] to have the same number "
                           f"of elements, but got {na} and {nb} elements respectively")
    _promote_pair(input, other, "dot")
    return record(VDOT, (input, other), np.asarray(np.dot(input._data, other._data)))


def positive(input):
    """``input`` itself, as PyTorch returns it (not for bool)."""
    need_tensor("positive", "input", 1, input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    """``contiguous`` then a view, as PyTorch's (a CloneBackward0 below the ViewBackward0 when it copies)."""
    need_tensor("ravel", "input", 1, input)
    return view(contiguous(input), (-1,))


def float_power(input, exponent):
    """``pow`` in float64, the inputs converted first (a ToCopyBackward0 below the PowBackward)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor) or not (
            isinstance(input, Tensor) or is_scalar(input)) or not (isinstance(exponent, Tensor) or is_scalar(exponent)):
        raise invalid_arguments("float_power", input, exponent)
    f64 = _dtypes.float64.np
    a = to_dtype(input, f64) if isinstance(input, Tensor) else float(input)
    b = to_dtype(exponent, f64) if isinstance(exponent, Tensor) else float(exponent)
    return pow(a, b)


def is_signed(input):
    need_tensor("is_signed", "input", 1, input)
    return input._data.dtype.kind in "fi"


def is_same_size(input, other):
    need_tensor("is_same_size", "input", 1, input)
    need_tensor("is_same_size", "other", 2, other)
    return input._data.shape == other._data.shape


def _real_only(name, result):
    """What PyTorch's complex-number queries and no-ops give for the real tensors this engine has."""
    def f(input):
        need_tensor(name, "input", 1, input)
        return result(input)

    f.__name__ = f.__qualname__ = name
    return f


is_complex = _real_only("is_complex", lambda t: False)
is_conj = _real_only("is_conj", lambda t: False)
is_neg = _real_only("is_neg", lambda t: False)
conj = _real_only("conj", lambda t: t)
resolve_conj = _real_only("resolve_conj", lambda t: t)
resolve_neg = _real_only("resolve_neg", lambda t: t)
isreal = _real_only("isreal", lambda t: _wrap(np.ones(t._data.shape, np.bool_)))
isposinf = _real_only("isposinf", lambda t: _wrap(np.isposinf(t._data)))
isneginf = _real_only("isneginf", lambda t: _wrap(np.isneginf(t._data)))


def _integer_only(name, fwd):
    def f(input, other):
        _tensor_pair(name, input, other)
        dt = _result_np_dtype(input, other)
        if dt.kind not in "iu":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_dtypes.from_numpy_dtype(dt)._legacy[:-6]}\'')
        return _wrap(np.asarray(fwd(input._data, other._data)).astype(dt, copy=False))

    f.__name__ = f.__qualname__ = name
    return f


gcd = _integer_only("gcd", np.gcd)
lcm = _integer_only("lcm", np.lcm)


# ----- The long tail: more of torch's functions, composites built as PyTorch builds them -----

def _ints(v):
    return (v,) if isinstance(v, int) else tuple(v)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim``: narrow and sub, as PyTorch's composite."""
    need_tensor("diff", "input", 1, input)
    x = input
    if x._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        if other is not None and other._data.ndim != x._data.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if (prepend is not None or append is not None) and n != 0:
        x = cat([p for p in (prepend, x, append) if p is not None], dim)
    if n == 0:  # PyTorch's zeros_like(x).copy_(x): a CopyBackwards node
        return _wrap(np.zeros_like(x._data)).copy_(x)
    size = x._data.shape[norm_dims(dim, x._data.ndim)[0]]
    out_len = size - 1
    for _ in range(builtins.min(n, size)):
        if x._data.dtype == np.bool_:
            x = logical_xor(narrow(x, dim, 1, out_len), narrow(x, dim, 0, out_len))
        else:
            # (the second narrow first, as PyTorch's build evaluates C++ arguments: the order in
            # which the two slices' grads are summed in a double backward)
            before = narrow(x, dim, 0, out_len)
            x = sub(narrow(x, dim, 1, out_len), before)
        out_len -= 1
    return x


def tensordot(a, b, dims=2):
    """Contract ``dims`` of ``a`` with ``dims`` of ``b``: permute, reshape, mm (or dot), reshape."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a._data.ndim or dims > b._data.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    na, nb = a._data.ndim, b._data.ndim
    dims_a = [norm_dims(d, na)[0] for d in dims_a]
    dims_b = [norm_dims(d, nb)[0] for d in dims_b]
    t1, t2, csize = a, b, 1
    for da, db in zip(dims_a, dims_b):
        s1, s2 = a._data.shape[da], b._data.shape[db]
        if s2 == 1:
            t1 = sum(t1, da, True)
        elif s1 == 1:
            t2 = sum(t2, db, True)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {da} and "
                                   f"second has size {s2} in dim {db}")
            csize *= s1
    p1 = [i for i in range(na) if i not in dims_a]
    p2 = [i for i in range(nb) if i not in dims_b]
    rsizes = [t1._data.shape[i] for i in p1] + [t2._data.shape[i] for i in p2]
    size1, size2 = math.prod(t1._data.shape[i] for i in p1), math.prod(t2._data.shape[i] for i in p2)
    t1 = permute(t1, p1 + dims_a)
    t2 = permute(t2, dims_b + p2)
    if size1 == 1 and size2 == 1:  # (a vector stays as it is)
        v1 = t1 if t1._data.ndim == 1 else reshape(t1, (csize,))
        v2 = t2 if t2._data.ndim == 1 else reshape(t2, (csize,))
        return reshape(dot(v1, v2), rsizes)
    return reshape(mm(reshape(t1, (size1, csize)), reshape(t2, (csize, size2))), rsizes)


def inner(input, other):
    """The sum of products over the last dim of each: ``tensordot`` over their last dims."""
    need_tensor("inner", "input", 1, input)
    need_tensor("inner", "other", 2, other)
    input, other = as_tensor_arg(input), as_tensor_arg(other)
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    return tensordot(input, other, ([-1], [-1]))


_MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. "
                     "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)")
_MESHGRID_WARNED = []


def meshgrid(*tensors, indexing=None):
    """Grids of the given 0-d or 1-d tensors: each viewed and expanded (``indexing`` 'ij' or 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _tensors_expected(tensors)
    if indexing is None:
        if not _MESHGRID_WARNED:  # (TORCH_WARN_ONCE: once per process)
            _MESHGRID_WARNED.append(True)
            warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for x in tensors:
        if x._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {x}")
        if x._data.dtype != tensors[0]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    shape = tuple(x._data.size for x in refs)
    grids = []
    for i, x in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(expand(view(x, tuple(view_shape)), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """The cartesian product of 1-d tensors: meshgrid's grids flattened and stacked."""
    _tensors_expected(tensors)
    for x in tensors:
        if x._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(x._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(g) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-d tensor's elements, as PyTorch picks them from meshgrids."""
    need_tensor("combinations", "input", 1, input)
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(np.empty(0, dtype=input._data.dtype))
    n = input._data.size
    grids = meshgrid(*([input] * r), indexing="ij")
    idx = np.indices((n,) * r) if n else np.zeros((r,) + (0,) * r, dtype=np.int64)
    mask = np.ones((n,) * r, dtype=bool)
    for a, b in zip(idx[:-1], idx[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    m = _wrap(mask)
    return stack([masked_select(g, m) for g in grids], 1)


def _tri_indices(rows, cols, offset, dtype, lower):
    from ._dtypes import int64

    for pos, (arg, v) in enumerate((("row", rows), ("col", cols), ("offset", offset)), 1):
        need_int("tril_indices" if lower else "triu_indices", arg, pos, v)

    r, c = np.tril_indices(rows, offset, cols) if lower else np.triu_indices(rows, offset, cols)
    return _wrap(np.stack([r, c]).reshape(2, -1).astype((dtype or int64).np))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor."""
    return _tri_indices(row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor."""
    return _tri_indices(row, col, offset, dtype, False)


# ----- Stacking, splitting, moving dims -----

def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one viewed as 1-d)."""
    return _atleast_each("atleast_1d", tensors, lambda x: view(x, (1,)) if x._data.ndim == 0 else x)


def atleast_2d(*tensors):
    """Each tensor with at least two dims."""
    def two(x):
        nd = x._data.ndim
        return view(x, (1, 1)) if nd == 0 else unsqueeze(x, 0) if nd == 1 else x
    return _atleast_each("atleast_2d", tensors, two)


def atleast_3d(*tensors):
    """Each tensor with at least three dims (a vector as (1, n, 1), a matrix as (m, n, 1))."""
    def three(x):
        nd = x._data.ndim
        if nd == 0:
            return view(x, (1, 1, 1))
        if nd == 1:
            return unsqueeze(unsqueeze(x, 0), -1)
        return unsqueeze(x, -1) if nd == 2 else x
    return _atleast_each("atleast_3d", tensors, three)


def _atleast_each(name, tensors, fn):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    elif len(tensors) == 1:
        if not isinstance(tensors[0], Tensor):
            raise invalid_arguments(name, tensors[0])
        return fn(tensors[0])
    _tensors_expected(tensors)
    return tuple(fn(x) for x in tensors)


def column_stack(tensors):
    """Tensors as columns side by side: 0-d and 1-d ones viewed as (n, 1), then cat along dim 1."""
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [reshape(x, (x._data.size, 1)) if x._data.ndim <= 1 else x for x in map(as_tensor_arg, tensors)]
    return cat(cols, 1)


def dstack(tensors):
    """Tensors stacked depthwise: each made 3-d, then cat along dim 2."""
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat(list(atleast_3d(list(tensors))), 2)


def movedim(input, source, destination):
    """``input`` with the dims at ``source`` moved to ``destination``: one permute."""
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("movedim", input, source, destination)
    src, dst = _ints(source), _ints(destination)
    nd = input._data.ndim
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    src_n = [norm_dims(d, nd)[0] if nd else 0 for d in src]
    dst_n = [norm_dims(d, nd)[0] if nd else 0 for d in dst]
    for name, given, normed in (("source", src, src_n), ("destination", dst, dst_n)):
        if len(set(normed)) != len(normed):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    if nd == 0:
        return alias(input)
    order = [-1] * nd
    for s, d in zip(src_n, dst_n):
        order[d] = s
    rest = iter(i for i in range(nd) if i not in src_n)
    order = [o if o != -1 else next(rest) for o in order]
    return permute(input, order)


def moveaxis(input, source, destination):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("moveaxis", input, source, destination)
    return movedim(input, source, destination)


def swapdims(input, dim0, dim1):
    """``transpose`` under NumPy's other name."""
    need_tensor("swapdims", "input", 1, input)
    return transpose(input, dim0, dim1)


_ON_ARRAYS[swapdims] = _ON_ARRAYS[transpose]


def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` split into sections (an int) or at indices (a sequence), each a slice."""
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments("tensor_split", input, indices_or_sections,
                                *(() if type(dim) is int and dim == 0 else (dim,)))
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = norm_dims(dim, nd)[0]
    size = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t._data.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_dtypes.from_numpy_dtype(t._data.dtype)}")
        if t._data.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t._data.ndim} dims")
        indices_or_sections = int(t._data) if t._data.ndim == 0 else t._data.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            stop = start + small + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [0] + list(indices_or_sections) + [size]
        bounds = [slice(*slice(a, b).indices(size)[:2]) for a, b in zip(cuts[:-1], cuts[1:])]
        return tuple(_slice(input, d, slice(s.start, builtins.max(s.start, s.stop))) for s in bounds)
    return tuple(_slice(input, d, slice(a, b)) for a, b in bounds)


def _split_dims(fname, input, sections, dim, least):
    if type(input) is not Tensor and not isinstance(input, Tensor):
        raise invalid_arguments(fname, input, sections)
    nd = input._data.ndim
    if nd < least:
        s = "" if least == 1 else ""
        raise RuntimeError(f"torch.{fname} requires a tensor with at least {least} dimension{s}, but got a tensor "
                           f"with {nd} dimensions!")
    if isinstance(sections, int):
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{fname} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for a vector), sections of equal size."""
    return _split_dims("hsplit", input, indices_or_sections, 1 if getattr(input, "ndim", 0) > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0, sections of equal size."""
    return _split_dims("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2, sections of equal size."""
    return _split_dims("dsplit", input, indices_or_sections, 2, 3)


def fliplr(input):
    """``input`` flipped left to right (dim 1)."""
    need_tensor("fliplr", "input", 1, input)
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """``input`` flipped upside down (dim 0)."""
    need_tensor("flipud", "input", 1, input)
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


ROT90 = defop("Rot90Backward0", lambda g, ans, x, k, dims: rot90(g, -k, dims))


def rot90(input, k=1, dims=(0, 1)):
    """``input`` turned ``k`` quarter turns in the plane of ``dims`` (from the first toward the second)."""
    need_tensor("rot90", "input", 1, input)
    dims = list(dims)
    nd = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    if dims[0] == dims[1] or builtins.abs(dims[0] - dims[1]) == nd:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    d = tuple(norm_dims(v, nd)[0] for v in dims)
    out = _given(record(ROT90, (input,), np.rot90(input._data, k, d).copy(), {"k": k, "dims": d}), dims=dims)
    return out


DIAG_EMBED_DIMS = defop("DiagEmbedBackward0",
                        lambda g, ans, x, offset, dim1, dim2: diagonal(g, offset, dim1, dim2))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensors whose diagonals (in the plane of ``dim1`` and ``dim2``) are ``input``'s last dim."""
    need_tensor("diag_embed", "input", 1, input)
    d = input._data
    nd = d.ndim + 1
    d1, d2 = norm_dims(dim1, nd)[0], norm_dims(dim2, nd)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (d.shape[-1] if d.ndim else 1) + builtins.abs(offset)
    rest = list(d.shape[:-1])
    shape = []
    for i in range(nd):
        shape.append(n if i in (d1, d2) else rest.pop(0))
    out = np.zeros(shape, dtype=d.dtype)
    _diagonal_np(out, offset, d1, d2)[...] = d
    return record(DIAG_EMBED_DIMS, (input,), out, {"offset": offset, "dim1": dim1, "dim2": dim2})  # (as given)


def diagflat(input, offset=0):
    """A matrix with ``input``'s elements (flattened) on its ``offset`` diagonal."""
    need_tensor("diagflat", "input", 1, input)
    return diag_embed(reshape(contiguous(input), (-1,)), offset, 0, 1)


def _block_diag_rule(i):
    return lambda g, ans, *xs, spans: _block_grad(g, xs[i], spans[i])


def _block_grad(g, x, span):
    r0, r1, c0, c1 = span
    part = narrow(narrow(g, 0, r0, r1 - r0), 1, c0, c1 - c0)
    for _ in range(2 - len(x.shape)):  # (PyTorch's block_diag_backward squeezes; the walk sums a 1-d block's row)
        part = squeeze(part, -1)
    return part.to(x.dtype) if part.dtype != x.dtype else part


_BLOCK_DIAG_OPS = {}


def block_diag(*tensors):
    """The tensors (0-d, 1-d as rows, or 2-d) as the blocks along a matrix's diagonal."""
    _tensors_expected(tensors)
    for i, x in enumerate(tensors):
        if x._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{x._data.ndim} dimensions")
    dt = _dtypes.result_type(*tensors).np if tensors else np.float32
    mats = [x._data.reshape((1, -1) if x._data.ndim < 2 else x._data.shape) for x in tensors]
    rows, cols = builtins.sum(m.shape[0] for m in mats), builtins.sum(m.shape[1] for m in mats)
    out = np.zeros((rows, cols), dtype=dt)
    spans, r, c = [], 0, 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        spans.append((r, r + m.shape[0], c, c + m.shape[1]))
        r, c = r + m.shape[0], c + m.shape[1]
    n = len(tensors)
    op = _BLOCK_DIAG_OPS.get(n) or _BLOCK_DIAG_OPS.setdefault(
        n, defop("BlockDiagBackward0", *[_block_diag_rule(i) for i in range(n)]))
    return record(op, tuple(tensors), out, {"spans": tuple(spans)})


# ----- addmv, addr, baddbmm, addbmm: one node each, as in PyTorch -----

def _maybe_multiply(g, s):
    return g if s == 1 else _mul_scalar(g, s)


def _bmm_expanded(g, b1, b2):
    return expand(unsqueeze(g, 0), (b1.shape[0], b1.shape[1], b2.shape[2]))


ADDMV = defop("AddmvBackward0", lambda g, ans, c, m, v, beta, alpha: _maybe_multiply(g, beta),
              lambda g, ans, c, m, v, beta, alpha: _maybe_multiply(outer(g, v), alpha),
              lambda g, ans, c, m, v, beta, alpha: _maybe_multiply(mv(t(m), g), alpha), saves=(1, 2))
ADDR = defop("AddrBackward0", lambda g, ans, c, u, v, beta, alpha: _maybe_multiply(g, beta),
             lambda g, ans, c, u, v, beta, alpha: _maybe_multiply(mv(g, v), alpha),
             lambda g, ans, c, u, v, beta, alpha: _maybe_multiply(mv(t(g), u), alpha), saves=(1, 2))
BADDBMM = defop("BaddbmmBackward0", lambda g, ans, c, b1, b2, beta, alpha: _maybe_multiply(g, beta),
                lambda g, ans, c, b1, b2, beta, alpha: _maybe_multiply(bmm(g, transpose(b2, 1, 2)), alpha),
                lambda g, ans, c, b1, b2, beta, alpha: _maybe_multiply(bmm(transpose(b1, 1, 2), g), alpha),
                saves=(1, 2))
ADDBMM = defop("AddbmmBackward0", lambda g, ans, c, b1, b2, beta, alpha: _maybe_multiply(g, beta),
               lambda g, ans, c, b1, b2, beta, alpha:
               _maybe_multiply(bmm(_bmm_expanded(g, b1, b2), transpose(b2, 1, 2)), alpha),
               lambda g, ans, c, b1, b2, beta, alpha:
               _maybe_multiply(bmm(transpose(b1, 1, 2), _bmm_expanded(g, b1, b2)), alpha), saves=(1, 2))


def _add_product(op, c, a, b, prod, shape, beta, alpha, fname):
    c = as_tensor_arg(c)
    _check_expandable(c._data.shape, shape, shape)
    dt = _dtypes.result_type(c, a, b).np
    with np.errstate(all="ignore"):
        p = prod.astype(dt, copy=False)
        out = p * alpha if alpha != 1 else p
        if beta != 0:
            out = out + (c._data * beta if beta != 1 else c._data)
    out = np.broadcast_to(np.asarray(out, dtype=dt), shape).copy()
    return record(op, (c, a, b), out, {"beta": beta, "alpha": alpha})


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``: one AddmvBackward0 node."""
    need_tensor("addmv", "input", 1, input)
    if type(mat) is not Tensor:
        need_tensor("addmv", "mat", 2, mat)
    if type(vec) is not Tensor:
        need_tensor("addmv", "vec", 3, vec)
    input = as_tensor_arg(input)
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
                           f"{vec._data.ndim}")
    if mat._data.shape[1] != vec._data.shape[0] or input._data.size not in (1, mat._data.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}), "
                           f"mat ({'x'.join(map(str, mat._data.shape))}), vec ({vec._data.shape[0]})")
    return _add_product(ADDMV, input, mat, vec, mat._data @ vec._data, (mat._data.shape[0],), beta, alpha, "addmv")


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``: one AddrBackward0 node."""
    need_tensor("addr", "input", 1, input)
    if type(vec1) is not Tensor:
        need_tensor("addr", "vec1", 2, vec1)
    if type(vec2) is not Tensor:
        need_tensor("addr", "vec2", 3, vec2)
    if vec1._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1._data.ndim}-D" if vec1._data.ndim != 1
                           else f"addr: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    return _add_product(ADDR, input, vec1, vec2, np.multiply.outer(vec1._data, vec2._data), shape, beta, alpha, "addr")


def _bmm_check(b1, b2):
    if b1._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``, batch by batch: one BaddbmmBackward0 node."""
    need_tensor("baddbmm", "input", 1, input)
    if type(batch1) is not Tensor:
        need_tensor("baddbmm", "batch1", 2, batch1)
    if type(batch2) is not Tensor:
        need_tensor("baddbmm", "batch2", 3, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) >= 2 and len(s2) >= 3:  # (PyTorch expands input before it checks the batches)
        _check_expandable(as_tensor_arg(input)._data.shape, (s1[0], s1[1], s2[2]), (s1[0], s1[1], s2[2]))
    _bmm_check(batch1, batch2)
    prod = np.matmul(batch1._data, batch2._data)
    return _add_product(BADDBMM, input, batch1, batch2, prod, prod.shape, beta, alpha, "baddbmm")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: one AddbmmBackward0 node."""
    need_tensor("addbmm", "input", 1, input)
    if type(batch1) is not Tensor:
        need_tensor("addbmm", "batch1", 2, batch1)
    if type(batch2) is not Tensor:
        need_tensor("addbmm", "batch2", 3, batch2)
    _bmm_check(batch1, batch2)
    prod = np.matmul(batch1._data, batch2._data).sum(0)
    return _add_product(ADDBMM, input, batch1, batch2, prod, prod.shape, beta, alpha, "addbmm")


# ----- cdist and dist -----

def _cdist_grad(g, ans, x1, x2, p, sign):
    d = unsqueeze(x1, -2) - unsqueeze(x2, -3)
    dist = unsqueeze(ans, -1)
    if p == 0:
        return _zeros(x1.shape if sign > 0 else x2.shape, g)
    if p == 1:
        w = sgn(d)
    elif p == 2:
        w = masked_fill(d / dist, dist == 0, 0.0)
    elif math.isinf(p):
        w = sgn(d) * (abs(d) == dist)
    elif p < 1:
        w = masked_fill(sgn(d) * pow(abs(d), p - 1) / pow(dist, p - 1), (d == 0) | (dist == 0), 0.0)
    else:
        w = masked_fill(sgn(d) * pow(abs(d), p - 1) / pow(dist, p - 1), dist == 0, 0.0)
    w = unsqueeze(g, -1) * w
    return sum(w, -2) if sign > 0 else neg(sum(w, -3))


def _cdist_backward(g, x1, x2, p, ans):
    """PyTorch's _cdist_backward: x1's grad, an op of its own that has no derivative."""
    with _grad_mode.no_grad():
        r = _cdist_grad(g, ans, x1, x2, p, 1)
    return record(CDIST_BACKWARD, (g, x1, x2, ans), r._data, {"p": p})


def _mT_contiguous(t):
    return contiguous(transpose(t, -1, -2))


def _cdist_backward_not_implemented(*args, **kwargs):
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


CDIST_BACKWARD = defop("CdistBackwardBackward0", *[_cdist_backward_not_implemented] * 4)
# (x2's grad is _cdist_backward with the roles swapped, on the transposed grad and result)
CDIST = defop("CdistBackward0", lambda g, ans, x1, x2, p: _cdist_backward(g, x1, x2, p, ans),
              lambda g, ans, x1, x2, p: _cdist_backward(_mT_contiguous(g), x2, x1, p, _mT_contiguous(ans)),
              saves=(0, 1, "result"), aten="_cdist_forward")


def _pnorm_last(d, p):
    a = np.abs(d)
    if p == 0:
        return (a != 0).sum(-1).astype(d.dtype)
    if math.isinf(p):
        return a.max(-1, initial=0.0)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt((a * a).sum(-1))
    return (a ** p).sum(-1) ** (1.0 / p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched): one CdistBackward0."""
    need_tensor("cdist", "x1", 1, x1)
    need_tensor("cdist", "x2", 2, x2)
    if x1._data.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1._data.ndim}D")
    if x2._data.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} "
                           f"X2: {x2._data.shape[-1]}")
    if x1._data.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {_scalar_type(x1)}")
    if x2._data.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {_scalar_type(x2)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    a, b = x1._data, x2._data
    mode, r1, r2 = modes[compute_mode], a.shape[-2], b.shape[-2]
    if a.size and b.size and p == 2 and (mode == 1 or mode == 0 and (r1 > 25 or r2 > 25)):
        return _cdist_mm(x1, x2)
    with np.errstate(all="ignore"):
        out = _pnorm_last(a[..., :, None, :] - b[..., None, :, :], p)
    return record(CDIST, (x1, x2), np.asarray(out, dtype=np.result_type(a, b)), {"p": float(p)})


def _euclidean_dist_grad(g, ans, x1, x2, which):
    ratio = masked_fill(g / ans, ans == 0, 0.0)
    if which == 0:
        return x1 * sum(ratio, -1, True) - matmul(ratio, x2)
    return x2 * unsqueeze(sum(ratio, -2), -1) - matmul(transpose(ratio, -1, -2), x1)


EUCLIDEAN_DIST = defop("EuclideanDistBackward0", lambda g, ans, x1, x2: _euclidean_dist_grad(g, ans, x1, x2, 0),
                       lambda g, ans, x1, x2: _euclidean_dist_grad(g, ans, x1, x2, 1), saves=(0, 1, "result"))


def _cdist_mm(x1, x2):
    # PyTorch's cdist_impl for p=2 by matrix products: the batches expanded and flattened, _euclidean_dist, a view
    a, b = x1._data, x2._data
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out_shape = batch + (a.shape[-2], b.shape[-2])
    if batch:
        n = math.prod(batch)
        x1 = view(contiguous(expand(x1, batch + a.shape[-2:])), (n,) + a.shape[-2:])
        x2 = view(contiguous(expand(x2, batch + b.shape[-2:])), (n,) + b.shape[-2:])
        a, b = x1._data, x2._data
    with np.errstate(all="ignore"):
        a_norm, b_norm = (a * a).sum(-1, keepdims=True), (b * b).sum(-1, keepdims=True)
        a_ = np.concatenate([a * -2, a_norm, np.ones_like(a_norm)], -1)
        b_ = np.concatenate([b, np.ones_like(b_norm), b_norm], -1)
        out = np.sqrt(np.maximum(np.matmul(a_, np.swapaxes(b_, -1, -2)), 0))
    return view(record(EUCLIDEAN_DIST, (x1, x2), out), out_shape)


DIST = defop("DistBackward0", lambda g, ans, a, b, p: _norm_grad(g, ans, a - b, p, None, False),
             lambda g, ans, a, b, p: _neg_or_none(_norm_grad(g, ans, a - b, p, None, False)), saves=(0, 1, "result"))


def _neg_or_none(g):
    return None if g is None else neg(g)


def dist(input, other, p=2):
    """The p-norm of ``input - other``: one DistBackward0 node."""
    need_tensor("dist", "input", 1, input)
    need_tensor("dist", "other", 2, other)
    a, b = input._data, other._data
    shape = _broadcast_checked(a.shape, b.shape)
    if a.dtype.kind != "f" or b.dtype != a.dtype:
        _float_only(input, "dist")
    with np.errstate(all="ignore"):
        out = _pnorm_last(np.broadcast_to(a - b, shape).reshape(-1), float(p))
    return record(DIST, (input, other), np.asarray(out, dtype=np.result_type(a, b)), {"p": p})


# ----- Elementwise -----

LOGADDEXP2 = defop("Logaddexp2Backward0", lambda g, ans, a, b: g / _add_scalar(pow(2, b - a), 1),
                   lambda g, ans, a, b: g / _add_scalar(pow(2, a - b), 1), saves=(0, 1))
FMAX = defop("FmaxBackward0", lambda g, ans, a, b: masked_fill(g, logical_not((a >= b) | isnan(b)), 0.0),
             lambda g, ans, a, b: masked_fill(g, (a >= b) | isnan(b), 0.0), saves=(0, 1))
FMIN = defop("FminBackward0", lambda g, ans, a, b: masked_fill(g, logical_not((a <= b) | isnan(b)), 0.0),
             lambda g, ans, a, b: masked_fill(g, (a <= b) | isnan(b), 0.0), saves=(0, 1))
COPYSIGN = defop("CopysignBackward0", lambda g, ans, a, b: _copysign_grad(g, a, ans),
                 lambda g, ans, a, b: _zeros(b.shape, g), saves=(0, "result"))
COPYSIGN_SCALAR = defop("CopysignBackward1", lambda g, ans, a, other: _copysign_grad(g, a, ans), saves=(0, "result"))


def _copysign_grad(g, x, ans):
    return g * masked_fill(ans / x, x == 0, 0.0)


logaddexp2 = _of_two_tensors("logaddexp2", LOGADDEXP2, np.logaddexp2, "logaddexp2_cpu",
                             "``log2(2**a + 2**b)``, elementwise.")
fmax = _of_two_tensors("fmax", FMAX, np.fmax,
                       doc="The elementwise maximum, ignoring a nan when the other value is not nan.")
fmin = _of_two_tensors("fmin", FMIN, np.fmin,
                       doc="The elementwise minimum, ignoring a nan when the other value is not nan.")


def _copysign_np(x, y):
    dt = np.result_type(x, y)
    if dt.kind != "f":
        dt = _dtypes.get_default_dtype().np
    return np.copysign(np.asarray(x, dtype=dt), np.asarray(y, dtype=dt)).astype(dt, copy=False)


def copysign(a, b):
    """``a``'s magnitudes with ``b``'s signs (a float result)."""
    if type(a) is not Tensor and not isinstance(a, Tensor):
        raise invalid_arguments("copysign", a, b)
    _need_operand("copysign", a, b, invalid=True)
    if is_scalar(b):
        d = a._data
        dt = d.dtype if d.dtype.kind == "f" else _dtypes.get_default_dtype().np
        return record(COPYSIGN_SCALAR, (a,), np.copysign(d.astype(dt, copy=False), dt.type(b)), {"other": b})
    return _binary(a, b, COPYSIGN, _copysign_np, true_div=True)


def is_nonzero(input):
    """Whether a one-element tensor is not zero."""
    need_tensor("is_nonzero", "input", 1, input)
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0] != 0)


# ----- Reductions -----

NANSUM = defop("NansumBackward0",
               lambda g, ans, x, dims, keepdim: _expand_back(g, x.shape, dims, keepdim) * logical_not(isnan(x)),
               saves=(0,))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum, treating nan as zero."""
    need_tensor("nansum", "input", 1, input)
    x = input
    if dtype is not None:
        x = to_dtype(x, dtype)
    d = x._data
    if d.dtype.kind in "bui" and d.dtype != np.int64:
        d = d.astype(np.int64)
    dims = norm_dims(dim, d.ndim) if dim is not None and _ints(dim) != () else None
    out = np.asarray(_quietly(np.nansum, d, axis=dims, keepdims=keepdim), dtype=d.dtype)
    return record(NANSUM, (x,), out, {"dims": None if dims is None else dim, "keepdim": keepdim})  # (as sum's)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not nan: ``nansum`` divided by their count."""
    need_tensor("nanmean", "input", 1, input)
    x = input
    if dtype is None and x._data.dtype.kind != "f":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_scalar_type(x)}")
    counts = sum(logical_not(isnan(x)), dim, keepdim)
    return div(nansum(x, dim, keepdim, dtype=dtype), counts)


def _aminmax_grad(gs, ans, x, dims, keepdim, mn, mx):
    out = None
    for g, r in zip(gs, (mn, mx)):
        if g is not None:
            part = _amax_grad(g, _wrap(r), x, dims, keepdim)
            out = part if out is None else out + part
    return out


AMINMAX = defop("AminmaxBackward0", _aminmax_grad, saves=(0,), outputs=None)
AMINMAX.differentiable_outputs = _AllOutputs()


def aminmax(input, *, dim=None, keepdim=False):
    """The min and the max (over ``dim``, or all elements) in one pass: torch.return_types.aminmax."""
    need_tensor("aminmax", "input", 1, input)
    d = input._data
    if d.size == 0 and (dim is None or d.shape[norm_dims(dim, d.ndim)[0]] == 0 if d.ndim else True):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    dims = None if dim is None else norm_dims(dim, d.ndim)
    if dim is None and keepdim:
        mn = np.full((1,) * d.ndim, np.min(d), dtype=d.dtype)
        mx = np.full((1,) * d.ndim, np.max(d), dtype=d.dtype)
        dims = tuple(range(d.ndim))
    else:
        axis = dims if dims else None
        mn = np.asarray(np.min(d, axis=axis, keepdims=keepdim), dtype=d.dtype)
        mx = np.asarray(np.max(d, axis=axis, keepdims=keepdim), dtype=d.dtype)
    outs = record(AMINMAX, (input,), (mn, mx), {"dims": dims, "keepdim": keepdim, "mn": mn, "mx": mx}, n_outputs=2)
    _given(outs, dim=dim)
    return return_type("aminmax", ("min", "max"))(*outs)


def count_nonzero(input, dim=None):
    """The number of elements that are not zero (over ``dim``), as int64."""
    need_tensor("count_nonzero", "input", 1, input)
    d = input._data
    dims = norm_dims(dim, d.ndim) if dim is not None else None
    return _wrap(np.asarray(np.count_nonzero(d, axis=dims), dtype=np.int64))


def _reverse_logcumsumexp(x, dim):
    return flip(logcumsumexp(flip(x, (dim,)), dim), (dim,))


def _logcumsumexp_grad(g, ans, x, dim):
    # PyTorch's logcumsumexp_backward: the positive and negative parts of the grad, each in log space
    if x.numel() == 0 if hasattr(x, "numel") else math.prod(x.shape) == 0:
        return g
    low = _wrap(np.asarray(np.finfo(_np_of(g).dtype).min, dtype=_np_of(g).dtype))
    log_abs = log(abs(g))
    pos = where(g > 0, log_abs, low)
    negs = where(g < 0, log_abs, low)
    out_pos = exp(_reverse_logcumsumexp(pos - ans, dim) + x)
    out_neg = exp(_reverse_logcumsumexp(negs - ans, dim) + x)
    return out_pos - out_neg


LOGCUMSUMEXP = defop("LogcumsumexpBackward0", lambda g, ans, x, dim: _logcumsumexp_grad(g, ans, x, dim),
                     saves=(0, "result"))


def logcumsumexp(input, dim):
    """``log(cumsum(exp(input), dim))``, computed without overflow."""
    need_tensor("logcumsumexp", "input", 1, input)
    _float_only(input, "logcumsumexp_out_cpu")
    d = input._data
    given, dim = dim, norm_dims(dim, d.ndim)[0] if d.ndim else 0
    with np.errstate(all="ignore"):  # (kept in float64 for float32, as PyTorch's running total is)
        out = np.logaddexp.accumulate(d.astype(_CPU_ACC.get(d.dtype, d.dtype)), axis=dim) if d.ndim else d.copy()
    return _given(record(LOGCUMSUMEXP, (input,), np.asarray(out, dtype=d.dtype), {"dim": dim}), dim=given)


def _renorm_grad(g, x, p, dim, maxnorm):
    dims = tuple(i for i in range(len(x.shape)) if i != dim)
    n = norm(x, p, dims, True)
    nb = _norm_grad(sum(x * g, dims, True), n, x, p, dims, True)
    invnorm = reciprocal(_add_scalar(n, 1e-7))
    factor = _mul_scalar(invnorm, maxnorm)
    return where(n > maxnorm, factor * (g - invnorm * nb), g)


RENORM = defop("RenormBackward0", lambda g, ans, x, p, dim, maxnorm: _renorm_grad(g, x, p, dim, maxnorm), saves=(0,))


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` scaled down to p-norm ``maxnorm`` where its norm is larger."""
    need_tensor("renorm", "input", 1, input)
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    d = input._data
    if d.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {d.ndim} dimensions")
    given, dim = dim, norm_dims(dim, d.ndim)[0]
    dims = tuple(i for i in range(d.ndim) if i != dim)
    with np.errstate(all="ignore"):
        a = np.abs(d)
        n = a.max(dims, keepdims=True) if math.isinf(p) else (a ** p).sum(dims, keepdims=True) ** (1.0 / p)
        factor = np.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0).astype(d.dtype)
    return _given(record(RENORM, (input,), d * factor, {"p": p, "dim": dim, "maxnorm": maxnorm}), dim=given)


# ----- Statistics -----

def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables (rows) of ``input`` over its observations (columns)."""
    need_tensor("cov", "input", 1, input)
    x = input
    if x._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{x._data.ndim} dimensions")
    if x._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = view(x, (1, -1)) if x._data.ndim < 2 else x
    n_obs = x._data.shape[1]
    w = None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        if wt._data.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{wt._data.ndim} dimensions")
        if wt._data.size != n_obs:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {wt._data.size} != {n_obs}")
        if name == "fweights" and wt._data.dtype.kind not in "iu":
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_scalar_type(wt)} dtype")
        if name == "aweights" and wt._data.dtype.kind != "f":
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_scalar_type(wt)} dtype")
        if bool((wt._data < 0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = wt if w is None else mul(w, wt)
    w_sum = sum(w) if w is not None else _wrap(np.asarray(n_obs, dtype=np.int64))
    if w is not None and not bool(w_sum._data != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = div(sum(mul(x, w) if w is not None else x, 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm_factor = sub(w_sum, div(_mul_scalar(sum(mul(w, aweights)), correction), w_sum))
    else:
        norm_factor = _sub_scalar(w_sum, correction) if correction != 0 or w is not None else w_sum
    if bool(norm_factor._data <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                      "Correlation.cpp:129.)", UserWarning, stacklevel=2)
        norm_factor = _wrap(np.zeros_like(norm_factor._data))
    x = sub(x, unsqueeze(avg, 1))
    c = mm(x, t(mul(x, w) if w is not None else x))
    return squeeze(true_divide(c, norm_factor))


def corrcoef(input):
    """The Pearson correlation coefficients of the variables (rows) of ``input``."""
    need_tensor("corrcoef", "input", 1, input)
    if input._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return div(c, c)
    std = sqrt(diagonal(c))
    c = div(c, view(std, (-1, 1)))
    c = div(c, view(std, (1, -1)))
    return clip(c, -1, 1)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a vector: its powers as columns (decreasing unless ``increasing``)."""
    need_tensor("vander", "x", 1, x)
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x._data.dtype if x._data.dtype.kind == "f" else np.dtype(np.int64)
    result = _wrap(np.empty((x._data.shape[0], n), dtype=dt))
    if n > 0:
        result._data[...] = 1
        result._bump()  # (fill_: PyTorch's backward through vander then fails its version check, as here)
        if n > 1:
            setitem(result, (slice(None), slice(1, None)), unsqueeze(x, 1))
            setitem(result, (slice(None), slice(1, None)), cumprod(getitem(result, (slice(None), slice(1, None))), 1))
    return result if increasing else flip(result, (1,))


# ----- Special functions: erfinv, lgamma, digamma, polygamma (NumPy only) -----

def _erfinv_np(d):
    y = np.asarray(d, dtype=np.float64)
    with np.errstate(all="ignore"):
        # Giles' single-precision approximation, then Newton steps on erf (erfc near +-1, where 1 - |y| is exact)
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w < 5.0
        ws = w - 2.5
        p_small = _horner(ws, (1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
                               -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08))
        wb = np.sqrt(np.where(small, 5.0, w)) - 3.0
        p_big = _horner(wb, (2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
                             -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257))
        x = np.where(small, p_small, p_big) * y
        a = np.abs(y)
        tail = a > 0.5
        c = 1.0 - a  # (exact for |y| > 0.5)
        for _ in range(6):
            ax = np.abs(x)
            slope = 2.0 / math.sqrt(math.pi) * np.exp(-ax * ax)
            # near +-1, Newton on log(erfc(x)) = log(1 - |y|), nearly linear where erfc is not
            e = _erf(ax, complement=True)
            step = np.where(tail, (np.log(c) - np.log(e)) * e / slope, (_erf(ax) - a) / slope)
            x = np.copysign(ax - np.where(np.isfinite(step), step, 0.0), y)
        x = np.where(a == 1.0, np.copysign(np.inf, y), np.where(a > 1.0, np.nan, x))
    return x


def _erfinv_kernel(d):
    return _erfinv_np(d).astype(d.dtype, copy=False)


_unary("erfinv", "ErfinvBackward0", _erfinv_kernel,
       lambda g, ans, x: _mul_scalar(exp(pow(erfinv(x), 2)), 0.5 * math.sqrt(math.pi)) * g, saves=(0,))


def _lgamma_kernel(d):
    """lgamma in float64 (Cephes' lgam, with series near 1 and 2), rounded to ``d``'s dtype."""
    return _special_kernels().lgamma(d).astype(d.dtype, copy=False)


def _special_kernels():
    from . import _special_kernels as kernels  # (at first use: ``import engine`` stays quick)

    return kernels


def _in_float32_for_half(kernel, d):
    """``kernel`` on ``d``, float16 computed in float32 as PyTorch's kernels compute Half."""
    return kernel(d.astype(np.float32)).astype(d.dtype) if d.dtype == np.float16 else kernel(d)


def _digamma_np(d):
    """PyTorch's calc_digamma (Cephes), in ``d``'s dtype."""
    return _in_float32_for_half(_special_kernels().digamma, d)


def _zeta_np(s, q):
    """The Hurwitz zeta function (Cephes' zeta, in float64)."""
    return _special_kernels().zeta(s, q)


def _trigamma_np(d):
    """PyTorch's calc_trigamma (its kernel for polygamma(1, x)), in ``d``'s dtype."""
    return _in_float32_for_half(_special_kernels().trigamma, d)


def _polygamma_np(n, d):
    if n == 0:
        return _digamma_np(d)
    if n == 1:
        return _trigamma_np(d)
    # PyTorch's calc_polygamma: (-1)^(n + 1) n! zeta(n + 1, x), the factorial and product in x's dtype
    dt = np.dtype(np.float32) if d.dtype == np.float16 else d.dtype
    fac = dt.type(math.exp(dt.type(_special_kernels().lgamma_of(n + 1.0))))
    return (fac if n % 2 else -fac) * _zeta_np(n + 1.0, d).astype(dt)


_unary("lgamma", "LgammaBackward0", _lgamma_kernel, lambda g, ans, x: g * digamma(x), saves=(0,))
_unary("digamma", "DigammaBackward0", lambda d: _digamma_np(d).astype(d.dtype, copy=False),
       lambda g, ans, x: g * polygamma(1, x), saves=(0,))
POLYGAMMA = defop("PolygammaBackward0", lambda g, ans, x, n: g * polygamma(n + 1, x), saves=(0,))


def polygamma(n, input):
    """The n-th derivative of the digamma function."""
    need_int("polygamma", "n", 1, n)
    need_tensor("polygamma", "input", 2, input)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    d = input._data if input._data.dtype.kind == "f" else _float_data(input)
    return record(POLYGAMMA, (input,), _quietly(_polygamma_np, n, d).astype(d.dtype, copy=False), {"n": n})


# ----- masked_scatter -----

def _masked_scatter_source_grad(g, mask, shape):
    """PyTorch's masked_scatter_backward, an op of its own: the grad where the mask is set, in order,
    padded with zeros to the source's size."""
    flat = g._data[mask]
    out = np.zeros(math.prod(shape), dtype=flat.dtype)
    out[:flat.size] = flat
    return record(MASKED_SCATTER_BACKWARD, (g,), out.reshape(shape), {"mask": mask})


MASKED_SCATTER_BACKWARD = defop("MaskedScatterBackwardBackward0",
                                lambda g, ans, grad, mask: masked_scatter(_zeros(grad.shape, g), _wrap(mask), g),
                                keeps=True)
MASKED_SCATTER_OP = defop("MaskedScatterBackward0",
                          lambda g, ans, x, source, mask: masked_fill(g, _wrap(mask), 0.0),
                          lambda g, ans, x, source, mask: _masked_scatter_source_grad(g, mask, source.shape),
                          keeps=True)


def masked_scatter(input, mask, source):
    """``input`` with the elements where ``mask`` is True replaced, in order, by ``source``'s."""
    need_tensor("masked_scatter", "input", 1, input)
    if type(mask) is not Tensor:
        need_tensor("masked_scatter", "mask", 2, mask)
    if type(source) is not Tensor:
        need_tensor("masked_scatter", "source", 3, source)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_scalar_type(mask)}")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_scalar_type(input)} and {_scalar_type(source)}")
    shape = _broadcast_checked(input._data.shape, mask._data.shape)
    m = np.broadcast_to(mask._data, shape)
    k = int(m.sum())
    if source._data.size < k:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = np.broadcast_to(input._data, shape).copy()
    out[m] = source._data.reshape(-1)[:k]
    return record(MASKED_SCATTER_OP, (input, source), out, {"mask": m})


# ----- Searching and counting (no grad) -----

def argwhere(input):
    """The indices of the nonzero elements, one row each."""
    need_tensor("argwhere", "input", 1, input)
    if input._data.ndim == 0:
        return _wrap(np.zeros((int(input._data != 0), 0), dtype=np.int64))
    return nonzero(input)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of ``elements`` is among ``test_elements``."""
    if not (isinstance(elements, Tensor) or isinstance(test_elements, Tensor)) or not builtins.all(
            isinstance(x, Tensor) or is_scalar(x) for x in (elements, test_elements)):
        raise invalid_arguments("isin", elements, test_elements, **_given_kw(assume_unique=assume_unique, invert=invert))
    a = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _wrap(np.asarray(np.isin(a, b, invert=invert)))


def _unique_out(values, inverse, counts, return_inverse, return_counts):
    out = (_wrap(values),)
    if return_inverse:
        out += (_wrap(inverse.astype(np.int64)),)
    if return_counts:
        out += (_wrap(counts.astype(np.int64)),)
    return out[0] if len(out) == 1 else out


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along ``dim``), sorted; optionally with inverse indices and counts."""
    need_tensor("_unique2", "input", 1, input)
    d = input._data
    if dim is None:
        values, inverse, counts = np.unique(d.reshape(-1), return_inverse=True, return_counts=True)
        return _unique_out(values, inverse.reshape(d.shape), counts, return_inverse, return_counts)
    dim = norm_dims(dim, d.ndim)[0]
    if d.shape[dim] == 0:
        return _unique_out(d.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64), return_inverse, return_counts)
    values, inverse, counts = np.unique(d, return_inverse=True, return_counts=True, axis=dim)
    return _unique_out(values, inverse.reshape(-1), counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The elements (or slices along ``dim``) with each run of equal ones kept once."""
    need_tensor("unique_consecutive", "input", 1, input)
    d = input._data
    if dim is None:
        flat = d.reshape(-1)
        starts = np.ones(flat.shape[0], dtype=bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse_shape = d.shape
    else:
        dim = norm_dims(dim, d.ndim)[0]
        moved = np.moveaxis(d, dim, 0).reshape(d.shape[dim], -1)
        starts = np.ones(moved.shape[0], dtype=bool)
        starts[1:] = (moved[1:] != moved[:-1]).any(1)
        values = np.compress(starts, d, axis=dim)
        inverse_shape = (d.shape[dim],)
    inverse = (np.cumsum(starts) - 1).reshape(inverse_shape)
    counts = np.diff(np.append(np.flatnonzero(starts), starts.shape[0]))
    return _unique_out(values, inverse, counts, return_inverse, return_counts)


def bincount(input, weights=None, minlength=0):
    """How many times each non-negative integer occurs (or the sums of ``weights`` at each)."""
    need_tensor("bincount", "input", 1, input)
    if weights is not None:
        need_tensor("bincount", "weights", 2, weights)
    d = input._data
    if d.dtype.kind not in "iub":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{_scalar_type(input)}\'')
    if d.ndim != 1 or (d.size and d.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _wrap(np.bincount(d.astype(np.intp), minlength=minlength).astype(np.int64))  # (intp: 32 bits in Pyodide)
    w = weights._data
    if w.ndim != 1 or w.shape[0] != d.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = w.dtype if w.dtype == np.float32 else np.float64
    return _wrap(np.bincount(d.astype(np.intp), weights=w.astype(np.float64), minlength=minlength).astype(dt))


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``bins`` equal bins from ``min`` to ``max`` (the data's range when both are 0)."""
    need_tensor("histc", "input", 1, input)
    d = input._data
    _float_only(input, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and d.size:
        lo, hi = float(d.min()), float(d.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    v = d.reshape(-1).astype(np.float64)
    v = v[(v >= lo) & (v <= hi)]
    idx = np.minimum(((v - lo) * bins / (hi - lo)).astype(np.intp), bins - 1)
    return _wrap(np.bincount(idx, minlength=bins).astype(d.dtype))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each of ``values`` would go in ``sorted_sequence`` (along its last dim) to keep it sorted."""
    if type(sorted_sequence) is not Tensor and not isinstance(sorted_sequence, Tensor):
        raise invalid_arguments("searchsorted", sorted_sequence, values,
                                **_given_kw(out_int32=out_int32, right=right, side=side, sorter=sorter))
    if not isinstance(values, Tensor) and not is_scalar(values):
        raise invalid_arguments("searchsorted", sorted_sequence, values,
                                **_given_kw(out_int32=out_int32, right=right, side=side, sorter=sorter))
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    scalar = not isinstance(values, Tensor)
    v = np.asarray(values) if scalar else values._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    how = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq, v, side=how)
    else:
        if seq.shape[:-1] != v.shape[:-1]:
            raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               f"dimensions of boundaries tensor and input value tensor must match, but we got "
                               f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}")
        rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1])
        out = np.stack([np.searchsorted(s, r, side=how) for s, r in zip(rows_s, rows_v)]).reshape(v.shape)
    return _wrap(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element of ``input`` among the sorted 1-d ``boundaries``."""
    if not isinstance(boundaries, Tensor):
        raise invalid_arguments("bucketize", input, boundaries, **_given_kw(out_int32=out_int32, right=right))
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----- slice_scatter, select_scatter, diagonal_scatter, put: a copy with a part replaced -----
# (Each self grad is the same op writing zeros into the grad, each src grad the view it wrote, as
# PyTorch's derivatives.yaml has them.)

def _src_size_error(src, part):
    return RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, slice "
                        f"size = {list(part.shape)}")


def _scatter_into(input, src, index, op, attrs, part=None):
    """``input`` with ``src`` written at the basic ``index`` (or into the writable view ``part`` of the copy)."""
    out = input._data.copy()
    view = out[index] if part is None else part(out)
    if view.shape != src._data.shape:
        raise _src_size_error(src._data, view)
    view[...] = src._data
    return record(op, (input, src), out, attrs)


def _zeros_as(g, src):
    return _wrap(np.zeros(src.shape, dtype=g._data.dtype))


SLICE_SCATTER = defop("SliceScatterBackward0",
                      lambda g, ans, x, src, dim, start, end, step: slice_scatter(g, _zeros_as(g, src), dim, start, end,
                                                                                  step),
                      lambda g, ans, x, src, dim, start, end, step: _slice(g, dim, slice(start, end, step)))
SELECT_SCATTER = defop("SelectScatterBackward0",
                       lambda g, ans, x, src, dim, index: select_scatter(g, _zeros_as(g, src), dim, index),
                       lambda g, ans, x, src, dim, index: select(g, dim, index))
DIAGONAL_SCATTER = defop("DiagonalScatterBackward0",
                         lambda g, ans, x, src, offset, dim1, dim2: diagonal_scatter(g, _zeros_as(g, src), offset, dim1,
                                                                                     dim2),
                         lambda g, ans, x, src, offset, dim1, dim2: diagonal(g, offset, dim1, dim2))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    need_tensor("slice_scatter", "input", 1, input)
    need_tensor("slice_scatter", "src", 2, src)
    if not input._data.ndim:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    given, dim = dim, _one_dim(dim, input._data.ndim)
    start, end = (None if v is None else int(v) for v in (start, end))
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    out = _scatter_into(input, src, (slice(None),) * dim + (slice(start, end, step),), SLICE_SCATTER,
                        {"dim": dim, "start": start, "end": end, "step": step})
    return _given(out, dim=given) if given != dim else out


def select_scatter(input, src, dim, index):
    need_tensor("select_scatter", "input", 1, input)
    need_tensor("select_scatter", "src", 2, src)
    d = input._data
    if not d.ndim:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    given, dim = dim, _one_dim(dim, d.ndim)
    index = int(index)
    if not -d.shape[dim] <= index < d.shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(d.shape)} at dimension {dim}")
    out = _scatter_into(input, src, (slice(None),) * dim + (index, ...), SELECT_SCATTER, {"dim": dim, "index": index})
    return _given(out, dim=given) if given != dim else out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    need_tensor("diagonal_scatter", "input", 1, input)
    need_tensor("diagonal_scatter", "src", 2, src)
    d1, d2 = _diagonal_dims(input, dim1, dim2)
    out = _scatter_into(input, src, None, DIAGONAL_SCATTER, {"offset": offset, "dim1": d1, "dim2": d2},
                        part=lambda a: _diagonal_np(a, offset, d1, d2))
    return _given(out, dim1=dim1, dim2=dim2)


# (take's backward is PUT above, a put_ into zeros)
PUT_INTO = defop("PutBackward0",
                 lambda g, ans, x, source, index, accumulate: g if accumulate else put(g, _wrap(index),
                                                                                          _zeros_as(g, source)),
                 lambda g, ans, x, source, index, accumulate: reshape(take(g, _wrap(index)), source.shape),
                 saves=(1,), keeps=True)
PUT_INTO.save_for = {1: (1,)}  # (source's shape is all its rule reads: kept only when source takes a grad)


def put(input, index, source, accumulate=False):
    need_tensor("put", "input", 1, input)
    need_tensor("put", "index", 2, index)
    need_tensor("put", "source", 3, source)
    d, idx, s = input._data, index._data, source._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_scalar_type(index)}")
    if s.dtype != d.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_type(input)} and source.dtype = {_scalar_type(source)}")
    if s.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {s.size}, index.numel() = {idx.size}")
    if not d.size and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    flat = idx.reshape(-1)
    bad = (flat < -d.size) | (flat >= d.size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {flat[bad][0]} on a tensor of {d.size} elements.")
    out = d.copy()
    if accumulate:
        np.add.at(out.reshape(-1), flat, s.reshape(-1))
    else:
        out.reshape(-1)[flat] = s.reshape(-1)
    return record(PUT_INTO, (input, source), out, {"index": idx, "accumulate": accumulate})


NARROW_COPY = defop("NarrowCopyBackward0", lambda g, ans, x, dim, start, length: _view_backward(
    SLICE_BACKWARD, g, x.shape, (slice(None),) * dim + (slice(start, start + length),)))


def narrow_copy(input, dim, start, length):
    need_tensor("narrow_copy", "input", 1, input)
    d = input._data
    if not d.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if not -d.ndim <= dim < d.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an enhancement request to PyTorch.)")
    given_dim, given_start, dim = dim, int(start), dim % d.ndim
    size = d.shape[dim]
    if not -size <= given_start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {given_start})")
    start = given_start % size if given_start < 0 else given_start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    out = d[(slice(None),) * dim + (slice(start, start + length),)].copy()
    return _given(record(NARROW_COPY, (input,), out, {"dim": dim, "start": start, "length": length}),
                  dim=given_dim, start=given_start)


# ----- The *_copy functions: a view op's result as a new tensor, its node the view's with "_copy" -----

_COPY_OPS = {}


def _copy_op(op):
    """The twin of view ``op`` whose node PyTorch names ``<view node>_copy``: same rules, same saves."""
    twin = _COPY_OPS.get(op)
    if twin is None:
        twin = _COPY_OPS[op] = defop(op.node_cls.__name__ + "_copy", *op.vjps, saves=op.saves, keeps=op.keeps,
                                     outputs=op.differentiable_outputs)
    return twin


def _as_copies(out):
    """The views ``out`` (a tensor or a tuple of them) as copies recorded by their ops' ``_copy`` twins."""
    outs = out if type(out) is tuple else (out,)
    node = outs[0]._grad_fn if outs else None
    if node is not None:
        node._op = _copy_op(node._op)
    copies = []
    for o in outs:
        c = _wrap(o._data.copy())
        c._requires_grad, c._grad_fn, c._output_nr = o._requires_grad, o._grad_fn, o._output_nr
        if o._fw_grad is not None:
            c._fw_grad = _wrap(o._fw_grad._data.copy(), o._fw_grad._requires_grad)
        copies.append(c)
    return tuple(copies) if type(out) is tuple else copies[0]


def _copy_of(name, view_fn):
    def f(input, *args, **kwargs):
        need_tensor(name, "input", 1, input)
        return _as_copies(view_fn(input, *args, **kwargs))

    f.__name__ = f.__qualname__ = name
    return f


def view_copy(input, size):
    need_tensor("view_copy", "input", 1, input)
    shape = _infer_shape(_shape_arg((size,)), input._data.size)
    return record(_copy_op(VIEW), (input,), input._data.reshape(shape).copy(), {"shape": shape})


def slice_copy(input, dim=0, start=None, end=None, step=1):
    need_tensor("slice_copy", "input", 1, input)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    given, dim = dim, _one_dim(dim, input._data.ndim)
    return _as_copies(_slice(input, dim, slice(start, end, step), given))


t_copy = _copy_of("t_copy", t)
permute_copy = _copy_of("permute_copy", permute)
transpose_copy = _copy_of("transpose_copy", transpose)
expand_copy = _copy_of("expand_copy", lambda input, size, *, implicit=False: expand(input, size))
squeeze_copy = _copy_of("squeeze_copy", squeeze)
unsqueeze_copy = _copy_of("unsqueeze_copy", unsqueeze)
select_copy = _copy_of("select_copy", select)
diagonal_copy = _copy_of("diagonal_copy", diagonal)
alias_copy = _copy_of("alias_copy", alias)
unbind_copy = _copy_of("unbind_copy", unbind)
split_copy = _copy_of("split_copy", lambda input, split_size, dim=0: split(input, split_size, dim))
split_with_sizes_copy = _copy_of("split_with_sizes_copy",
                                 lambda input, split_sizes, dim=0: split(input, list(split_sizes), dim))
unfold_copy = _copy_of("unfold_copy", lambda input, dimension, size, step: unfold(input, dimension, size, step))
DETACH_COPY = defop("NotImplemented", _not_implemented("detach_copy"), cpp_name="torch::autograd::NotImplemented")


def detach_copy(input):
    need_tensor("detach_copy", "input", 1, input)
    return record(DETACH_COPY, (input,), input._data.copy())


# ----- quantile, nanquantile: composed as PyTorch's quantile_impl (sort, view, gather, lerp_, squeeze_) -----

_QUANTILE_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    need_tensor(name, "input", 1, input)
    d = input._data
    if not isinstance(q, Tensor):
        if not is_scalar(q):
            raise invalid_arguments(name, input, q, **_given_kw(dim=dim, keepdim=keepdim))
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
        q = _wrap(np.asarray(q, dtype=d.dtype))  # (PyTorch's scalar_tensor(q, self.options()))
    if interpolation not in _QUANTILE_MODES:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    qd = q._data
    if not d.size:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if qd.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if d.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if qd.dtype != d.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    wrapped = _one_dim(0 if dim is None else dim, d.ndim)
    if not ((qd >= 0) & (qd <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is not None and d.ndim:
        out_shape = list(d.shape)
        if keepdim:
            out_shape[wrapped] = 1
        else:
            del out_shape[wrapped]
    else:
        out_shape = [1] * d.ndim if keepdim else []
    if dim is None:
        ordered = sort(flatten(input))[0]
    elif wrapped == d.ndim - 1:
        ordered = sort(input)[0]
    else:
        ordered = sort(transpose(unsqueeze(input, -1), wrapped, -1))[0]
    # (q is treated as 1-d: the reduced shape, then the size of the dim reduced)
    ordered = view(ordered, tuple(out_shape) + (ordered._data.shape[-1],))
    s = ordered._data
    last = s.shape[-1] - 1
    nan = np.isnan(s)
    if ignore_nan:
        ranks = qd * ((~nan).sum(-1, keepdims=True) - 1).astype(d.dtype)
        ranks[ranks < 0] = 0
    else:
        ranks = np.where(nan.any(-1, keepdims=True), d.dtype.type(last), qd * d.dtype.type(last))
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    values = gather(ordered, -1, _wrap(below))
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below.astype(ranks.dtype)
        # (PyTorch's lerp_ and the reshaping below are in place, on a tensor of its own: the nodes are
        # the same out of place, renamed as in-place ones where their names differ)
        values = lerp(values, gather(ordered, -1, _wrap(np.ceil(ranks).astype(np.int64))), _wrap(weights))
    if qd.ndim:  # (the quantiles first)
        values = inplace_node(transpose(inplace_node(unsqueeze(values, 0)), 0, -1))
    return inplace_node(squeeze(values, -1))


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` over the values that are not nan (nan where all are)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ----- frexp, ldexp, nextafter -----

FREXP = defop("FrexpBackward0", lambda gs, ans, x, exponent: gs[0] / exp2(_wrap(exponent)), outputs=(0,))


def frexp(input):
    """``input`` as mantissa * 2 ** exponent, the mantissa in [0.5, 1) in magnitude, the exponent int32."""
    need_tensor("frexp", "input", 1, input)
    d = input._data
    if d.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(d)
    exponent = np.where(np.isfinite(d), exponent, 0).astype(np.int32)  # (C leaves it unspecified for inf, nan)
    outs = record(FREXP, (input,), (mantissa.astype(d.dtype), exponent), {"exponent": exponent}, n_outputs=2)
    return return_type("frexp", ("mantissa", "exponent"))(*outs)


LDEXP = defop("LdexpBackward0", lambda g, ans, x, other: g * pow(2, other),  # (2 ** -1 is 0 for an integer other)
              lambda g, ans, x, other: _mul_scalar(g * ans, math.log(2.0)), saves=(1, "result"))
LDEXP.save_for = {1: (0,)}  # (the result is kept whichever input takes a grad, as PyTorch keeps it)


def ldexp(input, other):
    """``input * 2 ** other``, in a floating dtype."""
    need_tensor("ldexp", "input", 1, input)
    need_tensor("ldexp", "other", 2, other)
    dt = _dtypes.result_type(input, other)
    dt = (dt if dt.is_floating_point else _dtypes.get_default_dtype()).np
    out = np.asarray(_quietly(lambda: input._data.astype(dt) * np.power(dt.type(2), other._data.astype(dt))), dtype=dt)
    if other._data.dtype.kind in "iub" and out.shape != input._data.shape and input._data.size:
        # (PyTorch writes an integer exponent's result into a tensor shaped as input)
        from ._out import resize_warning

        resize_warning(input._data.shape, out.shape, stacklevel=3)
    return record(LDEXP, (input, other), out)


def ldexp_checked(self, other):
    """``ldexp`` for ``ldexp_``: the result must cast to ``self``'s dtype, as an ``out=`` tensor's must."""
    need_tensor("ldexp", "other", 1, other)
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_scalar_type(self)}")
    return ldexp(self, other)


NEXTAFTER = defop("NextafterBackward0", lambda g, ans, x, other: where(_wrap(x._data != other._data), g, 0.0),
                  lambda g, ans, x, other: _zero_grad(g), saves=(0, 1))


def nextafter(input, other):
    """The next float after ``input`` towards ``other``."""
    need_tensor("nextafter", "input", 1, input)
    need_tensor("nextafter", "other", 2, other)
    dt = _dtypes.result_type(input, other)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{dt._legacy[:-len('Tensor')]}'")
    a, b = np.broadcast_arrays(input._data.astype(dt.np), other._data.astype(dt.np))
    return record(NEXTAFTER, (input, other), np.nextafter(a, b))


# ----- histogram: PyTorch's histogramdd kernel in one dimension -----

HISTOGRAM = defop("NotImplemented", _not_implemented("histogram"), _not_implemented("histogram"),
                  _not_implemented("histogram"), cpp_name="torch::autograd::NotImplemented", outputs=(0, 1))


def _upper_bound(edges, v):
    """``std::upper_bound`` over ``edges`` for each of ``v`` (as PyTorch's kernel searches, sorted or not)."""
    first = np.zeros(v.shape, np.int64)
    length = np.full(v.shape, edges.size, np.int64)
    while (length > 0).any():
        half = length >> 1
        middle = first + half
        right = (length > 0) & ~(v < edges[np.minimum(middle, edges.size - 1)])
        first = np.where(right, middle + 1, first)
        length = np.where(right, length - half - 1, np.where(length > 0, half, 0))
    return first


def _linspace_in(dt, start, end, steps):
    """PyTorch's linspace kernel, in the dtype's own arithmetic (from both ends towards the middle)."""
    start, end = dt.type(start), dt.type(end)
    step = (end - start) / dt.type(steps - 1) if steps > 1 else dt.type(0)
    idx = np.arange(steps)
    up, down = start + step * idx.astype(dt), end - step * (steps - idx - 1).astype(dt)
    return np.where(idx < steps // 2, up, down).astype(dt)


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """The counts (or summed weights) of ``input``'s values in each bin, and the bins' edges."""
    need_tensor("histogram", "input", 1, input)
    if not isinstance(bins, Tensor) and (not isinstance(bins, numbers.Integral) or isinstance(bins, bool)) or \
            isinstance(bins, Tensor) and range is not None:
        raise invalid_arguments("histogram", input, bins, **_given_kw(range=range, weight=weight, density=density))
    d = input._data
    if d.dtype.kind != "f" or d.dtype == np.float16:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_scalar_type(input)}'")
    dt = d.dtype
    v = d.reshape(-1)
    if isinstance(bins, Tensor):
        e = bins._data
        if e.dtype != dt:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {_CPP_TYPE_NAMES[dt.name]} and bins for dimension 0 with dtype "
                               f"{_CPP_TYPE_NAMES[e.dtype.name]}")
        if e.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {e.ndim} dimensions "
                               "in the bins tensor for dimension 0")
        if not e.size:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
                               "the bins tensor for dimension 0")
        if e.size < 2:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {e.size - 1} for dimension 0")
        edges = e.copy()
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            if len(range) != 2:
                raise RuntimeError("torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                                   f"but got {len(range)}")
            lo, hi = float(range[0]), float(range[1])
        elif v.size:
            lo, hi = float(v.min()), float(v.max())
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               "dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _linspace_in(dt, lo, hi, bins + 1)
    w = None
    if weight is not None:
        w = weight._data
        if w.dtype != dt:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({_CPP_TYPE_NAMES[dt.name]}), and "
                               f"weight({_CPP_TYPE_NAMES[w.dtype.name]})")
        if w.size != v.size:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               "input tensor excluding its innermost dimension, but got input with shape "
                               f"{[v.size, 1]} and weight with shape {[w.size]}")
        w = w.reshape(-1)
    n = edges.size - 1
    inside = (v >= edges[0]) & (v <= edges[-1])  # (nan falls outside)
    pos = np.minimum(_upper_bound(edges, v[inside]) - 1, n - 1)
    hist = np.zeros(n, dt)
    np.add.at(hist, pos, w[inside] if w is not None else dt.type(1))
    if density:
        hist = _quietly(lambda: hist / hist.sum() / np.diff(edges))
    inputs = tuple(t for t in (input, bins, weight) if isinstance(t, Tensor))
    outs = record(HISTOGRAM, inputs, (hist.astype(dt), edges), n_outputs=2)
    _grad_edges_only(outs[0])
    return return_type("histogram", ("hist", "bin_edges"))(*outs)


# ----- unravel_index, fill, range -----

def unravel_index(indices, shape):
    """The coordinates, in a tensor of ``shape``, of each flat index: PyTorch's Python function (floor
    division by each dim's stride, then the remainder by its size), the tensors of ``unbind(-1)``."""
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    elif isinstance(shape, (tuple, list, str)) or type(shape).__name__ == "Size":
        for n in shape:
            if not isinstance(n, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(n)}")
        shape = tuple(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if builtins.any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(int(n) for n in shape)}")
    strides = [1]
    for n in reversed(shape[1:]):
        strides.insert(0, strides[0] * n)
    coefs, sizes = _wrap(np.array(strides, np.int64)), _wrap(np.array(shape, np.int64).reshape(len(shape)))
    return unbind(remainder(floor_divide(unsqueeze(indices, -1), coefs), sizes), -1)


FILL = defop("FillBackward0", lambda g, ans, x: _zero_grad(g))
FILL_T = defop("FillBackward1", lambda g, ans, x, value: _zero_grad(g), lambda g, ans, x, value: sum(g))


def fill(input, value):
    """A new tensor like ``input``, every element ``value`` (a number, or a 0-d tensor)."""
    if not isinstance(input, Tensor) or not isinstance(value, Tensor) and not is_scalar(value):
        raise invalid_arguments("fill", input, value)
    d = input._data
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} "
                               "dimensions.")
        return record(FILL_T, (input, value), np.full(d.shape, value._data, dtype=d.dtype))
    return record(FILL, (input,), np.full(d.shape, value, dtype=d.dtype))


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).")


def range_(start, end=_NOT_GIVEN, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
    """``torch.range``: the values from ``start`` to ``end``, both included, ``step`` apart (deprecated,
    as in PyTorch). Not named ``range`` here, where Python's is in use."""
    if end is _NOT_GIVEN:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    from ._factories import _finish, _no_bool

    dtype = dtype or _dtypes.get_default_dtype()
    _no_bool(dtype, "range_cpu")
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype.is_floating_point:
        lo, hi, by = (float(v) for v in vals)
    else:
        lo, hi, by = (int(v) for v in vals)
    if not by:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"unsupported range: {lo:g} -> {hi:g}")
    if by > 0 and hi < lo or by < 0 and hi > lo:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int((hi - lo) / by + 1) if dtype.is_floating_point else (hi - lo) // by + 1
    check_size(n)
    data = lo + np.arange(n, dtype=np.float64) * by if dtype.is_floating_point else lo + np.arange(n) * by
    if requires_grad and not dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(data.astype(dtype.np), None, requires_grad, device)


range_.__name__ = range_.__qualname__ = "range"


# ----- gradient: PyTorch's finite differences, composed as its gradient_helper composes them -----
# (C++ evaluates an operator's right operand first: the slices are made in that order, as in diff.)

def _by_scalar(t, s):
    """``t / s`` for a number ``s``, as C++'s ``Tensor / Scalar`` records it (true division for integers)."""
    return _div_scalar(t, s) if t._data.dtype.kind == "f" else div(t, s)


def _gradient_uniform(x, dim, h, edge_order):
    """Central differences ``h`` apart along ``dim``; one-sided ones of ``edge_order`` at the ends."""
    def part(start, stop=None):
        return _slice(x, dim, slice(start, stop))

    before = part(0, -2)
    center = _by_scalar(sub(part(2), before), h)
    if edge_order == 1:
        before = part(0, 1)
        prepend = _by_scalar(sub(part(1, 2), before), h)
        before = part(-2, -1)
        append = _by_scalar(sub(part(-1), before), h)
    else:
        c = _mul_scalar(part(2, 3), 0.5)
        b = _mul_scalar(part(1, 2), 2)
        prepend = _by_scalar(sub(add(_mul_scalar(part(0, 1), -1.5), b), c), h)
        c = _mul_scalar(part(-1), 1.5)
        b = _mul_scalar(part(-2, -1), 2)
        append = _by_scalar(add(sub(_mul_scalar(part(-3, -2), 0.5), b), c), h)
    return cat([prepend, _by_scalar(center, 2), append], dim)


def _weighted(parts):
    """``a * s0 + b * s1 + c * s2`` for ``parts`` = [(a, make s0), ...], made right to left."""
    c, s = parts[2]
    right = c * s()
    b, s = parts[1]
    middle = b * s()
    a, s = parts[0]
    return add(add(a * s(), middle), right)


def _gradient_coordinates(x, dim, coords, edge_order):
    """Second-order differences along ``dim`` at the (uneven) points ``coords``."""
    def part(start, stop=None):
        return lambda: _slice(x, dim, slice(start, stop))

    if coords._data.ndim != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an element "
                           f"with {coords._data.ndim} dimensions!")
    shape = [1] * x._data.ndim
    shape[dim] = -1
    h = diff(coords, 1, 0)
    dx1, dx2 = _slice(h, 0, slice(0, -1)), _slice(h, 0, slice(1, None))
    a = reshape(neg(dx2) / (dx1 * (dx1 + dx2)), shape)
    b = reshape((dx2 - dx1) / (dx1 * dx2), shape)
    c = reshape(dx1 / (dx2 * (dx1 + dx2)), shape)
    center = _weighted([(a, part(0, -2)), (b, part(1, -1)), (c, part(2))])

    def at(i):
        return select(h, 0, i)

    if edge_order == 1:
        step = at(0)
        before = part(0, 1)()
        prepend = sub(part(1, 2)(), before) / step
        step = at(-1)
        before = part(-2, -1)()
        append = sub(part(-1)(), before) / step
    else:
        den = at(0) * add(at(0), at(1))  # (each operand made right to left, as the C++ expression does)
        a = neg(add(_mul_scalar(at(0), 2.0), at(1))) / den
        den = at(0) * at(1)
        b = add(at(0), at(1)) / den
        den = at(1) * add(at(0), at(1))
        c = neg(at(0)) / den
        prepend = _weighted([(a, part(0, 1)), (b, part(1, 2)), (c, part(2, 3))])
        den = at(-2) * add(at(-1), at(-2))
        a = at(-1) / den
        den = at(-1) * at(-2)
        b = neg(add(at(-1), at(-2))) / den
        den = at(-1) * add(at(-1), at(-2))
        c = add(_mul_scalar(at(-1), 2), at(-2)) / den
        append = _weighted([(a, part(-3, -2)), (b, part(-2, -1)), (c, part(-1))])
    return cat([prepend, center, append], dim)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Estimates of the derivative of ``input``'s values along each of ``dim`` (every dim by default), by
    central differences inside and one-sided ones of ``edge_order`` at the ends: one tensor per dim."""
    need_tensor("gradient", "input", 1, input)
    d = input._data
    nd = d.ndim
    dims = None if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if isinstance(spacing, (list, tuple)):
        steps = list(spacing)
        given = len(steps)
    else:
        given = None  # (a number, or nothing: one step for every dim)
        steps = [1.0 if spacing is None else spacing] * (len(dims) if dims is not None else nd)
    if d.dtype == np.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if given is not None and dims is None and given != nd:
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                           f"'self.dim() = {nd}', since dim argument was not given, but got a list of length {given}")
    if given is not None and dims is not None and given != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {given} and a dim "
                           f"argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        seen = set()
        for k in dims:
            w = _one_dim(k, nd)
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    for k in (dims if dims is not None else range(nd)):
        if d.shape[k] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    out = []
    for k, step in zip(dims if dims is not None else range(nd), steps):
        k = _one_dim(k, nd)
        if isinstance(step, Tensor):
            out.append(_gradient_coordinates(input, k, step, edge_order))
        else:
            out.append(_gradient_uniform(input, k, step, edge_order))
    return tuple(out)


# ----- Tensor.apply_, map_, map2_: a Python function on each element, in place -----

def _to_element(v, dt):
    """What PyTorch's store_scalar makes of a callable's result ``v`` in a tensor of NumPy dtype ``dt``."""
    name = dt.name
    if dt.kind == "f":
        if isinstance(v, float):
            return v
        cls = type(v)
        if hasattr(cls, "__float__"):
            return cls.__float__(v)
        if hasattr(cls, "__index__"):
            return float(cls.__index__(v))
        raise TypeError(f"must be real number, not {cls.__name__}")
    if isinstance(v, float):
        n = v
    else:
        if not hasattr(type(v), "__index__"):
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
        n = operator.index(v)
        if not -(1 << 63) <= n < 1 << 63:
            if name == "bool":
                return True
            raise ValueError("Overflow when unpacking long long")
    if name == "bool":
        return bool(n)
    info = np.iinfo(dt)
    lowest = -info.max if info.min == 0 and not isinstance(v, float) else info.min
    if not lowest <= n <= info.max:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return int(n) % (1 << 8 * dt.itemsize) if info.min == 0 else int(n)


def _elementwise_in_place(name, self, others, fn):
    """Set each element of ``self`` to ``fn`` of it and of the matching elements of ``others``."""
    if self._requires_grad or builtins.any(o._requires_grad for o in others):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    d = self._data
    args = [d] + [np.broadcast_to(o._data, d.shape) for o in others]
    values = [_to_element(fn(*(a.item() for a in vals)), d.dtype) for vals in zip(*(a.flat for a in args))]
    d[...] = _quietly(np.array, values, dtype=d.dtype).reshape(d.shape) if values else d
    return self  # (no version bump: PyTorch's apply_ writes behind autograd's back)


def _same_type_as_self(name, self, other, arg):
    if other._data.dtype != self._data.dtype:
        mine, theirs = (_dtypes.from_numpy_dtype(t._data.dtype)._legacy for t in (self, other))
        raise TypeError(f"{name}: expected torch.{mine} for {arg} (got torch.{theirs})")
    shape, dshape = self._data.shape, other._data.shape
    if len(dshape) > len(shape):
        raise RuntimeError(f"expand(torch.{_dtypes.from_numpy_dtype(other._data.dtype)._legacy}{{{list(dshape)}}}, "
                           f"size=[{', '.join(map(str, shape))}]): the number of sizes provided ({len(shape)}) must be "
                           f"greater or equal to the number of dimensions in the tensor ({len(dshape)})")
    _check_expandable(dshape, shape, shape)


def apply_(self, callable):  # noqa: A002 - PyTorch's parameter name
    return _elementwise_in_place("apply_", self, (), callable)


def map_(self, tensor, callable):  # noqa: A002
    need_tensor("map_", "other", 1, tensor)
    if not (self._requires_grad or tensor._requires_grad):  # (that refusal comes first)
        _same_type_as_self("map_", self, tensor, "'other'")
    return _elementwise_in_place("map_", self, (tensor,), callable)


def map2_(self, x, y, callable):  # noqa: A002
    need_tensor("map2_", "x", 1, x)
    need_tensor("map2_", "y", 2, y)
    if not (self._requires_grad or x._requires_grad or y._requires_grad):
        _same_type_as_self("map2_", self, x, "argument 'x'")
        _same_type_as_self("map2_", self, y, "argument 'y'")
    return _elementwise_in_place("map2_", self, (x, y), callable)


# ----- What each saved tensor is for -----
# A saved tensor is kept only when an input whose rule reads it requires grad, as PyTorch saves:
# so ``h[1] = h[0] * 2`` does not trip the version check on ``h[0]``, and less memory is held.
for _op, _users in (
    (MUL, {0: (1,), 1: (0,)}), (DIV, {0: (1,), 1: (0, 1)}), (POW_T, {0: (0, 1), 1: (0, 1), "result": (1,)}),
    (DIV_ROUNDED, {0: (1,), 1: (0, 1)}), (REMAINDER, {0: (1,), 1: (1,)}), (FMOD, {0: (1,), 1: (1,)}),
    (MM, {0: (1,), 1: (0,)}), (MV, {0: (1,), 1: (0,)}), (DOT, {0: (1,), 1: (0,)}), (BMM, {0: (1,), 1: (0,)}),
    (ADDMM, {1: (2,), 2: (1,)}), (INDEX_COPY, {1: (1,)}),
):
    _op.save_for = _users


# ----- Nodes whose rules share their work -----

class _Shared:
    """The grads of all of a node's inputs, computed by the first of its rules to run and handed out
    by each rule in turn, as PyTorch computes them in one call (so a double backward shows one
    node with an output per input). ``last``: the last input that takes a grad; its rule lets go."""

    __slots__ = ("key", "grads", "last")

    def __init__(self, inputs):
        self.key = self.grads = None
        self.last = builtins.max((i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad),
                                 default=-1)


def _shared_rules(n, compute, with_result=False):
    """``n`` rules, one per input, that share one ``compute`` of all the grads (given the node's
    output too ``with_result``): PyTorch's single backward kernel for several inputs."""
    def rule_for(i):
        def rule(g, ans, *inputs, shared, **attrs):
            if shared.key is not g:
                shared.grads = compute(g, ans, *inputs, **attrs) if with_result else compute(g, *inputs, **attrs)
                shared.key = g
            grads = shared.grads
            if i == shared.last:
                shared.key = shared.grads = None
            return grads[i]
        return rule
    return [rule_for(i) for i in range(n)]


def _record_shared(op, inputs, result, attrs, n_outputs=1, keep=None):
    if _grad_mode._enabled or _grad_mode._fw_active:
        attrs["shared"] = _Shared(inputs)
    return record(op, inputs, result, attrs, n_outputs, keep)


ATAN2 = defop("Atan2Backward0", *_shared_rules(2, _atan2_grads), saves=(0, 1))  # (atan2 is further up)


# ----- Shrinkage, PReLU and the margin losses -----

# Their backward is a kernel of its own, as in PyTorch (HardshrinkBackwardBackward0 in a double backward).
HARDSHRINK = defop("HardshrinkBackward0", lambda g, ans, x, lambd: hardshrink_backward(g, x, lambd), saves=(0,))
SOFTSHRINK = defop("SoftshrinkBackward0", lambda g, ans, x, lambd: softshrink_backward(g, x, lambd), saves=(0,))
ELEMENTWISE.update((HARDSHRINK, SOFTSHRINK))
HARDSHRINK_BACKWARD = defop("HardshrinkBackwardBackward0",
                            lambda g, ans, grad_output, x, lambd: hardshrink_backward(g, x, lambd),
                            lambda g, ans, grad_output, x, lambd: _zero_grad(g), saves=(1,))
SOFTSHRINK_BACKWARD = defop("SoftshrinkBackwardBackward0",
                            lambda g, ans, grad_output, x, lambd: softshrink_backward(g, x, lambd),
                            lambda g, ans, grad_output, x, lambd: _zero_grad(g), saves=(1,))


def _shrink_backward(go, x, lambd):
    return np.where(np.abs(x) <= lambd, go.dtype.type(0), go)  # (a nan x passes its grad, as in PyTorch)


def hardshrink_backward(grad_output, x, lambd):
    return _backward_kernel(HARDSHRINK_BACKWARD, _shrink_backward, (grad_output, x), {"lambd": lambd})


def softshrink_backward(grad_output, x, lambd):
    return _backward_kernel(SOFTSHRINK_BACKWARD, _shrink_backward, (grad_output, x), {"lambd": lambd})


def _lambd_check(input, lambd):
    d = input._data
    if d.dtype.kind == "f" and lambd < 0:
        top = "3.40282e+38" if d.dtype == np.float32 else "1.79769e+308" if d.dtype == np.float64 else "65504"
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {_scalar_type(input)}, but found {lambd:g}")


def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0."""
    need_tensor("hardshrink", "input", 1, input)
    need_number("hardshrink", "lambd", 2, lambd)
    d = _float_data(input)
    # 0 within lambd, as PyTorch's kernel tests it: a nan is not within, so it stays nan
    return record(HARDSHRINK, (input,), np.where(np.abs(d) <= lambd, d.dtype.type(0), d), {"lambd": lambd})


def softshrink(input, lambd=0.5):
    """``input`` moved ``lambd`` towards 0, and 0 within ``lambd`` of it."""
    need_tensor("softshrink", "input", 1, input)
    need_number("softshrink", "lambd", 2, lambd)
    _lambd_check(input, lambd)
    d = _float_data(input)
    # in between, PyTorch's kernel gives x * 0: -0. for -0. and nan for nan
    lam = d.dtype.type(lambd)
    out = _quietly(lambda: np.where(d > lambd, d - lam, np.where(d < -lambd, d + lam, d * 0)))
    return record(SOFTSHRINK, (input,), out, {"lambd": lambd})


def _prelu_grads(g, x, weight, **_):
    """``(grad_input, grad_weight)`` at once, as PyTorch's ``_prelu_kernel_backward`` gives them (a
    double backward is one PreluKernelBackwardBackward0 node); the weight's at the input's shape,
    summed to its own on the way to it (a node called by hand returns it unsummed, as PyTorch's)."""
    if _grad_mode._enabled or _grad_mode._fw_active:
        gx, gw = record(PRELU_BACKWARD, (g, x, weight), _prelu_backward(g._data, x._data, weight._data), n_outputs=2)
    else:
        gx, gw = (_wrap(r) for r in _prelu_backward(g._data, x._data, weight._data))
    return gx, gw


def _prelu_backward(go, x, w):
    neg = x <= 0
    return np.where(neg, go * w, go), np.where(neg, x * go, go.dtype.type(0))


PRELU = defop("PreluKernelBackward0", *_shared_rules(2, _prelu_grads), saves=(0, 1))


def _prelu_double(gs, grad_output, x, weight):
    """The three grads through ``_prelu_backward``'s two outputs, of ``grad_output``, ``x`` and ``weight``."""
    ggi, ggw = gs
    neg = x <= 0
    d_go = d_x = d_w = None
    if ggi is not None:
        d_go = where(neg, ggi * weight, ggi)
        d_w = sum_to(where(neg, ggi * grad_output, 0.0), weight.shape)
    if ggw is not None:
        t = where(neg, ggw * x, 0.0)
        d_go = t if d_go is None else d_go + t
        d_x = where(neg, ggw * grad_output, 0.0)
    return d_go, d_x, d_w


PRELU_BACKWARD = defop("PreluKernelBackwardBackward0",
                       lambda gs, ans, grad_output, x, weight: _prelu_double(gs, grad_output, x, weight)[0],
                       lambda gs, ans, grad_output, x, weight: _prelu_double(gs, grad_output, x, weight)[1],
                       lambda gs, ans, grad_output, x, weight: _prelu_double(gs, grad_output, x, weight)[2],
                       saves=(0, 1, 2), outputs=(0, 1))


def prelu(input, weight):
    """``input`` where positive, else ``weight * input``, one weight per channel (dim 1) or one for
    all; the weight is viewed to broadcast first where its shape differs, as in PyTorch (a
    ViewBackward0 below it)."""
    need_tensor("prelu", "input", 1, input)
    need_tensor("prelu", "weight", 2, weight)
    shape = input._data.shape
    n, channels = weight._data.size, (shape[1] if len(shape) >= 2 else 1)
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{n} and channel size = {channels}.")
    view_shape = [1] * len(shape)
    if n != 1:
        view_shape[1] = n
    w = view(weight, tuple(view_shape)) if tuple(view_shape) != weight._data.shape else weight
    x = input._data
    return _record_shared(PRELU, (input, w), np.where(x > 0, x, w._data * x).astype(x.dtype, copy=False), {})


SOFT_MARGIN = defop("SoftMarginLossBackward0",  # (one edge: the target takes no grad, as in PyTorch)
                    lambda g, ans, x, target, reduction: soft_margin_loss_backward(g, x, target, reduction), saves=(0,))
SOFT_MARGIN_BACKWARD = defop(
    "SoftMarginLossBackwardBackward0",
    lambda g, ans, grad_output, x, target, reduction: sum_to(g * _soft_margin_slope(x, target, reduction),
                                                            grad_output.shape),
    lambda g, ans, grad_output, x, target, reduction: g * grad_output * _soft_margin_curve(x, target, reduction),
    saves=(0, 1))


def _soft_margin_backward(go, x, target, reduction):
    z = -target * x
    r = go * (-target / (1 + np.exp(-z)))  # the slope: -y sigmoid(-y x)
    return r / x.size if reduction == "mean" else r


def soft_margin_loss_backward(grad_output, x, target, reduction):
    return _backward_kernel(SOFT_MARGIN_BACKWARD, _soft_margin_backward, (grad_output, x),
                            {"target": target, "reduction": reduction})


def _soft_margin_slope(x, target, reduction):
    y = _wrap(target)
    r = neg(y) * sigmoid(neg(y) * x)
    return r / math.prod(x.shape) if reduction == "mean" else r


def _soft_margin_curve(x, target, reduction):
    s = sigmoid(neg(_wrap(target)) * x)
    r = s * (1 - s)  # (y * y is 1)
    return r / math.prod(x.shape) if reduction == "mean" else r


def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))``, then ``reduction``: one SoftMarginLossBackward0 node."""
    need_tensor("soft_margin_loss", "input", 1, input)
    need_tensor("soft_margin_loss", "target", 2, target)
    not_differentiable("soft_margin_loss", "target", target)
    x, y = np.broadcast_arrays(input._data, target._data.astype(input._data.dtype, copy=False))
    loss = _reduce(np.logaddexp(0, -y * x).astype(input._data.dtype, copy=False), reduction)
    return record(SOFT_MARGIN, (input,), loss, {"target": y, "reduction": reduction})


class _SavedOutputs:
    """Outputs of a multi-output node kept for its rule (the first is its saved "result"): each
    read back, like PyTorch's SavedVariable, with the node as grad_fn while a graph is built, and
    checked for in-place changes."""

    __slots__ = ("node", "items")

    def __init__(self, outs, positions):
        fn = outs[0]._grad_fn
        self.node = weakref.ref(fn) if fn is not None else None
        self.items = {i: (outs[i]._data, outs[i]._vc, outs[i]._vc[0]) for i in positions}

    def get(self, i, graph=None):
        data, vc, version = self.items[i]
        node = self.node() if self.node is not None else None
        graph = _grad_mode._enabled if graph is None else graph
        t = _wrap(data, graph)
        t._vc = vc
        t._output_nr = i
        if vc[0] != version:
            raise RuntimeError(_version_message(t, version, node))
        if graph:
            t._grad_fn = node
        return t


# ----- grad_fn._saved_* attributes, named as PyTorch names them -----
# A saved slot reads like PyTorch's SavedVariable: None if it was not needed, an error once
# backward freed it or an in-place op changed it; a Python number reads as a 0-dim tensor.

def _saved_slot(pos):
    def get(node):
        if node._saved is None and node._freed and _never_saved(node, pos):
            return None  # (as PyTorch's empty SavedVariable, even once backward freed the rest)
        v = saved_value(node, pos)
        if v is _UNUSED:
            return None
        return v if v is None or isinstance(v, Tensor) else _wrap(np.asarray(v))
    get.slot = pos  # (register_saved gives it a _raw_saved_* twin)
    return get


def _never_saved(node, pos):
    """Whether ``record`` left slot ``pos`` empty (see Op.save_for), told from the edges a freed node keeps."""
    users = None if pos == "result" else (node._op.save_for or {}).get(pos)
    return users is not None and builtins.all(node._next[u][0] is None for u in users)


def _saved_optional(pos):
    """An optional tensor input's slot: None when it was left out, even once backward freed the node."""
    slot = _saved_slot(pos)

    def get(node):
        return None if node._metas[pos] is None else slot(node)
    get.slot = pos
    return get


def register_saved(table):
    """``grad_fn._saved_<attr>`` properties from ``{node name: {attr: getter}}``; a saved tensor
    (a slot, or a TensorAttr) also gets ``_raw_saved_<attr>``, the SavedTensor hooks can be
    registered on. The getters are kept as the class's ``_getters_saved``: pack hooks get the saved
    tensors in the order of their names (see _tensor._pack_plan)."""
    for name, getters in table.items():
        cls = node_class(name)
        for attr, get in getters.items():
            setattr(cls, "_saved_" + attr, property(get))
            if hasattr(get, "slot"):
                setattr(cls, "_raw_saved_" + attr, property(functools.partial(SavedTensor, pos=get.slot)))
            elif isinstance(get, TensorAttr):
                setattr(cls, "_raw_saved_" + attr, property(get.raw))
        cls._getters_saved = {**cls.__dict__.get("_getters_saved", {}), **getters}


class TensorAttr:
    """``grad_fn._saved_<name>`` of a tensor a node keeps among its attrs (``key``), not in a saved
    slot, which PyTorch saves all the same (a gather's index, a where's condition, nll_loss's
    target): pack hooks get it, backward unpacks it, ``_raw_saved_<name>`` can hook it. ``output``:
    an output of the forward (max's indices), which PyTorch saves after the inputs."""

    def __init__(self, key, output=False):
        self.key, self.output = key, output
        self.index = key in ("index", "indices")  # int64 in PyTorch; NumPy's argsort gives intp (int32 in Pyodide)

    def tensors(self, node):
        """What PyTorch saves, as ``_saved_*`` shows it: one item per tensor (None for none)."""
        v = node._attrs.get(self.key)
        if v is None or isinstance(v, Tensor):
            return [v]
        v = np.asarray(v)
        return [_wrap(v.astype(np.int64) if self.index and v.dtype.kind in "iu" else v)]

    def joiner(self, node):
        """Turns the unpacked tensors back into the attr the rule reads."""
        v = node._attrs[self.key]
        if isinstance(v, Tensor):
            return lambda ts: ts[0]
        if type(v) is _ndarray:
            dt = v.dtype
            return lambda ts: ts[0]._data.astype(dt, copy=False)
        kind = type(v)
        return lambda ts: kind(ts[0].item())

    def shown(self, tensors):
        return tensors[0]

    def is_output(self, t):  # (whether its unpacked tensor has this node as grad_fn: a kept output's does)
        return False

    def __call__(self, node):
        attrs = node._attrs
        hooked = type(attrs) is HookedAttrs and self in attrs.packed
        if node._freed:
            if not hooked and self.shown(self.tensors(node)) is None:
                return None  # (never saved: PyTorch's empty SavedVariable reads None even once freed)
            raise freed_error()
        entry = attrs.packed[self] if hooked else None
        return self.shown(entry.unpacked(node) if entry is not None else self.tensors(node))

    def raw(self, node):
        return SavedTensor(node, spec=self, part=0)


class _IndexParts(TensorAttr):
    """An advanced index's parts up to the last tensor (IndexBackward0's ``_saved_indices``): a
    tensor per indexed dim, None for a whole dim."""

    def tensors(self, node):
        parts = [_saved_index_part(i) for i in node._attrs[self.key]]
        while parts and parts[-1] is None:
            parts.pop()
        return parts

    def joiner(self, node):
        index = node._attrs[self.key]
        kept = tuple(None if type(i) is _ndarray else i for i in index)  # (not the arrays: hooks hold them)
        dtypes = [i.dtype if type(i) is _ndarray else None for i in index]
        return lambda ts: tuple(k if dt is None else ts[j]._data.astype(dt, copy=False)
                                for j, (k, dt) in enumerate(zip(kept, dtypes)))

    def shown(self, tensors):
        return tuple(tensors)

    def __call__(self, node):
        if node._freed:
            raise freed_error()
        return super().__call__(node)

    def raw(self, node):
        if node._freed:
            raise freed_error()
        return tuple(SavedTensor(node, spec=self, part=j) for j in range(len(self.tensors(node))))


class _TotalWeight(TensorAttr):
    """nll_loss's total weight (an output of PyTorch's forward kernel), a number the rule reads; with
    no reduction PyTorch's kernel leaves it 0."""

    def tensors(self, node):
        total = 0 if node._attrs["reduction"] == "none" else node._attrs["total"]
        return [_wrap(np.asarray(total, dtype=node._metas[0][1]))]

    def joiner(self, node):
        total = node._attrs["total"]
        if node._attrs["reduction"] == "none":
            return lambda ts: total
        kind = type(total)
        return lambda ts: kind(ts[0].item())


class _Derived(TensorAttr):
    """A tensor PyTorch's kernel saves that the engine's rule does not read, worked out when asked:
    pack hooks get it, its unpack hook runs at backward, and nothing else changes."""

    def __init__(self, make, output=False, linked=True):
        super().__init__(None, output)
        self.make, self.linked = make, linked

    def tensors(self, node):
        return [self.make(node)]

    def is_output(self, t):
        return self.linked and self.output and t._data.dtype.kind in "fc"

    def joiner(self, node):
        return lambda ts: None


def _saved_attr(name, default=None):
    return lambda node: (node._attrs or {}).get(name, default)


def _saved_sizes(node, i=0):
    return tuple(node._metas[i][0])


def _saved_numel(node):
    return int(math.prod(node._metas[0][0]))


def _saved_output(i):  # (a kept output: see _SavedOutputs)
    return _Derived(lambda node: node._attrs["outs"].get(i, graph=True), output=True)


def _saved_tensor_attr(name, output=False):
    return TensorAttr(name, output)


def _saved_reduction(node):  # PyTorch's at::Reduction enum
    return {"none": 0, "mean": 1, "sum": 2}[node._attrs["reduction"]]


_saved_total_weight = _TotalWeight("total", output=True)


def _saved_log_sigmoid_buffer(pos):  # exp(-|x|), an output of PyTorch's kernel: worked out only when read
    slot = _saved_slot(pos)

    return _Derived(lambda node: _wrap(_quietly(np.exp, -np.abs(slot(node)._data))), output=True, linked=False)


def _int64(v):  # PyTorch shows a saved int64 as unsigned: a dim of -1 reads 2**64 - 1
    return int(v) % (1 << 64)


def _given_or_attr(node, key, attr):
    given = node._given
    return given[key] if given is not None and key in given else (node._attrs or {}).get(attr)


def _saved_dim(key="dim", attr=None):
    """A dim as the user gave it (see _given), else as the rule keeps it."""
    def get(node):
        v = _given_or_attr(node, key, attr or key)
        return _int64(v[0] if type(v) is tuple else v)
    return get


def _saved_dims(key="dim", attr="dims", none=None):
    """Dims as the user gave them, as a tuple; ``none`` when none were given."""
    def get(node):
        v = _given_or_attr(node, key, attr)
        return none if v is None else tuple(_int64(d) for d in ((v,) if isinstance(v, int) else v))
    return get


def _saved_index_dim(node):  # select and slice keep (slice(None),) * dim + (index,), and a negative dim
    return _int64(node._attrs.get("dim", len(node._attrs["index"]) - 1))


def _saved_index_part(i):
    if type(i) is _ndarray:  # a tensor index: int64 (or bool), as PyTorch keeps it
        return _wrap(i.astype(np.int64) if i.dtype.kind in "iu" else i)
    return None if i == slice(None) else i  # None for a whole dim


_saved_indices = _IndexParts("index")


def _saved_slice(part, default):
    def get(node):
        v = getattr(node._attrs["index"][-1], part)
        return _int64(default if v is None else v)
    return get


_SLICE_STOP = _saved_slice("stop", (1 << 63) - 1)


def _saved_slice_end(node):
    given = node._given
    if given is not None and "end" in given:  # (C++'s x.slice(dim, start, end): see _cpp_slice)
        return None if given["end"] is None else _int64(given["end"])
    return _SLICE_STOP(node)


_SELF, _OTHER, _RESULT = _saved_slot(0), _saved_slot(1), _saved_slot("result")
_KEEPDIM = _saved_attr("keepdim")
_REDUCED = {"dim": _saved_dims(), "keepdim": _KEEPDIM, "self_sym_sizes": _saved_sizes}
_REDUCED_KEEPING = {"dim": _saved_dims(none=()), "keepdim": _KEEPDIM, "self": _SELF, "result": _RESULT}
# (index_add keeps no source when the source needs no grad: INDEX_ADD_TO_SELF saves nothing)
def _saved_source(node):
    return _saved_slot(1)(node) if node._op.saves else None


_saved_source.slot = 1
_INDEX_SOURCE = {"dim": _saved_dim(), "index": _saved_tensor_attr("index"), "source": _saved_source,
                 "source_dim": lambda node: len(node._metas[1][0])}
_SAVED_NLL = {"self": _SELF, "target": _saved_tensor_attr("target"), "weight": _saved_tensor_attr("weight"),
              "ignore_index": lambda node: _int64(node._attrs["ignore_index"]), "reduction": _saved_reduction,
              "total_weight": _saved_total_weight}
_SAVED_ATTRIBUTES = {
    "AddBackward0": {"alpha": _saved_attr("alpha", 1)},
    "MulBackward1": {"other": _saved_attr("other")},  # (a Python number, as the formula wrote it)
    "DivBackward1": {"other": _saved_attr("other")},
    "SubBackward0": {"alpha": _saved_attr("alpha", 1)},
    "MulBackward0": {"self": _SELF, "other": _OTHER},
    "DivBackward0": {"self": _SELF, "other": _OTHER},
    "PowBackward0": {"self": _SELF, "exponent": _saved_attr("exponent")},
    "PowBackward1": {"self": _SELF, "exponent": _OTHER, "result": _RESULT},
    **{name: {"self": _SELF} for name in ("LogBackward0", "SinBackward0", "CosBackward0", "AbsBackward0", "Log2Backward0",
                                          "Log10Backward0", "Log1PBackward0", "SinhBackward0", "CoshBackward0",
                                          "AtanBackward0")},
    **{name: {"result": _RESULT} for name in ("ExpBackward0", "TanhBackward0", "SigmoidBackward0", "ReluBackward0",
                                              "SqrtBackward0", "Expm1Backward0", "TanBackward0", "RsqrtBackward0",
                                              "ReciprocalBackward0")},
    "SumBackward0": {"self_sym_sizes": _saved_sizes},
    "SumBackward1": _REDUCED,
    "NansumBackward0": {"dim": _saved_dims(), "keepdim": _KEEPDIM, "self": _SELF},
    "MeanBackward0": {"self_sym_numel": _saved_numel, "self_sym_sizes": _saved_sizes},
    "MeanBackward1": {**_REDUCED, "self_sym_numel": _saved_numel},
    "ViewBackward0": {"self_sym_sizes": _saved_sizes},
    "ExpandBackward0": {"self_sym_sizes": _saved_sizes},
    "MmBackward0": {"self": _SELF, "mat2": _OTHER, "self_sym_sizes": _saved_sizes,
                    "mat2_sym_sizes": lambda node: _saved_sizes(node, 1),
                    "self_sym_strides": lambda node: node._attrs["strides"][0],
                    "mat2_sym_strides": lambda node: node._attrs["strides"][1]},
    "SoftmaxBackward0": {"dim": _saved_dim(), "result": _RESULT},
    "LogSoftmaxBackward0": {"dim": _saved_dim(), "result": _RESULT},
    "ProdBackward1": {"dim": _saved_dim(attr="dims"), "keepdim": _KEEPDIM, "self": _SELF, "result": _RESULT},
    "AmaxBackward0": _REDUCED_KEEPING,
    "AminBackward0": _REDUCED_KEEPING,
    "LogsumexpBackward0": _REDUCED_KEEPING,
    **{name: {"dim": _saved_dim(), "keepdim": _KEEPDIM, "indices": _saved_tensor_attr("indices", output=True),
              "self_sym_sizes": _saved_sizes} for name in ("MaxBackward0", "MinBackward0")},
    "VarBackward0": {"dim": _saved_dims(), "keepdim": _KEEPDIM, "correction": lambda node: node._given["correction"],
                     "self": _SELF},
    "StdBackward0": {"dim": _saved_dims(), "keepdim": _KEEPDIM, "correction": lambda node: node._given["correction"],
                     "self": _SELF, "result": _RESULT},
    "LinalgVectorNormBackward0": {"dim": _saved_dims(), "keepdim": _KEEPDIM, "ord": _saved_attr("ord"),
                                  "self": _SELF, "result": _RESULT},
    "CumsumBackward0": {"dim": _saved_dim()},
    "TransposeBackward0": {"dim0": _saved_dim("d0"), "dim1": _saved_dim("d1")},
    "PermuteBackward0": {"dims": _saved_dims("dims")},
    "SqueezeBackward0": {"self_sym_sizes": _saved_sizes},
    "SqueezeBackward1": {"dim": _saved_dim(), "self_sym_sizes": _saved_sizes},
    "SqueezeBackward2": {"dim": _saved_dims(), "self_sym_sizes": _saved_sizes},
    "UnsqueezeBackward0": {"dim": _saved_dim()},
    # (the in-place t_, transpose_, squeeze_, unsqueeze_: nodes of their own names, see inplace_node)
    "UnsqueezeBackward1": {"dim": _saved_dim()},
    "SqueezeBackward3": {"self_sym_sizes": _saved_sizes},
    "SqueezeBackward4": {"dim": _saved_dim(), "self_sym_sizes": _saved_sizes},
    "SqueezeBackward5": {"dim": _saved_dims(), "self_sym_sizes": _saved_sizes},
    "TransposeBackward1": {"dim0": _saved_dim("d0"), "dim1": _saved_dim("d1")},
    "IndexBackward0": {"indices": _saved_indices, "self_sym_sizes": _saved_sizes},
    "IndexSelectBackward0": {"dim": _saved_dim(), "index": _saved_tensor_attr("index"), "self_sym_sizes": _saved_sizes},
    "UnsafeViewBackward0": {"self_sym_sizes": _saved_sizes},
    "BmmBackward0": {"self": _SELF, "mat2": _OTHER},
    "ClampBackward0": {"self": _SELF, "min": _saved_optional(1), "max": _saved_optional(2)},
    "ClampMinBackward1": {"self": _SELF, "min": _OTHER},
    "ClampMaxBackward1": {"self": _SELF, "max": _OTHER},
    "RsubBackward1": {"alpha": _saved_attr("alpha", 1)},
    "PowBackward2": {"self": _saved_attr("base"), "exponent": _SELF, "result": _RESULT},
    "SiluBackward0": {"self": _SELF},
    "SelectBackward0": {"dim": _saved_index_dim, "index": lambda node: _int64(node._attrs["index"][-1]),
                        "self_sym_sizes": _saved_sizes},
    "SliceBackward0": {"dim": _saved_index_dim, "start": _saved_slice("start", 0), "end": _saved_slice_end,
                       "step": _saved_slice("step", 1), "self_sym_sizes": _saved_sizes},
    "UnfoldBackward0": {"dimension": _saved_dim(), "self_sym_sizes": _saved_sizes, "size": _saved_attr("size"),
                        "step": _saved_attr("step")},
    "UnfoldBackwardBackward0": {"dim": _saved_dim(), "size": _saved_attr("size"), "step": _saved_attr("step")},
    "SelectBackwardBackward0": {"dim": _saved_index_dim, "index": lambda node: _int64(node._attrs["index"][-1])},
    "SliceBackwardBackward0": {"dim": _saved_index_dim, "start": _saved_slice("start", 0),
                               "end": _SLICE_STOP, "step": _saved_slice("step", 1)},
    "IndexPutImplBackward0": {"indices": _saved_indices, "accumulate": _saved_attr("accumulate")},
    "GatherBackward0": {"dim": _saved_dim(), "index": _saved_tensor_attr("index"), "self": _SELF,
                        "sparse_grad": lambda node: False},
    "CatBackward0": {"dim": _saved_dim()},
    "StackBackward0": {"dim": _saved_dim()},
    "UnbindBackward0": {"dim": _saved_dim()},
    "SplitBackward0": {"dim": _saved_dim(), "split_size": lambda node: node._given["split_size"],
                       "self_sym_sizes": _saved_sizes},
    "SplitWithSizesBackward0": {"dim": _saved_dim(), "split_sizes": _saved_attr("sizes"),
                                "self_sym_sizes": _saved_sizes},
    "UnsafeSplitBackward0": {"dim": _saved_dim(), "split_size": lambda node: node._given["split_size"],
                             "self_sym_sizes": _saved_sizes},
    "UnsafeSplitWithSizesBackward0": {"dim": _saved_dim(), "split_sizes": _saved_attr("sizes"),
                                      "self_sym_sizes": _saved_sizes},
    "FlipBackward0": {"dims": _saved_dims("dims")},
    "RepeatBackward0": {"repeats": _saved_attr("repeats"), "self_sym_sizes": _saved_sizes},
    **{name: {"self": _SELF, "result": _RESULT} for name in ("MaxBackward1", "MinBackward1", "ProdBackward0")},
    **{name: {"self": _SELF, "other": _OTHER} for name in ("MaximumBackward0", "MinimumBackward0")},
    "DotBackward0": {"self": _SELF, "tensor": _OTHER},
    "VdotBackward0": {"self": _SELF, "other": _OTHER},
    "MvBackward0": {"self": _SELF, "vec": _OTHER},
    "WhereBackward0": {"condition": _saved_tensor_attr("cond")},
    **{name: {"mask": _saved_tensor_attr("mask")}
       for name in ("MaskedFillBackward0", "MaskedFillBackward1", "MaskedScatterBackwardBackward0")},
    "ClampBackward1": {"self": _SELF, "min": _saved_attr("min"), "max": _saved_attr("max")},
    "LeakyReluBackward0": {"self": _SELF, "negative_slope": _saved_attr("negative_slope")},
    "EluBackward0": {"self": _SELF, "alpha": _saved_attr("alpha"), "scale": _saved_attr("scale", 1),
                     "input_scale": _saved_attr("input_scale", 1)},
    "SoftplusBackward0": {"self": _SELF, "beta": _saved_attr("beta"), "threshold": _saved_attr("threshold")},
    "MseLossBackward0": {"self": _SELF, "target": _OTHER, "reduction": _saved_reduction},
    "BinaryCrossEntropyBackward0": {"self": _SELF, "target": _OTHER, "weight": _saved_tensor_attr("weight"),
                                    "reduction": _saved_reduction},
    "BinaryCrossEntropyWithLogitsBackward0": {"self": _SELF, "target": _OTHER, "weight": _saved_tensor_attr("weight"),
                                              "pos_weight": _saved_tensor_attr("pos_weight"),
                                              "reduction": _saved_reduction},
    # (an int64 PyTorch shows as unsigned: ignore_index -100 reads 2**64 - 100)
    **{name: {"self": _SELF} for name in ("ErfBackward0", "ErfcBackward0", "AsinBackward0", "AcosBackward0",
                                          "AsinhBackward0", "AcoshBackward0", "AtanhBackward0", "SincBackward0",
                                          "NanToNumBackward0", "MishBackward0", "HardsigmoidBackward0",
                                          "HardswishBackward0")},
    "Exp2Backward0": {"result": _RESULT},
    "LogitBackward0": {"self": _SELF, "eps": _saved_attr("eps")},
    **{name: {"self": _SELF, "other": _OTHER} for name in ("Atan2Backward0", "XlogyBackward0", "LogaddexpBackward0")},
    "HypotBackward0": {"self": _SELF, "other": _OTHER, "result": _RESULT},
    "XlogyBackward1": {"self": _saved_attr("self"), "other": _SELF},
    "XlogyBackward2": {"self": _SELF, "other": _saved_attr("other")},
    "LerpBackward0": {"weight": _saved_attr("weight")},
    "LerpBackward1": {"self": _SELF, "end": _OTHER, "weight": _saved_slot(2)},
    **{name: {"tensor1": _saved_slot(1), "tensor2": _saved_slot(2), "value": _saved_attr("value")}
       for name in ("AddcmulBackward0", "AddcdivBackward0")},
    "GeluBackward0": {"self": _SELF, "approximate": _saved_attr("approximate")},
    "HardtanhBackward0": {"self": _SELF, "min_val": _saved_attr("min_val"), "max_val": _saved_attr("max_val")},
    "CeluBackward0": {"self": _SELF, "alpha": _saved_attr("alpha")},
    "GluBackward0": {"self": _SELF, "dim": _saved_dim()},
    "ThresholdBackward0": {"self": _SELF, "threshold": _saved_attr("threshold")},
    "SmoothL1LossBackward0": {"self": _SELF, "target": _OTHER, "reduction": _saved_reduction, "beta": _saved_attr("beta")},
    "HuberLossBackward0": {"self": _SELF, "target": _OTHER, "reduction": _saved_reduction,
                           "delta": _saved_attr("delta")},
    **{name: {"diagonal": lambda node: _int64(node._attrs["diagonal"])} for name in ("TrilBackward0", "TriuBackward0")},
    **{name: {"dim1": _saved_dim("dim1"), "dim2": _saved_dim("dim2"), "offset": lambda node: _int64(node._attrs["offset"]),
              "self_sym_sizes": _saved_sizes} for name in ("DiagonalBackward0", "DiagonalBackward0_copy")},
    "DiagEmbedBackward0": {"dim1": lambda node: _int64(node._attrs.get("dim1", -2)),
                           "dim2": lambda node: _int64(node._attrs.get("dim2", -1)),
                           "offset": lambda node: _int64(node._attrs["offset"])},
    "DiagonalBackwardBackward0": {"dim1": _saved_dim("dim1"), "dim2": _saved_dim("dim2"),
                                  "offset": lambda node: _int64(node._attrs["offset"])},
    "TraceBackward0": {"self_sym_sizes": _saved_sizes},
    "RollBackward0": {"dims": _saved_dims("dims", none=()), "shifts": lambda node: tuple(_int64(v) for v in node._attrs["shifts"])},
    "CumprodBackward0": {"dim": _saved_dim(), "self": _SELF, "result": _RESULT},
    "VarMeanBackward0": {"dim": _saved_dims(), "keepdim": _KEEPDIM, "correction": lambda node: node._given["correction"],
                         "self": _SELF},
    "StdMeanBackward0": {"dim": _saved_dims(), "keepdim": _KEEPDIM, "correction": lambda node: node._given["correction"],
                         "self": _SELF, "result0": _RESULT},
    "NormBackward1": {"p": _saved_attr("ord"), "dim": _saved_dims(), "keepdim": _KEEPDIM, "self": _SELF,
                      "result": _RESULT},
    **{name: {"dim": _saved_dim(), "indices": _saved_tensor_attr("indices", output=True), "self_sym_sizes": _saved_sizes}
       for name in ("SortBackward0", "SortBackward1", "TopkBackward0")},
    **{name: {"dim": _saved_dim(), "indices": _saved_tensor_attr("indices", output=True), "keepdim": _KEEPDIM,
              "self_sym_sizes": _saved_sizes}
       for name in ("KthvalueBackward0", "MedianBackward1", "NanmedianBackward1", "ModeBackward0")},
    **{name: {"self": _SELF, "result": _RESULT} for name in ("MedianBackward0", "NanmedianBackward0")},
    **{name: {"dim": _saved_dim(), "indices": _saved_tensor_attr("indices", output=True), "self": _SELF}
       for name in ("CummaxBackward0", "CumminBackward0")},
    "TakeBackward0": {"index": _saved_tensor_attr("index"), "self": _SELF},
    **{name: {"dim": _saved_dim(), "index": _saved_tensor_attr("index")}
       for name in ("ScatterBackward0", "ScatterBackward1", "ScatterAddBackward0", "IndexFillBackward0",
                    "IndexFillBackward1")},
    "IndexAddBackward0": {**_INDEX_SOURCE, "alpha": _saved_attr("alpha")},
    "IndexCopyBackward0": _INDEX_SOURCE,
    "IndexPutBackward0": {"indices": _saved_indices, "accumulate": _saved_attr("accumulate", False)},
    "EmbeddingBackward0": {"indices": _saved_tensor_attr("indices"),
                           "padding_idx": lambda node: _int64(node._attrs["padding_idx"]),
                           "scale_grad_by_freq": _saved_attr("scale_grad_by_freq"), "sparse": _saved_attr("sparse"),
                           "weight_sym_argsize_0": lambda node: node._metas[0][0][0]},
    "AddmmBackward0": {"alpha": _saved_attr("alpha", 1), "beta": _saved_attr("beta", 1), "mat1": _saved_slot(1),
                       "mat2": _saved_slot(2), "mat1_sym_sizes": lambda node: _saved_sizes(node, 1),
                       "mat2_sym_sizes": lambda node: _saved_sizes(node, 2),
                       "mat1_sym_strides": lambda node: node._attrs["strides"][0],
                       "mat2_sym_strides": lambda node: node._attrs["strides"][1]},
    "ClampMinBackward0": {"self": _SELF, "min": _saved_attr("min")},
    "ClampMaxBackward0": {"self": _SELF, "max": _saved_attr("max")},
    "DivBackward2": {"self": _SELF, "other": _OTHER, "rounding_mode": lambda node: node._given["rounding_mode"]},
    **{name: {"self": _SELF, "other": _OTHER} for name in ("RemainderBackward1", "FmodBackward1")},
    "SgnBackward0": {"self": _SELF, "result": _RESULT},
    "ErfinvBackward0": {"self": _SELF},
    "ReshapeAliasBackward0": {"self_sym_sizes": _saved_sizes},
    "MaskedSelectBackward0": {"self": _SELF, "mask": _saved_tensor_attr("mask")},
    "MaskedScatterBackward0": {"mask": _saved_tensor_attr("mask"),
                               "source_sym_sizes": lambda node: _saved_sizes(node, 1)},
    "LogSigmoidBackward0": {"self": _SELF, "buffer": _saved_log_sigmoid_buffer(0)},
    "PreluKernelBackward0": {"self": _SELF, "weight": _OTHER},
    **{name: {"self": _SELF, "lambd": _saved_attr("lambd")} for name in ("HardshrinkBackward0", "SoftshrinkBackward0")},
    "SoftMarginLossBackward0": {"self": _SELF, "target": _saved_tensor_attr("target"), "reduction": _saved_reduction},
    "NllLoss2DBackward0": _SAVED_NLL,
    "NllLossBackward0": _SAVED_NLL,
    # The nodes of backward kernels, in a double backward: the incoming grad is input 0
    **{name: {"grad_output": _SELF, "output": _OTHER}
       for name in ("SigmoidBackwardBackward0", "TanhBackwardBackward0")},
    **{name: {"grad_output": _SELF, "output": _OTHER, "dim": _saved_dim()}
       for name in ("SoftmaxBackwardDataBackward0", "LogSoftmaxBackwardDataBackward0")},
    "ThresholdBackwardBackward0": {"self": _saved_slot(1), "threshold": _saved_attr("threshold")},
    "LeakyReluBackwardBackward0": {"self": _saved_slot(1), "negative_slope": _saved_attr("negative_slope")},
    "SoftplusBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "beta": _saved_attr("beta"),
                                  "threshold": _saved_attr("threshold")},
    "EluBackwardBackward0": {"grad_output": _SELF, "self_or_result": _saved_slot(1), "is_result": lambda node: False,
                             "alpha": _saved_attr("alpha"), "scale": _saved_attr("scale"),
                             "input_scale": _saved_attr("input_scale")},
    "GeluBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "approximate": _saved_attr("approximate")},
    "GluBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "dim": _saved_dim()},
    "HardtanhBackwardBackward0": {"self": _saved_slot(1), "min_val": _saved_attr("min_val"),
                                  "max_val": _saved_attr("max_val")},
    "HardswishBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1)},
    "LogSigmoidBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1),
                                    "buffer": _saved_log_sigmoid_buffer(1)},
    **{name: {"self": _saved_slot(1), "lambd": _saved_attr("lambd")}
       for name in ("HardshrinkBackwardBackward0", "SoftshrinkBackwardBackward0")},
    "PreluKernelBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "weight": _saved_slot(2)},
    "MseLossBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "target": _saved_slot(2),
                                 "reduction": _saved_reduction},
    "SmoothL1LossBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "target": _saved_slot(2),
                                      "reduction": _saved_reduction, "beta": _saved_attr("beta")},
    "HuberLossBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "target": _saved_slot(2),
                                   "reduction": _saved_reduction, "delta": _saved_attr("delta")},
    "BinaryCrossEntropyBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1), "target": _saved_slot(2),
                                            "weight": _saved_tensor_attr("weight"), "reduction": _saved_reduction},
    "SoftMarginLossBackwardBackward0": {"grad_output": _SELF, "self": _saved_slot(1),
                                        "target": _saved_tensor_attr("target"), "reduction": _saved_reduction},
    **{name: {key: _SAVED_NLL[key] for key in ("target", "weight", "ignore_index", "reduction")}
       for name in ("NllLossBackwardBackward0", "NllLoss2DBackwardBackward0")},
}
register_saved(_SAVED_ATTRIBUTES)


def _saved_optional_int(name):
    return lambda node: None if node._attrs[name] is None else _int64(node._attrs[name])


def _saved_given_int(name):
    return lambda node: _int64(_given_or_attr(node, name, name))


_REDUCED_INTO = {"dim": _saved_dim(), "index": _saved_tensor_attr("index"), "reduce": _saved_attr("reduce"),
                 "include_self": _saved_attr("include_self"), "self": _SELF, "result": _RESULT}
register_saved({
    "ScatterReduceBackward0": {**_REDUCED_INTO, "src": _OTHER},
    "IndexReduceBackward0": {**_REDUCED_INTO, "source": _OTHER},
    "SliceScatterBackward0": {"dim": _saved_dim(), "start": _saved_optional_int("start"),
                              "end": _saved_optional_int("end"), "step": _saved_given_int("step")},
    "SelectScatterBackward0": {"dim": _saved_dim(), "index": _saved_given_int("index")},
    "DiagonalScatterBackward0": {"dim1": _saved_dim("dim1"), "dim2": _saved_dim("dim2"),
                                 "offset": _saved_given_int("offset")},
    # (take's backward records one too, a put_ that accumulates and keeps no source)
    "PutBackward0": {"accumulate": _saved_attr("accumulate", True), "index": _saved_tensor_attr("index"),
                     "source": lambda node: _OTHER(node) if node._op.saves else None},
    "NarrowCopyBackward0": {"dim": _saved_dim(), "start": _saved_given_int("start"), "length": _saved_attr("length"),
                            "self_sym_sizes": _saved_sizes},
    "FrexpBackward0": {"exponent": _saved_tensor_attr("exponent")},
    "LdexpBackward0": {"other": _OTHER, "result": _RESULT},
    "NextafterBackward0": {"self": _SELF, "other": _OTHER},
    # (the *_copy twins keep what their views keep)
    **{name + "_copy": _SAVED_ATTRIBUTES.get(name, {}) for name in (
        "ViewBackward0", "TBackward0", "PermuteBackward0", "TransposeBackward0", "ExpandBackward0", "SqueezeBackward0",
        "SqueezeBackward1", "SqueezeBackward2", "UnsqueezeBackward0", "SelectBackward0", "SliceBackward0",
        "AliasBackward0", "UnbindBackward0", "SplitBackward0", "SplitWithSizesBackward0", "UnfoldBackward0")},
})


_OUT_NODES = {}


def not_implemented_out(name, inputs, outs):
    """Give ``outs`` (out= tensors PyTorch computes into from inputs that require grad) the node PyTorch
    records there: NotImplemented, an edge for each input that requires grad, its backward raising."""
    if not _grad_mode._enabled or not builtins.any(t._requires_grad for t in inputs):
        return
    key = (name, len(inputs), len(outs))
    op = _OUT_NODES.get(key)
    if op is None:
        op = _OUT_NODES[key] = defop("NotImplemented", *[_not_implemented(name)] * len(inputs),
                                     cpp_name="torch::autograd::NotImplemented", outputs=tuple(range(len(outs))))
    made = record(op, inputs, tuple(o._data for o in outs) if len(outs) > 1 else outs[0]._data, n_outputs=len(outs))
    made = made if len(outs) > 1 else (made,)
    _grad_edges_only(made[0])
    for o, m in zip(outs, made):
        o._grad_fn, o._output_nr, o._requires_grad = m._grad_fn, m._output_nr, m._requires_grad
