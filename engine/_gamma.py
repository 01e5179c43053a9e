"""PyTorch's CPU gamma-family kernels (ATen's Distributions.h/.cpp), ported to Python scalars:
``_standard_gamma`` (Marsaglia-Tsang, with the boost below alpha 1), its reparameterisation
gradient ``_standard_gamma_grad`` (standard_gamma_grad_one), ``_sample_dirichlet`` and
``_dirichlet_grad`` (dirichlet_grad_one), and ``binomial`` (BTRS and inversion).

PyTorch runs these element by element (a serial kernel, the generator locked), drawing standard
uniforms and Box-Muller normals in double as its ``uniform_real_distribution<double>`` and
``normal_distribution<double>`` do, from the same generator; so the loops here draw the same
numbers in the same order. The arithmetic follows the C++ types: double for ``accscalar_t``, the
tensor's type for ``scalar_t`` (float32 steps are rounded to float32), and float literals
(``0.0331f``) keep their float value. The libm calls are Python's ``math`` (the same glibc).

Loaded at first use (``torch._standard_gamma`` and the others are lazy attributes of the engine).
"""
import math

import numpy as np

from . import _grad_mode, _ops
from ._ops import _RESULT, _SELF, defop, need_tensor, register_saved
from ._out import resize_warning
from ._random import generator_or_default
from ._tensor import Tensor, record

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_f32 = np.float32


def _lit(v):
    """A C float literal (``0.9f``) as the double it widens to."""
    return float(np.float32(v))


_THIRD = _lit(1.0 / 3.0)  # 1.0f / 3.0f


# ----- libm with C's results where Python's math raises -----

def _log(x):
    x = float(x)
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _log1p(x):
    x = float(x)
    return math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan)


def _sqrt(x):
    x = float(x)
    return math.sqrt(x) if x >= 0 else math.nan


def _pow(x, y):
    x, y = float(x), float(y)
    try:
        return math.pow(x, y)
    except OverflowError:
        return math.copysign(math.inf, x) if x < 0 and y == int(y) and int(y) % 2 else math.inf
    except ValueError:  # 0 ** negative is a pole (inf); a negative base to a fractional power is nan
        if x == 0:
            return math.copysign(math.inf, x) if y == int(y) and int(y) % 2 else math.inf
        return math.nan


def _floor(x):
    return math.floor(x) if math.isfinite(x) else x


def _ceil(x):
    return math.ceil(x) if math.isfinite(x) else x


def _exp(x):
    x = float(x)
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _libm_float():
    """The C library's float functions (``logf``, ``powf``, ``tanf``, ``log1pf``), which PyTorch's float
    kernels call and which are not always correctly rounded; None where ctypes cannot reach them
    (then the double function rounded to float stands in: the same value but in rare cases)."""
    try:
        import ctypes

        lib = ctypes.CDLL(None)
        fns = {}
        for name, n in (("logf", 1), ("powf", 2), ("tanf", 1), ("log1pf", 1)):
            f = getattr(lib, name)
            f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float] * n
            fns[name] = f
        if fns["logf"](2.0) != np.float32(math.log(2.0)):  # (a C library that cannot be called this way)
            return None
        return fns
    except Exception:  # noqa: BLE001 - any failure to reach them leaves the stand-ins
        return None


class _Scalar:
    """``scalar_t``'s type and its libm overloads (``logf``, ``powf``, ...) for float32 or float64."""

    def __init__(self, dt):
        self.t = t = np.float32 if dt == _F32 else np.float64
        self.log = lambda x: t(_log(x))
        self.pow = lambda x, y: t(_pow(x, y))
        self.tan = lambda x: t(math.tan(float(x)) if math.isfinite(x) else math.nan)
        self.log1p = lambda x: t(_log1p(x))
        self.floor = lambda x: t(math.floor(x)) if math.isfinite(x) else t(x)
        self.sqrt = lambda x: t(_sqrt(x))
        self.pi = t(math.pi)
        if t is np.float32 and _LIBM_FLOAT is not None:
            logf, powf, tanf, log1pf = (_LIBM_FLOAT[n] for n in ("logf", "powf", "tanf", "log1pf"))
            self.log = lambda x: t(logf(float(x)))
            self.pow = lambda x, y: t(powf(float(x), float(y)))
            self.tan = lambda x: t(tanf(float(x)))
            self.log1p = lambda x: t(log1pf(float(x)))


_LIBM_FLOAT = _libm_float()


# ----- the samplers -----

class _Draws:
    """The generator's standard uniforms (``uniform_real_distribution<double>``) and normals
    (``normal_distribution<double>``: Box-Muller, the pair's second value cached on the generator)
    for a rejection loop, which draws one number at a time: the 64-bit words come from mt19937 a
    block at a time, and ``close`` rewinds the stream to just past the ones used, so the generator
    ends where drawing one by one leaves it."""

    def __init__(self, g, expect):
        from . import _random

        if _random._draw_guard is not None:
            _random._draw_guard()
        self.g, self.bits = g, g._bits
        self.start = self.bits.state
        self.block, self.used, self.drawn = max(16, expect), 0, 0
        self.buffer, self.pos = [], 0

    def uniform(self):
        if self.pos == len(self.buffer):
            self._refill()
        self.pos += 1
        return self.buffer[self.pos - 1]

    def _refill(self):
        self.used += len(self.buffer)
        raw = self.bits.random_raw(2 * self.block)
        words = raw[0::2] << np.uint64(32) | raw[1::2]
        self.buffer = ((words & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53).tolist()
        self.drawn += self.block
        self.block *= 2
        self.pos = 0

    def normal(self):
        return self.g._normal_scalar(0.0, 1.0, self._pair)

    def _pair(self):
        return self.uniform(), self.uniform()

    def close(self):
        if self.drawn:
            self.bits.state = self.start
            self.bits.random_raw(2 * (self.used + self.pos))


def _sample_gamma(alpha, uniform, normal, s):
    """sample_gamma<scalar_t, double>: ``alpha`` is a ``scalar_t`` (``s.t``); returns a double
    (before the cast to ``scalar_t``)."""
    scale = 1.0
    if alpha < 1.0:  # boost alpha for a higher acceptance rate
        if alpha == 0.0:
            return 0.0
        scale *= _pow(1 - uniform(), s.t(1.0) / alpha)
        alpha = alpha + s.t(1.0)
    d = float(alpha - s.t(_THIRD))
    root = _sqrt(9.0 * d)
    c = 1.0 / root if root else math.copysign(math.inf, root)
    while True:
        while True:
            x = normal()
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1 - uniform()
        xx = x * x
        if u < 1.0 - _lit(0.0331) * xx * xx:
            return scale * d * v
        if _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def _float_kernel(x, kernel):
    if x._data.dtype not in (_F32, _F64):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_ops._scalar_type(x)}\'')


def _no_forward_ad(name, *tensors):
    if _grad_mode._fw_active and any(isinstance(t, Tensor) and t._fw_grad is not None for t in tensors):
        from .autograd.forward_ad import not_implemented_yet

        raise not_implemented_yet(name)


def _not_implemented_yet(what):
    def rule(g, ans, *args, **attrs):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return rule


STANDARD_GAMMA_GRAD = defop("StandardGammaGradBackward0", _not_implemented_yet("_standard_gamma_grad"))
STANDARD_GAMMA = defop("StandardGammaBackward0", lambda g, ans, x: g * _standard_gamma_grad(x, ans),
                       saves=(0, "result"))
register_saved({"StandardGammaBackward0": {"self": _SELF, "result": _RESULT},
                "StandardGammaGradBackward0": {}})
_SAMPLE_DIRICHLET = defop("NotImplemented", _ops._not_implemented("_sample_dirichlet"),
                          cpp_name="torch::autograd::NotImplemented")
_DIRICHLET_GRAD = defop("NotImplemented", *[_ops._not_implemented("_dirichlet_grad")] * 3,
                        cpp_name="torch::autograd::NotImplemented")
_BINOMIAL = defop("NotImplemented", *[_ops._not_implemented("binomial")] * 2,
                  cpp_name="torch::autograd::NotImplemented")


def _standard_gamma(input, generator=None):
    """A Gamma(alpha, 1) sample for each element (``torch._standard_gamma``), PyTorch's draws after
    the same seed; its gradient is the implicit reparameterisation one (``StandardGammaBackward0``)."""
    need_tensor("_standard_gamma", "input", 1, input)
    _float_kernel(input, "gamma_cpu")
    _no_forward_ad("_standard_gamma", input)
    d = input._data
    g = generator_or_default(generator)
    s = _Scalar(d.dtype)
    draws = _Draws(g, 4 * d.size)
    tiny = s.t(np.finfo(d.dtype).tiny)
    out = np.empty(d.shape, d.dtype)  # filled in the result's (contiguous) order
    flat = out.reshape(-1)
    try:
        with np.errstate(all="ignore"):
            for i, a in enumerate(d.ravel()):
                v = s.t(_sample_gamma(s.t(a), draws.uniform, draws.normal, s))
                flat[i] = v if tiny < v else tiny  # std::max(min, sample): a NaN becomes min
    finally:
        draws.close()
    return record(STANDARD_GAMMA, (input,), out)


# ----- standard_gamma_grad_one: d(sample)/d(alpha) at fixed CDF -----

_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)
_PSI_10 = 2.25175258906672110764


def _digamma_one(x, s):
    """digamma_one<scalar_t, double>: ``x`` a ``scalar_t``; the sum in double."""
    if x == 0:
        return s.t(math.inf)
    additional = 0.0
    if x < 0:
        if x == s.floor(x):
            return s.t(math.inf)
        additional = float(-s.pi / s.tan(s.pi * x))
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= float(1 / x)
        x += 1
    if x == 10:
        return s.t(result + _PSI_10 + additional)
    y = 0.0
    if x < _lit(1.0e17):
        z = 1.0 / float(x * x)
        acc = 0.0
        for c in _DIGAMMA_A:
            acc = acc * z + c
        y = z * acc
    return s.t(result + float(s.log(x)) - float(s.t(0.5) / x) - y + additional)


_GRAD_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
             -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
             -1.5247877e-07))
_D64 = _Scalar(_F64)


def _gamma_grad_one(alpha, x):
    """standard_gamma_grad_one in double (both scalar_t inputs widened): -(dCDF/dalpha) / pdf."""
    x, alpha = np.float64(x), np.float64(alpha)
    if x < _lit(0.8):  # Taylor series for small x
        numer, denom = np.float64(1), alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = _pow(x, alpha)
        gamma_pdf = _pow(x, alpha - 1) * np.float64(_exp(-x))
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (_log(x) - _digamma_one(alpha, _D64)) * gamma_cdf - pow_x_alpha * series2
        result = -gamma_cdf_alpha / gamma_pdf
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:  # Rice saddle point expansion for large alpha
        if _lit(0.9) * alpha <= x <= _lit(1.1) * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                       + alpha * (107 + 3600 * x))
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = np.float64(_sqrt(8 * alpha))
        term2 = denom / (alpha - x)
        term3 = _pow(x - alpha - alpha * _log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = _log(x / alpha) * term23 - _sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        numer = x * term1
        return -stirling * numer / denom
    # a bivariate rational approximation
    u, v = np.float64(_log(x / alpha)), np.float64(_log(alpha))
    c = [_GRAD_UV[0][i] + u * (_GRAD_UV[1][i] + u * _GRAD_UV[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return _exp(p / q)


def _check_same_dtype(first, *others):
    for o in others:
        if o._data.dtype != first._data.dtype:
            raise RuntimeError(f"Found dtype {_ops._scalar_type(o)} but expected {_ops._scalar_type(first)}")


def _iterate(out_shape, first, *arrays):
    """The operands broadcast, each element by element in the result's order (TensorIterator's,
    for a freshly made result): as Python scalars."""
    shape = out_shape
    return zip(*(np.broadcast_to(a, shape).ravel().tolist() for a in (first, *arrays)))


def _broadcast_shape(*tensors):
    shape = ()
    for t in tensors:
        shape = _ops._broadcast_checked(shape, t._data.shape)
    return shape


def _resize_warning(given, shape):
    if tuple(given) != tuple(shape):
        resize_warning(given, shape, stacklevel=4)


def _standard_gamma_grad(self, output):
    """``torch._standard_gamma_grad(alpha, sample)``: the derivative of a Gamma(alpha) sample in alpha
    with its CDF held fixed, elementwise (PyTorch's standard_gamma_grad_one)."""
    need_tensor("_standard_gamma_grad", "self", 1, self)
    need_tensor("_standard_gamma_grad", "output", 2, output)
    _float_kernel(self, "_standard_gamma_grad_cpu")
    _check_same_dtype(self, output)
    shape = _broadcast_shape(self, output)
    _resize_warning(self._data.shape, shape)
    _no_forward_ad("_standard_gamma_grad", self, output)
    dt = self._data.dtype
    with np.errstate(all="ignore"):
        values = [_gamma_grad_one(a, x) for a, x in _iterate(shape, self._data, output._data)]
    # (only ``self`` is differentiable: PyTorch's derivatives.yaml leaves ``output`` out)
    return record(STANDARD_GAMMA_GRAD, (self,), np.array(values, np.float64).astype(dt).reshape(shape))


# ----- Dirichlet -----

def _sample_dirichlet(input, generator=None):
    """A Dirichlet sample for each row of concentrations: gammas drawn in double, normalised by
    their sum, then clamped into (tiny, 1) in the input's type, as PyTorch's _s_dirichlet_cpu."""
    need_tensor("_sample_dirichlet", "input", 1, input)
    _float_kernel(input, "dirichlet")
    d = input._data
    draws = _Draws(generator_or_default(generator), 4 * d.size)
    tiny64 = np.finfo(np.float64).tiny
    gamma = np.empty(d.shape, np.float64)
    flat = gamma.reshape(-1)
    try:
        with np.errstate(all="ignore"):
            for i, a in enumerate(d.astype(np.float64).ravel().tolist()):
                v = _sample_gamma(np.float64(a), draws.uniform, draws.normal, _D64)
                flat[i] = v if tiny64 < v else tiny64
    finally:
        draws.close()
    with np.errstate(all="ignore"):
        total = _inner_sum(gamma)[..., None] if gamma.ndim else gamma
        ratio = (gamma / total).astype(d.dtype)
    top = np.nextafter(d.dtype.type(1), d.dtype.type(0))
    out = np.minimum(top, np.maximum(np.finfo(d.dtype).tiny, ratio))
    out[np.isnan(ratio)] = np.finfo(d.dtype).tiny  # std::max(min, NaN) is min
    return record(_SAMPLE_DIRICHLET, (input,), out)


def _cascade(chunks):
    """multi_row_sum: the sum over axis 0 in ATen's cascade (chunks of 16 or more, summed in
    levels), on whole arrays of lanes at a time."""
    size = chunks.shape[0]
    power = max(4, (size - 1).bit_length() // 4 if size > 1 else 0)
    step, mask = 1 << power, (1 << power) - 1
    acc = [np.zeros(chunks.shape[1:]) for _ in range(4)]
    i = 0
    while i + step <= size:
        for _ in range(step):
            acc[0] = acc[0] + chunks[i]
            i += 1
        for j in range(1, 4):
            acc[j] = acc[j] + acc[j - 1]
            acc[j - 1] = np.zeros_like(acc[j - 1])
            if i & (mask << (j * power)):
                break
    for i in range(i, size):
        acc[0] = acc[0] + chunks[i]
    for j in range(1, 4):
        acc[0] = acc[0] + acc[j]
    return acc[0]


def _inner_sum(a):
    """``a.sum(-1)`` of float64 rows as PyTorch's AVX2 kernel adds them (vectorized_inner_sum): lanes of
    4, four lane-vectors at a time, the leftover elements first, then the lanes in order. NumPy's
    pairwise sum rounds differently from five elements on."""
    k = a.shape[-1]
    lead = a.shape[:-1]
    n_vec = k // 4
    vecs = np.moveaxis(a[..., :4 * n_vec].reshape(lead + (n_vec, 4)), -2, 0)  # (vector, ..., lane)
    n_ilp = n_vec // 4
    grouped = vecs[:4 * n_ilp].reshape((n_ilp, 4) + lead + (4,))
    partial = _cascade(grouped) if n_ilp else np.zeros((4,) + lead + (4,))
    first = partial[0]
    for i in range(4 * n_ilp, n_vec):
        first = first + vecs[i]
    for j in range(1, 4):
        first = first + partial[j]
    final = np.zeros(lead)
    for i in range(4 * n_vec, k):
        final = final + a[..., i]
    for lane in range(4):
        final = final + first[..., lane]
    return final


def _beta_grad_alpha_small(x, alpha, beta, s):
    factor = _digamma_one(alpha, s) - _digamma_one(alpha + beta, s) - s.log(x)
    numer = s.t(1)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        ci = s.t(i)
        numer *= (ci - beta) * x / ci
        denom = alpha + ci
        series += numer / denom * (factor + 1 / denom)
    result = x * s.pow(1 - x, -beta) * series
    return s.t(0) if np.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta, s):
    factor = _digamma_one(alpha + beta, s) - _digamma_one(beta, s)
    numer, betas, dbetas, series = s.t(1), s.t(1), s.t(0), factor / alpha
    for i in range(1, 9):
        ci = s.t(i)
        numer *= -x / ci
        dbetas = dbetas * (beta - ci) + betas
        betas = betas * (beta - ci)
        series += numer / (alpha + ci) * (dbetas + factor * betas)
    result = -s.pow(1 - x, 1 - beta) * series
    return s.t(0) if np.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    """In double throughout: a Rice saddle point expansion for large alpha and beta."""
    total = alpha + beta
    mean = alpha / total
    std = _sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # away from the singularity at the mean
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / _sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = _sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * _log(alpha / (total * x))
    term3_num = _sqrt(8 * alpha * beta / total)
    term3_den = beta * x + alpha * (x - 1)
    term3 = term3_num / term3_den
    term4_base = beta * _log(beta / (total * (1 - x))) + alpha * _log(alpha / (total * x))
    term4 = _pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]]).tolist()


def _dirichlet_grad_one(x, alpha, total, s):
    """dirichlet_grad_one<scalar_t, double>: -(dCDF/dalpha) / pdf / (1 - x) of a Beta(alpha, total - alpha)
    sample ``x``; the small-x and near-1 series run in ``scalar_t``, the rest in double."""
    x_, alpha_, total_ = np.float64(x), np.float64(alpha), np.float64(total)
    beta = total - alpha
    beta_ = total_ - alpha_
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta, s)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha, s)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x_, alpha_, beta_)
    c = _DIRICHLET_C
    u = np.float64(_log(x_))
    a = _log(alpha_) - u
    b = _log(total_) - a
    pow_u, pow_a = (1.0, u, u * u), (1.0, a, a * a)
    p = q = np.float64(0.0)
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = c[0][i][j], c[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x_ * np.float64(_digamma_one(s.t(total_), s) - _digamma_one(s.t(alpha_), s)) / beta_
    return p / q * approx


def _dirichlet_grad(x, alpha, total):
    """``torch._dirichlet_grad(x, alpha, total)``: the reparameterisation gradient of Dirichlet (and
    Beta) samples, elementwise, as PyTorch's dirichlet_grad_one."""
    for name, t, pos in (("x", x, 1), ("alpha", alpha, 2), ("total", total, 3)):
        need_tensor("_dirichlet_grad", name, pos, t)
    _float_kernel(x, "_dirichlet_grad_cpu")
    _check_same_dtype(x, alpha, total)
    shape = _broadcast_shape(x, alpha, total)
    _resize_warning(x._data.shape, shape)
    s = _Scalar(x._data.dtype)
    with np.errstate(all="ignore"):
        values = [s.t(_dirichlet_grad_one(s.t(a), s.t(b), s.t(c), s))
                  for a, b, c in _iterate(shape, x._data, alpha._data, total._data)]
    return record(_DIRICHLET_GRAD, (x, alpha, total), np.array(values, x._data.dtype).reshape(shape))


# ----- binomial: BTRS (Hormann 1993) from count * prob 10, inversion below -----

_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
         0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k < 10:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count, prob, uniform, s):
    geom_sum, num_geom = 0.0, s.t(0)
    logprob = float(s.log1p(-prob))
    while True:
        geom = _ceil(_log(uniform()) / logprob) if logprob else math.inf
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom = num_geom + 1


def _btrs(count, prob, uniform, s):
    stddev = float(s.sqrt(count * prob * (1 - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(s.floor((count + 1) * prob))
    cnt = float(count)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        if us == 0:  # (2a / us + b) * u is -inf: k < 0, rejected
            continue
        k = s.t(_floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        kd = float(k)
        v = _log(v * alpha / (a / (us * us) + b))
        upperbound = ((m + 0.5) * _log((m + 1) / (r * (cnt - m + 1)))
                      + float(count + 1) * _log((cnt - m + 1) / float(count - k + 1))
                      + (kd + 0.5) * _log(r * float(count - k + 1) / float(k + 1))
                      + _stirling_tail(m) + _stirling_tail(cnt - m)
                      - _stirling_tail(kd) - _stirling_tail(float(count - k)))
        if v <= upperbound:
            return k


def _sample_binomial(count, prob, uniform, s):
    if count <= 0.0 or prob <= 0.0:
        return s.t(0)
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if count * prob >= 10.0:
            return _btrs(count, prob, uniform, s)
        return _binomial_inversion(count, prob, uniform, s)
    if prob > 0.5:
        qprob = s.t(1.0 - float(prob))
        if count * qprob >= 10.0:
            return count - _btrs(count, qprob, uniform, s)
        return count - _binomial_inversion(count, qprob, uniform, s)
    return s.t(math.nan)


def binomial(count, prob, generator=None):
    """``torch.binomial(count, prob)``: a Binomial(count, prob) draw for each element, PyTorch's after
    the same seed (its BTRS rejection sampler from count * prob 10, inversion below)."""
    need_tensor("binomial", "count", 1, count)
    need_tensor("binomial", "prob", 2, prob)
    if count._data.dtype.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {_ops._scalar_type(count)}")
    if prob._data.dtype.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for prob, got: {_ops._scalar_type(prob)}")
    _check_same_dtype(count, prob)
    _float_kernel(count, "binomial_cpu")
    shape = _broadcast_shape(count, prob)
    _resize_warning(count._data.shape, shape)
    s = _Scalar(count._data.dtype)
    draws = _Draws(generator_or_default(generator), 2 * math.prod(shape))
    try:
        with np.errstate(all="ignore"):
            values = [_sample_binomial(s.t(n), s.t(p), draws.uniform, s)
                      for n, p in _iterate(shape, count._data, prob._data)]
    finally:
        draws.close()
    return record(_BINOMIAL, (count, prob), np.array(values, count._data.dtype).reshape(shape))
