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
    # tutorials
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
                 D_.Independent(D_.Normal(T.zeros(3), 0.5), 1), D_.Poisson(T.tensor([0.5, 4.0, 12.0]))]
        out = []
        for d in dists:
            out += [d.sample(), d.sample((2,))]
            if d.has_rsample:
                out.append(d.rsample((3,)))
        return out

    assert describe(draws(et)) == describe(draws(torch_ref))


def test_samplers_pytorch_runs_in_cpp_raise(et):
    """Gamma, Beta and Dirichlet sample with PyTorch's C++ gamma sampler, Binomial with torch.binomial: the
    engine has neither, so these raise NotImplementedError naming the op (PyTorch returns a sample)."""
    D_ = et.distributions
    for call, op in [(lambda: D_.Gamma(2.0, 1.0).sample(), "Gamma.rsample needs torch._standard_gamma"),
                     (lambda: D_.Gamma(2.0, 1.0).rsample((2,)), "Gamma.rsample needs torch._standard_gamma"),
                     (lambda: D_.Beta(2.0, 1.0).sample(), "Dirichlet.rsample needs torch._sample_dirichlet"),
                     (lambda: D_.Dirichlet(et.ones(3)).rsample(), "Dirichlet.rsample needs torch._sample_dirichlet"),
                     (lambda: D_.Binomial(3, et.tensor(0.5)).sample(), "Binomial.sample needs torch.binomial"),
                     (lambda: D_.Gamma(2.0, 1.0).cdf(et.tensor(1.0)), "Gamma.cdf needs torch.special.gammainc")]:
        with pytest.raises(NotImplementedError, match=op + ", which the engine does not implement"):
            call()


def test_lazy_probs_and_logits_are_stored_once(et):
    """A lazy property is computed at first access and then is an attribute of the instance."""
    d = et.distributions.Bernoulli(et.tensor([0.25], requires_grad=True))
    assert "logits" not in vars(d)
    first = d.logits
    assert vars(d)["logits"] is first and d.logits is first
    assert isinstance(et.distributions.Bernoulli.logits, property)


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
]


def test_tutorial_cells_show_what_pytorch_shows(torch_ref):
    """Cells written as tutorials and the docstrings write them, imports of the submodules included."""
    import engine
    from torch_binding import run_cells

    assert run_cells(CELLS, engine) == run_cells(CELLS, torch_ref)
