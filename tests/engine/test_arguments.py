"""Argument errors and keyword names as PyTorch's: a Python number where a function takes a tensor is
PyTorch's TypeError, not an AttributeError from inside the engine; and arguments go by PyTorch's names."""
import pytest

from tests.engine.opinfo import same

NAMESPACES = {"torch": lambda t: t, "F": lambda t: t.nn.functional, "special": lambda t: t.special,
              "linalg": lambda t: t.linalg}

# (namespace, what follows the number: nothing / ints / tensors, how many, the functions)
NON_TENSOR = [
    ("F", "int", 1,
        "cosine_similarity cross_entropy embedding kl_div linear nll_loss pairwise_distance"),
    ("F", "int", 2,
        "threshold"),
    ("F", "none", 0,
        "celu dropout elu gelu hardsigmoid hardswish hardtanh leaky_relu logsigmoid mish one_hot "
        "relu6 selu silu softplus"),
    ("F", "tensor", 1,
        "cosine_similarity cross_entropy kl_div linear nll_loss pairwise_distance"),
    ("F", "tensor", 2,
        "threshold"),
    ("linalg", "int", 1,
        "cross householder_product matrix_power solve solve_ex"),
    ("linalg", "none", 0,
        "cholesky cholesky_ex det diagonal eigh eigvalsh inv inv_ex matrix_exp matrix_norm norm "
        "pinv qr slogdet svd svdvals vector_norm"),
    ("linalg", "tensor", 1,
        "cross householder_product matrix_power solve solve_ex"),
    ("torch", "int", 1,
        "arctan2 bmm broadcast_to bucketize cdist chunk clamp_max clamp_min copysign cummax cummin "
        "cumprod cumsum dist dot dsplit embedding flip full_like ger heaviside hsplit inner kron "
        "kthvalue logcumsumexp logsumexp masked_select matmul multinomial mv outer roll "
        "searchsorted take take_along_dim tensor_split tile topk unsafe_chunk unsafe_split "
        "unsqueeze vsplit xlogy"),
    ("torch", "int", 2,
        "addbmm addmm addmv addr baddbmm gather index_put_ index_select lerp masked_fill "
        "masked_scatter moveaxis movedim select swapaxes swapdims transpose unflatten"),
    ("torch", "int", 3,
        "index_add index_copy index_fill narrow renorm scatter_add"),
    ("torch", "none", 0,
        "abs absolute adjoint all amax amin aminmax any arccos arccosh arcsin arcsinh arctan "
        "arctanh argmax argmin argsort argwhere atleast_1d atleast_2d atleast_3d bernoulli bincount "
        "block_diag broadcast_tensors cartesian_prod ceil clamp clip clone combinations corrcoef "
        "count_nonzero cov detach diag diag_embed diagflat diagonal diff empty_like flatten fliplr "
        "flipud floor frac histc is_floating_point is_nonzero isfinite isinf isnan log_softmax "
        "logical_not logit max mean median meshgrid min mode msort nan_to_num nanmean nanmedian "
        "nansum neg negative nonzero numel ones_like permute poisson prod rand_like randn_like "
        "repeat_interleave reshape rot90 round signbit softmax sort square squeeze std std_mean sum "
        "t trace tril triu trunc unbind unique unique_consecutive vander var var_mean where "
        "zeros_like"),
    ("torch", "tensor", 1,
        "arctan2 bmm broadcast_to cdist chunk clamp_max clamp_min copysign cummax cummin cumprod "
        "cumsum dist dot dsplit embedding flip full_like ger heaviside hsplit inner kron kthvalue "
        "logcumsumexp logsumexp masked_select matmul multinomial mv outer roll searchsorted take "
        "take_along_dim tensor_split tile topk unsafe_chunk unsafe_split unsqueeze vsplit"),
    ("torch", "tensor", 2,
        "addbmm addmm addmv addr baddbmm gather index_put_ index_select lerp masked_fill "
        "masked_scatter moveaxis movedim select swapaxes swapdims transpose unflatten"),
    ("torch", "tensor", 3,
        "index_add index_copy index_fill narrow renorm scatter_add"),
]

CASES = [(ns, fill, n, name, arg) for ns, fill, n, names in NON_TENSOR for name in names.split()
         for arg in (1.0, 2)]


def _call_with_number(t, ns, fill, n, name, arg):
    rest = [0 if fill == "int" else t.ones(2)] * n
    return getattr(NAMESPACES[ns](t), name)(arg, *rest)


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e), str(e)
    return None, None


@pytest.mark.parametrize("ns,fill,n,name,arg", CASES, ids=[f"{c[0]}.{c[3]}({c[4]!r},{c[1]}*{c[2]})" for c in CASES])
def test_number_for_tensor_is_torchs_type_error(torch_ref, et, ns, fill, n, name, arg):
    want_cls, want = _raised(lambda: _call_with_number(torch_ref, ns, fill, n, name, arg))
    got_cls, got = _raised(lambda: _call_with_number(et, ns, fill, n, name, arg))
    assert want_cls is TypeError
    assert got_cls is TypeError, (got_cls, got)
    if "invalid combination of arguments" in want:  # (the overloads PyTorch lists after it are left out)
        want = want.split("\n")[0]
    assert got == want


@pytest.mark.parametrize("fn", [
    lambda t: t.atleast_1d(t.ones(2), 1.0),
    lambda t: t.atleast_2d([1.0]),
    lambda t: t.meshgrid(t.ones(2), 2, indexing="ij"),
    lambda t: t.block_diag(t.ones(2), 1.0),
    lambda t: t.where(1.0),
    lambda t: t.zeros_like(t.ones(1).numpy()),
    lambda t: t.sum([1.0, 2.0]),
    lambda t: t.matmul(t.ones(2), 2.0),
    lambda t: t.matmul(t.ones(2), [1.0, 2.0]),
    lambda t: t.ones(2) @ 2.0,  # the operator: Python's "unsupported operand" error
    lambda t: 2.0 @ t.ones(2),
    lambda t: t.ones(2) @ [1.0, 2.0],
    lambda t: t.outer(t.ones(2), 2.0),
    lambda t: t.std(1.0, dim=0, keepdim=True),
    lambda t: t.clamp(1.0, min=0),
    lambda t: t.clip(1.0, max=1),
    lambda t: t.linalg.pinv(1.0, hermitian=True),
    lambda t: t.polygamma(1, 2.0),
    lambda t: t.nn.functional.embedding(t.tensor([0]), 1.0),
])
def test_more_argument_errors(torch_ref, et, fn):
    want_cls, want = _raised(lambda: fn(torch_ref))
    got_cls, got = _raised(lambda: fn(et))
    assert want_cls is TypeError
    assert (got_cls, got.split("\n")[0]) == (want_cls, want.split("\n")[0])


def _xy(t):
    return t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]), t.tensor([[1.0, 2.0, 0.5], [0.5, 3.0, 1.0]])


KEYWORDS = {
    "sum": lambda t: t.sum(input=_xy(t)[0], dim=1, keepdim=True),
    "mean": lambda t: t.mean(_xy(t)[0], dim=0, keepdim=True),
    "clamp": lambda t: t.clamp(input=_xy(t)[0], min=0, max=1),
    "clip": lambda t: t.clip(_xy(t)[0], min=0),
    "add_alpha": lambda t: t.add(*_xy(t), alpha=2),
    "xlogy": lambda t: t.xlogy(_xy(t)[1], other=_xy(t)[1]),
    "pow": lambda t: t.pow(_xy(t)[0], exponent=2),
    "matmul": lambda t: t.matmul(input=_xy(t)[0], other=_xy(t)[1].T),
    "linear": lambda t: t.nn.functional.linear(_xy(t)[0], weight=_xy(t)[1], bias=t.ones(2)),
    "where": lambda t: t.where(condition=_xy(t)[0] > 0, input=_xy(t)[0], other=_xy(t)[1]),
    "solve": lambda t: t.linalg.solve(A=t.eye(2) * 2, B=t.ones(2, 1), left=True),
    "maximum": lambda t: t.maximum(input=_xy(t)[0], other=_xy(t)[1]),
    "gt": lambda t: t.gt(_xy(t)[0], other=_xy(t)[1]),
    "logical_and": lambda t: t.logical_and(input=_xy(t)[0] > 0, other=_xy(t)[1] > 1),
    "exp": lambda t: t.exp(input=_xy(t)[0]),
    "arcsin": lambda t: t.arcsin(input=_xy(t)[0] / 4),
    "floor": lambda t: t.floor(input=_xy(t)[0]),
    "abs": lambda t: t.abs(input=_xy(t)[0]),
    "absolute": lambda t: t.absolute(input=_xy(t)[0]),
    "neg": lambda t: t.negative(input=_xy(t)[0]),
    "transpose": lambda t: t.transpose(input=_xy(t)[0], dim0=0, dim1=1),
    "swapaxes": lambda t: t.swapaxes(_xy(t)[0], axis0=0, axis1=1),
    "reshape": lambda t: t.reshape(input=_xy(t)[0], shape=(3, 2)),
    "squeeze": lambda t: t.squeeze(input=_xy(t)[0][None], dim=0),
    "unsqueeze": lambda t: t.unsqueeze(input=_xy(t)[0], dim=0),
    "cat": lambda t: t.cat(tensors=_xy(t), dim=1),
    "stack": lambda t: t.stack(tensors=_xy(t), dim=0),
    "max_dim": lambda t: t.max(input=_xy(t)[0], dim=1, keepdim=True),
    "argmax": lambda t: t.argmax(input=_xy(t)[0], dim=1),
    "softmax": lambda t: t.softmax(input=_xy(t)[0], dim=1),
    "log_softmax": lambda t: t.log_softmax(_xy(t)[0], dim=1, dtype=t.float64),
    "cumsum": lambda t: t.cumsum(input=_xy(t)[0], dim=1),
    "outer": lambda t: t.outer(input=t.ones(2), vec2=t.arange(3.0)),
    "ger": lambda t: t.ger(t.ones(2), vec2=t.arange(3.0)),
    "dot": lambda t: t.dot(input=t.ones(3), tensor=t.arange(3.0)),
    "mv": lambda t: t.mv(input=_xy(t)[0], vec=t.arange(3.0)),
    "bmm": lambda t: t.bmm(input=_xy(t)[0][None], mat2=_xy(t)[1].T[None]),
    "addmm": lambda t: t.addmm(input=t.ones(2, 2), mat1=_xy(t)[0], mat2=_xy(t)[1].T, beta=0.5, alpha=2),
    "lerp": lambda t: t.lerp(input=_xy(t)[0], end=_xy(t)[1], weight=0.25),
    "hypot": lambda t: t.hypot(input=_xy(t)[0], other=_xy(t)[1]),
    "atan2": lambda t: t.atan2(input=_xy(t)[0], other=_xy(t)[1]),
    "arctan2": lambda t: t.arctan2(input=_xy(t)[0], other=_xy(t)[1]),
    "kron": lambda t: t.kron(input=t.ones(2), other=t.arange(3.0)),
    "inner": lambda t: t.inner(input=_xy(t)[0], other=_xy(t)[1]),
    "masked_fill": lambda t: t.masked_fill(input=_xy(t)[0], mask=_xy(t)[0] > 0, value=0.0),
    "gather": lambda t: t.gather(input=_xy(t)[0], dim=1, index=t.tensor([[0, 2], [1, 1]])),
    "index_select": lambda t: t.index_select(input=_xy(t)[0], dim=1, index=t.tensor([2, 0])),
    "narrow": lambda t: t.narrow(input=_xy(t)[0], dim=1, start=1, length=2),
    "select": lambda t: t.select(input=_xy(t)[0], dim=1, index=2),
    "flatten": lambda t: t.flatten(input=_xy(t)[0][None], start_dim=1),
    "split": lambda t: t.split(tensor=_xy(t)[0], split_size_or_sections=1, dim=0),
    "chunk": lambda t: t.chunk(input=_xy(t)[0], chunks=3, dim=1),
    "tril": lambda t: t.tril(input=_xy(t)[0], diagonal=-1),
    "diagonal": lambda t: t.diagonal(input=_xy(t)[0], offset=1),
    "nan_to_num": lambda t: t.nan_to_num(input=_xy(t)[0].log(), nan=0.0, neginf=-1.0),
    "logit": lambda t: t.logit(input=_xy(t)[1] / 4, eps=1e-6),
    "std": lambda t: t.std(input=_xy(t)[0], dim=1, correction=0),
    "var": lambda t: t.var(_xy(t)[0], dim=0, unbiased=False, keepdim=True),
    "sort": lambda t: t.sort(input=_xy(t)[0], dim=1, descending=True)[0],
    "topk": lambda t: t.topk(input=_xy(t)[0], k=2, dim=1)[0],
    "roll": lambda t: t.roll(input=_xy(t)[0], shifts=1, dims=1),
    "flip": lambda t: t.flip(input=_xy(t)[0], dims=(1,)),
    "permute": lambda t: t.permute(input=_xy(t)[0], dims=(1, 0)),
    "tile": lambda t: t.tile(input=_xy(t)[0], dims=(2,)),
    "repeat_interleave": lambda t: t.repeat_interleave(input=_xy(t)[0], repeats=2, dim=0),
    "take_along_dim": lambda t: t.take_along_dim(input=_xy(t)[0], indices=t.tensor([[0], [2]]), dim=1),
    "scatter_add": lambda t: t.scatter_add(input=t.zeros(2, 3), dim=1, index=t.tensor([[0, 0], [1, 2]]),
                                           src=_xy(t)[0][:, :2]),
    "result_type": lambda t: t.result_type(tensor=t.ones(1), other=2.5),
    "promote_types": lambda t: t.promote_types(type1=t.int32, type2=t.float32),
    "F.gelu": lambda t: t.nn.functional.gelu(input=_xy(t)[0], approximate="tanh"),
    "F.softplus": lambda t: t.nn.functional.softplus(input=_xy(t)[0], beta=2.0),
    "F.softmax": lambda t: t.nn.functional.softmax(input=_xy(t)[0], dim=0),
    "F.logsigmoid": lambda t: t.nn.functional.logsigmoid(input=_xy(t)[0]),
    "linalg.matmul": lambda t: t.linalg.matmul(input=_xy(t)[0], other=_xy(t)[1].T),
    "linalg.norm": lambda t: t.linalg.norm(input=_xy(t)[0], ord="fro"),
    "method_clamp": lambda t: _xy(t)[0].clamp(min=0),
    "method_matmul": lambda t: _xy(t)[0].matmul(other=_xy(t)[1].T),
    "method_xlogy": lambda t: _xy(t)[1].xlogy(other=_xy(t)[1]),
}


@pytest.mark.parametrize("name", list(KEYWORDS))
def test_keyword_names_match_torch(torch_ref, et, name):
    result = same(torch_ref, et, KEYWORDS[name])[0]
    assert result[0] == "ok", result


# A number first where PyTorch takes only tensors (its comparisons take a number second, not first), and
# other arguments of the wrong kind: each of these ran, or failed deep inside, before.
WRONG_KIND = {
    **{f"{name}(1.0, t)": (lambda name: lambda t: getattr(t, name)(1.0, t.ones(2)))(name) for name in (
        "maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "fmod",
        "rsub", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
        "logical_and", "logical_or", "logical_xor")},
    "maximum(t, 1.0)": lambda t: t.maximum(t.ones(2), 1.0),
    "fmax(t, 2)": lambda t: t.fmax(t.ones(2), 2),
    "logical_or(t, 1.0)": lambda t: t.logical_or(t.ones(2), 1.0),
    "logical_or(t, None)": lambda t: t.logical_or(t.ones(2), None),
    "eq(t, None)": lambda t: t.eq(t.ones(2), None),
    "ne(t, None)": lambda t: t.ne(t.ones(2), None),
    "eq(t, list)": lambda t: t.eq(t.ones(2), [1.0, 0.0]),
    "fmod(t, list)": lambda t: t.fmod(t.ones(2), [1.0]),
    "rsub(t, list)": lambda t: t.rsub(t.ones(2), [1.0]),
    "addcmul(1.0, t, t)": lambda t: t.addcmul(1.0, t.ones(2), t.ones(2)),
    "addcmul(t, 1.0, t)": lambda t: t.addcmul(t.ones(2), 1.0, t.ones(2)),
    "addcdiv(t, t, 2)": lambda t: t.addcdiv(t.ones(2), t.ones(2), 2),
    "mm(1.0, m)": lambda t: t.mm(1.0, t.ones(2, 2)),
    "mm(m, 2)": lambda t: t.mm(t.ones(2, 2), 2),
    "polygamma(1.0, t)": lambda t: t.polygamma(1.0, t.ones(2)),
    "polygamma(True, t)": lambda t: t.polygamma(True, t.ones(2)),
    "tril_indices(3, 3, 1.0)": lambda t: t.tril_indices(3, 3, 1.0),
    "triu_indices(2, t)": lambda t: t.triu_indices(2, t.ones(2)),
    "can_cast(float32, 1)": lambda t: t.can_cast(t.float32, 1),
    "promote_types(2, float32)": lambda t: t.promote_types(2, t.float32),
    "full((2,), t)": lambda t: t.full((2,), t.ones(2)),
    "full(2, 1.0)": lambda t: t.full(2, 1.0),
    "einsum(1.0, t)": lambda t: t.einsum(1.0, t.ones(2)),
    "as_tensor(1.0, float64)": lambda t: t.as_tensor(1.0, t.float64),
    "asarray(1.0, t)": lambda t: t.asarray(1.0, t.ones(2)),
    "normal(1.0, t, t)": lambda t: t.normal(1.0, t.ones(2), t.ones(2)),
    "normal(t, 1.0, size)": lambda t: t.normal(t.ones(2), 1.0, (2,)),
    "tensor_split(1.0, t, t)": lambda t: t.tensor_split(1.0, t.ones(2), t.ones(2)),
}


@pytest.mark.parametrize("name", list(WRONG_KIND))
def test_wrong_kind_of_argument_is_torchs_type_error(torch_ref, et, name):
    want_cls, want = _raised(lambda: WRONG_KIND[name](torch_ref))
    got_cls, got = _raised(lambda: WRONG_KIND[name](et))
    assert want_cls is TypeError
    assert (got_cls, got.split("\n")[0]) == (want_cls, want.split("\n")[0])


# What those checks must leave working, compared by value.
STILL_WORKS = {
    "t == None": lambda t: t.ones(2) == None,  # noqa: E711
    "t != None": lambda t: t.ones(2) != None,  # noqa: E711
    "t == array": lambda t: t.ones(2) == __import__("numpy").array([1.0, 0.0]),
    "lt(t, 2)": lambda t: t.lt(t.arange(3.0), 2),
    "t.maximum(t)": lambda t: t.ones(2).maximum(t.zeros(2)),
    "fmod(t, 2)": lambda t: t.fmod(t.arange(4.0), 2),
    "rsub(t, 2)": lambda t: t.rsub(t.arange(3.0), 2),
    "addcdiv(value)": lambda t: t.addcdiv(t.ones(2), t.arange(2.0), t.full((2,), 4.0), value=2),
    "full(0-d fill)": lambda t: t.full((2,), t.tensor(3.0)),
    "asarray(requires_grad)": lambda t: t.asarray([1.0, 2.0], requires_grad=True),
    "as_tensor(dtype=)": lambda t: t.as_tensor([1, 2], dtype=t.float64),
    "polygamma(1, t)": lambda t: t.polygamma(1, t.tensor([1.0, 2.5])),
    "triu_indices(3, 3)": lambda t: t.triu_indices(3, 3),
}


@pytest.mark.parametrize("name", list(STILL_WORKS))
def test_argument_checks_leave_the_valid_calls_alone(torch_ref, et, name):
    result = same(torch_ref, et, STILL_WORKS[name])[0]
    assert result[0] == "ok", result


def test_asarray_copies_and_aliases_as_pytorchs(et):
    import numpy as np

    a = np.ones(2, dtype=np.float32)
    shared, copied = et.asarray(a), et.asarray(a, copy=True)
    a[0] = 5.0
    assert shared.tolist() == [5.0, 1.0] and copied.tolist() == [1.0, 1.0]
    x = et.ones(2)
    assert et.asarray(x) is x and et.asarray(x, copy=True) is not x
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype 'Double'"):
        et.asarray(a, copy=False, dtype=et.float64)


# torch.bitwise_* as functions (they were only operators and methods), with PyTorch's names and errors.
BITWISE = {
    "and(input=, other=)": lambda t: t.bitwise_and(input=t.tensor([3, 5]), other=t.tensor([1, 4])),
    "or(t, other=2)": lambda t: t.bitwise_or(t.tensor([3, 5]), other=2),
    "xor(1, t)": lambda t: t.bitwise_xor(1, t.tensor([3, 5])),
    "not(bool)": lambda t: t.bitwise_not(t.tensor([True, False])),
    "not(int)": lambda t: t.bitwise_not(input=t.tensor([3, -5])),
    "not(1)": lambda t: t.bitwise_not(1),
    "and(float)": lambda t: t.bitwise_and(t.ones(2), 1),
    "or(double, long)": lambda t: t.ones(2, dtype=t.float64) | t.ones(2, dtype=t.int64),
    "not(float)": lambda t: t.bitwise_not(t.ones(2)),
    "method not(float)": lambda t: t.ones(2).bitwise_not(),
    "~float": lambda t: ~t.ones(2),
    "~int": lambda t: ~t.tensor([2, 0]),
}


@pytest.mark.parametrize("name", list(BITWISE))
def test_bitwise_functions_match_torch(torch_ref, et, name):
    same(torch_ref, et, BITWISE[name])


# PyTorch writes these functions in Python as ``input.<method>(...)``: a number is an AttributeError
# there, where ``torch.softmax(1.0)`` (its argument parser) is a TypeError.
PYTHON_WRAPPERS = {
    "F.softmax(1.0)": lambda t: t.nn.functional.softmax(1.0),
    "F.softmax(1.0, 0)": lambda t: t.nn.functional.softmax(1.0, 0),
    "F.log_softmax(1.0, 0)": lambda t: t.nn.functional.log_softmax(1.0, 0),
    "F.softmin(1.0)": lambda t: t.nn.functional.softmin(1.0),
    "F.softmin(1.0, 0)": lambda t: t.nn.functional.softmin(1.0, 0),
    "F.sigmoid(1.0)": lambda t: t.nn.functional.sigmoid(1.0),
    "F.tanh(2)": lambda t: t.nn.functional.tanh(2),
    "torch.softmax(1.0, 0)": lambda t: t.softmax(1.0, 0),
    "F.softmin(x, -1)": lambda t: t.nn.functional.softmin(t.tensor([[1.0, 2.0], [3.0, 5.0]]), -1),
    "F.log_softmax(x, dtype)": lambda t: t.nn.functional.log_softmax(t.tensor([[1.0, 2.0]]), dim=-1, dtype=t.float64),
    "F.softmax(x) warns": lambda t: t.nn.functional.softmax(t.tensor([[1.0, 2.0], [3.0, 5.0]])),
}


@pytest.mark.parametrize("name", list(PYTHON_WRAPPERS))
def test_functional_wrappers_fail_as_torchs(torch_ref, et, name):
    same(torch_ref, et, PYTHON_WRAPPERS[name])


# torch.selu, celu and threshold at the top level (they were only in nn.functional), values, nodes
# and errors.
def _act_input(t):
    return t.tensor([-1.5, 0.5, 2.0], requires_grad=True)


TOP_LEVEL = {
    "selu": lambda t: t.selu(_act_input(t)),
    "celu": lambda t: t.celu(_act_input(t), 0.5),
    "threshold": lambda t: t.threshold(_act_input(t), 0.6, -2.0),
    "selu grad_fn": lambda t: t.selu(_act_input(t)).grad_fn.name(),
    "celu grad_fn": lambda t: t.celu(_act_input(t), alpha=2.0).grad_fn.name(),
    "threshold grad": lambda t: (lambda x: t.autograd.grad(t.threshold(x, 0.6, -2.0).sum(), x))(_act_input(t)),
    "celu grad": lambda t: (lambda x: t.autograd.grad(t.celu(x, 0.5).sum(), x))(_act_input(t)),
    "selu(1.0)": lambda t: t.selu(1.0),
    "celu(1.0)": lambda t: t.celu(1.0),
    "threshold(1.0, 0, 0)": lambda t: t.threshold(1.0, 0, 0),
    "celu(inplace=True)": lambda t: t.celu(_act_input(t), alpha=2.0, inplace=True),
}


@pytest.mark.parametrize("name", list(TOP_LEVEL))
def test_top_level_activations_match_torch(torch_ref, et, name):
    same(torch_ref, et, TOP_LEVEL[name])


# A NumPy array beside a tensor, as in PyTorch: the tensor's operators refuse it (NotImplemented)
# but ``==``, so NumPy's reflected operator computes on ``t.__array__()`` and gives back a tensor
# (float64: NumPy's promotion), an array on the left defers to the tensor and fails, and a tensor
# that requires grad refuses to be an array. NumPy scalars are Python numbers to PyTorch.
def _nd(*v):
    return __import__("numpy").array(v if len(v) != 1 else v[0])


NUMPY_OPERANDS = {
    "t + a": lambda t: t.tensor([1.0, 2.0]) + _nd(1.0, 1.0),
    "t + 0-d a": lambda t: t.tensor([1.0, 2.0]) + _nd(2.0),
    "t * int a": lambda t: t.tensor([1.0, 2.0]) * _nd(1, 2),
    "t ** 0-d a": lambda t: t.tensor([1.0, 2.0]) ** _nd(2.0),
    "t // a": lambda t: t.tensor([3.0, 2.0]) // _nd(2.0, 2.0),
    "a + t": lambda t: _nd(1.0, 1.0) + t.tensor([1.0, 2.0]),
    "a - t": lambda t: _nd(1.0, 1.0) - t.tensor([1.0, 2.0]),
    "a * t": lambda t: _nd(1.0, 1.0) * t.tensor([1.0, 2.0]),
    "a / t": lambda t: _nd(1.0, 1.0) / t.tensor([1.0, 2.0]),
    "0-d a / t": lambda t: _nd(2.0) / t.tensor([1.0, 2.0]),
    "a @ t": lambda t: _nd([1.0, 1.0], [1.0, 1.0]) @ t.tensor([1.0, 2.0]),
    "t @ 0-d a": lambda t: t.tensor([1.0, 2.0]) @ _nd(2.0),
    "t == a": lambda t: t.tensor([1.0, 2.0]) == _nd(1.0, 1.0),
    "a == t": lambda t: _nd(1.0, 1.0) == t.tensor([1.0, 2.0]),
    "t == a of str": lambda t: t.tensor([1.0, 2.0]) == _nd("a", "b"),
    "t != a": lambda t: t.tensor([1.0, 2.0]) != _nd(1.0, 1.0),
    "t < a": lambda t: t.tensor([1.0, 2.0]) < _nd(1.0, 1.0),
    "t & a": lambda t: t.tensor([1, 2]) & _nd(1, 1),
    "requires grad + a": lambda t: t.tensor([1.0, 2.0], requires_grad=True) + _nd(1.0, 1.0),
    "a / requires grad": lambda t: _nd(1.0, 1.0) / t.tensor([1.0, 2.0], requires_grad=True),
    "requires grad == a": lambda t: t.tensor([1.0, 2.0], requires_grad=True) == _nd(1.0, 1.0),
    "np.equal(t, t)": lambda t: __import__("numpy").equal(t.tensor([1.0, 2.0]), t.tensor([1.0, 3.0])),
    "np.exp(t)": lambda t: __import__("numpy").exp(t.tensor([0.0, 1.0])),
    "float64 scalar - t": lambda t: __import__("numpy").float64(2.0) - t.tensor([1.0, 2.0]),
    "float64 scalar & t": lambda t: __import__("numpy").float64(2.0) & t.tensor([1.0, 2.0]),
    "int t * float64 scalar": lambda t: t.tensor([1, 2]) * __import__("numpy").float64(2.0),
    "int t * float32 scalar": lambda t: t.tensor([1, 2]) * __import__("numpy").float32(2.5),
    "int t + bool_": lambda t: t.tensor([1, 2]) + __import__("numpy").bool_(True),
    "t - bool_": lambda t: t.tensor([1.0, 2.0]) - __import__("numpy").bool_(True),
    "bool_ - int t": lambda t: __import__("numpy").bool_(True) - t.tensor([1, 2]),
    "bool t - bool_": lambda t: t.tensor([True]) - __import__("numpy").bool_(True),
    "requires grad * float64 scalar": lambda t: (lambda x: (x * __import__("numpy").float64(3.0)).grad_fn.name())(
        t.tensor([1.0], requires_grad=True)),
}


def _outcome(fn, mod):
    """What ``fn(mod)`` gave, as plain data, or its exception's class and first line (PyTorch's
    NumPy interplay also warns of NumPy deprecations, which are not compared)."""
    from tests.engine.opinfo import outcome

    result = outcome(fn, mod)[0]
    return result if result[0] == "ok" else (result[0], result[1], result[2].split("\n")[0])


@pytest.mark.parametrize("name", list(NUMPY_OPERANDS))
def test_numpy_operands_as_pytorchs(torch_ref, et, name):
    assert _outcome(NUMPY_OPERANDS[name], et) == _outcome(NUMPY_OPERANDS[name], torch_ref)


# Something else than a tensor or a number as the second argument: PyTorch's TypeError, word for
# word (the first line), where the engine computed (a list or an array made a tensor) or failed
# inside (``'list' object has no attribute '_data'``). A method counts positions from the argument
# after self and leaves self out of an invalid combination; an in-place method is named as itself.
def _t(t):
    return t.tensor([1.0, 2.0])


SECOND_ARGUMENT = {
    "add(t, None)": lambda t: t.add(_t(t), None),
    "add(t, list)": lambda t: t.add(_t(t), [1.0, 2.0]),
    "add(t, array)": lambda t: t.add(_t(t), _nd(1.0, 2.0)),
    "t.add(array)": lambda t: _t(t).add(_nd(1.0, 2.0)),
    "t.add_(None)": lambda t: _t(t).add_(None),
    "sub(t, list)": lambda t: t.sub(_t(t), [1.0, 2.0]),
    "t.mul(None)": lambda t: _t(t).mul(None),
    "t.mul_(list)": lambda t: _t(t).mul_([1.0, 2.0]),
    "div(t, str)": lambda t: t.div(_t(t), "a"),
    "true_divide(t, list)": lambda t: t.true_divide(_t(t), [1.0, 2.0]),
    "pow(t, array)": lambda t: t.pow(_t(t), _nd(1.0, 2.0)),
    "t.pow_(list)": lambda t: _t(t).pow_([1.0, 2.0]),
    "remainder(t, list)": lambda t: t.remainder(_t(t), [1.0, 2.0]),
    "floor_divide(t, array)": lambda t: t.floor_divide(_t(t), _nd(1.0, 2.0)),
    "xlogy(t, list)": lambda t: t.xlogy(_t(t), [1.0, 2.0]),
    "copysign(t, None)": lambda t: t.copysign(_t(t), None),
    "t.copysign_(None)": lambda t: _t(t).copysign_(None),
    "clamp(t, list)": lambda t: t.clamp(_t(t), [1.0]),
    "clip(t, str)": lambda t: t.clip(_t(t), "a"),
    "clamp_min(t, array)": lambda t: t.clamp_min(_t(t), _nd(1.0, 2.0)),
    "t.clamp_min_(None)": lambda t: _t(t).clamp_min_(None),
    "clamp_max(t, None)": lambda t: t.clamp_max(_t(t), None),
    "eq(t, array)": lambda t: t.eq(_t(t), _nd(1.0, 2.0)),
    "lt(t, list)": lambda t: t.lt(_t(t), [1.0, 2.0]),
    "t.eq(None)": lambda t: _t(t).eq(None),
    "t.greater(array)": lambda t: _t(t).greater(_nd(1.0, 2.0)),
    "bitwise_and(t, list)": lambda t: t.bitwise_and(t.tensor([1, 2]), [1, 2]),
    "bitwise_and(1, 2)": lambda t: t.bitwise_and(1, 2),
    "dot(t, list)": lambda t: t.dot(_t(t), [1.0, 2.0]),
    "t.dot(None)": lambda t: _t(t).dot(None),
    "mv(m, array)": lambda t: t.mv(t.ones(2, 2), _nd(1.0, 2.0)),
    "kron(t, None)": lambda t: t.kron(_t(t), None),
    "take(t, list)": lambda t: t.take(_t(t), [0]),
    "t.take_along_dim(list)": lambda t: _t(t).take_along_dim([0]),
    "inner(t, list)": lambda t: t.inner(_t(t), [1.0, 2.0]),
    "bmm(t, None)": lambda t: t.bmm(t.ones(1, 2, 2), None),
    "cdist(t, list)": lambda t: t.cdist(t.ones(2, 2), [[1.0, 2.0]]),
    "masked_select(t, list)": lambda t: t.masked_select(_t(t), [True, False]),
    "embedding(w, list)": lambda t: t.embedding(t.ones(3, 2), [0, 1]),
    "dist(t, None)": lambda t: t.dist(_t(t), None),
    "t.fmin(list)": lambda t: _t(t).fmin([1.0, 2.0]),
    "t.atan2_(None)": lambda t: _t(t).atan2_(None),
    "cross(t, None)": lambda t: t.cross(t.ones(3), None, dim=0),
    "t.cross(list)": lambda t: t.ones(3).cross([1.0, 2.0, 3.0]),
    "t.expand_as(None)": lambda t: _t(t).expand_as(None),
    "t.view_as(list)": lambda t: _t(t).view_as([1.0, 2.0]),
    "t.reshape_as(array)": lambda t: _t(t).reshape_as(_nd(1.0, 2.0)),
    "t.type_as(None)": lambda t: _t(t).type_as(None),
    "t.orgqr(None)": lambda t: t.ones(2, 2).orgqr(None),
    "linalg.solve(A, list)": lambda t: t.linalg.solve(t.eye(2), [1.0, 2.0]),
    "linalg.cross(t, None)": lambda t: t.linalg.cross(t.ones(3), None),
    "linalg.householder_product(A, None)": lambda t: t.linalg.householder_product(t.ones(2, 2), None),
    "F.linear(t, list)": lambda t: t.nn.functional.linear(_t(t), [[1.0, 2.0]]),
    "F.nll_loss(t, list)": lambda t: t.nn.functional.nll_loss(t.ones(2, 3), [0, 1]),
    "F.cross_entropy(t, array)": lambda t: t.nn.functional.cross_entropy(t.ones(2, 3), _nd(0, 1)),
    "F.kl_div(t, None)": lambda t: t.nn.functional.kl_div(_t(t), None),
    "F.cosine_similarity(t, list)": lambda t: t.nn.functional.cosine_similarity(t.ones(2, 2), [[1.0, 2.0]]),
    "F.pairwise_distance(t, None)": lambda t: t.nn.functional.pairwise_distance(t.ones(2, 2), None),
    "F.mse_loss(t, None)": lambda t: t.nn.functional.mse_loss(_t(t), None),
    "F.mse_loss(t, array)": lambda t: t.nn.functional.mse_loss(_t(t), _nd(1.0, 2.0)),
    "F.l1_loss(t, list)": lambda t: t.nn.functional.l1_loss(_t(t), [1.0, 2.0]),
    "F.binary_cross_entropy(t, None)": lambda t: t.nn.functional.binary_cross_entropy(_t(t) / 4, None),
    "F.bce_with_logits(t, array)": lambda t: t.nn.functional.binary_cross_entropy_with_logits(_t(t), _nd(1.0, 0.0)),
    "F.huber_loss(t, list)": lambda t: t.nn.functional.huber_loss(_t(t), [1.0, 2.0]),
    "F.smooth_l1_loss(t, None)": lambda t: t.nn.functional.smooth_l1_loss(_t(t), None),
    "F.elu(t, list)": lambda t: t.nn.functional.elu(_t(t), [1.0]),
    "F.leaky_relu(t, array)": lambda t: t.nn.functional.leaky_relu(_t(t), _nd(0.1, 0.2)),
    "F.celu(t, None)": lambda t: t.nn.functional.celu(_t(t), None),
    "F.softplus(t, list)": lambda t: t.nn.functional.softplus(_t(t), [1.0]),
    "nan_to_num(t, list)": lambda t: t.nan_to_num(_t(t), [1.0]),
    "poisson(t, list)": lambda t: t.poisson(_t(t), [1.0]),
    "isin(t, list)": lambda t: t.isin(_t(t), [1.0]),
    "isin(list, t)": lambda t: t.isin([1.0], _t(t)),
    "result_type(t, None)": lambda t: t.result_type(_t(t), None),
    "searchsorted(t, list)": lambda t: t.searchsorted(_t(t), [1.0]),
    "t.fill_(None)": lambda t: _t(t).fill_(None),
    "t.fill_(list)": lambda t: _t(t).fill_([1.0]),
    "floor(t, None)": lambda t: t.floor(_t(t), None),
    "addmm(t, t, None)": lambda t: t.addmm(_t(t), _t(t), None),
    "m.addmm(m, None)": lambda t: t.ones(2, 2).addmm(t.ones(2, 2), None),
    "addmv(t, 0, None)": lambda t: t.addmv(_t(t), 0, None),
    "addr(t, t, list)": lambda t: t.addr(_t(t), _t(t), [1.0]),
    "baddbmm(t, t, None)": lambda t: t.baddbmm(_t(t), _t(t), None),
    "addbmm(t, 0, None)": lambda t: t.addbmm(_t(t), 0, None),
    "gather(t, 0, None)": lambda t: t.gather(_t(t), 0, None),
    "m.gather(0, list)": lambda t: t.ones(2, 2).gather(0, [[0]]),
    "masked_scatter(t, 0, None)": lambda t: t.masked_scatter(_t(t), 0, None),
    "lerp(t, t, list)": lambda t: t.lerp(_t(t), _t(t), [1.0]),
    "lerp(t, 1.0, 0.5)": lambda t: t.lerp(_t(t), 1.0, 0.5),
    "t.lerp_(t, None)": lambda t: _t(t).lerp_(_t(t), None),
}


@pytest.mark.parametrize("name", list(SECOND_ARGUMENT))
def test_second_argument_errors_are_torchs(torch_ref, et, name):
    want = _outcome(SECOND_ARGUMENT[name], torch_ref)
    assert want[0] == "raised"
    assert _outcome(SECOND_ARGUMENT[name], et) == want


# What those checks leave working (or now work: a None that is a default, a tensor alpha).
SECOND_ARGUMENT_WORKS = {
    "nan_to_num(t, None)": lambda t: t.nan_to_num(t.tensor([float("nan"), 1.0]), None),
    "norm(t, None)": lambda t: t.norm(t.tensor([3.0, 4.0]), None),
    "t.norm(None)": lambda t: t.tensor([3.0, 4.0]).norm(None),
    "add(alpha=tensor)": lambda t: t.ones(2).add(t.ones(2), alpha=t.tensor(0.5)),
    "sub_(alpha=tensor)": lambda t: t.ones(2).sub_(t.ones(2), alpha=t.tensor(0.5)),
    "isin(1.0, t)": lambda t: t.isin(1.0, _t(t)),
    "isin(t, 1.0)": lambda t: t.isin(_t(t), 1.0),
    "result_type(1.0, t)": lambda t: t.result_type(1.0, t.tensor([1, 2])),
    "searchsorted(t, 1.5)": lambda t: t.searchsorted(_t(t), 1.5),
    "clamp(t, tensor)": lambda t: t.clamp(_t(t), t.tensor([1.5, 1.5])),
    "clamp_min(t, float64 scalar)": lambda t: t.clamp_min(_t(t), __import__("numpy").float64(1.5)),
    "eq(t, float64 scalar)": lambda t: t.eq(_t(t), __import__("numpy").float64(2.0)),
    "xlogy(2.0, t)": lambda t: t.xlogy(2.0, _t(t)),
    "pow(2, t)": lambda t: t.pow(2, _t(t)),
    "t.fill_(0-d tensor)": lambda t: _t(t).fill_(t.tensor(3.0)),
    "F.elu(t, 0.5)": lambda t: t.nn.functional.elu(_t(t) - 2, 0.5),
    "F.softplus(t, 2, 10)": lambda t: t.nn.functional.softplus(_t(t), 2, 10),
    "p.add_(d, alpha=t) under no_grad": lambda t: _step_with_tensor_alpha(t),
}


def _step_with_tensor_alpha(t):
    p = t.ones(2, requires_grad=True)
    with t.no_grad():
        p.add_(t.ones(2), alpha=t.tensor(-0.5))  # (what LBFGS does with its step size)
    return p


@pytest.mark.parametrize("name", list(SECOND_ARGUMENT_WORKS))
def test_second_argument_checks_leave_valid_calls_alone(torch_ref, et, name):
    want = _outcome(SECOND_ARGUMENT_WORKS[name], torch_ref)
    assert want[0] == "ok", want
    assert _outcome(SECOND_ARGUMENT_WORKS[name], et) == want
