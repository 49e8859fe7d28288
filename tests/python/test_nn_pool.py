"""Pooling and resampling beyond the op table: hand-checked values (ceil mode, divisors, NaN and
tie rules), channels-last layouts kept and agreeing with NCHW, larger shapes against NumPy,
results independent of the thread count, and side-by-side checks against PyTorch (skipped
without it)."""

import warnings

import numpy as np
import pytest
from conftest import rng_for

import ember
import ember.nn.functional as F
from ember.testing.op_db import nn_pool, nn_resample
from ember.testing.op_db.spec import np_adaptive_avg

NAN = float("nan")


def t(a, dtype=ember.float32):
    return ember.tensor(a, dtype=dtype)


def channels_last(x):
    """The same values with NHWC (NDHWC) strides."""
    return x.contiguous(memory_format=_format(x))


def is_channels_last(x):
    """Exactly the strides channels_last gives (also where they describe contiguous memory)."""
    strides, step = [0] * x.dim(), x.shape[1]
    strides[1] = 1
    for d in range(x.dim() - 1, 1, -1):
        strides[d] = step
        step *= x.shape[d]
    strides[0] = step
    return tuple(x.stride()) == tuple(strides)


def _format(x):
    return ember.channels_last if x.dim() == 4 else ember.channels_last_3d


@pytest.fixture
def two_threads():
    old = ember.get_num_threads()
    yield
    ember.set_num_threads(old)


# ---- hand-checked values ------------------------------------------------------------------------


def test_max_pool_values_and_indices():
    x = ember.arange(16.0).reshape(1, 1, 4, 4)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert idx.tolist() == [[[[5, 7], [13, 15]]]]
    assert idx.dtype == ember.int64
    # padding is -inf: the corner window of a 3x3/2 pool with padding 1 sees x[0:2, 0:2]
    out = F.max_pool2d(-x, 3, 2, 1)
    assert out.tolist() == [[[[-0.0, -1.0], [-4.0, -5.0]]]]


def test_ceil_mode_keeps_windows_that_start_inside():
    # in 4, kernel 2, stride 3, pad 1: ceil would give 3 windows, but the third would start at
    # 6 - 1 = 5, past the input and its left padding, so PyTorch keeps 2.
    x = ember.arange(4.0).reshape(1, 1, 4)
    out, idx = F.max_pool1d(x, 2, 3, 1, ceil_mode=True, return_indices=True)
    assert out.tolist() == [[[0.0, 3.0]]] and idx.tolist() == [[[0, 3]]]
    assert F.avg_pool1d(ember.ones(1, 1, 4), 2, 3, 1, ceil_mode=True).tolist() == [[[0.5, 1.0]]]
    assert tuple(F.max_pool1d(ember.ones(1, 1, 4), 2, 3, 1).shape) == (1, 1, 2)


def test_nan_and_ties_follow_pytorch():
    # NaN propagates and the last NaN gives the index; equal maxima give the first index.
    x = t([[[1.0, NAN, 3.0, NAN], [2.0, 5.0, 5.0, 1.0]]])
    out, idx = F.max_pool1d(x, 4, return_indices=True)
    assert np.isnan(out[0, 0, 0].item()) and out[0, 1, 0].item() == 5.0
    assert idx.tolist() == [[[3], [1]]]
    out, idx = F.max_pool2d(t([[[[1.0, 2.0], [2.0, 1.0]]]]), 2, return_indices=True)
    assert idx.tolist() == [[[[1]]]]  # (0, 1) before (1, 0) in row-major order
    out, idx = F.max_pool2d(ember.full((1, 1, 2, 2), float("-inf")), 2, return_indices=True)
    assert out.item() == float("-inf") and idx.item() == 0
    # the same rules in the vectorised NCHW path (stride 2 splits columns) and in NHWC
    x = ember.zeros(1, 2, 6, 8)
    x[0, 0, 1, 3] = NAN
    x[0, 0, 2, 2] = NAN
    for inp in (x, channels_last(x)):
        out, idx = F.max_pool2d(inp, 3, 2, 1, return_indices=True)
        assert np.isnan(out[0, 0, 1, 1].item())
        assert idx[0, 0, 1, 1].item() == 2 * 8 + 2  # the later NaN in row-major order
        assert idx[0, 1].tolist() == [[0, 1, 3, 5], [8, 9, 11, 13], [24, 25, 27, 29]]


def test_plain_2x2_pool_of_odd_planes():
    # The float32 NCHW 2x2/2 fast path: the last row and column of an odd plane are dropped, a
    # NaN wins (the later of two), ties give the first position in row-major order.
    x = ember.zeros(2, 3, 5, 7)
    x[0, 0, 0, 1] = NAN
    x[0, 0, 1, 0] = NAN
    x[1, 2, 3, 5] = 4.0
    x[1, 2, 4, 6] = 9.0  # outside every window
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert tuple(out.shape) == (2, 3, 2, 3)
    assert np.isnan(out[0, 0, 0, 0].item()) and idx[0, 0, 0, 0].item() == 7
    assert out[1, 2].tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 4.0]]
    assert idx[1, 2].tolist() == [[0, 2, 4], [14, 16, 26]]
    xg = x.clone().requires_grad_()
    F.max_pool2d(xg, 2).sum().backward()  # the backward's int32 indices
    assert xg.grad[1, 2, 3, 5].item() == 1.0 and xg.grad[1, 2].sum().item() == 6.0


def test_windows_at_the_edges():
    # Padding wider than the input: every output reads past it (no vectorised middle part).
    x = t([[[[3.0], [1.0]]]])
    assert F.max_pool2d(x, 5, 1, 2).tolist() == [[[[3.0], [3.0]]]]
    assert F.max_pool1d(t([[[2.0, 5.0]]]), 7, 1, 3).tolist() == [[[5.0, 5.0]]]
    # A window with no input element (dilation 3 steps over both): -inf, and PyTorch's index,
    # that of its first element past the padding (2 here, outside the plane).
    out, idx = F.max_pool1d(t([[[2.0, 5.0]]]), 2, 1, 1, dilation=3, return_indices=True)
    assert out.tolist() == [[[float("-inf")]]] and idx.tolist() == [[[2]]]
    x = ember.ones(1, 1, 2, 2, requires_grad=True)
    out, idx = F.max_pool2d(x, 2, 1, 1, dilation=3, return_indices=True)
    assert idx.item() == 6  # (2, 0) in a 2x2 plane
    # nothing lands outside the plane (PyTorch 2.15 writes there and corrupts its heap)
    out.sum().backward()
    assert x.grad.tolist() == [[[[0.0, 0.0], [0.0, 0.0]]]]


def test_avg_pool_divisors():
    x = ember.ones(1, 1, 3, 3)
    with_pad = F.avg_pool2d(x, 3, 1, 1).numpy()[0, 0]
    edge, corner = 6 / 9, 4 / 9  # window parts inside the input, over 9
    assert np.allclose(with_pad, [[corner, edge, corner], [edge, 1, edge], [corner, edge, corner]])
    assert F.avg_pool2d(x, 3, 1, 1, count_include_pad=False).tolist() == [[[[1.0] * 3] * 3]]
    # a negative divisor divides too (PyTorch refuses only 0)
    assert F.avg_pool2d(ember.ones(1, 1, 2, 2), 2, divisor_override=-2).item() == -2.0
    over = F.avg_pool2d(x, 3, 1, 1, divisor_override=2).numpy()[0, 0]
    assert over.tolist() == [[2.0, 3.0, 2.0], [3.0, 4.5, 3.0], [2.0, 3.0, 2.0]]


def test_adaptive_windows():
    x = ember.arange(5.0).reshape(1, 1, 5)
    # windows [0, 2), [1, 4), [3, 5): floor(o * 5 / 3) to ceil((o + 1) * 5 / 3)
    assert F.adaptive_avg_pool1d(x, 3).tolist() == [[[0.5, 2.0, 3.5]]]
    out, idx = F.adaptive_max_pool1d(x, 3, return_indices=True)
    assert out.tolist() == [[[1.0, 3.0, 4.0]]] and idx.tolist() == [[[1, 3, 4]]]
    # None keeps that input size
    assert tuple(F.adaptive_avg_pool2d(ember.ones(1, 2, 5, 7), (None, 3)).shape) == (1, 2, 5, 3)
    # ResNet's head: the mean of each plane
    h = ember.randn(2, 3, 7, 7)
    assert np.allclose(
        F.adaptive_avg_pool2d(h, 1).numpy()[..., 0, 0], h.numpy().mean((2, 3)), atol=1e-6
    )


def test_interpolate_values():
    x = t([[[[1.0, 2.0], [3.0, 4.0]]]])
    y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    want = [
        [1, 4 / 3, 5 / 3, 2],
        [5 / 3, 2, 7 / 3, 8 / 3],
        [7 / 3, 8 / 3, 3, 10 / 3],
        [3, 10 / 3, 11 / 3, 4],
    ]
    assert np.allclose(y.numpy()[0, 0], want, atol=1e-6)
    assert F.interpolate(x, scale_factor=2).tolist()[0][0][0] == [1.0, 1.0, 2.0, 2.0]
    line = t([[[1.0, 2.0, 4.0]]])
    assert np.allclose(F.interpolate(line, size=5, mode="linear").numpy(), [[[1, 1.4, 2, 3.2, 4]]])
    # nearest takes floor(o * 5 / 3), nearest-exact the centre floor((o + 0.5) * 5 / 3)
    row = ember.arange(5.0).reshape(1, 1, 1, 5)
    assert F.interpolate(row, size=(1, 3)).tolist() == [[[[0.0, 1.0, 3.0]]]]
    assert F.interpolate(row, size=(1, 3), mode="nearest-exact").tolist() == [[[[0.0, 2.0, 4.0]]]]
    # bicubic (A = -0.75, borders repeated): values copied from PyTorch 2.15
    cubic = F.interpolate(t([[[[1.0, 2.0, 4.0, 8.0]]]]), size=(1, 3), mode="bicubic")
    assert np.allclose(cubic.numpy().ravel(), [1.1088, 2.7188, 7.4606], atol=1e-4)


def test_interpolate_scale_is_used_unless_recomputed():
    # scale 1.7 on 4 pixels: 6 outputs either way, but the coordinates map with 1 / 1.7 when
    # the scale is kept and with 4 / 6 when recomputed.
    x = ember.arange(4.0).reshape(1, 1, 4)
    kept = F.interpolate(x, scale_factor=1.7, mode="linear").numpy().ravel()
    again = F.interpolate(x, scale_factor=1.7, mode="linear", recompute_scale_factor=True)
    assert np.allclose(kept, np.clip((np.arange(6) + 0.5) / 1.7 - 0.5, 0, 3), atol=1e-6)
    assert np.allclose(again.numpy().ravel(), np.clip((np.arange(6) + 0.5) * 4 / 6 - 0.5, 0, 3))


def test_unfold_fold_roundtrip():
    x = ember.arange(12.0).reshape(1, 1, 3, 4)
    cols = F.unfold(x, 2)
    assert tuple(cols.shape) == (1, 4, 6)
    assert cols[0, 0].tolist() == [0.0, 1.0, 2.0, 4.0, 5.0, 6.0]
    # fold sums overlaps: each pixel times the number of blocks that hold it
    counts = F.fold(F.unfold(ember.ones(1, 1, 3, 4), 2), (3, 4), 2)
    assert counts.tolist() == [[[[1.0, 2.0, 2.0, 1.0], [2.0, 4.0, 4.0, 2.0], [1.0, 2.0, 2.0, 1.0]]]]


def test_pixel_shuffle_roundtrip():
    x = ember.arange(16.0).reshape(1, 4, 2, 2)
    y = F.pixel_shuffle(x, 2)
    assert y[0, 0].tolist() == [
        [0.0, 4.0, 1.0, 5.0],
        [8.0, 12.0, 9.0, 13.0],
        [2.0, 6.0, 3.0, 7.0],
        [10.0, 14.0, 11.0, 15.0],
    ]
    assert F.pixel_unshuffle(y, 2).tolist() == x.tolist()


def test_max_unpool_inverts_max_pool():
    x = ember.randn(2, 3, 6, 8)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    back = F.max_unpool2d(out, idx, 2)
    mask = back.numpy() != 0
    assert np.array_equal(back.numpy()[mask], x.numpy()[mask])
    assert mask.sum() == out.numel()


# ---- larger shapes against NumPy; layouts ---------------------------------------------------


def _np(x):
    return x.detach().double().numpy()


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_larger_shapes_match_numpy(layout):
    rng = rng_for("larger" + layout)
    xn = rng.standard_normal((2, 8, 17, 19))
    x = t(xn)
    x = channels_last(x) if layout == "nhwc" else x
    xr = x.numpy().astype(np.float64)
    for kw in (
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=(2, 4), stride=(3, 1), dilation=(2, 1), ceil_mode=True),
    ):
        out, idx = F.max_pool2d(x, return_indices=True, **kw)
        want, want_idx = nn_pool.np_max_pool(2)(xr, return_indices=True, **kw)
        assert np.array_equal(_np(out), want) and np.array_equal(idx.numpy(), want_idx)
    kw = dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
    assert np.allclose(_np(F.avg_pool2d(x, **kw)), nn_pool.np_avg_pool(2)(xr, **kw), atol=1e-5)
    assert np.allclose(
        _np(F.adaptive_avg_pool2d(x, (5, 7))), np_adaptive_avg(2)(xr, (5, 7)), atol=1e-5
    )
    vals, idx = F.adaptive_max_pool2d(x, (5, 7), return_indices=True)
    want, want_idx = nn_pool.np_adaptive_max(2)(xr, (5, 7))
    assert np.array_equal(_np(vals), want) and np.array_equal(idx.numpy(), want_idx)
    for mode in ("nearest", "bilinear", "bicubic"):
        got = F.interpolate(x, size=(23, 11), mode=mode)
        assert np.allclose(
            _np(got), nn_resample.np_interpolate(xr, (23, 11), mode=mode), atol=2e-5
        ), mode


def test_random_geometries_match_numpy():
    # Kernel, stride, padding, dilation and ceil mode drawn at random (small inputs, so windows
    # meet every edge case: padding wider than the input, empty windows, phases of the stride).
    rng = rng_for("geometries")
    checked = 0
    while checked < 40:
        nd = int(rng.integers(1, 4))
        ins = [int(rng.integers(1, 9)) for _ in range(nd)]
        k = [int(rng.integers(1, 6)) for _ in range(nd)]
        s = [int(rng.integers(1, 5)) for _ in range(nd)]
        d = [int(rng.integers(1, 4)) for _ in range(nd)]
        p = [int(rng.integers(0, kk // 2 + 1)) for kk in k]
        ceil = bool(rng.integers(0, 2))
        if min(nn_pool._pool_out(ins[i], k[i], p[i], s[i], d[i], ceil) for i in range(nd)) < 1:
            continue
        checked += 1
        xn = rng.standard_normal((2, int(rng.integers(1, 20)), *ins))
        want, want_idx = nn_pool.np_max_pool(nd)(xn, k, s, p, d, ceil, True)
        for x in (t(xn, ember.float64), channels_last(t(xn, ember.float64)) if nd > 1 else None):
            if x is None:
                continue
            out, idx = getattr(F, f"max_pool{nd}d")(x, k, s, p, d, ceil, return_indices=True)
            desc = (nd, ins, k, s, p, d, ceil)
            assert np.array_equal(out.numpy(), want) and np.array_equal(idx.numpy(), want_idx), desc


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.max_pool2d(x, 3, 2, 1),
        lambda x: F.max_pool2d(x, 2, return_indices=True)[1],
        lambda x: F.avg_pool2d(x, 3, 2, 1),
        lambda x: F.adaptive_avg_pool2d(x, 1),
        lambda x: F.adaptive_max_pool2d(x, (2, 3)),
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        lambda x: F.interpolate(x, size=(3, 5), mode="nearest"),
        lambda x: F.pixel_shuffle(x, 2),
    ],
    ids=[
        "max",
        "max indices",
        "avg",
        "adaptive avg",
        "adaptive max",
        "bilinear",
        "nearest",
        "shuffle",
    ],
)
def test_channels_last_is_kept_and_agrees(fn):
    x = ember.randn(2, 8, 6, 7)
    y, ycl = fn(x), fn(channels_last(x))
    assert is_channels_last(ycl) and not is_channels_last(y)
    assert (
        ycl.tolist() == y.tolist()
        if y.dtype == ember.int64
        else np.allclose(_np(ycl), _np(y), atol=1e-6)
    )


def test_channels_last_3d_pool():
    x = ember.randn(2, 3, 4, 5, 6)
    y, ycl = (
        F.max_pool3d(x, 2, return_indices=True),
        F.max_pool3d(channels_last(x), 2, return_indices=True),
    )
    assert is_channels_last(ycl[0]) and ycl[1].tolist() == y[1].tolist()
    assert np.allclose(_np(F.avg_pool3d(channels_last(x), 2)), _np(F.avg_pool3d(x, 2)))


def _grads(fn, x):
    x = x.detach().requires_grad_()
    y = fn(x)
    y = y[0] if isinstance(y, tuple) else y
    g = ember.arange(float(y.numel())).reshape(*y.shape) / 7
    (gx,) = ember.autograd.grad(y, x, g)
    return gx


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.max_pool2d(x, 3, 2, 1),
        lambda x: F.max_pool2d(x, 3, 1, 1, return_indices=True),
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
        lambda x: F.adaptive_avg_pool2d(x, (4, 3)),
        lambda x: F.adaptive_max_pool2d(x, (4, 3)),
        lambda x: F.interpolate(x, size=(9, 5), mode="bicubic", align_corners=True),
        lambda x: F.interpolate(x, scale_factor=2),
    ],
    ids=["max", "max indices", "avg", "adaptive avg", "adaptive max", "bicubic", "nearest"],
)
def test_backward_same_in_both_layouts_and_thread_counts(fn, two_threads):
    # N = 1 and 48 channels: on two threads the NHWC backward splits the channels in blocks.
    x = ember.randn(1, 48, 7, 6)
    ember.set_num_threads(1)
    base = _grads(fn, x)
    ember.set_num_threads(2)
    assert _grads(fn, x).tolist() == base.tolist()
    for n in (1, 2):
        ember.set_num_threads(n)
        gcl = _grads(fn, channels_last(x))
        assert np.allclose(_np(gcl), _np(base), atol=1e-5)


def test_max_pool_backward_and_its_backward():
    # The returned indices are int64 with or without grad (the ones kept for backward are not
    # shown); the gradient goes to the max, and the gradient's own gradient with respect to the
    # output gradient gathers at the same indices.
    x = ember.randn(1, 2, 6, 6, requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert idx.dtype == ember.int64 and out.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    gout = ember.randn(1, 2, 3, 3, requires_grad=True)
    (gx,) = ember.autograd.grad(out, x, gout, create_graph=True)
    flat = gx.detach().numpy().reshape(2, 36)
    want = np.zeros((2, 36))
    np.put_along_axis(want, idx.numpy().reshape(2, 9), gout.detach().numpy().reshape(2, 9), 1)
    assert np.array_equal(flat, want)
    w = ember.arange(72.0).reshape(1, 2, 6, 6)
    (ggout,) = ember.autograd.grad((gx * w).sum(), gout)
    assert np.array_equal(
        ggout.numpy().reshape(2, 9),
        np.take_along_axis(w.numpy().reshape(2, 36), idx.numpy().reshape(2, 9), 1),
    )


def test_zero_batch_and_unbatched():
    y = F.max_pool2d(ember.ones(0, 2, 4, 4, requires_grad=True), 2)
    assert tuple(y.shape) == (0, 2, 2, 2)
    y.sum().backward()
    z = F.avg_pool2d(channels_last(ember.randn(1, 3, 4, 4))[0], 2)  # a 3-d input stays NCHW-ordered
    assert tuple(z.shape) == (3, 2, 2) and z.is_contiguous()


def test_deprecated_upsample_aliases_warn():
    x = ember.ones(1, 1, 2, 2)
    with pytest.warns(UserWarning, match="deprecated"):
        y = F.upsample_bilinear(x, scale_factor=2)
    assert tuple(y.shape) == (1, 1, 4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.upsample_nearest(x, size=3).tolist()[0][0][0] == [1.0, 1.0, 1.0]


def test_error_messages_name_the_op():
    with pytest.raises(RuntimeError, match=r"^\[max_pool2d\] pad should be at most half"):
        F.max_pool2d(ember.ones(1, 1, 4, 4), 3, 1, 2)
    with pytest.raises(RuntimeError, match=r"^\[avg_pool2d\] divisor must be not zero"):
        F.avg_pool2d(ember.ones(1, 1, 4, 4), 2, divisor_override=0)
    with pytest.raises(ValueError, match=r"^\[interpolate\] either size or scale_factor"):
        F.interpolate(ember.ones(1, 1, 4, 4))
    with pytest.raises(RuntimeError, match=r"^\[fold\] expected size of input's dimension 1"):
        F.fold(ember.ones(1, 7, 4), 3, 2)


# ---- against PyTorch ----------------------------------------------------------------------------


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    rng = rng_for("torch")
    xn = rng.standard_normal((2, 4, 9, 10)).astype(np.float32)
    xn[0, 0, 3, 4] = np.nan
    ties = rng.integers(0, 3, (2, 4, 9, 10)).astype(np.float32)
    cases = [
        ("max_pool2d", dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
        (
            "max_pool2d",
            dict(
                kernel_size=(2, 3),
                stride=(1, 2),
                dilation=(2, 1),
                ceil_mode=True,
                return_indices=True,
            ),
        ),
        (
            "avg_pool2d",
            dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        ),
        ("avg_pool2d", dict(kernel_size=(3, 2), stride=1, padding=(1, 0), divisor_override=4)),
        ("adaptive_max_pool2d", dict(output_size=(4, 6), return_indices=True)),
        ("adaptive_avg_pool2d", dict(output_size=(4, 6))),
        ("interpolate", dict(scale_factor=1.5, mode="bicubic")),
        ("interpolate", dict(size=(5, 13), mode="bilinear", align_corners=True)),
        ("interpolate", dict(scale_factor=(0.6, 1.3), mode="nearest-exact")),
        ("interpolate", dict(scale_factor=(2.2, 0.8), mode="nearest")),
        ("interpolate", dict(size=(4, 3), mode="area")),
    ]
    for data in (xn, ties):
        for layout in ("nchw", "nhwc"):
            for name, kw in cases:
                ex = ember.from_numpy(data.copy())
                ex = channels_last(ex) if layout == "nhwc" else ex
                ex.requires_grad_()
                tx = torch.from_numpy(data.copy()).requires_grad_()
                ey, ty = getattr(F, name)(ex, **kw), getattr(tf, name)(tx, **kw)
                if isinstance(ty, tuple):
                    assert np.array_equal(ey[1].numpy(), ty[1].numpy()), (name, kw, layout)
                    ey, ty = ey[0], ty[0]
                assert np.allclose(
                    ey.detach().numpy(), ty.detach().numpy(), atol=1e-5, equal_nan=True
                ), (name, kw)
                g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
                ey.backward(ember.from_numpy(g))
                ty.backward(torch.from_numpy(g))
                assert np.allclose(ex.grad.numpy(), tx.grad.numpy(), atol=1e-4), (name, kw, layout)
