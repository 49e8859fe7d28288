"""nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (the forms
PyTorch recommends over the hook-based nn.utils.weight_norm / spectral_norm). orthogonal needs a
QR factorisation, which ember does not have yet (ember.linalg.qr raises NotImplementedError)."""

from __future__ import annotations

import ember
import ember.nn.functional as F
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over every dimension but dim (all of them for dim=-1), keeping dims."""
    if dim == -1:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim]
    return v.pow(2).sum(dims, keepdim=True).sqrt()


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """module.<name> = g * v / ||v||, with g (original0) and v (original1) the parameters."""
    if dim is not None and dim < -1:
        dim += getattr(module, name).dim()
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(
        self, weight, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = F.normalize(ember.randn(h, dtype=weight.dtype), dim=0, eps=eps)
            v = F.normalize(ember.randn(w, dtype=weight.dtype), dim=0, eps=eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, mat, iterations: int) -> None:
        with ember.no_grad():
            for _ in range(iterations):
                self._u.copy_(F.normalize(ember.mv(mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(ember.mv(mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = ember.dot(u, ember.mv(mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """module.<name> divided by its largest singular value, estimated by power iteration (one
    step per forward in training)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ember.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


def orthogonal(
    module: Module, name: str = "weight", orthogonal_map=None, *, use_trivialization: bool = True
) -> Module:
    raise NotImplementedError(
        "nn.utils.parametrizations.orthogonal needs a QR factorisation, which ember does not "
        "have yet (ember.linalg.qr)"
    )
