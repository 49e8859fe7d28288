"""Op-table records of the neural-network ops: resampling (interpolate, grid_sample,
pixel_shuffle, pixel_unshuffle, unfold, fold).

The references are NumPy loops written from PyTorch's definitions (interpolate's index and weight
formulas with the float32 steps PyTorch takes; mode "area" is adaptive average pooling)."""

from __future__ import annotations

import math

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    OpSpec,
    Sample,
    as_batched,
    error,
    input_cases,
    np_adaptive_avg,
    ntuple,
)

# ---- resampling references -----------------------------------------------------------------------


def _cubic(t):
    a = -0.75

    def c1(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def c2(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _interp_matrix(n_in, n_out, mode, align_corners, scale):
    """The (n_out, n_in) matrix of one dim's taps (PyTorch's UpSample.h)."""
    m = np.zeros((n_out, n_in))
    f32 = np.float32
    for o in range(n_out):
        if mode in ("nearest", "nearest-exact"):
            sc = f32(1.0 / scale) if scale else f32(n_in) / f32(n_out)  # in float32
            if mode == "nearest-exact":
                i = int(np.floor(f32((o + 0.5) * float(sc))))
            elif n_out == n_in:
                i = o
            elif n_out == 2 * n_in:
                i = o >> 1
            else:
                i = int(np.floor(f32(o) * sc))
            m[o, min(i, n_in - 1)] = 1
            continue
        if mode != "cubic" and n_out == n_in:
            m[o, o] = 1
            continue
        if n_out <= 1:
            sc = 0.0
        elif align_corners:
            sc = (n_in - 1) / (n_out - 1)
        else:
            sc = 1.0 / scale if scale else n_in / n_out
        real = sc * o if align_corners else sc * (o + 0.5) - 0.5
        if mode == "linear" and real < 0:
            real = 0.0
        i0 = min(int(np.floor(f32(real))), n_in - 1)
        t = min(max(real - i0, 0.0), 1.0)
        if mode == "linear":
            m[o, i0] += 1 - t
            m[o, i0 + (1 if i0 < n_in - 1 else 0)] += t
        else:
            for j, w in enumerate(_cubic(t)):
                m[o, min(max(i0 - 1 + j, 0), n_in - 1)] += w
    return m


def np_interpolate(
    x, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None
):
    nd = x.ndim - 2
    ins = x.shape[2:]
    scales = [None] * nd
    if size is not None:
        outs = list(ntuple(size, nd))
    else:
        sf = list(ntuple(scale_factor, nd))
        outs = [math.floor(ins[i] * sf[i]) for i in range(nd)]
        if not recompute_scale_factor and mode != "area":
            scales = sf
    if mode == "area":
        return np_adaptive_avg(nd)(x, tuple(outs))
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    out = x
    for i in range(nd):
        mat = _interp_matrix(ins[i], outs[i], kind, bool(align_corners), scales[i])
        out = np.moveaxis(np.tensordot(out, mat, axes=([2 + i], [1])), -1, 2 + i)
    return out


def np_pixel_shuffle(x, r):
    *b, c, h, w = x.shape
    nb = len(b)
    y = x.reshape(*b, c // (r * r), r, r, h, w)
    y = y.transpose(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return y.reshape(*b, c // (r * r), h * r, w * r)


def np_pixel_unshuffle(x, r):
    *b, c, h, w = x.shape
    nb = len(b)
    y = x.reshape(*b, c, h // r, r, w // r, r)
    y = y.transpose(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return y.reshape(*b, c * r * r, h // r, w // r)


def _blocks(size, k, d, p, s):
    return [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]


def _block_positions(size, k, d, p, s):
    """(row of the column matrix, block index, input h, input w) of every in-range element."""
    bh, bw = _blocks(size, k, d, p, s)
    for i in range(k[0]):
        for j in range(k[1]):
            for oh in range(bh):
                for ow in range(bw):
                    ih, iw = oh * s[0] - p[0] + i * d[0], ow * s[1] - p[1] + j * d[1]
                    if 0 <= ih < size[0] and 0 <= iw < size[1]:
                        yield i * k[1] + j, oh * bw + ow, ih, iw


def np_unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    k, d, p, s = (ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    xb, batched = as_batched(x, 2)
    n, c, h, w = xb.shape
    bh, bw = _blocks((h, w), k, d, p, s)
    out = np.zeros((n, c, k[0] * k[1], bh * bw), dtype=x.dtype)
    for r, b, ih, iw in _block_positions((h, w), k, d, p, s):
        out[:, :, r, b] = xb[:, :, ih, iw]
    out = out.reshape(n, c * k[0] * k[1], bh * bw)
    return out if batched else out[0]


def np_fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    size, k, d, p, s = (ntuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    xb, batched = (x, True) if x.ndim == 3 else (x[None], False)
    n, ck, _ = xb.shape
    c = ck // (k[0] * k[1])
    cols = xb.reshape(n, c, k[0] * k[1], -1)
    out = np.zeros((n, c, *size), dtype=x.dtype)
    for r, b, ih, iw in _block_positions(size, k, d, p, s):
        out[:, :, ih, iw] += cols[:, :, r, b]
    return out if batched else out[0]


# ---- errors -------------------------------------------------------------------------------------


def _interpolate_errors():
    x = ember.ones(1, 2, 4, 4)
    return [
        error(lambda: F.interpolate(x), ValueError, "either size or scale_factor"),
        error(lambda: F.interpolate(x, 2, 2.0), ValueError, "only one of size or scale_factor"),
        error(lambda: F.interpolate(x, (2, 2, 2)), ValueError, "same number of spatial"),
        error(lambda: F.interpolate(x, 2, align_corners=True), ValueError, "align_corners option"),
        error(
            lambda: F.interpolate(x, 2, recompute_scale_factor=True),
            ValueError,
            "not meaningful with an explicit size",
        ),
        error(lambda: F.interpolate(x, 2, mode="linear"), NotImplementedError, "needs 3D input"),
        error(lambda: F.interpolate(x, 2, mode="trilinear"), NotImplementedError, "needs 5D"),
        error(lambda: F.interpolate(x, 2, mode="cubic"), NotImplementedError, "(got cubic)"),
        error(lambda: F.interpolate(ember.ones(2, 2), 2), NotImplementedError, "got 2D"),
        error(lambda: F.interpolate(x, (0, 2)), RuntimeError, "greater than 0"),
        error(lambda: F.interpolate(x, 2, mode="nearest", antialias=True), ValueError, "bilinear"),
        error(
            lambda: F.interpolate(x, 2, mode="bilinear", antialias=True),
            NotImplementedError,
            "antialias",
        ),
        error(lambda: F.interpolate(x, (2.5, 2)), TypeError, "expected size to be one of int"),
        error(lambda: F.interpolate(x.long(), 2), NotImplementedError, "dtype int64"),
    ]


def _shuffle_errors():
    return [
        error(lambda: F.pixel_shuffle(ember.ones(2, 3), 2), RuntimeError, "at least 3 dimensions"),
        error(lambda: F.pixel_shuffle(ember.ones(1, 3, 2, 2), 2), RuntimeError, "divisible by"),
        error(lambda: F.pixel_shuffle(ember.ones(1, 4, 2, 2), 0), RuntimeError, "positive"),
    ]


def _unshuffle_errors():
    return [
        error(lambda: F.pixel_unshuffle(ember.ones(3, 2), 2), RuntimeError, "at least 3"),
        error(lambda: F.pixel_unshuffle(ember.ones(1, 4, 3, 2), 2), RuntimeError, "height"),
        error(lambda: F.pixel_unshuffle(ember.ones(1, 4, 2, 3), 2), RuntimeError, "width"),
        error(lambda: F.pixel_unshuffle(ember.ones(1, 4, 2, 2), -1), RuntimeError, "positive"),
    ]


def _unfold_errors():
    x = ember.ones(1, 2, 3, 3)
    return [
        error(lambda: F.unfold(x, 4), RuntimeError, "must be at least one"),
        error(lambda: F.unfold(x, 0), RuntimeError, "kernel size should be greater than zero"),
        error(lambda: F.unfold(x, 2, padding=-1), RuntimeError, "padding should be non-negative"),
        error(lambda: F.unfold(x, 2, stride=0), RuntimeError, "stride should be greater"),
        error(lambda: F.unfold(x, 2, dilation=0), RuntimeError, "dilation should be greater"),
        error(lambda: F.unfold(ember.ones(2, 3), 2), RuntimeError, "3D or 4D"),
    ]


def _fold_errors():
    return [
        error(lambda: F.fold(ember.ones(1, 8, 3), (3, 3), 2), RuntimeError, "sliding blocks"),
        error(lambda: F.fold(ember.ones(1, 7, 4), (3, 3), 2), RuntimeError, "divisible by"),
        error(lambda: F.fold(ember.ones(2, 3, 4, 5), 3, 2), RuntimeError, "2D or 3D"),
        error(lambda: F.fold(ember.ones(1, 4, 4), (1, 1), 2), RuntimeError, "too small"),
    ]


# ---- grid_sample ---------------------------------------------------------------------------------


def _np_pad(i, size, padding_mode, align_corners):
    """A pixel coordinate with grid_sample's padding applied (zeros: unchanged)."""
    if padding_mode == "border":
        return min(max(i, 0.0), size - 1.0)
    if padding_mode == "reflection":
        lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        if hi > lo:
            span, c = hi - lo, abs(i - lo)
            flips, extra = math.floor(c / span), math.fmod(c, span)
            i = extra + lo if flips % 2 == 0 else span - extra + lo
        else:
            i = 0.0
        return min(max(i, 0.0), size - 1.0)
    return i


def np_grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """PyTorch's grid_sampler_2d / 3d, one output point at a time (grid's last dim: x, y[, z])."""
    n, c = x.shape[:2]
    sizes = x.shape[2:][::-1]  # (w, h[, d])
    k = len(sizes)
    out = np.zeros((n, c) + grid.shape[1:-1])

    def read(b, idx):  # idx: integer (x, y[, z]); zero outside
        if all(0 <= i < s for i, s in zip(idx, sizes)):
            return x[(b, slice(None)) + tuple(int(i) for i in reversed(idx))]
        return np.zeros(c)

    for b in range(n):
        for pos in np.ndindex(grid.shape[1:-1]):
            g = grid[(b,) + pos]
            if align_corners:
                u = [(g[j] + 1) / 2 * (sizes[j] - 1) for j in range(k)]
            else:
                u = [((g[j] + 1) * sizes[j] - 1) / 2 for j in range(k)]
            if mode == "bicubic":
                x0, y0 = math.floor(u[0]), math.floor(u[1])
                val = np.zeros(c)
                for yy in range(y0 - 1, y0 + 3):
                    for xx in range(x0 - 1, x0 + 3):
                        px = _np_pad(float(xx), sizes[0], padding_mode, align_corners)
                        py = _np_pad(float(yy), sizes[1], padding_mode, align_corners)
                        wx = _cubic(u[0] - x0)[xx - x0 + 1]
                        wy = _cubic(u[1] - y0)[yy - y0 + 1]
                        val += wx * wy * read(b, (px, py))
                out[(b, slice(None)) + pos] = val
                continue
            u = [_np_pad(v, s, padding_mode, align_corners) for v, s in zip(u, sizes)]
            if mode == "nearest":
                out[(b, slice(None)) + pos] = read(b, [np.rint(v) for v in u])
                continue
            val = np.zeros(c)
            for corner in range(1 << k):
                idx = [math.floor(v) + ((corner >> j) & 1) for j, v in enumerate(u)]
                w = np.prod([1 - abs(v - i) for v, i in zip(u, idx)])
                val += w * read(b, idx)
            out[(b, slice(None)) + pos] = val
    return out


_MODES, _PADDINGS = ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")


def np_grid_sampler(x, grid, interpolation_mode, padding_mode, align_corners):
    """np_grid_sample with PyTorch's integer codes (torch.grid_sampler's arguments)."""
    return np_grid_sample(
        x, grid, _MODES[interpolation_mode], _PADDINGS[padding_mode], align_corners
    )


def _grid_sampler_samples(dims):
    """Every mode, padding and alignment on 4-d and / or 5-d input, grid points in [-1.2, 1.2]
    (some outside, so the padding modes matter); positional codes as torch.grid_sampler's."""
    cases = {
        4: ((2, 2, 4, 5), (2, 3, 2, 2), (0, 1, 2)),
        5: ((1, 2, 3, 4, 3), (1, 2, 2, 2, 3), (0, 1)),
    }

    def make(dtype, rng):
        out = []
        for d in dims:
            shape, grid_shape, modes = cases[d]
            for mode in modes:
                for padding in range(3):
                    for align in (False, True):
                        x = rng.uniform(-3, 3, shape)
                        g = rng.uniform(-1.2, 1.2, grid_shape)
                        desc = f"{shape} {_MODES[mode]} {_PADDINGS[padding]} align={align}"
                        # nearest is piecewise constant in the grid: no gradient to check.
                        out.append(Sample((x, g, mode, padding, align), {}, desc, mode != 1))
        return out

    return make


def _grid_sample_errors():
    img, grid = ember.zeros(1, 1, 2, 2), ember.zeros(1, 2, 2, 2)
    return [
        error(lambda: F.grid_sample(img, grid, mode="area"), ValueError, "expected mode"),
        error(
            lambda: F.grid_sample(img, ember.zeros(2, 2, 2, 2), align_corners=False),
            RuntimeError,
            "same batch size",
        ),
        error(
            lambda: F.grid_sample(
                ember.zeros(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3), "bicubic", "zeros", False
            ),
            RuntimeError,
            "bicubic interpolation only supports 4D input",
        ),
    ]


# ---- the records -------------------------------------------------------------------------------

RECORDS = [
    OpSpec(
        "nn.functional.interpolate",
        lambda x, *a, **k: F.interpolate(x, *a, **k),
        np_interpolate,
        FLOATING,
        input_cases(
            ((1, 2, 4, 5), ((6, 3),), {}),
            ((1, 2, 4, 4), (), {"scale_factor": 2}),
            ((1, 2, 4, 5), (), {"scale_factor": 1.5, "mode": "nearest-exact"}),
            ((1, 1, 4, 5), ((7, 3),), {"mode": "bilinear"}),
            ((1, 1, 3, 4), (), {"scale_factor": 2, "mode": "bilinear", "align_corners": True}),
            ((1, 1, 4, 5), ((6, 8),), {"mode": "bicubic"}),
            ((1, 1, 4, 5), (), {"scale_factor": (1.7, 0.6), "mode": "bicubic"}),
            ((1, 1, 3, 4), ((5, 3),), {"mode": "bicubic", "align_corners": True}),
            ((2, 3, 6), (), {"scale_factor": 2.5, "mode": "linear"}),
            (
                (2, 3, 6),
                (),
                {"scale_factor": 0.7, "mode": "linear", "recompute_scale_factor": True},
            ),
            ((1, 1, 2, 3, 4), ((3, 4, 5),), {"mode": "trilinear"}),
            ((1, 1, 2, 3, 3), (), {"scale_factor": 2}),
            ((1, 2, 6, 5), ((3, 2),), {"mode": "area"}),
            ((0, 2, 3, 3), (4,), {"mode": "bilinear"}),
            ((1, 1, 3, 4), ((5, 6),), {"mode": "bilinear"}),
        ),
        errors=_interpolate_errors,
        gradgrad=True,
    ),
    OpSpec(
        "grid_sampler",
        ember.grid_sampler,
        np_grid_sampler,
        (ember.float32, ember.float64),
        _grid_sampler_samples((4, 5)),
        errors=_grid_sample_errors,
        tol={ember.float32: (1e-4, 1e-5)},  # 16 bicubic taps summed in float32
    ),
    OpSpec(
        "grid_sampler_2d",
        ember.grid_sampler_2d,
        np_grid_sampler,
        (ember.float32, ember.float64),
        _grid_sampler_samples((4,)),
        tol={ember.float32: (1e-4, 1e-5)},
        errors=lambda: [
            error(
                lambda: ember.grid_sampler_2d(
                    ember.zeros(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3), 0, 0, False
                ),
                RuntimeError,
                "expected 4D input",
            )
        ],
    ),
    OpSpec(
        "grid_sampler_3d",
        ember.grid_sampler_3d,
        np_grid_sampler,
        (ember.float32, ember.float64),
        _grid_sampler_samples((5,)),
    ),
    OpSpec(
        "pixel_shuffle",
        lambda x, r: F.pixel_shuffle(x, r),
        np_pixel_shuffle,
        ALL + COMPLEX,
        input_cases(((1, 8, 2, 3), (2,), {}), ((2, 1, 9, 2, 2), (3,), {}), ((4, 2, 2), (2,), {})),
        errors=_shuffle_errors,
        gradgrad=True,
    ),
    OpSpec(
        "pixel_unshuffle",
        lambda x, r: F.pixel_unshuffle(x, r),
        np_pixel_unshuffle,
        ALL + COMPLEX,
        input_cases(((1, 2, 4, 6), (2,), {}), ((3, 6, 3), (3,), {}), ((1, 1, 2, 4), (2,), {})),
        errors=_unshuffle_errors,
        gradgrad=True,
    ),
    OpSpec(
        "nn.functional.unfold",
        lambda x, *a, **k: F.unfold(x, *a, **k),
        np_unfold,
        FLOATING,
        input_cases(
            ((1, 2, 4, 5), (2,), {}),
            ((2, 1, 5, 6), ((2, 3),), {"dilation": (2, 1), "padding": 1, "stride": (2, 1)}),
            ((2, 3, 3), (2,), {}),
            ((1, 1, 3, 4), (2,), {"padding": 1, "stride": 2}),
        ),
        errors=_unfold_errors,
        gradgrad=True,
    ),
    OpSpec(
        "nn.functional.fold",
        lambda x, *a, **k: F.fold(x, *a, **k),
        np_fold,
        FLOATING,
        input_cases(
            ((1, 8, 12), ((4, 5), 2), {}),
            ((2, 6, 18), ((5, 6), (2, 3)), {"dilation": (2, 1), "padding": 1, "stride": (2, 1)}),
            ((4, 9), (4, 2), {}),
            ((1, 4, 4), ((3, 3), 2), {"padding": 1, "stride": 2}),
        ),
        errors=_fold_errors,
        gradgrad=True,
    ),
]


def records():
    return RECORDS
