"""ember.linalg and the top-level linear algebra names side by side with PyTorch (skipped
without torch): the same calls on the same float64 and complex128 inputs give the same values
and gradients (signs and phases of QR / SVD / eigenvectors fixed by gauge-invariant losses)."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _inputs(rng, complex_=False):
    def draw(*shape):
        x = rng.standard_normal(shape)
        return x + 1j * rng.standard_normal(shape) if complex_ else x

    a = draw(3, 3) + 4 * np.eye(3)
    return {
        "A": a,
        "B": draw(3, 2),
        "S": a @ a.conj().T,
        "T": draw(4, 3),
        "W": draw(3, 5),
    }


def _loss(lib, outs):
    """A real loss of the outputs that depends on both parts of complex ones."""
    loss = 0
    for o in outs:
        if o.is_complex():
            loss = loss + (o.real * o.real).sum() + (o.imag * 0.5).sum() + (o.imag**2).sum()
        else:
            loss = loss + (o * o).sum()
    return loss


CASES = {
    "solve": lambda L, x: L.linalg.solve(x["A"], x["B"]),
    "solve_left_false": lambda L, x: L.linalg.solve(x["A"], x["B"].mT, left=False),
    "slogdet_sign": lambda L, x: L.linalg.slogdet(x["A"])[0],
    "svd_tall": lambda L, x: (lambda u, s, vh: ((u * s) @ vh, (u @ u.mH) * s.sum()))(
        *L.linalg.svd(x["T"], full_matrices=False)
    ),
    "lu_solve_adjoint_right": lambda L, x: L.linalg.lu_solve(
        *L.linalg.lu_factor(x["A"]), x["B"].mT, left=False, adjoint=True
    ),
    "vector_norm_3": lambda L, x: L.linalg.vector_norm(x["T"], 3),
    "matrix_norm_fro": lambda L, x: L.linalg.matrix_norm(x["T"]),
    "eigh_upper": lambda L, x: L.linalg.eigvalsh(x["S"], UPLO="U"),
    "inv": lambda L, x: L.linalg.inv(x["A"]),
    "polar_U": lambda L, x: L.linalg.polar(x["T"]).U,
    "polar_H": lambda L, x: L.linalg.polar(x["T"])[1],
    "matrix_sqrth": lambda L, x: L.linalg.matrix_sqrth(x["S"]),
    "eigvals": lambda L, x: L.view_as_real(L.linalg.eigvals(x["A"])),
    "eig_vectors": lambda L, x: L.linalg.eig(x["A"]).eigenvectors.abs(),
    "det": lambda L, x: L.linalg.det(x["A"]),
    "slogdet": lambda L, x: L.linalg.slogdet(x["A"])[1],
    "logdet": lambda L, x: L.logdet(x["S"]),
    "cholesky": lambda L, x: L.linalg.cholesky(x["S"]),
    "cholesky_upper": lambda L, x: L.linalg.cholesky(x["S"], upper=True),
    "qr_gauge": lambda L, x: (lambda q, r: (q @ r, (r.abs() ** 2).sum()))(*L.linalg.qr(x["T"])),
    "qr_wide": lambda L, x: (lambda q, r: (q @ r, (r.abs() ** 2).sum()))(*L.linalg.qr(x["W"])),
    "eigh_values": lambda L, x: L.linalg.eigh(x["S"])[0],
    "eigh_projector": lambda L, x: (lambda w, v: v @ L.diag(w**2).to(v.dtype) @ v.mH)(
        *L.linalg.eigh(x["S"])
    ),
    "svd_values": lambda L, x: L.linalg.svdvals(x["T"]),
    "svd_gauge": lambda L, x: (lambda u, s, vh: ((u * s) @ vh, (u @ u.mH) * s.sum()))(
        *L.linalg.svd(x["W"], full_matrices=False)
    ),
    "lu": lambda L, x: L.linalg.lu(x["T"])[1:],
    "lu_factor": lambda L, x: L.linalg.lu_factor(x["A"])[0],
    "lu_solve": lambda L, x: L.linalg.lu_solve(*L.linalg.lu_factor(x["A"]), x["B"]),
    "solve_triangular": lambda L, x: L.linalg.solve_triangular(x["A"].triu(), x["B"], upper=True),
    "matrix_exp": lambda L, x: L.linalg.matrix_exp(x["A"] / 4),
    "matrix_power": lambda L, x: L.linalg.matrix_power(x["A"], -2),
    "pinv": lambda L, x: L.linalg.pinv(x["T"]),
    "lstsq": lambda L, x: L.linalg.lstsq(x["T"], x["T"] @ x["B"][:, :1]).solution,
    "cond": lambda L, x: L.linalg.cond(x["A"]),
    "matrix_norm_nuc": lambda L, x: L.linalg.matrix_norm(x["T"], "nuc"),
    "matrix_norm_2": lambda L, x: L.linalg.matrix_norm(x["T"], 2),
    "cholesky_solve": lambda L, x: L.cholesky_solve(x["B"], L.linalg.cholesky(x["S"])),
    "cholesky_inverse": lambda L, x: L.cholesky_inverse(L.linalg.cholesky(x["S"])),
    "triangular_solve": lambda L, x: L.triangular_solve(x["B"], x["A"].triu())[0],
    "householder": lambda L, x: L.linalg.householder_product(x["T"], x["B"][:, 0]),
    "multi_dot": lambda L, x: L.linalg.multi_dot([x["T"], x["A"], x["W"]]),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name, dtype):
    complex_ = dtype == "complex128"
    results = []
    for lib in (ember, torch):
        x = {
            k: lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True)
            for k, v in _inputs(np.random.default_rng(7), complex_).items()
        }
        out = CASES[name](lib, x)
        outs = out if isinstance(out, tuple) else (out,)
        loss = _loss(lib, outs)
        grads = lib.autograd.grad(loss, list(x.values()), allow_unused=True)
        results.append(
            (
                [o.detach().resolve_conj().numpy() for o in outs],
                [None if g is None else g.resolve_conj().numpy() for g in grads],
            )
        )
    (ev, eg), (tv, tg) = results
    for a, b in zip(ev, tv):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
    for k, a, b in zip(_inputs(np.random.default_rng(7)), eg, tg):
        if a is None or b is None:
            assert a is None or not np.any(a), f"{name}: gradient of {k}"
            assert b is None or not np.any(b), f"{name}: gradient of {k}"
            continue
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9, err_msg=f"{name}: grad of {k}")


def test_top_level_forms_match_torch():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3))
    for lib in (ember, torch):
        t = lib.tensor(a)
        U, S, V = lib.svd(t)
        np.testing.assert_allclose((U * S @ V.mT).numpy(), a, atol=1e-12)
        assert tuple(lib.svd(t, some=False).U.shape) == (4, 4)
    e, t = ember.linalg.matrix_rank(ember.tensor(a)), torch.linalg.matrix_rank(torch.tensor(a))
    assert int(e) == int(t) == 3
    for name in ("solve", "eig", "symeig", "lstsq", "matrix_rank", "qr", "cholesky"):
        for lib in (ember, torch):
            args = (lib.eye(2),) * (2 if name in ("solve", "lstsq") else 1)
            with pytest.raises(RuntimeError, match="removed"):
                getattr(lib, name)(*args)


def test_ldl_factor_matches_torch():
    """The compact LD and the pivots are LAPACK's Bunch-Kaufman form on both sides: the same
    numbers, including a matrix that needs 2x2 blocks."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 5, 5))
    a = a + np.swapaxes(a, -1, -2)
    a[0, 0, 0] = a[0, 1, 1] = 0.0  # forces a 2x2 pivot block
    b = rng.standard_normal((2, 5, 3))
    got = ember.linalg.ldl_factor(ember.tensor(a))
    want = torch.linalg.ldl_factor(torch.tensor(a))
    np.testing.assert_allclose(got.LD.numpy(), want.LD.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got.pivots.numpy(), want.pivots.numpy())
    x = ember.linalg.ldl_solve(got.LD, got.pivots, ember.tensor(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("hermitian", [False, True])
def test_complex_ldl_factor_matches_torch(hermitian):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4))
    a = x + (np.conj(np.swapaxes(x, -1, -2)) if hermitian else np.swapaxes(x, -1, -2))
    got = ember.linalg.ldl_factor(ember.tensor(a), hermitian=hermitian)
    want = torch.linalg.ldl_factor(torch.tensor(a), hermitian=hermitian)
    np.testing.assert_allclose(got.LD.numpy(), want.LD.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got.pivots.numpy(), want.pivots.numpy())


def test_det_gradient_of_a_singular_complex_matrix_matches_torch():
    """The singular branch of det's gradient (the adjugate from the SVD) with complex phases."""
    rng = np.random.default_rng(8)
    u = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    v = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    a = u @ v  # rank 2
    grads = []
    for lib in (ember, torch):
        A = lib.tensor(a, requires_grad=True)
        d = lib.linalg.det(A)
        (d.real * 2 + d.imag).backward()
        grads.append(A.grad.resolve_conj().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-10)
