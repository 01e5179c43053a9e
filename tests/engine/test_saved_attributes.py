"""``grad_fn._saved_*``, as PyTorch's autograd tutorials read them (``y.grad_fn._saved_result``):
the same names, the very input tensors, numbers as 0-dim tensors, sizes as tuples, None for what
was not needed, and PyTorch's errors once backward freed them or an in-place op changed them."""
import math
import warnings

import numpy as np
import pytest

import engine
from tests.engine import opinfo

CASES = {
    "add": lambda T, x, y: x + y,
    "add_alpha": lambda T, x, y: T.add(x, y, alpha=2),
    "sub": lambda T, x, y: x - y,
    "mul": lambda T, x, y: x * y,
    "mul_float": lambda T, x, y: x * 2.0,
    "mul_int": lambda T, x, y: x * 2,
    "mul_constant_tensor": lambda T, x, y: x * y.detach(),
    "div": lambda T, x, y: x / y,
    "pow": lambda T, x, y: x ** 2,
    "pow_tensor": lambda T, x, y: x ** y,
    "exp": lambda T, x, y: x.exp(),
    "log": lambda T, x, y: x.log(),
    "sin": lambda T, x, y: x.sin(),
    "cos": lambda T, x, y: x.cos(),
    "abs": lambda T, x, y: x.abs(),
    "tanh": lambda T, x, y: x.tanh(),
    "sigmoid": lambda T, x, y: x.sigmoid(),
    "relu": lambda T, x, y: x.relu(),
    "sqrt": lambda T, x, y: x.sqrt(),
    "sum": lambda T, x, y: x.sum(),
    "sum_dim": lambda T, x, y: x.sum(1),
    "sum_dims_keepdim": lambda T, x, y: x.sum((0, 1), keepdim=True),
    "mean": lambda T, x, y: x.mean(),
    "mean_dim": lambda T, x, y: x.mean(1),
    "view": lambda T, x, y: x.view(6),
    "reshape": lambda T, x, y: x.reshape(3, 2),
    "expand": lambda T, x, y: x[:1].expand(2, 3),
    "softmax": lambda T, x, y: x.softmax(1),
    "log_softmax": lambda T, x, y: x.log_softmax(1),
    "mm": lambda T, x, y: x @ y.t(),  # y.t() is column-major: its strides are (1, 3)
    "mm_constant_lhs": lambda T, x, y: x.detach() @ y.t(),
    "mm_constant_rhs": lambda T, x, y: x @ y.t().detach(),
    "max": lambda T, x, y: x.max(),
    "min": lambda T, x, y: x.min(),
    "prod": lambda T, x, y: x.prod(),
    "maximum": lambda T, x, y: T.maximum(x, y),
    "minimum": lambda T, x, y: T.minimum(x, y),
    "dot": lambda T, x, y: T.dot(x[0], y[1]),
    "mv": lambda T, x, y: T.mv(x, y[0]),
    "where": lambda T, x, y: T.where(x > 2, x, y),
    "masked_fill": lambda T, x, y: x.masked_fill(x > 2, 0.0),
    "clamp": lambda T, x, y: x.clamp(1, 4),
    "clamp_min": lambda T, x, y: x.clamp(min=2.5),
    "leaky_relu": lambda T, x, y: T.nn.functional.leaky_relu(x, 0.2),
    "elu": lambda T, x, y: T.nn.functional.elu(x),
    "softplus": lambda T, x, y: T.nn.functional.softplus(x, beta=2, threshold=10),
    "mse_loss": lambda T, x, y: T.nn.functional.mse_loss(x, y),
    "mse_loss_sum": lambda T, x, y: T.nn.functional.mse_loss(x, y.detach(), reduction="sum"),
    "bce": lambda T, x, y: T.nn.functional.binary_cross_entropy(x.sigmoid(), (y / 4).detach(), reduction="none"),
    "bce_weight": lambda T, x, y: T.nn.functional.binary_cross_entropy(x.sigmoid(), y / 4, weight=T.ones(3)),
    "bce_logits": lambda T, x, y: T.nn.functional.binary_cross_entropy_with_logits(x, (y / 4).detach()),
    "bce_logits_pos_weight": lambda T, x, y: T.nn.functional.binary_cross_entropy_with_logits(
        x, y / 4, pos_weight=T.tensor([1.0, 2.0, 3.0])),
    "bce_logits_weight": lambda T, x, y: T.nn.functional.binary_cross_entropy_with_logits(
        x, (y / 4).detach(), weight=T.tensor([1.0, 0.5, 2.0])),
    "cross_entropy": lambda T, x, y: T.nn.functional.cross_entropy(x, T.tensor([0, 2])),
    "nll_loss_ignore": lambda T, x, y: T.nn.functional.nll_loss(x.log_softmax(1), T.tensor([1, 2]), ignore_index=2,
                                                                reduction="sum"),
    "nll_loss_weight": lambda T, x, y: T.nn.functional.nll_loss(x, T.tensor([1, 0]), weight=T.tensor([1.0, 2.0, 3.0])),
    # Dims read as the user gave them, a negative one as PyTorch shows an int64: unsigned
    "sum_dim_negative": lambda T, x, y: x.sum(-1),
    "sum_dims_unsorted": lambda T, x, y: x.sum((1, 0)),
    "sum_dim_list": lambda T, x, y: x.sum([1]),
    "mean_dims_negative_keepdim": lambda T, x, y: x.mean((-1, 0), True),
    "prod_dim": lambda T, x, y: x.prod(-1),
    "prod_dim_keepdim": lambda T, x, y: x.prod(1, keepdim=True),
    "amax": lambda T, x, y: x.amax(-1),
    "amin_all": lambda T, x, y: x.amin(),
    "max_dim": lambda T, x, y: x.max(1)[0],
    "max_dim_negative": lambda T, x, y: x.max(dim=-2).values,
    "min_dim_keepdim": lambda T, x, y: x.min(-1, keepdim=True)[0],
    "var": lambda T, x, y: x.var(),
    "var_dim_negative": lambda T, x, y: x.var(-1),
    "var_not_unbiased": lambda T, x, y: x.var(unbiased=False),
    "var_bool_positional": lambda T, x, y: x.var(False),
    "var_correction": lambda T, x, y: x.var(0, correction=0),
    "var_dims": lambda T, x, y: x.var((0, -1), keepdim=True),
    "std_dim": lambda T, x, y: x.std(1),
    "std_correction": lambda T, x, y: x.std(correction=2),
    "std_dim_not_unbiased": lambda T, x, y: x.std(1, unbiased=False),
    "logsumexp_negative": lambda T, x, y: x.logsumexp(-1),
    "logsumexp_dims_keepdim": lambda T, x, y: x.logsumexp((0, 1), keepdim=True),
    "norm": lambda T, x, y: x.norm(),
    "norm_dim_negative": lambda T, x, y: x.norm(dim=-1),
    "norm_p1": lambda T, x, y: x.norm(p=1),
    "norm_p3_dim_keepdim": lambda T, x, y: x.norm(3, 1, True),
    "norm_inf_dim": lambda T, x, y: x.norm(p=float("inf"), dim=0),
    "cumsum_negative": lambda T, x, y: x.cumsum(-1),
    "softmax_negative": lambda T, x, y: x.softmax(-1),
    "log_softmax_negative": lambda T, x, y: T.log_softmax(x, -1),
    "transpose_negative": lambda T, x, y: x.transpose(-1, -2),
    "transpose": lambda T, x, y: x.transpose(1, 0),
    "t": lambda T, x, y: x.t(),
    "T": lambda T, x, y: x.T,
    "mT": lambda T, x, y: x.mT,
    "permute_negative": lambda T, x, y: x.permute(-1, 0),
    "permute_list": lambda T, x, y: x.permute([1, -2]),
    "squeeze": lambda T, x, y: x.unsqueeze(0).squeeze(),
    "squeeze_dim_negative": lambda T, x, y: x.unsqueeze(0).squeeze(-3),
    "squeeze_dims": lambda T, x, y: x.unsqueeze(0).squeeze((0, 1)),
    "unsqueeze": lambda T, x, y: x.unsqueeze(0),
    "unsqueeze_negative": lambda T, x, y: x.unsqueeze(-3),
    "select_row": lambda T, x, y: x[1],
    "select_negative": lambda T, x, y: x[-1],
    "select_column_negative": lambda T, x, y: x[:, -2],
    "select_method_negative": lambda T, x, y: x.select(-1, -1),
    "slice_rows": lambda T, x, y: x[1:],
    "slice_negative_start": lambda T, x, y: x[:, -2:],
    "slice_negative_end": lambda T, x, y: x[:, :-1],
    "slice_step": lambda T, x, y: x[:, ::2],
    "slice_past_the_end": lambda T, x, y: x[:, 1:100],
    "slice_two_dims": lambda T, x, y: x[1:, :2],
    "narrow_negative": lambda T, x, y: x.narrow(-1, -2, 2),
    "gather": lambda T, x, y: x.gather(0, T.tensor([[1, 0, 1]])),
    "gather_negative": lambda T, x, y: x.gather(-1, T.tensor([[0], [2]])),
    "cat": lambda T, x, y: T.cat([x, y], 1),
    "cat_negative": lambda T, x, y: T.cat((x, y), -2),
    "stack_negative": lambda T, x, y: T.stack([x, y], -1),
    "unbind_negative": lambda T, x, y: x.unbind(-1)[0],
    "split_negative": lambda T, x, y: x.split(1, -1)[1],
    "split_sizes": lambda T, x, y: x.split([1, 2], 1)[0],
    "chunk": lambda T, x, y: x.chunk(2, 1)[0],
    "flip": lambda T, x, y: x.flip(0, 1),
    "flip_negative_list": lambda T, x, y: x.flip([-1, 0]),
    "repeat": lambda T, x, y: x.repeat(1, 2, 1),
    "log2": lambda T, x, y: x.log2(),
    "log10": lambda T, x, y: x.log10(),
    "log1p": lambda T, x, y: x.log1p(),
    "sinh": lambda T, x, y: x.sinh(),
    "cosh": lambda T, x, y: x.cosh(),
    "atan": lambda T, x, y: x.atan(),
    "expm1": lambda T, x, y: x.expm1(),
    "tan": lambda T, x, y: (x / 10).tan(),
    "rsqrt": lambda T, x, y: x.rsqrt(),
    "reciprocal": lambda T, x, y: x.reciprocal(),
    "silu": lambda T, x, y: T.nn.functional.silu(x),
    "rsub": lambda T, x, y: 1 - x,
    "rsub_alpha": lambda T, x, y: T.rsub(x, 2, alpha=3),
    "pow_scalar_base": lambda T, x, y: 2 ** x,
    "bmm": lambda T, x, y: T.bmm(x[None], y.t()[None]),
    "matmul_batched": lambda T, x, y: x[None].expand(2, 2, 3) @ y.t(),
    "clamp_tensors": lambda T, x, y: x.clamp(T.zeros(3), T.ones(3) * 2),
    "clamp_tensor_min": lambda T, x, y: x.clamp(min=y),
    "index_tensor": lambda T, x, y: x[T.tensor([1, 0])],
    "index_tensor_second_dim": lambda T, x, y: x[:, T.tensor([2, 0])],
    "index_two_tensors": lambda T, x, y: x[[0, 1], [1, 2]],
    "index_mask": lambda T, x, y: x[x > 2],
    "index_select_negative": lambda T, x, y: x.index_select(-1, T.tensor([0, 2])),
    "unsqueeze_inplace": lambda T, x, y: (x * 1).unsqueeze_(-1),
    "squeeze_inplace": lambda T, x, y: (x * 1).unsqueeze(0).squeeze_(),
    "squeeze_inplace_dim": lambda T, x, y: (x * 1).unsqueeze(0).squeeze_(0),
    "squeeze_inplace_dims": lambda T, x, y: (x * 1).unsqueeze(0).squeeze_((0,)),
    "t_inplace": lambda T, x, y: (x * 1).t_(),
    "transpose_inplace": lambda T, x, y: (x * 1).transpose_(0, -1),
}


def saved(T, case):
    x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = T.tensor([[0.5, 1.5, 2.5], [1.0, 2.0, 3.0]], requires_grad=True)
    fn = CASES[case](T, x, y).grad_fn

    def described(v):  # a tensor: which tensor it is, its dtype and values, and its grad_fn
        if not isinstance(v, T.Tensor):
            return v
        a = v.detach().numpy()
        return str(v.dtype), (a.round(4) if a.dtype.kind == "f" else a).tolist(), v is x, v is y, v.grad_fn is fn

    out = [type(fn).__name__]
    for name in sorted(a for a in dir(fn) if a.startswith("_saved_")):
        v = getattr(fn, name)
        out.append((name, tuple(map(described, v)) if type(v) is tuple else described(v)))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_saved_attributes_match_torch(case, torch_ref):
    assert saved(engine, case) == saved(torch_ref, case)


def test_saved_result_is_the_output_with_this_grad_fn():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    r = y.grad_fn._saved_result
    assert r is not y and r.grad_fn is y.grad_fn
    np.testing.assert_array_equal(r.detach().numpy(), y.detach().numpy())
    assert (x * y).grad_fn._saved_self is x


def test_saved_tensors_after_backward_and_after_an_inplace_change():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time \(or directly "
                                           r"access saved tensors after they have already been freed\)"):
        y.grad_fn._saved_result
    s = x.sum()
    s.backward()
    assert s.grad_fn._saved_self_sym_sizes == (2,)  # sizes are kept after backward, as in PyTorch
    a = x * 1
    z = a * a
    with engine.no_grad():
        a.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch.FloatTensor \[2\]\], "
                                           r"which is output 0 of Mul, is at version 1; expected version 0"):
        z.grad_fn._saved_self


@pytest.mark.torch
@pytest.mark.parametrize("case", ["mm", "mm_constant_lhs", "mm_constant_rhs"])
def test_mm_grads_whichever_side_is_kept(case, torch_ref):
    # A product with a constant keeps only what the other side's grad needs, yet the rule of the
    # side that needs a grad still reads its own shape and strides.
    grads = []
    for T in (engine, torch_ref):
        x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = T.tensor([[0.5, 1.5, 2.5], [1.0, 2.0, 3.0]], requires_grad=True)
        CASES[case](T, x, y).sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy().tolist() for t in (x, y)])
    assert grads[0] == grads[1]


@pytest.mark.torch
def test_gather_keeps_its_input_so_an_inplace_change_to_it_is_an_error_at_backward(torch_ref):
    messages = []
    for T in (engine, torch_ref):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        a = x * 1
        y = a.gather(1, T.tensor([[0], [1]]))
        with T.no_grad():
            a.add_(1)
        with pytest.raises(RuntimeError) as err:
            y.sum().backward()
        messages.append(str(err.value).split(" Hint:")[0])
    assert messages[0] == messages[1]
    assert "[torch.FloatTensor [2, 2]], which is output 0 of Mul, is at version 1; expected version 0" in messages[0]


@pytest.mark.torch
@pytest.mark.parametrize("inplace", ["squeeze_()", "squeeze_(0)", "t_()", "unsqueeze_(-1)", "transpose_(0, -1)"])
def test_shape_changing_inplace_on_a_view_keeps_its_node(torch_ref, inplace):
    # Not the AsStridedBackward0 a view gets when its base changed in place: the op's own node,
    # chained to the view's node, as in PyTorch; the grads flow through both.
    seen = []
    for T in (engine, torch_ref):
        x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        v = (x * 1).unsqueeze(0) if inplace.startswith("squeeze") else (x * 1)[:, 1:]
        eval(f"v.{inplace}")
        chain = [type(v.grad_fn).__name__] + [type(n).__name__ for n, _ in v.grad_fn.next_functions]
        (v * T.arange(v.numel()).view(v.shape)).sum().backward()
        seen.append((chain, v._version, x.grad.tolist()))
    assert seen[0] == seen[1]


# First derivatives built with create_graph: PyTorch's formulas use ops with a Python number
# (MulBackward1, DivBackward1), which save that number as the formula wrote it (3.0 for x ** 3's
# exponent, since pow_backward works in double; a literal 2 for sqrt's).
GRAD_GRAPHS = {
    "pow": lambda T, x: x ** 3,
    "pow_float": lambda T, x: x.pow(2.5),
    "sqrt": lambda T, x: x.sqrt(),
    "log2": lambda T, x: x.log2(),
    "log10": lambda T, x: x.log10(),
    "exp2": lambda T, x: x.exp2(),
    "erf": lambda T, x: x.erf(),
    "erfinv": lambda T, x: (x / 2).erfinv(),
    "sinc": lambda T, x: T.special.sinc(x),
    "std": lambda T, x: x.std(),
    "std_dim": lambda T, x: x.std(0),
    "rsqrt": lambda T, x: x.rsqrt(),
    "atanh": lambda T, x: (x / 2).atanh(),
}


def grad_graph_saved(T, case):
    x = T.tensor([0.5, 0.7], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(GRAD_GRAPHS[case](T, x).sum(), x, create_graph=True)
    out, stack, seen = [], [g.grad_fn], set()
    while stack:  # every node of the derivative's graph, depth first in next_functions order
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        attrs = []
        for name in sorted(a for a in dir(fn) if a.startswith("_saved_")):
            v = getattr(fn, name)
            if isinstance(v, T.Tensor):
                a = v.detach().numpy()
                v = str(v.dtype), (a.round(6) if a.dtype.kind == "f" else a).tolist()
            attrs.append((name, v if isinstance(v, tuple) else (type(v).__name__, v)))
        out.append((fn.name(), attrs))
        stack.extend(reversed([f for f, _ in fn.next_functions]))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("case", GRAD_GRAPHS)
def test_saved_attributes_in_a_derivatives_graph_match_torch(case, torch_ref):
    assert grad_graph_saved(engine, case) == grad_graph_saved(torch_ref, case)


# ----- Every node of every op of opinfo.CASES, and of its first derivatives' graph -----

def described(T, v, inputs):
    """A saved value as compared: a tensor's dtype, shape, values (to 6 decimals; a nan as "nan") and
    which input it is; a Python number's type and value; a tuple item by item."""
    if isinstance(v, T.Tensor):
        a = v.detach().numpy()
        values = a.astype(object)
        if a.dtype.kind == "f":
            with np.errstate(over="ignore"):  # (rounding 1e308)
                values = np.asarray(a.round(6)).astype(object)  # (round gives a 0-d array a scalar)
            values[np.isnan(a)] = "nan"
        return str(v.dtype), a.shape, values.tolist(), [i for i, x in enumerate(inputs) if v is x]
    if type(v) is tuple:
        return tuple(described(T, e, inputs) for e in v)
    return type(v).__name__, v


def saved_in_graph(T, case, graph):
    """Each node of ``case``'s graph, depth first in next_functions order, with its ``_saved_*``
    described: as built, then once a backward through the graph freed them. ``graph``: the op's own,
    or the graph of its first derivatives (built with create_graph) from a constant upstream grad, or
    from one that requires grad (so each rule's own nodes show too)."""
    inputs = [T.tensor(v, requires_grad=f) for v, f in zip(case.inputs(), case.grad_flags())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the size-mismatch warnings of some loss cases)
        out = case.fn(T, *inputs)
        root = out[0] if isinstance(out, (tuple, list)) else out
        if graph != "op":
            wanted = [x for x in inputs if x.requires_grad]
            upstream = T.ones_like(root)
            if graph == "derivative, upstream requiring grad":
                upstream = T.full(root.shape, 1.5, dtype=root.dtype, requires_grad=True)
                inputs.append(upstream)
            grads = T.autograd.grad(root, wanted, upstream, create_graph=True, allow_unused=True)
            grads = [g.sum() for g in grads if g is not None and g.grad_fn is not None]
            if not grads:
                return None
            root = grads[0]
            for g in grads[1:]:
                root = root + g
    nodes, stack, seen = [], [root.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        nodes.append(fn)
        stack.extend(reversed([f for f, _ in fn.next_functions]))

    def attributes(fn):
        out = []
        for name in sorted(a for a in dir(fn) if a.startswith(("_saved_", "_raw_saved_"))):
            try:
                v = getattr(fn, name)
                if name.startswith("_raw"):  # a SavedTensor, or a tuple of them (an index's parts)
                    v = tuple(map(type, v)) if type(v) is tuple else type(v)
                    out.append((name, str(v)))
                else:
                    out.append((name, described(T, v, inputs)))
            except RuntimeError as e:
                out.append((name, ("raised", str(e)[:60])))
        return fn.name(), out

    built = [attributes(fn) for fn in nodes]
    try:
        root.sum().backward()
    except RuntimeError as e:  # (F.hardsigmoid: no second derivative, in PyTorch either)
        return built, ("backward raised", str(e))
    return built, [attributes(fn) for fn in nodes]


@pytest.mark.torch
@pytest.mark.parametrize("graph", ["op", "derivative", "derivative, upstream requiring grad"])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in opinfo.CASES])
def test_saved_attributes_of_every_node_match_torch(case, graph, torch_ref):
    # Names and values as PyTorch shows them: ints and floats as its formulas write them (softplus's
    # default 1 and 20, relu6's 0 and 6), dims as given (-1 as 2**64 - 1, in the rules' own nodes
    # too), the very input tensors, None for what was not needed, and after backward the freed
    # tensors raise.
    ours, theirs = saved_in_graph(engine, case, graph), saved_in_graph(torch_ref, case, graph)
    if theirs is None:
        assert ours is None
        return
    assert [name for name, _ in ours[0]] == [name for name, _ in theirs[0]]  # (the same graph)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]


def test_linear_and_friends_keep_what_pytorch_shows():
    # Without PyTorch at hand too: nn.Linear's AddmmBackward0, and numbers as PyTorch's formulas write them.
    x = engine.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    layer = engine.nn.Linear(3, 2)
    fn = layer(x).grad_fn
    assert type(fn).__name__ == "AddmmBackward0"
    assert (fn._saved_alpha, fn._saved_beta) == (1, 1) and type(fn._saved_alpha) is int
    assert fn._saved_mat1 is x and fn._saved_mat1_sym_sizes == (1, 3) and fn._saved_mat1_sym_strides == (3, 1)
    assert fn._saved_mat2.tolist() == layer.weight.t().tolist() and fn._saved_mat2_sym_strides == (1, 3)
    F = engine.nn.functional
    assert [type(v) for v in (F.relu6(x).grad_fn._saved_min_val, F.softplus(x).grad_fn._saved_beta)] == [int, int]
    g, = engine.autograd.grad(x.log10().sum(), x, create_graph=True)  # grad / (x * 2.3025850929940456)
    mul = g.grad_fn.next_functions[1][0]
    assert mul.name() == "MulBackward1" and mul._saved_other == 2.3025850929940456 != math.log(10)
    y = x * engine.tensor(2.0)  # (the constant's grad is not needed: its slot stays empty)
    y.sum().backward()
    assert y.grad_fn._saved_self is None
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.grad_fn._saved_other
