"""Linear-algebra composites over the factorisations (ops/linalg_factor.cpp): matrix functions
(power, exponential, pseudo-inverse, rank, condition number), least squares, the Cholesky solvers,
and the tensor forms. Their gradients are the chain of their parts'."""

import math
from collections import namedtuple

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import COMPLEX, FLOAT32_64, NUMERIC

_la = _C._linalg

# What LAPACK takes: float32, float64 and their complex forms.
_LAPACK = FLOAT32_64 + COMPLEX

# torch.return_types.linalg_lstsq.
LstsqResult = namedtuple("linalg_lstsq", "solution residuals rank singular_values")


def _check_square(A, op):
    if A.dim() < 2:
        raise RuntimeError(
            f"[{op}] A must have at least 2 dimensions (a batch of matrices), but it has "
            f"{A.dim()} dimensions"
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"[{op}] A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )


def _eye_like(A):
    n = A.shape[-1]
    return _C.eye(n, dtype=A.dtype, device=A.device).expand(A.shape)


@composite("linalg_factor", NUMERIC + COMPLEX, name="linalg.matrix_power")
def matrix_power(A, n):
    """A multiplied by itself n times by repeated squaring; n = 0 the identity, n < 0 powers of
    the inverse (floating dtypes only)."""
    _check_square(A, "linalg.matrix_power")
    if not isinstance(n, int):
        raise TypeError(f"[linalg.matrix_power] n must be an int, got {type(n).__name__}")
    if n == 0:
        return _eye_like(A).clone()
    if n < 0:
        if not (A.is_floating_point() or A.is_complex()):
            raise RuntimeError(
                "[linalg.matrix_power] negative powers need a floating-point A, got "
                f"{str(A.dtype).rpartition('.')[2]}"
            )
        A, n = _la.inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


# Padé [13/13] coefficients of exp (Higham 2005, "The scaling and squaring method for the matrix
# exponential revisited"), and the 1-norm bound below which each lower degree is accurate.
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = {
    _C.float64: 5.371920351148152,
    _C.float32: 3.925724783138660,
    _C.complex128: 5.371920351148152,
    _C.complex64: 3.925724783138660,
}


@composite("linalg_factor", _LAPACK, name="linalg.matrix_exp")
def matrix_exp(A):
    """exp(A) by scaling and squaring with a Padé [13/13] approximant (Higham 2005): A / 2^s
    has a 1-norm below theta_13, its exponential is (V - U)^-1 (V + U), squared s times. One s
    for the whole batch (the largest the batch needs), which is as accurate and keeps it batched."""
    _check_square(A, "linalg.matrix_exp")
    if A.numel() == 0:
        return A.clone()
    if A.shape[-1] == 1:
        return A.exp()
    norm = float(A.detach().abs().sum(-2).amax(-1).max())
    s = 0
    if norm > _THETA13[A.dtype]:
        s = max(0, math.ceil(math.log2(norm / _THETA13[A.dtype])))
    X = A / (2.0**s) if s else A
    b = _PADE13
    eye = _eye_like(X)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (
        X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye
    )
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    E = _la.solve(V - U, V + U)
    for _ in range(s):
        E = E @ E
    return E


def _tolerances(S, atol, rtol, dtype, m, n):
    """PyTorch's rank cut-off: max(atol, rtol * largest singular value), with rtol defaulting
    to eps * max(m, n) when neither is given."""
    import ember

    if rtol is None:
        eps = ember.finfo(dtype.to_real()).eps
        rtol = eps * max(m, n) if atol is None or _is_zero(atol) else 0.0
    if atol is None:
        atol = 0.0
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else _C.zeros_like(S[..., :1])
    atol_t = atol.unsqueeze(-1) if isinstance(atol, _C.Tensor) else atol
    rtol_t = rtol.unsqueeze(-1) if isinstance(rtol, _C.Tensor) else rtol
    return _C.maximum(_C.zeros_like(smax) + atol_t, rtol_t * smax)


def _is_zero(x):
    return not isinstance(x, _C.Tensor) and x == 0


@composite("linalg_factor", _LAPACK, name="linalg.pinv")
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse from the SVD (or eigh when hermitian), singular values
    below max(atol, rtol * largest) treated as 0."""
    if A.dim() < 2:
        raise RuntimeError(
            f"[linalg.pinv] expected a tensor with 2 or more dimensions, got {A.dim()}"
        )
    m, n = A.shape[-2], A.shape[-1]
    if hermitian:
        w, V = _la.eigh(A)
        cut = _tolerances(w.abs(), atol, rtol, A.dtype, m, n)
        keep = w.abs() > cut
        winv = _C.where(keep, 1.0 / _C.where(keep, w, _C.ones_like(w)), _C.zeros_like(w))
        return (V * winv.unsqueeze(-2)) @ V.mH
    U, S, Vh = _la.svd(A, full_matrices=False)
    cut = _tolerances(S, atol, rtol, A.dtype, m, n)
    keep = cut < S
    sinv = _C.where(keep, 1.0 / _C.where(keep, S, _C.ones_like(S)), _C.zeros_like(S))
    return (Vh.mH * sinv.unsqueeze(-2)) @ U.mH


@composite("linalg_factor", _LAPACK, name="linalg.matrix_rank")
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values (eigenvalue magnitudes when hermitian) above
    max(atol, rtol * largest), as int64."""
    if A.dim() < 2:
        raise RuntimeError(
            f"[linalg.matrix_rank] expected a tensor with 2 or more dimensions, got {A.dim()}"
        )
    S = _la.eigvalsh(A).abs() if hermitian else _la.svdvals(A)
    cut = _tolerances(S, atol, rtol, A.dtype, A.shape[-2], A.shape[-1])
    return (cut < S).sum(-1)


@composite("linalg_factor", _LAPACK, name="linalg.cond")
def cond(A, p=None):
    """The condition number ||A|| ||A^-1|| in norm p (None or 2: the ratio of the extreme
    singular values, also for non-square A; -2 its inverse)."""
    import ember

    if A.dim() < 2:
        raise RuntimeError(
            f"[linalg.cond] expected a tensor with 2 or more dimensions, got {A.dim()}"
        )
    if p is None or p in (2, -2):
        S = _la.svdvals(A)
        big, small = S[..., 0], S[..., -1]
        return small / big if p == -2 else big / small
    _check_square(A, "linalg.cond")
    return ember.linalg.matrix_norm(A, p) * ember.linalg.matrix_norm(_la.inv(A), p)


@composite("linalg_factor", _LAPACK, name="linalg.lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    """(solution, residuals, rank, singular_values) of min ||A X - B||: full-rank A by QR
    (drivers None, "gels", "gelsy"), any A by the SVD pseudo-inverse ("gelsd", "gelss", which
    also give rank and singular values). residuals are the squared residual norms for m > n and
    full rank, else empty, as in PyTorch."""
    import ember

    drivers = (None, "gels", "gelsy", "gelsd", "gelss")
    if driver not in drivers:
        raise RuntimeError(
            f"[linalg.lstsq] parameter `driver` should be one of (gels, gelsy, gelsd, gelss), "
            f"got {driver}"
        )
    if A.dim() < 2:
        raise RuntimeError(f"[linalg.lstsq] input must have at least 2 dimensions, got {A.dim()}")
    vector = B.dim() == A.dim() - 1
    B2 = B.unsqueeze(-1) if vector else B
    if B2.shape[-2] != A.shape[-2]:
        raise RuntimeError(
            f"[linalg.lstsq] input.size(-2) should match other.size(-2), got {A.shape[-2]} and "
            f"{B2.shape[-2]}"
        )
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"[linalg.lstsq] Expected input and other to have the same dtype, but got "
            f"{A.dtype} and {B.dtype}"
        )
    m, n = A.shape[-2], A.shape[-1]
    empty = _C.empty((0,), dtype=A.dtype, device=A.device)
    rank = _C.empty((0,), dtype=_C.int64, device=A.device)
    S = empty
    if driver in ("gelsd", "gelss"):
        S = _la.svdvals(A)
        eps = ember.finfo(S.dtype).eps
        rtol = eps * max(m, n) if rcond is None or rcond < 0 else rcond
        X = pinv(A, rtol=rtol) @ B2
        rank = (rtol * S[..., :1] < S).sum(-1)
    elif m >= n:
        Q, R = _la.qr(A)
        X = _la.solve_triangular(R, Q.mH @ B2, upper=True)
        if driver == "gelsy":
            rank = matrix_rank(A)
    else:
        # The minimum-norm solution of an underdetermined system: A^H = Q R, X = Q R^-H B.
        Q, R = _la.qr(A.mH)
        X = Q @ _la.solve_triangular(R.mH, B2, upper=False)
        if driver == "gelsy":
            rank = matrix_rank(A)
    residuals = empty
    if m > n and driver != "gelsy":
        full_rank = driver is None or driver == "gels" or bool((rank == n).all())
        if full_rank:
            residuals = (A @ X - B2).abs().square().sum(-2)
    if vector:
        X = X.squeeze(-1)
    return LstsqResult(X, residuals, rank, S)


@composite("linalg_factor", NUMERIC + COMPLEX, name="linalg.multi_dot")
def multi_dot(tensors):
    """The product of the matrices (the first may be 1-d, a row; the last 1-d, a column), in the
    order that costs the fewest multiplications (the classic chain-order dynamic programme)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"[linalg.multi_dot] expected at least 2 tensors but got {len(tensors)}")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(
                f"[linalg.multi_dot] tensor {i} must be 2D but got {tensors[i].dim()}D"
            )
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"[linalg.multi_dot] tensors {i} and {i + 1} with shapes "
                f"{list(mats[i].shape)} and {list(mats[i + 1].shape)} cannot be multiplied"
            )
    dims = [mats[0].shape[0]] + [t.shape[1] for t in mats]
    k = len(mats)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = None
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s

    def product(i, j):
        if i == j:
            return mats[i]
        s = split[i][j]
        return product(i, s) @ product(s + 1, j)

    out = product(0, k - 1)
    if first_vec:
        out = out.squeeze(0)
    if last_vec:
        out = out.squeeze(-1)
    return out


@composite("linalg_factor", NUMERIC + COMPLEX, name="linalg.vander")
def vander(x, *, N=None):
    """The Vandermonde matrix of x [*, n]: column j is x ** j, j < N (increasing powers)."""
    if x.dim() < 1:
        raise RuntimeError("[linalg.vander] x must have at least one dimension")
    N = x.shape[-1] if N is None else N
    if N < 1:
        raise RuntimeError(f"[linalg.vander] N must be greater than 1, got {N}")
    cols = [_C.ones_like(x)]
    for _ in range(1, N):
        cols.append(cols[-1] * x)
    return _C.stack(cols, -1)


@composite("linalg_factor", NUMERIC + COMPLEX, name="linalg.vecdot")
def vecdot(x, y, *, dim=-1):
    """The dot products of x and y (broadcast) along dim, x conjugated when complex."""
    return (x.conj() * y).sum(dim)


@composite("linalg_factor", _LAPACK, method=True)
def cholesky_solve(B, L, upper=False):
    """X with A X = B, A = L L^H (upper: U^H U) given by its Cholesky factor."""
    if L.dim() < 2 or L.shape[-1] != L.shape[-2]:
        raise RuntimeError(
            f"[cholesky_solve] A must be batches of square matrices, got shape {list(L.shape)}"
        )
    if upper:
        Y = _la.solve_triangular(L.mH, B, upper=False)
        return _la.solve_triangular(L, Y, upper=True)
    Y = _la.solve_triangular(L, B, upper=False)
    return _la.solve_triangular(L.mH, Y, upper=True)


@composite("linalg_factor", _LAPACK, method=True)
def cholesky_inverse(L, upper=False):
    """A^-1 for A = L L^H (upper: U^H U) given by its Cholesky factor."""
    if L.dim() < 2 or L.shape[-1] != L.shape[-2]:
        raise RuntimeError(
            f"[cholesky_inverse] A must be batches of square matrices, got shape {list(L.shape)}"
        )
    return cholesky_solve(_eye_like(L), L, upper)


@composite("linalg_factor", _LAPACK, method=True)
def logdet(input):
    """log det(A): nan for a negative determinant, -inf for a singular A; for complex A the
    complex logarithm log|det| + i angle(det)."""
    sign, logabs = _la.slogdet(input)
    if input.is_complex():
        return logabs + 1j * sign.angle()
    return _C.where(sign < 0, _C.full_like(logabs, float("nan")), logabs)


@composite("linalg_factor", _LAPACK, method=True)
def ormqr(input, tau, other, left=True, transpose=False):
    """Q @ other (left) or other @ Q, Q^H with transpose, Q the m x m product of geqrf's
    reflectors held in input [*, m, n] with scales tau."""
    m = input.shape[-2]
    k = tau.shape[-1]
    if input.shape[-1] < m:
        pad = _C.zeros(
            (*input.shape[:-1], m - input.shape[-1]), dtype=input.dtype, device=input.device
        )
        full = _C.cat([input, pad], -1)
    else:
        full = input[..., :, :m]
    import ember

    Q = ember.linalg.householder_product(full, tau[..., :k])
    Q = Q.mH if transpose else Q
    return Q @ other if left else other @ Q


@composite("linalg_factor", _LAPACK, name="linalg.tensorinv")
def tensorinv(A, ind=2):
    """The tensor B with tensordot(A, B, ind) the identity: A's first ind dims against the rest,
    inverted as one square matrix."""
    if ind <= 0:
        raise RuntimeError(
            f"[linalg.tensorinv] Expected a strictly positive integer for 'ind', but got {ind}"
        )
    rows, cols = A.shape[:ind], A.shape[ind:]
    p, q = math.prod(rows), math.prod(cols)
    if p != q:
        raise RuntimeError(
            f"[linalg.tensorinv] Expected self to satisfy the requirement "
            f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {q} != {p}"
        )
    return _la.inv(A.reshape(p, q)).reshape(*cols, *rows)


@composite("linalg_factor", _LAPACK, name="linalg.tensorsolve")
def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.dim()) == B."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(*rest, *dims)
    xshape = A.shape[B.dim() :]
    n = math.prod(B.shape)
    if math.prod(xshape) != n:
        raise RuntimeError(
            "[linalg.tensorsolve] Expected self to satisfy the requirement "
            "prod(result_shape) == prod(other.shape)"
        )
    return _la.solve(A.reshape(n, n), B.reshape(n)).reshape(xshape)


# torch.return_types.linalg_polar.
PolarResult = namedtuple("linalg_polar", "U H")


@composite("linalg_factor", _LAPACK, name="linalg.polar")
def polar(A):
    """A = U H for A [*, m, n], m >= n: U with orthonormal columns (the closest such matrix to
    A) and H symmetric (Hermitian) positive-semidefinite, from the thin SVD A = W S V^H:
    U = W V^H and H = V S V^H (as PyTorch's CPU path). The gradient is the SVD's, so it needs
    distinct singular values."""
    if A.dim() < 2:
        raise RuntimeError(
            f"[linalg.polar] A must have at least 2 dimensions, but it has {A.dim()} dimensions"
        )
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(
            f"[linalg.polar] input must have at least as many rows as columns, but got {m} by "
            f"{n} matrices"
        )
    W, S, Vh = _la.svd(A, full_matrices=False)
    return PolarResult(W @ Vh, Vh.mH @ (S.unsqueeze(-1) * Vh))


@composite("linalg_factor", _LAPACK, name="linalg.matrix_sqrth")
def matrix_sqrth(A):
    """The symmetric (Hermitian) positive-definite X with X X = A, for such an A (its lower
    triangle read, as eigh does): V diag(sqrt(w)) V^H, negative eigenvalues taken as 0
    (as PyTorch)."""
    _check_square(A, "linalg.matrix_sqrth")
    w, V = _la.eigh(A)
    return V @ (w.clamp(min=0).sqrt().unsqueeze(-1) * V.mH)
