"""Complex tensors: what the op table's generic tests do not see (printing, promotion with
Python numbers, interop, checkpoints, views sharing memory, autograd across real and complex,
errors). Values are checked against NumPy in complex128 and against hand-derived numbers."""

import os

import numpy as np
import pytest

import ember


def test_printing_matches_pytorchs_format():
    # The strings PyTorch 2.15 prints for the same tensors (torch. -> ember.).
    assert repr(ember.tensor([1 + 2j, -3 + 0.5j])) == "tensor([ 1.+2.0000j, -3.+0.5000j])"
    assert repr(ember.tensor([1 + 2j, 3 - 1j])) == "tensor([1.+2.j, 3.-1.j])"
    z = ember.tensor([[1e-5 + 2j, 3 - 1j], [1, 2]], dtype=ember.complex128)
    assert repr(z) == (
        "tensor([[1.0000e-05+2.j, 3.0000e+00-1.j],\n"
        "        [1.0000e+00+0.j, 2.0000e+00+0.j]], dtype=ember.complex128)"
    )
    assert repr(ember.tensor(1 + 1j)) == "tensor(1.+1.j)"
    assert repr(ember.zeros(0, dtype=ember.complex64)) == "tensor([], dtype=ember.complex64)"


def test_creation_dtypes_and_python_numbers():
    assert ember.tensor([1, 2j]).dtype == ember.complex64
    assert ember.tensor([1j], dtype=ember.complex128).dtype == ember.complex128
    assert ember.full((2,), 1j).dtype == ember.complex64
    assert ember.tensor([1 + 2j]).item() == 1 + 2j
    assert ember.tensor([[1j, 2]]).tolist() == [[1j, 2 + 0j]]
    # NumPy's complex64 scalar is no Python complex; its __float__ would drop the imaginary part.
    assert ember.tensor([np.complex64(1 + 2j)]).tolist() == [1 + 2j]
    assert ember.full((1,), np.complex64(2j)).item() == 2j
    assert ember.complex64.is_complex and not ember.complex64.is_floating_point
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128
    assert ember.complex64.itemsize == 8 and ember.complex128.itemsize == 16
    assert (
        ember.complex64.to_real() == ember.float32
        and ember.float64.to_complex() == ember.complex128
    )


def test_promotion_follows_pytorch():
    f32, f64 = ember.ones(2), ember.ones(2, dtype=ember.float64)
    c64 = ember.ones(2, dtype=ember.complex64)
    assert ember.promote_types(ember.complex64, ember.float64) == ember.complex128
    assert ember.promote_types(ember.int64, ember.complex64) == ember.complex64
    assert (f32 * 1j).dtype == ember.complex64  # a complex Python number is a weak type
    assert (f64 * 1j).dtype == ember.complex128
    assert (ember.ones(2, dtype=ember.int32) * 1j).dtype == ember.complex64
    assert (c64 * 2.5).dtype == ember.complex64
    assert (c64 + f64).dtype == ember.complex128
    assert (c64 + ember.tensor(1.0, dtype=ember.float64)).dtype == ember.complex64  # 0-d


def test_arithmetic_and_functions_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    ta, tb = ember.from_numpy(a), ember.from_numpy(b)
    for got, want in [
        (ta * tb, a * b),
        (ta / tb, a / b),
        (ta**tb, a**b),
        (ta**2, a * a),
        (ember.exp(ta), np.exp(a)),
        (ember.log(ta), np.log(a)),
        (ember.sqrt(ta), np.sqrt(a)),
        (ember.tanh(ta), np.tanh(a)),
        (ta.abs(), np.abs(a)),
        (ember.angle(ta), np.angle(a)),
        (ta.conj(), np.conj(a)),
        (ta.sum(1), a.sum(1)),
        (ta.mean(), a.mean()),
        (ta @ tb.mT, a @ b.T),
        (ember.sgn(ta), a / np.abs(a)),
    ]:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert ember.isnan(ember.tensor([complex(0, float("nan")), 1j])).tolist() == [True, False]


def test_larger_matmul_through_blas_matches_numpy():
    rng = np.random.default_rng(1)
    for dtype, tol in [(np.complex64, 1e-4), (np.complex128, 1e-12)]:
        a = (rng.standard_normal((70, 90)) + 1j * rng.standard_normal((70, 90))).astype(dtype)
        b = (rng.standard_normal((90, 50)) + 1j * rng.standard_normal((90, 50))).astype(dtype)
        got = ember.from_numpy(a) @ ember.from_numpy(b)
        np.testing.assert_allclose(got.numpy(), a @ b, rtol=tol, atol=tol)
        # Transposed operands go to BLAS as transposes.
        got = ember.from_numpy(a).mT @ ember.from_numpy(a)
        np.testing.assert_allclose(got.numpy(), a.T @ a, rtol=tol, atol=tol * 10)


def test_numpy_and_dlpack_share_memory():
    a = np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
    t = ember.from_numpy(a)
    assert t.dtype == ember.complex64
    t.mul_(1j)
    np.testing.assert_array_equal(a, [-2 + 1j, 4 + 3j])
    back = t.numpy()
    assert back.dtype == np.complex64 and np.shares_memory(back, a)
    d = ember.from_dlpack(np.array([5j], dtype=np.complex128))
    assert d.dtype == ember.complex128 and d.item() == 5j


def test_view_as_real_and_parts_share_memory():
    z = ember.tensor([1 + 2j, 3 + 4j])
    r = ember.view_as_real(z)
    assert r.dtype == ember.float32 and tuple(r.shape) == (2, 2)
    assert r._base.data_ptr() == z.data_ptr() and r.data_ptr() == z.data_ptr()
    r[0, 1] = 7.0
    assert z.tolist() == [1 + 7j, 3 + 4j]
    z.imag = ember.tensor([0.0, -1.0])
    z.real = 5.0
    assert z.tolist() == [5 + 0j, 5 - 1j]
    assert ember.view_as_complex(ember.view_as_real(z)).tolist() == z.tolist()
    assert tuple(z[::2].real.stride()) == (4,)  # strides in float elements


def test_autograd_conventions():
    # L = |z|^2 has PyTorch's gradient 2z (dL/dx + i dL/dy).
    z = ember.tensor([1 + 2j, -3 + 0.5j], dtype=ember.complex128, requires_grad=True)
    (z.abs() ** 2).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * np.array([1 + 2j, -3 + 0.5j]))
    # A holomorphic f gets g * conj(f'(z)): Re(sum(exp(z) * w)) -> conj(exp(z) * w).
    z.grad = None
    w = np.array([0.5 - 1j, 2 + 0.25j])
    (ember.exp(z) * ember.from_numpy(w)).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), np.conj(np.exp(z.detach().numpy()) * w))
    # A real input of a complex op receives the real part of its gradient.
    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    (x * ember.from_numpy(w)).imag.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w.imag)
    assert x.grad.dtype == ember.float64
    # Complex leaves may require grad; backward() needs a real scalar.
    c = ember.ones(2, dtype=ember.complex64, requires_grad=True)
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        c.sum().backward()


def test_errors_are_pytorchs():
    z = ember.ones(2, dtype=ember.complex64)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        ember.zeros(2).add_(z)
    with pytest.raises(TypeError, match="not implemented for dtype complex64"):
        z < z  # noqa: B015
    with pytest.raises(TypeError, match="not implemented for dtype complex64"):
        z.max()
    with pytest.raises(RuntimeError, match="In-place abs is not supported"):
        z.abs_()
    with pytest.raises(RuntimeError, match="cannot be converted to type float32"):
        ember.zeros(2).fill_(1j)
    with pytest.raises(RuntimeError, match="stride 1"):
        ember.view_as_complex(ember.zeros(2, 4).t())


def test_checkpoint_round_trip(tmp_path):
    path = os.fspath(tmp_path / "c.safetensors")
    z = ember.tensor([[1 + 2j, -3j]])
    ember.save({"z": z}, path)
    assert ember.load(path)["z"].tolist() == z.tolist()
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    np.testing.assert_array_equal(safetensors_numpy.load_file(path)["z"], z.numpy())
    with pytest.raises(RuntimeError, match="complex128 has no safetensors code"):
        ember.save({"w": z.to(ember.complex128)}, path)


def test_inplace_ops_on_real_and_imag_views_keep_gradients():
    """z.imag *= -1 and z.real.add_(x) on a tensor that requires grad rewrite the complex
    tensor's history (PyTorch's CopySlices across dtypes): L = sum |z|^2 with z = c x' after the
    edits, checked against the gradient worked out by hand."""
    x0 = np.array([0.5, -1.0, 2.0])
    x = ember.tensor(x0, requires_grad=True)
    z = ember.complex(x * 2, x * x)  # 2x + i x^2
    z.imag *= -1  # 2x - i x^2
    z.real.add_(x)  # 3x - i x^2
    z.abs().pow(2).sum().backward()  # sum 9 x^2 + x^4
    np.testing.assert_allclose(x.grad.numpy(), 18 * x0 + 4 * x0**3, rtol=1e-12)
    np.testing.assert_allclose(z.detach().numpy(), 3 * x0 - 1j * x0**2)


def test_fft_results_are_not_views():
    """A transform's result owns its memory, so in-place edits of it keep their history."""
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    y = ember.fft.rfft(x, dim=0)
    assert y._base is None
    assert ember.randn(3, dtype=ember.complex64)._base is None  # nor are complex samples
    y.imag *= -1
    ember.view_as_real(y).sum().backward()
    assert x.grad is not None
