"""``torch.distributions`` against real PyTorch 2.13: the same printed values and ``grad_fn`` names, the
same gradients through ``log_prob``/``rsample``/``entropy``/``kl_divergence``, shapes, samples after the
same seed, distribution and constraint reprs, and the exception class and message of each misuse."""
import warnings

import pytest

pytestmark = pytest.mark.torch


def describe(x):
    """A result as it prints and nests: repr and requires_grad of each tensor, repr of anything else."""
    if isinstance(x, (tuple, list)) and type(x).__name__ != "Size":
        return type(x).__name__, [describe(e) for e in x]
    if isinstance(x, dict):
        return {k: describe(v) for k, v in x.items()}
    if hasattr(x, "requires_grad"):
        return repr(x), x.requires_grad
    return repr(x)


def run(fn, T):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = describe(fn(T))
        return "ok", result, [(w.category.__name__, str(w.message)) for w in caught]
    except Exception as e:  # noqa: BLE001 - the type and message are the observation
        return type(e).__name__, str(e)


def D(T):
    return T.distributions


def leaf(T, values, dtype=None):
    return T.tensor(values, dtype=dtype, requires_grad=True)


def grads_of(fn):
    """``fn(T, *leaves)``'s result summed and backpropagated: (result, grad of each leaf)."""
    def call(T, *values):
        xs = [leaf(T, v) for v in values]
        out = fn(T, *xs)
        out.sum().backward()
        return out, [x.grad for x in xs]
    return call


def seeded(fn, seed=0):
    def call(T):
        T.manual_seed(seed)
        return fn(T)
    return call


def stats(d):
    return d.mean, d.mode, d.variance, d.stddev


def shapes(d, sample_shape=()):
    return d.batch_shape, d.event_shape, d.sample(sample_shape).shape, repr(d)


LOC, SCALE, X = [0.5, -1.0, 2.0], [1.0, 0.5, 2.5], [0.3, -2.0, 4.0]
# A 3-d MultivariateNormal: loc, covariance, its precision and lower Cholesky factor, points
MU = [0.5, -1.0, 2.0]
COV = [[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, 1.5]]
PREC = [[1.5, -0.2, 0.3], [-0.2, 2.0, 0.1], [0.3, 0.1, 0.8]]
TRIL = [[1.2, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.5, 0.4, 1.1]]
PTS = [[0.3, -2.0, 4.0], [0.0, 0.0, 0.0], [1.5, -0.5, 1.0]]
W, DIAG = [[0.5, -0.2], [1.0, 0.3], [-0.4, 0.9]], [0.7, 1.2, 0.4]


def node_names(t):
    """The names of the nodes of ``t``'s graph, breadth first, each once (None for a leaf's AccumulateGrad)."""
    seen, order, todo = set(), [], [t.grad_fn]
    while todo:
        fn = todo.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append(fn.name())
        todo += [f for f, _ in fn.next_functions]
    return order


def transform_view(t, x):
    """A transform applied both ways, with its log-det-Jacobian and what it says of itself."""
    y = t(x)
    return (repr(t), y, t.inv(y), t.log_abs_det_jacobian(x, y), t.domain, t.codomain, t.bijective,
            t.forward_shape(x.shape), t.inverse_shape(y.shape))

CALLS = {
    # Normal
    "normal_log_prob_grads": lambda T: grads_of(lambda T, m, s, x: D(T).Normal(m, s).log_prob(x))(T, LOC, SCALE, X),
    "normal_log_prob_scalars": lambda T: D(T).Normal(0.0, 1.0).log_prob(T.tensor([0.5, -1.5])),
    "normal_log_prob_broadcast": lambda T: D(T).Normal(leaf(T, LOC), 2.0).log_prob(T.tensor([[0.0], [1.0]])),
    "normal_cdf_icdf": lambda T: (lambda d: (d.cdf(T.tensor(X)), d.icdf(T.tensor([0.1, 0.5, 0.975]))))(
        D(T).Normal(leaf(T, LOC), leaf(T, SCALE))),
    "normal_entropy_grads": lambda T: grads_of(lambda T, m, s: D(T).Normal(m, s).entropy())(T, LOC, SCALE),
    "normal_perplexity": lambda T: D(T).Normal(leaf(T, LOC), leaf(T, SCALE)).perplexity(),
    "normal_stats": lambda T: stats(D(T).Normal(leaf(T, LOC), leaf(T, SCALE))),
    "normal_stats_scalars": lambda T: stats(D(T).Normal(1.0, 2.0)),
    "normal_params": lambda T: (lambda d: (d.loc, d.scale))(D(T).Normal(leaf(T, LOC), 1.0)),
    "normal_params_scalar_tensor": lambda T: (lambda d: (d.loc, d.scale, d.batch_shape))(
        D(T).Normal(T.tensor(0.0), 1)),
    "normal_shapes": lambda T: shapes(D(T).Normal(T.zeros(2, 3), 1.0), (4,)),
    "normal_shapes_scalars": lambda T: shapes(D(T).Normal(0.0, 1.0), (2, 2)),
    "normal_shapes_size": lambda T: shapes(D(T).Normal(T.zeros(2), T.ones(3, 1)), T.Size([5])),
    "normal_float64": lambda T: D(T).Normal(T.tensor([0.0, 1.0], dtype=T.float64), 1.0).log_prob(
        T.tensor([0.5, 0.25], dtype=T.float64)),
    "normal_sample": seeded(lambda T: D(T).Normal(T.tensor([0.0, 10.0]), T.tensor([1.0, 0.1])).sample((3,))),
    "normal_sample_grad_free": seeded(lambda T: D(T).Normal(leaf(T, LOC), leaf(T, SCALE)).sample()),
    "normal_rsample_grads": seeded(lambda T: grads_of(
        lambda T, m, s: D(T).Normal(m, s).rsample((2,)))(T, LOC, SCALE)),
    "normal_rsample_scalars": seeded(lambda T: D(T).Normal(0.0, 1.0).rsample((2, 3)), seed=3),
    "normal_sample_n": seeded(lambda T: D(T).Normal(T.zeros(2), 1.0).sample_n(3)),
    "normal_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.loc, d.log_prob(T.zeros(3, 2))))(
        D(T).Normal(leaf(T, [1.0, 2.0]), 1.0).expand([3, 2])),
    "normal_expand_validates": lambda T: D(T).Normal(0.0, 1.0).expand((2,))._validate_args,
    "normal_log_prob_outside_unchecked": lambda T: D(T).Normal(0.0, 1.0, validate_args=False).log_prob(
        T.tensor(float("nan"))),
    "normal_attrs": lambda T: (lambda N: (N.has_rsample, N.has_enumerate_support, N.support, N.arg_constraints))(
        D(T).Normal),
    "normal_repr_1elem": lambda T: repr(D(T).Normal(T.tensor([0.0]), leaf(T, [1.0]))),
    "normal_repr_int": lambda T: (repr(D(T).Normal(0, 1)), D(T).Normal(0, 1).loc),
    "normal_exp_family_entropy": lambda T: grads_of(
        lambda T, m, s: D(T).ExponentialFamily.entropy(D(T).Normal(m, s)))(T, LOC, SCALE),
    # Uniform
    "uniform_log_prob_grads": lambda T: grads_of(
        lambda T, lo, hi: D(T).Uniform(lo, hi).log_prob(T.tensor([0.5, 0.0, 2.9])))(
        T, [0.0, -1.0, 2.0], [1.0, 1.0, 3.0]),
    "uniform_log_prob_outside": lambda T: D(T).Uniform(0.0, 1.0, validate_args=False).log_prob(
        T.tensor([-0.5, 0.0, 1.0, 1.5])),
    "uniform_cdf_icdf_entropy": lambda T: (lambda d: (d.cdf(T.tensor([0.5, 0.0, 2.5])), d.icdf(T.tensor(0.25)),
                                                      d.entropy()))(D(T).Uniform(leaf(T, [0.0, -1.0, 2.0]), 3.0)),
    "uniform_stats": lambda T: stats(D(T).Uniform(leaf(T, [0.0, -1.0]), leaf(T, [1.0, 3.0]))),
    "uniform_rsample_grads": seeded(lambda T: grads_of(
        lambda T, lo, hi: D(T).Uniform(lo, hi).rsample((3,)))(T, [0.0, -1.0], [1.0, 3.0])),
    "uniform_sample": seeded(lambda T: D(T).Uniform(2.0, 4.0).sample((2, 2)), seed=5),
    "uniform_support": lambda T: (lambda d: (d.support, d.arg_constraints, D(T).Uniform.support))(
        D(T).Uniform(T.tensor([0.0, 1.0]), 2.0)),
    "uniform_shapes": lambda T: shapes(D(T).Uniform(T.zeros(3), 1.0), (2,)),
    # Laplace
    "laplace_log_prob_grads": lambda T: grads_of(
        lambda T, m, s: D(T).Laplace(m, s).log_prob(T.tensor(X)))(T, LOC, SCALE),
    "laplace_cdf_icdf_entropy": lambda T: (lambda d: (d.cdf(T.tensor(X)), d.icdf(T.tensor([0.1, 0.5, 0.9])),
                                                      d.entropy()))(D(T).Laplace(leaf(T, LOC), leaf(T, SCALE))),
    "laplace_stats": lambda T: stats(D(T).Laplace(leaf(T, LOC), leaf(T, SCALE))),
    "laplace_rsample_grads": seeded(lambda T: grads_of(
        lambda T, m, s: D(T).Laplace(m, s).rsample((2,)))(T, LOC, SCALE)),
    "laplace_sample": seeded(lambda T: D(T).Laplace(0.0, 1.0).sample((4,)), seed=11),
    # Exponential
    "exponential_log_prob_grads": lambda T: grads_of(
        lambda T, r: D(T).Exponential(r).log_prob(T.tensor([0.0, 1.5, 3.0])))(T, [0.5, 1.0, 2.0]),
    "exponential_cdf_icdf_entropy": lambda T: (lambda d: (d.cdf(T.tensor([0.0, 1.5, 3.0])), d.icdf(T.tensor(0.5)),
                                                          d.entropy()))(D(T).Exponential(leaf(T, [0.5, 1.0, 2.0]))),
    "exponential_stats": lambda T: stats(D(T).Exponential(leaf(T, [0.5, 2.0]))),
    "exponential_rsample_grads": seeded(lambda T: grads_of(
        lambda T, r: D(T).Exponential(r).rsample((3,)))(T, [0.5, 2.0])),
    "exponential_sample_scalar": seeded(lambda T: D(T).Exponential(1.0).sample((2,)), seed=2),
    "exponential_exp_family_entropy": lambda T: grads_of(
        lambda T, r: D(T).ExponentialFamily.entropy(D(T).Exponential(r)))(T, [0.5, 2.0]),
    # Bernoulli
    "bernoulli_probs_log_prob_grads": lambda T: grads_of(
        lambda T, p: D(T).Bernoulli(p).log_prob(T.tensor([1.0, 0.0, 1.0])))(T, [0.2, 0.5, 0.9]),
    "bernoulli_logits_log_prob_grads": lambda T: grads_of(
        lambda T, lg: D(T).Bernoulli(logits=lg).log_prob(T.tensor([1.0, 0.0, 0.0])))(T, [-1.0, 0.0, 3.0]),
    "bernoulli_lazy_logits": lambda T: (lambda d: (d.logits, d.probs, sorted(k for k in vars(d) if k in (
        "probs", "logits"))))(D(T).Bernoulli(leaf(T, [0.2, 0.5, 1.0]))),
    "bernoulli_lazy_probs": lambda T: (lambda d: (d.probs, d.logits))(D(T).Bernoulli(logits=leaf(T, [-1.0, 2.0]))),
    "bernoulli_lazy_under_no_grad": lambda T: lazy_under_no_grad(T),
    "bernoulli_entropy_grads": lambda T: grads_of(lambda T, p: D(T).Bernoulli(p).entropy())(T, [0.2, 0.5, 0.9]),
    "bernoulli_stats": lambda T: (lambda d: (d.mean, d.mode, d.variance, d.stddev, d.param_shape))(
        D(T).Bernoulli(leaf(T, [0.2, 0.5, 0.9]))),
    "bernoulli_enumerate": lambda T: (lambda d: (d.enumerate_support(), d.enumerate_support(expand=False)))(
        D(T).Bernoulli(T.tensor([[0.2, 0.5, 0.9]]))),
    "bernoulli_sample": seeded(lambda T: D(T).Bernoulli(T.tensor([0.1, 0.5, 0.9])).sample((4,))),
    "bernoulli_sample_scalar": seeded(lambda T: D(T).Bernoulli(0.3).sample((5,)), seed=4),
    "bernoulli_sample_logits": seeded(lambda T: D(T).Bernoulli(logits=leaf(T, [-2.0, 0.0, 2.0])).sample((2,)), seed=7),
    "bernoulli_expand": lambda T: (lambda d: (repr(d), d.probs, d.logits))(
        D(T).Bernoulli(T.tensor([0.3, 0.6])).expand((2, 2))),
    "bernoulli_log_prob_broadcast": lambda T: D(T).Bernoulli(T.tensor([0.3, 0.6])).log_prob(T.tensor([[1.0], [0.0]])),
    "bernoulli_int_value": lambda T: D(T).Bernoulli(logits=T.tensor(0.5)).log_prob(T.tensor(1.0)),
    "bernoulli_exp_family_entropy": lambda T: grads_of(
        lambda T, p: D(T).ExponentialFamily.entropy(D(T).Bernoulli(p)))(T, [0.2, 0.7]),
    # Categorical
    "categorical_probs_normalised": lambda T: (lambda d: (d.probs, d.logits, d.param_shape, d.batch_shape))(
        D(T).Categorical(leaf(T, [1.0, 2.0, 1.0]))),
    "categorical_logits_normalised": lambda T: (lambda d: (d.logits, d.probs))(
        D(T).Categorical(logits=leaf(T, [1.0, 2.0, 0.5]))),
    "categorical_log_prob_grads": lambda T: grads_of(
        lambda T, p: D(T).Categorical(p).log_prob(T.tensor([0, 2])))(T, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]),
    "categorical_logits_log_prob_grads": lambda T: grads_of(
        lambda T, lg: D(T).Categorical(logits=lg).log_prob(T.tensor([[1], [0]])))(
        T, [[0.2, -1.0, 0.5], [1.0, 0.0, 0.1]]),
    "categorical_entropy_grads": lambda T: grads_of(
        lambda T, lg: D(T).Categorical(logits=lg).entropy())(T, [[0.2, -1.0, 0.5], [1.0, 0.0, 0.1]]),
    "categorical_entropy_zero_prob": lambda T: D(T).Categorical(T.tensor([0.0, 0.5, 0.5])).entropy(),
    "categorical_stats": lambda T: (lambda d: (d.mean, d.mode, d.variance))(
        D(T).Categorical(T.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))),
    "categorical_enumerate": lambda T: (lambda d: (d.enumerate_support(), d.enumerate_support(False), d.support))(
        D(T).Categorical(T.ones(2, 3))),
    "categorical_sample": seeded(lambda T: D(T).Categorical(T.tensor([0.1, 0.2, 0.3, 0.4])).sample((6,))),
    "categorical_sample_batch": seeded(lambda T: D(T).Categorical(logits=T.tensor(
        [[0.0, 1.0, 2.0], [2.0, 0.0, -1.0]])).sample((2, 3)), seed=9),
    "categorical_sample_scalar": seeded(lambda T: D(T).Categorical(T.tensor([0.5, 0.5])).sample(), seed=1),
    "categorical_shapes": lambda T: shapes(D(T).Categorical(T.ones(4, 3)), (2,)),
    "categorical_expand": lambda T: (lambda d: (repr(d), d.probs.shape, d.log_prob(T.tensor(1))))(
        D(T).Categorical(T.tensor([0.2, 0.8])).expand((3,))),
    "categorical_log_prob_float_value": lambda T: D(T).Categorical(T.tensor([0.2, 0.8])).log_prob(T.tensor([1.0, 0.0])),
    # OneHotCategorical
    "onehot_sample": seeded(lambda T: D(T).OneHotCategorical(T.tensor([0.2, 0.3, 0.5])).sample((4,))),
    "onehot_log_prob_grads": lambda T: grads_of(lambda T, p: D(T).OneHotCategorical(p).log_prob(
        T.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])))(T, [0.2, 0.3, 0.5]),
    "onehot_entropy_stats": lambda T: (lambda d: (d.entropy(), d.mean, d.mode, d.variance, d.probs, d.logits))(
        D(T).OneHotCategorical(logits=leaf(T, [0.5, -1.0, 2.0]))),
    "onehot_enumerate": lambda T: (lambda d: (d.enumerate_support(), d.enumerate_support(False).shape))(
        D(T).OneHotCategorical(T.ones(2, 3))),
    "onehot_shapes": lambda T: shapes(D(T).OneHotCategorical(T.ones(2, 3)), (4,)),
    "onehot_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.event_shape))(
        D(T).OneHotCategorical(T.ones(3)).expand((2,))),
    "onehot_straight_through": seeded(lambda T: grads_of(
        lambda T, p: D(T).OneHotCategoricalStraightThrough(p).rsample((2,)) * T.tensor([1.0, 2.0, 3.0]))(
        T, [0.2, 0.3, 0.5])),
    # Independent
    "independent_shapes": lambda T: (lambda d: (d.batch_shape, d.event_shape, repr(d), d.support, d.has_rsample,
                                                d.has_enumerate_support))(
        D(T).Independent(D(T).Normal(T.zeros(2, 3), T.ones(2, 3)), 1)),
    "independent_log_prob_grads": lambda T: grads_of(lambda T, m, s: D(T).Independent(D(T).Normal(m, s), 1).log_prob(
        T.tensor(X)))(T, LOC, SCALE),
    "independent_entropy_stats": lambda T: (lambda d: (d.entropy(), d.mean, d.mode, d.variance, d.stddev))(
        D(T).Independent(D(T).Normal(leaf(T, [LOC, X]), 2.0), 2)),
    "independent_rsample": seeded(lambda T: grads_of(
        lambda T, m, s: D(T).Independent(D(T).Normal(m, s), 1).rsample((2,)))(T, LOC, SCALE)),
    "independent_sample_bernoulli": seeded(lambda T: (lambda d: (d.sample((2,)), d.has_rsample, d.support))(
        D(T).Independent(D(T).Bernoulli(T.tensor([[0.3, 0.7], [0.5, 0.1]])), 1))),
    "independent_zero_ndims": lambda T: (lambda d: (d.has_enumerate_support, d.enumerate_support(), d.support))(
        D(T).Independent(D(T).Bernoulli(T.tensor([0.3, 0.7])), 0)),
    "independent_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.base_dist.batch_shape))(
        D(T).Independent(D(T).Normal(T.zeros(3), 1.0), 1).expand((2,))),
    # Binomial, Geometric, Poisson (log_prob and moments; sampling only Geometric's, through uniform_)
    "binomial_log_prob_grads": lambda T: grads_of(lambda T, p: D(T).Binomial(10, p).log_prob(
        T.tensor([0.0, 3.0, 10.0])))(T, [0.1, 0.4, 0.9]),
    "binomial_logits": lambda T: (lambda d: (d.log_prob(T.tensor([[1.0, 2.0], [5.0, 0.0]])), d.probs, d.mean,
                                             d.mode, d.variance, d.total_count, repr(d)))(
        D(T).Binomial(T.tensor([[5.0], [6.0]]), logits=leaf(T, [-1.0, 0.5]))),
    "binomial_entropy_enumerate": lambda T: (lambda d: (d.entropy(), d.enumerate_support(False), d.support))(
        D(T).Binomial(3, leaf(T, [0.2, 0.6]))),
    "geometric_log_prob_grads": lambda T: grads_of(lambda T, p: D(T).Geometric(p).log_prob(
        T.tensor([0.0, 2.0, 0.0])))(T, [0.3, 0.6, 1.0]),
    "geometric_stats_entropy": lambda T: (lambda d: (d.mean, d.mode, d.variance, d.entropy(), d.logits))(
        D(T).Geometric(leaf(T, [0.3, 0.6]))),
    "geometric_logits": lambda T: (lambda d: (d.probs, d.log_prob(T.tensor(1.0)), repr(d)))(
        D(T).Geometric(logits=leaf(T, [0.5, -1.0]))),
    "geometric_sample": seeded(lambda T: D(T).Geometric(T.tensor([0.2, 0.7])).sample((3,)), seed=6),
    "poisson_log_prob_grads": lambda T: grads_of(lambda T, r: D(T).Poisson(r).log_prob(
        T.tensor([0.0, 2.0, 7.0])))(T, [0.5, 2.0, 6.0]),
    "poisson_stats": lambda T: (lambda d: (d.mean, d.mode, d.variance, repr(d), d.support))(
        D(T).Poisson(T.tensor([0.5, 2.5]))),
    "poisson_zero_rate": lambda T: D(T).Poisson(T.tensor([0.0, 1.0])).log_prob(T.tensor([0.0, 0.0])),
    # Gamma, Beta, Dirichlet (all but sampling)
    "gamma_log_prob_grads": lambda T: grads_of(lambda T, c, r: D(T).Gamma(c, r).log_prob(
        T.tensor([0.5, 2.0, 0.0])))(T, [0.5, 2.0, 1.0], [1.0, 0.5, 3.0]),
    "gamma_float_value": lambda T: D(T).Gamma(2.0, 1.0).log_prob(1.5),
    "gamma_entropy_stats": lambda T: (lambda d: (d.entropy(), d.mean, d.mode, d.variance, d.stddev, repr(d)))(
        D(T).Gamma(leaf(T, [0.5, 2.0]), leaf(T, [1.0, 0.5]))),
    "gamma_expand": lambda T: (lambda d: (repr(d), d.batch_shape))(D(T).Gamma(T.ones(2), 1.0).expand((3, 2))),
    "gamma_exp_family_entropy": lambda T: grads_of(
        lambda T, c, r: D(T).ExponentialFamily.entropy(D(T).Gamma(c, r)))(T, [0.5, 2.0], [1.0, 0.5]),
    "beta_log_prob_grads": lambda T: grads_of(lambda T, a, b: D(T).Beta(a, b).log_prob(
        T.tensor([0.25, 0.5, 0.9])))(T, [0.5, 2.0, 1.0], [1.0, 2.0, 3.0]),
    "beta_scalars": lambda T: (lambda d: (d.log_prob(T.tensor(0.3)), d.entropy(), d.mean, d.mode, d.variance,
                                          d.concentration1, d.concentration0, repr(d), d.batch_shape))(
        D(T).Beta(2.0, 3.0)),
    "beta_entropy_stats": lambda T: (lambda d: (d.entropy(), d.mean, d.mode, d.variance, d.support))(
        D(T).Beta(leaf(T, [0.5, 2.0]), leaf(T, [0.5, 3.0]))),
    "beta_expand": lambda T: (lambda d: (d.batch_shape, d.concentration1, d.log_prob(T.tensor(0.5))))(
        D(T).Beta(T.tensor([2.0]), 3.0).expand((2,))),
    "dirichlet_log_prob_grads": lambda T: grads_of(lambda T, c: D(T).Dirichlet(c).log_prob(
        T.tensor([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])))(T, [0.5, 2.0, 1.0]),
    "dirichlet_entropy_stats": lambda T: (lambda d: (d.entropy(), d.mean, d.mode, d.variance, d.batch_shape,
                                                     d.event_shape, repr(d), d.support))(
        D(T).Dirichlet(leaf(T, [[0.5, 2.0, 1.0], [3.0, 0.5, 0.7]]))),
    "dirichlet_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.event_shape))(
        D(T).Dirichlet(T.ones(3)).expand((2,))),
    "kl_gamma_beta_dirichlet": lambda T: grads_of(lambda T, a, b: T.stack([
        D(T).kl_divergence(D(T).Gamma(a, b), D(T).Gamma(1.0, 2.0)),
        D(T).kl_divergence(D(T).Beta(a, b), D(T).Beta(T.tensor([2.0, 1.0]), 0.5)),
        D(T).kl_divergence(D(T).Dirichlet(T.stack([a, b], -1)), D(T).Dirichlet(T.tensor([2.0, 1.0])))]))(
        T, [0.5, 2.0], [1.5, 0.7]),
    "kl_gamma_beta_cross": lambda T: grads_of(lambda T, a, b: T.stack([
        D(T).kl_divergence(D(T).Beta(a, b), D(T).Exponential(2.0)),
        D(T).kl_divergence(D(T).Beta(a, b), D(T).Gamma(2.0, 0.5)),
        D(T).kl_divergence(D(T).Beta(a, b), D(T).Normal(0.5, 2.0)),
        D(T).kl_divergence(D(T).Beta(a, b), D(T).Uniform(T.tensor([0.0, 0.5]), 1.0)),
        D(T).kl_divergence(D(T).Gamma(a, b), D(T).Exponential(2.0)),
        D(T).kl_divergence(D(T).Gamma(a, b), D(T).Normal(0.5, 2.0)),
        D(T).kl_divergence(D(T).Exponential(a), D(T).Gamma(b, 2.0)),
        D(T).kl_divergence(D(T).Uniform(0.0, a), D(T).Gamma(b, 2.0)),
        D(T).kl_divergence(D(T).Uniform(a / 10, a / 5), D(T).Beta(b, 2.0)),
        D(T).kl_divergence(D(T).Gamma(a, b), D(T).Uniform(0.0, 1.0)),
        D(T).kl_divergence(D(T).Normal(a, b), D(T).Gamma(1.0, 1.0))]))(T, [0.5, 2.0], [1.5, 0.7]),
    # kl_divergence between the same families
    "kl_normal_normal": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).Normal(m, s), D(T).Normal(0.0, 1.0)))(T, LOC, SCALE),
    "kl_normal_normal_both": lambda T: grads_of(lambda T, m, s, m2: D(T).kl_divergence(
        D(T).Normal(m, s), D(T).Normal(m2, 2.0)))(T, LOC, SCALE, X),
    "kl_bernoulli": lambda T: grads_of(lambda T, p, q: D(T).kl_divergence(
        D(T).Bernoulli(p), D(T).Bernoulli(q)))(T, [0.2, 0.5, 0.9], [0.4, 0.5, 0.1]),
    "kl_bernoulli_edges": lambda T: D(T).kl_divergence(
        D(T).Bernoulli(T.tensor([0.0, 1.0, 0.5, 0.3])), D(T).Bernoulli(T.tensor([0.5, 0.5, 0.0, 1.0]))),
    "kl_bernoulli_logits": lambda T: D(T).kl_divergence(
        D(T).Bernoulli(logits=leaf(T, [0.5, -1.0])), D(T).Bernoulli(logits=T.tensor([0.0, 1.0]))),
    "kl_categorical": lambda T: grads_of(lambda T, p, q: D(T).kl_divergence(
        D(T).Categorical(p), D(T).Categorical(logits=q)))(T, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], [0.0, 1.0, -1.0]),
    "kl_categorical_zero_probs": lambda T: D(T).kl_divergence(
        D(T).Categorical(T.tensor([0.0, 0.5, 0.5])), D(T).Categorical(T.tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]))),
    "kl_onehot": lambda T: grads_of(lambda T, p: D(T).kl_divergence(
        D(T).OneHotCategorical(p), D(T).OneHotCategorical(T.tensor([0.3, 0.3, 0.4]))))(T, [0.2, 0.3, 0.5]),
    "kl_uniform": lambda T: grads_of(lambda T, lo, hi: D(T).kl_divergence(
        D(T).Uniform(lo, hi), D(T).Uniform(T.tensor([-1.0, 0.5]), 2.0)))(T, [0.0, 0.0], [1.0, 1.5]),
    "kl_laplace": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).Laplace(m, s), D(T).Laplace(0.5, 2.0)))(T, LOC, SCALE),
    "kl_exponential": lambda T: grads_of(lambda T, r: D(T).kl_divergence(
        D(T).Exponential(r), D(T).Exponential(1.5)))(T, [0.5, 2.0]),
    "kl_independent": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).Independent(D(T).Normal(m, s), 1), D(T).Independent(D(T).Normal(T.zeros(3), 1.0), 1)))(T, LOC, SCALE),
    "kl_poisson": lambda T: grads_of(lambda T, r: D(T).kl_divergence(
        D(T).Poisson(r), D(T).Poisson(T.tensor([1.0, 3.0]))))(T, [0.5, 2.0]),
    "kl_geometric": lambda T: grads_of(lambda T, p: D(T).kl_divergence(
        D(T).Geometric(p), D(T).Geometric(T.tensor([0.5, 0.2]))))(T, [0.3, 0.6]),
    "kl_binomial": lambda T: D(T).kl_divergence(D(T).Binomial(T.tensor([5.0, 6.0]), leaf(T, [0.3, 0.6])),
                                                D(T).Binomial(5, T.tensor([0.5, 0.5]))),
    "kl_exp_family_bregman": lambda T: grads_of(lambda T, m, s: D(T).kl._kl_expfamily_expfamily(
        D(T).Normal(m, s), D(T).Normal(0.5, 2.0)))(T, LOC, SCALE),
    # kl_divergence between different families
    "kl_normal_laplace": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).Normal(m, s), D(T).Laplace(0.0, 2.0)))(T, LOC, SCALE),
    "kl_laplace_normal": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).Laplace(m, s), D(T).Normal(1.0, 2.0)))(T, LOC, SCALE),
    "kl_exponential_normal": lambda T: grads_of(lambda T, r: D(T).kl_divergence(
        D(T).Exponential(r), D(T).Normal(1.0, 2.0)))(T, [0.5, 2.0]),
    "kl_uniform_normal": lambda T: grads_of(lambda T, lo: D(T).kl_divergence(
        D(T).Uniform(lo, 2.0), D(T).Normal(1.0, 2.0)))(T, [0.5, -1.0]),
    "kl_uniform_exponential": lambda T: D(T).kl_divergence(
        D(T).Uniform(T.tensor([0.5, -1.0]), 2.0), D(T).Exponential(leaf(T, [1.0, 2.0]))),
    "kl_bernoulli_poisson": lambda T: D(T).kl_divergence(D(T).Bernoulli(leaf(T, [0.3])), D(T).Poisson(T.tensor([2.0]))),
    "kl_infinite": lambda T: [D(T).kl_divergence(p, q) for p, q in [
        (D(T).Normal(leaf(T, LOC), 1.0), D(T).Uniform(0.0, 1.0)), (D(T).Normal(0.0, 1.0), D(T).Exponential(1.0)),
        (D(T).Laplace(T.zeros(2), 1.0), D(T).Uniform(0.0, 1.0)), (D(T).Laplace(0.0, 1.0), D(T).Exponential(1.0)),
        (D(T).Exponential(T.ones(2)), D(T).Uniform(0.0, 1.0)), (D(T).Poisson(T.ones(2)), D(T).Bernoulli(0.5)),
        (D(T).Poisson(1.0), D(T).Binomial(3, T.tensor(0.5)))]],
    "kl_expand": lambda T: D(T).kl_divergence(D(T).Normal(leaf(T, [0.5]), 1.0).expand((3,)), D(T).Normal(0.0, 2.0)),
    # register_kl for a user's distribution, and the most specific match for a subclass
    "register_kl_user_class": lambda T: user_kl(T),
    # the base class and the validation switch
    "validate_args_default": lambda T: (D(T).Distribution._validate_args, D(T).Normal(0.0, 1.0)._validate_args,
                                        D(T).Normal(0.0, 1.0, validate_args=False)._validate_args),
    "set_default_validate_args": lambda T: toggled_validation(T),
    "base_class": lambda T: (lambda d: (d.batch_shape, d.event_shape, d.has_rsample, d.has_enumerate_support,
                                        repr(d._extended_shape((2,)))))(
        D(T).Distribution(T.Size([3]), T.Size([2]), validate_args=False)),
    "subclass_no_arg_constraints": lambda T: type("Coin", (D(T).Distribution,), {})().batch_shape,
    "subclass_no_support_log_prob": lambda T: subclass_without_support(T),
    "base_mode_message": lambda T: not_implemented_mode(T),
    "sample_n_warns": seeded(lambda T: D(T).Bernoulli(T.tensor([0.3, 0.8])).sample_n(2)),
    "sample_shape_list": seeded(lambda T: D(T).Uniform(0.0, 1.0).sample([2]).shape),
    # constraints
    "constraint_reprs": lambda T: [repr(getattr(D(T).constraints, n)) for n in (
        "real", "positive", "nonnegative", "unit_interval", "boolean", "simplex", "one_hot", "real_vector",
        "nonnegative_integer", "positive_integer", "dependent", "lower_triangular", "lower_cholesky", "square",
        "symmetric")],
    "constraint_factory_reprs": lambda T: [repr(c) for c in (
        (lambda C: [C.greater_than(2), C.greater_than_eq(-1.5), C.less_than(T.tensor(3.0)), C.interval(0, 2),
                    C.half_open_interval(-1.0, 1.0), C.integer_interval(0, 4), C.independent(C.positive, 2),
                    C.independent(C.simplex, 1), C.interval(T.tensor([0.0, 1.0]), T.tensor([2.0, 3.0])),
                    C.multinomial(3), C.dependent(is_discrete=True, event_dim=1),
                    C.cat([C.real, C.positive]), C.stack([C.real, C.positive])])(D(T).constraints))],
    "constraint_checks": lambda T: (lambda C, v: [
        C.real.check(v), C.positive.check(v), C.nonnegative.check(v), C.unit_interval.check(v), C.boolean.check(v),
        C.greater_than(0.5).check(v), C.less_than(1.0).check(v), C.interval(0.0, 1.0).check(v),
        C.half_open_interval(0.0, 1.0).check(v), C.integer_interval(0, 1).check(v),
        C.nonnegative_integer.check(v), C.real_vector.check(v), C.independent(C.positive, 1).check(v)])(
        D(T).constraints, T.tensor([[-1.0, 0.0, 1.0], [0.5, 2.0, float("nan")]])),
    "constraint_simplex_onehot": lambda T: (lambda C: [
        C.simplex.check(T.tensor([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])),
        C.one_hot.check(T.tensor([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])),
        C.lower_cholesky.check(T.tensor([[1.0, 0.0], [2.0, 3.0]])), C.square.check(T.ones(2, 2, 3)),
        C.symmetric.check(T.tensor([[1.0, 2.0], [2.0, 1.0]])),
        C.cat([C.real, C.positive], lengths=[1, 2]).check(T.tensor([-1.0, 1.0, -2.0])),
        C.stack([C.real, C.positive], dim=-1).check(T.tensor([[-1.0, 1.0], [2.0, -2.0]]))])(D(T).constraints),
    "constraint_attrs": lambda T: (lambda C: [
        (c.is_discrete, c.event_dim) for c in (C.real, C.simplex, C.one_hot, C.boolean, C.integer_interval(0, 3),
                                                C.independent(C.real, 2), C.real_vector, C.lower_cholesky)]
        + [C.is_dependent(C.dependent), C.is_dependent(C.real), C.is_dependent(D(T).Uniform.support),
           D(T).Categorical.support.is_discrete, D(T).Categorical.support.event_dim,
           isinstance(C.positive, C.Constraint)])(D(T).constraints),
    "support_of_each": lambda T: [d.support for d in (
        D(T).Normal(0.0, 1.0), D(T).Uniform(0.0, T.tensor([1.0, 2.0])), D(T).Laplace(0.0, 1.0),
        D(T).Exponential(1.0), D(T).Bernoulli(0.5), D(T).Categorical(T.ones(4)), D(T).OneHotCategorical(T.ones(4)),
        D(T).Independent(D(T).Normal(T.zeros(2), 1.0), 1), D(T).Binomial(T.tensor(4.0), T.tensor(0.5)),
        D(T).Geometric(0.5), D(T).Poisson(2.0))],
    "reprs_of_each": lambda T: [repr(d) for d in (
        D(T).Normal(0.0, 1.0), D(T).Normal(T.zeros(2), 1.0), D(T).Uniform(T.tensor([0.0]), T.tensor([2.0])),
        D(T).Laplace(T.tensor(1.0), 2.0), D(T).Exponential(T.ones(2, 2)), D(T).Bernoulli(0.3),
        D(T).Bernoulli(logits=T.zeros(3)), D(T).Categorical(T.ones(4)), D(T).Categorical(logits=T.ones(1)),
        D(T).OneHotCategorical(T.ones(3)), D(T).Independent(D(T).Bernoulli(T.ones(2, 2) / 2), 2),
        D(T).Geometric(T.tensor([0.5])), D(T).Poisson(3.0), D(T).Binomial(5, T.tensor(0.5)))],
    # MultivariateNormal
    "mvn_log_prob_grads": lambda T: grads_of(lambda T, m, c, x: D(T).MultivariateNormal(m, c).log_prob(x))(
        T, MU, COV, PTS),
    "mvn_log_prob_graph": lambda T: (lambda lp: (lp, node_names(lp)))(
        D(T).MultivariateNormal(leaf(T, MU), leaf(T, COV)).log_prob(T.tensor(PTS))),
    "mvn_scale_tril_grads": lambda T: grads_of(lambda T, m, L, x: D(T).MultivariateNormal(m, scale_tril=L).log_prob(x))(
        T, MU, TRIL, PTS),
    "mvn_precision_grads": lambda T: grads_of(
        lambda T, m, P, x: D(T).MultivariateNormal(m, precision_matrix=P).log_prob(x))(T, MU, PREC, PTS),
    "mvn_precision_factors": lambda T: (lambda d: (d.scale_tril, d.covariance_matrix, d.precision_matrix,
                                                   node_names(d.scale_tril)))(
        D(T).MultivariateNormal(T.zeros(3), precision_matrix=leaf(T, PREC))),
    "mvn_params_of_cov": lambda T: (lambda d: (d.scale_tril, d.precision_matrix, d.covariance_matrix, repr(d)))(
        D(T).MultivariateNormal(leaf(T, MU), leaf(T, COV))),
    "mvn_params_of_tril": lambda T: (lambda d: (repr(d), d.covariance_matrix, d.precision_matrix, d.scale_tril,
                                                repr(d)))(D(T).MultivariateNormal(T.zeros(3), scale_tril=leaf(T, TRIL))),
    "mvn_stats_entropy": lambda T: (lambda d: (d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.perplexity()))(
        D(T).MultivariateNormal(leaf(T, MU), leaf(T, COV))),
    "mvn_entropy_grads": lambda T: grads_of(lambda T, c: D(T).MultivariateNormal(T.zeros(3), c).entropy())(T, COV),
    "mvn_batch_loc": lambda T: (lambda d: (d.batch_shape, d.event_shape, d.log_prob(T.tensor(PTS[:2])), d.entropy(),
                                           d.variance, d.loc.shape, d.covariance_matrix.shape, repr(d)))(
        D(T).MultivariateNormal(leaf(T, [MU, X]), leaf(T, COV))),
    "mvn_batch_cov": lambda T: grads_of(lambda T, c, x: D(T).MultivariateNormal(T.zeros(2, 1, 3), c).log_prob(x))(
        T, [COV, [[1.0, 0.2, 0.0], [0.2, 2.0, 0.1], [0.0, 0.1, 1.3]]], [PTS[::2], PTS[2::-2]]),
    "mvn_log_prob_broadcast_value": lambda T: D(T).MultivariateNormal(
        T.zeros(2, 3), scale_tril=T.tensor([TRIL, [[1.0, 0, 0], [0, 2, 0], [1, 1, 1]]])).log_prob(
        T.tensor(PTS).reshape(3, 1, 3)),
    "mvn_log_prob_sample_dims": lambda T: D(T).MultivariateNormal(
        T.zeros(2, 1, 3), scale_tril=T.tensor([[TRIL], [[[1.0, 0, 0], [0, 2, 0], [1, 1, 1]]]])).log_prob(
        T.arange(24.0).reshape(4, 2, 1, 3) / 10),
    "mvn_2d_float64": lambda T: grads_of(lambda T, m: D(T).MultivariateNormal(
        m.double(), T.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=T.float64)).log_prob(
        T.tensor([[0.1, 0.2], [3.0, -1.0]], dtype=T.float64)))(T, [0.5, -0.5]),
    "mvn_1d_event": lambda T: (lambda d: (d.log_prob(T.tensor([[0.5], [2.0]])), d.entropy(), d.variance))(
        D(T).MultivariateNormal(leaf(T, [1.0]), T.tensor([[4.0]]))),
    "mvn_rsample_grads": seeded(lambda T: grads_of(
        lambda T, m, L: D(T).MultivariateNormal(m, scale_tril=L).rsample((2,)))(T, MU, TRIL)),
    "mvn_rsample_cov_grads": seeded(lambda T: grads_of(
        lambda T, m, c: D(T).MultivariateNormal(m, c).rsample((4,)))(T, MU, COV), seed=5),
    "mvn_sample_batch": seeded(lambda T: D(T).MultivariateNormal(
        T.tensor([MU, X]), T.tensor(COV)).sample((2,)), seed=3),
    "mvn_sample_no_grad": seeded(lambda T: D(T).MultivariateNormal(leaf(T, MU), leaf(T, COV)).sample()),
    "mvn_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.loc.shape, d.covariance_matrix.shape,
                                        d.scale_tril.shape, d.log_prob(T.tensor(PTS)), d.entropy(),
                                        d._validate_args))(
        D(T).MultivariateNormal(leaf(T, MU), leaf(T, COV)).expand((3,))),
    "mvn_expand_tril": lambda T: (lambda d: (repr(d), d.precision_matrix.shape, d.variance))(
        D(T).MultivariateNormal(T.zeros(3), scale_tril=T.tensor(TRIL)).expand([2, 2])),
    "mvn_attrs": lambda T: (lambda M: (M.arg_constraints, M.support, M.has_rsample, M.has_enumerate_support))(
        D(T).MultivariateNormal),
    "mvn_unchecked_value": lambda T: D(T).MultivariateNormal(T.zeros(3), T.tensor(COV), validate_args=False).log_prob(
        T.tensor([float("nan"), 0.0, 1.0])),
    "kl_mvn_mvn": lambda T: grads_of(lambda T, m, c, L: D(T).kl_divergence(
        D(T).MultivariateNormal(m, c), D(T).MultivariateNormal(T.tensor(X), scale_tril=L)))(T, MU, COV, TRIL),
    "kl_mvn_mvn_batch": lambda T: (lambda k: (k, node_names(k)))(D(T).kl_divergence(
        D(T).MultivariateNormal(leaf(T, [MU, X]), T.tensor(COV)),
        D(T).MultivariateNormal(T.zeros(3, 1, 3), precision_matrix=T.tensor(PREC)))),
    "mvn_double_backward": lambda T: (lambda m, c: (lambda g: (g, T.autograd.grad(
        (g[0] * T.tensor([1.0, 2.0, 3.0])).sum() + (g[1] * T.tensor(TRIL)).sum(), (m, c))))(
        T.autograd.grad(D(T).MultivariateNormal(m, c).log_prob(T.tensor(PTS)).sum(), (m, c), create_graph=True)))(
        leaf(T, MU), leaf(T, COV)),
    "kl_mvn_self": lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.tensor(MU), T.tensor(COV)),
                                                D(T).MultivariateNormal(T.tensor(MU), T.tensor(COV))),
    # LowRankMultivariateNormal
    "lowrank_log_prob_grads": lambda T: grads_of(lambda T, m, w, dg, x: D(T).LowRankMultivariateNormal(
        m, w, dg).log_prob(x))(T, MU, W, DIAG, PTS),
    "lowrank_params": lambda T: (lambda d: (d.variance, d.scale_tril, d.covariance_matrix, d.precision_matrix,
                                            d.entropy(), d.mean, d.mode, repr(d), d.batch_shape, d.event_shape))(
        D(T).LowRankMultivariateNormal(leaf(T, MU), leaf(T, W), leaf(T, DIAG))),
    "lowrank_batch": lambda T: (lambda d: (d.log_prob(T.tensor(PTS[:2])), d.entropy(), d.batch_shape,
                                           d.cov_factor.shape, repr(d)))(
        D(T).LowRankMultivariateNormal(T.zeros(2, 3), leaf(T, W), leaf(T, [DIAG, [1.0, 1.0, 1.0]]))),
    "lowrank_rsample_grads": seeded(lambda T: grads_of(lambda T, w, dg: D(T).LowRankMultivariateNormal(
        T.tensor(MU), w, dg).rsample((3,)))(T, W, DIAG), seed=8),
    "lowrank_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.log_prob(T.tensor(PTS[0])), d.variance.shape))(
        D(T).LowRankMultivariateNormal(T.zeros(3), T.tensor(W), T.tensor(DIAG)).expand((2,))),
    "kl_lowrank_pairs": lambda T: grads_of(lambda T, m, w, dg, c: T.stack([
        D(T).kl_divergence(D(T).LowRankMultivariateNormal(m, w, dg), D(T).LowRankMultivariateNormal(
            T.zeros(3), T.tensor(W[::-1]), T.ones(3))),
        D(T).kl_divergence(D(T).LowRankMultivariateNormal(m, w, dg), D(T).MultivariateNormal(T.zeros(3), c)),
        D(T).kl_divergence(D(T).MultivariateNormal(m, c), D(T).LowRankMultivariateNormal(T.ones(3), w, dg))]))(
        T, MU, W, DIAG, COV),
    # transforms
    "transform_exp": lambda T: transform_view(D(T).ExpTransform(), leaf(T, X)),
    "transform_affine": lambda T: transform_view(D(T).AffineTransform(leaf(T, LOC), leaf(T, [2.0, -0.5, 1.0])),
                                                 leaf(T, X)),
    "transform_affine_scalars": lambda T: (lambda t: transform_view(t, leaf(T, X)) + (t.sign, t.event_dim))(
        D(T).AffineTransform(1.0, -3.0)),
    "transform_affine_event_dim": lambda T: (lambda t: transform_view(t, leaf(T, [X, LOC])) + (t.event_dim,))(
        D(T).AffineTransform(T.zeros(3), leaf(T, [2.0, 0.5, 3.0]), event_dim=1)),
    "transform_sigmoid": lambda T: transform_view(D(T).SigmoidTransform(), leaf(T, [-20.0, 0.3, 5.0, 100.0])),
    "transform_tanh": lambda T: transform_view(D(T).TanhTransform(), leaf(T, [-3.0, 0.3, 1.5])),
    "transform_softplus": lambda T: transform_view(D(T).SoftplusTransform(), leaf(T, [-3.0, 0.3, 25.0])),
    "transform_power": lambda T: (lambda t: transform_view(t, leaf(T, [0.5, 1.5, 3.0])) + (t.sign,))(
        D(T).PowerTransform(leaf(T, [2.0, -0.5, 0.0]))),
    "transform_power_scalar": lambda T: (lambda t: transform_view(t, leaf(T, SCALE)) + (t.exponent, t.sign))(
        D(T).PowerTransform(3.0)),
    "transform_abs": lambda T: (lambda t: (t(leaf(T, LOC)), t.inv(T.tensor(X)), t.bijective, repr(t)))(
        D(T).AbsTransform()),
    "transform_softmax": lambda T: (lambda t, x: (t(x), t.inv(t(x)), t.domain, t.codomain, t.bijective,
                                                  t.forward_shape(x.shape), t.event_dim))(
        D(T).SoftmaxTransform(), leaf(T, [X, LOC])),
    "transform_stick_breaking": lambda T: transform_view(D(T).StickBreakingTransform(), leaf(T, [X, LOC])),
    "transform_lower_cholesky": lambda T: (lambda t, x: (t(x), t.inv(t(x)), t.domain, t.codomain, t.event_dim))(
        D(T).LowerCholeskyTransform(), leaf(T, COV)),
    "transform_positive_definite": lambda T: (lambda t, x: (t(x), t.inv(t(x)), t.codomain))(
        D(T).PositiveDefiniteTransform(), leaf(T, TRIL)),
    "transform_corr_cholesky": lambda T: transform_view(D(T).CorrCholeskyTransform(), leaf(T, [[0.5, -1.0, 2.0],
                                                                                                 [0.0, 0.3, -0.2]])),
    "transform_reshape": lambda T: transform_view(D(T).ReshapeTransform((6,), (2, 3)), leaf(T, [X + LOC])),
    "transform_independent": lambda T: transform_view(D(T).IndependentTransform(D(T).ExpTransform(), 1),
                                                      leaf(T, [X, LOC])),
    "transform_cat": lambda T: (lambda t, x: (t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.domain,
                                              t.codomain, t.event_dim, t.bijective, t.length))(
        D(T).CatTransform([D(T).ExpTransform(), D(T).AffineTransform(1.0, 2.0)], dim=1, lengths=[2, 1]),
        leaf(T, [X, LOC])),
    "transform_stack": lambda T: (lambda t, x: (t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x)), t.domain,
                                                t.codomain, t.bijective))(
        D(T).StackTransform([D(T).ExpTransform(), D(T).TanhTransform(), D(T).SigmoidTransform()], dim=1),
        leaf(T, [X, LOC])),
    "transform_cdf": lambda T: transform_view(D(T).CumulativeDistributionTransform(D(T).Normal(0.0, 2.0)),
                                              leaf(T, X)),
    "transform_compose": lambda T: (lambda t: transform_view(t, leaf(T, [0.3, -0.2, 0.9])) + (t.sign, repr(t.inv), t.inv.inv is t,
                                                                                t.event_dim))(
        D(T).ComposeTransform([D(T).AffineTransform(0.5, -0.5), D(T).TanhTransform(), D(T).ExpTransform()])),
    "transform_compose_event_dims": lambda T: (lambda t: (t.domain, t.codomain, t(leaf(T, [X, LOC])),
                                                          t.log_abs_det_jacobian(leaf(T, [X, LOC]),
                                                                                 t(T.tensor([X, LOC])))))(
        D(T).ComposeTransform([D(T).ExpTransform(), D(T).StickBreakingTransform()])),
    "transform_identity": lambda T: (lambda t: (repr(t), t(T.tensor(X)), t.inv(T.tensor(X)), t.domain, t.codomain,
                                                t.log_abs_det_jacobian(T.tensor(X), T.tensor(X)), t.bijective,
                                                t.sign))(D(T).identity_transform),
    "transform_inverse": lambda T: (lambda t: (repr(t.inv), t.inv.inv is t, t.inv is t.inv, t.inv.domain,
                                               t.inv.codomain, t.inv.sign, t.inv.bijective, t.inv(T.tensor([0.5, 2.0])),
                                               t.inv.log_abs_det_jacobian(T.tensor([0.5, 2.0]),
                                                                          t.inv(T.tensor([0.5, 2.0]))),
                                               t.inv == D(T).ExpTransform().inv, t.inv == t))(D(T).ExpTransform()),
    "transform_equality": lambda T: (
        D(T).ExpTransform() == D(T).ExpTransform(), D(T).ExpTransform() != D(T).SigmoidTransform(),
        D(T).AffineTransform(1.0, 2.0) == D(T).AffineTransform(1.0, 2.0),
        D(T).AffineTransform(T.ones(2), 2.0) == D(T).AffineTransform(T.ones(2), 2.0),
        D(T).AffineTransform(1.0, 2.0) == D(T).AffineTransform(1.0, 3.0),
        D(T).PowerTransform(2.0) == D(T).PowerTransform(T.tensor(2.0)),
        D(T).ComposeTransform([D(T).ExpTransform()]) == D(T).ComposeTransform([D(T).ExpTransform()]),
        D(T).Transform() == D(T).Transform(), D(T).TanhTransform() == D(T).TanhTransform().inv.inv),
    "transform_cache": lambda T: (lambda t, x: (lambda y: (t.inv(y) is x, t(x) is y, t._cache_size,
                                                           t.with_cache(1) is t, t.with_cache(0)._cache_size,
                                                           t.inv.with_cache(0).inv._cache_size))(t(x)))(
        D(T).TanhTransform(cache_size=1), T.tensor(X)),
    "transform_with_cache": lambda T: [(repr(t), t._cache_size, getattr(t, "parts", [t])[0]._cache_size) for t in (
        D(T).PowerTransform(2.0).inv.with_cache(1).inv, D(T).SigmoidTransform().with_cache(1),
        D(T).ComposeTransform([D(T).ExpTransform(), D(T).AffineTransform(1.0, 2.0)]).with_cache(1),
        D(T).IndependentTransform(D(T).ExpTransform(), 1).with_cache(1).base_transform,
        D(T).ReshapeTransform((2,), (2, 1)).with_cache(1), D(T).AffineTransform(1.0, 2.0, event_dim=1).with_cache(1),
        D(T).CumulativeDistributionTransform(D(T).Normal(0.0, 1.0)).with_cache(1),
        D(T).CatTransform([D(T).ExpTransform()]).with_cache(1).transforms[0],
        D(T).StackTransform([D(T).ExpTransform()]).with_cache(1).transforms[0])],
    "transform_uncached": lambda T: (lambda t, x: t.inv(t(x)) is x)(D(T).ExpTransform(), T.tensor(X)),
    "transform_tanh_clipped_inverse": lambda T: (
        D(T).TanhTransform().inv(T.tensor([1.0, -1.0, 0.5])),
        (lambda t: (lambda y: t.inv(y))(t(T.tensor([30.0, -30.0]))))(D(T).TanhTransform(cache_size=1))),
    "transform_shapes": lambda T: (
        D(T).AffineTransform(T.zeros(3), 1.0).forward_shape(T.Size([2, 1])),
        D(T).StickBreakingTransform().forward_shape((4, 2)), D(T).StickBreakingTransform().inverse_shape((4, 3)),
        D(T).CorrCholeskyTransform().forward_shape((2, 6)), D(T).CorrCholeskyTransform().inverse_shape((2, 4, 4)),
        D(T).ReshapeTransform((4,), (2, 2)).forward_shape(T.Size([3, 4])),
        D(T).PowerTransform(T.ones(2)).inverse_shape(T.Size([3, 1]))),
    "transform_grads": lambda T: grads_of(lambda T, x: T.stack([
        t.log_abs_det_jacobian(x, t(x)) + t(x) for t in (
            D(T).ExpTransform(), D(T).SigmoidTransform(), D(T).TanhTransform(), D(T).SoftplusTransform(),
            D(T).AffineTransform(1.0, -2.0), D(T).ExpTransform().inv.inv)]))(T, X),
    # TransformedDistribution
    "transformed_tanh_normal": lambda T: grads_of(lambda T, m, s: (lambda d: d.log_prob(T.tensor([0.5, -0.9, 0.99])))(
        D(T).TransformedDistribution(D(T).Normal(m, s), [D(T).TanhTransform()])))(T, LOC, SCALE),
    "transformed_tanh_normal_rsample": seeded(lambda T: grads_of(lambda T, m, s: (lambda d: (lambda y: y + d.log_prob(y))(
        d.rsample((2,))))(D(T).TransformedDistribution(D(T).Normal(m, s), D(T).TanhTransform(cache_size=1))))(
        T, LOC, SCALE)),
    "transformed_shapes": lambda T: (lambda d: (repr(d), d.batch_shape, d.event_shape, d.support, d.has_rsample,
                                                d.base_dist.batch_shape, type(d.base_dist).__name__,
                                                d.sample((2,)).shape))(
        D(T).TransformedDistribution(D(T).Normal(T.zeros(2, 3), 1.0), [D(T).StickBreakingTransform()])),
    "transformed_stick_breaking_log_prob": lambda T: grads_of(lambda T, m: D(T).TransformedDistribution(
        D(T).Normal(m, 1.0), D(T).StickBreakingTransform()).log_prob(T.tensor([0.2, 0.3, 0.1, 0.4])))(T, LOC),
    "transformed_affine_cdf_icdf": lambda T: (lambda d: (d.cdf(T.tensor([0.5, 2.0])), d.icdf(T.tensor([0.1, 0.7])),
                                                         d.log_prob(T.tensor([0.5, 2.0])), d.support))(
        D(T).TransformedDistribution(D(T).Normal(leaf(T, [0.5, 1.0]), 1.0),
                                     [D(T).AffineTransform(1.0, -2.0), D(T).ExpTransform()])),
    "transformed_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.base_dist.batch_shape,
                                                d.log_prob(T.tensor([0.5, 2.0]))))(
        D(T).TransformedDistribution(D(T).Normal(T.zeros(2), 1.0), D(T).ExpTransform()).expand((3, 2))),
    "transformed_mvn_affine": lambda T: (lambda d: (d.batch_shape, d.event_shape, d.support,
                                                    d.log_prob(T.tensor(PTS))))(
        D(T).TransformedDistribution(D(T).MultivariateNormal(leaf(T, MU), T.tensor(COV)),
                                     [D(T).AffineTransform(1.0, T.tensor([2.0, 1.0, 0.5]), event_dim=1)])),
    "transformed_lifts_batch_dims": lambda T: (lambda d: (d.batch_shape, d.event_shape, repr(d.base_dist),
                                                          d.log_prob(T.tensor([[0.1, 0.2], [0.3, 0.4]]))))(
        D(T).TransformedDistribution(D(T).Normal(T.zeros(2, 2), 1.0), [D(T).IndependentTransform(
            D(T).ExpTransform(), 1)])),
    "transformed_no_transforms": lambda T: (lambda d: (d.support, d.log_prob(T.tensor(0.5)), d.event_shape))(
        D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), [])),
    "transformed_sample": seeded(lambda T: D(T).TransformedDistribution(
        D(T).Normal(T.zeros(2), 1.0), [D(T).SigmoidTransform(), D(T).AffineTransform(-1.0, 2.0)]).sample((3,)), seed=6),
    "kl_transformed": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).TransformedDistribution(D(T).Normal(m, s), [D(T).ExpTransform()]),
        D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), [D(T).ExpTransform()])))(T, LOC, SCALE),
    # LogNormal and Gumbel
    "lognormal_log_prob_grads": lambda T: grads_of(lambda T, m, s: D(T).LogNormal(m, s).log_prob(
        T.tensor([0.5, 1.0, 7.0])))(T, LOC, SCALE),
    "lognormal_stats": lambda T: (lambda d: (d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.loc, d.scale,
                                             repr(d), d.support, d.cdf(T.tensor([0.5, 1.0, 2.0])),
                                             d.icdf(T.tensor([0.2, 0.6, 0.7]))))(
        D(T).LogNormal(leaf(T, LOC), leaf(T, SCALE))),
    "lognormal_rsample": seeded(lambda T: grads_of(lambda T, m, s: D(T).LogNormal(m, s).rsample((2,)))(T, LOC, SCALE)),
    "lognormal_expand": lambda T: (lambda d: (repr(d), type(d).__name__, d.batch_shape, d.mean))(
        D(T).LogNormal(T.tensor([0.0, 1.0]), 1.0).expand((2, 2))),
    "kl_lognormal": lambda T: grads_of(lambda T, m, s: D(T).kl_divergence(
        D(T).LogNormal(m, s), D(T).LogNormal(0.0, 2.0)))(T, LOC, SCALE),
    "gumbel_log_prob_grads": lambda T: grads_of(lambda T, m, s: D(T).Gumbel(m, s).log_prob(T.tensor(X)))(
        T, LOC, SCALE),
    "gumbel_stats": lambda T: (lambda d: (d.mean, d.mode, d.stddev, d.variance, d.entropy(), repr(d), d.support,
                                          d.cdf(T.tensor(X)), d.icdf(T.tensor([0.1, 0.5, 0.9]))))(
        D(T).Gumbel(leaf(T, LOC), leaf(T, SCALE))),
    "gumbel_scalars": lambda T: (lambda d: (repr(d), d.batch_shape, d.loc, d.log_prob(T.tensor(0.5)),
                                            d.base_dist.low, d.base_dist.high))(D(T).Gumbel(1.0, 2.0)),
    "gumbel_rsample": seeded(lambda T: grads_of(lambda T, m, s: D(T).Gumbel(m, s).rsample((2,)))(T, LOC, SCALE), seed=2),
    "gumbel_expand": lambda T: (lambda d: (repr(d), d.batch_shape, d.log_prob(T.tensor(1.0))))(
        D(T).Gumbel(T.tensor([0.0, 1.0]), 2.0).expand((3, 2))),
    "kl_gumbel_pairs": lambda T: grads_of(lambda T, a, b: T.stack([
        D(T).kl_divergence(D(T).Gumbel(a, b), D(T).Gumbel(1.0, 2.0)),
        D(T).kl_divergence(D(T).Gumbel(a, b), D(T).Normal(1.0, 2.0)),
        D(T).kl_divergence(D(T).Normal(a, b), D(T).Gumbel(1.0, 2.0)),
        D(T).kl_divergence(D(T).Exponential(b), D(T).Gumbel(a, 2.0)),
        D(T).kl_divergence(D(T).Gamma(b, 2.0), D(T).Gumbel(a, 2.0)),
        D(T).kl_divergence(D(T).Uniform(a, a + b), D(T).Gumbel(1.0, 2.0)),
        D(T).kl_divergence(D(T).Gumbel(a, b), D(T).Exponential(2.0))]))(T, [0.5, 2.0], [1.5, 0.7]),
    # biject_to, transform_to and the new constraints
    "biject_transform_to": lambda T: (lambda C: [(repr(D(T).biject_to(c)), repr(D(T).transform_to(c))) for c in (
        C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.less_than(1.0), C.unit_interval,
        C.interval(-1.0, 3.0), C.half_open_interval(0.0, 1.0), C.simplex, C.real_vector, C.corr_cholesky,
        C.independent(C.positive, 1), C.cat([C.real, C.positive], lengths=[1, 2]), C.stack([C.real, C.positive]))]
        + [repr(D(T).transform_to(c)) for c in (C.lower_cholesky, C.positive_definite, C.positive_semidefinite)])(
        D(T).constraints),
    "biject_to_values": lambda T: (lambda C, x: [D(T).biject_to(c)(x) for c in (
        C.positive, C.greater_than(1.0), C.less_than(-1.0), C.unit_interval, C.interval(-1.0, 3.0),
        C.independent(C.positive, 1))] + [D(T).biject_to(C.simplex)(x), D(T).transform_to(C.simplex)(x),
                                          D(T).transform_to(C.lower_cholesky)(T.tensor(COV))])(
        D(T).constraints, leaf(T, X)),
    "biject_to_param": lambda T: grads_of(lambda T, u: (lambda t: D(T).Normal(0.0, t(u)).log_prob(T.tensor(X)))(
        D(T).biject_to(D(T).Normal.arg_constraints["scale"])))(T, [0.5, -0.3, 1.2]),
    "constraint_matrices": lambda T: (lambda C: [
        C.positive_definite.check(T.tensor([COV, [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])),
        C.positive_definite.check(T.tensor([[1.0, 2.0], [0.0, 1.0]])),
        C.positive_semidefinite.check(T.tensor([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
        C.corr_cholesky.check(T.tensor([[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]]])),
        [repr(c) for c in (C.positive_definite, C.positive_semidefinite, C.corr_cholesky)],
        [(c.event_dim, c.is_discrete) for c in (C.positive_definite, C.positive_semidefinite, C.corr_cholesky)]])(
        D(T).constraints),
    # tutorials
    "tutorial_mvn_vae": lambda T: mvn_vae(T),
    "tutorial_sac_tanh_policy": lambda T: sac_policy(T),
    "tutorial_reinforce": lambda T: reinforce(T),
    "tutorial_actor_critic_logits": lambda T: actor_critic(T),
    "tutorial_vae_kl": lambda T: vae(T),
    "tutorial_gaussian_policy": lambda T: gaussian_policy(T),
    "tutorial_squashed_gaussian": lambda T: squashed_gaussian(T),
}


def lazy_under_no_grad(T):
    """A lazy property computed inside no_grad still joins the graph (PyTorch computes it under enable_grad)."""
    d = T.distributions.Categorical(probs=leaf(T, [0.2, 0.8]))
    with T.no_grad():
        logits = d.logits
        entropy = d.entropy()
    return logits, entropy


def user_kl(T):
    D_ = T.distributions

    class Wide(D_.Normal):
        pass

    @D_.register_kl(Wide, D_.Normal)
    def _kl_wide_normal(p, q):
        return (p.loc - q.loc).abs()

    plain = D_.kl_divergence(D_.Normal(T.tensor([1.0, 2.0]), 1.0), D_.Normal(0.0, 1.0))
    wide = D_.kl_divergence(Wide(T.tensor([1.0, 2.0]), 1.0), D_.Normal(0.0, 1.0))
    both_wide = D_.kl_divergence(Wide(T.tensor([1.0, 2.0]), 1.0), Wide(0.0, 1.0))
    D_.kl._KL_REGISTRY.pop((Wide, D_.Normal))
    D_.kl._KL_MEMOIZE.clear()
    return plain, wide, both_wide


def toggled_validation(T):
    Dist = T.distributions.Distribution
    try:
        Dist.set_default_validate_args(False)
        lax = T.distributions.Normal(0.0, -1.0)
        out = [lax._validate_args, lax.log_prob(T.tensor(0.0)), lax.scale]
    finally:
        Dist.set_default_validate_args(True)
    return out + [T.distributions.Normal(0.0, 1.0)._validate_args]


def subclass_without_support(T):
    class Coin(T.distributions.Distribution):
        arg_constraints = {}

        def log_prob(self, value):
            self._validate_sample(value)
            return value * 0

    return Coin(T.Size([2])).log_prob(T.tensor([1.0, 0.0]))


def not_implemented_mode(T):
    try:
        T.distributions.Distribution(validate_args=False).mode
    except NotImplementedError as e:
        return str(e).replace(T.__name__ + ".", "torch.")  # (the class repr names the module)


def reinforce(T):
    """PyTorch's REINFORCE example: a policy network, Categorical over its softmax, the score-function loss."""
    T.manual_seed(0)
    nn, F = T.nn, T.nn.functional
    policy = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    optimizer = T.optim.Adam(policy.parameters(), lr=1e-2)
    states = T.tensor([[0.1, -0.2, 0.03, 0.4], [0.0, 0.5, -0.1, 0.2], [-0.3, 0.1, 0.2, -0.4]])
    log_probs, actions = [], []
    for state in states:
        probs = F.softmax(policy(state.unsqueeze(0)), dim=1)
        m = T.distributions.Categorical(probs)
        action = m.sample()
        actions.append(action.item())
        log_probs.append(m.log_prob(action))
    rewards = [1.0, 0.5, 2.0]
    returns = T.tensor(rewards)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    policy_loss = T.cat([-lp * r for lp, r in zip(log_probs, returns)]).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    grads = [p.grad for p in policy.parameters()]
    optimizer.step()
    return actions, log_probs, policy_loss, grads, policy[2].bias


def actor_critic(T):
    """A PPO-style update: Categorical(logits=...), log-prob ratio, clipped objective and an entropy bonus."""
    T.manual_seed(1)
    actor = T.nn.Linear(3, 4)
    obs = T.tensor([[0.5, -1.0, 0.2], [1.0, 0.0, -0.5]])
    dist = T.distributions.Categorical(logits=actor(obs))
    actions = dist.sample()
    old_log_probs = dist.log_prob(actions).detach() - 0.1
    ratio = (dist.log_prob(actions) - old_log_probs).exp()
    adv = T.tensor([1.0, -0.5])
    loss = -T.min(ratio * adv, T.clamp(ratio, 0.8, 1.2) * adv).mean() - 0.01 * dist.entropy().mean()
    loss.backward()
    return actions, ratio, loss, actor.weight.grad, actor.bias.grad


def vae(T):
    """The VAE's reparameterisation trick: z = q.rsample(), KL(q || N(0, 1)) analytically, then backward."""
    T.manual_seed(2)
    enc = T.nn.Linear(4, 6)
    dec = T.nn.Linear(3, 4)
    x = T.tensor([[0.1, 0.9, 0.4, 0.0], [0.7, 0.2, 0.3, 1.0]])
    mu, logvar = enc(x).chunk(2, dim=-1)
    std = T.exp(0.5 * logvar)
    q = T.distributions.Normal(mu, std)
    p = T.distributions.Normal(T.zeros_like(mu), T.ones_like(std))
    z = q.rsample()
    recon = T.sigmoid(dec(z))
    recon_loss = T.nn.functional.binary_cross_entropy(recon, x, reduction="sum")
    kl = T.distributions.kl_divergence(q, p).sum()
    log_qz, log_pz = q.log_prob(z).sum(), p.log_prob(z).sum()
    loss = recon_loss + kl
    loss.backward()
    return z, kl, log_qz - log_pz, loss, enc.weight.grad, enc.bias.grad, dec.weight.grad


def gaussian_policy(T):
    """A continuous-action policy: Independent(Normal(mu, exp(log_std)), 1), score-function loss."""
    T.manual_seed(3)
    mu_net = T.nn.Linear(2, 3)
    log_std = T.nn.Parameter(T.full((3,), -0.5))
    obs = T.tensor([[0.3, -0.7], [1.2, 0.4]])
    pi = T.distributions.Independent(T.distributions.Normal(mu_net(obs), log_std.exp()), 1)
    act = pi.sample()
    logp = pi.log_prob(act)
    loss = -(logp * T.tensor([0.5, 1.5])).mean() - 0.01 * pi.entropy().mean()
    loss.backward()
    return act, logp, loss, mu_net.weight.grad, log_std.grad, pi.batch_shape, pi.event_shape


def squashed_gaussian(T):
    """SAC's tanh-squashed Gaussian: rsample, tanh, and the log-prob correction."""
    T.manual_seed(4)
    mu = T.tensor([[0.2, -0.4]], requires_grad=True)
    log_std = T.tensor([[-1.0, 0.0]], requires_grad=True)
    normal = T.distributions.Normal(mu, log_std.exp())
    x_t = normal.rsample()
    y_t = T.tanh(x_t)
    log_prob = normal.log_prob(x_t) - T.log(1 - y_t.pow(2) + 1e-6)
    log_prob = log_prob.sum(1, keepdim=True)
    (log_prob - y_t.sum()).sum().backward()
    return y_t, log_prob, mu.grad, log_std.grad


def mvn_vae(T):
    """A VAE whose posterior is a full-covariance MultivariateNormal: the encoder gives loc and an unconstrained
    matrix made lower-Cholesky by transform_to; z = q.rsample(), KL(q || N(0, I)) in closed form."""
    T.manual_seed(5)
    D_ = T.distributions
    enc = T.nn.Linear(4, 2 + 4)
    dec = T.nn.Linear(2, 4)
    x = T.tensor([[0.1, 0.9, 0.4, 0.0], [0.7, 0.2, 0.3, 1.0], [0.5, 0.5, 0.5, 0.5]])
    h = enc(x)
    mu, raw = h[:, :2], h[:, 2:].reshape(-1, 2, 2)
    L = D_.transform_to(D_.constraints.lower_cholesky)(raw)
    q = D_.MultivariateNormal(mu, scale_tril=L)
    p = D_.MultivariateNormal(T.zeros(2), T.eye(2))
    z = q.rsample()
    recon = T.sigmoid(dec(z))
    recon_loss = T.nn.functional.binary_cross_entropy(recon, x, reduction="sum")
    kl = D_.kl_divergence(q, p).sum()
    loss = recon_loss + kl
    loss.backward()
    return z, kl, q.log_prob(z), q.entropy(), loss, enc.weight.grad, enc.bias.grad, dec.weight.grad, node_names(kl)


def sac_policy(T):
    """SAC's actor: a tanh-squashed Gaussian scaled to the action bounds, as a TransformedDistribution whose
    log_prob of its own rsample uses the cached pre-tanh value; the entropy-regularised actor loss."""
    T.manual_seed(6)
    D_ = T.distributions
    net = T.nn.Linear(3, 4)
    obs = T.tensor([[0.5, -1.0, 0.2], [1.0, 0.0, -0.5]])
    mu, log_std = net(obs).chunk(2, dim=-1)
    log_std = T.clamp(log_std, -5.0, 2.0)
    base = D_.Independent(D_.Normal(mu, log_std.exp()), 1)
    pi = D_.TransformedDistribution(base, [D_.TanhTransform(cache_size=1), D_.AffineTransform(0.5, 2.0, event_dim=1)])
    action = pi.rsample()
    logp = pi.log_prob(action)
    q_value = -(action - 0.5).pow(2).sum(-1)
    loss = (0.2 * logp - q_value).mean()
    loss.backward()
    greedy = pi.transforms[1](T.tanh(base.mean))
    return action, logp, loss, net.weight.grad, net.bias.grad, greedy, pi.batch_shape, pi.event_shape, pi.support


ERRORS = {
    "normal_negative_scale": lambda T: D(T).Normal(0.0, -1.0),
    "normal_zero_scale_tensor": lambda T: D(T).Normal(T.zeros(2), T.tensor([1.0, 0.0])),
    "normal_nan_loc": lambda T: D(T).Normal(T.tensor([float("nan"), 0.0]), 1.0),
    "normal_grad_scale_in_message": lambda T: D(T).Normal(0.0, leaf(T, [-1.0, 1.0]) * 1),
    "normal_value_not_tensor": lambda T: D(T).Normal(0.0, 1.0).log_prob(0.5),
    "normal_value_not_broadcastable": lambda T: D(T).Normal(T.zeros(3), 1.0).log_prob(T.zeros(2)),
    "normal_value_nan": lambda T: D(T).Normal(0.0, 1.0).log_prob(T.tensor([0.0, float("nan")])),
    "normal_cdf_outside": lambda T: D(T).Normal(0.0, 1.0).cdf(T.tensor(float("nan"))),
    "normal_bad_param_type": lambda T: D(T).Normal("a", 1.0),
    "normal_list_param": lambda T: D(T).Normal([0.0, 1.0], 1.0),
    "normal_sample_shape_int": lambda T: D(T).Normal(0.0, 1.0).sample(3),
    "normal_shapes_mismatch": lambda T: D(T).Normal(T.zeros(2), T.ones(3)),
    "uniform_low_above_high": lambda T: D(T).Uniform(1.0, 0.0),
    "uniform_equal_bounds": lambda T: D(T).Uniform(T.tensor([0.0, 1.0]), T.tensor([1.0, 1.0])),
    "uniform_value_outside": lambda T: D(T).Uniform(0.0, 1.0).log_prob(T.tensor(2.0)),
    "uniform_value_outside_batch": lambda T: D(T).Uniform(T.zeros(2), T.tensor([1.0, 3.0])).log_prob(
        T.tensor([0.5, 3.5])),
    "uniform_enumerate": lambda T: D(T).Uniform(0.0, 1.0).enumerate_support(),
    "laplace_zero_scale": lambda T: D(T).Laplace(0.0, 0.0),
    "exponential_negative_rate": lambda T: D(T).Exponential(-1.0),
    "exponential_value_negative": lambda T: D(T).Exponential(T.ones(2)).log_prob(T.tensor([1.0, -1.0])),
    "bernoulli_neither": lambda T: D(T).Bernoulli(),
    "bernoulli_both": lambda T: D(T).Bernoulli(probs=0.3, logits=0.1),
    "bernoulli_probs_above_one": lambda T: D(T).Bernoulli(T.tensor([0.5, 1.5])),
    "bernoulli_logits_nan": lambda T: D(T).Bernoulli(logits=T.tensor(float("nan"))),
    "bernoulli_value_not_boolean": lambda T: D(T).Bernoulli(0.3).log_prob(T.tensor(0.5)),
    "bernoulli_rsample": lambda T: D(T).Bernoulli(0.3).rsample(),
    "bernoulli_cdf": lambda T: D(T).Bernoulli(0.3).cdf(T.tensor(1.0)),
    "categorical_neither": lambda T: D(T).Categorical(),
    "categorical_both": lambda T: D(T).Categorical(T.ones(2), T.ones(2)),
    "categorical_probs_0d": lambda T: D(T).Categorical(T.tensor(0.5)),
    "categorical_logits_0d": lambda T: D(T).Categorical(logits=T.tensor(0.5)),
    "categorical_negative_probs": lambda T: D(T).Categorical(T.tensor([-0.5, 1.5])),
    "categorical_value_out_of_range": lambda T: D(T).Categorical(T.ones(3)).log_prob(T.tensor(3)),
    "categorical_value_fraction": lambda T: D(T).Categorical(T.ones(3)).log_prob(T.tensor([0.5])),
    "categorical_value_batch_mismatch": lambda T: D(T).Categorical(T.ones(2, 3)).log_prob(T.tensor([0, 1, 2])),
    "categorical_rsample": lambda T: D(T).Categorical(T.ones(3)).rsample(),
    "categorical_list_probs": lambda T: D(T).Categorical([0.5, 0.5]),
    "onehot_value_event_shape": lambda T: D(T).OneHotCategorical(T.ones(3)).log_prob(T.tensor([0.0, 1.0])),
    "onehot_value_not_one_hot": lambda T: D(T).OneHotCategorical(T.ones(3)).log_prob(T.tensor([1.0, 1.0, 0.0])),
    "onehot_neither": lambda T: D(T).OneHotCategorical(),
    "independent_too_many_dims": lambda T: D(T).Independent(D(T).Normal(T.zeros(2), 1.0), 2),
    "independent_enumerate": lambda T: D(T).Independent(D(T).Bernoulli(T.ones(2) / 2), 1).enumerate_support(),
    "independent_value_outside": lambda T: D(T).Independent(D(T).Exponential(T.ones(2)), 1).log_prob(
        T.tensor([1.0, -1.0])),
    "geometric_zero_probs": lambda T: D(T).Geometric(T.tensor([0.0, 0.5])),
    "geometric_value_fraction": lambda T: D(T).Geometric(0.5).log_prob(T.tensor(1.5)),
    "binomial_fractional_count": lambda T: D(T).Binomial(2.5, T.tensor(0.5)),
    "binomial_value_above_count": lambda T: D(T).Binomial(3, T.tensor([0.5, 0.5])).log_prob(T.tensor([1.0, 4.0])),
    "binomial_inhomogeneous_entropy": lambda T: D(T).Binomial(T.tensor([2.0, 3.0]), T.tensor(0.5)).entropy(),
    "poisson_negative_rate": lambda T: D(T).Poisson(-1.0),
    "poisson_entropy": lambda T: D(T).Poisson(2.0).entropy(),
    "gamma_zero_rate": lambda T: D(T).Gamma(1.0, 0.0),
    "gamma_value_negative": lambda T: D(T).Gamma(1.0, 1.0).log_prob(T.tensor(-1.0)),
    "beta_negative": lambda T: D(T).Beta(T.tensor([1.0, -1.0]), 2.0),
    "beta_value_outside": lambda T: D(T).Beta(1.0, 2.0).log_prob(T.tensor(1.5)),
    "dirichlet_0d": lambda T: D(T).Dirichlet(T.tensor(1.0)),
    "dirichlet_negative": lambda T: D(T).Dirichlet(T.tensor([1.0, -1.0])),
    "dirichlet_value_not_simplex": lambda T: D(T).Dirichlet(T.ones(3)).log_prob(T.tensor([0.2, 0.2, 0.2])),
    "kl_missing_pair": lambda T: D(T).kl_divergence(D(T).Normal(0.0, 1.0), D(T).Categorical(T.ones(2))),
    "kl_cross_exp_family": lambda T: D(T).kl_divergence(D(T).Normal(0.0, 1.0), D(T).Bernoulli(0.5)),
    "kl_missing_uniform_laplace": lambda T: D(T).kl_divergence(D(T).Uniform(0.0, 1.0), D(T).Laplace(0.0, 1.0)),
    "kl_independent_ndims": lambda T: D(T).kl_divergence(
        D(T).Independent(D(T).Normal(T.zeros(2, 2), 1.0), 1), D(T).Independent(D(T).Normal(T.zeros(2, 2), 1.0), 2)),
    "kl_binomial_counts": lambda T: D(T).kl_divergence(
        D(T).Binomial(2, T.tensor(0.5)), D(T).Binomial(3, T.tensor(0.5))),
    "base_mean": lambda T: D(T).Distribution(validate_args=False).mean,
    "base_rsample": lambda T: D(T).Distribution(validate_args=False).sample(),
    "base_expand": lambda T: D(T).Distribution(validate_args=False).expand((2,)),
    "base_repr": lambda T: repr(D(T).Distribution(validate_args=False)),
    "set_default_validate_args_value": lambda T: D(T).Distribution.set_default_validate_args(2),
    "subclass_init_without_expand": lambda T: type("MyNormal", (D(T).Normal,), {
        "__init__": lambda self, loc: D(T).Normal.__init__(self, loc, 1.0)})(T.zeros(2)).expand((3, 2)),
    "dependent_check": lambda T: D(T).constraints.dependent.check(T.ones(1)),
    "dependent_event_dim": lambda T: D(T).constraints.dependent.event_dim,
    "independent_constraint_dims": lambda T: D(T).constraints.independent(D(T).constraints.real, 2).check(T.ones(3)),
    # MultivariateNormal
    "mvn_loc_0d": lambda T: D(T).MultivariateNormal(T.tensor(0.0), T.eye(1)),
    "mvn_no_matrix": lambda T: D(T).MultivariateNormal(T.zeros(2)),
    "mvn_two_matrices": lambda T: D(T).MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)),
    "mvn_cov_1d": lambda T: D(T).MultivariateNormal(T.zeros(2), T.ones(2)),
    "mvn_tril_1d": lambda T: D(T).MultivariateNormal(T.zeros(2), scale_tril=T.ones(2)),
    "mvn_precision_1d": lambda T: D(T).MultivariateNormal(T.zeros(2), precision_matrix=T.ones(2)),
    "mvn_batch_mismatch": lambda T: D(T).MultivariateNormal(T.zeros(3, 2), T.eye(2).expand(2, 2, 2)),
    "mvn_cov_not_positive_definite": lambda T: D(T).MultivariateNormal(T.zeros(2), T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "mvn_cov_not_symmetric": lambda T: D(T).MultivariateNormal(T.zeros(2), T.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "mvn_cov_unchecked_cholesky": lambda T: D(T).MultivariateNormal(
        T.zeros(2), T.stack([T.eye(2), -T.eye(2)]), validate_args=False),
    "mvn_precision_not_positive_definite": lambda T: D(T).MultivariateNormal(T.zeros(2), precision_matrix=-T.eye(2)),
    "mvn_tril_not_lower": lambda T: D(T).MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 2.0], [0.0, 1.0]])),
    "mvn_tril_negative_diagonal": lambda T: D(T).MultivariateNormal(T.zeros(2), scale_tril=-T.eye(2)),
    "mvn_loc_nan": lambda T: D(T).MultivariateNormal(T.tensor([0.0, float("nan")]), T.eye(2)),
    "mvn_value_event_shape": lambda T: D(T).MultivariateNormal(T.zeros(3), T.eye(3)).log_prob(T.zeros(2)),
    "mvn_value_batch": lambda T: D(T).MultivariateNormal(T.zeros(2, 3), T.eye(3)).log_prob(T.zeros(3, 3)),
    "mvn_value_nan": lambda T: D(T).MultivariateNormal(T.zeros(2), T.eye(2)).log_prob(T.tensor([0.0, float("nan")])),
    "mvn_cdf": lambda T: D(T).MultivariateNormal(T.zeros(2), T.eye(2)).cdf(T.zeros(2)),
    "kl_mvn_event_shapes": lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.zeros(2), T.eye(2)),
                                                        D(T).MultivariateNormal(T.zeros(3), T.eye(3))),
    "kl_mvn_normal": lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.zeros(2), T.eye(2)), D(T).Normal(0.0, 1.0)),
    # LowRankMultivariateNormal
    "lowrank_loc_0d": lambda T: D(T).LowRankMultivariateNormal(T.tensor(0.0), T.ones(1, 1), T.ones(1)),
    "lowrank_factor_1d": lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2), T.ones(2)),
    "lowrank_factor_shape": lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(3, 1), T.ones(2)),
    "lowrank_diag_shape": lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(3)),
    "lowrank_batch_shapes": lambda T: D(T).LowRankMultivariateNormal(T.zeros(3, 2), T.ones(2, 2, 1), T.ones(2)),
    "lowrank_diag_negative": lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.tensor([1.0, -1.0])),
    "kl_lowrank_event_shapes": lambda T: D(T).kl_divergence(
        D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)),
        D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3))),
    "kl_lowrank_mvn_event_shapes": lambda T: D(T).kl_divergence(
        D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)), D(T).MultivariateNormal(T.zeros(3), T.eye(3))),
    # transforms and TransformedDistribution
    "transform_cache_size": lambda T: D(T).ExpTransform(cache_size=2),
    "transform_base_sign": lambda T: D(T).Transform().sign,
    "transform_base_call": lambda T: D(T).Transform()(T.ones(2)),
    "transform_base_domain": lambda T: D(T).Transform().event_dim,
    "transform_with_cache_custom_init": lambda T: type("MyT", (D(T).Transform,), {
        "__init__": lambda self: D(T).Transform.__init__(self)})().with_cache(1),
    "transform_event_dim_ambiguous": lambda T: D(T).StickBreakingTransform().inv.inv.event_dim + D(T).ComposeTransform(
        [D(T).ExpTransform(), D(T).CorrCholeskyTransform()]).event_dim,
    "transform_abs_jacobian": lambda T: D(T).AbsTransform().log_abs_det_jacobian(T.ones(2), T.ones(2)),
    "transform_reshape_numel": lambda T: D(T).ReshapeTransform((2, 3), (4,)),
    "transform_reshape_shape": lambda T: D(T).ReshapeTransform((2, 3), (6,)).forward_shape((2, 3, 2)),
    "transform_reshape_few_dims": lambda T: D(T).ReshapeTransform((2, 3), (6,)).inverse_shape(()),
    "transform_stick_breaking_shape": lambda T: D(T).StickBreakingTransform().forward_shape(()),
    "transform_corr_cholesky_shape": lambda T: D(T).CorrCholeskyTransform().forward_shape((4,)),
    "transform_corr_cholesky_square": lambda T: D(T).CorrCholeskyTransform().inverse_shape((2, 3)),
    "transform_independent_few_dims": lambda T: D(T).IndependentTransform(D(T).ExpTransform(), 2)(T.ones(3)),
    "transform_cat_length": lambda T: D(T).CatTransform([D(T).ExpTransform(), D(T).ExpTransform()], lengths=[1, 2])(
        T.ones(2)),
    "transform_cat_dim": lambda T: D(T).CatTransform([D(T).ExpTransform()], dim=2).inv(T.ones(2)),
    "transform_cat_not_transforms": lambda T: D(T).CatTransform([D(T).ExpTransform(), 1]),
    "transform_cat_lengths": lambda T: D(T).CatTransform([D(T).ExpTransform()], lengths=[1, 2]),
    "transform_stack_size": lambda T: D(T).StackTransform([D(T).ExpTransform()])(T.ones(2)),
    "transform_stack_jacobian_dim": lambda T: D(T).StackTransform([D(T).ExpTransform()], dim=1).log_abs_det_jacobian(
        T.ones(1), T.ones(1)),
    "transformed_not_transforms": lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), [D(T).ExpTransform(), 3]),
    "transformed_transforms_type": lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), "exp"),
    "transformed_base_too_small": lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0),
                                                                         D(T).StickBreakingTransform()),
    "transformed_value_outside": lambda T: D(T).TransformedDistribution(
        D(T).Normal(0.0, 1.0), D(T).TanhTransform()).log_prob(T.tensor(1.5)),
    "transformed_enumerate": lambda T: D(T).TransformedDistribution(
        D(T).Bernoulli(0.3), D(T).AffineTransform(1.0, 2.0)).enumerate_support(),
    "kl_transformed_different": lambda T: D(T).kl_divergence(D(T).LogNormal(0.0, 1.0), D(T).Gumbel(0.0, 1.0)),
    "kl_transformed_event_shapes": lambda T: D(T).kl_divergence(
        D(T).TransformedDistribution(D(T).Normal(T.zeros(2), 1.0), [D(T).ExpTransform()]),
        D(T).TransformedDistribution(D(T).Independent(D(T).Normal(T.zeros(2), 1.0), 1), [D(T).ExpTransform()])),
    "lognormal_negative_scale": lambda T: D(T).LogNormal(0.0, -1.0),
    "lognormal_value_negative": lambda T: D(T).LogNormal(0.0, 1.0).log_prob(T.tensor([1.0, -1.0])),
    "gumbel_zero_scale": lambda T: D(T).Gumbel(T.zeros(2), T.tensor([1.0, 0.0])),
    "gumbel_value_nan": lambda T: D(T).Gumbel(0.0, 1.0).log_prob(T.tensor(float("nan"))),
    "biject_to_unknown": lambda T: D(T).biject_to(D(T).constraints.boolean),
    "transform_to_unknown": lambda T: D(T).transform_to(D(T).constraints.positive_integer),
    "biject_to_lower_cholesky": lambda T: D(T).biject_to(D(T).constraints.lower_cholesky),
    "register_not_constraint": lambda T: D(T).biject_to.register(int, lambda c: None),
    "distributions_missing_attribute": lambda T: D(T).NoSuchDistribution,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_results_match_pytorch(et, torch_ref, name):
    got, want = run(CALLS[name], et), run(CALLS[name], torch_ref)
    assert want[0] == "ok", want
    assert got == want


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(et, torch_ref, name):
    got, want = run(ERRORS[name], et), run(ERRORS[name], torch_ref)
    assert want[0] != "ok", want
    assert got == want


@pytest.mark.parametrize("seed", [0, 1, 123])
def test_samples_are_pytorchs(et, torch_ref, seed):
    """Every sampler after the same seed, one after another on one generator: the same draws."""
    def draws(T):
        T.manual_seed(seed)
        D_ = T.distributions
        dists = [D_.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 3.0])), D_.Uniform(-1.0, T.tensor([1.0, 2.0])),
                 D_.Laplace(T.tensor([0.0, 5.0]), 2.0), D_.Exponential(T.tensor([0.5, 4.0])),
                 D_.Bernoulli(T.tensor([0.25, 0.75])), D_.Categorical(T.tensor([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])),
                 D_.OneHotCategorical(logits=T.tensor([0.0, 1.0, -1.0])), D_.Geometric(T.tensor([0.3, 0.9])),
                 D_.Independent(D_.Normal(T.zeros(3), 0.5), 1), D_.Poisson(T.tensor([0.5, 4.0, 12.0])),
                 D_.LogNormal(T.tensor([0.0, 1.0]), 0.5), D_.Gumbel(T.tensor([0.0, 2.0]), T.tensor([1.0, 0.5])),
                 D_.TransformedDistribution(D_.Normal(T.zeros(2), 1.0), [D_.TanhTransform()])]
        out = []
        for d in dists:
            out += [d.sample(), d.sample((2,))]
            if d.has_rsample:
                out.append(d.rsample((3,)))
        return out

    assert describe(draws(et)) == describe(draws(torch_ref))


def test_mvn_derivatives_pass_gradcheck(et):
    """First and second derivatives of log_prob, rsample, entropy and KL of MultivariateNormal (each
    parameterisation) and LowRankMultivariateNormal, against finite differences in float64."""
    D_ = et.distributions
    f64 = dict(dtype=et.float64)
    x = et.tensor(PTS, **f64)

    def spd(a):
        return a @ a.mT + et.eye(3, **f64)

    def fns(m, a, w):
        et.manual_seed(0)
        by_cov = D_.MultivariateNormal(m, spd(a))
        by_prec = D_.MultivariateNormal(m, precision_matrix=spd(a))
        by_tril = D_.MultivariateNormal(m, scale_tril=a.tril(-1) + a.diagonal().exp().diag_embed())
        low = D_.LowRankMultivariateNormal(m, w, a.diagonal().exp())
        return (by_cov.log_prob(x), by_prec.log_prob(x), by_tril.rsample((2,)), by_cov.entropy(), low.log_prob(x),
                D_.kl_divergence(by_cov, by_tril), D_.kl_divergence(low, by_prec), by_prec.precision_matrix)

    inputs = (et.tensor(MU, **f64, requires_grad=True), et.tensor(TRIL, **f64).add(0.1).requires_grad_(),
              et.tensor(W, **f64, requires_grad=True))
    assert et.autograd.gradcheck(fns, inputs)
    assert et.autograd.gradgradcheck(fns, inputs)


@pytest.mark.parametrize("seed", [0, 1, 123])
def test_multivariate_samples_are_pytorchs(et, torch_ref, seed):
    """MultivariateNormal and LowRankMultivariateNormal draw as PyTorch draws (standard normals, then a batched
    matrix-vector product): the same samples, to the rounding of that product (the engine's matmul and MKL's
    add the terms in different orders)."""
    import numpy as np

    def draws(T):
        T.manual_seed(seed)
        D_ = T.distributions
        out = []
        for d in (D_.MultivariateNormal(T.tensor([0.0, 1.0]), T.tensor([[2.0, 0.5], [0.5, 1.0]])),
                  D_.MultivariateNormal(T.zeros(2, 3), scale_tril=T.tensor(TRIL)),
                  D_.MultivariateNormal(T.tensor(MU), precision_matrix=T.tensor(PREC)),
                  D_.LowRankMultivariateNormal(T.zeros(3), T.tensor(W), T.tensor(DIAG)),
                  D_.Normal(0.0, 1.0)):
            out += [d.sample(), d.sample((2,)), d.rsample((3,))]
        return [(tuple(o.shape), str(o.dtype), o.numpy()) for o in out]

    ours, ref = draws(et), draws(torch_ref)
    assert [o[:2] for o in ours] == [r[:2] for r in ref]
    for o, r in zip(ours, ref):
        np.testing.assert_allclose(o[2], r[2], rtol=1e-5, atol=1e-6)


def test_gamma_cdf(et, torch_ref):
    """Gamma.cdf is torch.special.gammainc: PyTorch's values and grads once the engine has it, until then
    NotImplementedError naming it."""
    def cdf(T):
        rate = leaf(T, [1.5, 0.5])
        out = T.distributions.Gamma(T.tensor([0.5, 2.0]), rate).cdf(T.tensor([0.3, 2.0]))
        out.sum().backward()
        return out, rate.grad

    if getattr(getattr(et, "special", None), "gammainc", None) is None:
        with pytest.raises(NotImplementedError, match="Gamma.cdf needs torch.special.gammainc, which the engine"):
            cdf(et)
    else:
        assert run(cdf, et) == run(cdf, torch_ref)


def test_lazy_probs_and_logits_are_stored_once(et):
    """A lazy property is computed at first access and then is an attribute of the instance."""
    d = et.distributions.Bernoulli(et.tensor([0.25], requires_grad=True))
    assert "logits" not in vars(d)
    first = d.logits
    assert vars(d)["logits"] is first and d.logits is first
    assert isinstance(et.distributions.Bernoulli.logits, property)


def test_new_modules_load_at_first_use():
    """import torch.distributions compiles no transforms (much code, often unused); the first use of one loads
    them, and with them Gumbel's and TransformedDistribution's KL pairs."""
    import subprocess
    import sys

    code = ("import sys, engine\nD = engine.distributions\n"
            "lazy = [m for m in ('transforms', 'transformed_distribution', 'gumbel', 'log_normal', 'constraint_registry')"
            " if 'engine.distributions.' + m in sys.modules]\n"
            "g = D.Gumbel(0.0, 1.0)\n"
            "print(lazy, 'engine.distributions.transforms' in sys.modules, "
            "float(D.kl_divergence(g, D.Normal(0.0, 1.0))), D.transforms.__all__ == list(D._TRANSFORMS), "
            "D.TanhTransform is D.transforms.TanhTransform, sorted(set(D.__all__) - set(dir(D))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[:3] == ["[]", "True", "0.3307788372039795"] and out.rstrip().endswith("True True []"), out


CELLS = [
    "import torch\nimport torch.distributions as dist\nfrom torch.distributions import Normal, Categorical\n"
    "from torch.distributions.normal import Normal as N2\nfrom torch.distributions.kl import kl_divergence\n"
    "from torch.distributions import constraints\nNormal is N2",
    "torch.manual_seed(0)\nm = Categorical(torch.tensor([ 0.25, 0.25, 0.25, 0.25 ]))\nm.sample()",
    "m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))\nm.sample()",
    "m = dist.Bernoulli(torch.tensor([0.3]))\nm.sample()",
    "m = dist.Uniform(torch.tensor([0.0]), torch.tensor([5.0]))\nm.sample()",
    "m = dist.Exponential(torch.tensor([1.0]))\nm.sample()",
    "m = dist.Laplace(torch.tensor([0.0]), torch.tensor([1.0]))\nm.sample()",
    "m = dist.OneHotCategorical(torch.tensor([ 0.25, 0.25, 0.25, 0.25 ]))\nm.sample()",
    "m = dist.Geometric(torch.tensor([0.3]))\nm.sample()",
    "from torch.distributions.independent import Independent\n"
    "normal = Normal(torch.zeros(3), torch.ones(3))\ndiagn = Independent(normal, 1)\n"
    "[normal.batch_shape, normal.event_shape], [diagn.batch_shape, diagn.event_shape]",
    "kl_divergence(Normal(0., 1.), Normal(1., 2.))",
    "constraints.positive, constraints.simplex, dist.constraints.interval(0, 1)",
    "Normal(0., -1.)",
    "Normal(0., 1.).sample_n(2)",
    "from torch.distributions.utils import logits_to_probs, probs_to_logits, clamp_probs\n"
    "probs_to_logits(torch.tensor([0.2, 0.8])), logits_to_probs(torch.tensor([0.0, 1.0]), is_binary=True), "
    "clamp_probs(torch.tensor([0.0, 0.5, 1.0]))",
    "from torch.distributions.categorical import Categorical as C2\n"
    "from torch.distributions.bernoulli import Bernoulli\nfrom torch.distributions.uniform import Uniform\n"
    "from torch.distributions.laplace import Laplace\nfrom torch.distributions.exponential import Exponential\n"
    "from torch.distributions.one_hot_categorical import OneHotCategorical\n"
    "from torch.distributions.distribution import Distribution\n"
    "from torch.distributions.exp_family import ExponentialFamily\n"
    "[c.__name__ for c in (C2, Bernoulli, Uniform, Laplace, Exponential, OneHotCategorical, Distribution,"
    " ExponentialFamily)], issubclass(Exponential, ExponentialFamily), issubclass(Laplace, ExponentialFamily)",
    "from torch.distributions import MultivariateNormal, LowRankMultivariateNormal, TransformedDistribution\n"
    "from torch.distributions.multivariate_normal import MultivariateNormal as M2\n"
    "from torch.distributions.transforms import TanhTransform, AffineTransform, ExpTransform, ComposeTransform\n"
    "from torch.distributions.transformed_distribution import TransformedDistribution as TD2\n"
    "from torch.distributions.log_normal import LogNormal\nfrom torch.distributions.gumbel import Gumbel\n"
    "from torch.distributions.constraint_registry import biject_to, transform_to\n"
    "from torch.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal as LR2\n"
    "M2 is MultivariateNormal, TD2 is TransformedDistribution, LR2 is LowRankMultivariateNormal, "
    "issubclass(LogNormal, TransformedDistribution), issubclass(Gumbel, TD2), dist.biject_to is biject_to",
    "torch.manual_seed(0)\nm = MultivariateNormal(torch.zeros(2), torch.eye(2))\nm.sample()",
    "m = LowRankMultivariateNormal(torch.zeros(2), torch.tensor([[1.0], [0.0]]), torch.ones(2))\nm.sample()",
    "m = LogNormal(torch.tensor([0.0]), torch.tensor([1.0]))\nm.sample()",
    "m = Gumbel(torch.tensor([1.0]), torch.tensor([2.0]))\nm.sample()",
    "base_distribution = dist.Uniform(0, 1)\ntransforms = [dist.SigmoidTransform().inv, AffineTransform(loc=1.0, "
    "scale=2.0)]\nlogistic = TransformedDistribution(base_distribution, transforms)\n"
    "logistic, logistic.sample((3,)), logistic.log_prob(torch.tensor([0.0, 1.0, 4.0]))",
    "ComposeTransform([ExpTransform(), AffineTransform(0.0, 2.0)]), TanhTransform().inv, dist.identity_transform",
    "m = MultivariateNormal(torch.zeros(2), torch.eye(2))\nm, m.scale_tril, m\n",
    "MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]]))",
    "constraint = dist.Normal.arg_constraints['scale']\nscale = transform_to(constraint)(torch.zeros(1))\n"
    "u = transform_to(constraint).inv(scale)\nscale, u",
]


def test_tutorial_cells_show_what_pytorch_shows(torch_ref):
    """Cells written as tutorials and the docstrings write them, imports of the submodules included."""
    import engine
    from torch_binding import run_cells

    assert run_cells(CELLS, engine) == run_cells(CELLS, torch_ref)
