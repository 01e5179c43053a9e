"""``torch.linalg.matrix_exp`` against real PyTorch 2.13: values in float32 and float64 (each Taylor
degree and the scaling and squaring), grads and double backward with PyTorch's graph, errors.

The forward is PyTorch's algorithm step for step, so where the matrix products are exact (diagonal
matrices) the values are PyTorch's bit for bit; elsewhere the BLAS differ (MKL against OpenBLAS), and
values are compared to a few ulps of the matrix's largest entry, more after many squarings."""
import numpy as np
import pytest

from tests.engine.opinfo import same

pytestmark = pytest.mark.torch

_NAN, _INF = float("nan"), float("inf")

# 1-norms inside each of PyTorch's degree intervals (float32, float64): degrees 1, 2, 4, 8, 12, 18,
# then 18 with 1, 3 and 5 or 6 squarings
NORMS = {"float32": (5e-8, 3e-4, 0.03, 0.4, 1.2, 2.5, 5.0, 20.0, 60.0),
         "float64": (1e-16, 1e-8, 2e-4, 0.03, 0.2, 0.8, 2.0, 8.0, 60.0)}


def matrix(n, norm, seed=0, batch=()):
    """A random n x n matrix (or batch of them) of 1-norm ``norm``."""
    a = np.random.default_rng(seed).standard_normal(batch + (n, n))
    return a * (norm / np.abs(a).sum(-2).max(-1))[..., None, None]


def diagonal(n, norm, seed=0, batch=()):
    a = np.zeros(batch + (n, n))
    i = np.arange(n)
    a[..., i, i] = np.random.default_rng(seed).standard_normal(batch + (n,))
    return a * (norm / np.abs(a).sum(-2).max(-1))[..., None, None]


def mexp(T, a, dtype, grad=False):
    return T.linalg.matrix_exp(T.tensor(a, dtype=getattr(T, dtype), requires_grad=grad))


def assert_ulps(ours, ref, ulps, a=None):
    """Each entry within ``ulps`` spacings of the largest entry of its matrix (the accuracy a matrix
    product has: a small entry is a difference of large ones) or, given the input ``a``, of
    ``exp(|a|)``, which bounds every term the algorithm sums (the result can be far smaller)."""
    ours, ref = ours.detach().numpy(), ref.detach().numpy()
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    top = np.abs(ref) if a is None else _expm_abs(a)
    scale = np.spacing(top.max(axis=(-2, -1), keepdims=True).astype(ref.dtype))
    err = np.abs(ours.astype(np.float64) - ref.astype(np.float64)) / scale
    assert err.max() <= ulps, f"{err.max()} ulps"


def _expm_abs(a):
    """exp(|a|) by its Taylor series in float64 (entrywise nonnegative terms: no cancellation)."""
    x = np.abs(a) / 2 ** 8
    term = out = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    for k in range(1, 30):
        term = term @ x / k
        out = out + term
    for _ in range(8):
        out = out @ out
    return out


# ===== Values =====

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", range(9))
@pytest.mark.parametrize("n", [2, 3, 6])
def test_values_each_degree(n, k, dtype, torch_ref, et):
    norm = NORMS[dtype][k]
    a = matrix(n, norm, seed=n + 10 * k)
    ulps = 4 if k < 6 else 4 * 2 ** (k - 5)  # each squaring can double a difference
    assert_ulps(mexp(et, a, dtype), mexp(torch_ref, a, dtype), ulps, a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_exact_where_products_are(dtype, torch_ref, et):
    """Diagonal matrices: every product is exact, so the polynomial, its coefficients, the sums' order,
    the scaling and the squarings are PyTorch's to the last bit (overflow to inf and nan included)."""
    for k, norm in enumerate(NORMS[dtype] + (1e3,)):
        for batch in ((), (3,)):
            a = diagonal(4, norm, seed=k, batch=batch)
            ours, ref = mexp(et, a, dtype).numpy(), mexp(torch_ref, a, dtype).numpy()
            np.testing.assert_array_equal(ours, ref, err_msg=f"norm {norm} batch {batch}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_batched(dtype, torch_ref, et):
    """A batch takes degree 18 for every matrix (PyTorch's choice), each with its own scaling."""
    a = np.stack([matrix(3, norm, seed=i) for i, norm in enumerate(NORMS[dtype][:8])]).reshape(2, 4, 3, 3)
    assert_ulps(mexp(et, a, dtype), mexp(torch_ref, a, dtype), 8, a)
    one = a[0, 2]  # alone it takes a lower degree: a few ulps from its value in the batch
    assert_ulps(mexp(et, one, dtype), mexp(et, a, dtype)[0, 2], 4, one)
    assert not np.array_equal(mexp(et, a, dtype)[0, 2].numpy(), mexp(et, one, dtype).numpy())


def test_values_special(torch_ref, et):
    same(torch_ref, et, lambda T: (
        T.linalg.matrix_exp(T.zeros(0, 0)), T.linalg.matrix_exp(T.zeros(2, 0, 0, dtype=T.float64)),
        T.linalg.matrix_exp(T.tensor([[[1.5]], [[-2.0]]])), T.linalg.matrix_exp(T.zeros(3, 3)),
        T.linalg.matrix_exp(T.tensor([[_NAN, 0.0], [0.0, 1.0]])),
        T.linalg.matrix_exp(T.tensor([[[_NAN, 0.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]])),
        T.linalg.matrix_exp(T.tensor([[_INF, 0.0], [0.0, 1.0]])),
        T.linalg.matrix_exp(T.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=T.float64) * (T.pi / 2))))


def test_aliases_and_layout(torch_ref, et):
    a = matrix(3, 1.0)
    for T in (torch_ref, et):
        x = T.tensor(a, requires_grad=True)
        outs = (T.matrix_exp(x), x.matrix_exp(), T.linalg.matrix_exp(x.mT), T.linalg.matrix_exp(x.expand(2, 3, 3)))
        assert [o.grad_fn.name() for o in outs] == ["LinalgMatrixExpBackward0"] * 4
        assert all(o.is_contiguous() for o in outs)
    same(torch_ref, et, lambda T: (T.matrix_exp(T.tensor(a)), T.tensor(a).matrix_exp(),
                                   T.linalg.matrix_exp(T.tensor(a).mT)))


def test_errors(torch_ref, et):
    for bad in (lambda T: T.ones(2, 3), lambda T: T.ones(3), lambda T: T.ones(2, 4, 3),
                lambda T: T.tensor([[1, 2], [3, 4]]), lambda T: T.tensor(1.0)):
        same(torch_ref, et, lambda T: T.linalg.matrix_exp(bad(T)))
        same(torch_ref, et, lambda T: T.matrix_exp(bad(T)))
    with pytest.raises(RuntimeError, match=r"linalg.matrix_exp: A must be batches of square matrices, but they are "
                                           r"2 by 3 matrices"):
        et.linalg.matrix_exp(et.ones(2, 3))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: The input tensor A must have at least 2 dimensions."):
        et.matrix_exp(et.ones(3))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: Expected a floating point or complex tensor as input. "
                                           "Got Long"):
        et.tensor([[1, 2], [3, 4]]).matrix_exp()


# ===== Grads =====

def walk(fn, depth=8):
    """Node names, output numbers and the saved slice bounds, ``depth`` levels down."""
    if fn is None:
        return None
    info = tuple(getattr(fn, f"_saved_{k}", None) for k in ("dim", "start", "end"))
    kids = [(walk(f, depth - 1), nr) for f, nr in fn.next_functions] if depth else []
    return (fn.name(), info, kids)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,norm", [((3, 3), 0.02), ((3, 3), 0.7), ((4, 4), 6.0), ((2, 3, 3), 1.0),
                                        ((1, 1), 0.5)])
def test_grads(shape, norm, dtype, torch_ref, et):
    a = matrix(shape[-1], norm, batch=shape[:-2])
    w = np.random.default_rng(5).standard_normal(shape)

    def run(T):
        x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        y = T.linalg.matrix_exp(x)
        (y * T.tensor(w, dtype=getattr(T, dtype))).sum().backward()
        return y, x.grad
    (y, g), (y_ref, g_ref) = run(et), run(torch_ref)
    assert_ulps(y, y_ref, 4, a)
    assert_ulps(g, g_ref, 8, np.abs(a) + np.abs(w))


def test_node_and_saved(torch_ref, et):
    def run(T):
        x = T.tensor(matrix(3, 1.0), requires_grad=True)
        y = T.linalg.matrix_exp(x * 2)
        node = y.grad_fn
        return (node.name(), [(f.name(), nr) for f, nr in node.next_functions], node._saved_self.grad_fn.name(),
                node._saved_self.equal(x * 2), T.matrix_exp(x.detach()).grad_fn)
    assert run(et) == run(torch_ref)


def test_double_backward(torch_ref, et):
    """The grad under create_graph is PyTorch's composite: exp of the block matrix (built by three
    CopySlices into zeros), sliced twice; the second derivatives follow."""
    a = matrix(3, 1.3)
    g0 = np.random.default_rng(1).standard_normal((3, 3))

    def run(T):
        x = T.tensor(a, requires_grad=True)
        gy = T.tensor(g0, requires_grad=True)
        g, = T.autograd.grad(T.linalg.matrix_exp(x), x, gy, create_graph=True)
        h = T.autograd.grad((g * g).sum(), (x, gy))
        return walk(g.grad_fn), g, h
    (graph, g, h), (graph_ref, g_ref, h_ref) = run(et), run(torch_ref)
    assert graph == graph_ref
    assert_ulps(g, g_ref, 8, np.abs(a) + np.abs(g0))
    for u, v in zip(h, h_ref):
        assert_ulps(u, v, 8, np.abs(a) + np.abs(g0))


@pytest.mark.parametrize("shape,norm", [((3, 3), 0.02), ((3, 3), 0.8), ((3, 3), 4.0), ((2, 2, 2), 1.5),
                                        ((1, 1), 0.7)])
def test_gradcheck_and_gradgradcheck(shape, norm, et):
    x = et.tensor(matrix(shape[-1], norm, seed=3, batch=shape[:-2]), requires_grad=True)
    assert et.autograd.gradcheck(et.linalg.matrix_exp, (x,))
    assert et.autograd.gradgradcheck(et.linalg.matrix_exp, (x,))


# ===== householder_product (orgqr) and geqrf =====

def reflectors(shape, k=None, seed=0):
    """(a, tau) of PyTorch's geqrf of a random matrix, tau cut to its first k entries."""
    import torch

    a, tau = torch.geqrf(torch.tensor(np.random.default_rng(seed).standard_normal(shape)))
    return a.numpy(), tau.numpy()[..., :k]


HH_SHAPES = [((5, 3), None), ((5, 3), 2), ((4, 4), None), ((4, 4), 1), ((2, 6, 3), None), ((2, 1, 3, 3), 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,k", HH_SHAPES)
def test_householder_product_values(shape, k, dtype, torch_ref, et):
    a, tau = reflectors(shape, k)

    def run(T):
        dt = getattr(T, dtype)
        return T.linalg.householder_product(T.tensor(a, dtype=dt), T.tensor(tau, dtype=dt))
    ours, ref = run(et), run(torch_ref)
    assert ours.stride() == ref.stride()  # column-major, as LAPACK leaves it
    assert_ulps(ours, ref, 4)


def test_householder_product_special(torch_ref, et):
    same(torch_ref, et, lambda T: (
        T.linalg.householder_product(T.ones(4, 3), T.zeros(0)), T.linalg.householder_product(T.ones(4, 0), T.zeros(0)),
        T.linalg.householder_product(T.ones(2, 4, 3), T.zeros(2, 0)),
        T.linalg.householder_product(T.tensor([[1.0, 0.0], [0.5, 1.0], [0.0, 2.0]]), T.tensor([0.0, 2.0])),
        T.orgqr(T.tensor([[1.0, 0.0], [0.5, 1.0], [0.0, 2.0]]), T.tensor([1.6, 0.4])),
        T.tensor([[1.0, 0.0], [0.5, 1.0], [0.0, 2.0]]).orgqr(T.tensor([1.6, 0.4]))))


def test_householder_product_errors(torch_ref, et):
    for bad in ((lambda T: T.ones(3), lambda T: T.ones(1)), (lambda T: T.ones(3, 4), lambda T: T.ones(2)),
                (lambda T: T.ones(4, 3), lambda T: T.ones(4)), (lambda T: T.ones(4, 3), lambda T: T.ones(2, 2)),
                (lambda T: T.ones(4, 3), lambda T: T.tensor(1.0)), (lambda T: T.ones(2, 4, 3), lambda T: T.ones(3, 2)),
                (lambda T: T.ones(2, 2, 4, 3), lambda T: T.ones(2, 3, 2)),
                (lambda T: T.ones(4, 3), lambda T: T.ones(2, dtype=T.float64)),
                (lambda T: T.ones(4, 3, dtype=T.long), lambda T: T.ones(2, dtype=T.long)),
                (lambda T: T.ones(4, 3, dtype=T.half), lambda T: T.ones(2, dtype=T.half))):
        same(torch_ref, et, lambda T: T.linalg.householder_product(bad[0](T), bad[1](T)))
        same(torch_ref, et, lambda T: T.orgqr(bad[0](T), bad[1](T)))
    with pytest.raises(RuntimeError, match=r"torch.linalg.householder_product: Expected batch dimensions of tau to be "
                                           r"equal to input.shape\[:-2\], but got \[2, 3\]"):
        et.linalg.householder_product(et.ones(2, 2, 4, 3), et.ones(2, 3, 2))
    with pytest.raises(RuntimeError, match="torch.linalg.householder_product: input.shape\\[-2\\] must be greater than "
                                           "or equal to input.shape\\[-1\\]"):
        et.orgqr(et.ones(3, 4), et.ones(2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,k", HH_SHAPES)
def test_householder_product_grads(shape, k, dtype, torch_ref, et):
    """First order (PyTorch updates K in place) and second order (out of place), both inputs."""
    a, tau = reflectors(shape, k, seed=1)
    n = shape[-1]
    w = np.random.default_rng(2).standard_normal(shape)

    def run(T):
        dt = getattr(T, dtype)
        A, t = T.tensor(a, dtype=dt, requires_grad=True), T.tensor(tau, dtype=dt, requires_grad=True)
        loss = (T.linalg.householder_product(A, t) * T.tensor(w, dtype=dt)).sum()
        first = T.autograd.grad(loss, (A, t), retain_graph=True)
        second = T.autograd.grad(loss, (A, t), create_graph=True)
        third = T.autograd.grad((second[0] ** 2).sum() + (second[1] ** 2).sum(), (A, t))
        return first + second + third
    for ours, ref in zip(run(et), run(torch_ref)):
        scale = np.spacing(np.abs(ref.detach().numpy()).max())
        assert np.abs(ours.detach().numpy() - ref.detach().numpy()).max() <= 16 * n * scale
    zero_cols = run(et)[0].numpy()[..., :, tau.shape[-1]:]
    assert not zero_cols.any()  # only the first k columns are read


def test_householder_product_graph(torch_ref, et):
    """Node, saved tensors, and the graph PyTorch's out-of-place double-backward formula builds."""
    a, tau = reflectors((4, 3))

    def run(T):
        A, t = T.tensor(a, requires_grad=True), T.tensor(tau, requires_grad=True)
        Q = T.linalg.householder_product(A, t)
        node = Q.grad_fn
        saved = (node._saved_input.equal(A), node._saved_tau.equal(t), node._saved_result.equal(Q))
        gA, gt = T.autograd.grad(Q, (A, t), T.ones_like(Q), create_graph=True)
        return (node.name(), [(f.name(), nr) for f, nr in node.next_functions], saved, walk(gA.grad_fn, 30),
                walk(gt.grad_fn, 30), T.orgqr(A, t).grad_fn.name())
    assert run(et) == run(torch_ref)


@pytest.mark.parametrize("shape,k", [((4, 3), None), ((4, 4), 2), ((2, 3, 2), None)])
def test_householder_product_gradcheck(shape, k, et):
    a, tau = reflectors(shape, k, seed=4)
    xs = (et.tensor(a, requires_grad=True), et.tensor(tau, requires_grad=True))
    assert et.autograd.gradcheck(et.linalg.householder_product, xs)
    assert et.autograd.gradgradcheck(et.linalg.householder_product, xs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
def test_geqrf(shape, dtype, torch_ref, et):
    x = np.random.default_rng(3).standard_normal(shape)
    ours, ref = (T.geqrf(T.tensor(x, dtype=getattr(T, dtype))) for T in (et, torch_ref))
    assert type(ours).__name__ == type(ref).__name__ == "geqrf" and ours[0] is ours.a and ours[1] is ours.tau
    assert ours.a.stride() == ref.a.stride() and ours.tau.shape == ref.tau.shape
    assert_ulps(ours.a, ref.a, 8)
    np.testing.assert_allclose(ours.tau.numpy(), ref.tau.numpy(), rtol=8 * np.finfo(dtype).eps)


def test_geqrf_exact_and_errors(torch_ref, et):
    same(torch_ref, et, lambda T: (T.geqrf(T.eye(2)), T.geqrf(T.tensor([[-1.0, 0.0], [0.0, 2.0]])), T.geqrf(T.zeros(0, 3)),
                                   T.geqrf(T.zeros(2, 3, 0)), T.eye(2).geqrf(), repr(T.geqrf(T.eye(2))),
                                   [(r.a.requires_grad, r.a.grad_fn.name(), r.tau.grad_fn.name())
                                    for r in [T.geqrf(T.eye(2, requires_grad=True))]]))
    for fn in (lambda T: T.geqrf(T.ones(3)), lambda T: T.geqrf(T.ones(3, 3, dtype=T.long)),
               lambda T: T.geqrf(T.ones(3, 3, dtype=T.half)),
               lambda T: T.geqrf(T.eye(3, requires_grad=True))[0].sum().backward(),
               lambda T: T.geqrf(T.eye(3, requires_grad=True)).tau.sum().backward()):
        same(torch_ref, et, fn)
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        et.geqrf(et.eye(3, requires_grad=True)).a.sum().backward()


def test_select_of_a_vector_element_is_a_view(torch_ref, et):
    """(what householder_product's backward relies on to write its tau grads)"""
    def run(T):
        z = T.zeros(3)
        z.select(-1, 1).copy_(T.tensor(5.0))
        z[2].fill_(2.0)
        x = T.ones(3, requires_grad=True)
        y = x * 1
        y[0].mul_(3)
        y.sum().backward()
        return z, y, x.grad, y.grad_fn.name()
    same(torch_ref, et, run)


# ===== nn.utils.parametrizations.orthogonal =====

def names(fn, out=None, depth=0):
    """Node names of a graph, depth first."""
    out = [] if out is None else out
    out.append((depth, None if fn is None else fn.name()))
    for f, _ in (fn.next_functions if fn is not None else ()):
        names(f, out, depth + 1)
    return out


def orth_run(T, shape, omap, triv, steps=2):
    """A Linear made orthogonal after a seed, trained a few SGD steps: its weights, grads and graph."""
    T.manual_seed(0)
    m = T.nn.Linear(shape[1], shape[0])
    T.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    x = T.randn(4, shape[1])
    out = [m.weight.detach().clone(), names(m.weight.grad_fn), str(m), hasattr(m.parametrizations.weight[0], "base")]
    for _ in range(steps):
        opt.zero_grad()
        (m(x) ** 2).sum().backward()
        out.append(m.parametrizations.weight.original.grad.clone())
        opt.step()
        out.append(m.weight.detach().clone())
    return out


@pytest.mark.parametrize("triv", [True, False])
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder", None])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal(shape, omap, triv, torch_ref, et):
    ours, ref = orth_run(et, shape, omap, triv), orth_run(torch_ref, shape, omap, triv)
    assert ours[1:4] == ref[1:4]  # the graph of the weight, the module's repr, the base buffer
    # float32: weights (orthogonal, entries at most 1) to 2e-6; the grads sum products of the
    # outputs and inputs (entries up to ~10), to 2e-5
    for i, (u, v) in enumerate(zip(ours[:1] + ours[4:], ref[:1] + ref[4:])):
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=0, atol=2e-6 if i % 2 == 0 else 2e-5)
    W = ours[-1].double()
    small = W @ W.mT if shape[0] < shape[1] else W.mT @ W
    np.testing.assert_allclose(small.numpy(), np.eye(min(shape)), atol=1e-5)


def test_orthogonal_batched_and_double(torch_ref, et):
    def run(T):
        T.manual_seed(1)
        m = T.nn.Module()
        m.register_parameter("weight", T.nn.Parameter(T.randn(2, 4, 3, dtype=T.float64)))
        T.nn.utils.parametrizations.orthogonal(m)
        W = m.weight
        (W * T.arange(24, dtype=T.float64).reshape(2, 4, 3)).sum().backward()
        return W.detach(), m.parametrizations.weight.original.grad, names(W.grad_fn)
    ours, ref = run(et), run(torch_ref)
    assert ours[2] == ref[2]
    for u, v in zip(ours[:2], ref[:2]):
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=0, atol=1e-12)


def test_orthogonal_assign_and_errors(torch_ref, et):
    def assign(T, omap, triv, shape=(3, 3)):
        T.manual_seed(2)
        m = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), orthogonal_map=omap, use_trivialization=triv)
        m.weight = T.randn(shape)
        return m.weight
    for omap, triv in (("matrix_exp", True), ("householder", True), ("householder", False), ("cayley", True)):
        ours, ref = assign(et, omap, triv), assign(torch_ref, omap, triv)
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=0, atol=1e-6)
    for fn in (lambda T: assign(T, "matrix_exp", False), lambda T: assign(T, "cayley", False),
               lambda T: assign(T, "householder", True, (3, 4)),
               lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), orthogonal_map="qr"),
               lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), "bias"),
               lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), "kernel")):
        same(torch_ref, et, fn)
    with pytest.raises(NotImplementedError, match="It is not possible to assign to the matrix exponential or the "
                                                  "Cayley parametrizations when use_trivialization=False."):
        assign(et, "cayley", False)
