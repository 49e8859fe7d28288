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
    with pytest.raises(TypeError, match="float32 or float64"):
        ember.linalg.eig(A.to(ember.complex128))
