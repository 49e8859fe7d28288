"""ember.distributions: probability distributions with PyTorch's API (torch.distributions):
sampling (reparameterised where PyTorch is), log_prob, cdf / icdf, entropy, moments, argument
validation, constraints, transforms, TransformedDistribution, Independent and kl_divergence with
its registry. docs/design/distributions.md lists what exists and what does not yet (the
distributions that need gamma, Poisson or binomial samplers)."""

from ember.distributions import constraints, transforms
from ember.distributions.bernoulli import Bernoulli
from ember.distributions.beta import Beta
from ember.distributions.binomial import Binomial
from ember.distributions.categorical import Categorical
from ember.distributions.cauchy import Cauchy
from ember.distributions.chi2 import Chi2
from ember.distributions.constraint_registry import biject_to, transform_to
from ember.distributions.continuous_bernoulli import ContinuousBernoulli
from ember.distributions.dirichlet import Dirichlet
from ember.distributions.distribution import Distribution
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.exponential import Exponential
from ember.distributions.fishersnedecor import FisherSnedecor
from ember.distributions.gamma import Gamma
from ember.distributions.generalized_pareto import GeneralizedPareto
from ember.distributions.geometric import Geometric
from ember.distributions.gumbel import Gumbel
from ember.distributions.half_cauchy import HalfCauchy
from ember.distributions.half_normal import HalfNormal
from ember.distributions.independent import Independent
from ember.distributions.inverse_gamma import InverseGamma
from ember.distributions.kl import kl_divergence, register_kl
from ember.distributions.kumaraswamy import Kumaraswamy
from ember.distributions.laplace import Laplace
from ember.distributions.lkj_cholesky import LKJCholesky
from ember.distributions.log_normal import LogNormal
from ember.distributions.logistic_normal import LogisticNormal
from ember.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from ember.distributions.mixture_same_family import MixtureSameFamily
from ember.distributions.multinomial import Multinomial
from ember.distributions.multivariate_normal import MultivariateNormal
from ember.distributions.negative_binomial import NegativeBinomial
from ember.distributions.normal import Normal
from ember.distributions.one_hot_categorical import (
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from ember.distributions.pareto import Pareto
from ember.distributions.poisson import Poisson
from ember.distributions.relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from ember.distributions.relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from ember.distributions.studentT import StudentT
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import *  # noqa: F403
from ember.distributions.uniform import Uniform
from ember.distributions.von_mises import VonMises
from ember.distributions.weibull import Weibull
from ember.distributions.wishart import Wishart

__all__ = [
    "LKJCholesky",
    "Wishart",
    "GeneralizedPareto",
    "VonMises",
    "MixtureSameFamily",
    "LogisticNormal",
    "ContinuousBernoulli",
    "StudentT",
    "Poisson",
    "NegativeBinomial",
    "InverseGamma",
    "Gamma",
    "FisherSnedecor",
    "Dirichlet",
    "Chi2",
    "Binomial",
    "Beta",
    "Bernoulli",
    "Categorical",
    "Cauchy",
    "Distribution",
    "ExpRelaxedCategorical",
    "Exponential",
    "ExponentialFamily",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "Kumaraswamy",
    "Laplace",
    "LogNormal",
    "LogitRelaxedBernoulli",
    "LowRankMultivariateNormal",
    "Multinomial",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "TransformedDistribution",
    "Uniform",
    "Weibull",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
__all__.extend(transforms.__all__)
