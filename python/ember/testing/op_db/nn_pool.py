"""Op-table records of the neural-network ops: pooling (max, average, adaptive, unpool).

The references are NumPy loops over the output positions, written from PyTorch's definitions
(output sizes, windows, ceil mode, divisors, the first index of a tied max). Samples are small;
max pooling's random values are distinct, so its gradient is defined."""

from __future__ import annotations

import math

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    ALL,
    FLOATING,
    NUMERIC,
    Fixed,
    OpSpec,
    Sample,
    adaptive_sizes,
    adaptive_windows,
    as_batched,
    error,
    input_cases,
    make_array,
    np_adaptive_avg,
    ntuple,
)

# ---- pooling references --------------------------------------------------------------------------


def _pool_out(n, k, p, s, d, ceil_mode):
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


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
        k = ntuple(kernel_size, nd)
        s = ntuple(stride, nd) if stride is not None else k
        p, d = ntuple(padding, nd), ntuple(dilation, nd)
        xb, batched = as_batched(x, nd)
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
        k = ntuple(kernel_size, nd)
        s = ntuple(stride, nd) if stride is not None else k
        p = ntuple(padding, nd)
        xb, batched = as_batched(x, nd)
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


def np_adaptive_max(nd):
    def ref(x, output_size, return_indices=True):
        xb, batched = as_batched(x, nd)
        ins, outs = xb.shape[2:], adaptive_sizes(x, output_size, nd)
        vals, idx = _unbatch(_max_over(xb, outs, adaptive_windows(ins, outs)), batched)
        return (vals, idx) if return_indices else vals

    return ref


def np_max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    k = ntuple(kernel_size, 2)
    s = ntuple(stride, 2) if stride is not None else k
    p = ntuple(padding, 2)
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


# ---- samples ------------------------------------------------------------------------------------


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


def _max_pool_errors():
    x = ember.ones(1, 2, 4, 4)
    return [
        error(lambda: F.max_pool2d(x, 3, 1, 2), RuntimeError, "pad should be at most half"),
        error(lambda: F.max_pool2d(x, 3, 1, -1), RuntimeError, "pad must be non-negative"),
        error(lambda: F.max_pool2d(x, 2, 0), RuntimeError, "stride should not be zero"),
        error(lambda: F.max_pool2d(x, 2, -1), RuntimeError, "stride should be greater than zero"),
        error(lambda: F.max_pool2d(x, 2, dilation=0), RuntimeError, "dilation should be greater"),
        error(lambda: F.max_pool2d(x, (2, 2, 2)), RuntimeError, "[max_pool2d] kernel_size must"),
        error(lambda: F.max_pool2d(ember.ones(4, 4), 2), RuntimeError, "3D or 4D"),
        error(lambda: F.max_pool2d(ember.ones(1, 0, 4, 4), 2), RuntimeError, "optional 0 dim"),
        error(lambda: F.max_pool2d(ember.ones(1, 2, 2, 2), 3), RuntimeError, "is too small"),
        error(lambda: F.max_pool2d(x, 3, 1, 2, dilation=2), RuntimeError, "half of kernel size"),
        error(lambda: F.max_pool2d(x.bool(), 2), NotImplementedError, "dtype bool"),
    ]


def _max_pool1d_errors():
    x = ember.ones(2, 8)
    return [
        error(lambda: F.max_pool1d(x, 2, 1, 2), RuntimeError, "[max_pool1d] pad should be"),
        error(lambda: F.max_pool1d(ember.ones(1, 2, 3, 4), 2), RuntimeError, "2D or 3D"),
        error(lambda: F.max_pool1d(x, 0), RuntimeError, "[max_pool1d]"),
        error(lambda: F.max_pool1d(x, 9), RuntimeError, "too small"),
    ]


def _max_pool3d_errors():
    x = ember.ones(1, 1, 4, 4, 4)
    return [
        error(lambda: F.max_pool3d(x, 3, 1, 2), RuntimeError, "[max_pool3d] pad should be"),
        error(lambda: F.max_pool3d(ember.ones(2, 4, 4), 2), RuntimeError, "4D or 5D"),
        error(lambda: F.max_pool3d(x, (2, 2)), RuntimeError, "kernel_size must be"),
    ]


def _avg_pool_errors():
    x = ember.ones(1, 2, 4, 4)
    return [
        error(lambda: F.avg_pool2d(x, 3, 1, 2), RuntimeError, "pad should be at most half"),
        error(lambda: F.avg_pool2d(x, 2, divisor_override=0), RuntimeError, "divisor must be"),
        error(lambda: F.avg_pool2d(ember.ones(1, 2, 2, 2), 3), RuntimeError, "too small"),
        error(lambda: F.avg_pool2d(ember.ones(4), 2), RuntimeError, "3D or 4D"),
        error(lambda: F.avg_pool2d(x.long(), 2), NotImplementedError, "dtype int64"),
    ]


def _adaptive_errors(fn, nd):
    name = fn.__name__
    good = ember.ones(*([1, 2] + [4] * nd))
    empty = ember.ones(*([1, 2, 0] + [4] * (nd - 1)))
    return [
        error(lambda: fn(ember.ones(*([4] * nd)), 2), RuntimeError, f"[{name}] expected a"),
        error(lambda: fn(good, -1), RuntimeError, "greater than or equal to 0"),
        error(lambda: fn(good, (2,) * (nd + 1)), RuntimeError, f"[{name}] output_size must"),
        error(lambda: fn(empty, 2), RuntimeError, "non-zero size for non-batch dimensions"),
    ]


def _unpool_errors():
    x = ember.ones(1, 1, 2, 2)
    i = ember.zeros(1, 1, 2, 2, dtype=ember.int64)
    return [
        error(lambda: F.max_unpool2d(x, i.int(), 2), RuntimeError, "should be type int64"),
        error(lambda: F.max_unpool2d(x, i[..., :1], 2), RuntimeError, "shape of indices"),
        error(lambda: F.max_unpool2d(x, i + 16, 2), RuntimeError, "invalid max index: 16"),
        error(lambda: F.max_unpool2d(x, i - 1, 2), RuntimeError, "invalid max index: -1"),
        error(lambda: F.max_unpool2d(x, i, 2, output_size=(6, 4)), ValueError, "invalid output"),
        error(lambda: F.max_unpool2d(x, i, 2, output_size=(4,)), ValueError, "2 or 4 elements"),
        error(lambda: F.max_unpool2d(ember.ones(4, 4), i[0, 0], 2), RuntimeError, "3d or 4d"),
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
        input_cases(
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
        input_cases(
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
        input_cases(
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
        input_cases(
            ((2, 3, 9), (3, 2, 1), {}),
            ((2, 3, 9), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
            ((3, 7), (2,), {}),
            ((1, 1, 8), (3, 1, 1), {}),
        ),
        lambda: [
            error(lambda: F.avg_pool1d(ember.ones(2, 8), 2, 1, 2), RuntimeError, "pad should"),
            error(lambda: F.avg_pool1d(ember.ones(1, 2, 3, 4), 2), RuntimeError, "2D or 3D"),
        ],
    ),
    _spec(
        "nn.functional.avg_pool2d",
        lambda x, *a, **k: F.avg_pool2d(x, *a, **k),
        np_avg_pool(2),
        FLOATING,
        input_cases(
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
        input_cases(
            ((1, 2, 4, 5, 6), (2,), {}),
            ((1, 1, 5, 5, 5), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
            ((1, 1, 3, 4, 4), (2,), {"divisor_override": 3}),
            ((1, 1, 2, 3, 4), ((1, 2, 2), 1), {}),
        ),
        lambda: [
            error(lambda: F.avg_pool3d(ember.ones(1, 1, 4, 4, 4), 3, 1, 2), RuntimeError, "pad"),
            error(lambda: F.avg_pool3d(ember.ones(2, 4, 4), 2), RuntimeError, "4D or 5D"),
        ],
    ),
    _spec(
        "adaptive_avg_pool1d",
        lambda x, o: F.adaptive_avg_pool1d(x, o),
        np_adaptive_avg(1),
        FLOATING,
        input_cases(((2, 3, 9), (4,), {}), ((3, 5), (7,), {}), ((1, 1, 7), (3,), {})),
        lambda: _adaptive_errors(ember.adaptive_avg_pool1d, 1),
    ),
    _spec(
        "nn.functional.adaptive_avg_pool2d",
        lambda x, o: F.adaptive_avg_pool2d(x, o),
        np_adaptive_avg(2),
        FLOATING,
        input_cases(
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
        input_cases(((1, 2, 4, 5, 6), ((2, 3, 2),), {}), ((1, 1, 2, 3, 4), (1,), {})),
        lambda: _adaptive_errors(ember._C._nn.adaptive_avg_pool3d, 3),
    ),
    _spec(
        "adaptive_max_pool1d",
        lambda x, o: ember.adaptive_max_pool1d(x, o),
        np_adaptive_max(1),
        FLOATING,
        input_cases(((2, 3, 9), (4,), {}), ((3, 5), (7,), {}), ((1, 1, 7), (3,), {})),
        lambda: _adaptive_errors(ember.adaptive_max_pool1d, 1),
    ),
    _spec(
        "nn.functional.adaptive_max_pool2d",
        lambda x, o, **k: F.adaptive_max_pool2d(x, o, **k),
        np_adaptive_max(2),
        FLOATING,
        input_cases(
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
]


def records():
    return RECORDS
