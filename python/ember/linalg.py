"""ember.linalg: PyTorch's torch.linalg names over ember's C++ ops.

Present: vector_norm, matrix_norm ('fro', inf, -inf, 1, -1), norm. Not yet present (they need
LAPACK-style factorisations): solve, inv, det, cholesky, qr, eigh, svd, and matrix_norm's 'nuc',
2 and -2; calling them raises NotImplementedError rather than giving a half answer.
"""

from ember import _C

vector_norm = _C._linalg.vector_norm
matrix_norm = _C._linalg.matrix_norm


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
    A = A if dtype is None else A.to(dtype)
    return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim)


def _missing(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(
            f"ember.linalg.{name} is not implemented yet (ember has no LAPACK-style "
            "factorisations so far; see docs/design/ops.md)"
        )

    fn.__name__ = name
    return fn


solve = _missing("solve")
inv = _missing("inv")
det = _missing("det")
cholesky = _missing("cholesky")
qr = _missing("qr")
eigh = _missing("eigh")
svd = _missing("svd")
