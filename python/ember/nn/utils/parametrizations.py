"""nn.utils.parametrizations: orthogonal, weight_norm and spectral_norm as parametrizations (the
forms PyTorch recommends over the hook-based nn.utils.weight_norm / spectral_norm)."""

from __future__ import annotations

import ember
import ember.nn.functional as F
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over every dimension but dim (all of them for dim=-1), keeping dims."""
    return ember.norm_except_dim(v, 2, dim)


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


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    eye = ember.eye(k, dtype=Q.dtype, device=Q.device)
    return ember.allclose(Q.mT @ Q, eye, atol=10.0 * n * ember.finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """Q of A = Q R (A tall) with diag(R) non-negative."""
    X, tau = ember.geqrf(A)
    Q = ember.linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


_MAPS = ("matrix_exp", "cayley", "householder")


class _Orthogonal(Module):
    """Maps an unconstrained matrix X to an orthogonal one: the exponential or the Cayley
    transform of the skew-symmetric matrix of X's lower triangle, or the product of the
    Householder reflectors held below X's diagonal. With use_trivialization, the result is
    multiplied by `base`, an orthogonal matrix that assignments set (so the optimiser moves
    near the identity of the map)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = ember.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = ember.linalg.matrix_exp(A)
            else:
                eye = ember.eye(n, dtype=A.dtype, device=A.device)
                Q = ember.linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = ember.linalg.householder_product(A, tau)
            # The diagonal of X holds the signs (+-1) that right_inverse stored there.
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with ember.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False."
                )
            # The reflectors of Q's QR, with the signs of diag(R) on the diagonal (and -1 where
            # a reflector is the identity, tau = 0).
            A, tau = ember.geqrf(Q)
            d = A.diagonal(dim1=-2, dim2=-1)
            signs = d.sign()
            signs = ember.where(tau == 0.0, -signs, signs)
            d.copy_(signs)
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            # Completed to a square orthogonal matrix with random columns.
            N = ember.randn(*(Q.shape[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(ember.cat([Q, N], dim=-1))
        self.base = Q
        # The parameter that maps to the identity: forward(-I) = base, for every map.
        neg_eye = ember.zeros_like(Q_init)
        neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_eye


def orthogonal(
    module: Module, name: str = "weight", orthogonal_map=None, *, use_trivialization: bool = True
) -> Module:
    """Makes module.<name> (a matrix or a batch of them) orthogonal (orthonormal columns or rows
    when not square) through the map orthogonal_map: "matrix_exp" (default for square ones),
    "cayley" or "householder" (default otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
