"""ember.linalg: torch.linalg's functions.

The factorisations and solvers are C++ ops on LAPACK (ops/linalg_factor.cpp, bound in
ember._C._linalg); the matrix functions built from them (matrix_exp, pinv, lstsq, ...) are
Python composites (ember/_composites/linalg_factor.py). float32, float64, complex64 and
complex128 input; eig and eigvals return complex tensors.
docs/design/linalg.md has the layout, the gradients and what is missing.
"""

from ember import _C
from ember._composite import FUNCTIONS as _FUNCTIONS

LinAlgError = _C._LinAlgError

_la = _C._linalg

vector_norm = _la.vector_norm
cholesky = _la.cholesky
cholesky_ex = _la.cholesky_ex
det = _la.det
eigh = _la.eigh
eigvalsh = _la.eigvalsh
eig = _la.eig
ldl_factor = _la.ldl_factor
ldl_factor_ex = _la.ldl_factor_ex
ldl_solve = _la.ldl_solve
eigvals = _la.eigvals
inv = _la.inv
inv_ex = _la.inv_ex
lu = _la.lu
lu_factor = _la.lu_factor
lu_factor_ex = _la.lu_factor_ex
lu_solve = _la.lu_solve
qr = _la.qr
slogdet = _la.slogdet
solve = _la.solve
solve_ex = _la.solve_ex
solve_triangular = _la.solve_triangular
svd = _la.svd
svdvals = _la.svdvals

matrix_power = _FUNCTIONS["linalg.matrix_power"]
matrix_exp = _FUNCTIONS["linalg.matrix_exp"]
pinv = _FUNCTIONS["linalg.pinv"]
matrix_rank = _FUNCTIONS["linalg.matrix_rank"]
cond = _FUNCTIONS["linalg.cond"]
lstsq = _FUNCTIONS["linalg.lstsq"]
multi_dot = _FUNCTIONS["linalg.multi_dot"]
vander = _FUNCTIONS["linalg.vander"]
vecdot = _FUNCTIONS["linalg.vecdot"]
tensorinv = _FUNCTIONS["linalg.tensorinv"]
tensorsolve = _FUNCTIONS["linalg.tensorsolve"]
polar = _FUNCTIONS["linalg.polar"]
matrix_sqrth = _FUNCTIONS["linalg.matrix_sqrth"]

matrix_norm = _la.matrix_norm


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """The vector 2-norm when ord and dim are None; otherwise a vector norm over one dim or a
    matrix norm over two, as torch.linalg.norm."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is not None and len(dim) == 1:
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    if dim is None and A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if dtype is not None:
        A = A.to(dtype)
    return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim)


def householder_product(A, tau):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i the i-th column of
    A below the diagonal and 1 on it (LAPACK's orgqr). With grad, the product is formed with
    differentiable ops, one reflector at a time (orgqr itself has no backward)."""
    if not (_C.is_grad_enabled() and (A.requires_grad or tau.requires_grad)):
        return _la.householder_product(A, tau)
    if A.dim() < 2 or A.shape[-2] < A.shape[-1]:
        return _la.householder_product(A, tau)  # its error
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    rows = _C.arange(m, device=A.device).unsqueeze(-1)
    Q = _C.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for i in reversed(range(k)):
        col = A[..., :, i : i + 1]
        v = _C.where(rows > i, col, (rows == i).to(A.dtype))
        Q = Q - tau[..., i : i + 1].unsqueeze(-1) * (v @ (v.mH @ Q))
    return Q


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along dim (the last by default, unlike torch.cross)."""
    return _FUNCTIONS["cross"](input, other, dim=dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of a batch of matrices (the last two dims by default)."""
    return _C.diagonal(A, offset, dim1, dim2)


def matmul(input, other):
    return _C.matmul(input, other)
