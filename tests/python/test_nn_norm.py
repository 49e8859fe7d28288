"""Normalisation and dropout: what the op table cannot express. Running-stat updates against
NumPy, evaluation mode, channels-last layouts, larger shapes that take every kernel path (several
runs per plane, blocks of rows, channel counts that are no multiple of the vector width),
gradients of the fused backward kernels against NumPy, results independent of the thread count,
dropout's mask statistics, seeding, in-place forms and errors; and side by side with PyTorch when
it is installed."""

import warnings

import numpy as np
import pytest
from conftest import rng_for

import ember
import ember.nn.functional as F


def t(a, dtype=ember.float64):
    return ember.tensor(np.asarray(a).tolist(), dtype=dtype)


def channels_last(a, dtype=ember.float32):
    """The array as an ember tensor with channels-last strides (C innermost)."""
    fmt = ember.channels_last if a.ndim == 4 else ember.channels_last_3d
    return t(a, dtype).to(memory_format=fmt)


def np_bn(x, w, b, mean, var, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(
        shape
    ) + b.reshape(shape)


def np_bn_grads(x, w, g, eps, train=True, mean=None, var=None):
    """dx, dw, db of batch norm in float64 (the textbook formulas)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    m = x.size // x.shape[1]
    if train:
        mean, var = x.mean(axes), x.var(axes)
    invstd = 1 / np.sqrt(var + eps)
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    gw = g * w.reshape(shape)
    if train:
        dx = invstd.reshape(shape) * (
            gw - gw.sum(axes).reshape(shape) / m - xhat * (gw * xhat).sum(axes).reshape(shape) / m
        )
    else:
        dx = gw * invstd.reshape(shape)
    return dx, (g * xhat).sum(axes), g.sum(axes)


# ---- batch norm ----------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6, 4), (3, 5, 7), (2, 3, 4, 5), (2, 3, 2, 3, 2)])
def test_batch_norm_running_stats_follow_numpy(shape):
    rng = rng_for(f"running{shape}")
    c = shape[1]
    rm0, rv0 = rng.uniform(-1, 1, c), rng.uniform(0.5, 2, c)
    rm, rv = t(rm0), t(rv0)
    axes = (0,) + tuple(range(2, len(shape)))
    n = np.prod(shape) // c
    want_m, want_v = rm0.copy(), rv0.copy()
    for step, momentum in enumerate([0.1, 0.5, 1.0]):
        x = rng.normal(step, 2.0, shape)
        w, b = rng.normal(size=c), rng.normal(size=c)
        y = F.batch_norm(t(x), rm, rv, t(w), t(b), training=True, momentum=momentum, eps=1e-3)
        np.testing.assert_allclose(
            y.numpy(), np_bn(x, w, b, x.mean(axes), x.var(axes), 1e-3), rtol=1e-10, atol=1e-10
        )
        want_m = (1 - momentum) * want_m + momentum * x.mean(axes)
        want_v = (1 - momentum) * want_v + momentum * x.var(axes) * n / (n - 1)
        np.testing.assert_allclose(rm.numpy(), want_m, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rv.numpy(), want_v, rtol=1e-12, atol=1e-12)
    # Evaluation normalises with the running stats and leaves them alone.
    x = rng.normal(size=shape)
    y = F.batch_norm(t(x), rm, rv, None, None, training=False, eps=1e-3)
    np.testing.assert_allclose(
        y.numpy(), np_bn(x, np.ones(c), np.zeros(c), want_m, want_v, 1e-3), rtol=1e-10
    )
    np.testing.assert_allclose(rm.numpy(), want_m, rtol=1e-12)


def test_batch_norm_running_stats_of_other_layouts_and_dtypes():
    rng = rng_for("running-dtypes")
    x = rng.normal(1.0, 3.0, (8, 3, 4))
    # A non-contiguous running stat (every other element) and bfloat16 input with float32 stats.
    storage = ember.zeros(6, dtype=ember.float64)
    rm = storage[::2]
    rv = ember.ones(3, dtype=ember.float64)
    F.batch_norm(t(x), rm, rv, training=True, momentum=0.25)
    np.testing.assert_allclose(rm.numpy(), 0.25 * x.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(storage.numpy()[1::2], 0.0)
    xb = t(x, ember.float32).to(ember.bfloat16)
    rm32, rv32 = ember.zeros(3), ember.ones(3)
    y = F.batch_norm(xb, rm32, rv32, training=True, momentum=1.0)
    assert y.dtype == ember.bfloat16 and rm32.dtype == ember.float32
    xr = xb.float().numpy().astype(np.float64)
    np.testing.assert_allclose(rm32.numpy(), xr.mean((0, 2)), rtol=1e-6)
    np.testing.assert_allclose(rv32.numpy(), xr.var((0, 2), ddof=1), rtol=1e-5)
    # The running stats' versions move, so a saved copy would notice.
    v = rv32._version
    F.batch_norm(xb, rm32, rv32, training=True)
    assert rv32._version > v


def test_batch_norm_without_running_stats_and_eval_saves_a_copy():
    rng = rng_for("no-running")
    x = rng.normal(size=(5, 3, 4))
    y = F.batch_norm(t(x), None, None, training=True)
    np.testing.assert_allclose(
        y.numpy(), np_bn(x, np.ones(3), np.zeros(3), x.mean((0, 2)), x.var((0, 2)), 1e-5), rtol=1e-9
    )
    # Eval backward uses the stats of its forward even if a training step changes them first.
    rm, rv = t(rng.normal(size=3)), t(rng.uniform(1, 2, 3))
    rm0, rv0 = rm.numpy().copy(), rv.numpy().copy()
    xg = t(x).requires_grad_()
    w = t(rng.normal(size=3)).requires_grad_()
    out = F.batch_norm(xg, rm, rv, w, None, training=False)
    F.batch_norm(t(x), rm, rv, training=True, momentum=1.0)
    g = rng.normal(size=x.shape)
    out.backward(t(g))
    dx, dw, _ = np_bn_grads(x, w.detach().numpy(), g, 1e-5, train=False, mean=rm0, var=rv0)
    np.testing.assert_allclose(xg.grad.numpy(), dx, rtol=1e-9)
    np.testing.assert_allclose(w.grad.numpy(), dw, rtol=1e-9)


@pytest.mark.parametrize(
    "shape",
    [
        (3, 5, 131, 130),  # planes of 17030 values: two runs each
        (4000, 37),  # rows of 37 channels (no multiple of the vector width), 3 blocks
        (2, 70, 15, 17),  # planar
    ],
)
def test_batch_norm_larger_shapes_forward_and_backward(shape):
    rng = rng_for(f"bn-large{shape}")
    c = shape[1]
    x = rng.normal(2.0, 1.5, shape).astype(np.float32)
    w, b = rng.normal(size=c).astype(np.float32), rng.normal(size=c).astype(np.float32)
    g = rng.normal(size=shape).astype(np.float32)
    xe = ember.from_numpy(x).requires_grad_()
    we, be = ember.from_numpy(w).requires_grad_(), ember.from_numpy(b).requires_grad_()
    y = F.batch_norm(xe, None, None, we, be, training=True)
    x64, w64, g64 = x.astype(np.float64), w.astype(np.float64), g.astype(np.float64)
    axes = (0,) + tuple(range(2, len(shape)))
    np.testing.assert_allclose(
        y.detach().numpy(),
        np_bn(x64, w64, b, x64.mean(axes), x64.var(axes), 1e-5),
        rtol=1e-4,
        atol=2e-5,
    )
    y.backward(ember.from_numpy(g))
    dx, dw, db = np_bn_grads(x64, w64, g64, 1e-5)
    np.testing.assert_allclose(xe.grad.numpy(), dx, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(we.grad.numpy(), dw, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(be.grad.numpy(), db, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shape", [(2, 19, 5, 6), (2, 64, 3, 4), (3, 70, 3, 3), (2, 3, 2, 3, 4)])
def test_batch_norm_channels_last_keeps_layout_and_values(shape):
    rng = rng_for(f"cl{shape}")
    c = shape[1]
    x = rng.normal(size=shape)
    w, b, g = rng.normal(size=c), rng.normal(size=c), rng.normal(size=shape)
    for training in (True, False):
        rm, rv = ember.zeros(c), ember.ones(c)
        rm2, rv2 = ember.zeros(c), ember.ones(c)
        xc = channels_last(x).requires_grad_()
        xn = ember.from_numpy(x.astype(np.float32)).requires_grad_()
        we, we2 = (ember.from_numpy(w.astype(np.float32)).requires_grad_() for _ in range(2))
        yc = F.batch_norm(xc, rm, rv, we, t(b, ember.float32), training=training)
        yn = F.batch_norm(xn, rm2, rv2, we2, t(b, ember.float32), training=training)
        assert yc.stride() == xc.stride(), (yc.stride(), xc.stride())
        np.testing.assert_allclose(yc.detach().numpy(), yn.detach().numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(rv.numpy(), rv2.numpy(), rtol=1e-6)
        yc.backward(channels_last(g))
        yn.backward(ember.from_numpy(g.astype(np.float32)))
        np.testing.assert_allclose(xc.grad.numpy(), xn.grad.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(we.grad.numpy(), we2.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_norms_do_not_depend_on_thread_count():
    rng = rng_for("threads")
    x = rng.normal(size=(4, 24, 40, 40)).astype(np.float32)
    g = rng.normal(size=x.shape).astype(np.float32)
    threads = ember.get_num_threads()

    def run():
        outs = []
        for xe in (ember.from_numpy(x), channels_last(x)):
            xe = xe.detach().requires_grad_()
            w = ember.ones(24, requires_grad=True)
            rm, rv = ember.zeros(24), ember.ones(24)
            y = F.batch_norm(xe, rm, rv, w, None, training=True)
            y.backward(ember.from_numpy(g) if xe.is_contiguous() else channels_last(g))
            outs += [y, xe.grad, w.grad, rv]
        xl = ember.from_numpy(x.reshape(-1, 1600)).requires_grad_()
        wl = ember.ones(1600, requires_grad=True)
        yl = F.layer_norm(xl, [1600], wl)
        yl.backward(ember.from_numpy(g.reshape(-1, 1600)))
        xg = ember.from_numpy(x).requires_grad_()
        yg = F.group_norm(xg, 6)
        yg.backward(ember.from_numpy(g))
        ember.manual_seed(5)
        outs += [yl, xl.grad, wl.grad, yg, xg.grad, F.dropout(ember.from_numpy(x), 0.4)]
        return [o.detach().numpy().tobytes() for o in outs]

    try:
        ember.set_num_threads(1)
        one = run()
        ember.set_num_threads(2)
        two = run()
    finally:
        ember.set_num_threads(threads)
    assert one == two


# ---- layer norm, group norm, instance norm ------------------------------------------------------


@pytest.mark.parametrize("shape,k", [((1100, 64), 1), ((2, 3, 20000), 1), ((4, 6, 50), 2)])
def test_layer_norm_larger_shapes_forward_and_backward(shape, k):
    rng = rng_for(f"ln{shape}")
    nshape = shape[len(shape) - k :]
    x = rng.normal(1.0, 2.0, shape).astype(np.float32)
    w, b = rng.normal(size=nshape).astype(np.float32), rng.normal(size=nshape).astype(np.float32)
    g = rng.normal(size=shape).astype(np.float32)
    xe = ember.from_numpy(x).requires_grad_()
    we, be = ember.from_numpy(w).requires_grad_(), ember.from_numpy(b).requires_grad_()
    y = F.layer_norm(xe, list(nshape), we, be, eps=1e-5)
    axes = tuple(range(len(shape) - k, len(shape)))
    lead = tuple(range(len(shape) - k))
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    rs = 1 / np.sqrt(x64.var(axes, keepdims=True) + 1e-5)
    xhat = (x64 - x64.mean(axes, keepdims=True)) * rs
    np.testing.assert_allclose(y.detach().numpy(), xhat * w + b, rtol=1e-4, atol=3e-5)
    y.backward(ember.from_numpy(g))
    gw = g64 * w
    n = np.prod(nshape)
    dx = rs * (
        gw - gw.sum(axes, keepdims=True) / n - xhat * (gw * xhat).sum(axes, keepdims=True) / n
    )
    np.testing.assert_allclose(xe.grad.numpy(), dx, rtol=1e-3, atol=2e-5)
    np.testing.assert_allclose(we.grad.numpy(), (g64 * xhat).sum(lead), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(be.grad.numpy(), g64.sum(lead), rtol=1e-4, atol=1e-3)


def test_group_norm_larger_shape_and_channels_last():
    rng = rng_for("gn")
    x = rng.normal(size=(3, 12, 9, 10))
    w, b, g = rng.normal(size=12), rng.normal(size=12), rng.normal(size=x.shape)
    xe, we = t(x).requires_grad_(), t(w).requires_grad_()
    y = F.group_norm(xe, 4, we, t(b), eps=1e-4)
    xr = x.reshape(3, 4, -1)
    rs = 1 / np.sqrt(xr.var(2, keepdims=True) + 1e-4)
    xhat = ((xr - xr.mean(2, keepdims=True)) * rs).reshape(x.shape)
    wb = w.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(y.detach().numpy(), xhat * wb + b.reshape(1, -1, 1, 1), rtol=1e-10)
    y.backward(t(g))
    gwr = (g * wb).reshape(3, 4, -1)
    xhr = xhat.reshape(3, 4, -1)
    k = xr.shape[2]
    dx = rs * (gwr - gwr.sum(2, keepdims=True) / k - xhr * (gwr * xhr).sum(2, keepdims=True) / k)
    np.testing.assert_allclose(xe.grad.numpy(), dx.reshape(x.shape), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(we.grad.numpy(), (g * xhat).sum((0, 2, 3)), rtol=1e-10)
    # A channels-last input keeps its layout (as in PyTorch).
    yc = F.group_norm(channels_last(x, ember.float64), 4, t(w), t(b), eps=1e-4)
    assert yc.stride() == (1080, 1, 120, 12)
    np.testing.assert_allclose(yc.numpy(), y.detach().numpy(), rtol=1e-12)


def test_instance_norm_running_stats_average_the_samples():
    rng = rng_for("instance")
    x = rng.normal(size=(4, 3, 10))
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    y = F.instance_norm(t(x), rm, rv, momentum=0.3)
    mean, var = x.mean(2, keepdims=True), x.var(2, keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-10)
    np.testing.assert_allclose(rm.numpy(), 0.3 * x.mean(2).mean(0), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.7 + 0.3 * x.var(2, ddof=1).mean(0), rtol=1e-12)
    # Channels-last input gives a contiguous output (as in PyTorch).
    x4 = rng.normal(size=(2, 3, 4, 5))
    y4 = F.instance_norm(channels_last(x4, ember.float64))
    assert y4.is_contiguous()


def test_local_response_norm_formula():
    # One sample, channels [1, 2, 3], size 2: windows {pad, 1}, {1, 2}, {2, 3} (PyTorch pads
    # size // 2 = 1 channel before and (size - 1) // 2 = 0 after).
    x = t([[[1.0], [2.0], [3.0]]])
    y = F.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=1.0)
    sums = np.array([1.0, 5.0, 13.0])
    np.testing.assert_allclose(y.numpy().ravel(), np.array([1.0, 2.0, 3.0]) / (1 + sums / 2))


# ---- dropout -------------------------------------------------------------------------------------


def test_dropout_mask_statistics_and_scale():
    x = ember.ones(200000)
    for p in (0.1, 0.5, 0.9):
        y = F.dropout(x, p).numpy()
        kept = y != 0
        assert abs(kept.mean() - (1 - p)) < 0.01, (p, kept.mean())
        np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)
    # Consecutive elements are not correlated (each group of 64 uses 16 Philox blocks).
    y = F.dropout(x, 0.5).numpy() != 0
    assert abs(np.mean(y[1:] == y[:-1]) - 0.5) < 0.01


def test_dropout_seeding_gradient_and_in_place():
    rng = rng_for("dropout")
    x = rng.normal(size=(7, 33))
    ember.manual_seed(3)
    a = F.dropout(t(x), 0.3)
    ember.manual_seed(3)
    b = F.dropout(t(x), 0.3)
    assert a.tolist() == b.tolist()
    assert F.dropout(t(x), 0.3).tolist() != a.tolist()  # the generator moved on
    # The backward regenerates the forward's mask.
    xe = t(x).requires_grad_()
    ember.manual_seed(9)
    y = F.dropout(xe, 0.3)
    mask = y.detach().numpy() != 0
    g = rng.normal(size=x.shape)
    y.backward(t(g))
    np.testing.assert_allclose(xe.grad.numpy(), np.where(mask, g / 0.7, 0.0), rtol=1e-15)
    # In place: the same values, into the same tensor.
    ember.manual_seed(9)
    z = t(x)
    r = F.dropout(z, 0.3, inplace=True)
    assert r is z
    np.testing.assert_array_equal(z.numpy(), y.detach().numpy())
    # In place under autograd (a non-leaf), and on a non-contiguous tensor.
    base = t(x).requires_grad_()
    h = base * 1.0
    ember.manual_seed(9)
    F.dropout(h, 0.3, inplace=True)
    h.backward(t(g))
    np.testing.assert_allclose(base.grad.numpy(), xe.grad.numpy(), rtol=1e-15)
    nc = t(x.T).t()
    assert not nc.is_contiguous()
    F.dropout(nc, 0.5, inplace=True)
    kept = nc.numpy() != 0
    np.testing.assert_allclose(nc.numpy()[kept], 2 * x[kept])


def test_dropout_edge_cases():
    x = t([1.0, float("nan"), float("inf"), -2.0])
    # Nothing to drop: the input itself, as in PyTorch.
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.7, training=False) is x
    x4 = ember.ones(2, 3, 2, 2)
    assert F.dropout2d(x4, 0.0) is x4 and F.alpha_dropout(x, 0.5) is x
    y = F.dropout(x, 1.0).numpy()
    # p = 1 multiplies by zero, as PyTorch: NaN and inf stay NaN.
    assert y[0] == 0 and np.isnan(y[1]) and np.isnan(y[2]) and y[3] == 0
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            F.dropout(x, p)
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            ember.dropout(x, p, True)
    with pytest.raises(TypeError, match="floating"):
        ember.dropout(ember.ones(3, dtype=ember.int64), 0.5, True)
    # Evaluation mode returns integer input untouched, as PyTorch.
    assert ember.dropout(ember.ones(3, dtype=ember.int64), 0.5, False).tolist() == [1, 1, 1]
    xc = channels_last(np.ones((2, 3, 4, 5)))
    assert F.dropout(xc, 0.5).stride() == xc.stride()


def test_feature_dropout_drops_whole_channels():
    x = ember.ones(8, 16, 5, 5)
    y = F.dropout2d(x, 0.5).numpy().reshape(8, 16, -1)
    per_plane = y.min(-1) == y.max(-1)
    assert per_plane.all()
    assert set(np.unique(y)) == {0.0, 2.0}
    y3 = F.dropout3d(ember.ones(4, 6, 2, 2, 2), 0.5).numpy().reshape(4, 6, -1)
    assert (y3.min(-1) == y3.max(-1)).all()
    y1 = F.dropout1d(ember.ones(4, 6, 7), 0.5).numpy()
    assert (y1.min(-1) == y1.max(-1)).all()
    # Unbatched (C, L) input: channels are dim 0; in place under autograd too.
    base = ember.ones(6, 7, requires_grad=True)
    h = base * 1.0
    r = F.dropout1d(h, 0.5, inplace=True)
    assert r is h and tuple(h.shape) == (6, 7)
    v = h.detach().numpy()
    assert (v.min(1) == v.max(1)).all()
    h.sum().backward()
    np.testing.assert_array_equal(base.grad.numpy(), v)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(ember.ones(2, 3, 4, 5))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.dropout2d(ember.ones(2, 3, 4))
    assert any("assuming that channel-wise 1D dropout" in str(m.message) for m in w)


def test_alpha_dropout_keeps_mean_and_variance():
    x = ember.randn(400000)
    for fn in (F.alpha_dropout, F.feature_alpha_dropout):
        inp = x if fn is F.alpha_dropout else x.reshape(20000, 20)
        y = fn(inp, 0.2, training=True).numpy()
        assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03, (y.mean(), y.var())
        dropped = np.isclose(
            y, -1.7580993408473766 * (1 / np.sqrt((1.7580993408473766**2 * 0.2 + 1) * 0.8)) * 0.8
        )
        assert abs(dropped.mean() - 0.2) < 0.01
    assert F.alpha_dropout(x, 0.2).tolist() == x.tolist()  # training defaults to False


# ---- side by side with PyTorch -------------------------------------------------------------------


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    rng = rng_for("torch")

    def both(a):
        return t(a, ember.float64), torch.from_numpy(np.array(a, dtype=np.float64))

    x, xt = both(rng.normal(size=(3, 6, 5, 4)))
    w, wt = both(rng.normal(size=6))
    b, bt = both(rng.normal(size=6))
    cases = [
        (F.batch_norm(x, None, None, w, b, True), tf.batch_norm(xt, None, None, wt, bt, True)),
        (F.group_norm(x, 3, w, b), tf.group_norm(xt, 3, wt, bt)),
        (F.instance_norm(x, weight=w, bias=b), tf.instance_norm(xt, weight=wt, bias=bt)),
        (F.layer_norm(x, [5, 4]), tf.layer_norm(xt, [5, 4])),
        (F.rms_norm(x, [4], x[0, 0, 0]), tf.rms_norm(xt, [4], xt[0, 0, 0])),
        (F.local_response_norm(x, 3, 0.5, 0.6, 1.5), tf.local_response_norm(xt, 3, 0.5, 0.6, 1.5)),
        (F.local_response_norm(x[:, :, 0], 4), tf.local_response_norm(xt[:, :, 0], 4)),
        (F.normalize(x, 3.0, -1), tf.normalize(xt, 3.0, -1)),
    ]
    for got, want in cases:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    # rms_norm's default eps is float32's machine epsilon for float32 input.
    x32 = rng.normal(scale=1e-4, size=(3, 8)).astype(np.float32)
    np.testing.assert_allclose(
        F.rms_norm(ember.from_numpy(x32), [8]).numpy(),
        tf.rms_norm(torch.from_numpy(x32), [8]).numpy(),
        rtol=1e-5,
    )
    rm, rv = ember.zeros(6, dtype=ember.float64), ember.ones(6, dtype=ember.float64)
    rmt, rvt = torch.zeros(6, dtype=torch.float64), torch.ones(6, dtype=torch.float64)
    for momentum in (0.1, 0.9):
        F.batch_norm(x, rm, rv, training=True, momentum=momentum)
        tf.batch_norm(xt, rmt, rvt, training=True, momentum=momentum)
        F.instance_norm(x, rm, rv, momentum=momentum)
        tf.instance_norm(xt, rmt, rvt, momentum=momentum)
    np.testing.assert_allclose(rm.numpy(), rmt.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), rvt.numpy(), rtol=1e-12)
