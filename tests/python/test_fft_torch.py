"""ember.fft side by side with torch.fft (skipped without torch): values, gradients and result
dtypes of every function on real, complex and integer inputs, including half-spectra that are
not exactly Hermitian and the error types."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4, 6))
Z = RNG.standard_normal((3, 4, 6)) + 1j * RNG.standard_normal((3, 4, 6))

# name -> (uses the complex input, call(lib.fft, x))
CASES = {
    "fft": (True, lambda F, x: F.fft(x)),
    "fft_real": (False, lambda F, x: F.fft(x, n=5, dim=1)),
    "ifft": (True, lambda F, x: F.ifft(x, n=8, norm="ortho")),
    "rfft": (False, lambda F, x: F.rfft(x, dim=0, norm="forward")),
    "irfft": (True, lambda F, x: F.irfft(x)),
    "irfft_odd": (True, lambda F, x: F.irfft(x, n=9, dim=1)),
    "hfft": (True, lambda F, x: F.hfft(x, n=7, norm="ortho")),
    "ihfft": (False, lambda F, x: F.ihfft(x, dim=1)),
    "fft2": (True, lambda F, x: F.fft2(x, s=(3, 8))),
    "ifft2": (True, lambda F, x: F.ifft2(x, dim=(0, 2), norm="forward")),
    "rfft2": (False, lambda F, x: F.rfft2(x)),
    "irfft2": (True, lambda F, x: F.irfft2(x)),
    "hfft2": (True, lambda F, x: F.hfft2(x, s=(5, 6))),
    "ihfft2": (False, lambda F, x: F.ihfft2(x, norm="ortho")),
    "fftn": (True, lambda F, x: F.fftn(x)),
    "ifftn": (True, lambda F, x: F.ifftn(x, s=(2, 5), dim=(2, 0))),
    "rfftn": (False, lambda F, x: F.rfftn(x, dim=(0, 1))),
    "irfftn": (True, lambda F, x: F.irfftn(x)),
    "irfftn_s": (True, lambda F, x: F.irfftn(x, s=(4, 7), norm="ortho")),
    "hfftn": (True, lambda F, x: F.hfftn(x)),
    "ihfftn": (False, lambda F, x: F.ihfftn(x, s=(3, 5))),
    "fftshift": (True, lambda F, x: F.fftshift(x, dim=(0, 2))),
    "ifftshift": (False, lambda F, x: F.ifftshift(x)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    is_complex, call = CASES[name]
    data = Z if is_complex else X

    def run(lib):
        grad_rng = np.random.default_rng(3)  # the same output weights for both libraries
        x = lib.tensor(data, requires_grad=True)
        y = call(lib.fft, x)
        w = grad_rng.standard_normal(tuple(y.shape))
        if y.is_complex():
            w = w + 1j * grad_rng.standard_normal(tuple(y.shape))
        weighted = y * lib.tensor(w)
        (lib.view_as_real(weighted) if y.is_complex() else weighted).sum().backward()
        return y.detach().resolve_conj().numpy(), x.grad.numpy(), str(y.dtype).rpartition(".")[2]

    (got, ggot, dgot), (want, gwant, dwant) = run(ember), run(torch)
    assert dgot == dwant
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ggot, gwant, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32", "complex64"])
def test_result_dtypes_match_torch(dtype):
    for name in ("fft", "rfft", "irfft", "hfft", "ihfft", "fftn"):
        if name in ("rfft", "ihfft") and dtype == "complex64":
            continue
        e = getattr(ember.fft, name)(ember.ones(4, 4, dtype=getattr(ember, dtype)))
        t = getattr(torch.fft, name)(torch.ones(4, 4, dtype=getattr(torch, dtype)))
        assert str(e.dtype) == str(t.dtype).replace("torch", "ember"), name
        np.testing.assert_allclose(e.numpy(), t.resolve_conj().numpy(), rtol=1e-6, atol=1e-6)


def test_frequencies_match_torch():
    for n, d in [(1, 1.0), (5, 1.0), (8, 0.1), (0, 1.0)]:
        for name in ("fftfreq", "rfftfreq"):
            e = getattr(ember.fft, name)(n, d, dtype=ember.float64)
            t = getattr(torch.fft, name)(n, d, dtype=torch.float64)
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-15)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, lib: F.fft(lib.ones(4), norm="foo"),
        lambda F, lib: F.fft(lib.ones(4), n=0),
        lambda F, lib: F.fft(lib.ones(4), dim=3),
        lambda F, lib: F.rfft(lib.ones(4, dtype=lib.complex64)),
        lambda F, lib: F.fft(lib.ones(4, dtype=lib.float16)),
        lambda F, lib: F.fftn(lib.ones(4, 4), dim=(1, 1)),
        lambda F, lib: F.fftn(lib.ones(4, 4), s=(1, 2, 3)),
        lambda F, lib: F.irfft(lib.ones(1)),
        lambda F, lib: F.fftfreq(3, dtype=lib.int32),
    ],
)
def test_error_types_match_torch(call):
    with pytest.raises(Exception) as want:
        call(torch.fft, torch)
    with pytest.raises(Exception) as got:
        call(ember.fft, ember)
    assert isinstance(got.value, type(want.value)), (got.value, want.value)


@pytest.mark.parametrize(
    "kw",
    [
        {"n_fft": 16},
        {"n_fft": 16, "hop_length": 5, "win_length": 12, "window": "hann"},
        {"n_fft": 15, "center": False, "normalized": True},
        {"n_fft": 16, "window": "hann", "pad_mode": "constant"},
    ],
)
def test_stft_and_istft_match_torch(kw):
    """Spectrogram values, their gradient, and the inverse back to the signal."""
    x0 = np.random.default_rng(0).standard_normal((2, 100))
    results = []
    for lib in (ember, torch):
        k = dict(kw)
        if k.get("window") == "hann":
            k["window"] = lib.hann_window(k.get("win_length", k["n_fft"]), dtype=lib.float64)
        x = lib.tensor(x0, requires_grad=True)
        s = lib.stft(x, return_complex=True, **k)
        lib.view_as_real(s).pow(2).sum().backward()
        k.pop("pad_mode", None)
        y = lib.istft(s.detach(), length=100, **k)
        results.append((s.detach().numpy(), x.grad.numpy(), y.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
