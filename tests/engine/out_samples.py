"""One call of each function that takes ``out=`` (as ``lambda torch: (args, kwargs)``), for the out=
tests: the same arguments on PyTorch and on the engine."""


def _x(t):
    return t.tensor([[0.25, 0.5, -0.75], [0.125, -0.5, 0.625]])


def _y(t):
    return t.tensor([[0.5, -0.25, 0.75], [1.5, 0.5, -0.125]])


def _u(t):  # in (0, 1): every unary function defined
    return t.tensor([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]])


def _i(t):
    return t.tensor([[3, 6, -4], [5, 12, 7]])


def _v(t):
    return t.tensor([0.5, -1.0, 2.0])


def _m(t):  # symmetric positive definite
    return t.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])


UNARY = ("abs absolute acos arccos arcsin arcsinh arctan arctanh asin asinh atan atanh ceil cos cosh deg2rad "
         "digamma erf erfc erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit neg negative "
         "nan_to_num rad2deg reciprocal round rsqrt sgn sigmoid sign signbit sin sinc sinh sqrt square tan tanh "
         "trunc isneginf isposinf logical_not nonzero argsort msort all any amax amin argmax argmin max min median "
         "nanmedian mean nanmean nansum sum norm diff histc hardshrink").split()
SPECIAL_UNARY = ("airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 digamma entr erf erfc erfcx erfinv exp2 expit "
                 "expm1 gammaln i0 i0e i1 i1e log_ndtr logit modified_bessel_i0 modified_bessel_i1 modified_bessel_k0 "
                 "modified_bessel_k1 ndtr ndtri scaled_modified_bessel_k0 scaled_modified_bessel_k1 sinc "
                 "spherical_bessel_j0").split()
BINARY = ("add sub mul div divide multiply subtract true_divide floor_divide fmod remainder atan2 arctan2 copysign "
          "hypot logaddexp logaddexp2 maximum minimum fmax fmin eq ne lt le gt ge greater greater_equal less "
          "less_equal not_equal logical_and logical_or logical_xor xlogy float_power").split()
SPECIAL_BINARY = "xlog1py xlogy zeta gammainc gammaincc".split()
POLYNOMIALS = ("chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w "
               "hermite_polynomial_h hermite_polynomial_he laguerre_polynomial_l legendre_polynomial_p "
               "shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v "
               "shifted_chebyshev_polynomial_w").split()
JOINS = "cat concat concatenate stack hstack vstack dstack column_stack row_stack".split()
ALONG_DIM = "cumsum cumprod logcumsumexp softmax log_softmax prod std var logsumexp".split()
TUPLES_ALONG_DIM = "cummax cummin sort aminmax mode".split()

SAMPLES = {}
SAMPLES.update({n: (lambda n: lambda t: ((_u(t),), {}))(n) for n in UNARY})
SAMPLES.update({n: (lambda n: lambda t: ((_x(t), _y(t)), {}))(n) for n in BINARY})
SAMPLES.update({n: (lambda n: lambda t: (([_x(t), _y(t)],), {}))(n) for n in JOINS})
SAMPLES.update({n: (lambda n: lambda t: ((_x(t), 1), {}))(n) for n in ALONG_DIM + TUPLES_ALONG_DIM})
SAMPLES["aminmax"] = lambda t: ((_x(t),), {"dim": 1})
SAMPLES.update({f"special.{n}": (lambda n: lambda t: ((_u(t),), {}))(n) for n in SPECIAL_UNARY})
SAMPLES.update({f"special.{n}": (lambda n: lambda t: ((_u(t), _y(t).abs() + 1), {}))(n) for n in SPECIAL_BINARY})
SAMPLES.update({f"special.{n}": (lambda n: lambda t: ((_x(t), 3), {}))(n) for n in POLYNOMIALS})
SAMPLES.update({
    "acosh": lambda t: ((_u(t) + 1,), {}),
    "arccosh": lambda t: ((_u(t) + 1,), {}),
    "bitwise_not": lambda t: ((_i(t),), {}),
    "bitwise_and": lambda t: ((_i(t), t.tensor([1, 2, 3])), {}),
    "bitwise_or": lambda t: ((_i(t), 6), {}),
    "bitwise_xor": lambda t: ((_i(t), _i(t) // 2), {}),
    "bitwise_left_shift": lambda t: ((_i(t), 2), {}),
    "bitwise_right_shift": lambda t: ((_i(t).abs(), t.tensor([1, 2, 0])), {}),
    "gcd": lambda t: ((_i(t), t.tensor([4, 8, 6])), {}),
    "lcm": lambda t: ((_i(t), t.tensor([4, 8, 6])), {}),
    "heaviside": lambda t: ((_x(t), t.tensor([0.5])), {}),
    "pow": lambda t: ((_u(t), 2), {}),
    "add(alpha)": lambda t: ((_x(t), _y(t)), {"alpha": 2}),
    "div(rounding_mode)": lambda t: ((_x(t), 0.3), {"rounding_mode": "floor"}),
    "lerp": lambda t: ((_x(t), _y(t), 0.25), {}),
    "where": lambda t: ((_x(t) > 0, _x(t), _y(t)), {}),
    "clamp": lambda t: ((_x(t), -0.3, 0.4), {}),
    "clip": lambda t: ((_x(t),), {"min": -0.3}),
    "clamp_min": lambda t: ((_x(t), 0.1), {}),
    "clamp_max": lambda t: ((_x(t), _y(t)), {}),
    "threshold": lambda t: ((_x(t), 0.2, -1.0), {}),
    "max(dim)": lambda t: ((_x(t), 1), {}),
    "min(dim)": lambda t: ((_x(t), 0, True), {}),
    "max(other)": lambda t: ((_x(t), _y(t)), {}),
    "median(dim)": lambda t: ((_x(t), 1), {}),
    "nanmedian(dim)": lambda t: ((_x(t), 0), {}),
    "sum(dim)": lambda t: ((_x(t), 0), {"keepdim": True}),
    "mean(dim)": lambda t: ((_x(t), (0, 1)), {}),
    "kthvalue": lambda t: ((_x(t), 2, 1), {}),
    "topk": lambda t: ((_x(t), 2), {}),
    "argmax(dim)": lambda t: ((_x(t), 1), {}),
    "all(dim)": lambda t: ((_x(t) > 0, 1), {}),
    "norm(p)": lambda t: ((_x(t), 1), {"dim": 1}),
    "diag": lambda t: ((_x(t),), {}),
    "tril": lambda t: ((_x(t),), {}),
    "triu": lambda t: ((_x(t), 1), {}),
    "renorm": lambda t: ((_x(t), 2, 0, 0.5), {}),
    "take": lambda t: ((_x(t), t.tensor([0, 5, 2])), {}),
    "take_along_dim": lambda t: ((_x(t), t.tensor([[0], [2]]), 1), {}),
    "gather": lambda t: ((_x(t), 1, t.tensor([[0, 0], [2, 1]])), {}),
    "index_select": lambda t: ((_x(t), 1, t.tensor([2, 0])), {}),
    "masked_select": lambda t: ((_x(t), _x(t) > 0), {}),
    "isin": lambda t: ((_i(t), t.tensor([3, 7])), {}),
    "bucketize": lambda t: ((_x(t), t.tensor([-0.5, 0.0, 0.5])), {}),
    "searchsorted": lambda t: ((t.tensor([-0.5, 0.0, 0.5]), _x(t)), {}),
    "scatter": lambda t: ((_x(t), 1, t.tensor([[2], [0]]), _y(t)), {}),
    "dot": lambda t: ((_v(t), _v(t) * 2), {}),
    "vdot": lambda t: ((_v(t), _v(t) + 1), {}),
    "inner": lambda t: ((_x(t), _y(t)), {}),
    "outer": lambda t: ((_v(t), t.tensor([1.0, 2.0])), {}),
    "ger": lambda t: ((_v(t), t.tensor([1.0, 2.0])), {}),
    "kron": lambda t: ((_x(t), t.tensor([[1.0, -1.0]])), {}),
    "cross": lambda t: ((_x(t), _y(t)), {"dim": 1}),
    "mm": lambda t: ((_x(t), _y(t).T), {}),
    "mv": lambda t: ((_x(t), _v(t)), {}),
    "matmul": lambda t: ((_x(t), _y(t).T), {}),
    "bmm": lambda t: ((_x(t)[None], _y(t).T[None]), {}),
    "addmm": lambda t: ((t.ones(2, 2), _x(t), _y(t).T), {"beta": 0.5}),
    "addmv": lambda t: ((t.ones(2), _x(t), _v(t)), {}),
    "addr": lambda t: ((t.ones(3, 2), _v(t), t.tensor([1.0, 2.0])), {}),
    "addbmm": lambda t: ((t.ones(2, 2), _x(t)[None], _y(t).T[None]), {}),
    "baddbmm": lambda t: ((t.ones(1, 2, 2), _x(t)[None], _y(t).T[None]), {"alpha": 2}),
    "addcdiv": lambda t: ((_x(t), _y(t), _u(t)), {"value": 0.5}),
    "addcmul": lambda t: ((_x(t), _y(t), _u(t)), {}),
    "tensordot": lambda t: ((_x(t), _y(t)), {"dims": ([1], [1])}),
    "cholesky": lambda t: ((_m(t),), {}),
    "cholesky_inverse": lambda t: ((_m(t).tril(),), {}),
    "cholesky_solve": lambda t: ((_y(t).T, _m(t).tril()), {}),
    "geqrf": lambda t: ((_m(t),), {}),
    "zeros": lambda t: ((2, 3), {}),
    "ones": lambda t: (((2, 3),), {}),
    "full": lambda t: (((2,), 1.5), {}),
    "eye": lambda t: ((2, 3), {}),
    "arange": lambda t: ((1, 4), {}),
    "linspace": lambda t: ((0, 1, 5), {}),
    "logspace": lambda t: ((0, 1, 3), {}),
    "empty": lambda t: ((0,), {}),
    "zeros(dtype)": lambda t: ((2,), {"dtype": t.float64}),
    "linalg.cholesky": lambda t: ((_m(t),), {}),
    "linalg.cross": lambda t: ((_x(t), _y(t)), {}),
    "linalg.det": lambda t: ((_m(t),), {}),
    "linalg.eigvalsh": lambda t: ((_m(t),), {}),
    "linalg.householder_product": lambda t: ((_m(t), t.tensor([1.5, 1.25])), {}),
    "linalg.inv": lambda t: ((_m(t),), {}),
    "linalg.matrix_norm": lambda t: ((_m(t),), {}),
    "linalg.matrix_power": lambda t: ((_m(t), 2), {}),
    "linalg.norm": lambda t: ((_x(t),), {}),
    "linalg.pinv": lambda t: ((_x(t),), {}),
    "linalg.solve": lambda t: ((_m(t), _v(t)), {}),
    "linalg.solve_triangular": lambda t: ((_m(t).triu(), _y(t).T), {"upper": True}),
    "linalg.svdvals": lambda t: ((_x(t),), {}),
    "linalg.vector_norm": lambda t: ((_x(t), 3), {}),
    "linalg.cholesky_ex": lambda t: ((_m(t),), {}),
    "linalg.eigh": lambda t: ((_m(t),), {}),
    "linalg.inv_ex": lambda t: ((_m(t),), {}),
    "linalg.qr": lambda t: ((_m(t),), {}),
    "linalg.slogdet": lambda t: ((_m(t),), {}),
    "linalg.solve_ex": lambda t: ((_m(t), _v(t)), {}),
    "linalg.svd": lambda t: ((_m(t),), {}),
    "svd": lambda t: ((t.tensor([[2.0, 0.0], [0.0, -0.5], [0.0, 0.0]]),), {}),
    "qr": lambda t: ((_x(t).T,), {}),
    "lu_unpack": lambda t: (tuple(t.linalg.lu_factor(_m(t) - 2)), {}),
    "lu_solve": lambda t: ((_y(t).T,) + tuple(t.linalg.lu_factor(_m(t) - 2)), {}),
    "linalg.lu_factor": lambda t: ((_m(t) - 2,), {}),
    "linalg.lu_factor_ex": lambda t: ((_m(t) - 2,), {}),
    "linalg.lu": lambda t: ((_x(t),), {}),
    "linalg.lu_solve": lambda t: (tuple(t.linalg.lu_factor(_m(t) - 2)) + (_y(t).T,), {}),
    "linalg.lstsq": lambda t: ((_x(t).T, _y(t).T), {"driver": "gelsd"}),
    "linalg.matrix_rank": lambda t: ((_m(t),), {}),
    "linalg.cond": lambda t: ((_m(t),), {}),
    "linalg.multi_dot": lambda t: (([_x(t), _m(t), _y(t).T],), {}),
    "linalg.vecdot": lambda t: ((_x(t), _y(t)), {}),
    "linalg.tensorinv": lambda t: ((_m(t).reshape(3, 3, 1),), {"ind": 1}),
    "linalg.tensorsolve": lambda t: ((_m(t), _v(t)), {}),
    "special.polygamma": lambda t: ((1, _u(t)), {}),
    "special.multigammaln": lambda t: ((_u(t) + 2, 2), {}),
    "special.logit": lambda t: ((_u(t),), {"eps": 0.2}),
    "polygamma": lambda t: ((2, _u(t)), {}),
    "special.zeta": lambda t: ((_u(t) + 1.5, _u(t)), {}),
    "slice_scatter": lambda t: ((_x(t), _y(t)[:, 1:]), {"dim": 1, "start": 1}),
    "view_copy": lambda t: ((_x(t), (3, 2)), {}),
    "t_copy": lambda t: ((_x(t),), {}),
    "transpose_copy": lambda t: ((_x(t), 0, 1), {}),
    "squeeze_copy": lambda t: ((_x(t)[:1],), {}),
    "unsqueeze_copy": lambda t: ((_x(t), 1), {}),
    "select_copy": lambda t: ((_x(t), 1, 2), {}),
    "slice_copy": lambda t: ((_x(t), 1, 0, 2), {}),
    "diagonal_copy": lambda t: ((_x(t),), {}),
    "detach_copy": lambda t: ((_x(t),), {}),
    "alias_copy": lambda t: ((_x(t),), {}),
    "unbind_copy": lambda t: ((_x(t), 1), {}),
    "split_copy": lambda t: ((_x(t), 2, 1), {}),
    "split_with_sizes_copy": lambda t: ((_x(t), [1, 2], 1), {}),
    "scatter_add": lambda t: ((_x(t), 1, t.tensor([[2, 0], [1, 1]]), _y(t)), {}),
    "scatter_reduce": lambda t: ((_x(t), 1, t.tensor([[2, 0], [1, 1]]), _y(t), "amax"), {"include_self": False}),
    "index_add": lambda t: ((_x(t), 1, t.tensor([2, 0]), _y(t)[:, :2]), {"alpha": 2}),
    "index_copy": lambda t: ((_x(t), 1, t.tensor([2, 0]), _y(t)[:, :2]), {}),
    "index_reduce": lambda t: ((_x(t), 1, t.tensor([2, 2]), _y(t)[:, :2], "prod"), {}),
    "permute_copy": lambda t: ((_x(t), (1, 0)), {}),
    "expand_copy": lambda t: ((_v(t), (2, 3)), {}),
    "narrow_copy": lambda t: ((_x(t), 1, 1, 2), {}),
    "unfold_copy": lambda t: ((_v(t), 0, 2, 1), {}),
    "quantile": lambda t: ((_x(t), 0.25), {"dim": 1}),
    "nanquantile": lambda t: ((_x(t), t.tensor([0.5, 0.75])), {}),
    "ldexp": lambda t: ((_x(t), _y(t)), {}),
    "nextafter": lambda t: ((_x(t), _y(t)), {}),
    "frexp": lambda t: ((_x(t),), {}),
    "histogram": lambda t: ((_x(t), 4), {}),
})
# The drawn ones, after the same seed on each side.
RANDOM = {
    "rand": lambda t: ((2, 3), {}),
    "randn": lambda t: ((4,), {}),
    "randint": lambda t: ((0, 5, (3,)), {}),
    "randperm": lambda t: ((5,), {}),
    "bernoulli": lambda t: ((_u(t),), {}),
    "multinomial": lambda t: ((_u(t), 2), {}),
}


def function(t, name):
    """The function a sample's name (``"linalg.solve"``, ``"max(dim)"``) calls."""
    obj = t
    for part in name.split("(")[0].split("."):
        obj = getattr(obj, part)
    return obj
