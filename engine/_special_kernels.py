"""NumPy kernels of torch.special's functions, ported from PyTorch's aten/src/ATen/native/Math.h
(itself from Cephes, SciPy and Faddeeva) so that the values are PyTorch's to rounding, edge cases
included. Each takes a float32 or float64 array and computes in that dtype where PyTorch computes
in the input's type (its ``T``), so float32 rounds (and overflows) where PyTorch's does, with the
fused multiply-adds of PyTorch's x86 build (see _fma): float32 values mostly match bit for bit,
float64 ones to an ulp or a few. A branch runs on the elements it applies to; a loop that stops per
element keeps a mask of those still running, or runs its steps at once where ``accumulate`` keeps
their order. Called with NumPy's floating-point warnings off (see _ops._quietly)."""
import functools
import math

import numpy as np

from . import _special_tables as tab
from ._fma import fma, rounded as _rounded

_PI_F32 = 3.1415927410125732  # float(c10::pi<float>), which the asymptotic igamma series uses
_INT64_MIN = np.iinfo(np.int64).min


_exp, _log, _log1p, _expm1 = _rounded(np.exp), _rounded(np.log), _rounded(np.log1p), _rounded(np.expm1)
_sin, _cos, _acos = _rounded(np.sin), _rounded(np.cos), _rounded(np.arccos)


def _flat(n_arrays=1):
    """A kernel on its first ``n_arrays`` arguments broadcast and flattened (the loops index a 1-d
    array; a 0-d one would make NumPy scalars of every step), its result shaped back."""
    def wrap(kernel):
        def run(*args):
            arrays = np.broadcast_arrays(*(np.asarray(a) for a in args[:n_arrays]))
            shape = arrays[0].shape
            out = kernel(*(a.reshape(-1) for a in arrays), *args[n_arrays:])
            return out.reshape(shape)
        run.__name__ = run.__qualname__ = kernel.__name__
        run.__doc__ = kernel.__doc__
        return run
    return wrap


def _eps(dt):
    return float(np.finfo(dt).eps)


def _fma(a, b, c, exact=False):
    """``a * b + c`` as PyTorch's x86 kernels compute it: GCC contracts it into a fused multiply-add
    there. In float32 rounded once, through float64 where the product is exact; in float64 rounded
    once only where that decides more than the last bit (``exact``: the polynomials' recurrences,
    whose overflows, nans and signed zeros follow it), as engine._fma costs some twenty NumPy
    operations; elsewhere float64 rounds twice, an ulp or so from PyTorch's values."""
    dt = next(v.dtype for v in (a, b, c) if isinstance(v, (np.ndarray, np.generic)))
    if dt == np.float32:
        a, b, c = (v if isinstance(v, np.ndarray) else np.asarray(v, dtype=dt) for v in (a, b, c))
        return (np.multiply(a, b, dtype=np.float64) + c).astype(np.float32)
    plain = a * b + c
    if not exact:
        return plain
    a, b, c = (v if isinstance(v, np.ndarray) else np.asarray(v, dtype=dt) for v in (a, b, c))
    out = fma(a, b, c, dt)
    # (where it overflows the emulation gives nan, and it loses the sign of a zero sum: the plain sum's)
    return np.where(np.isnan(out) & ~np.isnan(plain) | (out == 0) & (plain == 0), plain, out)


def _polevl(z, coefs):
    """Horner's rule from the highest order, started from 0 as Cephes' loops are (0 * inf is nan)."""
    r = np.zeros_like(z)
    if not r.size:
        return r
    if r.dtype == np.float32:
        for c in coefs:
            r = _fma(r, z, c)
    else:
        for c in coefs:
            r = r * z + c
    return r


def _clenshaw(x, coefs):
    """b0 - b2 of Clenshaw's recurrence; Cephes' chbevl is half that."""
    b0, b1, b2 = np.full_like(x, coefs[0]), np.zeros_like(x), np.zeros_like(x)
    if not x.size:
        return b0
    single = x.dtype == np.float32
    for c in coefs[1:]:
        b2 = b1
        b1 = b0
        b0 = (_fma(x, b1, -b2) if single else x * b1 - b2) + c
    return b0 - b2


def _chbevl(x, coefs):
    """The sum of Chebyshev polynomials in x / 2 (Cephes' chbevl)."""
    return 0.5 * _clenshaw(x, coefs)


def _fill(x, value):
    return np.full(x.shape, value, dtype=x.dtype)


def _float64(x):
    return np.asarray(x, dtype=np.float64)


# ----- Modified Bessel functions of the first kind (i0, i0e, i1, i1e; modified_bessel_i0/i1) -----

@_flat()
def i0(x):
    a = np.abs(x)
    out = np.empty_like(x)
    low = a <= 8.0
    al = a[low]
    out[low] = _exp(al) * _chbevl(al / 2.0 - 2.0, tab.I0E_A)
    ah = a[~low]
    out[~low] = _exp(ah) * _chbevl(32.0 / ah - 2.0, tab.I0E_B) / np.sqrt(ah)
    return out


@_flat()
def i0e(x):
    a = np.abs(x)
    out = np.empty_like(x)
    low = a <= 8.0
    out[low] = _chbevl(a[low] / 2.0 - 2.0, tab.I0E_A)
    ah = a[~low]
    out[~low] = _chbevl(32.0 / ah - 2.0, tab.I0E_B) / np.sqrt(ah)
    return out


def _i1e_tables(dt):
    # float32 sums fewer terms, as PyTorch's float specialisations do
    return (tab.I1E_A[-17:], tab.I1E_B[-7:]) if dt == np.float32 else (tab.I1E_A, tab.I1E_B)


@_flat()
def i1(x):
    ta, tb = _i1e_tables(x.dtype)
    a = np.abs(x)
    out = np.empty_like(x)
    low = a <= 8.0
    al = a[low]
    out[low] = _exp(al) * al * _chbevl(al / 2.0 - 2.0, ta)
    ah = a[~low]
    out[~low] = _exp(ah) * _chbevl(32.0 / ah - 2.0, tb) / np.sqrt(ah)
    return np.where(x < 0.0, -out, out)


@_flat()
def i1e(x):
    ta, tb = _i1e_tables(x.dtype)
    a = np.abs(x)
    out = np.empty_like(x)
    low = a <= 8.0
    al = a[low]
    out[low] = _chbevl(al / 2.0 - 2.0, ta) * al
    ah = a[~low]
    out[~low] = _chbevl(32.0 / ah - 2.0, tb) / np.sqrt(ah)
    return np.where(x < 0.0, -out, out)


modified_bessel_i0 = i0  # (PyTorch's two kernels compute the same expressions)


@_flat()
def modified_bessel_i1(x):
    a = np.abs(x)
    out = np.empty_like(x)
    low = a <= 8.0
    al = a[low]
    out[low] = _chbevl(al / 2.0 - 2.0, tab.I1E_A) * al * _exp(al)
    ah = a[~low]
    out[~low] = _exp(ah) * _chbevl(32.0 / ah - 2.0, tab.I1E_B) / np.sqrt(ah)
    return np.where(x < 0.0, -out, out)


# ----- Modified Bessel functions of the second kind -----

def _bessel_k(x, small, large):
    """K0 or K1 (and their scaled forms): inf at 0, nan below; ``small(x)`` on (0, 2], ``large(x)`` above."""
    out = np.where(x == 0.0, np.inf, np.nan).astype(x.dtype)
    low = (x > 0.0) & (x <= 2.0)
    out[low] = small(x[low])
    high = (x > 2.0) | np.isnan(x)
    out[high] = large(x[high])
    return out


def _k0_small(x):
    return _fma(0.5, _clenshaw(_fma(x, x, -2.0), tab.K0_A), -(_log(0.5 * x) * modified_bessel_i0(x)))


def _k1_small(x):
    return _fma(_log(0.5 * x), modified_bessel_i1(x), _chbevl(_fma(x, x, -2.0), tab.K1_A) / x)


@_flat()
def modified_bessel_k0(x):
    return _bessel_k(x, _k0_small, lambda x: _exp(-x) * _chbevl(8.0 / x - 2.0, tab.K0_B) / np.sqrt(x))


@_flat()
def modified_bessel_k1(x):
    return _bessel_k(x, _k1_small, lambda x: _exp(-x) * _chbevl(8.0 / x - 2.0, tab.K1_B) / np.sqrt(x))


@_flat()
def scaled_modified_bessel_k0(x):
    return _bessel_k(x, lambda x: _k0_small(x) * _exp(x), lambda x: _chbevl(8.0 / x - 2.0, tab.K0_B) / np.sqrt(x))


@_flat()
def scaled_modified_bessel_k1(x):
    return _bessel_k(x, lambda x: _k1_small(x) * _exp(x), lambda x: _chbevl(8.0 / x - 2.0, tab.K1_B) / np.sqrt(x))


# ----- Bessel functions of the first and second kind -----

_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
_TWO_OVER_PI = 0.636619772367581343075535053490057448


def _bessel_asymptotic(x, z, phase, first):
    """J (``first``) or Y of order 0 or 1 for x > 5, from its modulus and phase in ``z`` = 25 / x^2."""
    p = _polevl(z, tab.J1_PP if phase else tab.J0_PP) / _polevl(z, tab.J1_PQ if phase else tab.J0_PQ)
    q = _polevl(z, tab.J1_QP if phase else tab.J0_QP) / _polevl(z, tab.J1_QQ if phase else tab.J0_QQ)
    w = x - (2.356194490192344928846982537459627163 if phase else 0.785398163397448309615660845819875721)
    if first:
        s = _fma(p, _cos(w), -(5.0 / x * q * _sin(w)))
    else:
        s = _fma(p, _sin(w), 5.0 / x * q * _cos(w))
    return s * _SQRT_2_OVER_PI / np.sqrt(x)


@_flat()
def bessel_j0(x):
    x = np.abs(x)
    out = np.empty_like(x)
    tiny = x < 0.00001
    out[tiny] = 1.0 - x[tiny] * x[tiny] / 4.0
    low = (x <= 5.0) & ~tiny
    xl = x[low]
    xx = xl * xl
    out[low] = ((xx - 5.78318596294678452118e+00) * (xx - 3.04712623436620863991e+01)
                * _polevl(xx, tab.J0_RP) / _polevl(xx, tab.J0_RQ))
    high = ~(x <= 5.0)
    xh = x[high]
    out[high] = _bessel_asymptotic(xh, 25.0 / (xh * xh), False, True)
    return out


@_flat()
def bessel_j1(x):
    neg = x < 0.0
    x = np.where(neg, -x, x)  # (-0.0 stays -0.0, as in PyTorch)
    out = np.empty_like(x)
    low = x <= 5.0
    xl = x[low]
    xx = xl * xl
    out[low] = (_polevl(xx, tab.J1_RP) / _polevl(xx, tab.J1_RQ) * xl * (xx - 1.46819706421238932572e+01)
                * (xx - 4.92184563216946036703e+01))
    xh = x[~low]
    out[~low] = _bessel_asymptotic(xh, 5.0 / xh * (5.0 / xh), True, True)
    return np.where(neg, -out, out)


@_flat()
def bessel_y0(x):
    out = np.where(x == 0.0, -np.inf, np.nan).astype(x.dtype)
    low = (x > 0.0) & (x <= 5.0)
    xl = x[low]
    xx = xl * xl
    out[low] = _fma(_TWO_OVER_PI * _log(xl), bessel_j0(xl), _polevl(xx, tab.Y0_YP) / _polevl(xx, tab.Y0_YQ))
    high = ~(x <= 5.0)
    xh = x[high]
    out[high] = _bessel_asymptotic(xh, 25.0 / (xh * xh), False, False)
    return out


@_flat()
def bessel_y1(x):
    out = np.where(x == 0.0, -np.inf, np.nan).astype(x.dtype)
    low = (x > 0.0) & (x <= 5.0)
    xl = x[low]
    xx = xl * xl
    out[low] = _fma(xl, _polevl(xx, tab.Y1_YP) / _polevl(xx, tab.Y1_YQ),
                    _TWO_OVER_PI * _fma(bessel_j1(xl), _log(xl), -(1.0 / xl)))
    high = ~(x <= 5.0)
    xh = x[high]
    out[high] = _bessel_asymptotic(xh, 5.0 / xh * (5.0 / xh), True, False)
    return out


@_flat()
def spherical_bessel_j0(x):
    out = np.zeros_like(x)  # (at +-inf)
    small = np.abs(x) < 0.5
    xs = x[small]
    xx = xs * xs
    one = x.dtype.type(1.0)
    out[small] = _polevl(xx, [one / x.dtype.type(d) for d in (6227020800.0, -39916800.0, 362880.0, -5040.0, 120.0,
                                                              -6.0, 1.0)])
    rest = ~small & ~np.isinf(x)
    xr = x[rest]
    out[rest] = _sin(xr) / xr
    return out


# ----- Airy function Ai -----

@_flat()
def airy_ai(x):
    out = np.where(np.isinf(x), np.nan, 0.0).astype(x.dtype)  # (0 above 103.892)
    neg = (x < -2.09) & ~np.isinf(x)
    xn = x[neg]
    r = -2.0 * xn * np.sqrt(-xn) / 3.0
    z = 1.0 / r
    zz = z * z
    afn, afd = _polevl(zz, tab.AIRY_AFN), _polevl(zz, tab.AIRY_AFD)
    agn, agd = _polevl(zz, tab.AIRY_AGN), _polevl(zz, tab.AIRY_AGD)
    t = r + 0.25 * math.pi
    out[neg] = (0.564189583547756286948 / np.sqrt(np.sqrt(-xn))
                * _fma(_sin(t), 1.0 + zz * afn / afd, -(_cos(t) * (z * agn / agd))))
    pos = (x >= 2.09) & (x <= 103.892)
    xp = x[pos]
    zeta = 2.0 * xp * np.sqrt(xp) / 3.0
    an, ad = _polevl(1.0 / zeta, tab.AIRY_AN), _polevl(1.0 / zeta, tab.AIRY_AD)
    out[pos] = 0.564189583547756286948 * (an / ad) / (2.0 * np.sqrt(np.sqrt(xp)) * _exp(zeta))
    series = ~np.isinf(x) & ~neg & ~(x >= 2.09)  # (nan included: the loop runs once and stays nan)
    out[series] = _airy_series(x[series])
    return out


def _airy_series(x):
    if not x.size:
        return np.empty_like(x)
    eps = _eps(x.dtype)
    one = np.ones_like(x)
    f, g, k, m, n, z = one, x.copy(), one.copy(), one.copy(), x.copy(), x * x * x
    run = np.ones(x.shape, dtype=bool)
    while run.any():
        i = np.nonzero(run)[0]
        mi, ni, ki, zi = m[i], n[i], k[i], z[i]
        mi = mi * zi
        ki = ki + 1.0
        mi = mi / ki
        ni = ni * zi
        ki = ki + 1.0
        ni = ni / ki
        mi = mi / ki
        f[i] = f[i] + mi
        ki = ki + 1.0
        ni = ni / ki
        g[i] = g[i] + ni
        m[i], n[i], k[i] = mi, ni, ki
        run[i] = np.abs(mi / f[i]) > eps
    return _fma(0.355028053887817239260, f, -(0.258819403792806798405 * g))


# ----- The normal distribution: ndtri, erfcx, log_ndtr; entr -----

@_flat()
def ndtri(y0):
    out = np.where(y0 == 0.0, -np.inf, np.where(y0 == 1.0, np.inf, np.nan)).astype(y0.dtype)
    inside = (y0 > 0.0) & (y0 < 1.0)
    y = y0[inside]
    upper = y > 1.0 - 0.13533528323661269189
    y = np.where(upper, 1.0 - y, y)
    res = np.empty_like(y)
    mid = y > 0.13533528323661269189
    ym = y[mid] - 0.5
    y2 = ym * ym
    res[mid] = _fma(ym, y2 * _polevl(y2, tab.NDTRI_P0) / _polevl(y2, tab.NDTRI_Q0), ym) * 2.50662827463100050242
    yt = y[~mid]
    x = np.sqrt(-2.0 * _log(yt))
    x0 = x - _log(x) / x
    z = 1.0 / x
    x1 = np.where(x < 8.0, z * _polevl(z, tab.NDTRI_P1) / _polevl(z, tab.NDTRI_Q1),
                  z * _polevl(z, tab.NDTRI_P2) / _polevl(z, tab.NDTRI_Q2))
    res[~mid] = np.where(upper[~mid], x0 - x1, x1 - x0)
    out[inside] = res
    return out


_ERFCX_TABLE = None


def _erfcx_y100(y100):
    """erfcx on 100 pieces of y = 4 / (4 + x), in float64 as PyTorch's table of double constants is."""
    global _ERFCX_TABLE
    if _ERFCX_TABLE is None:
        _ERFCX_TABLE = np.array(tab.ERFCX_Y100)
    k = np.minimum(y100.astype(np.int64), 100)
    out = np.ones(y100.shape)  # (y = 1, x = 0)
    piece = k < 100
    kp = k[piece]
    t = _float64(_fma(2.0, y100[piece], -(2.0 * kp + 1.0).astype(y100.dtype)))
    c = _ERFCX_TABLE[kp]
    r = c[:, 6]
    for j in range(5, -1, -1):
        r = _fma(r, t, c[:, j])
    out[piece] = r
    return out


@_flat()
def erfcx(x):
    dt = x.dtype
    out = x.copy()  # (nan stays nan)
    big = x > 50.0
    xb = _float64(x[big])
    xx = _float64(x[big] * x[big])  # (x * x in the input's dtype, the rest in float64, as in PyTorch)
    ispi = 0.56418958354775628694807945156
    out[big] = np.where(xb > 5e7, ispi / xb, ispi * _fma(xx, xx + 4.5, 2.0) / (xb * _fma(xx, xx + 5.0, 3.75)))
    pos = (x >= 0.0) & ~big
    out[pos] = _erfcx_y100(400.0 / (4.0 + x[pos]))
    far = x < -26.7
    out[far] = np.inf
    neg = (x < 0.0) & ~far
    xn = x[neg]
    twice = 2.0 * _exp(xn * xn)
    out[neg] = np.where(xn < -6.1, twice, _fma(2.0, _exp(xn * xn), -_erfcx_y100(400.0 / (4.0 - xn)).astype(dt)))
    return out


@_flat()
def log_ndtr(x, erfc):
    """log of the standard normal CDF; ``erfc`` is the engine's erfc kernel."""
    t = x * 0.707106781186547524400844362104849039
    out = np.empty_like(x)
    low = x < -1.0
    tl = t[low]
    out[low] = _fma(-tl, tl, _log(erfcx(-tl) / 2.0))
    th = t[~low]
    out[~low] = _log1p(-erfc(th) / 2.0)
    return out


@_flat()
def entr(x):
    return np.where(x > 0.0, -x * _log(np.where(x > 0.0, x, 1.0)),
                    np.where(x == 0.0, 0.0, np.where(np.isnan(x), x, -np.inf))).astype(x.dtype)


@_flat(2)
def xlog1py(x, y):
    return np.where(np.isnan(y), np.nan, np.where(x == 0.0, 0.0, x * _log1p(y))).astype(np.result_type(x, y))


# ----- lgamma (vectorised) -----

# Cephes' lgam; on [0.8, 1.2] and [1.8, 2.2], where lgamma has its zeros, the Taylor series of
# lgamma(1 + z) (zeta values), which keeps the relative precision Cephes' rational fit lacks there.
_LGAM_A = (8.11614167470508450300E-4, -5.95061904284301438324E-4, 7.93650340457716943945E-4,
           -2.77777777730099687205E-3, 8.33333333333331927722E-2)
_LGAM_B = (-1.37825152569120859100E3, -3.88016315134637840924E4, -3.31612992738871184744E5,
           -1.16237097492762307383E6, -1.72173700820839662146E6, -8.53555664245765465627E5)
_LGAM_C = (1.0, -3.51815701436523470549E2, -1.70642106651881159223E4, -2.20528590553854454839E5,
           -1.13933444367982507207E6, -2.53252307177582951285E6, -2.01889141433532773231E6)
_EULER = 0.57721566490153286061
_LGAM_SERIES = None  # (-1)^k zeta(k) / k for k = 2..40, worked out at first use


def _lgam_series_coefs():
    global _LGAM_SERIES
    if _LGAM_SERIES is None:
        ks = np.arange(2.0, 41.0)
        _LGAM_SERIES = tuple(((-1.0) ** ks * zeta(ks, np.ones_like(ks)) / ks)[::-1])
    return _LGAM_SERIES


@functools.lru_cache(maxsize=None)
def lgamma_of(v):
    """lgamma of one float, remembered (polygamma's n!, at each call)."""
    return float(lgamma(np.float64(v)))


@_flat()
def lgamma(x):
    """lgamma in float64 (the igamma helpers and mvlgamma need it vectorised)."""
    x = _float64(x)
    out = np.full(x.shape, np.inf)
    out[np.isnan(x)] = np.nan
    finite = np.isfinite(x) & ~((x <= 0.0) & (x == np.floor(x)))
    refl = finite & (x < -34.0)
    q = -x[refl]
    p = np.floor(q)
    z = q - p
    z = np.where(z > 0.5, p + 1.0 - q, z)
    out[refl] = 1.14472988584940017414 - _log(q * _sin(math.pi * z)) - _lgamma_stirling(q)
    big = finite & (x >= 13.0)
    out[big] = _lgamma_stirling(x[big])
    mid = finite & ~refl & ~big
    out[mid] = _lgamma_mid(x[mid])
    return out


def _lgamma_stirling(x):
    """x >= 13."""
    if not x.size:
        return np.empty_like(x)
    q = (x - 0.5) * _log(x) - x + 0.91893853320467274178
    p = 1.0 / (x * x)
    corr = np.where(x >= 1000.0, ((7.9365079365079365079365e-4 * p - 2.7777777777777777777778e-3) * p
                                  + 0.0833333333333333333333) / x, _polevl(p, _LGAM_A) / x)
    return np.where(x > 1.0e8, q, q + corr)


def _lgamma_mid(x):
    """-34 <= x < 13, not a pole: the series near 1 and 2, else shifted into [2, 3] (Cephes)."""
    if not x.size:
        return np.empty_like(x)
    out = np.empty_like(x)
    near1 = np.abs(x - 1.0) <= 0.2
    near2 = np.abs(x - 2.0) <= 0.2
    near = near1 | near2
    z = np.where(near1, x - 1.0, x - 2.0)[near]
    s = _polevl(z, _lgam_series_coefs()) * z * z - _EULER * z
    out[near] = np.where(near2[near], _log1p(z) + s, s)
    xr = x[~near]
    # Cephes' loops, all steps at once: down from x >= 3 multiplying by x - 1, x - 2, ... while above 3,
    # or up from x < 2 dividing by x, x + 1, ... while below 2 (in order: accumulate, padded with 1)
    steps = int(max(np.max(xr, initial=0.0) - 2.0, 2.0 - np.min(xr, initial=2.0), 0.0)) + 2
    k = np.arange(1.0, steps + 1.0)
    col = xr[:, None]
    down = col - (k - 1.0) >= 3.0
    up = col + (k - 1.0) < 2.0
    zd = np.multiply.accumulate(np.where(down, col - k, 1.0), axis=1)[:, -1]
    zu = np.divide.accumulate(np.concatenate([np.ones((xr.size, 1)), np.where(up, col + (k - 1.0), 1.0)], axis=1),
                              axis=1)[:, -1]
    z = np.abs(zd * zu)  # (one of the two is 1)
    p = up.sum(axis=1) - down.sum(axis=1)
    u = xr + p
    w = xr + (p - 2.0)
    out[~near] = np.where(u == 2.0, _log(z), _log(z) + w * _polevl(w, _LGAM_B) / _polevl(w, _LGAM_C))
    return out


# ----- Hurwitz zeta (Cephes, as PyTorch: in float64 for float32 too) -----

_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042E-16
_ZETA_MAX_TERMS = 10 ** 8  # (a q far below 0 sums one term per unit up to 9: PyTorch takes as long)


@_flat(2)
def zeta(x, q):
    x, q = np.broadcast_arrays(_float64(x), _float64(q))
    out = np.where(x == 1.0, np.inf, np.nan)
    pole = (q <= 0.0) & (q == np.floor(q))
    ok = ~(x <= 1.0) & ~pole & ~((q <= 0.0) & (x != np.floor(x)))
    out[~(x <= 1.0) & pole] = np.inf  # (x nan too)
    xs, qs = x[ok], q[ok]
    s, a, b, tail = _zeta_direct_sum(xs, qs)
    s = np.where(tail, s + b * a / (xs - 1.0), s)
    s = np.where(tail, _fma(-0.5, b, s), s)
    w = a
    fac = np.ones_like(qs)
    k = 0.0
    for c in _ZETA_A:
        fac = np.where(tail, fac * (xs + k), fac)
        b = np.where(tail, b / w, b)
        t = fac * b / c
        s = np.where(tail, s + t, s)
        tail = tail & ~(np.abs(t / s) < _MACHEP)
        k += 1.0
        fac = np.where(tail, fac * (xs + k), fac)
        b = np.where(tail, b / w, b)
        k += 1.0
    out[ok] = s
    return out


def _zeta_direct_sum(x, q):
    """Cephes' first loop: s = q^-x + (q + 1)^-x + ..., a += 1 at each step, while fewer than 9 terms
    were added or a <= 9, stopping early where a term is below MACHEP s. Steps run a block at a time:
    ``cumsum`` accumulates as the loop does, in order. Returns s, a and b (the last term) and whether
    the Euler-Maclaurin tail is still to add."""
    if not x.size:
        return q ** -x, q.copy(), np.zeros_like(q), np.ones(q.shape, dtype=bool)
    s, a, b = q ** -x, q.copy(), np.zeros_like(q)
    tail = np.ones(q.shape, dtype=bool)
    run = np.arange(q.size)
    i, block = 0, 10  # (10 steps end the loop for any q >= 0)
    while run.size and i < _ZETA_MAX_TERMS:
        ones = np.ones((run.size, block))
        av = np.cumsum(np.concatenate([a[run, None], ones], axis=1), axis=1)[:, 1:]
        bv = av ** -x[run, None]
        sv = np.cumsum(np.concatenate([s[run, None], bv], axis=1), axis=1)[:, 1:]
        small = (-_MACHEP * sv < bv) & (bv < _MACHEP * sv)
        steps = i + 1 + np.arange(block)
        stop = small | ~((steps < 9) | (av <= 9.0))
        ends = stop.any(axis=1)
        last = np.where(ends, stop.argmax(axis=1), block - 1)
        rows = np.arange(run.size)
        a[run], b[run], s[run] = av[rows, last], bv[rows, last], sv[rows, last]
        tail[run] = ~(ends & small[rows, last])
        run = run[~ends]
        i += block
        block = min(block * 4, max(16, 2 ** 16 // max(run.size, 1)))
    return s, a, b, tail


# ----- Regularized incomplete gamma functions (SciPy's, in the input's dtype as PyTorch's) -----

_LANCZOS_G = 6.024680040776729583740234375
_IGAM_ITER = 2000


class _Limits:
    """MACHEP, MAXLOG, BIG and 1 / BIG of PyTorch's igamma helpers, by dtype."""

    def __init__(self, dt):
        single = dt == np.float32
        self.machep = 5.9604644775390625E-8 if single else 1.11022302462515654042E-16
        self.maxlog = 88.72283905206835 if single else 7.09782712893383996843E2
        self.big = 16777216.0 if single else 4.503599627370496e15
        self.biginv = 5.9604644775390625E-8 if single else 2.22044604925031308085e-16


def _lgamma_as(x):
    return lgamma(x).astype(x.dtype)


def _lanczos_sum_expg_scaled(x):
    big = np.abs(x) > 1.0
    y = np.where(big, 1.0 / x, x)
    num = np.where(big, _polevl(y, tab.LANCZOS_NUM[::-1]), _polevl(y, tab.LANCZOS_NUM))
    den = np.where(big, _polevl(y, tab.LANCZOS_DENOM[::-1]), _polevl(y, tab.LANCZOS_DENOM))
    return num / den


def _igam_fac(a, x, lim):
    """x^a e^-x / Gamma(a), the factor in front of the series and the continued fraction."""
    if not a.size:
        return np.empty_like(a)
    out = np.empty_like(a)
    far = np.abs(a - x) > 0.4 * np.abs(a)
    af, xf = a[far], x[far]
    ax = _fma(af, _log(xf), -xf) - _lgamma_as(af)
    out[far] = np.where(ax < -lim.maxlog, 0.0, _exp(ax))
    an, xn = a[~far], x[~far]
    fac = an + _LANCZOS_G - 0.5
    res = np.sqrt(fac / 2.718281828459045) / _lanczos_sum_expg_scaled(an)
    moderate = (an < 200.0) & (xn < 200.0)
    numfac = (xn - an - _LANCZOS_G + 0.5) / fac
    out[~far] = res * np.where(moderate, _exp(an - xn) * (xn / fac) ** an,
                               _exp(_fma(an, _log1p(numfac) - numfac, xn * (0.5 - _LANCZOS_G) / fac)))
    return out


def _igam_series(a, x, lim):
    if not a.size:
        return np.empty_like(a)
    ax = _igam_fac(a, x, lim)
    r = a.copy()
    c = np.ones_like(a)
    ans = np.ones_like(a)
    run = ax != 0.0
    for _ in range(_IGAM_ITER):
        if not run.any():
            break
        j = np.nonzero(run)[0]
        r[j] = r[j] + 1.0
        c[j] = c[j] * (x[j] / r[j])
        ans[j] = ans[j] + c[j]
        run[j] = ~(c[j] <= lim.machep * ans[j])
    return np.where(ax == 0.0, 0.0, ans * ax / a).astype(a.dtype)


def _igamc_series(a, x, lim):
    if not a.size:
        return np.empty_like(a)
    fac = np.ones_like(a)
    total = np.zeros_like(a)
    run = np.ones(a.shape, dtype=bool)
    for n in range(1, _IGAM_ITER):
        if not run.any():
            break
        j = np.nonzero(run)[0]
        fac[j] = fac[j] * (-x[j] / n)
        term = fac[j] / (a[j] + n)
        total[j] = total[j] + term
        run[j] = ~(np.abs(term) <= lim.machep * np.abs(total[j]))
    logx = _log(x)
    return _fma(-_exp(_fma(a, logx, -_lgamma_as(a))), total, -_expm1(_fma(a, logx, -_lgamma_as(1.0 + a))))


def _igam_asymptotic(a, x, igam, erfc, lim):
    if not a.size:
        return np.empty_like(a)
    lam = x / a
    sigma = (x - a) / a
    root = np.sqrt(-2.0 * (_log1p(sigma) - sigma))
    eta = np.where(lam > 1.0, root, np.where(lam < 1.0, -root, 0.0)).astype(a.dtype)
    sgn = -1.0 if igam else 1.0
    res = 0.5 * erfc(sgn * eta * np.sqrt(a / 2.0))
    powers = [np.ones_like(eta)]
    for _ in range(24):
        powers.append(eta * powers[-1])
    total = np.zeros_like(a)
    afac = np.ones_like(a)
    old = np.full_like(a, np.inf)
    run = np.ones(a.shape, dtype=bool)
    for d in tab.IGAM_D:
        ck = np.full_like(a, d[0])
        inner = np.ones(a.shape, dtype=bool)
        for n in range(1, 25):
            term = d[n] * powers[n]
            ck = np.where(inner, ck + term, ck)
            inner = inner & ~(np.abs(term) < lim.machep * np.abs(ck))
        term = ck * afac
        absterm = np.abs(term)
        run = run & ~(absterm > old)
        total = np.where(run, total + term, total)
        run = run & ~(absterm < lim.machep * np.abs(total))
        old = np.where(run, absterm, old)
        afac = np.where(run, afac / a, afac)
    return res + sgn * _exp(-0.5 * a * eta * eta) * total / np.sqrt(2.0 * _PI_F32 * a)


def _igamc_continued_fraction(a, x, lim):
    if not a.size:
        return np.empty_like(a)
    ax = _igam_fac(a, x, lim)
    y = 1.0 - a
    z = x + y + 1.0
    c = np.zeros_like(a)
    pkm2, qkm2, pkm1 = np.ones_like(a), x.copy(), x + 1.0
    qkm1 = z * x
    ans = pkm1 / qkm1
    run = ax != 0.0
    for _ in range(_IGAM_ITER):
        if not run.any():
            break
        c = np.where(run, c + 1.0, c)
        y = np.where(run, y + 1.0, y)
        z = np.where(run, z + 2.0, z)
        yc = y * c
        pk = _fma(pkm1, z, -(pkm2 * yc))
        qk = _fma(qkm1, z, -(qkm2 * yc))
        r = pk / np.where(qk != 0.0, qk, 1.0)
        t = np.where(qk != 0.0, np.abs((ans - r) / r), 1.0)
        ans = np.where(run & (qk != 0.0), r, ans)
        scale = np.where(np.abs(pk) > lim.big, lim.biginv, 1.0).astype(a.dtype)
        pkm2 = np.where(run, pkm1 * scale, pkm2)
        pkm1 = np.where(run, pk * scale, pkm1)
        qkm2 = np.where(run, qkm1 * scale, qkm2)
        qkm1 = np.where(run, qk * scale, qkm1)
        run = run & ~(t <= lim.machep)
    return np.where(ax == 0.0, 0.0, ans * ax).astype(a.dtype)


def _igam_regimes(a, x):
    """Where neither a nor x is at the edge of the domain, and where the asymptotic series applies."""
    edge = (x < 0.0) | (a < 0.0) | (a == 0.0) | (x == 0.0) | np.isinf(a) | np.isinf(x) | np.isnan(a) | np.isnan(x)
    ratio = np.abs(x - a) / a
    asym = ~edge & (((a > 20.0) & (a < 200.0) & (ratio < 0.3)) | ((a > 200.0) & (ratio < 4.5 / np.sqrt(a))))
    return edge, asym


def _igammac_core(a, x, erfc, lim):
    """igammac off the domain's edges and the asymptotic regime."""
    if not a.size:
        return np.empty_like(a)
    out = np.empty_like(a)
    above = x > 1.1
    cf = above & ~(x < a)
    out[cf] = _igamc_continued_fraction(a[cf], x[cf], lim)
    low = (x <= 0.5) & (-0.4 / _log(x) < a)
    sub = (above & (x < a)) | low | (~above & ~(x <= 0.5) & (x * 1.1 < a))
    out[sub] = 1.0 - _igam_series(a[sub], x[sub], lim)
    ser = ~cf & ~sub
    out[ser] = _igamc_series(a[ser], x[ser], lim)
    return out


def _igamma_edges(a, x, lower):
    """PyTorch's values on the domain's edges (SciPy's); nan elsewhere."""
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    out = np.where((x < 0.0) | (a < 0.0), np.nan,
                   np.where(a == 0.0, np.where(x > 0.0, one, np.nan),
                            np.where(x == 0.0, zero,
                                     np.where(np.isinf(a), np.where(np.isinf(x), np.nan, zero),
                                              np.where(np.isinf(x), one, np.nan)))))
    return out.astype(a.dtype)


def _igamma_inputs(a, x):
    dt = np.result_type(a, x)
    a, x = (np.array(v, dtype=dt) for v in np.broadcast_arrays(a, x))
    return a, x, _Limits(dt)


@_flat(2)
def igamma(a, x, erfc):
    """The regularized lower incomplete gamma function; ``erfc`` is the engine's erfc kernel."""
    a, x, lim = _igamma_inputs(a, x)
    edge, asym = _igam_regimes(a, x)
    out = _igamma_edges(a, x, True)
    out[asym] = _igam_asymptotic(a[asym], x[asym], True, erfc, lim)
    rest = ~edge & ~asym
    upper = rest & (x > 1.0) & (x > a)
    out[upper] = 1.0 - _igammac_core(a[upper], x[upper], erfc, lim)
    ser = rest & ~upper
    out[ser] = _igam_series(a[ser], x[ser], lim)
    return out


@_flat(2)
def igammac(a, x, erfc):
    """The regularized upper incomplete gamma function."""
    a, x, lim = _igamma_inputs(a, x)
    edge, asym = _igam_regimes(a, x)
    out = _igamma_edges(a, x, False)
    out[asym] = _igam_asymptotic(a[asym], x[asym], False, erfc, lim)
    rest = ~edge & ~asym
    out[rest] = _igammac_core(a[rest], x[rest], erfc, lim)
    return out


# ----- Orthogonal polynomials -----

def polynomial_degree(n):
    """PyTorch's static_cast<int64_t>(n) of a float n as x86 does it: out of range (inf, nan) is INT64_MIN."""
    n = np.asarray(n)
    if n.dtype.kind in "iub":
        return n.astype(np.int64)
    ok = np.isfinite(n) & (np.abs(n) < 9.2e18)
    return np.where(ok, np.trunc(np.where(ok, n, 0.0)), 0.0).astype(np.int64) + np.where(ok, 0, _INT64_MIN)


def _recurrence(x, last, q, step, stop_nan=True):
    """PyTorch's loop ``for (k = 1; k <= last && !isnan(q); k++) { r = step(x, p, q, k); p = q; q = r; }``
    from p = 1, each element to its own ``last``; returns the last r (q where the loop never ran)."""
    p = np.ones_like(x)
    q = np.array(q, dtype=x.dtype)
    run = (last >= 1) & (~np.isnan(q) if stop_nan else True)
    k = 1
    while run.any():
        j = np.nonzero(run)[0]
        r = step(x[j], p[j], q[j], k)
        p[j] = q[j]
        q[j] = r
        k += 1
        run[j] = (k <= last[j]) & (~np.isnan(r) if stop_nan else True)
    return q


class _Poly:
    """What PyTorch's kernels of one family share: x and n broadcast, 0 for n < 0, then each branch
    filling the elements still to do."""

    def __init__(self, x, n):
        x, n = np.broadcast_arrays(x, polynomial_degree(n))
        self.x, self.n = np.array(x), np.array(n)
        self.out = np.zeros(self.x.shape, dtype=self.x.dtype)
        self.done = self.n < 0

    def put(self, where, value):
        """``value``: a constant, an array over all elements, or a function of (x, n) on those selected."""
        at = where & ~self.done
        if callable(value):
            value = value(self.x[at], self.n[at])
        elif np.ndim(value):
            value = value[at]
        self.out[at] = value
        self.done |= at

    def recurrence(self, first, step, last=lambda n: n - 1, stop_nan=True):
        """n = 0 is 1, n = 1 is ``first(x)``, higher n the recurrence from there."""
        self.put(self.n == 0, 1.0)
        self.put(self.n == 1, lambda x, n: first(x))
        rest = ~self.done
        x, n = self.x[rest], self.n[rest]
        self.out[rest] = _recurrence(x, last(n), first(x), step, stop_nan)
        return self.out


def _as(n, x):
    return n.astype(x.dtype)


def _parity(n, x, even, odd):
    return np.where(n % 2 == 0, even, odd).astype(x.dtype)


def _t_closed(x, n):
    return _cos(_as(n, x) * _acos(x))


def _u_closed(x, n):
    acos = _acos(x)
    s = _sin(acos)
    n1 = _as(n + 1, x)
    return np.where(s != 0.0, _sin(n1 * acos) / np.where(s != 0.0, s, 1.0), n1 * _cos(n1 * acos) / x)


def _v_closed(x, n):
    acos = _acos(x)
    n2 = _as(n + n + 1, x)
    return np.where(_sin(acos / 2.0) != 1.0, _cos((_as(n, x) + 0.5) * acos) / _cos(acos / 2.0),
                    _parity(n, x, n2, -n2))


def _w_closed(x, n, shifted=False):
    acos = _acos(x)
    # (where cos(acos(x) / 2) rounds to 1 the unshifted kernel looks at x's sign, the shifted one not)
    edge = _parity(n, x, 1.0, -1.0) if shifted else np.where(x > 0.0, _as(n + n + 1, x), _parity(n, x, 1.0, -1.0))
    return np.where(_cos(acos / 2.0) != 1.0, _sin((_as(n, x) + 0.5) * acos) / _sin(acos / 2.0), edge)


def _chebyshev_step(x, p, q, k):
    return _fma(x + x, q, -p, True)


@_flat(2)
def chebyshev_polynomial_t(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    P.put(np.abs(x) == 1.0, _parity(n, x, 1.0, np.where(x > 0.0, 1.0, -1.0)))
    P.put((n > 6) & (np.abs(x) < 1.0), _t_closed)
    return P.recurrence(lambda x: x, _chebyshev_step)


@_flat(2)
def chebyshev_polynomial_u(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    n1 = _as(n + 1, x)
    P.put(np.abs(x) == 1.0, np.where((x > 0.0) | (n % 2 == 0), n1, -n1))
    P.put((n > 8) & (np.abs(x) < 1.0), _u_closed)
    return P.recurrence(lambda x: x + x, _chebyshev_step)


@_flat(2)
def chebyshev_polynomial_v(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    n2 = _as(n + n + 1, x)
    P.put(np.abs(x) == 1.0, np.where(x > 0.0, 1.0, _parity(n, x, n2, -n2)))
    P.put((n > 8) & (np.abs(x) < 1.0), _v_closed)
    return P.recurrence(lambda x: x + x - 1.0, _chebyshev_step)


@_flat(2)
def chebyshev_polynomial_w(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    P.put(np.abs(x) == 1.0, np.where(x > 0.0, _as(n + n + 1, x), _parity(n, x, 1.0, -1.0)))
    P.put((n > 8) & (np.abs(x) < 1.0), _w_closed)
    return P.recurrence(lambda x: x + x + 1.0, _chebyshev_step)


def _shifted(x):
    return x + x - 1.0


def _shifted_step(x, p, q, k):
    return _fma(_shifted(x) + _shifted(x), q, -p, True)


@_flat(2)
def shifted_chebyshev_polynomial_t(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    P.put(x == 1.0, 1.0)
    P.put(x == 0.0, _parity(n, x, 1.0, -1.0))
    P.put((n > 6) & (np.abs(_shifted(x)) < 1.0), lambda x, n: _t_closed(_shifted(x), n))
    return P.recurrence(_shifted, _shifted_step)


@_flat(2)
def shifted_chebyshev_polynomial_u(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    n1 = _as(n + 1, x)
    P.put(x == 1.0, n1)
    P.put(x == 0.0, _parity(n, x, n1, -n1))
    P.put((n > 6) & (np.abs(_shifted(x)) < 1.0), lambda x, n: _u_closed(_shifted(x), n))
    return P.recurrence(lambda x: _shifted(x) + _shifted(x), _shifted_step)


@_flat(2)
def shifted_chebyshev_polynomial_v(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    n2 = _as(n + n + 1, x)
    P.put(x == 1.0, 1.0)
    P.put(x == 0.0, _parity(n, x, n2, -n2))
    P.put((n > 6) & (np.abs(_shifted(x)) < 1.0), lambda x, n: _v_closed(_shifted(x), n))
    return P.recurrence(lambda x: _shifted(x) + _shifted(x) - 1.0, _shifted_step)


@_flat(2)
def shifted_chebyshev_polynomial_w(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    P.put(x == 1.0, _as(n + n + 1, x))
    P.put(x == 0.0, _parity(n, x, 1.0, -1.0))
    P.put((n > 4) & (np.abs(_shifted(x)) < 1.0), lambda x, n: _w_closed(_shifted(x), n, shifted=True))
    return P.recurrence(lambda x: _shifted(x) + _shifted(x) + 1.0, _shifted_step)


def _hermite_limit(x):
    return 128 if x.dtype == np.float32 else 512


@_flat(2)
def hermite_polynomial_h(x, n):
    P = _Poly(x, n)
    P.put(P.n == 0, 1.0)
    P.put(P.n == 1, lambda x, n: x + x)
    P.put(P.n > _hermite_limit(P.x), np.nan)
    # PyTorch's k runs 2, 4, .., 2n - 2: here k is half that, 1 .. n - 1; no nan check
    return P.recurrence(lambda x: x + x, lambda x, p, q, k: _fma(x + x, q, -((2 * k) * p), True),
                        stop_nan=False)


@_flat(2)
def hermite_polynomial_he(x, n):
    P = _Poly(x, n)
    P.put(P.n == 0, 1.0)
    P.put(P.n == 1, lambda x, n: x)
    P.put(P.n > _hermite_limit(P.x), np.nan)
    return P.recurrence(lambda x: x, lambda x, p, q, k: _fma(x, q, -(k * p), True), stop_nan=False)


@_flat(2)
def laguerre_polynomial_l(x, n):
    P = _Poly(x, n)
    P.put(np.abs(P.x) == 0.0, 1.0)
    return P.recurrence(lambda x: 1.0 - x, lambda x, p, q, k: _fma((k + k) + (1.0 - x), q, -(k * p), True) / (k + 1))


@_flat(2)
def legendre_polynomial_p(x, n):
    P = _Poly(x, n)
    x, n = P.x, P.n
    P.put(np.abs(x) == 1.0, np.where((x > 0.0) | (n % 2 == 0), 1.0, -1.0))
    return P.recurrence(lambda x: x, lambda x, p, q, k: _fma((k + k + 1) * x, q, -(k * p), True) / (k + 1))


# ----- digamma and trigamma (polygamma n = 0, 1), in the input's dtype as PyTorch's -----

_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


@_flat()
def digamma(x):
    out = np.where(x == 0.0, np.copysign(np.inf, -x), np.nan).astype(x.dtype)  # (nan at negative integers)
    neg = (x < 0.0) & (x != np.trunc(x))
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi r), r the fractional part, in float64 for float32 too
    r = np.fmod(_float64(x[neg]), 1.0)
    out[neg] = _digamma_positive(1.0 - x[neg]) - (math.pi / np.tan(math.pi * r)).astype(x.dtype)
    pos = (x > 0.0) | np.isnan(x)
    out[pos] = _digamma_positive(x[pos])
    return out


def _digamma_positive(x):
    if not x.size:
        return np.empty_like(x)
    # ``while (x < 10) { result -= 1 / x; x += 1; }``, all steps at once (accumulate keeps their order)
    xs = np.add.accumulate(np.concatenate([x[:, None], np.ones((x.size, 11), dtype=x.dtype)], axis=1), axis=1)
    low = xs < 10.0
    terms = np.where(low, 1.0 / np.where(low, xs, 1.0), 0.0).astype(x.dtype)
    result = np.subtract.accumulate(np.concatenate([np.zeros((x.size, 1), dtype=x.dtype), terms], axis=1),
                                    axis=1)[:, -1]
    x = xs[np.arange(x.size), low.sum(axis=1)]
    z = 1.0 / (x * x)
    y = np.where(x < 1.0e17, z * _polevl(z, _PSI_A), 0.0).astype(x.dtype)
    return np.where(x == 10.0, result + 2.25175258906672110764, result + _log(x) - (0.5 / x) - y).astype(x.dtype)


@_flat()
def trigamma(x):
    pi = math.pi if x.dtype == np.float64 else _PI_F32
    low = x < 0.5
    s = _sin(np.where(low, pi * x, 0.0).astype(x.dtype))
    result = np.where(low, -(pi * pi) / (s * s), 0.0).astype(x.dtype)
    x = np.where(low, 1.0 - x, x).astype(x.dtype)
    for _ in range(6):
        result = result + 1.0 / (x * x)
        x = x + 1.0
    ixx = 1.0 / (x * x)
    inner = _fma(-ixx, _fma(-ixx, 1.0 / 42.0, 1.0 / 30.0), 1.0 / 6.0)
    result = result + _fma(ixx, inner, 1.0 + 1.0 / (2.0 * x)) / x
    return np.where(low, -result, result)
