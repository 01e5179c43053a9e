"""Activation modules, each the functional form of ``torch.nn.functional``."""
import warnings

from ... import _factories, _ops
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "LeakyReLU", "Softmax", "LogSoftmax", "Softplus", "SiLU", "ELU", "GELU",
           "Hardtanh", "ReLU6", "Softsign", "LogSigmoid", "SELU", "CELU", "Mish", "Hardsigmoid", "Hardswish",
           "Softmin", "GLU", "Threshold", "Tanhshrink", "Hardshrink", "Softshrink", "PReLU", "MultiheadAttention",
           "RReLU"]


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


# The shapes most activations share: each subclass names its ``_function`` from ``F``.

class _Inplace(Module):
    __constants__ = ["inplace"]
    _shows_inplace = True  # (Hardsigmoid's and Hardswish's reprs leave it out, as PyTorch's do)

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return self._function(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace) if self._shows_inplace else ""


class _AlongDim(Module):
    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return self._function(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class _WithAlpha(Module):
    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return self._function(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class ReLU(_Inplace):
    r"""Applies the rectified linear unit elementwise: :math:`\max(0, x)`.

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    _function = staticmethod(F.relu)


class Sigmoid(Module):
    r"""Applies :math:`1 / (1 + e^{-x})` elementwise."""

    def forward(self, input):
        return _ops.sigmoid(input)


class Tanh(Module):
    r"""Applies the hyperbolic tangent elementwise."""

    def forward(self, input):
        return _ops.tanh(input)


class LeakyReLU(Module):
    r"""Applies :math:`\max(0, x) + \text{negative\_slope} \min(0, x)` elementwise.

    Args:
        negative_slope: the slope for negative inputs. Default: 1e-2
        inplace: modify the input in place. Default: ``False``
    """

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Softmax(_AlongDim):
    r"""Applies softmax along ``dim``: the values along it are in [0, 1] and sum to 1.

    Args:
        dim: the dimension softmax is computed along.
    """

    _function = staticmethod(F.softmax)


class LogSoftmax(_AlongDim):
    r"""Applies :math:`\log(\text{softmax}(x))` along ``dim``.

    Args:
        dim: the dimension it is computed along.
    """

    _function = staticmethod(F.log_softmax)


class Softplus(Module):
    r"""Applies :math:`\frac{1}{\beta} \log(1 + e^{\beta x})` elementwise, linear above ``threshold``.

    Args:
        beta: the :math:`\beta`. Default: 1
        threshold: values of :math:`\beta x` above it are left linear. Default: 20
    """

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class SiLU(_Inplace):
    r"""Applies :math:`x \sigma(x)` elementwise (the swish).

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    _function = staticmethod(F.silu)


class ELU(_WithAlpha):
    r"""Applies :math:`x` for :math:`x > 0`, else :math:`\alpha (e^x - 1)`, elementwise.

    Args:
        alpha: the :math:`\alpha`. Default: 1.0
        inplace: modify the input in place. Default: ``False``
    """

    _function = staticmethod(F.elu)


class GELU(Module):
    r"""Applies :math:`x \Phi(x)` elementwise, :math:`\Phi` the standard normal CDF (or its tanh
    approximation).

    Args:
        approximate: ``'none'`` | ``'tanh'``. Default: ``'none'``
    """

    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={repr(self.approximate)}"


class Hardtanh(Module):
    r"""Clamps to ``[min_val, max_val]`` elementwise.

    Args:
        min_val: the lower end of the linear region. Default: -1
        max_val: the upper end of the linear region. Default: 1
        inplace: modify the input in place. Default: ``False``
        min_value, max_value: deprecated names of ``min_val`` and ``max_val``
    """

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    r"""Applies :math:`\min(\max(0, x), 6)` elementwise.

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Softsign(Module):
    r"""Applies :math:`x / (1 + |x|)` elementwise."""

    def forward(self, input):
        return F.softsign(input)


class LogSigmoid(Module):
    r"""Applies :math:`\log(1 / (1 + e^{-x}))` elementwise."""

    def forward(self, input):
        return F.logsigmoid(input)


class SELU(_Inplace):
    r"""Applies :math:`\text{scale} (\max(0, x) + \min(0, \alpha (e^x - 1)))` elementwise, with
    :math:`\alpha \approx 1.6733` and :math:`\text{scale} \approx 1.0507`.

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    _function = staticmethod(F.selu)


class CELU(_WithAlpha):
    r"""Applies :math:`\max(0, x) + \min(0, \alpha (e^{x / \alpha} - 1))` elementwise.

    Args:
        alpha: the :math:`\alpha`. Default: 1.0
        inplace: modify the input in place. Default: ``False``
    """

    _function = staticmethod(F.celu)


class Mish(_Inplace):
    r"""Applies :math:`x \tanh(\text{softplus}(x))` elementwise.

    Args:
        inplace: modify the input in place. Default: ``False``
    """

    _function = staticmethod(F.mish)


class Hardsigmoid(_Inplace):
    r"""Applies :math:`\text{clamp}(x / 6 + 1 / 2, 0, 1)` elementwise.

    Args:
        inplace: modify the input in place. Default: ``False`` (not shown by its repr, as in PyTorch)
    """

    _function = staticmethod(F.hardsigmoid)
    _shows_inplace = False


class Hardswish(_Inplace):
    r"""Applies :math:`x \, \text{clamp}(x + 3, 0, 6) / 6` elementwise.

    Args:
        inplace: modify the input in place. Default: ``False`` (not shown by its repr, as in PyTorch)
    """

    _function = staticmethod(F.hardswish)
    _shows_inplace = False


class Softmin(_AlongDim):
    r"""Applies softmax of :math:`-x` along ``dim``.

    Args:
        dim: the dimension softmin is computed along.
    """

    _function = staticmethod(F.softmin)


class GLU(Module):
    r"""The gated linear unit :math:`a \otimes \sigma(b)`, ``a`` and ``b`` the halves of the input
    along ``dim``.

    Args:
        dim: the dimension the input is split along. Default: -1
    """

    __constants__ = ["dim"]

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Threshold(Module):
    r"""Applies :math:`x` where :math:`x > \text{threshold}`, else ``value``, elementwise.

    Args:
        threshold: the value to threshold at
        value: the value to replace with
        inplace: modify the input in place. Default: ``False``
    """

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Tanhshrink(Module):
    r"""Applies :math:`x - \tanh(x)` elementwise (``SubBackward0`` after ``TanhBackward0``, as PyTorch's
    ``F.tanhshrink`` composes it)."""

    def forward(self, input):
        return input - input.tanh()


class Hardshrink(Module):
    r"""Applies :math:`x` where :math:`|x| > \lambda`, else 0, elementwise.

    Args:
        lambd: the :math:`\lambda`. Default: 0.5
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    r"""Applies :math:`x - \lambda` above :math:`\lambda`, :math:`x + \lambda` below
    :math:`-\lambda`, else 0, elementwise.

    Args:
        lambd: the :math:`\lambda` (at least 0). Default: 0.5
    """

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class PReLU(Module):
    r"""Applies :math:`x` where positive, else :math:`a x`, with a learnable :math:`a` (one for all
    channels, or one per channel: dim 1 of the input).

    Args:
        num_parameters: how many :math:`a`: 1 or the input's channels. Default: 1
        init: their initial value. Default: 0.25
    """

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_factories.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        from .. import init as nn_init

        nn_init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    r"""Attention from several heads at once: ``Concat(head_1, ..., head_h) W_O`` with
    ``head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)``, as in "Attention Is All You Need".

    Inputs are ``(L, N, E)`` (or ``(N, L, E)`` with ``batch_first=True``, or unbatched ``(L, E)``);
    ``forward`` returns ``(attn_output, attn_output_weights)``, the weights averaged over heads.

    >>> mha = nn.MultiheadAttention(4, 2, batch_first=True)
    >>> out, w = mha(x, x, x)
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_factories.empty((3 * embed_dim, embed_dim), **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(_factories.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(_factories.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(_factories.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_factories.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_factories.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(_factories.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        # (drawn in PyTorch's order, so a seed gives PyTorch's parameters)
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        from ... import _attention as A

        is_batched = query.dim() == 3
        key_padding_mask = A._canonical_mask(key_padding_mask, "key_padding_mask", A._none_or_dtype(attn_mask),
                                             "attn_mask", query.dtype)
        attn_mask = A._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:  # (transposed so that ``query is key`` still tells self-attention)
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        out, weights = A.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            out = out.transpose(1, 0)
        return out, weights


class RReLU(Module):
    r"""The randomized leaky ReLU: negative inputs times a slope drawn from U(lower, upper) per
    element in training, times ``(lower + upper) / 2`` in evaluation.

    >>> nn.RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    """

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"
