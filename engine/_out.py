"""``out=``: PyTorch's functions write their result into a given tensor (``torch.add(x, y, out=r)``,
the 60-minute blitz's), resized if need be, and return it. No graph is recorded, so a tensor that
requires grad is refused while grad mode is on; the out tensor's dtype must take the result, each
function with its own rule and message, as PyTorch's kernels check it."""
import functools
import warnings

import numpy as np

from . import _grad_mode
from ._dtypes import from_numpy_dtype
from ._ops import _broadcast_checked, invalid_arguments, not_implemented_out, return_type
from ._tensor import _CPP_TYPE_NAMES, Tensor
from ._transparent import transparent

# The functions PyTorch gives ``out=`` (read from PyTorch 2.13's signatures; tests/engine/test_out.py
# holds the list against it): one result, or a tuple of them.
ONE = """abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin any arange arccos arccosh
arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort asin asinh atan atan2 atanh baddbmm bernoulli bitwise_and
bitwise_left_shift bitwise_right_shift
bitwise_not bitwise_or bitwise_xor bmm bucketize cat ceil cholesky cholesky_inverse cholesky_solve clamp clamp_max
clamp_min clip column_stack concat concatenate copysign cos cosh cross cumprod cumsum deg2rad diag diff digamma div
divide dot dstack empty eq erf erfc erfinv exp exp2 expm1 eye fix float_power floor floor_divide fmax fmin fmod frac
full gather gcd ge ger greater greater_equal gt hardshrink heaviside histc hstack hypot index_select inner isin
isneginf isposinf kron lcm le lerp less less_equal lgamma linspace log log10 log1p log2 log_softmax logaddexp
logaddexp2 logcumsumexp logical_and logical_not logical_or logical_xor logit logspace logsumexp lt masked_select matmul
maximum mean minimum mm msort mul multinomial multiply mv nan_to_num nanmean nansum ne neg negative nonzero norm
normal not_equal ones outer polygamma pow prod rad2deg rand randint randn randperm reciprocal remainder renorm round
row_stack rsqrt scatter searchsorted sgn sigmoid sign signbit sin sinc sinh softmax sqrt square stack std sub
subtract sum take take_along_dim tan tanh tensordot threshold tril triu true_divide trunc var vdot vstack where xlogy
zeros
slice_scatter view_copy t_copy transpose_copy squeeze_copy unsqueeze_copy select_copy slice_copy diagonal_copy
detach_copy alias_copy quantile nanquantile ldexp nextafter
scatter_add scatter_reduce index_add index_copy index_reduce permute_copy expand_copy narrow_copy unfold_copy
linalg.cholesky linalg.cross linalg.det linalg.eigvalsh linalg.householder_product linalg.inv linalg.matrix_norm
linalg.matrix_power linalg.norm linalg.pinv linalg.solve linalg.solve_triangular linalg.svdvals linalg.vector_norm
lu_solve linalg.lu_solve linalg.matrix_rank linalg.cond linalg.multi_dot linalg.vecdot linalg.tensorinv
linalg.tensorsolve
special.airy_ai special.bessel_j0 special.bessel_j1 special.bessel_y0 special.bessel_y1 special.chebyshev_polynomial_t
special.chebyshev_polynomial_u special.chebyshev_polynomial_v special.chebyshev_polynomial_w special.digamma
special.entr special.erf special.erfc special.erfcx special.erfinv special.exp2 special.expit special.expm1
special.gammainc special.gammaincc special.gammaln special.hermite_polynomial_h special.hermite_polynomial_he
special.i0 special.i0e special.i1 special.i1e special.laguerre_polynomial_l special.legendre_polynomial_p
special.log_ndtr special.logit special.modified_bessel_i0 special.modified_bessel_i1 special.modified_bessel_k0
special.modified_bessel_k1 special.multigammaln special.ndtr special.ndtri special.polygamma
special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1 special.shifted_chebyshev_polynomial_t
special.shifted_chebyshev_polynomial_u special.shifted_chebyshev_polynomial_v special.shifted_chebyshev_polynomial_w
special.sinc special.spherical_bessel_j0 special.xlog1py special.xlogy special.zeta""".split()
SEVERAL = """aminmax cummax cummin geqrf kthvalue max median min mode nanmedian sort topk linalg.cholesky_ex linalg.eigh
linalg.inv_ex linalg.qr linalg.slogdet linalg.solve_ex linalg.svd svd qr lu_unpack linalg.lu_factor linalg.lu_factor_ex
linalg.lu linalg.lstsq
frexp histogram unbind_copy split_copy split_with_sizes_copy""".split()

NAMES = frozenset(ONE + SEVERAL)

# The name the autograd refusal gives: the ATen op that runs (an alias's own, a composite's inner one).
_GRAD_NAME = {
    "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arcsinh": "asinh", "arctan": "atan", "arctanh": "atanh",
    "arccosh": "acosh", "arctan2": "atan2", "fix": "trunc", "negative": "neg", "square": "pow", "msort": "sort",
    "nanmean": "nansum", "norm": "linalg_vector_norm", "diff": "sub", "divide": "div", "multiply": "mul",
    "subtract": "sub", "true_divide": "div", "float_power": "pow", "clip": "clamp", "take_along_dim": "gather",
    "outer": "mul", "ger": "mul", "kron": "mul", "cross": "linalg_cross", "linalg.matrix_power": "matmul",
    "linalg.cholesky": "linalg_cholesky_ex", "linalg.det": "_linalg_det", "linalg.eigvalsh": "_linalg_eigh",
    "linalg.eigh": "_linalg_eigh", "linalg.inv": "linalg_inv_ex", "linalg.solve": "_linalg_solve_ex",
    "linalg.solve_ex": "_linalg_solve_ex", "linalg.svdvals": "_linalg_svd", "linalg.svd": "_linalg_svd",
    "linalg.slogdet": "_linalg_slogdet", "special.digamma": "digamma", "special.erf": "erf", "special.erfc": "erfc",
    "special.erfinv": "erfinv", "special.exp2": "exp2", "special.expit": "sigmoid", "special.expm1": "expm1",
    "special.gammaln": "lgamma", "special.i0": "i0", "special.logit": "logit", "special.sinc": "sinc",
    "special.xlogy": "xlogy", "special.gammainc": "igamma", "special.gammaincc": "igammac",
    "special.polygamma": "polygamma", "special.multigammaln": "mvlgamma",
    "svd": "_linalg_svd", "qr": "linalg_qr", "lu_solve": "linalg_lu_solve", "linalg.lu_factor": "linalg_lu_factor_ex",
    "linalg.vecdot": "sum",
    **{f: f"aten::{f}" for f in ("zeros", "ones", "full", "eye", "linspace", "logspace", "rand", "empty", "randn")},
    **{f: "cat" for f in ("concat", "concatenate", "hstack", "vstack", "dstack", "column_stack", "row_stack")},
}
# Functions whose out= variant PyTorch does not check for grad: their results are not differentiable
# (bool and integer results, draws) or have no derivative there.
_UNCHECKED = set("""linalg.matrix_rank bitwise_left_shift bitwise_right_shift signbit isneginf isposinf logical_not nonzero all any argmax argmin histc floor_divide eq ne lt le gt
ge greater greater_equal less less_equal not_equal logical_and logical_or logical_xor softmax log_softmax bitwise_not
bitwise_and bitwise_or bitwise_xor gcd lcm heaviside diag isin bucketize searchsorted inner tensordot arange randint
randperm multinomial linalg.matrix_norm linalg.norm special.airy_ai special.bessel_j0 special.bessel_j1
special.bessel_y0 special.bessel_y1 special.modified_bessel_i0 special.modified_bessel_i1 special.modified_bessel_k0
special.modified_bessel_k1 special.ndtr special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1
special.spherical_bessel_j0 special.chebyshev_polynomial_t special.chebyshev_polynomial_u special.chebyshev_polynomial_v
special.chebyshev_polynomial_w special.hermite_polynomial_h special.hermite_polynomial_he special.laguerre_polynomial_l
special.legendre_polynomial_p special.shifted_chebyshev_polynomial_t special.shifted_chebyshev_polynomial_u
special.shifted_chebyshev_polynomial_v special.shifted_chebyshev_polynomial_w
slice_scatter view_copy t_copy transpose_copy squeeze_copy unsqueeze_copy select_copy slice_copy diagonal_copy
detach_copy alias_copy unbind_copy split_copy split_with_sizes_copy histogram permute_copy expand_copy
unfold_copy""".split())
# Composites whose out= variant copies their result in: grad is not refused, the copy is recorded.
_COPIED = {"linalg.cond", "linalg.tensorinv", "linalg.tensorsolve", "quantile", "nanquantile"}
# Outputs written (and resized, with a warning each) in another order than returned: torch.svd's V before S.
_WRITE_ORDER = {"svd": (0, 2, 1), "histogram": (1, 0)}
_FACTORIES = {"zeros", "ones", "full", "eye", "empty", "arange", "linspace", "logspace", "rand", "randn", "randint",
              "randperm"}
# Factories and reductions that compute in the out tensor's dtype (their ``dtype=``).
_IN_OUT_DTYPE = _FACTORIES | {"sum", "prod", "cumsum", "cumprod", "nansum", "nanmean"}

# Each function's rule for the out tensor's dtype: ("cast", ...) takes any dtype the result casts to,
# ("same", ...) only the result's, ("any",) every dtype, ("bool"/"long"/"float", ...) only those.
# {R}/{O}: the result's and out's dtypes as PyTorch names them (Float), {r}/{o}: in C++ (float).
_CAST = ("cast", "result type {R} can't be cast to the desired output type {O}")
_SAME = ("same", "Expected out tensor to have dtype {r}, but got {o} instead")
_FOUND = ("same", "Found dtype {O} but expected {R}")
_CASTABLE = "{name}: Expected result to be safely castable from {R} dtype, but got result with dtype {O}"
_SCALAR = ("same", "expected scalar_type {R} but found {O}")
_SELECT = ("same", "{name}(): self and result must have the same scalar type")
_TENSORDOT = ("same", "tensordot: Expected the output tensor to have dtype {R}, but got an output tensor with dtype {O}")
_MEDIAN = ("same", "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
                   "{legacy_o} does not equal {legacy_r} (while checking arguments for median)")
_SEARCH = ("long", "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
                   "depending on whether out_int32 flag is True, but we got output tensor's dtype {O} and out_int32 "
                   "flag is {flag}")
_RULES = {
    **{f: _SAME for f in """msort norm softmax log_softmax sort topk diag tril triu renorm take_along_dim gather scatter
       cross mm mv matmul bmm addmm addmv baddbmm argmax argmin isin linalg.cholesky linalg.cross linalg.det
       linalg.eigvalsh linalg.inv linalg.solve linalg.svdvals linalg.vector_norm linalg.cholesky_ex linalg.eigh
       linalg.inv_ex linalg.qr linalg.slogdet linalg.solve_ex linalg.svd""".split()},
    **{f: _FOUND for f in "abs absolute ceil fix floor frac neg negative round sgn sign trunc hardshrink clamp clip "
                          "clamp_min bitwise_not".split()},
    **{f: ("any",) for f in "eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or "
                            "logical_xor logical_not prod sum bernoulli".split()},
    **{f: ("any",) for f in _FACTORIES},
    **{f: ("cast", "torch.cat(): input types can't be cast to the desired output type {O}", TypeError)
       for f in "cat concat concatenate stack hstack vstack dstack column_stack row_stack".split()},
    **{f: ("bool", "{name} does not support non-boolean outputs.") for f in ("signbit", "isneginf", "isposinf")},
    **{f: ("bool", "{name} only supports bool tensor for result, got: {O}") for f in ("all", "any")},
    **{f: ("cast", _CASTABLE) for f in ("cholesky", "cholesky_inverse", "cholesky_solve")},
    "linalg.pinv": ("cast", "linalg." + _CASTABLE),
    **{f: _SCALAR for f in ("logcumsumexp", "cummax", "cummin")},
    **{f: _SELECT for f in ("index_select", "masked_select")},
    **{f: ("same", "result dtype {O} does not match input dtype {R}") for f in ("dot", "vdot")},
    **{f: _SEARCH for f in ("searchsorted", "bucketize")},
    "nan_to_num": ("same", "nan_to_num: dtype of out: {O} should be same as input: {R}"),
    **{f: ("same", "Expected the dtype for input and out to match, but got {R} for input's dtype and {O} for out's "
                   "dtype.") for f in ("amax", "amin")},
    "mode": ("same", "expected scalar type '{R}' but got '{O}' for values output"),
    "heaviside": ("same", "heaviside is not yet implemented for tensors with different dtypes."),
    "where": ("same", "Expected out type to be {R} but got {O}"),
    "median": _MEDIAN, "nanmedian": _MEDIAN,
    "kthvalue": ("same", "output values must be of same type as input"),
    "take": ("same", "take(): self and out expected to have the same dtype, but got self.dtype = {R} and out.dtype = "
                     "{O}"),
    "inner": _TENSORDOT, "tensordot": _TENSORDOT,
    "addbmm": ("same", "self and mat2 must have the same dtype, but got {O} and {R}"),
    "linalg.matrix_norm": ("same", "linalg.matrix_norm expected out tensor dtype {R} but got: {O}"),
    "linalg.norm": ("same", "linalg.norm expected out tensor dtype {R} but got: {O}"),
    "linalg.solve_triangular": ("same", "expected scalar type {R} but found {O}"),
    "linalg.lstsq": ("cast", "torch.linalg.lstsq: Expected solution to be safely castable from {R} dtype, but got "
                             "solution with dtype {O}"),
    "linalg.matrix_rank": ("cast", "torch.linalg." + _CASTABLE),
    "linalg.cond": ("cast", "linalg." + _CASTABLE),
    **{f: ("cast", _CASTABLE) for f in ("linalg.tensorinv", "linalg.tensorsolve")},
    "linalg.vecdot": ("same", "linalg.vecdot: Expected out of dtype{R} but found {O}"),
    "linalg.multi_dot": ("same", "multi_dot(): expected out tensor to have dtype {r} but got {o}"),
    **{f: _SAME for f in ("lu_solve", "linalg.lu_solve")},
    "linalg.householder_product": ("cast", "torch.linalg.householder_product: Expected result to be safely castable "
                                           "from {R} dtype, but got result with dtype {O}"),
    "linalg.matrix_power": ("cast", "matrix_power: Expected result to be safely castable from {R} dtype, but got "
                                    "result with dtype {O}", RuntimeError, _SAME[1]),
    **{f: _SAME for f in """slice_scatter view_copy t_copy transpose_copy squeeze_copy unsqueeze_copy select_copy
       slice_copy diagonal_copy detach_copy alias_copy unbind_copy permute_copy expand_copy unfold_copy scatter_add
       scatter_reduce index_add index_copy index_reduce""".split()},
    "narrow_copy": ("same", "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error "
                            "message be improved?  If so, please report an enhancement request to PyTorch.)"),
    **{f: ("same", "quantile() out tensor must be same dtype as the input tensor")
       for f in ("quantile", "nanquantile")},
    "ldexp": ("cast", "ldexp can't be cast to the desired output type {O}"),
    "frexp": ("same", "torch.frexp() expects mantissa to have dtype {r} but got {o}"),
    "split_copy": ("any",),
    "histogram": ("same", "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {r} "
                          "and hist {o}"),
    "histc": ("same", "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {r} "
                      "and hist {o}"),
    "float_power": ("same", "the output given to float_power has dtype {O} but the operation's result requires dtype "
                            "{R}"),
    "geqrf": ("cast", "torch.geqrf: Expected a to be safely castable from {R} dtype, but got a with dtype {O}"),
    "special.multigammaln": ("cast", "mvlgamma: result type {R} can't be cast to the desired output type {R}"),
    "logsumexp": ("float", "logsumexp(): Expected floating point type for result tensor, but got: {O}"),
    "nonzero": ("long", "nonzero: Expected out tensor to have scalar type Long but got scalar type{O}"),
    "multinomial": ("long", "multinomial expects Long tensor out, got: {O}"),
    **{f: ("float", '"nansum_cpu" not implemented for \'{O}\'', NotImplementedError) for f in ("nansum", "nanmean")},
    **{f: ("notbool", '"{name}_out_cpu" not implemented for \'{O}\'', NotImplementedError) for f in ("cumsum", "cumprod")},
}
# The rule for the outputs after the first, where not _SAME.
_LATER_RULES = {
    "frexp": ("same", "torch.frexp() expects exponent to have int dtype but got {o}"),
    "histogram": ("same", "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got "
                          "input {r} and bin_edges {o} for dimension 0"),
    "split_copy": ("any",),
}
# Functions whose out= PyTorch computes from inputs that require grad, recording a node whose backward raises.
_NOT_IMPLEMENTED_OUT = set("""slice_scatter view_copy t_copy transpose_copy squeeze_copy unsqueeze_copy select_copy
slice_copy diagonal_copy detach_copy alias_copy histogram permute_copy expand_copy unfold_copy""".split())
# Functions whose out= is a list of tensors (of a length the result sets) and which return None.
_LIST_OUT = {"unbind_copy": "unbind_copy_int_out", "split_copy": "split_copy_Tensor_out()",
             "split_with_sizes_copy": "split_with_sizes_copy_out"}
# Reductions over every element: another overload, with its own rule or none taking out=.
_FULL_REDUCTION = {
    "max": ("cast", "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) to be "
                    "true, but got false.  (Could this error message be improved?  If so, please report an "
                    "enhancement request to PyTorch.)"),
    "mean": ("cast", "mean.dtype_out(): input types can't be cast to the desired output type {O}"),
}
_FULL_REDUCTION["min"] = _FULL_REDUCTION["max"]
_DIM_REQUIRED = ("median", "nanmedian")
_OTHER_FORM = {"max": "maximum", "min": "minimum"}  # max(input, other)
# Reductions to values and indices that size their outputs with the reduced dim kept, which their
# resize warning shows.
_KEPT_DIM = ("mode", "kthvalue")


def _legacy(dt):
    return from_numpy_dtype(dt)._legacy[:-len("Tensor")]


def _allows(rule, got, want):
    kind = rule[0]
    if kind == "any":
        return True
    if kind == "same":
        return got == want
    if kind == "bool":
        return want == np.bool_
    if kind == "long":
        return want == np.int64
    if kind == "float":
        return want.kind == "f"
    if kind == "notbool":
        return want != np.bool_
    return got == want or np.can_cast(got, want, "same_kind")


def _check_dtype(rule, name, got, want, flag=False):
    if _allows(rule, got, want):
        if len(rule) > 3 and got != want:  # castable, and then the exact dtype (matrix_power's matmul)
            rule = ("same", rule[3])
        else:
            return
    fields = {"R": _legacy(got), "O": _legacy(want), "r": _CPP_TYPE_NAMES[got.name], "o": _CPP_TYPE_NAMES[want.name],
              "name": name.split(".")[-1], "flag": flag,
              # (PyTorch has no legacy class for bool: its message names the C++ type)
              "legacy_r": "torch." + from_numpy_dtype(got)._legacy, "legacy_o": "torch." + from_numpy_dtype(want)._legacy}
    if want == np.bool_:
        fields["legacy_o"] = "CPUBoolType"
    raise (rule[2] if len(rule) > 2 else RuntimeError)(rule[1].format(**fields))


def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, Tensor))


def resize_warning(given, shape, stacklevel):
    warnings.warn(
        f"An output with one or more elements was resized since it had shape {list(given)}, which does not match "
        f"the required output shape {list(shape)}. This behavior is deprecated, and in a future PyTorch release "
        "outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by "
        "resizing it, inplace, to zero elements with t.resize_(0). (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)", UserWarning, stacklevel=stacklevel)


def _kept_dim(name, result, args, kwargs):
    """The dim a values-and-indices reduction drops (None when kept, or not such a reduction)."""
    if name not in _KEPT_DIM:
        return None
    at = 2 if name == "kthvalue" else 1  # (kthvalue(input, k, dim, keepdim), mode(input, dim, keepdim))
    if kwargs.get("keepdim", args[at + 1] if len(args) > at + 1 else False):
        return None
    return kwargs.get("dim", args[at] if len(args) > at else -1) % (result[0].dim() + 1)


def _write(out, result, inputs, quiet, kept=None):
    d, r = out._data, result._data
    for t in inputs:  # (the out tensor itself as an input is fine: the result is computed apart)
        a = t._data
        if a is not d and np.may_share_memory(a, d) and not (
                a.__array_interface__["data"] == d.__array_interface__["data"] and a.shape == d.shape
                and a.strides == d.strides):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
                "memory location. Please clone() the tensor before performing the operation.")
    if d.shape != r.shape:
        if d.size and not quiet:
            shown = (d.shape, r.shape) if kept is None or d.ndim < kept else \
                (d.shape[:kept] + (1,) + d.shape[kept:], r.shape[:kept] + (1,) + r.shape[kept:])
            resize_warning(*shown, stacklevel=3)
        out._data = r.astype(d.dtype, copy=True)
    else:
        np.copyto(d, r, casting="unsafe")
    out._vc[0] += 1


def _rule(name, result, args, kwargs, has_dim):
    if name in ("max", "min"):
        if len(args) > 1 and isinstance(args[1], Tensor) or isinstance(kwargs.get("other"), Tensor):
            return _CAST  # (maximum, minimum)
        return _SAME if has_dim else _FULL_REDUCTION[name]
    if name == "mean" and not has_dim:
        return _FULL_REDUCTION[name]
    return _RULES.get(name, _SAME if isinstance(result, tuple) else _CAST)


def with_out(fn, name):
    """``fn`` (PyTorch's ``name``, as listed above) taking ``out=``."""
    short = name.split(".")[-1]
    grad_name = _GRAD_NAME.get(name) or (name.replace(".", "_") if "." in name else name)

    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        has_dim = len(args) > 1 or "dim" in kwargs
        if short in _DIM_REQUIRED and not has_dim:
            raise TypeError(f'{short}() missing 1 required positional arguments: "dim"')
        if name == "sum" and not has_dim or name == "argsort" and "stable" not in kwargs:
            raise invalid_arguments(short, *args, **kwargs, out=out)
        inputs = tuple(_tensors(args, kwargs))
        if _grad_mode._enabled and name not in _UNCHECKED and name not in _COPIED and (
                isinstance(out, Tensor) and out._requires_grad or any(t._requires_grad for t in inputs)):
            if short in ("empty", "randn") and isinstance(out, Tensor):
                raise RuntimeError("cannot resize variables that require grad")
            shown = _OTHER_FORM.get(name, grad_name) if len(args) > 1 and isinstance(args[1], Tensor) else grad_name
            raise RuntimeError(f"{shown}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        if name in _IN_OUT_DTYPE and isinstance(out, Tensor):
            given = kwargs.get("dtype")
            want = from_numpy_dtype(out._data.dtype)
            if given is not None and name in _FACTORIES and given is not want:
                raise RuntimeError(f"dtype {given._legacy[:-6]} does not match dtype of out parameter "
                                   f"({want._legacy[:-6]})")
            if name != "sum" or has_dim:
                kwargs["dtype"] = want
        with _grad_mode.set_grad_enabled(name in _COPIED and _grad_mode._enabled):
            result = fn(*args, **kwargs)
        rule = _rule(name, result, args, kwargs, has_dim)
        quiet = name in _FACTORIES or name in ("addbmm", "narrow_copy")  # (these resize their out tensor without a word)
        kept = _kept_dim(name, result, args, kwargs)
        if isinstance(result, tuple):
            if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
                raise invalid_arguments(short, *args, **kwargs, out=out)
            if len(out) != len(result):
                if name in _LIST_OUT:
                    raise RuntimeError(f"{_LIST_OUT[name]} expected an out= argument of size {len(result)}, got size "
                                       f"{len(out)}")
                raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
            for i, (o, r) in enumerate(zip(out, result)):
                _check_dtype(rule if i == 0 else _LATER_RULES.get(name, _SAME), name, r._data.dtype, o._data.dtype)
            if name == "split_copy":  # (each part copied in: broadcast, cast, never resized)
                for o, r in zip(out, result):
                    shape = _broadcast_checked(o._data.shape, r._data.shape)
                    if shape != o._data.shape:
                        raise RuntimeError(f"output with shape {list(o._data.shape)} doesn't match the broadcast shape "
                                           f"{list(shape)}")
                    o._data[...] = np.broadcast_to(r._data, shape)
                    o._vc[0] += 1
                return None
            for i in _WRITE_ORDER.get(name, range(len(out))):
                _write(out[i], result[i], inputs, quiet, kept)
            if name in _LIST_OUT:
                return None
            if name in _NOT_IMPLEMENTED_OUT:
                not_implemented_out(short, inputs, tuple(out))
            cls = type(result)
            fields = tuple(p for p, v in vars(cls).items() if isinstance(v, property))
            return return_type(f"{cls.__name__}_out", fields)(*out) if fields else tuple(out)
        if not isinstance(out, Tensor):
            raise TypeError(f"{short}(): argument 'out' must be Tensor, not {type(out).__name__}")
        _check_dtype(rule, name, result._data.dtype, out._data.dtype, flag=bool(kwargs.get("out_int32", False)))
        if name == "normal":  # (its out tensor is broadcast against the mean, as an in-place op's self)
            _broadcast_checked(result._data.shape, out._data.shape)
        _write(out, result.detach(), inputs, quiet)
        if result._requires_grad:  # (_COPIED: out= is a copy_ of the result, which the graph records)
            out.copy_(result)
        if name in _NOT_IMPLEMENTED_OUT:
            not_implemented_out(short, inputs, (out,))
        return out

    return transparent(f)


def take_out(namespace, prefix=""):
    """Rebind each function of ``namespace`` (a module's globals, or a submodule) that PyTorch gives
    ``out=`` to one that takes it."""
    d = namespace if isinstance(namespace, dict) else vars(namespace)
    setter = d.__setitem__ if isinstance(namespace, dict) else (lambda k, v: setattr(namespace, k, v))
    for full in ONE + SEVERAL:
        if ("." in full) != bool(prefix) or not full.startswith(prefix):
            continue
        fn = d.get(full[len(prefix):])
        if fn is not None:
            setter(full[len(prefix):], with_out(fn, full))
