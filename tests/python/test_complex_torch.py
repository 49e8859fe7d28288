"""Complex tensors side by side with PyTorch (skipped without torch): printing, and values and
gradients of programs mixing real and complex tensors."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

PROGRAMS = {
    "abs2": lambda lib, z, w, x: (z.abs() ** 2).sum(),
    "exp_real": lambda lib, z, w, x: (lib.exp(z) * w).real.sum(),
    "quotient": lambda lib, z, w, x: (lib.sin(z * w) / (z + 1)).abs().sum(),
    "angle": lambda lib, z, w, x: lib.angle(z).sum() + lib.sgn(z).imag.sum(),
    "mixed": lambda lib, z, w, x: (x * w + z).imag.pow(2).sum() + (x * 1j).real.sum(),
    "matmul": lambda lib, z, w, x: (z.reshape(2, 2) @ w.reshape(2, 2)).abs().sum(),
    "polar": lambda lib, z, w, x: lib.polar(x.abs() + 1, x).imag.sum() + lib.view_as_real(z).sum(),
    "powers": lambda lib, z, w, x: (z**w + 2**z + lib.sqrt(z) + z.conj() * z).real.mean(),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_gradients_match_torch(name):
    rng = np.random.default_rng(7)
    z0 = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    w0 = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    x0 = rng.standard_normal(4)

    def run(lib):
        z = lib.tensor(z0, dtype=lib.complex128, requires_grad=True)
        w = lib.tensor(w0, dtype=lib.complex128, requires_grad=True)
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        out = PROGRAMS[name](lib, z, w, x)
        out.backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in (z, w, x) if t.grad is not None]

    got, want = run(ember), run(torch)
    assert len(got) == len(want)
    for g, t in zip(got, want):
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "values",
    [[1 + 2j, -3 + 0.5j], [1e-5 + 2j, 3 - 1j, 1, 2], [1e9 + 1j, 0.5j], [0j], [float("nan") + 1j]],
)
def test_printing_matches_torch(values):
    for dtype in ("complex64", "complex128"):
        e = repr(ember.tensor(values, dtype=getattr(ember, dtype)))
        t = repr(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert e == t.replace("torch.", "ember."), (e, t)
