"""``torch.special`` against real PyTorch 2.13: values in float32 and float64 over grids with the edge
values (0, -0, negatives, integers, inf, nan, huge), dtypes of integer, bool and half inputs, grads and
second derivatives with the node names of both graphs, ``_saved_*`` attributes, forward-mode
tangents, finite-difference checks, broadcasting, printed results, and every error PyTorch raises,
with its class and message."""
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from needs import require

import engine
import engine.special

pytestmark = pytest.mark.torch
torch = require("torch", "pip install torch==2.13.0: the reference every comparison needs")

_INF, _NAN = math.inf, math.nan

# ----- Inputs -----

_EDGE = [0.0, -0.0, 1e-300, 1e-30, 1e-8, 1e-5, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0, 1.5, 2.0, 2.09, 2.5, 3.0, 5.0, 6.1,
         7.9, 8.0, 8.5, 10.0, 13.0, 20.0, 26.7, 30.0, 50.0, 51.0, 88.0, 100.0, 104.0, 700.0, 1e4, 1e8, 1e10, 1e20, 1e300,
         _INF, _NAN]
GRID = np.concatenate([_EDGE, [-v for v in _EDGE if v == v], np.random.default_rng(0).uniform(-12, 12, 200),
                       np.random.default_rng(1).uniform(0, 1, 60), 10 ** np.random.default_rng(2).uniform(-6, 3, 60)])


def both(fn):
    """``fn`` run on PyTorch and on the engine, in that order, with NumPy's warnings off."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(torch), fn(engine)


def outcome(fn, mod):
    """("ok", repr) or (exception class, message)."""
    try:
        return "ok", repr(fn(mod))
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e).__name__, str(e)


def same_outcome(fn):
    ref, ours = outcome(fn, torch), outcome(fn, engine)
    assert ours == ref, f"\nengine: {ours}\ntorch:  {ref}"
    return ref


def T(mod, values, dtype="float64", grad=False):
    return mod.tensor(np.asarray(values), dtype=getattr(mod, dtype), requires_grad=grad)


def values(t):
    return t.detach().numpy()


def assert_values(ours, ref, ulps=4, scale=0.0, where=""):
    """The same dtype, shape, nan and inf positions, signs of zeros, and values to ``ulps`` units in the
    last place of each value (plus ``scale``: an absolute term in ulps of 1, for functions whose value
    crosses zero, where a relative error means nothing)."""
    assert str(ours.dtype) == str(ref.dtype), where
    a, b = values(ours), values(ref)
    assert a.shape == b.shape, where
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"nan at different places {where}")
    np.testing.assert_array_equal(np.isinf(a), np.isinf(b), err_msg=f"inf at different places {where}")
    np.testing.assert_array_equal(a[np.isinf(b)], b[np.isinf(b)], err_msg=where)
    zeros = (a == 0) & (b == 0)
    np.testing.assert_array_equal(np.signbit(a[zeros]), np.signbit(b[zeros]), err_msg=f"signs of zeros {where}")
    fin = np.isfinite(b)
    info = np.finfo(b.dtype)
    err = np.abs(a[fin].astype(np.float64) - b[fin].astype(np.float64))
    tol = ulps * (float(info.eps) * (np.abs(b[fin].astype(np.float64)) + scale) + float(info.smallest_subnormal))
    bad = err > tol
    assert not bad.any(), f"{where}: {bad.sum()} values differ, e.g. engine {a[fin][bad][:4]} torch {b[fin][bad][:4]}"


def graph(t, depth=5):
    """Node names of ``t``'s graph, ``depth`` levels deep."""
    def walk(fn, d):
        if fn is None:
            return None
        return (type(fn).__name__, [walk(f, d - 1) for f, _ in fn.next_functions] if d else [])
    return walk(t.grad_fn, depth)


# ----- torch.special is PyTorch's -----

def test_the_same_names_as_torch_special():
    assert sorted(engine.special.__all__) == sorted(torch.special.__all__)
    for name in torch.special.__all__:
        assert callable(getattr(engine.special, name)), name
    assert engine.special.Tensor is engine.Tensor


def test_loaded_at_first_use():
    """``import engine`` does not load torch.special (start-up time of the page); the attribute and
    ``import engine.special`` do, as ``import torch.special`` does."""
    code = ("import sys, engine\nbefore = 'engine.special' in sys.modules\n"
            "kernels = 'engine._special_kernels' in sys.modules\n"
            "s = engine.special\nimport engine.special as s2\n"
            "print(before, kernels, s is s2 is sys.modules['engine.special'], float(s.i0(engine.tensor(1.0))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:3] == ["False", "False", "True"], out
    assert float(out[3]) == float(torch.special.i0(torch.tensor(1.0)))


# ----- Values of the functions of one tensor -----

# name: (ulps, scale) - scale for those whose value crosses zero (Bessel, Airy: oscillating). The
# float64 i1 family is within 4 ulps on AVX-512 machines and 7 on AVX2 ones (NumPy's exp differs).
UNARY = {
    "i0": (4, 0), "i0e": (4, 0), "i1": (8, 0), "i1e": (8, 0), "modified_bessel_i0": (4, 0),
    "modified_bessel_i1": (8, 0), "modified_bessel_k0": (8, 0), "modified_bessel_k1": (4, 0),
    "scaled_modified_bessel_k0": (8, 0), "scaled_modified_bessel_k1": (4, 0), "bessel_j0": (4, 1),
    "bessel_j1": (4, 1), "bessel_y0": (4, 1), "bessel_y1": (4, 1), "spherical_bessel_j0": (4, 1), "airy_ai": (4, 1),
    "erfcx": (4, 0), "ndtri": (4, 0), "log_ndtr": (4, 0), "entr": (4, 0), "ndtr": (4, 1), "expit": (4, 0),
    "erf": (4, 0), "erfc": (4, 0), "erfinv": (4, 0), "exp2": (4, 0), "expm1": (4, 0), "log1p": (4, 0),
    "logit": (4, 0), "sinc": (4, 1), "gammaln": (8, 1), "digamma": (4, 1), "psi": (4, 1), "round": (0, 0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_values(name, dtype):
    ulps, scale = UNARY[name]
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, GRID, dtype)))
    assert_values(ours, ref, ulps, scale, f"{name} {dtype}")


@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_of_a_2d_and_a_0d_tensor(name):
    grid = GRID[:120].reshape(4, 30)
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, grid).t()))
    assert_values(ours, ref, *UNARY[name], where=name)
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, 0.75, "float32")))
    assert_values(ours, ref, *UNARY[name], where=name)
    assert ours.shape == ref.shape == ()


@pytest.mark.parametrize("name", sorted(set(UNARY) - {"round"}))
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_integer_and_bool_inputs_give_the_default_dtype(name, dtype):
    v = [0, 1, 2, 5, 9] if dtype != "bool" else [False, True, True, False, True]
    ref, ours = both(lambda m: getattr(m.special, name)(m.tensor(v, dtype=getattr(m, dtype))))
    assert str(ours.dtype) == str(ref.dtype) == "torch.float32"
    assert_values(ours, ref, *UNARY[name], where=f"{name} {dtype}")


def test_default_dtype_float64_for_integer_inputs():
    for mod in (torch, engine):
        mod.set_default_dtype(mod.float64)
    try:
        for name in ("i0e", "bessel_y1", "ndtri", "entr", "erfcx"):
            ref, ours = both(lambda m: getattr(m.special, name)(m.tensor([1, 2, 3])))
            assert str(ours.dtype) == "torch.float64"
            assert_values(ours, ref, *UNARY[name], where=name)
    finally:
        for mod in (torch, engine):
            mod.set_default_dtype(mod.float32)


@pytest.mark.parametrize("name", sorted(set(UNARY) - {"ndtr"}))
def test_half(name):
    """Half where PyTorch has a Half kernel (computed in float32, rounded), its error where not."""
    ref = outcome(lambda m: getattr(m.special, name)(m.tensor([0.5, 1.5, -3.0], dtype=m.float16)), torch)
    ours = outcome(lambda m: getattr(m.special, name)(m.tensor([0.5, 1.5, -3.0], dtype=m.float16)), engine)
    assert ours[0] == ref[0], (ours, ref)
    if ref[0] != "ok":
        assert ours == ref
    else:
        r, o = both(lambda m: getattr(m.special, name)(m.tensor([0.5, 1.5, -3.0], dtype=m.float16)))
        assert str(o.dtype) == str(r.dtype) == "torch.float16"
        np.testing.assert_allclose(values(o).astype(np.float64), values(r).astype(np.float64), rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "erfcx", "entr", "bessel_j0",
                                  "bessel_y1", "modified_bessel_k1", "airy_ai", "spherical_bessel_j0", "ndtr"])
def test_printed_results(name):
    x = [0.0, 0.3, 0.7, 1.0, 2.5, -1.5, 12.0]
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, x, "float32")))
    assert repr(ours) == repr(ref)
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, x, "float64", grad=True)))
    assert repr(ours) == repr(ref)
    assert ours.requires_grad == ref.requires_grad


def test_round_ties_and_decimals():
    xs = [0.5, 1.5, 2.5, -0.5, -2.5, 1.2345, 123.456, 5.3, -7.25, 1e30, _INF, _NAN]
    for dtype in ("float32", "float64"):
        for decimals in (0, 1, 2, -1):
            ref, ours = both(lambda m: m.special.round(T(m, xs, dtype), decimals=decimals))
            assert_values(ours, ref, 0, where=f"decimals={decimals}")


# ----- Grads, second derivatives and their graphs -----

# name: points inside the domain (grads in float64 and float32), and edge points whose grads PyTorch also defines
DIFFERENTIABLE = {
    "i0": ([0.3, -1.7, 4.0, 9.5], [0.0, -0.0, 30.0]),
    "i0e": ([0.3, -1.7, 4.0, 9.5], [0.0, 30.0, -1e5]),
    "i1": ([0.3, -1.7, 4.0, 9.5], [0.0, 1e-17, -1e-300, 30.0]),
    "i1e": ([0.3, -1.7, 4.0, 9.5], [0.0, -1e-17, 30.0, 1e5]),
    "erfcx": ([0.3, -1.7, 4.0, 60.0], [0.0, -30.0, 1e8]),
    "ndtri": ([0.3, 0.05, 0.9, 0.999], [0.0, 1.0, 1e-300]),
    "log_ndtr": ([0.3, -1.7, 4.0, -12.0], [0.0, -40.0, 40.0]),
    "entr": ([0.3, 1.7, 4.0, 0.01], [0.0, -1.0, _INF]),
    "ndtr": ([0.3, -1.7, 4.0, -12.0], [0.0, 40.0]),
    "expit": ([0.3, -1.7, 4.0], [0.0, 50.0]),
    "gammaln": ([0.3, 1.7, 4.0, -2.5], [1.0, 2.0]),
    "digamma": ([0.3, 1.7, 4.0, -2.5], [1.0]),
    "psi": ([0.3, 1.7, 4.0, -2.5], [1.0]),
    "erf": ([0.3, -1.7, 2.0], [0.0]),
    "erfc": ([0.3, -1.7, 2.0], [0.0]),
    "erfinv": ([0.3, -0.7, 0.95], [0.0]),
    "exp2": ([0.3, -1.7, 4.0], [0.0]),
    "expm1": ([0.3, -1.7, 4.0], [0.0]),
    "log1p": ([0.3, 1.7, 4.0], [0.0]),
    "logit": ([0.3, 0.7, 0.05], [0.0, 1.0]),
    "sinc": ([0.3, -1.7, 4.5], [0.0]),
}


# log_ndtr's grad is exp(-(log_ndtr(x) + x^2 / 2)): far out, the sum cancels and an ulp of log_ndtr(x) grows
GRAD_ULPS = {"log_ndtr": 4096}


def _grads(mod, name, x, dtype, create_graph=False):
    leaf = T(mod, x, dtype, grad=True)
    y = getattr(mod.special, name)(leaf)
    w = T(mod, np.linspace(0.5, 1.5, len(x)), dtype)
    (g,) = mod.autograd.grad((y * w).sum(), leaf, create_graph=create_graph)
    return y, g, leaf


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_grad_fn_and_grads(name):
    inside, edge = DIFFERENTIABLE[name]
    ulps = GRAD_ULPS.get(name, 8)
    for dtype in ("float64", "float32"):
        (y_ref, g_ref, _), (y, g, _) = both(lambda m: _grads(m, name, inside + edge, dtype))
        assert type(y.grad_fn).__name__ == type(y_ref.grad_fn).__name__
        assert graph(y, 3) == graph(y_ref, 3)
        assert_values(g, g_ref, ulps, 1, f"{name} grad {dtype}")


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_second_derivative_and_its_graph(name):
    inside, _ = DIFFERENTIABLE[name]

    def run(m):
        y, g, leaf = _grads(m, name, inside, "float64", create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), leaf)
        return g, gg

    (g_ref, gg_ref), (g, gg) = both(run)
    assert graph(g, 6) == graph(g_ref, 6)
    assert_values(gg, gg_ref, 16, 1, f"{name} second derivative")


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradcheck_and_gradgradcheck(name):
    x = engine.tensor(DIFFERENTIABLE[name][0], dtype=engine.float64, requires_grad=True)
    fn = getattr(engine.special, name)
    assert engine.autograd.gradcheck(fn, (x,), check_forward_ad=True)
    assert engine.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_forward_ad_tangents(name):
    inside, edge = DIFFERENTIABLE[name]

    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(T(m, inside + edge), T(m, np.linspace(-1.0, 2.0, len(inside + edge))))
            out = fw.unpack_dual(getattr(m.special, name)(d))
            return out.primal, out.tangent

    (p_ref, t_ref), (p, t) = both(run)
    assert_values(p, p_ref, 8, 1, f"{name} primal")
    assert_values(t, t_ref, GRAD_ULPS.get(name, 8), 1, f"{name} tangent")


def test_i1_backward_at_zero_and_the_saved_tensors():
    def run(m):
        x = T(m, [0.0, 1e-20, 2.0], "float32", grad=True)
        y = m.special.i1(x)
        saved = y.grad_fn._saved_self, y.grad_fn._saved_result
        y.sum().backward()
        return (x.grad,) + saved

    ref, ours = both(run)
    for a, b in zip(ours, ref):
        assert_values(a, b, 4)
    assert values(ours[0])[0] == 0.5


@pytest.mark.parametrize("name, saved", [("i0", ["self"]), ("i0e", ["result", "self"]), ("i1e", ["result", "self"]),
                                         ("erfcx", ["result", "self"]), ("ndtri", ["result"]),
                                         ("log_ndtr", ["result", "self"]), ("entr", ["self"])])
def test_saved_attributes(name, saved):
    def run(m):
        x = T(m, [0.25, 0.5], grad=True)
        fn = getattr(m.special, name)(x).grad_fn
        return sorted(a[len("_saved_"):] for a in dir(fn) if a.startswith("_saved_")), \
            [getattr(fn, "_saved_" + a) for a in saved]

    (names_ref, vals_ref), (names, vals) = both(run)
    assert names == names_ref == saved
    for a, b in zip(vals, vals_ref):
        assert_values(a, b, 4)


@pytest.mark.parametrize("name", ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
                                  "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                                  "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"])
def test_not_differentiable(name):
    """PyTorch's non_differentiable: a result that does not require grad, and no tangent."""
    def run(m):
        x = T(m, [0.5, 2.5], grad=True)
        y = getattr(m.special, name)(x)
        fw = m.autograd.forward_ad
        with fw.dual_level():
            t = fw.unpack_dual(getattr(m.special, name)(fw.make_dual(x.detach(), m.ones(2, dtype=m.float64)))).tangent
        try:
            y.sum().backward()
            error = None
        except RuntimeError as e:
            error = str(e)
        return y.requires_grad, y.grad_fn is None, t is None, error

    ref, ours = both(run)
    assert ours == ref
    assert ref[:3] == (False, True, True)


# ----- Functions of a tensor and a tensor or a number -----

_BIN_EDGE = [0.0, -0.0, 1e-10, 0.5, 1.0, 1.5, 2.0, 3.0, 10.0, 25.0, 150.0, 250.0, 1e4, _INF, _NAN, -0.5, -1.0, -2.0,
             -2.5, -10.0]
_A, _B = np.meshgrid(_BIN_EDGE, _BIN_EDGE)
_R = np.random.default_rng(5)
BIN_A = np.concatenate([_A.ravel(), _R.uniform(0, 30, 300), _R.uniform(1, 300, 200)])
BIN_B = np.concatenate([_B.ravel(), _R.uniform(0, 30, 300), BIN_A[-200:] * _R.uniform(0.7, 1.3, 200)])

# name: (ulps and scale in float64, in float32)
BINARY = {"xlog1py": ((4, 0), (4, 0)), "xlogy": ((4, 0), (4, 0)), "zeta": ((4, 0), (4, 0)),
          "gammainc": ((2048, 32), (64, 32)), "gammaincc": ((2048, 32), (64, 32))}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values(name, dtype):
    ulps, scale = BINARY[name][dtype == "float32"]
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, BIN_A, dtype), T(m, BIN_B, dtype)))
    assert_values(ours, ref, ulps, scale, f"{name} {dtype}")


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting_and_promotion(name):
    a = np.array([[0.5], [2.0], [7.5]])
    b = np.array([0.25, 1.0, 3.0, 12.0])
    for da, db in (("float32", "float64"), ("float64", "float32"), ("int64", "float32"), ("float32", "int32")):
        ref, ours = both(lambda m: getattr(m.special, name)(T(m, a, da), T(m, b, db)))
        assert_values(ours, ref, *BINARY[name][str(ref.dtype) == "torch.float32"], where=f"{name} {da} {db}")
    # a 0-dim tensor does not decide the dtype of a dimensioned one of the same kind
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, 2.5, "float64"), T(m, b, "float32")))
    assert str(ours.dtype) == str(ref.dtype) == "torch.float32"
    same_outcome(lambda m: getattr(m.special, name)(m.ones(2), m.ones(3)))
    same_outcome(lambda m: getattr(m.special, name)(m.ones(2, 1), m.ones(3)).shape)


@pytest.mark.parametrize("name", ["xlog1py", "xlogy", "zeta"])
def test_numbers_on_either_side(name):
    b = [0.25, 1.0, 3.0, _NAN, -1.0, 0.0]
    for s in (2.0, 0, 3, -1.5, True):
        ref, ours = both(lambda m: getattr(m.special, name)(s, T(m, b, "float32")))
        assert_values(ours, ref, 4, where=f"{name}({s}, t)")
        ref, ours = both(lambda m: getattr(m.special, name)(T(m, b), s))
        assert_values(ours, ref, 4, where=f"{name}(t, {s})")
        ref, ours = both(lambda m: getattr(m.special, name)(s, m.tensor([1, 2, 3])))
        assert_values(ours, ref, 4, where=f"{name}({s}, int tensor)")
    same_outcome(lambda m: getattr(m.special, name)(2.0, 3.0))
    same_outcome(lambda m: getattr(m.special, name)(m.ones(2), None))
    same_outcome(lambda m: getattr(m.special, name)([1.0], m.ones(2)))


def test_integer_inputs():
    for name in ("xlog1py", "zeta", "xlogy"):
        ref, ours = both(lambda m: getattr(m.special, name)(m.tensor([1, 2, 0]), m.tensor([3, 4, 0])))
        assert_values(ours, ref, 4, where=name)
    for name in ("gammainc", "gammaincc"):
        for dt in ("int64", "int32", "bool"):
            same_outcome(lambda m: getattr(m.special, name)(m.ones(2, dtype=getattr(m, dt)),
                                                           m.ones(2, dtype=getattr(m, dt))))
        ref, ours = both(lambda m: getattr(m.special, name)(m.tensor([1, 2]), T(m, [3.0, 4.0], "float32")))
        assert_values(ours, ref, 8, where=name)
        same_outcome(lambda m: getattr(m.special, name)(2.0, m.ones(2)))
        same_outcome(lambda m: getattr(m.special, name)(m.ones(2), 2))


def test_half_binary():
    for name in ("xlog1py", "zeta", "gammainc", "gammaincc", "xlogy"):
        ref = outcome(lambda m: getattr(m.special, name)(m.tensor([1.5, 2.5], dtype=m.float16),
                                                         m.tensor([0.5, 3.0], dtype=m.float16)), torch)
        ours = outcome(lambda m: getattr(m.special, name)(m.tensor([1.5, 2.5], dtype=m.float16),
                                                          m.tensor([0.5, 3.0], dtype=m.float16)), engine)
        assert ours == ref


# grads of the binary functions: where PyTorch has them, and its error where not
def _binary_grads(m, name, a, b, which, dtype="float64"):
    xa = T(m, a, dtype, grad=0 in which) if not np.isscalar(a) else a
    xb = T(m, b, dtype, grad=1 in which) if not np.isscalar(b) else b
    y = getattr(m.special, name)(xa, xb)
    leaves = [v for v in (xa, xb) if hasattr(v, "requires_grad") and v.requires_grad]
    gs = m.autograd.grad((y * T(m, np.linspace(0.5, 2.0, y.numel()), dtype).reshape(y.shape)).sum(), leaves,
                         create_graph=True)
    return y, gs, leaves


BINARY_GRADS = [
    ("xlog1py", [0.0, 0.5, 2.0, 0.0, -1.5], [0.5, 1.0, 3.0, -1.0, -2.0], (0, 1)),
    ("xlog1py", 2.0, [0.5, 1.0, 3.0, -1.0], (1,)),
    ("xlog1py", [0.0, 0.5, 2.0], 1.5, (0,)),
    ("xlog1py", [0.0, 0.5, 2.0], -2.0, (0,)),
    ("xlogy", [0.0, 0.5, 2.0, 0.0], [0.5, 1.0, 3.0, 0.0], (0, 1)),
    ("zeta", [2.5, 3.0, 4.5], [0.5, 1.0, 3.0], (1,)),
    ("zeta", 3.0, [0.5, 1.0, 3.0], (1,)),
    ("gammainc", [2.5, 3.0, 4.5], [0.5, 1.0, 3.0], (1,)),
    ("gammaincc", [2.5, 3.0, 4.5], [0.5, 1.0, 3.0], (1,)),
]


@pytest.mark.parametrize("name, a, b, which", BINARY_GRADS)
def test_binary_grads(name, a, b, which):
    (y_ref, g_ref, _), (y, g, _) = both(lambda m: _binary_grads(m, name, a, b, which))
    assert type(y.grad_fn).__name__ == type(y_ref.grad_fn).__name__
    assert graph(y) == graph(y_ref)
    for u, v in zip(g, g_ref):
        assert_values(u, v, 8, 1, name)
        assert graph(u, 6) == graph(v, 6)
    (y_ref, g_ref, _), (y, g, _) = both(lambda m: _binary_grads(m, name, a, b, which, "float32"))
    for u, v in zip(g, g_ref):
        assert_values(u, v, 8, 1, name)


@pytest.mark.parametrize("name, a, b, which", BINARY_GRADS)
def test_binary_second_derivatives(name, a, b, which):
    def run(m):
        y, gs, leaves = _binary_grads(m, name, a, b, which)
        return m.autograd.grad(sum(g.sum() for g in gs), leaves, allow_unused=True)

    ref = outcome(run, torch)
    if ref[0] != "ok":  # (a grad that does not depend on the inputs: PyTorch's error, as here)
        assert outcome(run, engine) == ref
        return
    ref, ours = both(run)
    for u, v in zip(ours, ref):
        assert (u is None) == (v is None)
        if v is not None:
            assert_values(u, v, 16, 1, name)


@pytest.mark.parametrize("name, a, b", [("xlog1py", [0.25, 0.5, 2.0], [0.5, -0.5, 3.0]),
                                        ("xlog1py", 2.0, [0.5, -0.5, 3.0]), ("xlog1py", [0.25, 0.5, 2.0], -0.5),
                                        ("xlogy", [0.25, 0.5, 2.0], [0.5, 1.0, 3.0]), ("xlogy", 2.0, [0.5, 3.0]),
                                        ("zeta", 3.0, [0.5, 1.0, 3.0]), ("zeta", [2.5, 3.0, 4.5], [0.5, 1.0, 3.0]),
                                        ("gammainc", [2.5, 3.0, 4.5], [0.5, 1.0, 3.0]),
                                        ("gammaincc", [2.5, 3.0, 4.5], [0.5, 1.0, 3.0])])
def test_binary_gradcheck(name, a, b):
    """Finite differences in float64, where the function is smooth; only the second argument of zeta
    and of the incomplete gamma functions (the first has no derivative in PyTorch)."""
    fn = getattr(engine.special, name)
    if np.isscalar(a):
        f, inputs = (lambda t: fn(a, t)), (b,)
    elif np.isscalar(b):
        f, inputs = (lambda t: fn(t, b)), (a,)
    elif name in ("zeta", "gammainc", "gammaincc"):
        f, inputs = (lambda t: fn(engine.tensor(a, dtype=engine.float64), t)), (b,)
    else:
        f, inputs = fn, (a, b)
    inputs = tuple(engine.tensor(v, dtype=engine.float64, requires_grad=True) for v in inputs)
    assert engine.autograd.gradcheck(f, inputs, check_forward_ad=name not in ("zeta", "gammainc", "gammaincc"))
    assert engine.autograd.gradgradcheck(f, inputs)


@pytest.mark.parametrize("name", ["xlog1py", "xlogy"])
def test_binary_forward_ad(name):
    a, b = [0.0, 0.5, 2.0, 1.5], [0.5, 1.0, 3.0, 2.0]

    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            da = fw.make_dual(T(m, a), T(m, [1.0, -2.0, 0.5, 3.0]))
            db = fw.make_dual(T(m, b), T(m, [0.25, 1.0, -1.0, 2.0]))
            fn = getattr(m.special, name)
            return [fw.unpack_dual(fn(*args)).tangent
                    for args in ((da, db), (da, T(m, b)), (T(m, a), db), (2.0, db), (da, 1.5), (da, -3.0), (da, 0.0))]

    ref, ours = both(run)
    for u, v in zip(ours, ref):
        assert_values(u, v, 8, 1, name)


@pytest.mark.parametrize("name, node", [("zeta", "special_zeta"), ("gammainc", "igamma"), ("gammaincc", "igammac")])
def test_no_forward_ad(name, node):
    def run(m, which):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(T(m, [2.5, 3.0]), T(m, [1.0, 1.0]))
            args = (x, T(m, [1.5, 2.0])) if which == 0 else (T(m, [2.5, 3.0]), x)
            return getattr(m.special, name)(*args)

    def number_first(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            return m.special.zeta(3.0, fw.make_dual(T(m, [1.0]), T(m, [1.0])))

    for which in (0, 1):
        ref = same_outcome(lambda m: run(m, which))
        assert ref[0] == "NotImplementedError" and f"forward AD with {node} that" in ref[1]
    if name == "zeta":
        assert same_outcome(number_first)[0] == "NotImplementedError"


@pytest.mark.parametrize("name, a, b, which", [("zeta", [2.5, 3.0], [0.5, 1.0], (0,)),
                                               ("zeta", [2.5, 3.0], 2.0, (0,)),
                                               ("zeta", [2.5, 3.0], [0.5, 1.0], (0, 1)),
                                               ("gammainc", [2.5, 3.0], [0.5, 1.0], (0,)),
                                               ("gammaincc", [2.5, 3.0], [0.5, 1.0], (0, 1))])
def test_derivatives_pytorch_has_not(name, a, b, which):
    """The input a derivative is not implemented for: PyTorch's error at backward, not at the call."""
    def run(m):
        xa = T(m, a, grad=0 in which)
        xb = T(m, b, grad=1 in which) if not np.isscalar(b) else b
        y = getattr(m.special, name)(xa, xb)
        y.sum().backward()
        return xa.grad

    ref = same_outcome(run)
    assert ref[0] == "NotImplementedError"

    def only_other(m):  # autograd.grad of the other input alone does not run the missing one
        xa, xb = T(m, a, grad=True), T(m, [0.5, 1.0], grad=True)
        return m.autograd.grad(getattr(m.special, name)(xa, xb).sum(), xb)[0]

    if not np.isscalar(b):
        ref, ours = both(only_other)
        assert_values(ours, ref, 8)


def test_binary_grads_of_broadcast_inputs():
    """The grad of an input broadcast against the other is summed back to its shape."""
    def run(m):
        a = T(m, [[1.0], [2.0], [3.0]], grad=True)
        b = T(m, [0.5, 1.0, 2.0, 4.0], grad=True)
        out = list(m.autograd.grad(m.special.xlog1py(a, b).sum(), [a, b]))
        for fn in (m.special.gammainc, m.special.gammaincc, lambda u, v: m.special.zeta(u + 1, v)):
            out += m.autograd.grad(fn(a.detach(), b).sum(), b)
        out += m.autograd.grad(m.special.xlog1py(T(m, [[1.0], [2.0]], "float32"), b).sum(), b)
        return out

    ref, ours = both(run)
    for u, v in zip(ours, ref):
        assert tuple(u.shape) == tuple(v.shape)
        assert_values(u, v, 16, 1)


def test_binary_saved_attributes():
    def run(m):
        x, y = T(m, [0.5, 2.0], grad=True), T(m, [1.5, 3.0], grad=True)
        out = []
        for fn in (m.special.xlog1py(x, y).grad_fn, m.special.xlog1py(2.5, y).grad_fn,
                   m.special.xlog1py(x, 2.5).grad_fn, m.special.zeta(x, y).grad_fn, m.special.zeta(2.5, y).grad_fn,
                   m.special.zeta(x, 2.5).grad_fn, m.special.gammainc(x, y).grad_fn,
                   m.special.gammaincc(x, y).grad_fn, m.special.multigammaln(y, 2).grad_fn):
            attrs = sorted(a for a in dir(fn) if a.startswith("_saved_"))
            out.append((type(fn).__name__, [(a, repr(getattr(fn, a))) for a in attrs]))
        return out

    ref, ours = both(run)
    assert ours == ref


# ----- The orthogonal polynomials -----

POLYNOMIALS = sorted(n for n in torch.special.__all__ if "polynomial" in n)
_PX = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, 0.25, 0.75, 1e-9, 1 - 1e-9, 3.0, -3.0, 100.0, _INF,
                -_INF, 0.9999999])
_PN = np.array([-3, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 20, 50, 127, 128, 129, 511, 512, 513], dtype=float)
_PXX, _PNN = np.meshgrid(_PX, _PN)
PX = np.concatenate([_PXX.ravel(), np.random.default_rng(6).uniform(-1.2, 1.2, 300)])
PN = np.concatenate([_PNN.ravel(), np.random.default_rng(7).integers(0, 40, 300)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values(name, dtype):
    """To a few ulps for small degrees; for large ones, where PyTorch takes cos(n acos(x)) and the like,
    an ulp of acos(x) (the C library's against NumPy's) is multiplied by n."""
    small = PN <= 11
    for part in (small, ~small):
        ref, ours = both(lambda m: getattr(m.special, name)(T(m, PX[part], dtype), T(m, PN[part], dtype)))
        assert_values(ours, ref, 8, 8 * PN[part].max(), f"{name} {dtype}")


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_nan_x_and_odd_degrees(name):
    """nan x: PyTorch's n = 0 gives 1 and n = 1 nan (higher n returns an uninitialised variable in some of
    its kernels, so it is not compared); non-integer, inf and nan degrees truncate as a C cast does."""
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, [_NAN, _NAN, _NAN]), T(m, [0.0, 1.0, -1.0])))
    assert_values(ours, ref, 0, where=name)
    x = [0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    n = [2.5, 3.99, -0.5, _INF, -_INF, _NAN]
    ref, ours = both(lambda m: getattr(m.special, name)(T(m, x), T(m, n)))
    assert_values(ours, ref, 4, 4, name)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_arguments(name):
    for args in (lambda m: (T(m, [0.3, 0.7]), 3), lambda m: (T(m, [0.3, 0.7]), 3.7), lambda m: (0.5, m.tensor([2, 5])),
                 lambda m: (m.tensor([1, 2]), m.tensor([2, 3])), lambda m: (m.tensor([1, 2]), 3),
                 lambda m: (T(m, [[0.3], [0.6]], "float32"), T(m, [1.0, 4.0, 9.0])),
                 lambda m: (T(m, [0.3], "float32"), m.tensor([2, 3])), lambda m: (m.tensor([True, False]), 2),
                 lambda m: (T(m, [0.3, 0.7], grad=True), T(m, [2.0, 3.0], grad=True))):
        ref, ours = both(lambda m: getattr(m.special, name)(*args(m)))
        assert_values(ours, ref, 4, 4, name)
        assert ours.requires_grad is ref.requires_grad is False
        assert repr(ours) == repr(ref)
    same_outcome(lambda m: getattr(m.special, name)(0.5, 3))
    same_outcome(lambda m: getattr(m.special, name)(T(m, [0.5], "float16"), 3))
    same_outcome(lambda m: getattr(m.special, name)(m.ones(2), m.ones(3)))
    same_outcome(lambda m: getattr(m.special, name)(m.ones(2), None))


# ----- multigammaln, polygamma and the aliases with arguments -----

@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_multigammaln(p):
    x = [2.5, 3.0, 7.25, 20.0, 0.4, _INF, _NAN]
    for dtype in ("float32", "float64"):
        ref, ours = both(lambda m: m.special.multigammaln(T(m, x, dtype), p))
        assert_values(ours, ref, 8, 4, f"p={p} {dtype}")
    ref, ours = both(lambda m: m.special.multigammaln(m.tensor([3, 4, 9]), p))
    assert_values(ours, ref, 8, 4, f"p={p} int")

    def run(m):
        leaf = T(m, [2.5, 3.0, 7.25], grad=True)
        y = m.special.multigammaln(leaf, p)
        (g,) = m.autograd.grad(y.sum(), leaf, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), leaf)
        return y, g, gg

    ref, ours = both(run)
    assert graph(ours[0]) == graph(ref[0]) and graph(ours[1], 6) == graph(ref[1], 6)
    for u, v in zip(ours, ref):
        assert_values(u, v, 8, 4)
    x = engine.tensor([2.5, 3.0, 7.25], dtype=engine.float64, requires_grad=True)
    assert engine.autograd.gradcheck(lambda t: engine.special.multigammaln(t, p), (x,), check_forward_ad=True)
    assert engine.autograd.gradgradcheck(lambda t: engine.special.multigammaln(t, p), (x,))


def test_multigammaln_forward_ad_and_errors():
    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(T(m, [2.5, 4.0]), T(m, [1.0, -0.5]))
            return fw.unpack_dual(m.special.multigammaln(d, 3)).tangent

    ref, ours = both(run)
    assert_values(ours, ref, 8)
    ref, ours = both(lambda m: m.special.multigammaln(T(m, np.linspace(0.6, 40, 50), "float16"), 3))
    assert str(ours.dtype) == str(ref.dtype) == "torch.float16"
    np.testing.assert_allclose(values(ours).astype(float), values(ref).astype(float), rtol=2e-3)
    same_outcome(lambda m: m.special.multigammaln(m.tensor([True]), 2))
    same_outcome(lambda m: m.special.multigammaln(m.ones(2), 0))
    same_outcome(lambda m: m.special.multigammaln(m.ones(2), 2.0))
    same_outcome(lambda m: m.special.multigammaln(m.ones(2), True))
    same_outcome(lambda m: m.special.multigammaln(2.0, 2))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma(n):
    x = [0.3, 1.5, 4.0, -2.5, 0.0, -1.0, -2.0, 1e-8, 1e10, _INF, _NAN]
    for dtype in ("float32", "float64"):
        ref, ours = both(lambda m: m.special.polygamma(n, T(m, x, dtype)))
        assert_values(ours, ref, 8, 1, f"n={n} {dtype}")

    def run(m):
        leaf = T(m, [0.3, 1.5, 4.0], grad=True)
        y = m.special.polygamma(n, leaf)
        (g,) = m.autograd.grad(y.sum(), leaf, create_graph=True)
        return y, g

    (y_ref, g_ref), (y, g) = both(run)
    assert type(y.grad_fn).__name__ == type(y_ref.grad_fn).__name__ == "PolygammaBackward0"
    assert graph(g) == graph(g_ref)
    assert_values(g, g_ref, 8)
    same_outcome(lambda m: m.special.polygamma(-1, m.ones(2)))
    same_outcome(lambda m: m.special.polygamma(1.5, m.ones(2)))
    same_outcome(lambda m: m.special.polygamma(n, 2.0))


def test_aliases_with_arguments():
    x = [[0.25, -1.5, 3.0], [2.0, 0.5, -0.75]]
    for fn in (lambda m: m.special.softmax(T(m, x, "float32"), 1),
               lambda m: m.special.softmax(T(m, x, "float32"), 0, dtype=m.float64),
               lambda m: m.special.log_softmax(T(m, x, grad=True), -1),
               lambda m: m.special.log_softmax(T(m, x, "float32"), 1, dtype=m.float64),
               lambda m: m.special.softmax(m.tensor([2, 1]), 0, dtype=m.float64),
               lambda m: m.special.log_softmax(m.tensor([2, 1]), 0),
               lambda m: m.special.logsumexp(T(m, x, grad=True), 1),
               lambda m: m.special.logsumexp(T(m, x), (0, 1), keepdim=True),
               lambda m: m.special.logit(T(m, [0.0, 0.25, 0.5, 1.0], grad=True)),
               lambda m: m.special.logit(T(m, [0.0, 0.25, 0.5, 1.0], grad=True), eps=0.3),
               lambda m: m.special.logit(T(m, [0.0, 0.25, 0.5, 1.0]), 0.3),
               lambda m: m.special.round(T(m, [0.5, 1.5, 2.345], grad=True), decimals=1),
               lambda m: m.special.round(T(m, [0.5, 1.5, 2.345], grad=True)),
               lambda m: m.special.round(m.tensor([1, 2])),
               lambda m: m.special.round(T(m, [1.5]), decimals=1.5),
               lambda m: m.special.softmax(T(m, x)),
               lambda m: m.special.log_softmax(T(m, x)),
               lambda m: m.special.logsumexp(T(m, x)),
               lambda m: m.special.expit(T(m, x, grad=True)),
               lambda m: m.special.gammaln(T(m, x, grad=True)),
               lambda m: m.special.psi(T(m, x, grad=True)),
               lambda m: m.special.xlogy(T(m, [0.0, 1.5], grad=True), T(m, [0.0, 2.0], grad=True)),
               lambda m: m.special.xlogy(2.0, T(m, [0.5, 2.0], grad=True)),
               lambda m: m.special.xlogy(T(m, [0.0, 2.0], grad=True), 0.0)):
        same_outcome(fn)


@pytest.mark.parametrize("name", sorted(set(UNARY) | {"multigammaln", "polygamma"}))
def test_tensor_arguments_only(name):
    args = {"multigammaln": lambda v: (v, 2), "polygamma": lambda v: (1, v)}.get(name, lambda v: (v,))
    for v in (2.0, [1.0, 2.0], None, 3):
        ref = same_outcome(lambda m: getattr(m.special, name)(*args(v)))
        assert ref[0] == "TypeError"


@pytest.mark.parametrize("name", ["i0", "i1", "i0e", "i1e", "erfcx", "ndtri", "log_ndtr", "entr", "ndtr"])
def test_no_grad_and_inference_mode(name):
    def run(m):
        x = T(m, [0.25, 0.5], grad=True)
        with m.no_grad():
            a = getattr(m.special, name)(x)
        with m.inference_mode():
            b = getattr(m.special, name)(x)
        return a.requires_grad, a.grad_fn, b.requires_grad, repr(a), repr(b)

    ref, ours = both(run)
    assert ours == ref


# ----- As user code writes it -----

CELLS = [
    "import torch\nimport torch.special\nfrom torch.special import i0e, xlog1py, zeta as z\ntorch.special.i0e is i0e",
    "x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)\ny = torch.special.i1(x)\ny",
    "y.sum().backward()\nx.grad",
    "torch.special.erfcx(torch.tensor([-1.0, 0.0, 10.0])), torch.special.ndtri(torch.tensor([0.0, 0.25, 1.0]))",
    "torch.special.log_ndtr(torch.tensor([-30.0, 0.0, 3.0], requires_grad=True))",
    "torch.special.entr(torch.tensor([-1.0, 0.0, 0.5, 1.0]))",
    "xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 3.0])), z(torch.tensor([2.0, 4.0]), 1.0)",
    "torch.special.gammainc(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0])), "
    "torch.special.gammaincc(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0]))",
    "torch.special.multigammaln(torch.tensor([[2.5, 3.0], [4.0, 5.5]], requires_grad=True), 3)",
    "torch.special.bessel_j0(torch.arange(4.0)), torch.special.airy_ai(torch.tensor([-3.0, 0.0, 3.0]))",
    "torch.special.chebyshev_polynomial_t(torch.tensor([0.5, 2.0]), torch.tensor([3, 4])), "
    "torch.special.hermite_polynomial_h(torch.tensor([0.5]), 5)",
    "torch.special.zeta(torch.tensor([2.0], requires_grad=True), torch.tensor([1.0])).backward()",
    "torch.special.polygamma(2, torch.tensor([1.5, 3.0])), torch.special.psi(torch.tensor([1.0]))",
    "torch.special.softmax(torch.tensor([[1.0, 2.0, 3.0]]), dim=1), torch.special.logsumexp(torch.ones(2, 3), 1)",
    "torch.special.round(torch.tensor([2.5, 3.5]))",
]


def test_cells_show_what_pytorch_shows():
    """Cells as notebooks write them, ``import torch.special`` included (the playground binds torch so)."""
    from torch_binding import run_cells

    assert run_cells(CELLS, engine) == run_cells(CELLS, torch)


def test_torch_level_names():
    """torch.i0, igamma, igammac, mvlgamma and their Tensor methods: the same functions as torch.special's."""
    def run(m):
        x = T(m, [1.5, 2.5], grad=True)
        y = T(m, [0.5, 3.0])
        out = [m.i0(x), x.i0(), m.mvlgamma(x + 2, 2), x.mvlgamma(1), m.igamma(y, y), y.igammac(y)]
        (out[0].sum() + out[2].sum()).backward()
        return out + [x.grad]
    ref, ours = both(run)
    for u, v in zip(ours, ref):
        assert_values(u, v, 8, 1, "torch-level")
    assert [t.grad_fn.name() for t in run(engine)[:4]] == ["I0Backward0", "I0Backward0", "MvlgammaBackward0",
                                                            "MvlgammaBackward0"]
