"""Op-table records of the neural-network ops: pooling (max, average, adaptive, unpool) and
resampling (interpolate, pixel_shuffle, unfold/fold). Imported at the end of op_db.py.

The references are NumPy loops over the output positions, written from PyTorch's definitions
(output sizes, windows, ceil mode, divisors, the first index of a tied max; interpolate's index
and weight formulas with the float32 steps PyTorch takes). Samples are small; max pooling's
random values are distinct, so its gradient is defined."""

from __future__ import annotations

import math

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db import (
    ALL,
    FLOATING,
    NUMERIC,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    make_array,
)

# ---- pooling references --------------------------------------------------------------------------


def _tup(v, nd):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd


def _pool_out(n, k, p, s, d, ceil_mode):
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _batched(x, nd):
    return (x, True) if x.ndim == nd + 2 else (x[None], False)


def _unbatch(outs, batched):
    return outs if batched else tuple(o[0] for o in outs)


def _pool_windows(ins, outs, k, s, p, d):
    """For each output position: the input positions of its window (flat, row-major), or for
    a window with none (dilation stepping over a small input) the negated position PyTorch
    reports, that of its first element past the padding, minus 1."""
    for o in np.ndindex(*outs):
        axes = [[o[i] * s[i] - p[i] + j * d[i] for j in range(k[i])] for i in range(len(ins))]
        inside = [[a for a in ax if 0 <= a < n] for ax, n in zip(axes, ins)]
        if not all(inside):
            flat = 0
            for ax, n in zip(axes, ins):
                flat = flat * n + next(a for a in ax if a >= 0)
            yield o, np.array([-flat - 1])
            continue
        grid = np.meshgrid(*inside, indexing="ij")
        yield o, np.ravel_multi_index(grid, ins).reshape(-1)


def _adaptive_windows(ins, outs):
    for o in np.ndindex(*outs):
        axes = [
            range(o[i] * ins[i] // outs[i], -(-(o[i] + 1) * ins[i] // outs[i]))
            for i in range(len(ins))
        ]
        grid = np.meshgrid(*axes, indexing="ij")
        yield o, np.ravel_multi_index(grid, ins).reshape(-1)


def _max_over(xb, outs, windows):
    n, c = xb.shape[:2]
    flat = xb.reshape(n, c, math.prod(xb.shape[2:]))
    vals = np.empty((n, c, *outs), dtype=xb.dtype)
    idx = np.empty((n, c, *outs), dtype=np.int64)
    for o, pos in windows:
        at = (slice(None), slice(None), *o)
        if pos[0] < 0:  # an empty window: -inf and PyTorch's position for it
            vals[at], idx[at] = -np.inf, -pos[0] - 1
            continue
        w = flat[:, :, pos]
        a = np.argmax(w, axis=2)  # the first of equal maxima, as PyTorch's scan
        vals[at] = np.take_along_axis(w, a[..., None], 2)[..., 0]
        idx[at] = pos[a]
    return vals, idx


def np_max_pool(nd):
    def ref(
        x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
    ):
        k = _tup(kernel_size, nd)
        s = _tup(stride, nd) if stride is not None else k
        p, d = _tup(padding, nd), _tup(dilation, nd)
        xb, batched = _batched(x, nd)
        ins = xb.shape[2:]
        outs = tuple(_pool_out(ins[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(nd))
        vals, idx = _unbatch(_max_over(xb, outs, _pool_windows(ins, outs, k, s, p, d)), batched)
        return (vals, idx) if return_indices else vals

    return ref


def np_avg_pool(nd):
    def ref(
        x,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        k = _tup(kernel_size, nd)
        s = _tup(stride, nd) if stride is not None else k
        p = _tup(padding, nd)
        xb, batched = _batched(x, nd)
        ins = xb.shape[2:]
        outs = tuple(_pool_out(ins[i], k[i], p[i], s[i], 1, ceil_mode) for i in range(nd))
        flat = xb.reshape(*xb.shape[:2], math.prod(xb.shape[2:]))
        out = np.empty((*xb.shape[:2], *outs))
        for o, pos in _pool_windows(ins, outs, k, s, p, (1,) * nd):
            # the window clipped to the padded input (count_include_pad's divisor)
            padded = math.prod(
                min(o[i] * s[i] - p[i] + k[i], ins[i] + p[i]) - (o[i] * s[i] - p[i])
                for i in range(nd)
            )
            div = divisor_override or (padded if count_include_pad else len(pos))
            out[(slice(None), slice(None), *o)] = flat[:, :, pos].sum(axis=2) / div
        return out if batched else out[0]

    return ref


def _adaptive_sizes(x, output_size, nd):
    sizes = _tup(output_size, nd)
    return tuple(x.shape[-nd + i] if v is None else v for i, v in enumerate(sizes))


def np_adaptive_avg(nd):
    def ref(x, output_size):
        xb, batched = _batched(x, nd)
        ins, outs = xb.shape[2:], _adaptive_sizes(x, output_size, nd)
        flat = xb.reshape(*xb.shape[:2], math.prod(xb.shape[2:]))
        out = np.empty((*xb.shape[:2], *outs))
        for o, pos in _adaptive_windows(ins, outs):
            out[(slice(None), slice(None), *o)] = flat[:, :, pos].mean(axis=2)
        return out if batched else out[0]

    return ref


def np_adaptive_max(nd):
    def ref(x, output_size, return_indices=True):
        xb, batched = _batched(x, nd)
        ins, outs = xb.shape[2:], _adaptive_sizes(x, output_size, nd)
        vals, idx = _unbatch(_max_over(xb, outs, _adaptive_windows(ins, outs)), batched)
        return (vals, idx) if return_indices else vals

    return ref


def np_max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    k = _tup(kernel_size, 2)
    s = _tup(stride, 2) if stride is not None else k
    p = _tup(padding, 2)
    if output_size is None:
        out = [(x.shape[-2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(2)]
    else:
        out = list(output_size)[-2:]
    lead = x.shape[:-2]
    flat = np.zeros((math.prod(lead), out[0] * out[1]), dtype=x.dtype)
    xs, ids = x.reshape(len(flat), -1), indices.reshape(len(flat), -1)
    for r in range(len(flat)):
        flat[r, ids[r]] = xs[r]
    return flat.reshape(*lead, *out)


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
        outs = list(_tup(size, nd))
    else:
        sf = list(_tup(scale_factor, nd))
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
    k, d, p, s = (_tup(v, 2) for v in (kernel_size, dilation, padding, stride))
    xb, batched = _batched(x, 2)
    n, c, h, w = xb.shape
    bh, bw = _blocks((h, w), k, d, p, s)
    out = np.zeros((n, c, k[0] * k[1], bh * bw), dtype=x.dtype)
    for r, b, ih, iw in _block_positions((h, w), k, d, p, s):
        out[:, :, r, b] = xb[:, :, ih, iw]
    out = out.reshape(n, c * k[0] * k[1], bh * bw)
    return out if batched else out[0]


def np_fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    size, k, d, p, s = (_tup(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    xb, batched = (x, True) if x.ndim == 3 else (x[None], False)
    n, ck, _ = xb.shape
    c = ck // (k[0] * k[1])
    cols = xb.reshape(n, c, k[0] * k[1], -1)
    out = np.zeros((n, c, *size), dtype=x.dtype)
    for r, b, ih, iw in _block_positions(size, k, d, p, s):
        out[:, :, ih, iw] += cols[:, :, r, b]
    return out if batched else out[0]


# ---- samples ------------------------------------------------------------------------------------


def _cases(*cases):
    """cases: (shape, args, kwargs[, grad]): one input array, then plain args."""

    def make(dtype, rng):
        out = []
        for c in cases:
            shape, args, kw = c[:3]
            grad = c[3] if len(c) > 3 else True
            x = make_array(shape, dtype, rng)
            out.append(Sample((x, *args), dict(kw), f"{shape} {args} {kw}", grad))
        return out

    return make


def _unpool_samples(dtype, rng):
    """Inputs with indices as max_pool2d(kernel 2) would give them: one position per window."""

    def case(lead, h, w, **kw):
        x = make_array((*lead, h, w), dtype, rng)
        oh, ow = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
        idx = np.empty((*lead, h, w), dtype=np.int64)
        for pos in np.ndindex(*lead):
            dh, dw = rng.integers(0, 2, (2, h, w))
            idx[pos] = (2 * oh + dh) * (2 * w + kw.pop("extra_w", 0)) + 2 * ow + dw
        return x, idx

    out = []
    x, i = case((1, 2), 2, 3)
    out.append(Sample((x, Fixed(i, ember.int64), 2), {}, "(1, 2, 2, 3) kernel 2"))
    x, i = case((2,), 2, 2)
    out.append(Sample((x, Fixed(i, ember.int64), 2), {}, "unbatched (2, 2, 2)"))
    x, i = case((1, 1), 2, 3, extra_w=1)
    out.append(Sample((x, Fixed(i, ember.int64), 2), {"output_size": (5, 7)}, "output_size (5, 7)"))
    x, i = case((1, 1), 2, 2)
    out.append(
        Sample((x, Fixed(i, ember.int64), (2, 2)), {"stride": 2, "padding": 0}, "tuple kernel")
    )
    return out


# ---- errors -------------------------------------------------------------------------------------


def _err(make, exc, match):
    return ErrorSample(make, exc, match, match)


def _max_pool_errors():
    x = ember.ones(1, 2, 4, 4)
    return [
        _err(lambda: F.max_pool2d(x, 3, 1, 2), RuntimeError, "pad should be at most half"),
        _err(lambda: F.max_pool2d(x, 3, 1, -1), RuntimeError, "pad must be non-negative"),
        _err(lambda: F.max_pool2d(x, 2, 0), RuntimeError, "stride should not be zero"),
        _err(lambda: F.max_pool2d(x, 2, -1), RuntimeError, "stride should be greater than zero"),
        _err(lambda: F.max_pool2d(x, 2, dilation=0), RuntimeError, "dilation should be greater"),
        _err(lambda: F.max_pool2d(x, (2, 2, 2)), RuntimeError, "[max_pool2d] kernel_size must"),
        _err(lambda: F.max_pool2d(ember.ones(4, 4), 2), RuntimeError, "3D or 4D"),
        _err(lambda: F.max_pool2d(ember.ones(1, 0, 4, 4), 2), RuntimeError, "optional 0 dim"),
        _err(lambda: F.max_pool2d(ember.ones(1, 2, 2, 2), 3), RuntimeError, "is too small"),
        _err(lambda: F.max_pool2d(x, 3, 1, 2, dilation=2), RuntimeError, "half of kernel size"),
        _err(lambda: F.max_pool2d(x.bool(), 2), NotImplementedError, "dtype bool"),
    ]


def _max_pool1d_errors():
    x = ember.ones(2, 8)
    return [
        _err(lambda: F.max_pool1d(x, 2, 1, 2), RuntimeError, "[max_pool1d] pad should be"),
        _err(lambda: F.max_pool1d(ember.ones(1, 2, 3, 4), 2), RuntimeError, "2D or 3D"),
        _err(lambda: F.max_pool1d(x, 0), RuntimeError, "[max_pool1d]"),
        _err(lambda: F.max_pool1d(x, 9), RuntimeError, "too small"),
    ]


def _max_pool3d_errors():
    x = ember.ones(1, 1, 4, 4, 4)
    return [
        _err(lambda: F.max_pool3d(x, 3, 1, 2), RuntimeError, "[max_pool3d] pad should be"),
        _err(lambda: F.max_pool3d(ember.ones(2, 4, 4), 2), RuntimeError, "4D or 5D"),
        _err(lambda: F.max_pool3d(x, (2, 2)), RuntimeError, "kernel_size must be"),
    ]


def _avg_pool_errors():
    x = ember.ones(1, 2, 4, 4)
    return [
        _err(lambda: F.avg_pool2d(x, 3, 1, 2), RuntimeError, "pad should be at most half"),
        _err(lambda: F.avg_pool2d(x, 2, divisor_override=0), RuntimeError, "divisor must be"),
        _err(lambda: F.avg_pool2d(ember.ones(1, 2, 2, 2), 3), RuntimeError, "too small"),
        _err(lambda: F.avg_pool2d(ember.ones(4), 2), RuntimeError, "3D or 4D"),
        _err(lambda: F.avg_pool2d(x.long(), 2), NotImplementedError, "dtype int64"),
    ]


def _adaptive_errors(fn, nd):
    name = fn.__name__
    good = ember.ones(*([1, 2] + [4] * nd))
    empty = ember.ones(*([1, 2, 0] + [4] * (nd - 1)))
    return [
        _err(lambda: fn(ember.ones(*([4] * nd)), 2), RuntimeError, f"[{name}] expected a"),
        _err(lambda: fn(good, -1), RuntimeError, "greater than or equal to 0"),
        _err(lambda: fn(good, (2,) * (nd + 1)), RuntimeError, f"[{name}] output_size must"),
        _err(lambda: fn(empty, 2), RuntimeError, "non-zero size for non-batch dimensions"),
    ]


def _unpool_errors():
    x = ember.ones(1, 1, 2, 2)
    i = ember.zeros(1, 1, 2, 2, dtype=ember.int64)
    return [
        _err(lambda: F.max_unpool2d(x, i.int(), 2), RuntimeError, "should be type int64"),
        _err(lambda: F.max_unpool2d(x, i[..., :1], 2), RuntimeError, "shape of indices"),
        _err(lambda: F.max_unpool2d(x, i + 16, 2), RuntimeError, "invalid max index: 16"),
        _err(lambda: F.max_unpool2d(x, i - 1, 2), RuntimeError, "invalid max index: -1"),
        _err(lambda: F.max_unpool2d(x, i, 2, output_size=(6, 4)), ValueError, "invalid output"),
        _err(lambda: F.max_unpool2d(x, i, 2, output_size=(4,)), ValueError, "2 or 4 elements"),
        _err(lambda: F.max_unpool2d(ember.ones(4, 4), i[0, 0], 2), RuntimeError, "3d or 4d"),
    ]


def _interpolate_errors():
    x = ember.ones(1, 2, 4, 4)
    return [
        _err(lambda: F.interpolate(x), ValueError, "either size or scale_factor"),
        _err(lambda: F.interpolate(x, 2, 2.0), ValueError, "only one of size or scale_factor"),
        _err(lambda: F.interpolate(x, (2, 2, 2)), ValueError, "same number of spatial"),
        _err(lambda: F.interpolate(x, 2, align_corners=True), ValueError, "align_corners option"),
        _err(
            lambda: F.interpolate(x, 2, recompute_scale_factor=True),
            ValueError,
            "not meaningful with an explicit size",
        ),
        _err(lambda: F.interpolate(x, 2, mode="linear"), NotImplementedError, "needs 3D input"),
        _err(lambda: F.interpolate(x, 2, mode="trilinear"), NotImplementedError, "needs 5D"),
        _err(lambda: F.interpolate(x, 2, mode="cubic"), NotImplementedError, "(got cubic)"),
        _err(lambda: F.interpolate(ember.ones(2, 2), 2), NotImplementedError, "got 2D"),
        _err(lambda: F.interpolate(x, (0, 2)), RuntimeError, "greater than 0"),
        _err(lambda: F.interpolate(x, 2, mode="nearest", antialias=True), ValueError, "bilinear"),
        _err(
            lambda: F.interpolate(x, 2, mode="bilinear", antialias=True),
            NotImplementedError,
            "antialias",
        ),
        _err(lambda: F.interpolate(x, (2.5, 2)), TypeError, "expected size to be one of int"),
        _err(lambda: F.interpolate(x.long(), 2), NotImplementedError, "dtype int64"),
    ]


def _shuffle_errors():
    return [
        _err(lambda: F.pixel_shuffle(ember.ones(2, 3), 2), RuntimeError, "at least 3 dimensions"),
        _err(lambda: F.pixel_shuffle(ember.ones(1, 3, 2, 2), 2), RuntimeError, "divisible by"),
        _err(lambda: F.pixel_shuffle(ember.ones(1, 4, 2, 2), 0), RuntimeError, "positive"),
    ]


def _unshuffle_errors():
    return [
        _err(lambda: F.pixel_unshuffle(ember.ones(3, 2), 2), RuntimeError, "at least 3"),
        _err(lambda: F.pixel_unshuffle(ember.ones(1, 4, 3, 2), 2), RuntimeError, "height"),
        _err(lambda: F.pixel_unshuffle(ember.ones(1, 4, 2, 3), 2), RuntimeError, "width"),
        _err(lambda: F.pixel_unshuffle(ember.ones(1, 4, 2, 2), -1), RuntimeError, "positive"),
    ]


def _unfold_errors():
    x = ember.ones(1, 2, 3, 3)
    return [
        _err(lambda: F.unfold(x, 4), RuntimeError, "must be at least one"),
        _err(lambda: F.unfold(x, 0), RuntimeError, "kernel size should be greater than zero"),
        _err(lambda: F.unfold(x, 2, padding=-1), RuntimeError, "padding should be non-negative"),
        _err(lambda: F.unfold(x, 2, stride=0), RuntimeError, "stride should be greater"),
        _err(lambda: F.unfold(x, 2, dilation=0), RuntimeError, "dilation should be greater"),
        _err(lambda: F.unfold(ember.ones(2, 3), 2), RuntimeError, "3D or 4D"),
    ]


def _fold_errors():
    return [
        _err(lambda: F.fold(ember.ones(1, 8, 3), (3, 3), 2), RuntimeError, "sliding blocks"),
        _err(lambda: F.fold(ember.ones(1, 7, 4), (3, 3), 2), RuntimeError, "divisible by"),
        _err(lambda: F.fold(ember.ones(2, 3, 4, 5), 3, 2), RuntimeError, "2D or 3D"),
        _err(lambda: F.fold(ember.ones(1, 4, 4), (1, 1), 2), RuntimeError, "too small"),
    ]


# ---- the records -------------------------------------------------------------------------------


def _spec(name, op, ref, dtypes, samples, errors, **kw):
    kw.setdefault("gradgrad", True)
    return OpSpec(name, op, ref, dtypes, samples, errors=errors, **kw)


RECORDS = [
    _spec(
        "max_pool1d",
        lambda x, *a, **k: F.max_pool1d(x, *a, **k),
        np_max_pool(1),
        NUMERIC,
        _cases(
            ((2, 3, 9), (3, 2, 1), {}),
            ((3, 8), (2,), {"return_indices": True}),
            ((1, 2, 10), (3,), {"stride": 2, "dilation": 2, "ceil_mode": True}),
            ((1, 2, 7), (2,), {"stride": 2, "ceil_mode": True, "return_indices": True}),
            ((0, 2, 5), (2,), {}),
            ((1, 1, 6), (2, 1), {}),
        ),
        _max_pool1d_errors,
    ),
    _spec(
        "max_pool2d",
        lambda x, *a, **k: F.max_pool2d(x, *a, **k),
        np_max_pool(2),
        NUMERIC,
        _cases(
            ((1, 2, 5, 6), (2,), {}),
            ((2, 3, 7, 8), (3, 2, 1), {"return_indices": True}),
            ((1, 2, 5, 7), ((2, 3), (1, 2), (1, 1)), {"dilation": (2, 1), "ceil_mode": True}),
            ((2, 4, 4), (2,), {"stride": 1, "return_indices": True}),
            ((1, 2, 6, 5), (3,), {"stride": 2, "ceil_mode": True, "return_indices": True}),
            ((0, 2, 4, 4), (2,), {}),
            ((1, 1, 4, 4), (2, 1), {}),
        ),
        _max_pool_errors,
    ),
    _spec(
        "max_pool3d",
        lambda x, *a, **k: F.max_pool3d(x, *a, **k),
        np_max_pool(3),
        NUMERIC,
        _cases(
            ((1, 2, 4, 4, 5), (2,), {}),
            ((1, 1, 5, 5, 5), (3, 2, 1), {"ceil_mode": True, "return_indices": True}),
            ((2, 3, 4, 4), ((1, 2, 2),), {"return_indices": True}),
            ((1, 1, 2, 3, 4), ((1, 2, 2), 1), {}),
        ),
        _max_pool3d_errors,
    ),
    _spec(
        "avg_pool1d",
        lambda x, *a, **k: F.avg_pool1d(x, *a, **k),
        np_avg_pool(1),
        FLOATING,
        _cases(
            ((2, 3, 9), (3, 2, 1), {}),
            ((2, 3, 9), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
            ((3, 7), (2,), {}),
            ((1, 1, 8), (3, 1, 1), {}),
        ),
        lambda: [
            _err(lambda: F.avg_pool1d(ember.ones(2, 8), 2, 1, 2), RuntimeError, "pad should"),
            _err(lambda: F.avg_pool1d(ember.ones(1, 2, 3, 4), 2), RuntimeError, "2D or 3D"),
        ],
    ),
    _spec(
        "nn.functional.avg_pool2d",
        lambda x, *a, **k: F.avg_pool2d(x, *a, **k),
        np_avg_pool(2),
        FLOATING,
        _cases(
            ((1, 2, 5, 6), (2,), {}),
            ((2, 2, 7, 8), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
            ((1, 1, 5, 5), (3, 2, 1), {"ceil_mode": True}),
            ((1, 1, 5, 5), (3,), {"stride": 1, "padding": 1, "divisor_override": 5}),
            ((2, 5, 5), ((2, 3), (1, 2)), {}),
            ((1, 1, 4, 5), (2, 1), {}),
        ),
        _avg_pool_errors,
    ),
    _spec(
        "nn.functional.avg_pool3d",
        lambda x, *a, **k: F.avg_pool3d(x, *a, **k),
        np_avg_pool(3),
        FLOATING,
        _cases(
            ((1, 2, 4, 5, 6), (2,), {}),
            ((1, 1, 5, 5, 5), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
            ((1, 1, 3, 4, 4), (2,), {"divisor_override": 3}),
            ((1, 1, 2, 3, 4), ((1, 2, 2), 1), {}),
        ),
        lambda: [
            _err(lambda: F.avg_pool3d(ember.ones(1, 1, 4, 4, 4), 3, 1, 2), RuntimeError, "pad"),
            _err(lambda: F.avg_pool3d(ember.ones(2, 4, 4), 2), RuntimeError, "4D or 5D"),
        ],
    ),
    _spec(
        "adaptive_avg_pool1d",
        lambda x, o: F.adaptive_avg_pool1d(x, o),
        np_adaptive_avg(1),
        FLOATING,
        _cases(((2, 3, 9), (4,), {}), ((3, 5), (7,), {}), ((1, 1, 7), (3,), {})),
        lambda: _adaptive_errors(ember.adaptive_avg_pool1d, 1),
    ),
    _spec(
        "nn.functional.adaptive_avg_pool2d",
        lambda x, o: F.adaptive_avg_pool2d(x, o),
        np_adaptive_avg(2),
        FLOATING,
        _cases(
            ((1, 2, 7, 9), ((3, 4),), {}),
            ((2, 3, 5), (1,), {}),
            ((1, 2, 4, 6), ((None, 3),), {}),
            ((1, 1, 3, 4), ((5, 7),), {}),
            ((1, 1, 4, 5), (2,), {}),
        ),
        lambda: _adaptive_errors(ember._C._nn.adaptive_avg_pool2d, 2),
    ),
    _spec(
        "nn.functional.adaptive_avg_pool3d",
        lambda x, o: F.adaptive_avg_pool3d(x, o),
        np_adaptive_avg(3),
        FLOATING,
        _cases(((1, 2, 4, 5, 6), ((2, 3, 2),), {}), ((1, 1, 2, 3, 4), (1,), {})),
        lambda: _adaptive_errors(ember._C._nn.adaptive_avg_pool3d, 3),
    ),
    _spec(
        "adaptive_max_pool1d",
        lambda x, o: ember.adaptive_max_pool1d(x, o),
        np_adaptive_max(1),
        FLOATING,
        _cases(((2, 3, 9), (4,), {}), ((3, 5), (7,), {}), ((1, 1, 7), (3,), {})),
        lambda: _adaptive_errors(ember.adaptive_max_pool1d, 1),
    ),
    _spec(
        "nn.functional.adaptive_max_pool2d",
        lambda x, o, **k: F.adaptive_max_pool2d(x, o, **k),
        np_adaptive_max(2),
        FLOATING,
        _cases(
            ((1, 2, 7, 9), ((3, 4),), {"return_indices": True}),
            ((2, 3, 5), (1,), {"return_indices": False}),
            ((1, 1, 3, 4), ((5, None),), {"return_indices": True}),
            ((1, 1, 4, 5), (2,), {"return_indices": True}),
        ),
        lambda: _adaptive_errors(ember._C._nn.adaptive_max_pool2d, 2),
    ),
    _spec(
        "nn.functional.max_unpool2d",
        lambda x, i, *a, **k: F.max_unpool2d(x, i, *a, **k),
        np_max_unpool2d,
        ALL,
        _unpool_samples,
        _unpool_errors,
    ),
    _spec(
        "nn.functional.interpolate",
        lambda x, *a, **k: F.interpolate(x, *a, **k),
        np_interpolate,
        FLOATING,
        _cases(
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
        _interpolate_errors,
    ),
    _spec(
        "pixel_shuffle",
        lambda x, r: F.pixel_shuffle(x, r),
        np_pixel_shuffle,
        ALL,
        _cases(((1, 8, 2, 3), (2,), {}), ((2, 1, 9, 2, 2), (3,), {}), ((4, 2, 2), (2,), {})),
        _shuffle_errors,
    ),
    _spec(
        "pixel_unshuffle",
        lambda x, r: F.pixel_unshuffle(x, r),
        np_pixel_unshuffle,
        ALL,
        _cases(((1, 2, 4, 6), (2,), {}), ((3, 6, 3), (3,), {}), ((1, 1, 2, 4), (2,), {})),
        _unshuffle_errors,
    ),
    _spec(
        "nn.functional.unfold",
        lambda x, *a, **k: F.unfold(x, *a, **k),
        np_unfold,
        FLOATING,
        _cases(
            ((1, 2, 4, 5), (2,), {}),
            ((2, 1, 5, 6), ((2, 3),), {"dilation": (2, 1), "padding": 1, "stride": (2, 1)}),
            ((2, 3, 3), (2,), {}),
            ((1, 1, 3, 4), (2,), {"padding": 1, "stride": 2}),
        ),
        _unfold_errors,
    ),
    _spec(
        "nn.functional.fold",
        lambda x, *a, **k: F.fold(x, *a, **k),
        np_fold,
        FLOATING,
        _cases(
            ((1, 8, 12), ((4, 5), 2), {}),
            ((2, 6, 18), ((5, 6), (2, 3)), {"dilation": (2, 1), "padding": 1, "stride": (2, 1)}),
            ((4, 9), (4, 2), {}),
            ((1, 4, 4), ((3, 3), 2), {"padding": 1, "stride": 2}),
        ),
        _fold_errors,
    ),
]


def records():
    return RECORDS
