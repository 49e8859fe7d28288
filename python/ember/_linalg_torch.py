"""The top-level torch names of linear algebra (torch.det, torch.svd, torch.triangular_solve,
...) and their Tensor methods: torch.linalg's functions (ember/linalg.py) under their older
names and argument orders. The five that PyTorch removed (solve, eig, symeig, lstsq,
matrix_rank) raise its error, naming the replacement."""

from collections import namedtuple

from ember import _C, linalg

_la = _C._linalg

# torch.return_types of the older forms.
_svd_t = namedtuple("svd", "U S V")
_slogdet_t = namedtuple("slogdet", "sign logabsdet")
_triangular_solve_t = namedtuple("triangular_solve", "solution cloned_coefficient")


def det(input):
    return _la.det(input)


def slogdet(input):
    sign, logabsdet = _la.slogdet(input)
    return _slogdet_t(sign, logabsdet)


def inverse(input):
    return _la.inv(input)


def lu(A, pivot=True, get_infos=False):
    """(LU, pivots) or (LU, pivots, infos): torch.lu, linalg.lu_factor's older form."""
    LU, pivots, infos = _la.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return LU, pivots, infos
    if bool((infos > 0).any()):
        raise linalg.LinAlgError(
            "[lu] the factorization is singular: U has a zero diagonal element (pass "
            "get_infos=True to get the infos instead of this error)"
        )
    return LU, pivots


def lu_solve(b, LU_data, LU_pivots):
    """torch.lu_solve(b, LU, pivots): linalg.lu_solve(LU, pivots, b)."""
    return _la.lu_solve(LU_data, LU_pivots, b)


def svd(input, some=True, compute_uv=True):
    """(U, S, V) with input = U diag(S) V^T (V, not Vh); some=False gives the full U and V;
    compute_uv=False gives zero-filled U and V, as PyTorch."""
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        S = _la.svdvals(input)
        ucols, vcols = (min(m, n), min(m, n)) if some else (m, n)
        U = _C.zeros((*input.shape[:-2], m, ucols), dtype=input.dtype, device=input.device)
        V = _C.zeros((*input.shape[:-2], n, vcols), dtype=input.dtype, device=input.device)
        return _svd_t(U, S, V)
    U, S, Vh = _la.svd(input, full_matrices=not some)
    return _svd_t(U, S, Vh.mT)


def pinverse(input, rcond=1e-15):
    return linalg.pinv(input, rtol=rcond)


def matrix_exp(input):
    return linalg.matrix_exp(input)


def matrix_power(input, n):
    return linalg.matrix_power(input, n)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A clone) with op(A) X = b, op(A) = A or A^T (transpose)."""
    M = A.mT if transpose else A
    X = _la.solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return _triangular_solve_t(X, A.clone())


def orgqr(input, tau):
    return _la.householder_product(input, tau)


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) of the rank-q approximation of A - M. PyTorch draws a randomized sketch; ember
    returns the exact truncated SVD (what the sketch approximates), so niter is not used."""
    X = A if M is None else A - M
    q = min(q, X.shape[-2], X.shape[-1])
    U, S, Vh = _la.svd(X, full_matrices=False)
    return U[..., :q], S[..., :q], Vh[..., :q, :].mT


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the rank-q SVD of A with its column means removed (center)."""
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else q
    X = A - A.mean(-2, keepdim=True) if center else A
    return svd_lowrank(X, q, niter)


def _removed(name, replacement):
    def fn(*args, **kwargs):
        raise RuntimeError(
            f"This function was deprecated since version 1.9 and is now removed. Please use the "
            f"`{replacement}` function instead."
        )

    fn.__name__ = name
    return fn


solve = _removed("solve", "torch.linalg.solve")
eig = _removed("eig", "torch.linalg.eig")
symeig = _removed("symeig", "torch.linalg.eigh")
lstsq = _removed("lstsq", "torch.linalg.lstsq")
matrix_rank = _removed("matrix_rank", "torch.linalg.matrix_rank")
qr = _removed("qr", "torch.linalg.qr")
cholesky = _removed("cholesky", "torch.linalg.cholesky")

# The torch-level names; all but the low-rank ones are Tensor methods too.
NAMES = [
    "det",
    "slogdet",
    "inverse",
    "cholesky",
    "lu",
    "lu_solve",
    "qr",
    "svd",
    "pinverse",
    "matrix_exp",
    "matrix_power",
    "triangular_solve",
    "orgqr",
    "solve",
    "eig",
    "symeig",
    "lstsq",
    "matrix_rank",
    "svd_lowrank",
    "pca_lowrank",
]
METHODS = NAMES[: NAMES.index("matrix_rank")]


def install(namespace):
    """Puts the torch-level names in `namespace` (ember's) and the methods on Tensor."""
    for name in NAMES:
        namespace.setdefault(name, globals()[name])
    for name in METHODS:
        if not hasattr(_C.Tensor, name):
            setattr(_C.Tensor, name, globals()[name])
    if not hasattr(_C.Tensor, "geqrf"):
        _C.Tensor.geqrf = _C.geqrf
