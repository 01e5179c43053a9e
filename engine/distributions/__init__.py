"""``torch.distributions``: Normal, Uniform, Laplace, Exponential, Bernoulli, Categorical,
OneHotCategorical(StraightThrough), Independent, Binomial, Geometric, Poisson, Gamma, Beta and Dirichlet,
with ``kl_divergence`` between the pairs PyTorch defines among them and PyTorch's validation errors.

>>> from torch.distributions import Normal
>>> Normal(0.0, 1.0).log_prob(torch.tensor(0.5))
tensor(-1.0439)

Every formula is PyTorch's, in PyTorch's order of operations, so values, gradients and ``grad_fn``
names are the ones PyTorch gives, and sampling draws from the generator as PyTorch does, so a sample
after ``manual_seed`` is PyTorch's. Not sampled: Binomial (``torch.binomial``), Gamma, Beta and
Dirichlet (``torch._standard_gamma``: PyTorch's gamma sampler and its implicit reparameterisation
gradient are C++ kernels the engine does not have); they raise NotImplementedError, as does
``Gamma.cdf`` (``torch.special.gammainc``).
"""
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
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution", "Exponential",
           "ExponentialFamily", "Gamma", "Geometric",
           "Independent", "Laplace", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson",
           "Uniform", "constraints", "kl_divergence", "register_kl"]
