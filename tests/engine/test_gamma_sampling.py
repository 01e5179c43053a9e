"""The gamma-family kernels (engine/_gamma.py) against PyTorch 2.13: ``torch._standard_gamma``,
``_standard_gamma_grad``, ``_sample_dirichlet``, ``_dirichlet_grad`` and ``binomial`` give PyTorch's
values bit for bit after the same seed, in float64 and float32, and leave the generator where
PyTorch leaves it; Gamma, Chi2, Beta, Dirichlet and Binomial sample and differentiate as PyTorch's.

Float32 needs no tolerance either: PyTorch draws and computes in double and rounds once, and where
its float kernels call the C library's float functions (logf, powf in dirichlet_grad_one) the engine
calls the same ones. Only where ctypes cannot reach them (Pyodide) do those round a double result,
which can differ from logf's in the last bit (checked below by forcing that path).
"""
import numpy as np
import pytest

pytestmark = pytest.mark.torch

ALPHAS = [1e-3, 0.01, 0.3, 0.5, 0.9, 1.0, 1.5, 2.0, 3.7, 8.5, 10.0, 100.0, 1e4]


def seeded(T, seed, fn):
    T.manual_seed(seed)
    return fn(T)


def same_bits(got, want):
    got, want = got.detach().numpy(), want.detach().numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def grid(values, n):
    rng = np.random.default_rng(n)
    return rng.choice(values, n)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("seed", [0, 7])
def test_standard_gamma_draws_pytorchs_values(et, torch_ref, dtype, seed):
    """Every alpha regime (boosted below 1, Marsaglia-Tsang above), then the generator's next draws."""
    alphas = grid(ALPHAS, 400)

    def draw(T):
        x = T._standard_gamma(T.tensor(alphas, dtype=getattr(T, dtype)).reshape(20, 20).t())
        return x, T.randn(5), T.rand(3)

    for got, want in zip(seeded(et, seed, draw), seeded(torch_ref, seed, draw)):
        same_bits(got, want)


def test_standard_gamma_edge_alphas(et, torch_ref):
    """0, negative, NaN and inf alphas: PyTorch's results (min for 0, NaN and alphas it cannot sample)."""
    def draw(T):
        return [T._standard_gamma(T.tensor([0.0, -1.0, -0.5, float("nan"), float("inf"), 2.0], dtype=dt))
                for dt in (T.float32, T.float64)]

    for got, want in zip(seeded(et, 3, draw), seeded(torch_ref, 3, draw)):
        same_bits(got, want)


def test_standard_gamma_generator_argument(et, torch_ref):
    def draw(T):
        g = T.Generator().manual_seed(11)
        return T._standard_gamma(T.tensor([0.5, 2.0, 4.0], dtype=T.float64), generator=g), T.rand(2, generator=g)

    for got, want in zip(draw(et), draw(torch_ref)):
        same_bits(got, want)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_standard_gamma_grad_every_branch(et, torch_ref, dtype):
    """standard_gamma_grad_one: the series (x < 0.8), the saddle point (alpha > 8, near and far from the
    mean) and the rational approximation, plus x = 0."""
    rng = np.random.default_rng(1)
    alpha = np.concatenate([rng.uniform(0.01, 8, 300), rng.uniform(8, 200, 300), [0.5, 2.0, 9.0, 20.0]])
    x = np.concatenate([rng.gamma(alpha[:300]), alpha[300:600] * rng.uniform(0.7, 1.3, 300), [0.0, 0.0, 9.0, 1e-3]])

    def grad(T):
        return T._standard_gamma_grad(T.tensor(alpha, dtype=getattr(T, dtype)), T.tensor(x, dtype=getattr(T, dtype)))

    same_bits(grad(et), grad(torch_ref))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dirichlet_grad_every_branch(et, torch_ref, dtype):
    """dirichlet_grad_one: x near 0, x near 1, both concentrations large, and the rational correction."""
    rng = np.random.default_rng(2)
    n = 2000
    alpha = rng.uniform(0.05, 30, n)
    total = alpha + rng.uniform(0.05, 30, n)
    x = np.clip(rng.beta(alpha, total - alpha), 1e-6, 1 - 1e-6)

    def grad(T):
        return T._dirichlet_grad(*(T.tensor(v, dtype=getattr(T, dtype)) for v in (x, alpha, total)))

    same_bits(grad(et), grad(torch_ref))


def test_float_kernels_without_the_c_library(et, torch_ref, monkeypatch):
    """Where ctypes cannot reach logf and powf, their double counterparts rounded to float stand in. logf is
    not correctly rounded, and the near-1 series cancels terms, so an ulp there can grow: float32
    _dirichlet_grad is then within 1e-5 relative of PyTorch's, equal in all but a few elements."""
    from engine import _gamma

    monkeypatch.setattr(_gamma, "_LIBM_FLOAT", None)
    rng = np.random.default_rng(2)
    alpha = rng.uniform(0.05, 30, 2000)
    total = alpha + rng.uniform(0.05, 30, 2000)
    x = np.clip(rng.beta(alpha, total - alpha), 1e-6, 1 - 1e-6)
    got, want = (T._dirichlet_grad(*(T.tensor(v, dtype=T.float32) for v in (x, alpha, total))).numpy()
                 for T in (et, torch_ref))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0)
    assert 0 < (got != want).sum() <= 10


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("k", [1, 3, 12, 40])
def test_sample_dirichlet_draws_pytorchs_values(et, torch_ref, dtype, k):
    """Gammas in double, normalised by a sum in PyTorch's order (its vectorised inner sum, which NumPy's
    pairwise sum does not reproduce from five terms on), clamped below 1."""
    rng = np.random.default_rng(k)
    conc = rng.uniform(0.05, 10, (25, k))

    def draw(T):
        return T._sample_dirichlet(T.tensor(conc, dtype=getattr(T, dtype))), T.rand(3)

    for got, want in zip(seeded(et, k, draw), seeded(torch_ref, k, draw)):
        same_bits(got, want)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binomial_draws_pytorchs_values(et, torch_ref, dtype):
    """BTRS from count * p 10, inversion below, p above 1/2 through 1 - p, and the edges (0, 1, NaN)."""
    rng = np.random.default_rng(3)
    count = np.concatenate([np.floor(rng.uniform(0, 300, 1500)), [0, 5, 5, 5, 1e6, 40, 3]])
    prob = np.concatenate([rng.uniform(0, 1, 1500), [0.5, 0.0, 1.0, float("nan"), 0.3, 1 - 1e-7, 1e-7]])

    def draw(T):
        t = getattr(T, dtype)
        return T.binomial(T.tensor(count, dtype=t), T.tensor(prob, dtype=t)), T.rand(3)

    for got, want in zip(seeded(et, 5, draw), seeded(torch_ref, 5, draw)):
        same_bits(got, want)


def test_standard_gamma_node_and_grad(et, torch_ref):
    """StandardGammaBackward0 saves self and result; its grad is grad * _standard_gamma_grad(self, result),
    whose own derivative PyTorch does not implement."""
    def grads(T):
        T.manual_seed(4)
        a = T.tensor([0.4, 1.5, 12.0], dtype=T.float64, requires_grad=True)
        x = T._standard_gamma(a)
        node = x.grad_fn
        (g,) = T.autograd.grad((x * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum(), a, create_graph=True)
        return x, type(node).__name__, node._saved_self, node._saved_result, g, type(g.grad_fn).__name__

    got, want = grads(et), grads(torch_ref)
    for i in (0, 2, 3, 4):
        same_bits(got[i], want[i])
    assert got[1] == want[1] == "StandardGammaBackward0"
    assert got[5] == want[5] == "MulBackward0"


def test_standard_gamma_second_derivative_raises(et):
    a = et.tensor([0.4, 1.5], dtype=et.float64, requires_grad=True)
    (g,) = et.autograd.grad(et._standard_gamma(a).sum(), a, create_graph=True)
    assert g.grad_fn.next_functions[1][0].name() == "StandardGammaGradBackward0"
    with pytest.raises(NotImplementedError, match="^the derivative for '_standard_gamma_grad' is not implemented.$"):
        g.sum().backward()


def test_forward_ad_is_refused_as_pytorch_refuses(et):
    import engine.autograd.forward_ad as fwAD

    a = et.tensor([1.5, 2.0], dtype=et.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(a, et.ones(2, dtype=et.float64))
        with pytest.raises(NotImplementedError, match="^Trying to use forward AD with _standard_gamma that does not "
                                                      "support it because it has not been implemented yet"):
            et._standard_gamma(d)
        for args in ((d, a), (a, d)):
            with pytest.raises(NotImplementedError, match="^Trying to use forward AD with _standard_gamma_grad that "
                                                          "does not support it because it has not been implemented"):
                et._standard_gamma_grad(*args)
        with pytest.raises(NotImplementedError,
                           match=r"^Trying to use forward AD with aten::_dirichlet_grad that does not support it\.$"):
            et._dirichlet_grad(d / 4, a, a * 3)
        with pytest.raises(NotImplementedError,
                           match=r"^Trying to use forward AD with aten::_sample_dirichlet that does not support it\.$"):
            et._sample_dirichlet(d)
        with pytest.raises(NotImplementedError,
                           match=r"^Trying to use forward AD with aten::binomial that does not support it\.$"):
            et.binomial(d, et.tensor([0.5, 0.5], dtype=et.float64))


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T._standard_gamma(1.0), TypeError, "_standard_gamma(): argument 'input' (position 1) must be Tensor, "
                                                  "not float"),
    (lambda T: T._standard_gamma(T.tensor([1.0], dtype=T.half)), NotImplementedError,
     "\"gamma_cpu\" not implemented for 'Half'"),
    (lambda T: T._standard_gamma(T.tensor([1, 2])), NotImplementedError, "\"gamma_cpu\" not implemented for 'Long'"),
    (lambda T: T._sample_dirichlet(T.tensor([1, 2])), NotImplementedError,
     "\"dirichlet\" not implemented for 'Long'"),
    (lambda T: T.binomial(T.tensor([10, 100]), T.tensor([0.3, 0.6])), ValueError,
     "binomial only supports floating-point dtypes for count, got: Long"),
    (lambda T: T.binomial(T.tensor([1.0]), T.tensor([0.5], dtype=T.float64)), RuntimeError,
     "Found dtype Double but expected Float"),
    (lambda T: T._sample_dirichlet(T.tensor([1.0, 2.0], requires_grad=True)).sum().backward(), RuntimeError,
     "derivative for aten::_sample_dirichlet is not implemented"),
    (lambda T: T.binomial(T.tensor([10.0], requires_grad=True), T.tensor([0.5])).sum().backward(), RuntimeError,
     "derivative for aten::binomial is not implemented"),
    (lambda T: T._dirichlet_grad(*(T.tensor([0.5], requires_grad=True),) * 3).sum().backward(), RuntimeError,
     "derivative for aten::_dirichlet_grad is not implemented"),
])
def test_errors_are_pytorchs(et, torch_ref, call, error, message):
    import re

    for T in (torch_ref, et):
        with pytest.raises(error, match="^" + re.escape(message) + "$"):
            call(T)


def test_standard_gamma_grad_differentiates_only_self(et, torch_ref):
    """derivatives.yaml lists only ``self``: a sample that requires grad adds no edge."""
    def edges(T):
        a, x = T.tensor([1.5]), T.tensor([0.5], requires_grad=True)
        alone = T._standard_gamma_grad(a, x)
        both = T._standard_gamma_grad(a.requires_grad_(), x)
        return alone.requires_grad, alone.grad_fn, len(both.grad_fn.next_functions)

    assert edges(et) == edges(torch_ref) == (False, None, 1)


def test_nodes_of_the_non_differentiable_kernels(et, torch_ref):
    def names(T):
        c = T.tensor([1.0, 2.0], requires_grad=True)
        return (T._sample_dirichlet(c).grad_fn.name(), T.binomial(c * 5, T.tensor([0.5, 0.5])).grad_fn.name(),
                T._dirichlet_grad(c / 4, c, c * 3).grad_fn.name(), T._standard_gamma_grad(c, c).grad_fn.name())

    assert names(et) == names(torch_ref) == ("torch::autograd::NotImplemented",) * 3 + ("StandardGammaGradBackward0",)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gamma_chi2_beta_dirichlet_rsample_and_grads(et, torch_ref, dtype):
    """rsample after the same seed, its graph and the grads of every parameter: bit for bit."""
    def run(T):
        T.manual_seed(9)
        t = getattr(T, dtype)
        conc = T.tensor([0.3, 1.0, 4.0], dtype=t, requires_grad=True)
        rate = T.tensor([2.0, 0.5, 1.0], dtype=t, requires_grad=True)
        df = T.tensor([1.0, 3.0], dtype=t, requires_grad=True)
        a = T.tensor([0.7, 2.5], dtype=t, requires_grad=True)
        b = T.tensor([1.2, 9.0], dtype=t, requires_grad=True)
        dir_c = T.tensor([[0.5, 1.0, 7.0], [3.0, 3.0, 3.0]], dtype=t, requires_grad=True)
        D = T.distributions
        draws = [D.Gamma(conc, rate).rsample((4,)), D.Chi2(df).rsample((3,)), D.Beta(a, b).rsample((5,)),
                 D.Dirichlet(dir_c).rsample((2,))]
        weights = [T.arange(d.numel(), dtype=t).reshape(d.shape) for d in draws]
        loss = sum((w * d).sum() for w, d in zip(weights, draws))
        grads = T.autograd.grad(loss, [conc, rate, df, a, b, dir_c])
        nodes = [type(d.grad_fn).__name__ for d in draws]
        return draws, grads, nodes

    (got_d, got_g, got_n), (want_d, want_g, want_n) = run(et), run(torch_ref)
    assert got_n == want_n == ["DivBackward0", "DivBackward0", "SelectBackward0", "_DirichletBackward"]
    for got, want in zip(got_d + list(got_g), want_d + list(want_g)):
        same_bits(got, want)


def test_dirichlet_backward_is_once_differentiable(et, torch_ref):
    def second(T):
        c = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = T.distributions.Dirichlet(c).rsample()
        (g,) = T.autograd.grad((s * T.tensor([1.0, 2.0, 3.0])).sum(), c, create_graph=True)
        return g.requires_grad, g.grad_fn

    assert second(et) == second(torch_ref) == (False, None)


def test_samples_and_sample_shapes(et, torch_ref):
    """sample (no grad) of each after the same seed, one generator throughout."""
    def draws(T):
        T.manual_seed(21)
        D = T.distributions
        dists = [D.Gamma(T.tensor([0.5, 3.0]), T.tensor([1.0, 2.0])), D.Gamma(2.0, 1.0), D.Chi2(T.tensor([2.0])),
                 D.Beta(T.tensor([0.5, 2.0]), T.tensor([0.5, 5.0])), D.Beta(2.0, 3.0),
                 D.Dirichlet(T.tensor([[0.2, 0.3, 0.5], [5.0, 1.0, 1.0]])),
                 D.Binomial(T.tensor([10.0, 50.0]), T.tensor([0.2, 0.6])), D.Binomial(100, logits=T.tensor(0.3))]
        out = []
        for d in dists:
            out += [d.sample(), d.sample((3,))]
        return out

    got, want = draws(et), draws(torch_ref)
    for g, w in zip(got, want):
        same_bits(g, w)
        assert g.requires_grad is w.requires_grad is False


def test_chi2_matches_pytorch(et, torch_ref):
    def chi2(T):
        df = T.tensor([1.0, 2.5, 7.0], dtype=T.float64, requires_grad=True)
        d = T.distributions.Chi2(df)
        x = T.tensor([0.5, 2.0, 6.0], dtype=T.float64)
        lp, ent = d.log_prob(x), d.entropy()
        grads = T.autograd.grad(lp.sum() + ent.sum(), df)
        e = d.expand((2, 3))
        kl = T.distributions.kl_divergence(d, T.distributions.Chi2(T.tensor([2.0, 2.0, 2.0], dtype=T.float64)))
        return (lp, ent, grads[0], d.df, d.mean, d.mode, d.variance, kl, type(e).__name__, e.batch_shape, e.df,
                d.cdf(x), repr(d.support), repr(T.distributions.Chi2.arg_constraints))

    got, want = chi2(et), chi2(torch_ref)
    for g, w in zip(got, want):
        if hasattr(w, "numpy"):
            np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-14, atol=0)
            assert type(g.grad_fn).__name__ == type(w.grad_fn).__name__
        else:
            assert str(g) == str(w)


def test_chi2_gradcheck(et):
    df = et.tensor([1.0, 2.5, 7.0], dtype=et.float64, requires_grad=True)
    x = et.tensor([0.5, 2.0, 6.0], dtype=et.float64)
    fn = lambda df: et.distributions.Chi2(df).log_prob(x) + et.distributions.Chi2(df).entropy()  # noqa: E731
    assert et.autograd.gradcheck(fn, (df,))
    assert et.autograd.gradgradcheck(fn, (df,))


def test_chi2_validation(et, torch_ref):
    import re

    for T in (torch_ref, et):
        with pytest.raises(ValueError, match=re.escape("Expected parameter df (Tensor of shape (2,)) of distribution "
                                                       "Chi2() to satisfy the constraint GreaterThan(lower_bound=0.0), "
                                                       "but found invalid values:\ntensor([ 1., -1.])") + "$"):
            T.distributions.Chi2(T.tensor([1.0, -1.0]))
