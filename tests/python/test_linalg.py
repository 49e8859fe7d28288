"""ember.linalg beyond the op table (tests/python/test_ops.py runs its records): the error type,
the top-level and Tensor-method forms with their older argument orders, against NumPy."""

import numpy as np
import pytest

import ember


def _a(rng, shape=(3, 3)):
    return rng.standard_normal(shape) + 4 * np.eye(*shape[-2:])


def test_linalg_error_is_a_runtime_error_with_the_batch_element():
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    batch = ember.stack([ember.eye(2), ember.zeros(2, 2)])
    with pytest.raises(ember.linalg.LinAlgError, match=r"Batch element 1.*singular"):
        ember.linalg.inv(batch)
    inverse, info = ember.linalg.inv_ex(batch)
    assert info.tolist() == [0, 1]
    np.testing.assert_allclose(inverse[0].numpy(), np.eye(2))


def test_older_forms_take_their_argument_orders():
    rng = np.random.default_rng(0)
    a, b = _a(rng), rng.standard_normal((3, 2))
    A, B = ember.tensor(a), ember.tensor(b)
    U, S, V = ember.svd(A)  # V, not Vh
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), a, atol=1e-12)
    U, S, V = ember.svd(A, compute_uv=False)
    assert not U.any() and not V.any()
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False), atol=1e-12)
    X, clone = ember.triangular_solve(B, A, upper=False)
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(np.tril(a), b), atol=1e-12)
    np.testing.assert_allclose(clone.numpy(), a)
    X, _ = B.triangular_solve(A, transpose=True)
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(np.triu(a).T, b), atol=1e-12)
    LU, piv = ember.lu(A)
    np.testing.assert_allclose(
        ember.lu_solve(B, LU, piv).numpy(), np.linalg.solve(a, b), atol=1e-12
    )
    P, L, Uf = ember.lu_unpack(LU, piv)
    np.testing.assert_allclose((P @ L @ Uf).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(A.inverse().numpy(), np.linalg.inv(a), atol=1e-12)
    np.testing.assert_allclose(float(A.det()), np.linalg.det(a), rtol=1e-12)
    np.testing.assert_allclose(A.pinverse().numpy(), np.linalg.pinv(a), atol=1e-12)
    np.testing.assert_allclose(A.matrix_power(3).numpy(), np.linalg.matrix_power(a, 3), rtol=1e-12)
    for name in ("solve", "eig", "lstsq", "matrix_rank", "qr", "cholesky"):
        with pytest.raises(RuntimeError, match=f"removed.*torch.linalg.{name}"):
            getattr(ember, name)(A)
    with pytest.raises(RuntimeError, match="removed.*torch.linalg.eigh"):
        A.symeig()


def test_low_rank_svd_is_the_truncated_svd():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))  # rank 2
    U, S, V = ember.svd_lowrank(ember.tensor(a), q=2)
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), a, atol=1e-12)
    U, S, V = ember.pca_lowrank(ember.tensor(a), q=2)
    centered = a - a.mean(0)
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), centered, atol=1e-12)


def test_eig_of_a_rotation_is_complex():
    """A quarter turn has eigenvalues i and -i (LAPACK's order: positive imaginary part first)
    and eigenvectors (1, -i) / sqrt(2) and its conjugate."""
    A = ember.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=ember.float64)
    L, V = ember.linalg.eig(A)
    assert L.dtype == ember.complex128 and V.dtype == ember.complex128
    np.testing.assert_allclose(L.numpy(), [1j, -1j], atol=1e-15)
    v = V.numpy()
    np.testing.assert_allclose(A.numpy() @ v, v * L.numpy(), atol=1e-15)
    np.testing.assert_allclose(np.abs(v), np.full((2, 2), 2**-0.5), atol=1e-15)
    assert ember.linalg.eigvals(A.float()).dtype == ember.complex64
    with pytest.raises(TypeError, match="floating point or complex"):
        ember.linalg.eig(A.to(ember.int64))


def _complex(rng, *shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_complex_factorisations_match_numpy(dtype):
    """Batched complex input through LAPACK's c / z routines: the factors rebuild the matrix,
    Hermitian eigenvalues and singular values are real (float32 for complex64), as NumPy's."""
    rng = np.random.default_rng(3)
    tol = 1e-4 if dtype == ember.complex64 else 1e-11
    a = _complex(rng, 2, 4, 4) + 4 * np.eye(4)
    h = a @ np.conj(np.swapaxes(a, -1, -2))
    b = _complex(rng, 2, 4, 3)
    A, H, B = (ember.tensor(x, dtype=dtype) for x in (a, h, b))
    real = ember.float32 if dtype == ember.complex64 else ember.float64

    np.testing.assert_allclose(ember.linalg.solve(A, B).numpy(), np.linalg.solve(a, b), rtol=tol)
    np.testing.assert_allclose(ember.linalg.inv(A).numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(ember.linalg.det(A).numpy(), np.linalg.det(a), rtol=tol)
    sign, logabs = ember.linalg.slogdet(A)
    want_sign, want_logabs = np.linalg.slogdet(a)
    assert sign.dtype == dtype and logabs.dtype == real
    np.testing.assert_allclose(sign.numpy(), want_sign, rtol=tol)
    np.testing.assert_allclose(logabs.numpy(), want_logabs, rtol=tol)

    L = ember.linalg.cholesky(H)
    np.testing.assert_allclose((L @ L.mH).numpy(), h, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(L.numpy(), np.linalg.cholesky(h), rtol=tol, atol=tol)

    w, V = ember.linalg.eigh(H)
    assert w.dtype == real and V.dtype == dtype
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(h), rtol=tol)
    np.testing.assert_allclose(
        (V * w.to(dtype).unsqueeze(-2) @ V.mH).numpy(), h, rtol=tol, atol=tol * 10
    )

    U, S, Vh = ember.linalg.svd(A, full_matrices=False)
    assert S.dtype == real
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False), rtol=tol)
    np.testing.assert_allclose((U * S.to(dtype).unsqueeze(-2) @ Vh).numpy(), a, rtol=tol, atol=tol)

    Q, R = ember.linalg.qr(A)
    np.testing.assert_allclose((Q @ R).numpy(), a, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose((Q.mH @ Q).numpy(), np.broadcast_to(np.eye(4), a.shape), atol=tol)

    ev = ember.linalg.eigvals(A).numpy()
    np.testing.assert_allclose(np.sort_complex(ev), np.sort_complex(np.linalg.eigvals(a)), rtol=tol)
    lam, X = ember.linalg.eig(A)
    np.testing.assert_allclose((A @ X).numpy(), (X * lam.unsqueeze(-2)).numpy(), atol=tol * 10)

    P, Lu, Uu = ember.linalg.lu(A)
    np.testing.assert_allclose((P @ Lu @ Uu).numpy(), a, rtol=tol, atol=tol)
    LU, piv = ember.linalg.lu_factor(A)
    for adjoint in (False, True):
        want = np.linalg.solve(np.conj(np.swapaxes(a, -1, -2)) if adjoint else a, b)
        got = ember.linalg.lu_solve(LU, piv, B, adjoint=adjoint)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    T = A.triu()
    np.testing.assert_allclose(
        ember.linalg.solve_triangular(T, B, upper=True).numpy(),
        np.linalg.solve(np.triu(a), b),
        rtol=tol,
        atol=tol,
    )
    np.testing.assert_allclose(ember.linalg.pinv(A).numpy(), np.linalg.pinv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(
        ember.linalg.matrix_norm(A, "nuc").numpy(),
        np.linalg.norm(a, "nuc", axis=(-2, -1)),
        rtol=tol,
    )


@pytest.mark.parametrize("hermitian", [False, True])
def test_complex_ldl_solves_symmetric_and_hermitian_systems(hermitian):
    """ldl_factor of complex input is LDL^T of a complex symmetric matrix (sytrf), or LDL^H of a
    Hermitian one with hermitian=True (hetrf); ldl_solve must be told the same."""
    rng = np.random.default_rng(4)
    x = _complex(rng, 5, 5)
    a = x + (np.conj(x.T) if hermitian else x.T)
    b = _complex(rng, 5, 2)
    LD, piv = ember.linalg.ldl_factor(ember.tensor(a), hermitian=hermitian)
    X = ember.linalg.ldl_solve(LD, piv, ember.tensor(b), hermitian=hermitian)
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_phase_dependent_losses_of_complex_vectors_raise():
    """Complex eigenvectors and singular vectors are fixed up to a phase each; a loss that reads
    the phase has no gradient, and PyTorch raises instead of returning one."""
    rng = np.random.default_rng(5)
    a = _complex(rng, 3, 3)
    A = ember.tensor(a @ np.conj(a.T), requires_grad=True)
    _, V = ember.linalg.eigh(A)
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        V.real.sum().backward()
    B = ember.tensor(a, requires_grad=True)
    U, _, _ = ember.linalg.svd(B)
    with pytest.raises(RuntimeError, match="phase"):
        U[0].real.sum().backward()
    # |V| does not depend on the phases: fine.
    _, V = ember.linalg.eigh(A)
    V.abs().sum().backward()
    assert A.grad is not None and np.isfinite(A.grad.numpy()).all()


def test_eigh_without_onemkl_falls_back_to_openblas():
    """Small eigh runs oneMKL's syevd when its runtime loads, OpenBLAS's otherwise; both agree
    with NumPy. In a child process with EMBER_MKL_RT pointing nowhere, eigh still works and the
    FFT (which needs oneMKL) raises how to install it."""
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np, ember\n"
        "a = np.random.default_rng(0).standard_normal((2, 40, 40)); a = a + a.transpose(0, 2, 1)\n"
        "w = ember.linalg.eigvalsh(ember.tensor(a)).numpy()\n"
        "assert np.allclose(w, np.linalg.eigvalsh(a), atol=1e-10)\n"
        "try:\n"
        "    ember.fft.fft(ember.ones(4))\n"
        "except RuntimeError as e:\n"
        "    assert 'pip install mkl' in str(e), e\n"
        "else:\n"
        "    raise AssertionError('fft ran without oneMKL')\n"
    )
    env = dict(os.environ, EMBER_MKL_RT="/nonexistent/libmkl_rt.so.3")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    a = np.random.default_rng(0).standard_normal((2, 40, 40))
    a = a + a.transpose(0, 2, 1)
    w = ember.linalg.eigvalsh(ember.tensor(a)).numpy()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-10)
