"""``torch.distributions``: Normal, Uniform, Laplace, Exponential, Bernoulli, Categorical,
OneHotCategorical(StraightThrough), Independent, Binomial, Geometric, Poisson, Gamma, Chi2, Beta, Dirichlet,
MultivariateNormal, LowRankMultivariateNormal, TransformedDistribution with the transforms of
``torch.distributions.transforms``, LogNormal, Gumbel, HalfNormal, Cauchy, HalfCauchy, StudentT, Pareto,
Weibull, Multinomial, NegativeBinomial, MixtureSameFamily, RelaxedBernoulli, RelaxedOneHotCategorical,
LogisticNormal, Kumaraswamy, FisherSnedecor, LKJCholesky, Wishart, VonMises, InverseGamma,
GeneralizedPareto and ContinuousBernoulli (all of PyTorch 2.13's), with ``biject_to``/``transform_to``,
``kl_divergence`` between the pairs PyTorch defines among them and PyTorch's validation errors.

>>> from torch.distributions import Normal
>>> Normal(0.0, 1.0).log_prob(torch.tensor(0.5))
tensor(-1.0439)

Every formula is PyTorch's, in PyTorch's order of operations, so values, gradients and ``grad_fn``
names are the ones PyTorch gives, and sampling draws from the generator as PyTorch does, so a sample
after ``manual_seed`` is PyTorch's: Gamma, Beta, Dirichlet and Binomial through the engine's ports of
PyTorch's C++ samplers and their implicit reparameterisation gradients (engine/_gamma.py).

The transforms, TransformedDistribution, LogNormal, Gumbel, ``biject_to``/``transform_to`` and the
distributions added after them load at their first use (their modules register their KL pairs as
they load).
"""
from .. import _lazy
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
           "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "StudentT", "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to",
           "constraints", "kl_divergence", "register_kl", "transform_to", "transforms"]
_TRANSFORMS = ("AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
               "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
               "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
               "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
               "Transform", "identity_transform")  # transforms.__all__
__all__.extend(_TRANSFORMS)

# The distributions added later, each in its module, loaded at first use: (module, class)
_LATER = (("chi2", "Chi2"), ("half_normal", "HalfNormal"), ("cauchy", "Cauchy"), ("half_cauchy", "HalfCauchy"),
          ("studentT", "StudentT"), ("pareto", "Pareto"), ("weibull", "Weibull"), ("multinomial", "Multinomial"),
          ("negative_binomial", "NegativeBinomial"), ("mixture_same_family", "MixtureSameFamily"),
          ("relaxed_bernoulli", "RelaxedBernoulli"), ("relaxed_categorical", "RelaxedOneHotCategorical"),
          ("logistic_normal", "LogisticNormal"), ("kumaraswamy", "Kumaraswamy"), ("fishersnedecor", "FisherSnedecor"),
          ("lkj_cholesky", "LKJCholesky"), ("wishart", "Wishart"), ("von_mises", "VonMises"),
          ("inverse_gamma", "InverseGamma"), ("generalized_pareto", "GeneralizedPareto"),
          ("continuous_bernoulli", "ContinuousBernoulli"))
_LAZY_MODULES = tuple(m for m, _ in _LATER)

# Loaded at first use: the transforms are much code to compile, and many programs never use them.
_LAZY = {**{name: (name, None) for name in ("transforms", "transformed_distribution", "constraint_registry",
                                            "log_normal", "gumbel") + _LAZY_MODULES},
         "TransformedDistribution": ("transformed_distribution", "TransformedDistribution"),
         "LogNormal": ("log_normal", "LogNormal"), "Gumbel": ("gumbel", "Gumbel"),
         **{name: (module, name) for module, name in _LATER},
         "biject_to": ("constraint_registry", "biject_to"), "transform_to": ("constraint_registry", "transform_to"),
         **{name: ("transforms", name) for name in _TRANSFORMS}}
__getattr__ = _lazy.lazy_getattr(__name__, "torch.distributions", _LAZY)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
