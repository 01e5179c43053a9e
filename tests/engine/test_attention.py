"""Attention against real PyTorch 2.13: ``F.scaled_dot_product_attention`` (the fused CPU kernel's single
node for 4-D inputs, the math path's ``SafeSoftmaxBackward0`` graph otherwise), ``nn.MultiheadAttention``
and the ``nn.Transformer`` family. Values and grads (float32 within rounding), the whole backward graph,
output strides, ``_saved_*``, seeded parameters and dropout masks, warnings and error messages."""
import numpy as np
import pytest

from tests.engine.opinfo import outcome
from tests.engine.test_nn_modules import close

pytestmark = pytest.mark.torch


def graph(t):
    """Every node behind ``t``, depth first, as indented names: the whole graph, shared nodes once."""
    seen, lines = set(), []
    stack = [(t.grad_fn, 0)]
    while stack:
        fn, depth = stack.pop()
        if fn is None:
            lines.append("  " * depth + "None")
            continue
        lines.append("  " * depth + fn.name() + (" (again)" if id(fn) in seen else ""))
        if id(fn) not in seen:
            seen.add(id(fn))
            stack.extend((c, depth + 1) for c, _ in reversed(fn.next_functions))
    return "\n".join(lines)


def leaves(T, *shapes, seed=0, dtype=None):
    rng = np.random.default_rng(seed)
    return [T.tensor(rng.standard_normal(s), dtype=dtype or T.float32, requires_grad=True) for s in shapes]


QKV3 = [(2, 3, 4), (2, 5, 4), (2, 5, 4)]
QKV4 = [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]
MASK = [[True, True, False, False, True], [False] * 5, [True] * 5]  # (the middle row masked out entirely)


def _sdpa(shapes, mask=None, float_mask=False, **kw):
    def fn(T):
        ts = leaves(T, *shapes)
        if mask is not None:
            m = T.tensor(mask)
            kw["attn_mask"] = m.float().log() if float_mask else m
        out = T.nn.functional.scaled_dot_product_attention(*ts, **kw)
        w = T.tensor(np.random.default_rng(9).standard_normal(tuple(out.shape)), dtype=out.dtype)
        (out * w).sum().backward()
        return out, [t.grad for t in ts], graph(out), out.stride()
    return fn


SDPA_CASES = {
    "math_3d": _sdpa(QKV3),
    "flash_4d": _sdpa(QKV4),
    "math_2d": _sdpa([(3, 4), (5, 4), (5, 4)]),
    "math_5d": _sdpa([(2, 2, 2, 3, 4), (2, 2, 2, 5, 4), (2, 2, 2, 5, 4)]),
    "math_causal": _sdpa(QKV3, is_causal=True),
    "flash_causal": _sdpa(QKV4, is_causal=True),
    "flash_causal_longer_query": _sdpa([(2, 2, 6, 4), (2, 2, 5, 4), (2, 2, 5, 4)], is_causal=True),
    "math_bool_mask": _sdpa(QKV3, MASK),
    "flash_bool_mask": _sdpa(QKV4, MASK),
    "flash_float_mask": _sdpa(QKV4, MASK, float_mask=True),
    "flash_scale": _sdpa(QKV4, scale=0.3),
    "math_negative_scale": _sdpa(QKV3, scale=-0.3),
    "flash_gqa": _sdpa([(2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)], enable_gqa=True),
    "math_gqa": _sdpa([(4, 3, 4), (2, 5, 4), (2, 5, 4)], enable_gqa=True),
    "math_gqa_same_heads": _sdpa(QKV3, enable_gqa=True),
    "math_value_dim_differs": _sdpa([(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)]),
    "math_broadcast_batch": _sdpa([(2, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)]),
    "math_dropout": lambda T: (T.manual_seed(3), _sdpa(QKV4, dropout_p=0.4)(T))[1],
    "math_dropout_all": _sdpa(QKV3, dropout_p=1.0),
}


@pytest.mark.parametrize("name", sorted(SDPA_CASES))
def test_sdpa_values_grads_graph(torch_ref, et, name):
    close(torch_ref, et, SDPA_CASES[name], rtol=2e-5, atol=2e-6)


def test_sdpa_graphs_are_pytorch_s(torch_ref, et):
    """The two kinds of graph, spelled out: one fused node, or the math path's steps."""
    q, k, v = leaves(et, *QKV4)
    assert graph(et.nn.functional.scaled_dot_product_attention(q, k, v)) == (
        "ScaledDotProductFlashAttentionForCpuBackward0\n" + "\n".join(["  torch::autograd::AccumulateGrad"] * 3))
    q, k, v = leaves(et, *QKV3)
    out = et.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=et.tensor(MASK))
    assert graph(out).splitlines()[:6] == ["UnsafeViewBackward0", "  BmmBackward0", "    ViewBackward0",
                                           "      ExpandBackward0", "        SafeSoftmaxBackward0",
                                           "          AddBackward0"]


def test_flash_saved_attributes(torch_ref, et):
    def fn(T):
        q, k, v = leaves(T, *QKV4)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=T.tensor(MASK), scale=0.7)
        node = out.grad_fn
        saved = (node._saved_query, node._saved_key, node._saved_value, node._saved_output, node._saved_logsumexp,
                 node._saved_logsumexp.stride(), node._saved_attn_mask, node._saved_scale, node._saved_is_causal,
                 node._saved_dropout_p, node._saved_output is out, node._saved_query is q)
        out.sum().backward()
        try:
            node._saved_query
        except RuntimeError as e:
            return saved, str(e)
    close(torch_ref, et, fn)


def test_flash_logsumexp_of_a_row_masked_out_is_zero(torch_ref, et):
    def fn(T):
        q, k, v = leaves(T, *QKV4)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=T.tensor(MASK))
        lse = out.grad_fn._saved_logsumexp
        out.sum().backward()
        return out[:, :, 1], q.grad[:, :, 1], lse
    close(torch_ref, et, fn)
    q, k, v = leaves(et, *QKV4)
    out = et.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=et.tensor(MASK))
    assert out.grad_fn._saved_logsumexp[:, :, 1].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert out[:, :, 1].abs().sum().item() == 0.0


def test_safe_softmax_node(torch_ref, et):
    def fn(T):
        q, k, v = leaves(T, *QKV3)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v)
        node = out.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        return node.name(), node._saved_dim, node._saved_result
    close(torch_ref, et, fn)


def test_second_order(torch_ref, et):
    """The math path differentiates twice (SoftmaxBackwardDataBackward0 and all); the fused kernel's
    backward is PyTorch's NotImplemented node, whose edges are q, k, v and the output."""
    def math_path(T):
        q, k, v = leaves(T, *QKV3)
        gq, = T.autograd.grad(T.nn.functional.scaled_dot_product_attention(q, k, v).pow(2).sum(), q,
                              create_graph=True)
        gq.sum().backward()
        return gq, k.grad, v.grad, graph(gq)

    def fused(T):
        q, k, v = leaves(T, *QKV4)
        gq, = T.autograd.grad(T.nn.functional.scaled_dot_product_attention(q, k, v).sum(), q, create_graph=True)
        edges = [c.name() for c, _ in gq.grad_fn.next_functions]
        try:
            gq.sum().backward()
        except RuntimeError as e:
            return gq.grad_fn.name(), edges, str(e)
    close(torch_ref, et, math_path, rtol=2e-5, atol=2e-5)
    assert close(torch_ref, et, fused) is None
    assert fused(et) == ("torch::autograd::NotImplemented",
                         ["torch::autograd::AccumulateGrad"] * 3 + ["ScaledDotProductFlashAttentionForCpuBackward0"],
                         "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented")


def test_gradcheck_float64(et):
    q, k, v = leaves(et, *QKV3, dtype=et.float64)
    sdpa = et.nn.functional.scaled_dot_product_attention
    mask = et.tensor(MASK)
    assert et.autograd.gradcheck(lambda *a: sdpa(*a, attn_mask=mask), (q, k, v))
    assert et.autograd.gradgradcheck(lambda *a: sdpa(*a, is_causal=True), (q, k, v))
    q, k, v = leaves(et, *[(1, 4, 3, 2), (1, 2, 5, 2), (1, 2, 5, 2)], dtype=et.float64)
    assert et.autograd.gradcheck(lambda *a: sdpa(*a, attn_mask=mask, enable_gqa=True), (q, k, v))


def test_forward_ad(torch_ref, et):
    def fn(T):
        fwAD = T.autograd.forward_ad
        q, k, v = (t.detach() for t in leaves(T, *QKV3))
        with fwAD.dual_level():
            out = T.nn.functional.scaled_dot_product_attention(fwAD.make_dual(q, T.ones_like(q)), k, v)
            tangent = fwAD.unpack_dual(out).tangent
            q4, k4, v4 = (t.detach() for t in leaves(T, *QKV4))
            T.nn.functional.scaled_dot_product_attention(fwAD.make_dual(q4, T.ones_like(q4)), k4, v4)
        return tangent
    outcome(fn, torch_ref)  # (PyTorch's first forward-AD call warns about torch.jit.script: not compared)
    close(torch_ref, et, fn)


@pytest.mark.parametrize("case", [
    "dtypes", "mask_dtype", "mask_double", "one_dim", "gqa_heads", "causal_and_mask", "dropout_range",
    "flash_negative_dropout", "mask_list", "query_list", "key_dim", "batch", "mask_shape", "int_inputs"])
def test_sdpa_errors(torch_ref, et, case):
    def fn(T):
        sdpa = T.nn.functional.scaled_dot_product_attention
        q3, k3, v3 = leaves(T, *QKV3)
        q4, k4, v4 = leaves(T, *QKV4)
        return {
            "dtypes": lambda: sdpa(q3, k3.double(), v3),
            "mask_dtype": lambda: sdpa(q3, k3, v3, attn_mask=T.ones(3, 5, dtype=T.long)),
            "mask_double": lambda: sdpa(q4, k4, v4, attn_mask=T.ones(3, 5, dtype=T.float64)),
            "one_dim": lambda: sdpa(q3[0, 0], k3[0, 0], v3[0, 0]),
            "gqa_heads": lambda: sdpa(leaves(T, (2, 3, 3, 4))[0], k4, v4, enable_gqa=True),
            "causal_and_mask": lambda: sdpa(q3, k3, v3, attn_mask=T.tensor(MASK), is_causal=True),
            "dropout_range": lambda: sdpa(q3, k3, v3, dropout_p=1.5),
            "flash_negative_dropout": lambda: sdpa(q4, k4, v4, dropout_p=-0.1),
            "mask_list": lambda: sdpa(q4, k4, v4, attn_mask=[[1.0]]),
            "query_list": lambda: sdpa([[1.0]], k4, v4),
            "key_dim": lambda: sdpa(q4, leaves(T, (2, 2, 5, 3))[0], v4),
            "batch": lambda: sdpa(q3, *leaves(T, (3, 5, 4), (3, 5, 4))),
            "mask_shape": lambda: sdpa(q4, k4, v4, attn_mask=T.zeros(4, 5)),
            "int_inputs": lambda: sdpa(T.ones(2, 3, 4, dtype=T.long), T.ones(2, 5, 4, dtype=T.long),
                                       T.ones(2, 5, 4, dtype=T.long)),
        }[case]()
    close(torch_ref, et, fn)


def test_sdpa_error_messages(et):
    q, k, v = leaves(et, *QKV3)
    with pytest.raises(RuntimeError, match=r"^Expected query, key, and value to have the same dtype, but got "
                                           r"query.dtype: float key.dtype: double and value.dtype: float instead.$"):
        et.nn.functional.scaled_dot_product_attention(q, k.double(), v)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        et.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=et.tensor(MASK), is_causal=True)


# ----- torch.nn.attention.sdpa_kernel -----

KERNEL_INPUTS = {
    "4d": lambda T: leaves(T, *QKV4), "3d": lambda T: leaves(T, *QKV3),
    "dropout": lambda T: leaves(T, *QKV4) + [{"dropout_p": 0.5}],
    "head_dim": lambda T: leaves(T, (2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)),
    "batch": lambda T: leaves(T, (2, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)),
    "heads": lambda T: leaves(T, (2, 2, 3, 4), (2, 1, 5, 4), (2, 1, 5, 4)),
    "gqa_key_value_heads": lambda T: leaves(T, (2, 4, 3, 4), (2, 2, 5, 4), (2, 1, 5, 4)) + [{"enable_gqa": True}],
    "stride": lambda T: leaves(T, *QKV4[:2]) + [leaves(T, (2, 2, 4, 5))[0].transpose(-1, -2)],
    "mask_requires_grad": lambda T: leaves(T, *QKV4) + [{"attn_mask": leaves(T, (3, 5))[0]}],
    "mask_3d": lambda T: leaves(T, *QKV4) + [{"attn_mask": T.zeros(2, 3, 5)}],
    "integers": lambda T: [T.ones(s, dtype=T.long) for s in QKV4],
}


@pytest.mark.parametrize("backends", ["FLASH_ATTENTION", "MATH", "EFFICIENT_ATTENTION", "MATH+FLASH_ATTENTION"])
@pytest.mark.parametrize("inputs", sorted(KERNEL_INPUTS))
def test_sdpa_kernel(torch_ref, et, backends, inputs):
    """Which kernel runs under ``sdpa_kernel``; asked for alone, the fused one warns why it cannot and raises."""
    def fn(T):
        from importlib import import_module

        attention = import_module(T.__name__ + ".nn.attention")
        chosen = [getattr(attention.SDPBackend, b) for b in backends.split("+")]
        args = KERNEL_INPUTS[inputs](T)
        kw = args.pop() if isinstance(args[-1], dict) else {}
        with attention.sdpa_kernel(chosen if len(chosen) > 1 else chosen[0]):
            out = T.nn.functional.scaled_dot_product_attention(*args, **kw)
        after = T.nn.functional.scaled_dot_product_attention(*leaves(T, *QKV4))  # (the kernels restored)
        return out.grad_fn.name(), after.grad_fn.name()
    close(torch_ref, et, fn)


def test_sdp_backend(torch_ref, et):
    def fn(T):
        from importlib import import_module

        attention = import_module(T.__name__ + ".nn.attention")
        b = attention.SDPBackend.MATH
        try:
            with attention.sdpa_kernel("math"):
                pass
        except AssertionError as e:
            error = str(e)
        return repr(b), str(b), f"{b}", int(b), list(attention.SDPBackend.__members__), error
    close(torch_ref, et, fn)


# ----- nn.MultiheadAttention -----

def _mha(mode="self", L=3, S=5, N=2, E=4, heads=2, need_weights=True, batch_first=False, key_padding=None,
         attn_mask=None, average=True, is_causal=False, unbatched=False, dropout=0.0, train=True, **kw):
    def fn(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(E, heads, dropout=dropout, batch_first=batch_first, **kw)
        m.train(train)
        rng = np.random.default_rng(1)

        def t(seq, dim):
            shape = (seq, dim) if unbatched else (N, seq, dim) if batch_first else (seq, N, dim)
            return T.tensor(rng.standard_normal(shape), dtype=T.float32, requires_grad=True)
        q = t(L, E)
        if mode == "self":
            k = v = q
        elif mode == "cross":
            k = v = t(S, kw.get("kdim") or E)
        else:
            k, v = t(S, kw.get("kdim") or E), t(S, kw.get("vdim") or E)
        masks = {}
        if key_padding is not None:
            masks["key_padding_mask"] = T.tensor(key_padding)
        if attn_mask is not None:
            masks["attn_mask"] = T.tensor(attn_mask)
        out, weights = m(q, k, v, need_weights=need_weights, average_attn_weights=average, is_causal=is_causal,
                         **masks)
        (out.sum() if weights is None else out.sum() + (weights * weights).sum()).backward()
        inputs = {id(x): x for x in (q, k, v)}.values()
        return (out, weights, graph(out), None if weights is None else graph(weights), out.stride(),
                list(m.named_parameters()), [p.grad for p in m.parameters()], [x.grad for x in inputs])
    return fn


PADDING = [[False] * 4 + [True], [False] * 5]
CAUSAL = np.triu(np.full((3, 3), -np.inf, np.float32), 1)
MHA_CASES = {
    "self": _mha(), "self_no_weights": _mha(need_weights=False),
    "batch_first": _mha(batch_first=True), "batch_first_no_weights": _mha(batch_first=True, need_weights=False),
    "cross": _mha("cross"), "cross_no_weights": _mha("cross", need_weights=False),
    "separate": _mha("separate"), "kdim_vdim": _mha("separate", kdim=3, vdim=6),
    "kdim_vdim_no_weights": _mha("separate", kdim=3, vdim=6, need_weights=False),
    "key_padding": _mha("cross", key_padding=PADDING),
    "key_padding_no_weights": _mha("cross", key_padding=PADDING, need_weights=False),
    "bool_mask": _mha("cross", attn_mask=[[False, False, True, True, False]] * 3),
    "float_mask_no_weights": _mha("cross", attn_mask=np.linspace(-1, 0, 15, dtype=np.float32).reshape(3, 5),
                                  need_weights=False),
    "mask_and_padding": _mha("cross", key_padding=PADDING, attn_mask=[[False, False, True, True, False]] * 3),
    "causal_no_weights": _mha(S=3, attn_mask=CAUSAL, is_causal=True, need_weights=False),
    "causal_weights": _mha(S=3, attn_mask=CAUSAL, is_causal=True),
    "per_head_weights": _mha(average=False), "unbatched": _mha(unbatched=True),
    "unbatched_no_weights": _mha(unbatched=True, need_weights=False),
    "bias_kv": _mha(add_bias_kv=True), "zero_attn": _mha(add_zero_attn=True),
    "zero_attn_padding": _mha("cross", add_zero_attn=True, key_padding=PADDING), "no_bias": _mha(bias=False),
    "dropout": _mha(dropout=0.3), "dropout_no_weights": _mha(dropout=0.3, need_weights=False),
    "eval": _mha(dropout=0.3, train=False),
}


@pytest.mark.parametrize("name", sorted(MHA_CASES))
def test_multihead_attention(torch_ref, et, name):
    close(torch_ref, et, MHA_CASES[name], rtol=2e-5, atol=2e-6)


def test_multihead_attention_module(torch_ref, et):
    def fn(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(6, 3, kdim=2, vdim=5, add_bias_kv=True)
        return repr(m), list(m.state_dict()), [repr(p.shape) for p in m.parameters()], m.head_dim, m.batch_first
    close(torch_ref, et, fn)


@pytest.mark.parametrize("case", ["heads", "zero", "kpm_dtype", "kpm_shape", "mask_shape", "mask_rank",
                                  "causal_without_mask", "query_rank", "key_rank", "mismatched_masks"])
def test_multihead_attention_errors(torch_ref, et, case):
    def fn(T):
        T.manual_seed(0)
        x = leaves(T, (3, 2, 4))[0]
        m = T.nn.MultiheadAttention(4, 2)
        return {
            "heads": lambda: T.nn.MultiheadAttention(5, 2),
            "zero": lambda: T.nn.MultiheadAttention(0, 2),
            "kpm_dtype": lambda: m(x, x, x, key_padding_mask=T.zeros(2, 3, dtype=T.long)),
            "kpm_shape": lambda: m(x, x, x, key_padding_mask=T.zeros(2, 4, dtype=T.bool)),
            "mask_shape": lambda: m(x, x, x, attn_mask=T.zeros(2, 3)),
            "mask_rank": lambda: m(x, x, x, attn_mask=T.zeros(1, 1, 3, 3)),
            "causal_without_mask": lambda: m(x, x, x, is_causal=True),
            "query_rank": lambda: m(x[None], x, x),
            "key_rank": lambda: m(x, x[0], x[0]),
            "mismatched_masks": lambda: m(x, x, x, key_padding_mask=T.zeros(2, 3, dtype=T.bool),
                                          attn_mask=T.zeros(3, 3))[0].sum(),
        }[case]()
    close(torch_ref, et, fn)


# ----- The Transformer family -----

def _transformer(kind, batch_first=False, norm_first=False, train=True, grad=True, padding=None, mask=None,
                 causal=None, activation="relu", dropout=0.1):
    def fn(T):
        T.manual_seed(0)
        if kind == "encoder":
            layer = T.nn.TransformerEncoderLayer(8, 2, 16, dropout=dropout, batch_first=batch_first,
                                                 norm_first=norm_first, activation=activation)
            m = T.nn.TransformerEncoder(layer, 2, norm=T.nn.LayerNorm(8))
        elif kind == "decoder":
            layer = T.nn.TransformerDecoderLayer(8, 2, 16, dropout=dropout, batch_first=batch_first,
                                                 norm_first=norm_first, activation=activation)
            m = T.nn.TransformerDecoder(layer, 2)
        else:
            m = T.nn.Transformer(8, 2, 1, 1, 16, dropout=dropout, batch_first=batch_first, norm_first=norm_first)
        m.train(train)
        rng = np.random.default_rng(1)

        def t(seq):
            return T.tensor(rng.standard_normal((2, seq, 8) if batch_first else (seq, 2, 8)), dtype=T.float32,
                            requires_grad=grad)
        src, tgt = t(5), t(4)
        kw = {}
        if padding is not None:
            kw["src_key_padding_mask" if kind != "decoder" else "tgt_key_padding_mask"] = T.tensor(padding)
        if mask is not None:
            kw["mask" if kind == "encoder" else "tgt_mask"] = T.nn.Transformer.generate_square_subsequent_mask(mask)
        if causal is not None:
            kw["is_causal" if kind == "encoder" else "tgt_is_causal"] = causal
        with T.set_grad_enabled(grad):
            out = m(src, **kw) if kind == "encoder" else m(tgt, src, **kw) if kind == "decoder" else m(src, tgt, **kw)
        if not grad:
            return out, [p.detach() for p in m.parameters()]
        out.pow(2).sum().backward()
        return out, graph(out), out.stride(), list(m.named_parameters()), [p.grad for p in m.parameters()], src.grad
    return fn


PAD = [[False] * 3 + [True] * 2, [False] * 5]
TRANSFORMER_CASES = {
    "encoder": _transformer("encoder"), "encoder_batch_first": _transformer("encoder", batch_first=True),
    "encoder_norm_first": _transformer("encoder", norm_first=True),
    "encoder_gelu": _transformer("encoder", activation="gelu"),
    "encoder_padding": _transformer("encoder", padding=PAD), "encoder_mask": _transformer("encoder", mask=5),
    "encoder_mask_causal": _transformer("encoder", mask=5, causal=True),
    "encoder_eval": _transformer("encoder", train=False),
    "encoder_inference_padding_batch_first": _transformer("encoder", train=False, grad=False, batch_first=True,
                                                          padding=PAD),
    "encoder_inference_padding": _transformer("encoder", train=False, grad=False, padding=PAD),
    "decoder": _transformer("decoder"), "decoder_mask": _transformer("decoder", mask=4),
    "decoder_batch_first_norm_first": _transformer("decoder", batch_first=True, norm_first=True),
    "transformer": _transformer("transformer"), "transformer_batch_first": _transformer("transformer", batch_first=True),
    "transformer_mask": _transformer("transformer", mask=4),
    "transformer_inference": _transformer("transformer", train=False, grad=False),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMER_CASES))
def test_transformer(torch_ref, et, name):
    close(torch_ref, et, TRANSFORMER_CASES[name], rtol=5e-5, atol=2e-5)


def test_inference_with_padding_zeroes_padded_positions(torch_ref, et):
    """PyTorch runs this case on nested tensors: padded positions come out 0 before the final norm.
    (Run with both: the warning it gives is once per process in each.)"""
    def fn(T):
        T.manual_seed(0)
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        encoder = T.nn.TransformerEncoder(layer, 1).eval()
        with T.no_grad():
            return encoder(T.randn(2, 5, 8), src_key_padding_mask=T.tensor(PAD))
    outcome(fn, torch_ref)
    out = outcome(fn, et)[0][1][2]
    assert np.abs(out[0][3:]).sum() == 0.0
    assert np.abs(out[0][:3]).sum() > 0.0 and np.abs(out[1]).min() > 0.0


def test_transformer_modules(torch_ref, et):
    def fn(T):
        T.manual_seed(0)
        m = T.nn.Transformer(8, 2, 1, 1, 16)
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return (repr(m), list(m.state_dict()), T.nn.Transformer.generate_square_subsequent_mask(3),
                repr(layer), T.nn.TransformerEncoder(layer, 2).use_nested_tensor)
    close(torch_ref, et, fn)


@pytest.mark.parametrize("case", ["batch", "features", "activation"])
def test_transformer_errors(torch_ref, et, case):
    def fn(T):
        T.manual_seed(0)
        m = T.nn.Transformer(8, 2, 1, 1, 16)
        return {
            "batch": lambda: m(T.zeros(5, 2, 8), T.zeros(4, 3, 8)),
            "features": lambda: m(T.zeros(5, 2, 8), T.zeros(4, 2, 6)),
            "activation": lambda: T.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
        }[case]()
    close(torch_ref, et, fn)


def test_training_a_small_transformer(torch_ref, et):
    """A next-token model trained a few Adam steps from one seed: the same losses and parameters."""
    def fn(T):
        T.manual_seed(0)
        emb = T.nn.Embedding(7, 8)
        enc = T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True), 2)
        head = T.nn.Linear(8, 7)
        params = [*emb.parameters(), *enc.parameters(), *head.parameters()]
        opt = T.optim.Adam(params, lr=1e-2)
        tokens = T.tensor([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]])
        mask = T.nn.Transformer.generate_square_subsequent_mask(5)
        losses = []
        for _ in range(4):
            logits = head(enc(emb(tokens[:, :-1]), mask=mask, is_causal=True))
            loss = T.nn.functional.cross_entropy(logits.reshape(-1, 7), tokens[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return T.tensor(losses), params[-1]
    close(torch_ref, et, fn, rtol=1e-4, atol=1e-5)
