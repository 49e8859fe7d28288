"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): sampled by the Bartlett
decomposition (chi-square diagonal, normal strict lower triangle)."""

from __future__ import annotations

import math
import warnings
from numbers import Number

import ember
from ember.distributions import constraints
from ember.distributions.chi2 import Chi2
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.multivariate_normal import _precision_to_scale_tril
from ember.distributions.utils import lazy_property

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvdigamma(x, p):
    return ember.digamma(
        x.unsqueeze(-1)
        - ember.arange(p, dtype=x.dtype, device=x.device).div(2).expand(tuple(x.shape) + (-1,))
    ).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=ember.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    arg_constraints = {
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
        "df": constraints.greater_than(0),
    }
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(
        self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None
    ):
        if (covariance_matrix is not None) + (scale_tril is not None) + (
            precision_matrix is not None
        ) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, Number):
            batch_shape = ember.Size(param.shape[:-2])
            self.df = ember.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = ember.Size(
                ember.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            )
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(
                f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}."
            )
        if scale_tril is not None:
            self.scale_tril = param.expand(tuple(batch_shape) + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(tuple(batch_shape) + (-1, -1))
        else:
            self.precision_matrix = param.expand(tuple(batch_shape) + (-1, -1))
        # df must exceed p - 1 (an instance's constraint, as PyTorch sets it).
        self.arg_constraints = dict(
            self.arg_constraints, df=constraints.greater_than(event_shape[-1] - 1)
        )
        if self.df.lt(event_shape[-1]).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        # The Bartlett decomposition's diagonal: chi-square with df - i degrees of freedom.
        L = self._unbroadcasted_scale_tril
        self._dist_chi2 = Chi2(
            df=self.df.unsqueeze(-1)
            - ember.arange(self._event_shape[-1], dtype=L.dtype, device=L.device).expand(
                tuple(batch_shape) + (-1,)
            )
        )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = ember.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        if "covariance_matrix" in self.__dict__:
            new.covariance_matrix = self.covariance_matrix.expand(cov_shape)
        if "scale_tril" in self.__dict__:
            new.scale_tril = self.scale_tril.expand(cov_shape)
        if "precision_matrix" in self.__dict__:
            new.precision_matrix = self.precision_matrix.expand(cov_shape)
        new._dist_chi2 = Chi2(
            df=new.df.unsqueeze(-1)
            - ember.arange(
                self.event_shape[-1],
                dtype=new._unbroadcasted_scale_tril.dtype,
                device=new._unbroadcasted_scale_tril.device,
            ).expand(tuple(batch_shape) + (-1,))
        )
        new.arg_constraints = self.arg_constraints
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        identity = ember.eye(
            self._event_shape[-1],
            device=self._unbroadcasted_scale_tril.device,
            dtype=self._unbroadcasted_scale_tril.dtype,
        )
        return ember.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape
        )

    @property
    def mean(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ember.where(factor <= 0, ember.full_like(factor, math.nan), factor)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * (
            V.pow(2) + ember.einsum("...i,...j->...ij", diag_V, diag_V)
        )

    def _bartlett_sampling(self, sample_shape=()):
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1
        )
        i, j = ember.tril_indices(p, p, offset=-1)
        lower = ember.randn(
            tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
            dtype=noise.dtype,
            device=noise.device,
        )
        noise = _fill_lower(noise, i, j, lower)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape=(), max_try_correction=10):
        """Bartlett draws; a draw that is not numerically positive definite is drawn again (up
        to max_try_correction times), as PyTorch does."""
        sample_shape = ember.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        bad = ~self.support.check(sample)
        for _ in range(max_try_correction):
            if not bad.any():
                break
            warnings.warn("Singular sample detected.", stacklevel=2)
            fresh = self._bartlett_sampling(sample_shape)
            sample = ember.where(bad[..., None, None], fresh, sample)
            bad = ~self.support.check(sample)
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (
            -nu * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            - ember.mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * ember.linalg.slogdet(value).logabsdet
            - ember.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (
            (p + 1) * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            + ember.mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (
            -ember.linalg.slogdet(-2 * x).logabsdet + _log_2 * p
        ) + ember.mvlgamma(y + (p + 1) / 2, p=p)


def _fill_lower(noise, i, j, values):
    """noise with values in its strict lower triangle (out of place, so autograd sees it)."""
    mask = ember.zeros(noise.shape[-2:], dtype=ember.bool, device=noise.device)
    mask[i, j] = True
    full = ember.zeros_like(noise)
    full[..., i, j] = values
    return ember.where(mask, full, noise)
