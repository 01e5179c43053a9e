"""The engine's float32 results against PyTorch 2.13's to the last bit, where users see every digit
(``loss.item()``, ``tolist()``, ``set_printoptions(precision=8)``): sums and means add in PyTorch's order,
exp, tanh, log, ... are rounded as PyTorch's (near enough: within an ulp, MKL's and glibc's differ from
the correctly rounded value in a few inputs in a hundred), tanh's and sigmoid's backward round as
PyTorch's kernels, var and std and running sums keep PyTorch's float64 totals."""
import itertools
import math

import numpy as np
import pytest
from needs import require

import engine

pytestmark = pytest.mark.torch
torch = require("torch", "pip install torch==2.13.0: the reference every comparison needs")

SHAPES = [(5,), (7,), (9,), (16,), (17,), (33,), (100,), (1000,), (20000,), (2, 5), (3, 7), (8, 17), (128, 10),
          (128, 256), (10, 128), (100, 3), (33, 65), (2, 3, 5), (4, 6, 20), (3, 17, 9), (2, 40, 33), (5, 1, 7),
          (3, 4, 5, 6), (2, 8, 8, 8)]


def _cases():
    for shape in SHAPES:
        nd = len(shape)
        for dims in [None] + [c for r in range(1, nd + 1) for c in itertools.combinations(range(nd), r)]:
            for view in ("contiguous", "transposed") if nd > 1 else ("contiguous",):
                yield pytest.param(shape, dims, view, id=f"{'x'.join(map(str, shape))}-{dims}-{view}")


def _pair(shape, dtype, view, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * rng.choice([1, 100, 0.01], size=shape)).astype(dtype)
    e, t = engine.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if view == "transposed":
        e, t = e.permute(*reversed(range(len(shape)))), t.permute(*reversed(range(len(shape))))
    return e, t


@pytest.mark.parametrize("shape, dims, view", _cases())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_and_means_add_in_pytorchs_order(shape, dims, view, dtype):
    e, t = _pair(shape, dtype, view)
    for name in ("sum", "mean"):
        got = getattr(e, name)() if dims is None else getattr(e, name)(dims)
        want = getattr(t, name)() if dims is None else getattr(t, name)(dims)
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=name)
    if dims is not None:
        got, want = e.sum(dims, keepdim=True), t.sum(dims, keepdim=True)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_numpys_own_order_would_differ():
    """The comparison above can fail: NumPy's pairwise sums differ from PyTorch's in most of these."""
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((200, 100)).astype(np.float32)
    torch_sums = torch.from_numpy(rows).sum(1).numpy()
    assert np.mean(np.add.reduce(rows, 1) != torch_sums) > 0.5
    assert np.array_equal(engine.from_numpy(rows).sum(1).numpy(), torch_sums)


def test_a_mean_loss_item_is_pytorchs_to_the_last_digit():
    rng = np.random.default_rng(4)
    x, y = (rng.standard_normal((100, 1)).astype(np.float32) for _ in range(2))
    items = []
    for T in (engine, torch):
        w = T.tensor([[0.3]], requires_grad=True)
        b = T.tensor([0.1], requires_grad=True)
        loss = ((T.from_numpy(x) @ w + b - T.from_numpy(y)) ** 2).mean()
        loss.backward()
        items.append((loss.item(), b.grad.item(), repr(loss.item())))
    assert items[0] == items[1]  # (w.grad is a matrix product: MKL's order, not NumPy's BLAS's)


def test_a_bias_grad_sums_the_batch_in_pytorchs_order():
    """Broadcasting undone (the one ``sum_to``) adds as PyTorch's sum does, down the batch."""
    rng = np.random.default_rng(5)
    h, g = rng.standard_normal((128, 256)).astype(np.float32), rng.standard_normal((128, 256)).astype(np.float32)
    grads = []
    for T in (engine, torch):
        b = T.zeros(256, requires_grad=True)
        (T.from_numpy(h) + b).backward(T.from_numpy(g))
        grads.append(b.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_exp_of_one_is_pytorchs():
    # NumPy's float32 exp(1) is 2.7182819843, an ulp above the correctly rounded value PyTorch gives
    assert engine.exp(engine.tensor(1.0)).item() == torch.exp(torch.tensor(1.0)).item() == 2.7182817459106445


# the least share of float32 inputs whose value is PyTorch's to the bit (NumPy's float32 loops in brackets)
SHARES = {"exp": 0.97, "tanh": 0.99, "log": 0.9, "sin": 0.9, "cos": 0.9, "log1p": 0.98, "expm1": 0.98,
          "log2": 0.99, "log10": 0.99, "sinh": 0.98, "cosh": 0.98, "atanh": 0.98, "sigmoid": 0.9}
RANGES = {"log": (1e-3, 100), "log2": (1e-3, 100), "log10": (1e-3, 100), "log1p": (-0.9, 10), "atanh": (-0.99, 0.99)}


@pytest.mark.parametrize("name", sorted(SHARES))
def test_float32_functions_round_as_pytorchs(name):
    lo, hi = RANGES.get(name, (-8, 8))
    x = np.random.default_rng(6).uniform(lo, hi, 20000).astype(np.float32)
    got = getattr(engine, name)(engine.from_numpy(x)).numpy()
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert np.mean(got == want) >= SHARES[name]
    assert np.max(np.abs(got.astype(np.float64) - want) / np.spacing(want)) <= 2  # (sigmoid: 1 / (1 + exp(-x)))


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_tanh_and_sigmoid_backward_round_as_pytorchs_kernels(name):
    """Given the same forward values, the grads are PyTorch's bit for bit: tanh's 1 - y * y is one fused
    multiply-add in PyTorch's kernel, sigmoid's is (g * (1 - y)) * y."""
    rng = np.random.default_rng(7)
    x, g = rng.uniform(-6, 6, 20000).astype(np.float32), rng.uniform(-2, 2, 20000).astype(np.float32)
    out = {}
    for T in (engine, torch):
        xt = T.from_numpy(x.copy()).requires_grad_()
        y = getattr(T, name)(xt)
        y.backward(T.from_numpy(g.copy()))
        out[T] = y.detach().numpy(), xt.grad.numpy()
    same = out[engine][0] == out[torch][0]
    assert same.mean() > 0.9
    np.testing.assert_array_equal(out[engine][1][same], out[torch][1][same])


SOFTMAX_CASES = [((50, 3), 1), ((50, 7), -1), ((50, 8), 1), ((50, 15), 1), ((50, 16), 1), ((50, 17), 1), ((40, 33), 1),
                 ((20, 100), 1), ((5, 1000), 1), ((7,), 0), ((50, 17), 0), ((3, 4, 37), 0), ((3, 4, 37), 1),
                 ((3, 4, 37), 2), ((6, 50), 0), ((17,), 0), ((1, 100), 1), ((1000,), -1), ((1, 1, 33), 2)]


@pytest.mark.parametrize("shape, dim", SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_backward_is_pytorchs_kernel(shape, dim, dtype):
    """Given the same grad and output, softmax's backward is PyTorch's bit for bit: along the last dim
    the sum of go * y in vec::reduce_all's order (16 float32 lanes halved four times, 8 float64 lanes in
    turn, fewer numbers one after another), along another dim slice after slice in fused multiply-adds."""
    go, y, want = _softmax_backward_case(shape, dim, dtype)
    got = engine._ops._softmax_backward_data(engine.from_numpy(go), engine.from_numpy(y), dim).numpy()
    np.testing.assert_array_equal(got, want)


def _softmax_backward_case(shape, dim, dtype):
    """PyTorch's own bits depend on its threads: a float32 row with a partial vector at its end, run in
    the calling thread (a single row, or PyTorch on one thread), fuses that vector's multiply-add; rows
    shared out between OpenMP's threads do not. The engine follows PyTorch's default on a machine of
    two cores or more, which the reference here is pinned to."""
    rng = np.random.default_rng(8)
    go, y = rng.standard_normal(shape).astype(dtype), rng.random(shape).astype(dtype)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        want = torch._softmax_backward_data(torch.from_numpy(go), torch.from_numpy(y), dim, torch.from_numpy(y).dtype)
    finally:
        torch.set_num_threads(threads)
    return go, y, want.numpy()


@pytest.mark.parametrize("shape, dim", [((20, 100), 1), ((50, 17), 0)])
def test_numpys_order_would_differ_in_softmax_backward(shape, dim):
    go, y, want = _softmax_backward_case(shape, dim, np.float32)
    assert np.mean(y * (go - np.add.reduce(go * y, axis=dim, keepdims=True)) != want) > 0.1


@pytest.mark.parametrize("shape, dim", SOFTMAX_CASES)
def test_softmax_family_rounds_near_pytorchs(shape, dim):
    """Forward and log_softmax's backward: PyTorch's order, reciprocal and fused multiply-add; the one
    difference left is exp, Sleef's in PyTorch's kernels (about one value in ten an ulp off the
    correctly rounded one the engine takes), so a sum over many differs more often."""
    rng = np.random.default_rng(9)
    x, g = (rng.standard_normal(shape) * 3).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
    out = {}
    for T in (engine, torch):
        xt = T.from_numpy(x.copy()).requires_grad_()
        ys = [T.softmax(xt, dim), T.log_softmax(xt, dim)]
        (gx,) = T.autograd.grad(ys[1], xt, T.from_numpy(g.copy()))
        out[T] = [y.detach().numpy() for y in ys] + [gx.numpy()]
    for name, got, want, share in zip(("softmax", "log_softmax", "log_softmax grad"), out[engine], out[torch],
                                      (0.7, 0.9, 0.8)):
        assert np.mean(got == want) >= share, name
        assert np.max(np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).max())) <= 8, name


@pytest.mark.parametrize("shape", [(64, 10), (40, 32), (3, 40, 5), (5, 10)])
def test_softmax_family_of_rows_with_infinities_and_nans(shape):
    """A batch of short rows takes its max down a transposed copy (a few rows, along each row): rows
    with inf, -inf (all of them too), nan, and zeros of both signs give PyTorch's values."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32).reshape(-1, shape[-1])
    x[0, 1], x[1, :], x[2, 0], x[3, 2], x[3, 3] = np.inf, -np.inf, np.nan, np.inf, -np.inf
    x[4, :] = 0.0
    x[4, ::2] = -0.0
    x = x.reshape(shape)
    for name in ("softmax", "log_softmax"):
        got = getattr(engine, name)(engine.from_numpy(x.copy()), -1).numpy()
        want = getattr(torch, name)(torch.from_numpy(x.copy()), -1).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, err_msg=name)
        assert np.array_equal(np.signbit(got)[~np.isnan(got)], np.signbit(want)[~np.isnan(want)]), name


def _moment_calls(nd):
    for dims in [None] + list(range(nd)) + ([(0, nd - 1)] if nd > 1 else []):
        for correction in (0, 1):
            for name in ("var", "std", "var_mean", "std_mean"):
                kw = {"correction": correction} if dims is None else {"dim": dims, "correction": correction}
                yield name, kw


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_var_and_std_are_pytorchs_to_the_last_bit(shape, dtype):
    """float64 inside, as PyTorch: Welford's update, or over everything squared distances to the mean."""
    for view in ("contiguous", "transposed") if len(shape) > 1 else ("contiguous",):
        e, t = _pair(shape, dtype, view, seed=7)
        for name, kw in _moment_calls(len(shape)):
            got, want = getattr(engine, name)(e, **kw), getattr(torch, name)(t, **kw)
            for g, w in zip(got if name.endswith("mean") else (got,), want if name.endswith("mean") else (want,)):
                assert g.dtype == getattr(engine, str(w.dtype).split(".")[1])
                np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"{name} {kw} {view}")


def test_numpys_float32_var_would_differ():
    rows = np.random.default_rng(8).standard_normal((200, 100)).astype(np.float32) * 3 + 1
    want = torch.from_numpy(rows).var(1).numpy()
    assert np.mean(np.var(rows, 1, ddof=1) != want) > 0.2
    np.testing.assert_array_equal(engine.from_numpy(rows).var(1).numpy(), want)
    # var_mean's mean is the variance's own, not mean()'s
    t_var, t_mean = torch.var_mean(torch.from_numpy(rows), 1)
    assert np.mean(t_mean.numpy() != torch.from_numpy(rows).mean(1).numpy()) > 0.2
    np.testing.assert_array_equal(engine.var_mean(engine.from_numpy(rows), 1)[1].numpy(), t_mean.numpy())


@pytest.mark.parametrize("x, kw", [([1.0, 2.0, 4.0], {"correction": 3}), ([1.0, 2.0, 4.0], {"correction": 5}),
                                   ([1.5, 1.5], {"correction": 2}), ([1.0, 2.0, 4.0], {"dim": 0, "correction": 3}),
                                   ([1.0, 2.0, 4.0], {"dim": 0, "correction": 5}), ([[1.0, 2.0], [4.0, 3.0]], {"dim": 1,
                                                                                                        "correction": 2})])
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_var_grad_without_degrees_of_freedom_is_pytorchs(x, kw, name):
    """Overall, PyTorch's grad is inf (nan at the mean); over a dim it divides by n - correction as it is."""
    grads = []
    for T in (engine, torch):
        a = T.tensor(x, requires_grad=True)
        out = getattr(T, name)(a, **kw)
        outs = out if isinstance(out, tuple) else (out,)
        sum((o * (i + 2.0)).sum() for i, o in enumerate(outs)).backward()
        grads.append(a.grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "logcumsumexp"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1])
def test_running_sums_keep_pytorchs_wider_total(name, dtype, dim):
    """float32 running sums and products are kept in float64 (float16 in float32) and rounded per result."""
    x = np.random.default_rng(9).uniform(-2, 2, (30, 400)).astype(dtype)
    if name == "cumprod":
        x = (1 + x / 100).astype(dtype)
    want = getattr(torch, name)(torch.from_numpy(x), dim).numpy()
    np.testing.assert_array_equal(getattr(engine, name)(engine.from_numpy(x), dim).numpy(), want)
    if dtype == np.float32 and name != "logcumsumexp":
        assert np.mean(getattr(np, name)(x, dim) != want) > 0.3


@pytest.mark.parametrize("shape, dims", [((3,), None), ((3, 3), None), ((40,), None), ((3, 20), (1,)), ((20, 3), (0,)),
                                         ((2, 2), (0, 1)), ((4, 5, 6), (0, 2))])
def test_sums_of_negative_zeros_start_from_zero(shape, dims):
    """PyTorch's totals start at 0 and 0 + -0 is 0; NumPy's start at the first number."""
    for T in (engine, torch):
        x = T.full(shape, -0.0)
        assert not T.signbit(x.sum() if dims is None else x.sum(dims)).any()
        assert not T.signbit(x.mean() if dims is None else x.mean(dims)).any()
        assert not T.signbit(x.cumsum(-1)).any()
        assert T.signbit(x.cumprod(-1)[..., 0]).all()  # (1 * -0 is -0)


NORM_CASES = [((5,), None), ((17,), None), ((1000,), None), ((7, 3), 1), ((7, 3), 0), ((3, 40), 1), ((64, 33), -1),
              ((64, 33), 0), ((2, 17, 9), (1, 2)), ((2, 17, 9), (0, 2)), ((2, 17, 9), None), ((4, 1, 5), 1)]


@pytest.mark.parametrize("shape, dim", NORM_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("view", ["contiguous", "transposed"])
def test_vector_norms_are_pytorchs_to_the_last_bit(shape, dim, dtype, view):
    """A 2-norm over numbers that lie one after another in memory in PyTorch's vectorised kernel; any
    other norm number after number, the root's exponent rounded to the dtype."""
    e, t = _pair(shape, dtype, view, seed=11)
    for p in (2, 1, 3, 0.5, -1, math.inf, 0) if dtype == np.float32 else (2, 1, math.inf, 0):
        got = engine.linalg.vector_norm(e, p, dim)
        want = torch.linalg.vector_norm(t, p, dim)
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"ord {p}")
        assert got.dtype == getattr(engine, str(want.dtype).split(".")[1])


def test_numpys_norm_would_differ():
    rows = np.random.default_rng(12).standard_normal((300, 100)).astype(np.float32)
    want = torch.linalg.vector_norm(torch.from_numpy(rows), dim=1).numpy()
    assert np.mean(np.sqrt(np.sum(rows * rows, 1)) != want) > 0.1
    np.testing.assert_array_equal(engine.linalg.vector_norm(engine.from_numpy(rows), dim=1).numpy(), want)


@pytest.mark.parametrize("exponent", [3, -2, -0.5, -1, 2, 4, 1.5, 3.0])
def test_float32_powers_are_pytorchs_kernels(exponent):
    """pow's kernel writes out x * x * x and 1 / (x * x), calls rsqrt and reciprocal; other powers
    are Sleef's (within an ulp of the correctly rounded one the engine takes)."""
    x = np.random.default_rng(13).uniform(0.1, 5, 5000).astype(np.float32)
    got, want = engine.from_numpy(x).pow(exponent).numpy(), torch.from_numpy(x).pow(exponent).numpy()
    if exponent in (3, -2, -0.5, -1, 2, 3.0):
        np.testing.assert_array_equal(got, want)
        assert exponent in (-1, 2) or np.mean(np.power(x, exponent) != want) > 0.1  # (NumPy's float32 power)
    else:
        assert np.mean(got != want) < 0.03
        assert np.all(np.abs(got.view(np.int32) - want.view(np.int32)) <= 1)


def test_empty_norms_without_an_identity_raise_as_pytorchs():
    for T in (engine, torch):
        with pytest.raises(RuntimeError, match=r"cannot compute the -1 norm on an empty tensor because"):
            T.linalg.vector_norm(T.zeros(0, 3), -1)
        with pytest.raises(RuntimeError, match=r"cannot compute the inf norm on the dimension 0because this"):
            T.linalg.vector_norm(T.zeros(0, 3), math.inf, 0)
        with pytest.raises(RuntimeError, match=r"cannot compute the -1.5 norm on an empty tensor"):
            T.norm(T.zeros(0, 3), -1.5)
        assert T.linalg.vector_norm(T.zeros(3, 0), -1, 0).shape == (0,)


NLL_CASES = [(n, c, reduction, weighted, ignored)
             for n, c in ((1, 3), (2, 3), (16, 5), (17, 3), (32, 10), (33, 10), (128, 10), (257, 4), (300, 7), (5000, 3))
             for reduction in ("mean", "sum", "none") for weighted in (False, True) for ignored in (False, True)]


def _nll_inputs(n, c, ignored, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c)) * 3).astype(np.float32)
    y = rng.integers(0, c, n)
    if ignored:
        y[rng.random(n) < 0.3] = -100
        y[16 * rng.integers(0, n // 16 + 1) if n > 16 else 0] = -100  # (a multiple of 16: no level moves up there)
    return x, y, rng.uniform(0.1, 2.0, c).astype(np.float32)


@pytest.mark.parametrize("n, c, reduction, weighted, ignored", NLL_CASES)
def test_nll_loss_adds_in_pytorchs_cascade(n, c, reduction, weighted, ignored):
    """nll_loss's total (and total weight) in PyTorch's eight-level cascade: ``loss.item()`` of a classifier."""
    x, y, w = _nll_inputs(n, c, ignored, seed=n + c)
    out = {}
    for lib in (engine, torch):
        xt = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.nll_loss(xt, lib.tensor(y), weight=lib.tensor(w) if weighted else None,
                                          reduction=reduction)
        loss.sum().backward()
        out[lib] = loss.detach().numpy(), xt.grad.numpy()
    np.testing.assert_array_equal(out[engine][0], out[torch][0])
    np.testing.assert_array_equal(out[engine][1], out[torch][1])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (4, 5, 17, 9), (3, 4, 40)])
def test_cross_entropy_over_pixels_adds_in_pytorchs_cascade(shape):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    y[rng.random(y.shape) < 0.2] = 255
    got = engine.nn.functional.cross_entropy(engine.tensor(x), engine.tensor(y), ignore_index=255).item()
    assert got == torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(y), ignore_index=255).item()


def test_numpys_sum_would_differ_in_nll_loss():
    """The cascade matters: a NumPy sum of the picked terms gives another mean in most batches of 128."""
    differ = 0
    for seed in range(40):
        x, y, _ = _nll_inputs(128, 10, False, seed)
        want = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(y)).item()
        picked = x[np.arange(128), y]
        differ += float(-(np.add.reduce(picked) / np.float32(128))) != want
        assert engine.nn.functional.nll_loss(engine.tensor(x), engine.tensor(y)).item() == want
    assert differ > 10


def test_nll_loss_with_long_runs_between_kept_multiples_of_16():
    """Every multiple of 16 below 4000 ignored: the first run of the cascade spans ~3750 targets."""
    x, y, w = _nll_inputs(5000, 4, False, seed=9)
    y[16:4000:16] = -100
    for weight in (None, w):
        got = engine.nn.functional.nll_loss(engine.tensor(x), engine.tensor(y),
                                            weight=None if weight is None else engine.tensor(weight))
        want = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(y),
                                            weight=None if weight is None else torch.tensor(weight))
        assert got.item() == want.item()
