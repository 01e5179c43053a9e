"""A pure Python + NumPy autograd engine with PyTorch's API: bind it as ``torch`` and tutorial code runs.

>>> import engine as torch
>>> x = torch.ones(2, 2, requires_grad=True)
>>> out = ((x + 2) * (x + 2) * 3).mean()
>>> out
tensor(27., grad_fn=<MeanBackward0>)
>>> out.backward(); x.grad
tensor([[4.5000, 4.5000],
        [4.5000, 4.5000]])
"""
import builtins as _builtins

from . import _torch_names

_torch_names.install()  # (first: the classes of every engine module imported from here on print as PyTorch's)

from . import _dtypes, _lazy, _methods, _sampling, _storage  # noqa: F401  (binds the Tensor methods)
from ._storage import TypedStorage, UntypedStorage, is_storage
from ._dtypes import (bool_ as bool, float16, float32, float64, get_default_dtype, int8, int16, int32, int64,
                      set_default_dtype, uint8, dtype, promote_types, finfo, iinfo)
from ._factories import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, Generator, HalfTensor,
                         IntTensor, LongTensor, ShortTensor, arange, as_tensor, asarray, empty, empty_like, eye,
                         from_numpy, full, full_like, get_rng_state, initial_seed, linspace, logspace, manual_seed,
                         normal, ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm,
                         seed, set_rng_state, tensor, zeros, zeros_like)
from ._factories import (bartlett_window, blackman_window, empty_strided, hamming_window, hann_window,  # noqa: E402
                         kaiser_window)
from ._settings import (are_deterministic_algorithms_enabled, get_float32_matmul_precision,
                        is_deterministic_algorithms_warn_only_enabled, set_default_tensor_type,
                        set_float32_matmul_precision, use_deterministic_algorithms)
from ._grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                         set_grad_enabled)
from ._ops import adjoint, amin, broadcast_to, ger, outer, unsafe_chunk, unsafe_split  # noqa: E402
from ._ops import (acos, acosh, addcdiv, addcmul, arccos, arccosh, arcsin, arcsinh, arctan, arctan2,  # noqa: E402
                   arctanh, asin, asinh, atan2, atanh, deg2rad, erf, erfc, exp2, heaviside, hypot, lerp,
                   logaddexp, logit, nan_to_num, rad2deg, sinc, xlogy)
from ._ops import (cumprod, diag, diagonal, hstack, kron, masked_select, repeat_interleave, roll,  # noqa: E402
                   row_stack, std_mean, tile, trace, tril, triu, var_mean, vstack, einsum)
from ._ops import (argsort, cummax, cummin, embedding, index_add, index_copy, index_fill, index_put,  # noqa: E402
                   kthvalue, median, mode, msort, nanmedian, scatter, scatter_add, sort, take, take_along_dim, topk)
from ._ops import (abs, absolute, add, addmm, all, allclose, amax, any, argmax, argmin, atan, bmm, cat, ceil, chunk,
                   clamp, clamp_max, clamp_min, clip, clone, concat, concatenate, cos, cosh, cumsum, div, dot, eq,
                   equal, exp, expm1, flatten, flip, floor, floor_divide, fmod, frac, gather, ge, greater,
                   greater_equal, gt, index_select, isclose, isfinite, isinf, isnan, le, less, less_equal, log,
                   log1p, log2, log10, log_softmax, logical_and, logical_not, logical_or, logical_xor, logsumexp, lt,
                   masked_fill, matmul, max, maximum, mean, min, minimum, mm, mul, mv, narrow, ne, neg, negative,
                   nonzero, norm, not_equal, pow, prod, reciprocal, relu, remainder, round, rsqrt,
                   rsub, select, sgn, sigmoid, sign, sin, sinh, softmax, split, sqrt, square, squeeze, stack, std, sub,
                   sum, swapaxes, t, tan, tanh, transpose, true_divide, trunc, unbind, unflatten, unsqueeze, var,
                   where)
from ._ops import (addbmm, addmv, addr, aminmax, argwhere, atleast_1d, atleast_2d, atleast_3d, baddbmm, bincount,  # noqa: E402
                   bitwise_and, bitwise_not, bitwise_or, bitwise_xor, block_diag, bucketize, cartesian_prod, cdist,
                   celu, column_stack, combinations, copysign, corrcoef, count_nonzero, cov, diag_embed, diagflat,
                   diff, digamma, dist, dsplit, dstack, erfinv, fliplr, flipud, fmax, fmin, histc, hsplit, inner,
                   is_nonzero, isin, lgamma, logaddexp2, logcumsumexp, masked_scatter, meshgrid, moveaxis, movedim,
                   nanmean, nansum, polygamma, renorm, rot90, searchsorted, selu, signbit, swapdims, tensor_split,
                   tensordot, threshold, tril_indices, triu_indices, unique, unique_consecutive, vander, vsplit)
from ._ops import cumulative_trapezoid, hardshrink, prelu, trapezoid, trapz  # noqa: E402
from ._ops import (alias_copy, detach_copy, diagonal_copy, diagonal_scatter, expand_copy, index_reduce,  # noqa: E402
                   narrow_copy, permute_copy, put, scatter_reduce, select_copy, select_scatter, slice_copy,
                   slice_scatter, split_copy, split_with_sizes_copy, squeeze_copy, t_copy, transpose_copy, unbind_copy,
                   unfold_copy, unsqueeze_copy, view_copy)
from ._ops import (fill, frexp, gradient, histogram, ldexp, nanquantile, nextafter, quantile,  # noqa: E402
                   unravel_index)
from ._ops import range_ as range  # noqa: E402  (Python's range is _builtins.range here)
from ._ops import bitwise_left_shift, bitwise_right_shift, imag, real  # noqa: E402
from ._ops import (conj, divide, fix, float_power, gcd, is_complex, is_conj, is_neg, is_same_size,  # noqa: E402
                   is_signed, isneginf, isposinf, isreal, lcm, multiply, positive, ravel, resolve_conj, resolve_neg,
                   subtract, vdot)
from ._random import default_generator
from ._sampling import bernoulli, multinomial, poisson
from ._printing import get_printoptions, printoptions, set_printoptions
from ._tensor import Size, Tensor, device, typename
from . import autograd, nn, optim  # noqa: E402
from .autograd import Function  # noqa: F401
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled, is_anomaly_enabled,  # noqa: F401
                                    set_anomaly_enabled)

__version__ = "2.13.0"

float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
strided = "torch.strided"
contiguous_format = preserve_format = "torch.contiguous_format"
e, pi, inf, nan = 2.718281828459045, 3.141592653589793, _builtins.float("inf"), _builtins.float("nan")


def is_tensor(obj):
    return isinstance(obj, Tensor)


# The functions take the shape as one argument, by PyTorch's keyword (the methods also take it unpacked).
def reshape(input, shape=None):
    if shape is None and isinstance(input, Tensor):  # (the type of ``input`` is checked first, as in PyTorch)
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    return _ops.reshape(input, shape)


def permute(input, dims=None):
    if dims is None and isinstance(input, Tensor):
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return _ops.permute(input, dims)


def result_type(tensor, other):
    if not _builtins.all(isinstance(x, Tensor) or _ops.is_scalar(x) for x in (tensor, other)):
        raise _ops.invalid_arguments("result_type", tensor, other)
    return _dtypes.result_type(tensor, other)


def can_cast(from_, to):
    _dtypes._need_dtypes("can_cast", ("from_", from_), ("to", to))
    return _dtypes.promote_types(from_, to) is to or from_._category <= to._category


def _method_function(name):
    """``torch.relu_(t)``, ``torch.numel(t)`` and the like: the method, as a function of the tensor."""
    method = getattr(Tensor, name)

    def f(input, *args, **kwargs):
        _ops.need_tensor(name, "input", 1, input)
        return method(input, *args, **kwargs)

    f.__name__ = f.__qualname__ = name
    return f


for _name in ("abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
              "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_",
              "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
              "floor_", "frac_", "gcd_", "lcm_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_",
              "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_",
              "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
              "get_device", "is_floating_point", "is_inference", "numel"):
    globals()[_name] = _method_function(_name)


from .nn.functional import celu_, cosine_similarity, pairwise_distance, selu_, threshold_  # noqa: E402


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, **_):
    """A 0-d tensor of the number ``s``, of the default float dtype unless ``dtype`` says."""
    if not _ops.is_scalar(s) and not (isinstance(s, Tensor) and s.numel() == 1):
        raise _ops.tensor_expected("scalar_tensor", "s", 1, s, "Number")
    return tensor(s.item() if isinstance(s, Tensor) else s, dtype=dtype or get_default_dtype(),
                  requires_grad=requires_grad)


def get_num_threads():
    """One: the engine computes on one thread (NumPy's own kernels may use more)."""
    return 1


def set_num_threads(int):  # noqa: A002 - PyTorch's parameter name
    if type(int) is not _builtins.int:
        raise RuntimeError(f"set_num_threads expects an int, but got {_ops.type_name(int)}")
    if int <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")


get_num_interop_threads = get_num_threads
set_num_interop_threads = set_num_threads


def pinverse(input, rcond=1e-15):
    """``linalg.pinv`` with ``rcond`` (LinalgPinvBackward0)."""
    from . import linalg

    _ops.need_tensor("pinverse", "input", 1, input)
    return linalg.pinv(input, rcond=rcond)


def dropout(input, p, train):
    return nn.functional.dropout(input, p, train)


def set_default_device(device):
    from ._tensor import check_device

    check_device(device)


def get_default_device():
    return device("cpu")


def detach(input):
    _ops.need_tensor("detach", "input", 1, input)
    return input.detach()


def index_put_(input, indices, values, accumulate=False):
    _ops.need_tensor("index_put_", "input", 1, input)
    return input.index_put_(indices, values, accumulate)


def broadcast_tensors(*tensors):
    """Each tensor expanded to the common shape; one already of that shape comes back itself."""
    _ops._tensors_expected(tensors)
    shape = ()
    for t in tensors:
        shape = _ops._broadcast_checked(shape, t._data.shape)
    return tuple(t if t._data.shape == shape else t.expand(shape) for t in tensors)


def broadcast_shapes(*shapes):
    sizes = [(s,) if isinstance(s, _builtins.int) else s for s in shapes]
    result = [1] * _builtins.max(map(len, sizes), default=0)
    for j, size in enumerate(sizes):
        for i in _builtins.range(-1, -1 - len(size), -1):
            n = size[i]
            if n < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if n == 1 or n == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {i}! Mismatching argument at "
                                   f"index {j} had {size}; but expected shape should be broadcastable to {result}")
            result[i] = n
    return Size(result)


# Loaded at first use, not at import: the page's first view waits for ``import engine``.
_LAZY = {"cuda": ("cuda", None), "backends": ("backends", None), "accelerator": ("accelerator", None),
         "version": ("version", None), "random": ("random", None), "testing": ("testing", None),
         "linalg": ("linalg", None), "func": ("func", None), "vmap": ("func", "vmap"), "utils": ("utils", None), "serialization": ("serialization", None),
         "distributions": ("distributions", None), "compile": ("_compile", "compile"),
         "compiler": ("compiler", None), "_dynamo": ("_dynamo", None),
         "special": ("special", None),
         **{name: ("_gamma", name) for name in ("_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet",
                                                "_dirichlet_grad", "binomial")},
         "save": ("serialization", "save"), "load": ("serialization", "load"), "det": ("linalg", "det"),
         "matrix_power": ("linalg", "matrix_power"), "logdet": ("linalg", "_logdet"),
         "cholesky": ("linalg", "_torch_cholesky"), "cross": ("linalg", "_torch_cross"),
         "slogdet": ("linalg", "_torch_slogdet"), "inverse": ("linalg", "inv"),
         "cholesky_solve": ("linalg", "_torch_cholesky_solve"), "cholesky_inverse": ("linalg", "_torch_cholesky_inverse"),
         "triangular_solve": ("linalg", "_torch_triangular_solve"),
         "matrix_exp": ("linalg", "matrix_exp"), "orgqr": ("linalg", "householder_product"),
         "geqrf": ("linalg", "_torch_geqrf"),
         "svd": ("linalg", "_torch_svd"), "qr": ("linalg", "_torch_qr"), "lu": ("linalg", "_torch_lu"),
         "lu_unpack": ("linalg", "_lu_unpack"), "lu_solve": ("linalg", "_torch_lu_solve"),
         "chain_matmul": ("linalg", "_chain_matmul"), "solve": ("linalg", "_torch_solve"),
         "lstsq": ("linalg", "_torch_lstsq"), "eig": ("linalg", "_torch_eig"), "symeig": ("linalg", "_torch_symeig"),
         "matrix_rank": ("linalg", "_torch_matrix_rank"),
         "i0": ("special", "i0"), "igamma": ("special", "gammainc"), "igammac": ("special", "gammaincc"),
         "mvlgamma": ("special", "multigammaln"),
         **{name: ("_nn_more", name) for name in ("pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "pdist",
                                                  "bilinear", "_trilinear")},
         **{name: ("nn.functional", "_torch_" + name) for name in (
             "rrelu", "rrelu_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
             "triplet_margin_loss", "cosine_embedding_loss")},
         "batch_norm": ("_norm", "_torch_batch_norm"), "instance_norm": ("_norm", "_torch_instance_norm"),
         "layer_norm": ("_norm", "_torch_layer_norm"), "group_norm": ("_norm", "_torch_group_norm"),
         "rms_norm": ("_norm", "rms_norm"), "native_batch_norm": ("_norm", "native_batch_norm"),
         "native_layer_norm": ("_norm", "native_layer_norm"), "native_group_norm": ("_norm", "native_group_norm"),
         **{name: ("_conv", name) for name in (
             "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution",
             "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
             "adaptive_avg_pool1d", "constant_pad_nd")},
         "adaptive_max_pool1d": ("_conv", "_torch_adaptive_max_pool1d")}


_lazy_getattr = _lazy.lazy_getattr(__name__, "torch", _LAZY)


def __getattr__(name):
    value = _lazy_getattr(name)
    if name in _out.NAMES:  # (made once, then a global)
        value = globals()[name] = _out.with_out(value, name)
    return value


from ._numpy_names import take_numpy_names as _take_numpy_names  # noqa: E402

_take_numpy_names(globals(), list(globals()))
_take_numpy_names(Tensor, list(vars(Tensor)), methods=True)

from . import _out  # noqa: E402

_out.take_out(globals())
