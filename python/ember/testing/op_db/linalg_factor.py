"""Op-table records of the factorisations and what is built on them (ops/linalg_factor.cpp and
the composites of ember/_composites/linalg_factor.py), against NumPy's LAPACK in float64 and
NumPy references written here (LU with partial pivoting, Householder products, the matrix
exponential by its series).

Factors that are unique only up to signs (QR, eigenvectors, singular vectors; phases for complex
ones) are compared after fixing them, by wrappers that do so with differentiable ops; Cholesky's
input is made Hermitian positive-definite by its wrapper (X X^H + n I), so that finite
differences stay in the domain, as PyTorch's OpInfos do. Complex samples are the real ones'
complex partners (spec.complex_partner), and the references run on them in complex128."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    COMPLEX,
    FLOAT32_64,
    NUMERIC,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    make_array,
)

# LAPACK's types: float32, float64 and their complex forms.
LAPACK = FLOAT32_64 + COMPLEX

# float32 (and complex64) factorisations of the well-conditioned samples below agree with float64
# to about cond(A) * eps32.
TOL32 = {ember.float32: (2e-4, 2e-5), ember.complex64: (2e-4, 2e-5)}


# ---- sample matrices ----


def _well(shape, rng):
    """Random matrices with a dominant diagonal: far from singular (cond of a few units)."""
    a = rng.uniform(-1.0, 1.0, size=shape)
    if len(shape) >= 2:
        n = min(shape[-2], shape[-1])
        idx = np.arange(n)
        a[..., idx, idx] += np.sign(a[..., idx, idx] + 1e-9) * (shape[-1] + 1.0)
    return a


def _plain(shape, rng):
    return rng.uniform(-1.0, 1.0, size=shape)


def _mH(a):
    """NumPy's conjugate transpose of a batch of matrices."""
    return np.conj(np.swapaxes(a, -1, -2))


def _spd_from(x):
    n = x.shape[-1]
    return x @ _mH(x) + n * np.eye(n)


def _spd_input(x):
    n = x.shape[-1]
    return x @ x.mH + n * ember.eye(n, dtype=x.dtype)


def _herm(x):
    """The Hermitian (real: symmetric) matrix of x's lower triangle, in x's dtype (so integer
    input still fails). Its diagonal keeps any imaginary part, which the Hermitian routines
    ignore, as NumPy's do."""
    return x.tril() + x.tril(-1).mH


def _np_herm(a):
    return np.tril(a) + _mH(np.tril(a, -1))


def _sym(x):
    """The symmetric matrix of x's lower triangle (complex symmetric for complex x)."""
    return x.tril() + x.tril(-1).mT


def _np_sym(a):
    return np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)


def _unit(x):
    """x / |x| elementwise (1 where x is 0): a sign, or a complex phase."""
    return ember.where(x == 0, ember.ones_like(x), x.sgn())


def _np_unit(a):
    mag = np.abs(a)
    return np.where(mag == 0, 1.0, a / np.where(mag == 0, 1.0, mag))


# ---- NumPy references ----


def np_lu_factor(a):
    """LU with partial pivoting as LAPACK's getrf: (LU packed, 1-based int32 pivots, info). The
    pivot is the largest |re| + |im| in its column (LAPACK's i?amax), |x| for real x."""
    a = np.array(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    lu = a.reshape((int(np.prod(batch)), m, n)).copy()
    piv = np.zeros((lu.shape[0], k), dtype=np.int32)
    info = np.zeros(lu.shape[0], dtype=np.int32)
    for b in range(lu.shape[0]):
        M = lu[b]
        for j in range(k):
            p = j + int(np.argmax(np.abs(M[j:, j].real) + np.abs(M[j:, j].imag)))
            piv[b, j] = p + 1
            if p != j:
                M[[j, p]] = M[[p, j]]
            if M[j, j] == 0:
                if info[b] == 0:
                    info[b] = j + 1
                continue
            M[j + 1 :, j] /= M[j, j]
            M[j + 1 :, j + 1 :] -= np.outer(M[j + 1 :, j], M[j, j + 1 :])
    return lu.reshape(a.shape), piv.reshape(*batch, k), info.reshape(batch)


def np_lu_unpack(lu, piv):
    batch, (m, n) = lu.shape[:-2], lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    U = np.triu(lu[..., :k, :])
    flat = piv.reshape((int(np.prod(batch)), k))
    P = np.zeros((flat.shape[0], m, m))
    for b in range(flat.shape[0]):
        perm = list(range(m))
        for i in range(k):
            j = int(flat[b, i]) - 1
            perm[i], perm[j] = perm[j], perm[i]
        for i in range(m):
            P[b, perm[i], i] = 1.0
    return P.reshape(*batch, m, m), L, U


def np_lu_solve(lu, piv, B, left=True, adjoint=False):
    P, L, U = np_lu_unpack(lu, piv)
    A = P @ L @ U
    A = _mH(A) if adjoint else A
    if left:
        return np.linalg.solve(A, B)
    return np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)


def np_solve(A, B, left=True):
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    B2 = B[..., None] if vector else B
    if left:
        X = np.linalg.solve(A, B2)
    else:
        X = np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B2, -1, -2)), -1, -2)
    return X[..., 0] if vector else X


def np_householder(A, tau):
    """The first n columns of H_1 ... H_k from reflectors below A's diagonal."""
    A = np.asarray(A)
    batch, (m, n) = A.shape[:-2], A.shape[-2:]
    k = tau.shape[-1]
    As, ts = A.reshape((int(np.prod(batch)), m, n)), tau.reshape((int(np.prod(batch)), k))
    out = np.zeros((As.shape[0], m, n), dtype=np.result_type(A, tau))
    for b in range(As.shape[0]):
        Q = np.eye(m, dtype=out.dtype)
        for i in range(k):
            v = np.zeros(m, dtype=out.dtype)
            v[i] = 1.0
            v[i + 1 :] = As[b, i + 1 :, i]
            Q = Q @ (np.eye(m) - ts[b, i] * np.outer(v, v.conj()))
        out[b] = Q[:, :n]
    return out.reshape(*batch, m, n)


def np_geqrf(A):
    batch, (m, n) = A.shape[:-2], A.shape[-2:]
    As = A.reshape((int(np.prod(batch)), m, n))
    hs = np.zeros_like(As)
    taus = np.zeros((As.shape[0], min(m, n)), dtype=As.dtype)
    for b in range(As.shape[0]):
        h, tau = np.linalg.qr(As[b], mode="raw")
        hs[b], taus[b] = h.T, tau
    return hs.reshape(A.shape), taus.reshape(*batch, min(m, n))


def np_expm(A):
    """exp(A) by scaling, a 30-term Taylor series in float64, and squaring."""
    A = np.asarray(A, dtype=np.complex128 if np.iscomplexobj(A) else np.float64)
    norm = np.abs(A).sum(-2).max() if A.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0.5 else 0
    X = A / 2.0**s
    eye = np.broadcast_to(np.eye(A.shape[-1]), A.shape)
    E, term = eye.copy(), eye.copy()
    for i in range(1, 30):
        term = term @ X / i
        E = E + term
    for _ in range(s):
        E = E @ E
    return E


# ---- sign-fixing wrappers ----


def _qr_fixed(A, mode="reduced"):
    Q, R = ember.linalg.qr(A, mode=mode)
    k = min(A.shape[-2], A.shape[-1])
    d = _unit(R.diagonal(dim1=-2, dim2=-1)[..., :k])
    if R.shape[-2] > k:
        d_r = ember.cat([d, ember.ones_like(R[..., k:, 0])], -1)
    else:
        d_r = d
    if Q.shape[-1] > k:
        d_q = ember.cat([d, ember.ones_like(Q[..., 0, k:])], -1)
    else:
        d_q = d
    return Q * d_q.unsqueeze(-2), R * d_r.conj().unsqueeze(-1)


def _np_qr_fixed(A, mode="reduced"):
    A = np.asarray(A)
    batch, (m, n) = A.shape[:-2], A.shape[-2:]
    As = A.reshape((int(np.prod(batch)), m, n))
    Qs, Rs = [], []
    for a in As:
        Q, R = np.linalg.qr(a, mode=mode)
        k = min(m, n)
        d = _np_unit(np.diag(R)[:k])
        d_q = np.concatenate([d, np.ones(Q.shape[1] - k)])
        d_r = np.concatenate([d, np.ones(R.shape[0] - k)])
        Qs.append(Q * d_q[None, :])
        Rs.append(R * d_r.conj()[:, None])
    Q, R = np.array(Qs), np.array(Rs)
    return Q.reshape(*batch, *Q.shape[1:]), R.reshape(*batch, *R.shape[1:])


def _eigh_fixed(A, UPLO="L"):
    w, V = ember.linalg.eigh(_herm(A), UPLO=UPLO)
    return w, V * _unit(V[..., :1, :]).conj()


def _np_eigh_fixed(A, UPLO="L"):
    w, V = np.linalg.eigh(_np_herm(A))
    return w, V * _np_unit(V[..., :1, :]).conj()


def _svd_fixed(A, full_matrices=False):
    U, S, Vh = ember.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    s = _unit(U[..., :1, :k])
    return U[..., :, :k] * s.conj(), S, Vh[..., :k, :] * s.mT


def _np_svd_fixed(A, full_matrices=False):
    U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    s = _np_unit(U[..., :1, :k])
    return U[..., :, :k] * s.conj(), S, Vh[..., :k, :] * np.swapaxes(s, -1, -2)


# ---- sample makers ----


def _mats(make, *cases, **kwargs_list):
    def samples(dtype, rng):
        out = []
        for shapes in cases:
            shapes = shapes if isinstance(shapes[0], tuple) else (shapes,)
            arrays = tuple(make(s, rng) for s in shapes)
            out.append(Sample(arrays, desc=str(shapes)))
        for desc, (shapes, kw) in kwargs_list.items():
            shapes = shapes if isinstance(shapes[0], tuple) else (shapes,)
            out.append(Sample(tuple(make(s, rng) for s in shapes), kw, desc=desc))
        return out

    return samples


SQUARE = [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0)]


def _errors_square(fn, name):
    def errors():
        return [
            ErrorSample(lambda: fn(ember.ones(2, 3)), RuntimeError, "square", "not square"),
            ErrorSample(lambda: fn(ember.ones(3)), RuntimeError, "2 dimensions", "1-d"),
            ErrorSample(
                lambda: fn(ember.ones(2, 2, dtype=ember.int64)), TypeError, "float32", "int"
            ),
        ]

    return errors


def _singular():
    return ember.tensor([[1.0, 2.0], [2.0, 4.0]])


# ---- LU ----


def _lu_factor_samples(dtype, rng):
    out = [
        Sample((_well(s, rng),), desc=str(s)) for s in [(3, 3), (2, 4, 4), (3, 5), (5, 3), (0, 2)]
    ]
    # Rows in an order that needs pivoting.
    a = _plain((4, 4), rng)
    a[0] *= 0.01
    out.append(Sample((a,), desc="pivoting"))
    return out


def _lu_solve_samples(dtype, rng):
    out = []
    for ashape, bshape, kw in [
        ((3, 3), (3, 2), {}),
        ((2, 3, 3), (2, 3, 1), {}),
        ((3, 3), (2, 3, 2), {}),
        ((3, 3), (3, 2), {"adjoint": True}),
        ((3, 3), (2, 3), {"left": False}),
        ((3, 3), (2, 3), {"left": False, "adjoint": True}),
    ]:
        lu, piv, _ = np_lu_factor(_well(ashape, rng))
        out.append(
            Sample(
                (lu, Fixed(piv, ember.int32), _plain(bshape, rng)),
                kw,
                desc=f"{ashape} {bshape} {kw}",
            )
        )
    return out


def _lu_unpack_samples(dtype, rng):
    out = []
    for s in [(3, 3), (2, 3, 3), (3, 5), (5, 3)]:
        lu, piv, _ = np_lu_factor(_well(s, rng))
        out.append(Sample((lu, Fixed(piv, ember.int32)), desc=str(s)))
    return out


def _lu_errors():
    return [
        ErrorSample(
            lambda: ember.linalg.lu_factor(_singular()),
            ember.linalg.LinAlgError,
            "is zero",
            "singular",
        ),
        ErrorSample(
            lambda: ember.linalg.lu_factor(ember.ones(2, 2, dtype=ember.int32)),
            TypeError,
            "float32",
            "int",
        ),
        ErrorSample(lambda: ember.linalg.lu_factor(ember.ones(3)), RuntimeError, "2 dim", "1-d"),
    ]


def _lu_solve_errors():
    LU, piv = ember.linalg.lu_factor(ember.eye(3))
    return [
        ErrorSample(
            lambda: ember.linalg.lu_solve(LU, piv, ember.ones(2, 2)), RuntimeError, "shapes", "B"
        ),
        ErrorSample(
            lambda: ember.linalg.lu_solve(LU, piv.long(), ember.ones(3, 2)),
            TypeError,
            "int32",
            "pivots dtype",
        ),
        ErrorSample(
            lambda: ember.linalg.lu_solve(LU, piv, ember.ones(3, 2, dtype=ember.float64)),
            RuntimeError,
            "same dtype",
            "B dtype",
        ),
    ]


# ---- solve ----


SOLVE_CASES = [
    ((3, 3), (3, 2), {}),
    ((3, 3), (3,), {}),
    ((2, 3, 3), (2, 3), {}),
    ((2, 3, 3), (3, 1), {}),
    ((3, 3), (2, 3, 2), {}),
    ((2, 1, 3, 3), (3, 3, 1), {}),
    ((3, 3), (2, 3), {"left": False}),
    ((0, 0), (0, 2), {}),
    ((2, 2), (2, 0), {}),
]


def _solve_samples(dtype, rng):
    return [
        Sample((_well(a, rng), _plain(b, rng)), kw, desc=f"{a} {b} {kw}")
        for a, b, kw in SOLVE_CASES
    ]


def _solve_errors():
    return [
        ErrorSample(
            lambda: ember.linalg.solve(_singular(), ember.ones(2)),
            ember.linalg.LinAlgError,
            "singular",
            "singular",
        ),
        ErrorSample(
            lambda: ember.linalg.solve(ember.eye(3), ember.ones(4, 1)),
            RuntimeError,
            "incompatible shapes",
            "shapes",
        ),
        ErrorSample(
            lambda: ember.linalg.solve(ember.eye(3), ember.ones(3, dtype=ember.float64)),
            RuntimeError,
            "same dtype",
            "dtype",
        ),
        ErrorSample(
            lambda: ember.linalg.solve(ember.ones(2, 3), ember.ones(2)), RuntimeError, "square", "A"
        ),
    ]


def np_solve_ex(A, B, left=True):
    X = np_solve(A, B, left)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    B2 = B[..., None] if vector else B
    return X, np.zeros(np.broadcast_shapes(A.shape[:-2], B2.shape[:-2]), dtype=np.int32)


def _det_samples(dtype, rng):
    out = [Sample((_plain(s, rng) + np.eye(s[-1]) * 0.5,), desc=str(s)) for s in SQUARE]
    # At an exactly singular A the first derivative is the SVD's adjugate, checked here; its
    # finite differences step to matrices with cond ~ 1e6, whose adjugate det * A^-1 carries
    # ~1e-10 of rounding, 1e-4 once divided by the step: no test of second derivatives.
    out.append(
        Sample(
            (np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),),
            desc="rank 2",
            gradgrad=False,
        )
    )
    out.append(Sample((np.array([[0.0, 1.0], [1.0, 0.0]]),), desc="one swap"))
    return out


def _slogdet_samples(dtype, rng):
    out = [Sample((_well(s, rng),), desc=str(s)) for s in SQUARE]
    out.append(Sample((-_well((3, 3), rng),), desc="negative det"))
    return out


def _logdet_samples(dtype, rng):
    out = [
        Sample((_spd_from(_plain(s, rng)),), desc=f"spd {s}") for s in [(3, 3), (2, 4, 4), (1, 1)]
    ]
    a = np.diag([1.0, -2.0, 3.0])
    out.append(Sample((a,), desc="negative det: nan", grad=False))
    return out


def np_logdet(a):
    sign, logabs = np.linalg.slogdet(a)
    if np.iscomplexobj(a):
        return np.log(sign) + logabs
    return np.where(sign < 0, np.nan, logabs)


# ---- Cholesky and triangular ----


def _cholesky(X, upper=False):
    return ember.linalg.cholesky(_spd_input(X), upper=upper)


def _np_cholesky(X, upper=False):
    L = np.linalg.cholesky(_spd_from(X))
    return _mH(L) if upper else L


def _eig(A):
    """Eigenvalues and the eigenvectors' magnitudes: a vector's phase is arbitrary (LAPACK fixes
    it, but a gradient must not depend on it)."""
    L, V = ember.linalg.eig(A)
    return L, V.abs()


def _np_eig(A):
    L, V = np.linalg.eig(A)
    return L, np.abs(V)


# eig's results are complex64 for float32 input.
TOL_EIG = {**TOL32, ember.complex64: (2e-4, 2e-5)}


# LDL^T: LD's layout is LAPACK's Bunch-Kaufman form, so the records check what it is for: the
# solves it gives (inv(A) from solving against I), on symmetric indefinite matrices.


def _ldl_inverse(X):
    A = _sym(X)
    LD, pivots = ember.linalg.ldl_factor(A)
    return ember.linalg.ldl_solve(LD, pivots, ember.eye(A.shape[-1], dtype=A.dtype).expand_as(A))


def _ldl_ex_inverse(X):
    A = _sym(X)
    LD, pivots, info = ember.linalg.ldl_factor_ex(A)
    eye = ember.eye(A.shape[-1], dtype=A.dtype).expand_as(A)
    return ember.linalg.ldl_solve(LD, pivots, eye), info


def _np_ldl_ex_inverse(X):
    return np.linalg.inv(_np_sym(X)), np.zeros(X.shape[:-2], dtype=np.int32)


def _ldl_solve(X, B):
    LD, pivots = ember.linalg.ldl_factor(_sym(X))
    return ember.linalg.ldl_solve(LD, pivots, B)


def _ldl_errors():
    return [
        ErrorSample(
            lambda: ember.linalg.ldl_factor(ember.zeros(2, 2)),
            ember.linalg.LinAlgError,
            "singular",
            "singular D",
        ),
        ErrorSample(
            lambda: ember.linalg.ldl_factor(ember.ones(2, 3)), RuntimeError, "square", "not square"
        ),
        ErrorSample(
            lambda: ember.linalg.ldl_solve(
                ember.eye(2), ember.ones(2, dtype=ember.int64), ember.ones(2, 1)
            ),
            TypeError,
            "int32",
            "int64 pivots",
        ),
    ]


def _matrix_sqrth(X):
    return ember.linalg.matrix_sqrth(_spd_input(X))


def _np_matrix_sqrth(X):
    w, V = np.linalg.eigh(_spd_from(X))
    return V @ (np.sqrt(w)[..., :, None] * _mH(V))


def _np_polar(A):
    W, S, Vh = np.linalg.svd(A, full_matrices=False)
    return W @ Vh, _mH(Vh) @ (S[..., :, None] * Vh)


def _polar_errors():
    return [
        ErrorSample(
            lambda: ember.linalg.polar(ember.ones(2, 3)), RuntimeError, "as many rows", "wide"
        ),
        ErrorSample(lambda: ember.linalg.polar(ember.ones(3)), RuntimeError, "2 dimensions", "1-d"),
    ]


def _cholesky_ex(X, upper=False):
    return ember.linalg.cholesky_ex(_spd_input(X), upper=upper)


def _np_cholesky_ex(X, upper=False):
    return _np_cholesky(X, upper), np.zeros(X.shape[:-2], dtype=np.int32)


def _cholesky_errors():
    return [
        ErrorSample(
            lambda: ember.linalg.cholesky(-ember.eye(2)),
            ember.linalg.LinAlgError,
            "leading minor of order 1",
            "not positive-definite",
        ),
        ErrorSample(
            lambda: ember.linalg.cholesky(ember.stack([ember.eye(2), -ember.eye(2)])),
            ember.linalg.LinAlgError,
            "Batch element 1",
            "batched",
        ),
    ] + _errors_square(ember.linalg.cholesky, "linalg.cholesky")()


def _solve_triangular_samples(dtype, rng):
    out = []
    for ashape, bshape, kw in [
        ((3, 3), (3, 2), {"upper": True}),
        ((3, 3), (3, 2), {"upper": False}),
        ((2, 3, 3), (2, 3, 1), {"upper": True}),
        ((3, 3), (2, 3, 2), {"upper": False}),
        ((3, 3), (2, 3), {"upper": True, "left": False}),
        ((3, 3), (3, 2), {"upper": False, "unitriangular": True}),
        ((0, 0), (0, 1), {"upper": True}),
    ]:
        out.append(
            Sample((_well(ashape, rng), _plain(bshape, rng)), kw, desc=f"{ashape} {bshape} {kw}")
        )
    return out


def np_solve_triangular(A, B, upper, left=True, unitriangular=False):
    T = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        n = A.shape[-1]
        T = T - T * np.eye(n) + np.eye(n)
    if left:
        return np.linalg.solve(
            np.broadcast_to(T, np.broadcast_shapes(T.shape[:-2], B.shape[:-2]) + T.shape[-2:]), B
        )
    return np.swapaxes(np.linalg.solve(np.swapaxes(T, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)


def _cholesky_solve(B, X, upper=False):
    L = X.triu() if upper else X.tril()
    return ember.cholesky_solve(B, L, upper)


def _np_cholesky_solve(B, X, upper=False):
    L = np.triu(X) if upper else np.tril(X)
    A = _mH(L) @ L if upper else L @ _mH(L)
    return np.linalg.solve(A, B)


def _cholesky_inverse(X, upper=False):
    L = X.triu() if upper else X.tril()
    return ember.cholesky_inverse(L, upper)


def _np_cholesky_inverse(X, upper=False):
    L = np.triu(X) if upper else np.tril(X)
    A = _mH(L) @ L if upper else L @ _mH(L)
    return np.linalg.inv(A)


# ---- QR ----


def _qr_samples(dtype, rng):
    out = [
        Sample((_plain(s, rng),), desc=str(s)) for s in [(4, 3), (3, 3), (3, 5), (2, 4, 2), (0, 3)]
    ]
    out.append(Sample((_plain((3, 5), rng),), {"mode": "complete"}, desc="complete wide"))
    out.append(
        Sample((_plain((4, 2), rng),), {"mode": "complete"}, desc="complete tall", grad=False)
    )
    return out


def _qr_errors():
    return [
        ErrorSample(
            lambda: ember.linalg.qr(ember.ones(2, 2), mode="x"), RuntimeError, "mode", "mode"
        ),
        ErrorSample(lambda: ember.linalg.qr(ember.ones(2)), RuntimeError, "2 dim", "1-d"),
    ]


def _householder_samples(dtype, rng):
    out = []
    for shape, k in [((4, 3), 3), ((3, 3), 2), ((2, 5, 3), 3), ((4, 2), 0)]:
        A = _plain(shape, rng)
        tau = rng.uniform(0.5, 1.5, size=shape[:-2] + (k,))
        out.append(Sample((A, tau), desc=f"{shape} k={k}"))
    return out


def _ormqr_samples(dtype, rng):
    out = []
    for shape, other, kw in [
        ((4, 3), (4, 2), {}),
        ((4, 3), (2, 4), {"left": False}),
        ((3, 3), (3, 2), {"transpose": True}),
        ((3, 4), (3, 2), {}),
    ]:
        A = _plain(shape, rng)
        tau = rng.uniform(0.5, 1.5, size=(min(shape),))
        out.append(Sample((A, tau, _plain(other, rng)), kw, desc=f"{shape} {other} {kw}"))
    return out


def np_ormqr(A, tau, other, left=True, transpose=False):
    m = A.shape[-2]
    full = np.concatenate([A, np.zeros((m, max(0, m - A.shape[-1])))], -1)[:, :m]
    Q = np_householder(full, tau)
    Q = _mH(Q) if transpose else Q
    return Q @ other if left else other @ Q


# ---- eigh and SVD ----


def _eigh_samples(dtype, rng):
    out = [Sample((_plain(s, rng),), desc=str(s)) for s in [(3, 3), (2, 4, 4), (1, 1), (0, 0)]]
    out.append(Sample((_plain((3, 3), rng),), {"UPLO": "U"}, desc="upper"))
    return out


def _eigvalsh(A, UPLO="L"):
    return ember.linalg.eigvalsh(_herm(A), UPLO=UPLO)


def _np_eigvalsh(A, UPLO="L"):
    return np.linalg.eigvalsh(_np_herm(A))


def _svd_samples(dtype, rng):
    out = [
        Sample((_plain(s, rng),), desc=str(s)) for s in [(4, 3), (3, 3), (3, 5), (2, 4, 2), (1, 3)]
    ]
    out.append(Sample((_plain((3, 3), rng),), {"full_matrices": True}, desc="full square"))
    return out


def _svdvals_samples(dtype, rng):
    return [
        Sample((_plain(s, rng),), desc=str(s)) for s in [(4, 3), (3, 3), (3, 5), (2, 4, 2), (0, 3)]
    ]


# ---- composites ----


def _matrix_power_samples(dtype, rng):
    out = []
    for shape, n in [
        ((3, 3), 0),
        ((3, 3), 1),
        ((3, 3), 2),
        ((2, 3, 3), 3),
        ((3, 3), 5),
        ((0, 0), 2),
    ]:
        out.append(Sample((make_array(shape, dtype, rng, -1, 1),), {"n": n}, desc=f"{shape} n={n}"))
    if dtype in FLOAT32_64:
        out.append(Sample((_well((3, 3), rng),), {"n": -1}, desc="n=-1"))
        out.append(Sample((_well((2, 3, 3), rng),), {"n": -2}, desc="n=-2"))
    return out


def _matrix_power(A, n):
    return ember.linalg.matrix_power(A, n)


def _np_matrix_power(A, n):
    if A.ndim == 2:
        return np.linalg.matrix_power(A, n)
    return np.stack([np.linalg.matrix_power(a, n) for a in A])


def _matrix_exp_samples(dtype, rng):
    out = [Sample((_plain(s, rng),), desc=str(s)) for s in [(3, 3), (2, 4, 4), (1, 1), (0, 0)]]
    out.append(Sample((_plain((3, 3), rng) * 6,), desc="norm > theta: squaring"))
    return out


def _np_matrix_exp(A):
    if A.ndim <= 2:
        return np_expm(A)
    return np.stack([np_expm(a) for a in A.reshape(-1, *A.shape[-2:])]).reshape(A.shape)


def _pinv_samples(dtype, rng):
    out = [Sample((_well(s, rng),), desc=str(s)) for s in [(3, 3), (4, 2), (2, 4), (2, 3, 2)]]
    out.append(Sample((_spd_from(_plain((3, 3), rng)),), {"hermitian": True}, desc="hermitian"))
    out.append(Sample((np.outer([1.0, 2.0, 3.0], [1.0, -1.0]),), desc="rank 1", grad=False))
    return out


def _pinv(A, hermitian=False):
    # hermitian reads one triangle: the input is made Hermitian, so finite differences are.
    return ember.linalg.pinv(_herm(A) if hermitian else A, hermitian=hermitian)


def _np_pinv(A, hermitian=False):
    if hermitian:
        A = _np_herm(A)
    return np.linalg.pinv(A, hermitian=hermitian)


def _rank_samples(dtype, rng):
    return [
        Sample((_well((3, 3), rng),), desc="full"),
        Sample((np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0]),), desc="rank 1"),
        Sample((np.zeros((2, 3)),), desc="zero"),
        Sample((np.stack([np.eye(3), np.diag([1.0, 1.0, 0.0])]),), desc="batch"),
        Sample((_spd_from(_plain((3, 3), rng)),), {"hermitian": True}, desc="hermitian"),
    ]


def _np_rank(A, hermitian=False):
    return np.asarray(np.linalg.matrix_rank(A, hermitian=hermitian), dtype=np.int64)


def _cond_samples(dtype, rng):
    return [
        Sample((_well((3, 3), rng),), desc="2"),
        Sample((_well((2, 3, 3), rng),), {"p": "fro"}, desc="fro"),
        Sample((_well((3, 3), rng),), {"p": 1}, desc="1"),
        Sample((_well((3, 3), rng),), {"p": -2}, desc="-2"),
        Sample((_plain((4, 2), rng),), desc="tall"),
    ]


def _np_cond(A, p=None):
    return np.linalg.cond(A, p)


def _lstsq(A, B, **kw):
    return tuple(ember.linalg.lstsq(A, B, **kw))


def _np_lstsq(A, B, driver=None):
    vector = B.ndim == A.ndim - 1
    B2 = B[..., None] if vector else B
    m, n = A.shape[-2:]
    As = A.reshape(-1, m, n)
    Bs = np.broadcast_to(B2, A.shape[:-2] + B2.shape[-2:]).reshape(-1, *B2.shape[-2:])
    sols, res, ranks, svals = [], [], [], []
    for a, b in zip(As, Bs):
        x, r, rank, s = np.linalg.lstsq(a, b, rcond=None)
        sols.append(x)
        res.append(r)
        ranks.append(rank)
        svals.append(s)
    X = np.array(sols).reshape(*A.shape[:-2], n, B2.shape[-1])
    if vector:
        X = X[..., 0]
    residuals = np.array(res).reshape(*A.shape[:-2], -1) if m > n else np.zeros(0)
    if driver in ("gelsd", "gelss"):
        return (
            X,
            residuals,
            np.array(ranks).reshape(A.shape[:-2]),
            np.array(svals).reshape(*A.shape[:-2], -1),
        )
    if driver == "gelsy":
        return X, np.zeros(0), np.array(ranks).reshape(A.shape[:-2]), np.zeros(0)
    return X, residuals, np.zeros(0, dtype=np.int64), np.zeros(0)


def _lstsq_samples(dtype, rng):
    return [
        Sample((_well((5, 3), rng), _plain((5, 2), rng)), desc="tall"),
        Sample((_well((3, 3), rng), _plain((3, 2), rng)), desc="square"),
        Sample((_well((2, 4), rng), _plain((2, 2), rng)), desc="wide: minimum norm"),
        Sample((_well((5, 3), rng), _plain((5,), rng)), desc="vector"),
        Sample((_well((2, 4, 3), rng), _plain((2, 4, 1), rng)), desc="batch"),
        Sample((_well((5, 3), rng), _plain((5, 2), rng)), {"driver": "gelsd"}, desc="gelsd"),
        Sample((_well((5, 3), rng), _plain((5, 2), rng)), {"driver": "gelsy"}, desc="gelsy"),
    ]


def _multi_dot(*mats):
    return ember.linalg.multi_dot(mats)


def _np_multi_dot(*mats):
    return np.linalg.multi_dot(mats)


def _multi_dot_samples(dtype, rng):
    cases = [
        ((3, 4), (4, 2)),
        ((3, 4), (4, 5), (5, 2), (2, 3)),
        ((4,), (4, 3), (3,)),
        ((2, 10), (10, 1), (1, 8)),
    ]
    return [Sample(tuple(make_array(s, dtype, rng, -1, 1) for s in c), desc=str(c)) for c in cases]


def _vander(x, N=None):
    return ember.linalg.vander(x, N=N)


def _np_vander(x, N=None):
    N = x.shape[-1] if N is None else N
    return np.stack([x**j for j in range(N)], -1)


def _vander_samples(dtype, rng):
    return [
        Sample((make_array(s, dtype, rng, -2, 2),), kw, desc=f"{s} {kw}")
        for s, kw in [((4,), {}), ((2, 3), {}), ((3,), {"N": 5}), ((3,), {"N": 1})]
    ]


def _vecdot(x, y, dim=-1):
    return ember.linalg.vecdot(x, y, dim=dim)


def _np_vecdot(x, y, dim=-1):
    return (np.conj(x) * y).sum(dim)


def _vecdot_samples(dtype, rng):
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)),
            kw,
            desc=f"{a} {b}",
        )
        for a, b, kw in [
            ((3,), (3,), {}),
            ((2, 3), (3,), {}),
            ((2, 3), (4, 1, 3), {}),
            ((3, 2), (3, 2), {"dim": 0}),
        ]
    ]


def _tensorinv_samples(dtype, rng):
    return [
        Sample((_well((6, 6), rng).reshape(6, 2, 3),), {"ind": 1}, desc="ind=1"),
        Sample((_well((4, 4), rng).reshape(2, 2, 2, 2),), desc="ind=2"),
    ]


def _tensorinv(A, ind=2):
    return ember.linalg.tensorinv(A, ind=ind)


def _np_tensorinv(A, ind=2):
    return np.linalg.tensorinv(A, ind=ind)


def _tensorsolve_samples(dtype, rng):
    return [
        Sample((_well((6, 6), rng).reshape(2, 3, 6), _plain((2, 3), rng)), desc="2x3"),
        Sample((_well((4, 4), rng).reshape(4, 2, 2), _plain((4,), rng)), desc="4"),
    ]


def _tensorsolve(A, B):
    return ember.linalg.tensorsolve(A, B)


def _np_tensorsolve(A, B):
    return np.linalg.tensorsolve(A, B)


def _ormqr(A, tau, other, **kw):
    return ember.ormqr(A, tau, other, **kw)


def records():
    la = ember.linalg
    return [
        OpSpec(
            "linalg.lu_factor_ex",
            la.lu_factor_ex,
            np_lu_factor,
            LAPACK,
            _lu_factor_samples,
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.lu_factor",
            la.lu_factor,
            lambda a: np_lu_factor(a)[:2],
            LAPACK,
            _lu_factor_samples,
            errors=_lu_errors,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.lu",
            la.lu,
            lambda a: np_lu_unpack(*np_lu_factor(a)[:2]),
            LAPACK,
            _lu_factor_samples,
            gradgrad=True,
            tol=TOL32,
            errors=lambda: [
                ErrorSample(
                    lambda: la.lu(ember.eye(2), pivot=False),
                    NotImplementedError,
                    "without pivoting",
                    "pivot",
                )
            ],
        ),
        OpSpec(
            "lu_unpack",
            ember.lu_unpack,
            np_lu_unpack,
            LAPACK,
            _lu_unpack_samples,
            gradgrad=True,
        ),
        OpSpec(
            "linalg.lu_solve",
            la.lu_solve,
            np_lu_solve,
            LAPACK,
            _lu_solve_samples,
            gradgrad=True,
            tol=TOL32,
            errors=_lu_solve_errors,
        ),
        OpSpec(
            "linalg.solve",
            la.solve,
            np_solve,
            LAPACK,
            _solve_samples,
            gradgrad=True,
            tol=TOL32,
            errors=_solve_errors,
        ),
        OpSpec(
            "linalg.solve_ex",
            la.solve_ex,
            np_solve_ex,
            LAPACK,
            _solve_samples,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.inv",
            la.inv,
            np.linalg.inv,
            LAPACK,
            _mats(_well, *SQUARE),
            gradgrad=True,
            tol=TOL32,
            errors=lambda: (
                [
                    ErrorSample(
                        lambda: la.inv(_singular()),
                        la.LinAlgError,
                        "diagonal element 2 is zero",
                        "singular",
                    )
                ]
                + _errors_square(la.inv, "linalg.inv")()
            ),
        ),
        OpSpec(
            "linalg.inv_ex",
            la.inv_ex,
            lambda a: (np.linalg.inv(a), np.zeros(a.shape[:-2], dtype=np.int32)),
            LAPACK,
            _mats(_well, *SQUARE),
            tol=TOL32,
        ),
        OpSpec(
            "linalg.det",
            la.det,
            np.linalg.det,
            LAPACK,
            _det_samples,
            gradgrad=True,
            tol=TOL32,
            errors=_errors_square(la.det, "linalg.det"),
        ),
        OpSpec(
            "linalg.slogdet",
            la.slogdet,
            lambda a: tuple(np.linalg.slogdet(a)),
            LAPACK,
            _slogdet_samples,
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.cholesky",
            _cholesky,
            _np_cholesky,
            LAPACK,
            _mats(_plain, *SQUARE, upper=((3, 3), {"upper": True})),
            gradgrad=True,
            tol=TOL32,
            errors=_cholesky_errors,
        ),
        OpSpec(
            "linalg.eig",
            _eig,
            _np_eig,
            LAPACK,
            _mats(_plain, *SQUARE, (4, 4)),
            tol=TOL_EIG,
            errors=_errors_square(ember.linalg.eig, "linalg.eig"),
        ),
        OpSpec(
            "linalg.eigvals",
            ember.linalg.eigvals,
            np.linalg.eigvals,
            LAPACK,
            _mats(_plain, *SQUARE, (4, 4)),
            tol=TOL_EIG,
            errors=_errors_square(ember.linalg.eigvals, "linalg.eigvals"),
        ),
        OpSpec(
            "linalg.ldl_factor",
            _ldl_inverse,
            lambda X: np.linalg.inv(_np_sym(X)),
            LAPACK,
            _mats(_plain, (3, 3), (2, 4, 4), (1, 1), (0, 0)),
            grad=False,
            tol=TOL32,
            errors=_ldl_errors,
        ),
        OpSpec(
            "linalg.ldl_factor_ex",
            _ldl_ex_inverse,
            _np_ldl_ex_inverse,
            LAPACK,
            _mats(_plain, (3, 3), (2, 4, 4)),
            grad=False,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.ldl_solve",
            _ldl_solve,
            lambda X, B: np.linalg.solve(_np_sym(X), B),
            LAPACK,
            _mats(_plain, ((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((3, 3), (2, 3, 2))),
            grad=False,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.matrix_sqrth",
            _matrix_sqrth,
            _np_matrix_sqrth,
            LAPACK,
            _mats(_plain, *SQUARE),
            tol=TOL32,
            errors=_errors_square(ember.linalg.matrix_sqrth, "linalg.matrix_sqrth"),
        ),
        OpSpec(
            "linalg.polar",
            ember.linalg.polar,
            _np_polar,
            LAPACK,
            _mats(_well, (3, 3), (4, 2), (2, 4, 3), (1, 1), (3, 0)),
            tol=TOL32,
            errors=_polar_errors,
        ),
        OpSpec(
            "linalg.cholesky_ex",
            _cholesky_ex,
            _np_cholesky_ex,
            LAPACK,
            _mats(_plain, (3, 3), (2, 2, 2)),
            tol=TOL32,
        ),
        OpSpec(
            "linalg.solve_triangular",
            la.solve_triangular,
            np_solve_triangular,
            LAPACK,
            _solve_triangular_samples,
            gradgrad=True,
            tol=TOL32,
            errors=lambda: [
                ErrorSample(
                    lambda: la.solve_triangular(ember.eye(3), ember.ones(2, 1), upper=True),
                    RuntimeError,
                    "incompatible shapes",
                    "shapes",
                )
            ],
        ),
        OpSpec(
            "linalg.qr",
            _qr_fixed,
            _np_qr_fixed,
            LAPACK,
            _qr_samples,
            gradgrad=True,
            tol=TOL32,
            errors=_qr_errors,
        ),
        OpSpec(
            "geqrf",
            ember.geqrf,
            np_geqrf,
            LAPACK,
            _mats(_plain, (4, 3), (3, 5), (2, 3, 3)),
            grad=False,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.householder_product",
            la.householder_product,
            np_householder,
            LAPACK,
            _householder_samples,
            gradgrad=True,
            tol=TOL32,
            errors=lambda: [
                ErrorSample(
                    lambda: la.householder_product(ember.ones(2, 3), ember.ones(2)),
                    RuntimeError,
                    "greater than or equal",
                    "wide",
                )
            ],
        ),
        OpSpec(
            "linalg.eigh",
            _eigh_fixed,
            _np_eigh_fixed,
            LAPACK,
            _eigh_samples,
            gradgrad=True,
            tol=TOL32,
            errors=lambda: [
                ErrorSample(lambda: la.eigh(ember.eye(2), UPLO="X"), RuntimeError, "UPLO", "uplo")
            ],
        ),
        OpSpec(
            "linalg.eigvalsh",
            _eigvalsh,
            _np_eigvalsh,
            LAPACK,
            _eigh_samples,
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.svd",
            _svd_fixed,
            _np_svd_fixed,
            LAPACK,
            _svd_samples,
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.svdvals",
            la.svdvals,
            lambda a: np.linalg.svd(a, compute_uv=False),
            LAPACK,
            _svdvals_samples,
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "linalg.matrix_power",
            _matrix_power,
            _np_matrix_power,
            NUMERIC + COMPLEX,
            _matrix_power_samples,
            gradgrad=True,
            tol={
                ember.float32: (2e-4, 2e-5),
                ember.float16: (1e-2, 1e-2),
                ember.bfloat16: (6e-2, 6e-2),
            },
            errors=lambda: [
                ErrorSample(
                    lambda: la.matrix_power(ember.ones(2, 2, dtype=ember.int64), -1),
                    RuntimeError,
                    "floating",
                    "int inverse",
                ),
                ErrorSample(
                    lambda: la.matrix_power(ember.ones(2, 3), 2),
                    RuntimeError,
                    "square",
                    "not square",
                ),
            ],
        ),
        OpSpec(
            "linalg.matrix_exp",
            la.matrix_exp,
            _np_matrix_exp,
            LAPACK,
            _matrix_exp_samples,
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec("linalg.pinv", _pinv, _np_pinv, LAPACK, _pinv_samples, tol=TOL32),
        OpSpec("linalg.matrix_rank", la.matrix_rank, _np_rank, LAPACK, _rank_samples, grad=False),
        OpSpec("linalg.cond", la.cond, _np_cond, LAPACK, _cond_samples, tol=TOL32),
        OpSpec("linalg.lstsq", _lstsq, _np_lstsq, LAPACK, _lstsq_samples, tol=TOL32),
        OpSpec(
            "linalg.multi_dot",
            _multi_dot,
            _np_multi_dot,
            NUMERIC + COMPLEX,
            _multi_dot_samples,
            tol={ember.float16: (1e-2, 1e-2), ember.bfloat16: (6e-2, 6e-2)},
        ),
        OpSpec(
            "linalg.vander",
            _vander,
            _np_vander,
            NUMERIC + COMPLEX,
            _vander_samples,
            tol={ember.bfloat16: (6e-2, 6e-2)},
        ),
        OpSpec(
            "linalg.vecdot",
            _vecdot,
            _np_vecdot,
            NUMERIC + COMPLEX,
            _vecdot_samples,
            tol={ember.bfloat16: (6e-2, 6e-2)},
        ),
        OpSpec(
            "cholesky_solve",
            _cholesky_solve,
            _np_cholesky_solve,
            LAPACK,
            lambda dtype, rng: [
                Sample((_plain((3, 2), rng), _well((3, 3), rng)), desc="lower"),
                Sample(
                    (_plain((2, 3, 1), rng), _well((2, 3, 3), rng)),
                    {"upper": True},
                    desc="upper batch",
                ),
            ],
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "cholesky_inverse",
            _cholesky_inverse,
            _np_cholesky_inverse,
            LAPACK,
            _mats(_well, (3, 3), upper=((3, 3), {"upper": True})),
            gradgrad=True,
            tol=TOL32,
        ),
        OpSpec(
            "logdet", ember.logdet, np_logdet, LAPACK, _logdet_samples, gradgrad=True, tol=TOL32
        ),
        OpSpec("ormqr", _ormqr, np_ormqr, LAPACK, _ormqr_samples, tol=TOL32),
        OpSpec(
            "linalg.tensorinv", _tensorinv, _np_tensorinv, LAPACK, _tensorinv_samples, tol=TOL32
        ),
        OpSpec(
            "linalg.tensorsolve",
            _tensorsolve,
            _np_tensorsolve,
            LAPACK,
            _tensorsolve_samples,
            tol=TOL32,
        ),
    ]
