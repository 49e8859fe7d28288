"""Op-table records of the Fourier transforms (ops/fft.cpp, ember.fft) against NumPy's
numpy.fft in float64.

NumPy has no hfftn / ihfftn; their references are the identities hfftn(x) = irfftn(conj(x))
and ihfftn(x) = conj(rfftn(x)) with the opposite norm= (the forward transform of a Hermitian
signal is real). The samples cover cropping and zero-padding (n= / s=), every norm=, a dim
that is not the last, prime and odd lengths, more than three transformed dims, empty batches,
and half-spectra that are not exactly Hermitian (where the real inverse transforms must agree
with NumPy's convention)."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOAT32_64,
    FLOATING,
    OpSpec,
    Sample,
    error,
    error_list,
    make_array,
)

F = ember.fft
# Integers and bool go through the default float dtype; float16 and bfloat16 raise on the CPU.
REAL = [d for d in ALL if d not in (ember.float16, ember.bfloat16)]
ANY = REAL + COMPLEX
# A transform sums n products: float32 results are good to about sqrt(n) log(n) eps32 of the
# largest entry.
TOL = {ember.float32: (1e-4, 1e-4), ember.complex64: (1e-4, 1e-4)}
FREQ = FLOATING + COMPLEX
SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _one_dim_samples(dtype, rng):
    cases = [
        ((8,), {}),
        ((7,), {"norm": "ortho"}),
        ((3, 5), {"dim": 0}),
        ((2, 3, 4), {"n": 6, "norm": "forward"}),
        ((2, 6), {"n": 3, "dim": -1, "norm": "backward"}),
        ((13,), {}),
        ((1,), {}),
        ((0, 4), {}),
    ]
    return [
        Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}", grad=int(np.prod(s)) <= 30)
        for s, kw in cases
    ]


def _n_dim_samples(two: bool):
    def make(dtype, rng):
        cases = (
            [
                ((3, 4), {}),
                ((2, 3, 5), {"s": (4, 6), "norm": "ortho"}),
                ((4, 3), {"dim": (1, 0), "norm": "forward"}),
                ((3, 5), {"s": (2, -1)}),
            ]
            if two
            else [
                ((3, 4), {}),
                ((2, 3, 5), {"dim": (0, 2), "norm": "ortho"}),
                ((3, 4), {"s": (5,)}),
                ((2, 3, 4), {"s": (3, 2), "dim": (2, 0), "norm": "forward"}),
                ((2, 2, 3, 2, 3), {}),  # five dims: more than one kernel call
                ((4,), {"dim": 0}),
                ((0, 3, 4), {"dim": (1, 2)}),
            ]
        )
        return [
            Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}", grad=int(np.prod(s)) <= 30)
            for s, kw in cases
        ]

    return make


def _axes(x, s=None, dim=None):
    """NumPy's axes for torch's (s, dim) defaults."""
    if isinstance(dim, int):
        return (dim,)
    if dim is not None:
        return tuple(dim)
    if s is not None:
        return tuple(range(x.ndim - len(s), x.ndim))
    return tuple(range(x.ndim))


def _np1(fn):
    def ref(x, n=None, dim=-1, norm=None):
        return fn(x, n=n, axis=dim, norm=norm)

    return ref


def _npn(fn):
    def ref(x, s=None, dim=None, norm=None):
        axes = _axes(x, s, dim)
        if s is not None:
            s = [x.shape[a] if v == -1 else v for v, a in zip(s, axes)]
        return fn(x, s=s, axes=axes, norm=norm)

    return ref


def _np2(fn):
    def ref(x, s=None, dim=(-2, -1), norm=None):
        return _npn(fn)(x, s, dim, norm)

    return ref


def _c2r_sizes(x, s, axes):
    """irfftn's signal sizes: s, or the input's with the last one 2 (m - 1)."""
    if s is None:
        s = [-1] * len(axes)
    sizes = [x.shape[a] if v == -1 else v for v, a in zip(s, axes)]
    if s[-1] == -1:
        sizes[-1] = 2 * (x.shape[axes[-1]] - 1)
    return sizes


def _irfftn(x, s=None, dim=None, norm=None):
    axes = _axes(x, s, dim)
    return np.fft.irfftn(x, s=_c2r_sizes(x, s, axes), axes=axes, norm=norm)


def _hfftn(x, s=None, dim=None, norm=None):
    return _irfftn(np.conj(x), s, dim, SWAP[norm])


def _ihfftn(x, s=None, dim=None, norm=None):
    return np.conj(_npn(np.fft.rfftn)(x, s, dim, SWAP[norm]))


def _two(fn):
    def ref(x, s=None, dim=(-2, -1), norm=None):
        return fn(x, s, dim, norm)

    return ref


def _freq_samples(dtype, rng):
    return [
        Sample((n,), kw, desc=f"n={n} {kw}", grad=False)
        for n, kw in [(5, {}), (6, {"d": 0.5}), (1, {}), (0, {}), (8, {"d": 2.0})]
    ]


def _shift_samples(dtype, rng):
    return [
        Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}")
        for s, kw in [((5,), {}), ((4, 3), {}), ((3, 4), {"dim": 1}), ((2, 5), {"dim": (0, 1)})]
    ]


def _errors():
    x = ember.ones(4)
    R = RuntimeError
    return error_list(
        error(lambda: F.fft(x, norm="foo"), R, "Invalid normalization mode"),
        error(lambda: F.fft(x, n=0), R, "Invalid number of data points (0)"),
        error(lambda: F.irfft(ember.ones(1)), R, "Invalid number of data points (0)"),
        error(lambda: F.fft(x, dim=2), IndexError, "out of range"),
        error(lambda: F.rfft(x.to(ember.complex64)), TypeError, "expects a real input"),
        error(lambda: F.ihfft(x.to(ember.complex64)), TypeError, "expects a real input"),
        error(lambda: F.fft(x.half()), NotImplementedError, "Unsupported dtype float16"),
        error(lambda: F.fftn(ember.ones(4, 4), dim=(0, 0)), R, "FFT dims must be unique"),
        error(lambda: F.fftn(ember.ones(4, 4), s=(2,), dim=(0, 1)), R, "same length"),
        error(lambda: F.fftn(ember.ones(2, 3), s=(1, 2, 3)), R, "only has 2 dimensions"),
        error(lambda: F.fft(ember.ones(0)), R, "Invalid number of data points (0)"),
        error(lambda: F.fft(x, n=2.0), TypeError, ""),
        error(lambda: F.fftfreq(4, dtype=ember.int64), R, "floating point or complex dtype"),
    )


def _np_freq(fn):
    """NumPy's, and for n = 0 PyTorch's: fftfreq empty, rfftfreq [nan] (0 / 0)."""

    def ref(n, d=1.0):
        if n == 0:
            return np.zeros(0) if fn is np.fft.fftfreq else np.array([np.nan])
        return fn(n, d)

    return ref


def _freq(fn):
    def op(n, d=1.0, dtype=None):
        return fn(n, d, dtype=dtype)

    return op


def _np_stft(x, n_fft, hop_length=None, center=True, pad_mode="reflect", return_complex=True):
    hop = hop_length or n_fft // 4
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=pad_mode)
    count = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., i * hop : i * hop + n_fft] for i in range(count)], -2)
    spec = np.fft.fft(frames) if np.iscomplexobj(x) else np.fft.rfft(frames)
    return np.swapaxes(spec, -1, -2)


def _np_istft(spec, n_fft, hop_length=None, center=True, length=None):
    hop = hop_length or n_fft // 4
    frames = np.fft.irfft(np.swapaxes(spec, -1, -2), n=n_fft)
    count = frames.shape[-2]
    total = n_fft + hop * (count - 1)
    y = np.zeros(frames.shape[:-2] + (total,))
    envelope = np.zeros(total)
    for i in range(count):
        y[..., i * hop : i * hop + n_fft] += frames[..., i, :]
        envelope[i * hop : i * hop + n_fft] += 1.0
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y, envelope = y[..., start:end], envelope[start:end]
    return y / envelope


def _stft_samples(dtype, rng):
    cases = [
        ((20,), {"n_fft": 8}),
        ((2, 17), {"n_fft": 6, "hop_length": 3}),
        ((16,), {"n_fft": 5, "center": False}),
        ((12,), {"n_fft": 4, "pad_mode": "constant"}),
    ]
    return [
        Sample((make_array(s, dtype, rng),), dict(kw, return_complex=True), desc=f"{s} {kw}")
        for s, kw in cases
    ]


def _istft_samples(dtype, rng):
    cases = [
        ((5, 6), {"n_fft": 8}),
        ((2, 4, 7), {"n_fft": 6, "hop_length": 2, "length": 12}),
        ((3, 5), {"n_fft": 4, "hop_length": 1, "center": False}),
    ]
    return [Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}") for s, kw in cases]


def _stft_errors():
    x = ember.ones(20)
    R = RuntimeError
    return error_list(
        error(lambda: ember.stft(x, 8), R, "return_complex parameter be given"),
        error(lambda: ember.stft(x, 40, center=False, return_complex=True), R, "n_fft"),
        error(lambda: ember.stft(x, 8, hop_length=0, return_complex=True), R, "hop_length > 0"),
        error(lambda: ember.stft(x, 8, window=ember.ones(3), return_complex=True), R, "window"),
        error(lambda: ember.istft(ember.ones(4, 3, dtype=ember.complex64), 8), R, "n_fft / 2 + 1"),
    )


def records():
    g = {"tol": TOL, "gradgrad": True}
    return [
        OpSpec("fft.fft", F.fft, _np1(np.fft.fft), ANY, _one_dim_samples, errors=_errors(), **g),
        OpSpec("fft.ifft", F.ifft, _np1(np.fft.ifft), ANY, _one_dim_samples, **g),
        OpSpec("fft.rfft", F.rfft, _np1(np.fft.rfft), REAL, _one_dim_samples, **g),
        OpSpec("fft.irfft", F.irfft, _np1(np.fft.irfft), ANY, _c2r_one_dim, **g),
        OpSpec("fft.hfft", F.hfft, _np1(np.fft.hfft), ANY, _c2r_one_dim, **g),
        OpSpec("fft.ihfft", F.ihfft, _np1(np.fft.ihfft), REAL, _one_dim_samples, **g),
        OpSpec("fft.fft2", F.fft2, _np2(np.fft.fftn), ANY, _n_dim_samples(True), **g),
        OpSpec("fft.ifft2", F.ifft2, _np2(np.fft.ifftn), ANY, _n_dim_samples(True), **g),
        OpSpec("fft.rfft2", F.rfft2, _np2(np.fft.rfftn), REAL, _n_dim_samples(True), **g),
        OpSpec("fft.irfft2", F.irfft2, _two(_irfftn), ANY, _c2r_n_dim(True), **g),
        OpSpec("fft.hfft2", F.hfft2, _two(_hfftn), ANY, _c2r_n_dim(True), **g),
        OpSpec("fft.ihfft2", F.ihfft2, _two(_ihfftn), REAL, _n_dim_samples(True), **g),
        OpSpec("fft.fftn", F.fftn, _npn(np.fft.fftn), ANY, _n_dim_samples(False), **g),
        OpSpec("fft.ifftn", F.ifftn, _npn(np.fft.ifftn), ANY, _n_dim_samples(False), **g),
        OpSpec("fft.rfftn", F.rfftn, _npn(np.fft.rfftn), REAL, _n_dim_samples(False), **g),
        OpSpec("fft.irfftn", F.irfftn, _irfftn, ANY, _c2r_n_dim(False), **g),
        OpSpec("fft.hfftn", F.hfftn, _hfftn, ANY, _c2r_n_dim(False), **g),
        OpSpec("fft.ihfftn", F.ihfftn, _ihfftn, REAL, _n_dim_samples(False), **g),
        OpSpec("fft.fftfreq", _freq(F.fftfreq), _np_freq(np.fft.fftfreq), FREQ, _freq_samples,
               grad=False, creation=True),
        OpSpec("fft.rfftfreq", _freq(F.rfftfreq), _np_freq(np.fft.rfftfreq), FREQ, _freq_samples,
               grad=False, creation=True),
        OpSpec("stft", ember.stft, _np_stft, FLOAT32_64 + COMPLEX, _stft_samples, tol=TOL,
               errors=_stft_errors()),
        OpSpec("istft", ember.istft, _np_istft, COMPLEX, _istft_samples, tol=TOL),
        OpSpec("fft.fftshift", F.fftshift, lambda x, dim=None: np.fft.fftshift(x, dim),
               ALL + COMPLEX, _shift_samples),
        OpSpec("fft.ifftshift", F.ifftshift, lambda x, dim=None: np.fft.ifftshift(x, dim),
               ALL + COMPLEX, _shift_samples),
    ]  # fmt: skip


def _c2r_one_dim(dtype, rng):
    """Half-spectra: the default 2 (m - 1) points, odd and even n, cropping and padding."""
    cases = [
        ((5,), {}),
        ((4,), {"n": 7}),
        ((3, 4), {"dim": 0, "norm": "ortho"}),
        ((2, 6), {"n": 4, "norm": "forward"}),
        ((2, 3), {"n": 9}),
        ((0, 3), {}),
    ]
    return [
        Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}", grad=int(np.prod(s)) <= 30)
        for s, kw in cases
    ]


def _c2r_n_dim(two: bool):
    def make(dtype, rng):
        cases = (
            [((3, 4), {}), ((2, 3, 3), {"s": (4, 5), "norm": "ortho"}), ((4, 3), {"dim": (1, 0)})]
            if two
            else [
                ((3, 4), {}),
                ((2, 3, 4), {"dim": (0, 2), "norm": "forward"}),
                ((3, 4), {"s": (7,)}),
                ((2, 2, 2, 2, 3), {}),
                ((3, 4), {"s": (2, -1), "norm": "ortho"}),
            ]
        )
        return [
            Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}", grad=int(np.prod(s)) <= 30)
            for s, kw in cases
        ]

    return make
