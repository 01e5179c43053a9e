"""``F.scaled_dot_product_attention`` as PyTorch 2.13 runs it on the CPU: the fused flash kernel, one
``ScaledDotProductFlashAttentionForCpuBackward0`` node, when its conditions hold (4-D inputs, no
dropout, equal head dims, ...), else the composite math path, whose graph shows each step
(``MulBackward1``, ``BmmBackward0``, ``SafeSoftmaxBackward0``, ...)."""
import math

import numpy as np

from ._ops import (_RESULT, _broadcast_error, _grad_edges_only, _mul_scalar, _not_implemented, _quietly,
                   _record_shared, _saved_attr, _saved_dim, _saved_slot, _saved_tensor_attr, _shared_rules,
                   _softmax_backward_data, _softmax_np, defop, matmul, record, register_saved, tril, need_tensor, tensor_expected)
from ._factories import filled_like
from ._tensor import _CPP_TYPE_NAMES as _TYPE_NAMES, Tensor, _wrap

_ALLOWED = {"flash": True, "math": True}  # set by torch.nn.attention.sdpa_kernel


# ----- _safe_softmax: softmax, with 0 (not nan) for a row masked out entirely -----

SAFE_SOFTMAX = defop("SafeSoftmaxBackward0", lambda g, ans, x, dim: _softmax_backward_data(g, ans, dim),
                     saves=("result",))


def _safe_softmax(x, dim):
    d = x._data
    axis = dim % d.ndim
    out = np.where(np.all(d == -np.inf, axis=axis, keepdims=True), d.dtype.type(0), _quietly(_softmax_np, d, axis))
    return record(SAFE_SOFTMAX, (x,), out, {"dim": dim})  # (as given, as its rule hands it on, like softmax)


# ----- The flash kernel: one node, grads from its own backward kernel -----

def _flash_grads(g, out, q, k, v, attn_mask, scale, is_causal, dropout_p, logsumexp):
    return _flash_backward(g, q, k, v, out, logsumexp, attn_mask, scale, is_causal)


FLASH = defop("ScaledDotProductFlashAttentionForCpuBackward0", *_shared_rules(3, _flash_grads, with_result=True),
              saves=(0, 1, 2, "result"), aten="_scaled_dot_product_flash_attention_for_cpu")
FLASH_BACKWARD = defop("NotImplemented", *[_not_implemented("_scaled_dot_product_flash_attention_for_cpu_backward")] * 6,
                       cpp_name="torch::autograd::NotImplemented")


def _scores(q, k, mask, is_causal, scale):
    """The scaled scores q kᵀ with the mask added and the causal part set to -inf (k already has q's heads)."""
    s = (q @ np.swapaxes(k, -1, -2)) * q.dtype.type(scale)
    if mask is not None:
        s = s + mask
    if is_causal:
        L, S = s.shape[-2:]
        s = np.where(np.tri(L, S, dtype=bool), s, -np.inf)
    return s


def _group(x, heads):
    """Grouped-query attention: each of k's (or v's) heads serves ``heads // x.shape[1]`` heads of q."""
    return x if x.shape[1] == heads else np.repeat(x, heads // x.shape[1], axis=1)


def _ungroup(g, heads):
    b, h = g.shape[:2]
    return g if h == heads else g.reshape(b, heads, h // heads, *g.shape[2:]).sum(2)


def _flash_forward(q, k, v, mask, is_causal, scale):
    heads = q.shape[1]
    with np.errstate(all="ignore"):
        s = _scores(q, _group(k, heads), mask, is_causal, scale)
        m = np.max(s, axis=-1, keepdims=True)
        dead = m == -np.inf  # a row masked out entirely: output 0, logsumexp 0
        m = np.where(dead, 0, m)
        e = np.exp(s - m)
        total = np.sum(e, axis=-1, keepdims=True)
        out = np.where(dead, 0, (e @ _group(v, heads)) / total)
        lse = np.where(dead, 0, m + np.log(total))[..., 0]
    o = filled_like(q, np.empty, q.dtype)  # (laid out as the query, as PyTorch's kernel allocates it)
    o[...] = out
    b, h, L = lse.shape
    lse_t = np.empty((b, L, h), q.dtype).transpose(0, 2, 1)  # (PyTorch keeps it laid out (batch, L, heads))
    lse_t[...] = lse
    return o, lse_t


def _flash_backward(grad_out, query, key, value, out, logsumexp, attn_mask, scale, is_causal):
    """``(grad_query, grad_key, grad_value)``: one NotImplemented node when a graph is built, as in PyTorch."""
    g, q, k, v, o = (t._data for t in (grad_out, query, key, value, out))
    heads = q.shape[1]
    sc = _scale(q, scale)
    mask = None if attn_mask is None else attn_mask._data
    kg = _group(k, heads)
    with np.errstate(all="ignore"):
        p = np.exp(_scores(q, kg, mask, is_causal, sc) - logsumexp._data[..., None])
        dv = _ungroup(np.swapaxes(p, -1, -2) @ g, k.shape[1])
        dp = g @ np.swapaxes(_group(v, heads), -1, -2)
        ds = p * (dp - np.sum(g * o, axis=-1, keepdims=True))
        dq = (ds @ kg) * q.dtype.type(sc)
        dk = _ungroup(np.swapaxes(ds, -1, -2) @ q, k.shape[1]) * q.dtype.type(sc)
    grads = tuple(x.astype(q.dtype, copy=False) for x in (dq, dk, dv))
    inputs = (grad_out, query, key, value, out, logsumexp)
    outs = record(FLASH_BACKWARD, inputs, grads, {}, n_outputs=3)
    _grad_edges_only(outs[0])
    return outs


def _scale(q, scale):
    return 1 / math.sqrt(q.shape[-1]) if scale is None else scale


def _flash(query, key, value, attn_mask, is_causal, scale):
    mask = None if attn_mask is None else attn_mask._data
    if mask is not None:
        scores = query.shape[:3] + key.shape[2:3]
        try:
            np.broadcast_shapes(scores, mask.shape)
        except ValueError:
            raise _broadcast_error(scores, mask.shape) from None
    out, lse = _flash_forward(query._data, key._data, value._data, mask, is_causal, _scale(query._data, scale))
    attrs = {"attn_mask": attn_mask, "scale": scale, "is_causal": is_causal, "dropout_p": 0.0, "logsumexp": _wrap(lse)}
    return _record_shared(FLASH, (query, key, value), out, attrs)


# ----- Choosing the kernel, as sdp_utils_cpp does -----

_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp.{}"


def _why_not_flash(q, k, v, attn_mask, dropout_p, enable_gqa):
    """None when PyTorch's fused CPU kernel takes these inputs, else why not: PyTorch's message ("" for
    a reason it gives none), which it shows only when the kernel was asked for alone."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout." + _TRIGGERED.format("h:241.)")
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        return (f"All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: {q.dim()}, "
                f"Key dim: {k.dim()}, Value dim: {v.dim()} instead." + _TRIGGERED.format("h:327.)"))
    qs, ks, vs = (list(t.shape) for t in (q, k, v))
    if not qs[0] == ks[0] == vs[0]:
        return (f"For dense inputs, both fused kernels require query, key and value to have the same batch_size. "
                f"Query.sizes(): {qs}, Key.sizes(): {ks}, Value.sizes(): {vs} instead. To broadcast dense inputs, try "
                "using unsqueeze and expand_to before passing them into the kernel." + _TRIGGERED.format("h:417.)"))
    if enable_gqa and ks[1] != vs[1]:
        return (f"Both fused kernels require key and value to have the same num_heads and batch_size but got: Key "
                f"sizes: {ks}, Value sizes: {vs}, Query sizes: {qs} instead." + _TRIGGERED.format("h:365.)"))
    if not qs[1] == ks[1] == vs[1] and not (enable_gqa and qs[1] % ks[1] == 0):
        return (f"For dense input, both fused kernels require query, key and value to have the same num_heads. "
                f"Query.sizes(): {qs}, Key sizes(): {ks}, Value sizes(): {vs} instead. To broadcast dense inputs, try "
                "using unsqueeze and expand_to before passing them into the kernel." + _TRIGGERED.format("h:437.)"))
    if attn_mask is not None and attn_mask.dim() not in (2, 4):
        return ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); 4d - ({Batch, 1} "
                "x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})" + _TRIGGERED.format("h:314.)"))
    if not qs[-1] == ks[-1] == vs[-1]:
        return (f"Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): {qs[-1]}, "
                f"Key.size(-1): {ks[-1]}, Value.size(-1): {vs[-1]} instead." + _TRIGGERED.format("cpp:21.)"))
    if ks[2] != vs[2] or 0 in (qs[2], ks[2]):
        return ""  # (PyTorch's kernel reads past a shorter value; here the math path raises instead)
    strides = [t.stride(-1) if t.numel() > 1 else 1 for t in (q, k, v)]
    if strides != [1, 1, 1]:
        return (f"All fused kernels require the last dimension of the input to have stride 1. Got Query.stride(-1): "
                f"{strides[0]}, Key.stride(-1): {strides[1]}, Value.stride(-1): {strides[2]}"
                + _TRIGGERED.format("h:546.)"))
    if attn_mask is not None and attn_mask.requires_grad:
        return ""
    if q._data.dtype.kind != "f":
        names = [_TYPE_NAMES[t._data.dtype.name] for t in (q, k, v)]
        return (f"Expected query, key and value to all be of dtype: {{Float, Double, BFloat16, Half}}. Got Query dtype: "
                f"{names[0]}, Key dtype: {names[1]}, and Value dtype: {names[2]} instead." + _TRIGGERED.format("h:91.)"))
    return None


def _use_flash(q, k, v, attn_mask, dropout_p, enable_gqa):
    """Whether the fused kernel runs: it is allowed and takes these inputs. Asked for alone (sdpa_kernel), a kernel
    that cannot run warns why and raises, as PyTorch's does."""
    if not _ALLOWED["flash"]:
        if not _ALLOWED["math"]:
            raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                               "turning off both the math kernel and the fused kernels.")
        return False
    why = _why_not_flash(q, k, v, attn_mask, dropout_p, enable_gqa)
    if why is not None and not _ALLOWED["math"]:
        import warnings

        warnings.warn("Flash attention kernel not used because:" + _TRIGGERED.format("cpp:99.)"), UserWarning,
                      stacklevel=3)
        if why:
            warnings.warn(why, UserWarning, stacklevel=3)
        raise RuntimeError("No available kernel.  Aborting execution.")
    return why is None


def _validate(q, k, v, attn_mask, enable_gqa):
    for name, t, pos in (("query", q, 1), ("key", k, 2), ("value", v, 3)):
        need_tensor("scaled_dot_product_attention", name, pos, t)
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise tensor_expected("scaled_dot_product_attention", "attn_mask", None, attn_mask)
    if not q.dtype == k.dtype == v.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_TYPE_NAMES[q._data.dtype.name]} key.dtype: {_TYPE_NAMES[k._data.dtype.name]} and "
                           f"value.dtype: {_TYPE_NAMES[v._data.dtype.name]} instead.")
    if attn_mask is not None and attn_mask.dtype != q.dtype and attn_mask._data.dtype.kind != "b":
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_TYPE_NAMES[attn_mask._data.dtype.name]} and  query.dtype: "
                           f"{_TYPE_NAMES[q._data.dtype.name]} instead.")
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{q.dim()} key.dim: {k.dim()} and value.dim: {v.dim()} instead.")
    if enable_gqa and min(q.dim(), k.dim(), v.dim()) >= 3 and (q.shape[-3] % k.shape[-3] or q.shape[-3] % v.shape[-3]):
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")


def _float_mask(mask, dtype):
    """A boolean mask as PyTorch's convert_boolean_attn_mask makes it: 0 where attended, -inf elsewhere."""
    if mask is None or mask._data.dtype.kind != "b":
        return mask
    return _wrap(np.where(mask._data, 0, -np.inf).astype(dtype))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    r"""``softmax(query @ keyᵀ * scale + mask) @ value``, with ``scale = 1 / sqrt(E)`` by default.

    4-D inputs without dropout take PyTorch's fused CPU kernel: one node. Others take the math path:

    >>> q = torch.ones(1, 2, 4, requires_grad=True)
    >>> F.scaled_dot_product_attention(q, q, q)
    tensor([[[1., 1., 1., 1.],
             [1., 1., 1., 1.]]], grad_fn=<UnsafeViewBackward0>)
    """
    _validate(query, key, value, attn_mask, enable_gqa)
    flash = _use_flash(query, key, value, attn_mask, dropout_p, enable_gqa)
    mask = _float_mask(attn_mask, query._data.dtype)
    if flash:
        if dropout_p != 0.0:
            raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0")
        return _flash(query, key, value, mask, is_causal, scale)
    return _math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa)


def _math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    """PyTorch's _scaled_dot_product_attention_math, step by step: each shows in the graph."""
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    negative = scale is not None and scale < 0
    sf = math.sqrt(abs(scale) if scale is not None else 1 / math.sqrt(query.shape[-1]))
    if enable_gqa and query.dim() >= 3:
        heads = query.shape[-3]
        if key.shape[-3] != heads:
            key = key.repeat_interleave(heads // key.shape[-3], -3)
        if value.shape[-3] != heads:
            value = value.repeat_interleave(heads // value.shape[-3], -3)
    q = _mul_scalar(query, 0.0 - sf if negative else sf)
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        L, S = query.shape[-2], key.shape[-2]
        mask = _float_mask(tril(_wrap(np.ones((L, S), bool))), query._data.dtype)
    attn = matmul(q, _mul_scalar(key.transpose(-2, -1), sf))
    if mask is not None:
        attn.add_(mask)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        from .nn.functional import _dropout

        attn = _dropout(attn, dropout_p, True, False)
    return matmul(attn, value)


register_saved({
    "SafeSoftmaxBackward0": {"dim": _saved_dim(), "result": _RESULT},
    "ScaledDotProductFlashAttentionForCpuBackward0": {
        "attn_mask": _saved_tensor_attr("attn_mask"), "dropout_p": _saved_attr("dropout_p"),
        "is_causal": _saved_attr("is_causal"), "key": _saved_slot(1),
        "logsumexp": _saved_tensor_attr("logsumexp", output=True), "output": _RESULT, "query": _saved_slot(0), "scale": _saved_attr("scale"), "value": _saved_slot(2)},
})


# ----- F.multi_head_attention_forward: PyTorch's composite, op for op, so the graph shows the same nodes -----

def _torch():
    import importlib

    return importlib.import_module(__package__)  # the engine, bound the way PyTorch's code binds torch


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) input, False for unbatched (2-D); PyTorch's AssertionErrors otherwise."""
    nd = query.dim()
    if nd not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {nd}-D query tensor")
    kind = "batched (3-D)" if nd == 3 else "unbatched (2-D)"
    if key.dim() != nd or value.dim() != nd:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {nd}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != nd - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {nd - 1}-D but found "
                             f"{key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        if nd == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return nd == 3


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A float mask as is; a boolean one as 0 where attended and -inf elsewhere, in ``target_type``."""
    if mask is None:
        return None
    torch = _torch()
    is_float = torch.is_floating_point(mask)
    if mask.dtype != torch.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        import warnings

        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        mask = torch.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _packed_projection(x, w, b, parts, E):
    """``linear(x, w, b)`` split into ``parts`` projections of size E, laid out (parts, ..., E) as PyTorch
    reshapes it (for memory order, not E-major)."""
    from .nn.functional import linear

    proj = linear(x, w, b).unflatten(-1, (parts, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return tuple(proj[i] for i in range(parts))


def _in_projection_packed(q, k, v, w, b=None):
    from .nn.functional import linear

    E = q.size(-1)
    if k is v:
        if q is k:  # self-attention: one product for q, k and v
            return _packed_projection(q, w, b, 3, E)
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        return (linear(q, w_q, b_q),) + _packed_projection(k, w_kv, b_kv, 2, E)
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    from .nn.functional import linear

    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, t, shape in (("query weights", w_q, (Eq, Eq)), ("key weights", w_k, (Eq, Ek)),
                           ("value weights", w_v, (Eq, Ev)), ("query bias", b_q, (Eq,)), ("key bias", b_k, (Eq,)),
                           ("value bias", b_v, (Eq,))):
        if t is not None and t.shape != shape:
            raise AssertionError(f"expecting {name} shape of {shape}, but got {t.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention as ``nn.MultiheadAttention`` computes it, (L, N, E) layout: returns
    ``(attn_output, attn_weights)``, the weights averaged over heads unless ``average_attn_weights=False``,
    and None unless ``need_weights``."""
    torch = _torch()
    from .nn.functional import dropout, linear, pad, softmax

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # as a batch of one, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # SDPA's own causal mask serves
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads into the batch dim, batch first
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "k", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "v", bsz * num_heads, head_dim)

    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = torch.cat([k, torch.zeros(zeros, dtype=k.dtype)], dim=1)
        v = torch.cat([v, torch.zeros(zeros, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = torch.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = torch.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _heads(x, static, name, batch_heads, head_dim):
    """k or v with the heads moved into the batch dim, or the ``static_k``/``static_v`` given instead."""
    if static is None:
        return x.view(x.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting static_{name}.size(0) of {batch_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static
