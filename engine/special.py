"""``torch.special``: PyTorch's special functions, with its values, nodes and errors.

The kernels are NumPy ports of PyTorch's own (see _special_kernels); what PyTorch differentiates
gets its derivative from derivatives.yaml, written with this engine's ops so that it differentiates
again, and the rest (the Bessel and Airy functions, the orthogonal polynomials) returns a tensor
that does not require grad, as in PyTorch.
"""
import math

import numpy as np

from . import _dtypes, _grad_mode, _ops
from . import _special_kernels as _k
from ._ops import (_RESULT, _SELF, ELEMENTWISE, ROUND_DECIMALS, _add_scalar, _broadcast_checked, _div_scalar, _erf,
                   _mul_scalar, _quietly, _saved_attr, _saved_slot, _sub_scalar, defop, exp, lgamma, log, masked_fill,
                   neg, pow, reciprocal, register_saved, sgn, unsqueeze, where, need_tensor)
from ._tensor import Tensor, _wrap, is_scalar, record

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

_SQRT_2PI = math.sqrt(2 * math.pi)


# ----- Arguments -----

def _tensor(fname, x, name="input", pos=1):
    need_tensor(f"special_{fname}", name, pos, x)
    return x


def _int(fname, v, name, pos):
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"special_{fname}(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")
    return v


def _type_name(dt):
    return _dtypes.from_numpy_dtype(dt)._legacy[:-len("Tensor")]


def _not_for(kernel, dt):
    return NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_type_name(dt)}\'')


def _float_dtype(*operands):
    """The dtype PyTorch computes a special function in: the operands' result type, integers and bool
    promoted to the default dtype."""
    dt = _dtypes.result_type(*operands)
    return dt.np if dt.is_floating_point else _dtypes.get_default_dtype().np


def _array(x, dt):
    return x._data.astype(dt, copy=False) if isinstance(x, Tensor) else np.asarray(x, dtype=dt)


def _run(kernel, dt, *arrays, half=True, name=None):
    """``kernel`` on ``arrays`` (already in ``dt``); float16 runs in float32, as PyTorch's kernels upcast
    Half, or raises where PyTorch has no Half kernel."""
    if dt == np.float16:
        if not half:
            raise _not_for(name, dt)
        return np.asarray(_quietly(kernel, *(a.astype(np.float32) for a in arrays))).astype(np.float16)
    return np.asarray(_quietly(kernel, *arrays)).astype(dt, copy=False)


def _broadcast(a, b):
    _broadcast_checked(np.shape(a), np.shape(b))


def _no_forward_ad(name, *tensors):
    """PyTorch has no forward formula for ``name``: it refuses as soon as an input has a tangent."""
    if _grad_mode._fw_active and any(isinstance(t, Tensor) and t._fw_grad is not None for t in tensors):
        from .autograd.forward_ad import not_implemented_yet

        raise not_implemented_yet(name)


def _not_implemented(what):
    def rule(g, ans, *args, **attrs):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return rule


# ----- Elementwise functions of one tensor -----

def _unary(name, kernel, op=None, half=True, arg="input"):
    """``torch.special.<name>``: ``kernel`` on the input as a float array; a node of ``op`` if it has
    one, else a result that does not require grad (PyTorch's non_differentiable). ``arg``: the
    argument's name in PyTorch's messages."""
    if op is not None:
        ELEMENTWISE.add(op)  # (its tangent is its rule applied to the input's: auto_element_wise)

    def f(input):
        _tensor(name, input, arg)
        dt = _float_dtype(input)
        out = _run(kernel, dt, _array(input, dt), half=half, name=name)
        return _wrap(out) if op is None else record(op, (input,), out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``torch.special.{name}``" + (f"; its backward node is ``{op.node_cls.__name__}``." if op else
                                                 " (not differentiable, as in PyTorch).")
    return f


def _i1_grad(g, x, ans, lead, shift):
    # PyTorch's i1_backward and i1e_backward: 1/2 at |x| <= eps, where the formula is 0/0
    if x._data.dtype == np.float16:
        raise NotImplementedError(f"\"{'i1_backward' if lead is i0 else 'i1e_backward'}\" not implemented for "
                                  "'Half'")
    eps = float(np.finfo(x._data.dtype).eps)
    not_tiny = _wrap(np.abs(x._data) > eps)
    safe = where(not_tiny, x, eps)
    return g * where(not_tiny, lead(safe) - ans * shift(safe), 0.5)


I0 = defop("I0Backward0", lambda g, ans, x: g * i1(x), saves=(0,))
I0E = defop("SpecialI0EBackward0", lambda g, ans, x: g * (i1e(x) - sgn(x) * ans), saves=(0, "result"))
I1 = defop("SpecialI1Backward0", lambda g, ans, x: _i1_grad(g, x, ans, i0, reciprocal), saves=(0, "result"))
I1E = defop("SpecialI1EBackward0", lambda g, ans, x: _i1_grad(g, x, ans, i0e, lambda s: sgn(s) + reciprocal(s)),
            saves=(0, "result"))
ERFCX = defop("SpecialErfcxBackward0",
              lambda g, ans, x: _sub_scalar(_mul_scalar(x, 2.0) * ans, 2.0 / math.sqrt(math.pi)) * g,
              saves=(0, "result"))
NDTRI = defop("SpecialNdtriBackward0", lambda g, ans, x: _mul_scalar(g, _SQRT_2PI) * exp(_div_scalar(pow(ans, 2), 2)),
              saves=("result",))
LOG_NDTR = defop("SpecialLogNdtrBackward0",
                 lambda g, ans, x: _div_scalar(g, _SQRT_2PI) * exp(neg(ans + _div_scalar(pow(x, 2), 2))),
                 saves=(0, "result"))
ENTR = defop("SpecialEntrBackward0", lambda g, ans, x: g * neg(_add_scalar(log(x), 1)), saves=(0,))

i0 = _unary("i0", _k.i0, I0)
i0e = _unary("i0e", _k.i0e, I0E)
i1 = _unary("i1", _k.i1, I1)
i1e = _unary("i1e", _k.i1e, I1E)
erfcx = _unary("erfcx", _k.erfcx, ERFCX, half=False)
ndtri = _unary("ndtri", _k.ndtri, NDTRI, half=False)
log_ndtr = _unary("log_ndtr", lambda d: _k.log_ndtr(d, lambda t: _erf(t, True)), LOG_NDTR, half=False)
entr = _unary("entr", _k.entr, ENTR)

airy_ai = _unary("airy_ai", _k.airy_ai, half=False, arg="x")
bessel_j0 = _unary("bessel_j0", _k.bessel_j0, half=False)
bessel_j1 = _unary("bessel_j1", _k.bessel_j1, half=False)
bessel_y0 = _unary("bessel_y0", _k.bessel_y0, half=False)
bessel_y1 = _unary("bessel_y1", _k.bessel_y1, half=False)
modified_bessel_i0 = _unary("modified_bessel_i0", _k.modified_bessel_i0, half=False)
modified_bessel_i1 = _unary("modified_bessel_i1", _k.modified_bessel_i1, half=False)
modified_bessel_k0 = _unary("modified_bessel_k0", _k.modified_bessel_k0, half=False)
modified_bessel_k1 = _unary("modified_bessel_k1", _k.modified_bessel_k1, half=False)
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", _k.scaled_modified_bessel_k0, half=False, arg="x")
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", _k.scaled_modified_bessel_k1, half=False, arg="x")
spherical_bessel_j0 = _unary("spherical_bessel_j0", _k.spherical_bessel_j0, half=False, arg="x")


def ndtr(input):
    """The standard normal CDF: PyTorch composes it, ``(1 + erf(x / sqrt(2))) * 0.5``."""
    _tensor("ndtr", input)
    return _mul_scalar(_add_scalar(_ops.erf(_mul_scalar(input, 1 / math.sqrt(2))), 1), 0.5)


MVLGAMMA = defop("MvlgammaBackward0", lambda g, ans, x, p: g * _ops.sum(_ops.digamma(_mvlgamma_args(x, p)), -1),
                 saves=(0,))
ELEMENTWISE.add(MVLGAMMA)


def _mvlgamma_offsets(p, dt):
    return np.arange(-p / 2 + 0.5, 0.5, 0.5).astype(dt)


def _mvlgamma_args(x, p):
    return _wrap(_mvlgamma_offsets(p, x._data.dtype)) + unsqueeze(x, -1)


def _mvlgamma(d, p):
    # PyTorch's mvlgamma: lgamma of x + (0, -1/2, ..., (1 - p) / 2) summed, plus p (p - 1) / 4 log(pi); each
    # op rounds to the input's dtype (Half too: its sum accumulates in float32)
    args = _mvlgamma_offsets(p, d.dtype) + d[..., None]
    terms = _k.lgamma(args).astype(d.dtype)
    total = terms.astype(np.float32).sum(-1).astype(d.dtype) if d.dtype == np.float16 else terms.sum(-1)
    const = p * (p - 1) * math.log(math.pi) * 0.25
    return ((total.astype(np.float32) + const) if d.dtype == np.float16 else total + const).astype(d.dtype)


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension ``p``."""
    _tensor("multigammaln", input)
    _int("multigammaln", p, "p", 2)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    dt = _float_dtype(input)
    return record(MVLGAMMA, (input,), _quietly(_mvlgamma, _array(input, dt), p), {"p": p})


# ----- Aliases of the engine's ops -----

def _alias(name, fn):
    def f(input):
        return fn(_tensor(name, input))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``torch.special.{name}``: ``torch.{fn.__name__}``."
    return f


erf = _alias("erf", _ops.erf)
erfc = _alias("erfc", _ops.erfc)
erfinv = _alias("erfinv", _ops.erfinv)
exp2 = _alias("exp2", _ops.exp2)
expm1 = _alias("expm1", _ops.expm1)
log1p = _alias("log1p", _ops.log1p)
expit = _alias("expit", _ops.sigmoid)
gammaln = _alias("gammaln", _ops.lgamma)
digamma = _alias("digamma", _ops.digamma)
psi = _alias("psi", _ops.digamma)
sinc = _alias("sinc", _ops.sinc)


def logit(input, eps=None):
    return _ops.logit(_tensor("logit", input), eps)


def polygamma(n, input):
    """The n-th derivative of the digamma function."""
    _int("polygamma", n, "n", 1)
    return _ops.polygamma(n, _tensor("polygamma", input, pos=2))


def round(input, *, decimals=0):
    """``torch.round(input, decimals=decimals)``; its node is RoundBackward1 even for 0 decimals."""
    _tensor("round", input)
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"special_round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    d = input._data
    if d.dtype.kind != "f":
        raise NotImplementedError(f'"round_vml_cpu" not implemented for \'{_type_name(d.dtype)}\'')
    return record(ROUND_DECIMALS, (input,), np.round(d, decimals), {"decimals": decimals})


_MISSING = object()


def _dim_required(fname, dim):
    if dim is _MISSING:
        raise TypeError(f'special_{fname}() missing 1 required positional arguments: "dim"')


def softmax(input, dim=_MISSING, *, dtype=None):
    _dim_required("softmax", dim)
    return _ops.softmax(_tensor("softmax", input), dim, dtype=dtype)


def log_softmax(input, dim=_MISSING, *, dtype=None):
    _dim_required("log_softmax", dim)
    return _ops.log_softmax(_tensor("log_softmax", input), dim, dtype=dtype)


def logsumexp(input, dim=_MISSING, keepdim=False):
    _dim_required("logsumexp", dim)
    return _ops.logsumexp(_tensor("logsumexp", input), dim, keepdim)


# ----- Functions of two arguments (a tensor, and a tensor or a number) -----

def _two(fname, a, b, names=("input", "other"), self_name="self"):
    """PyTorch's overloads (Tensor, Tensor), (Number, Tensor), (Tensor, Number)."""
    if isinstance(a, Tensor) and (isinstance(b, Tensor) or is_scalar(b)) or is_scalar(a) and isinstance(b, Tensor):
        return
    got = ", ".join(type(v).__name__ for v in (a, b))
    x, n = names
    raise TypeError(f"special_{fname}() received an invalid combination of arguments - got ({got}), but expected one "
                    f"of:\n * (Tensor {x}, Tensor {n}, *, Tensor out = None)\n * (Number {self_name if x == 'input' else x}, "
                    f"Tensor {n}, *, Tensor out = None)\n * (Tensor {x}, Number {n}, *, Tensor out = None)\n")


def _binary_arrays(a, b, dt):
    xa, xb = _array(a, dt), _array(b, dt)
    _broadcast(xa, xb)
    return xa, xb


def xlogy(input, other):
    _two("xlogy", input, other)
    return _ops.xlogy(input, other)


XLOG1PY = defop("SpecialXlog1PyBackward0",
                lambda g, ans, a, b: masked_fill(xlog1py(g, b), (a == 0.0) & (b <= -1.0), 0.0),
                lambda g, ans, a, b: g * a / _add_scalar(b, 1), saves=(0, 1))
XLOG1PY_SELF = defop("SpecialXlog1PyBackward1", lambda g, ans, b, self: _mul_scalar(g, self) / _add_scalar(b, 1),
                     saves=(0,))
XLOG1PY_OTHER = defop("SpecialXlog1PyBackward2", lambda g, ans, a, other: xlog1py(g, other) if other > -1
                      else masked_fill(xlog1py(g, other), a == 0.0, 0.0), saves=(0,))
ELEMENTWISE.update((XLOG1PY_SELF, XLOG1PY_OTHER))


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is nan)."""
    _two("xlog1py", input, other)
    dt = _float_dtype(input, other)
    # (Half rounds log1p's result before the product, as PyTorch's Half arithmetic does: NumPy's float16 too)
    out = _quietly(_k.xlog1py, *_binary_arrays(input, other, dt))
    if not isinstance(input, Tensor):
        return record(XLOG1PY_SELF, (other,), out, {"self": input})
    if not isinstance(other, Tensor):
        return record(XLOG1PY_OTHER, (input,), out, {"other": other})
    return record(XLOG1PY, (input, other), out)


ZETA = defop("SpecialZetaBackward0", _not_implemented("zeta"),
             lambda g, ans, a, b: g * neg(a) * zeta(_add_scalar(a, 1.0), b), saves=(0, 1))
ZETA_SELF = defop("SpecialZetaBackward1", lambda g, ans, b, self: _mul_scalar(g, -self) * zeta(self + 1.0, b),
                  saves=(0,))
ZETA_OTHER = defop("SpecialZetaBackward2", _not_implemented("zeta"))


def zeta(input, other):
    """The Hurwitz zeta function of ``input`` (x) at ``other`` (q)."""
    _two("zeta", input, other)
    _no_forward_ad("special_zeta", input, other)
    dt = _float_dtype(input, other)
    out = _run(_k.zeta, dt, *_binary_arrays(input, other, dt), half=False, name="zeta")
    if not isinstance(input, Tensor):
        return record(ZETA_SELF, (other,), out, {"self": input})
    if not isinstance(other, Tensor):
        return record(ZETA_OTHER, (input,), out, {"other": other})
    return record(ZETA, (input, other), out)


def _igamma_grad(g, a, b):
    return g * exp(_sub_scalar(a, 1) * log(b) - b - lgamma(a))


IGAMMA = defop("IgammaBackward0", _not_implemented("igamma: input"), lambda g, ans, a, b: _igamma_grad(g, a, b),
               saves=(0, 1))
IGAMMAC = defop("IgammacBackward0", _not_implemented("igammac: input"),
                lambda g, ans, a, b: _igamma_grad(neg(g), a, b), saves=(0, 1))


def _igamma(fname, kernel, op, input, other):
    _tensor(fname, input)
    _tensor(fname, other, "other", 2)
    aten = op.node_cls.__name__[:-len("Backward0")].lower()  # igamma, igammac
    _no_forward_ad(aten, input, other)
    dt = _dtypes.result_type(input, other).np
    if dt.kind != "f":
        raise _not_for(aten, dt)
    out = _run(lambda a, x: kernel(a, x, lambda t: _erf(t, True)), dt, *_binary_arrays(input, other, dt))
    return record(op, (input, other), out)


def gammainc(input, other):
    """The regularized lower incomplete gamma function P(input, other)."""
    return _igamma("gammainc", _k.igamma, IGAMMA, input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function Q(input, other)."""
    return _igamma("gammaincc", _k.igammac, IGAMMAC, input, other)


# ----- Orthogonal polynomials (not differentiable) -----

def _polynomial(name, kernel):
    def f(input, n):
        _two(name, input, n, names=("x", "n"))
        dt = _float_dtype(input, n)
        if dt == np.float16:
            raise _not_for(name, dt)
        x, m = _binary_arrays(input, n, dt)
        return _wrap(_run(kernel, dt, x, m))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``torch.special.{name}(input, n)``: of degree ``n`` (a tensor or a number), truncated to an " \
                "integer; 0 for a negative one."
    return f


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _k.chebyshev_polynomial_t)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _k.chebyshev_polynomial_u)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _k.chebyshev_polynomial_v)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _k.chebyshev_polynomial_w)
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", _k.shifted_chebyshev_polynomial_t)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", _k.shifted_chebyshev_polynomial_u)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", _k.shifted_chebyshev_polynomial_v)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", _k.shifted_chebyshev_polynomial_w)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _k.hermite_polynomial_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _k.hermite_polynomial_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _k.laguerre_polynomial_l)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _k.legendre_polynomial_p)


# ----- grad_fn._saved_* of these nodes, named as PyTorch names them -----

register_saved({
    "I0Backward0": {"self": _SELF},
    "SpecialI0EBackward0": {"self": _SELF, "result": _RESULT},
    "SpecialI1Backward0": {"self": _SELF, "result": _RESULT},
    "SpecialI1EBackward0": {"self": _SELF, "result": _RESULT},
    "SpecialErfcxBackward0": {"self": _SELF, "result": _RESULT},
    "SpecialNdtriBackward0": {"result": _RESULT},
    "SpecialLogNdtrBackward0": {"self": _SELF, "result": _RESULT},
    "SpecialEntrBackward0": {"self": _SELF},
    "MvlgammaBackward0": {"p": _saved_attr("p"), "self": _SELF},
    "SpecialXlog1PyBackward0": {"self": _SELF, "other": _saved_slot(1)},
    "SpecialXlog1PyBackward1": {"self": _saved_attr("self"), "other": _SELF},
    "SpecialXlog1PyBackward2": {"self": _SELF, "other": _saved_attr("other")},
    "SpecialZetaBackward0": {"self": _SELF, "other": _saved_slot(1)},
    "SpecialZetaBackward1": {"self": _saved_attr("self"), "other": _SELF},
    "IgammaBackward0": {"self": _SELF, "other": _saved_slot(1)},
    "IgammacBackward0": {"self": _SELF, "other": _saved_slot(1)},
})

from ._out import take_out  # noqa: E402

take_out(globals(), "special.")
