"""InstanceNorm1d/2d/3d: per-sample, per-channel normalisation (PyTorch's defaults: affine and
track_running_stats off), inputs with or without the batch dim. The C++ instance_norm op does
the arithmetic."""

from __future__ import annotations

import warnings

from ember.nn import functional as F
from ember.nn.modules.batchnorm import _LazyNormMixin, _NormBase

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class _InstanceNorm(_NormBase):
    _no_batch_dim = 2  # the input dim without a batch dim (channels + spatial dims)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _check_input_dim(self, input) -> None:
        n = self._no_batch_dim
        if input.dim() not in (n, n + 1):
            raise ValueError(f"expected {n}D or {n + 1}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. "
                "You can silence this warning by not passing in num_features, "
                "which is not used because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L) or (C, L)."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W) or (C, H, W)."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W) or (C, D, H, W)."""

    _no_batch_dim = 4


class _LazyInstanceNormMixin(_LazyNormMixin):
    def initialize_parameters(self, input) -> None:
        # The channel dim is 0 for unbatched input.
        if self.has_uninitialized_params():
            self.num_features = input.shape[input.dim() - self._no_batch_dim]
            n = (self.num_features,)
            self._materialize({"weight": n, "bias": n, "running_mean": n, "running_var": n})
            self.reset_parameters()


class LazyInstanceNorm1d(_LazyInstanceNormMixin, InstanceNorm1d):
    """An InstanceNorm1d whose num_features is taken from the first input (PyTorch's lazy
    defaults: affine and track_running_stats on)."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNormMixin, InstanceNorm2d):
    """An InstanceNorm2d whose num_features is taken from the first input."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyInstanceNormMixin, InstanceNorm3d):
    """An InstanceNorm3d whose num_features is taken from the first input."""

    cls_to_become = InstanceNorm3d
