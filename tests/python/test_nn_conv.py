"""Convolutions, linear and bilinear beyond the op table: float32 (oneDNN) at sizes that take its
blocked, channels-last and 1x1 gemm paths against float64 NumPy, float32 gradients against the
float64 reference kernels, channels-last layouts kept, 'same' padding by hand, transposed
convolutions' output_padding, empty tensors, thread counts; PyTorch side by side when installed."""

import numpy as np
import pytest
from conftest import rng_for

import ember
import ember.nn.functional as F
from ember.testing.op_db import OP_DB

# The float64 NumPy references of the op table (op_db/nn_conv.py).
np_conv = OP_DB["conv2d"].ref
np_conv_transpose = OP_DB["conv_transpose2d"].ref


def channels_last(t):
    """The same values in NHWC (NDHWC) memory."""
    fmt = ember.channels_last if t.dim() == 4 else ember.channels_last_3d
    return t.contiguous(memory_format=fmt)


def is_channels_last(t):
    """Strides of dense NHWC / NDHWC memory, and not (also) of plain contiguous memory."""
    fmt = ember.channels_last if t.dim() == 4 else ember.channels_last_3d
    return t.is_contiguous(memory_format=fmt) and not t.is_contiguous()


def tensor(a, dtype=ember.float32, cl=False, grad=False):
    t = ember.from_numpy(np.ascontiguousarray(a)).to(dtype)
    if cl:
        t = channels_last(t)
    return t.requires_grad_(grad)


def assert_close_f32(got, want, terms):
    """float32 sums of `terms` products of values in [-1, 1]: each rounding errs by at most
    6e-8 of a partial sum, so 1e-6 per term bounds the error with room; a wrong tap, channel or
    group is off by O(1)."""
    np.testing.assert_allclose(got.detach().double().numpy(), want, rtol=0, atol=1e-6 * terms)


# (N, C, O, spatial size, kernel, kwargs): the paths oneDNN takes.
CONV2D_CASES = [
    ((2, 16, 24, (9, 9), (3, 3)), {"padding": 1}),  # blocked jit
    ((2, 16, 16, (11, 10), (3, 3)), {"stride": 2, "padding": (1, 2), "dilation": (2, 1)}),
    ((2, 32, 32, (8, 8), (3, 3)), {"padding": 1, "groups": 32}),  # depthwise
    ((1, 32, 32, (9, 9), (3, 3)), {"stride": 2, "padding": 1, "groups": 32}),
    ((2, 16, 32, (6, 6), (3, 3)), {"padding": 1, "groups": 4}),
    ((1, 8, 16, (32, 32), (1, 1)), {}),  # 1x1 over >= 1024 pixels: the NCHW gemm path
    ((1, 3, 16, (20, 20), (7, 7)), {"stride": 2, "padding": 3}),  # a 3-channel stem
    ((2, 16, 16, (7, 8), (2, 4)), {"padding": "same"}),  # even kernels: asymmetric padding
]


@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("case", CONV2D_CASES, ids=lambda c: str(c[1]))
def test_float32_conv2d_matches_numpy(case, cl):
    (n, c, o, size, k), kw = case
    rng = rng_for(f"conv2d{case}{cl}")
    groups = kw.get("groups", 1)
    x = rng.uniform(-1, 1, (n, c, *size))
    w = rng.uniform(-1, 1, (o, c // groups, *k))
    b = rng.uniform(-1, 1, o)
    y = F.conv2d(tensor(x, cl=cl), tensor(w), tensor(b), **kw)
    assert is_channels_last(y) == cl or min(y.shape[2:]) == 1
    assert_close_f32(y, np_conv(x, w, b, **kw), c // groups * k[0] * k[1])


@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("case", CONV2D_CASES[:6], ids=lambda c: str(c[1]))
def test_float32_gradients_match_float64_reference(case, cl):
    """oneDNN's backward_data and backward_weights (float32) against the im2col kernels
    (float64), themselves checked against finite differences by the op table."""
    (n, c, o, size, k), kw = case
    rng = rng_for(f"conv2d grad{case}{cl}")
    groups = kw.get("groups", 1)
    x = rng.uniform(-1, 1, (n, c, *size))
    w = rng.uniform(-1, 1, (o, c // groups, *k))
    b = rng.uniform(-1, 1, o)
    grads = {}
    for dtype in (ember.float32, ember.float64):
        xs, ws, bs = tensor(x, dtype, cl, True), tensor(w, dtype, False, True), tensor(b, dtype)
        bs.requires_grad_(True)
        y = F.conv2d(xs, ws, bs, **kw)
        gy = tensor(rng_for("gy").uniform(-1, 1, tuple(y.shape)), dtype, cl)
        y.backward(gy)
        grads[dtype] = (xs.grad, ws.grad, bs.grad)
    terms = (o // groups) * k[0] * k[1]  # the longest sum: the input gradient's or the weight's
    terms = max(terms, n * int(np.prod(y.shape[2:])))
    for got, want in zip(grads[ember.float32], grads[ember.float64]):
        assert_close_f32(got, want.numpy(), terms)


def test_float32_conv1d_conv3d_and_transposed_match_numpy():
    rng = rng_for("nd")
    x1, w1, b1 = (
        rng.uniform(-1, 1, (2, 16, 20)),
        rng.uniform(-1, 1, (8, 8, 3)),
        rng.uniform(-1, 1, 8),
    )
    kw = {"stride": 2, "padding": 2, "dilation": 2, "groups": 2}
    y = F.conv1d(tensor(x1), tensor(w1), tensor(b1), **kw)
    assert_close_f32(y, np_conv(x1, w1, b1, **kw), 24)

    x3, w3 = rng.uniform(-1, 1, (1, 16, 5, 6, 5)), rng.uniform(-1, 1, (16, 16, 3, 3, 3))
    for cl in (False, True):
        y = F.conv3d(tensor(x3, cl=cl), tensor(w3), padding=1)
        assert is_channels_last(y) == cl
        assert_close_f32(y, np_conv(x3, w3, padding=1), 16 * 27)

    xt, wt, bt = (
        rng.uniform(-1, 1, (2, 16, 5, 6)),
        rng.uniform(-1, 1, (16, 4, 3, 3)),
        rng.uniform(-1, 1, 8),
    )
    kw = {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}
    for cl in (False, True):
        y = F.conv_transpose2d(tensor(xt, cl=cl), tensor(wt), tensor(bt), **kw)
        assert tuple(y.shape) == (2, 8, 10, 12)
        assert is_channels_last(y) == cl
        assert_close_f32(y, np_conv_transpose(xt, wt, bt, **kw), 8 * 9)


def test_channels_last_layouts_follow_pytorch():
    """Output channels-last when the input or the weight is; the gradients of a channels-last
    convolution stay channels-last even for a contiguous incoming gradient; the weight's
    gradient keeps the weight's layout."""
    x = ember.randn(2, 4, 6, 6)
    w = ember.randn(8, 4, 3, 3)
    assert F.conv2d(x, w).is_contiguous()
    assert is_channels_last(F.conv2d(channels_last(x), w))
    assert is_channels_last(F.conv2d(x, channels_last(w)))
    xc = channels_last(x).requires_grad_(True)
    wr = w.clone().requires_grad_(True)
    y = F.conv2d(xc, wr, padding=1)
    gx, gw = ember.autograd.grad(y, (xc, wr), ember.ones(*y.shape))
    assert is_channels_last(gx) and gw.is_contiguous()
    ref_gx, ref_gw = ember.autograd.grad(
        F.conv2d(x.requires_grad_(True), wr, padding=1), (x, wr), ember.ones(*y.shape)
    )
    np.testing.assert_allclose(gx.numpy(), ref_gx.numpy(), atol=1e-5)
    np.testing.assert_allclose(gw.numpy(), ref_gw.numpy(), atol=1e-4)
    # Transposed: input channels-last, weight [C_in, C_out, k, k] contiguous.
    yt = F.conv_transpose2d(channels_last(ember.randn(1, 4, 3, 3)), ember.randn(4, 2, 2, 2))
    assert is_channels_last(yt)


def test_strided_views_as_input():
    """Inputs that are no dense layout (a sliced window) give the result of their copy."""
    rng = rng_for("strided")
    big = tensor(rng.uniform(-1, 1, (2, 16, 12, 12)))
    w = tensor(rng.uniform(-1, 1, (8, 16, 3, 3)))
    view = big[:, :, 1::2, ::2]
    for cl in (False, True):
        src = channels_last(big)[:, :, 1::2, ::2] if cl else view
        np.testing.assert_allclose(
            F.conv2d(src, w, padding=1).numpy(),
            F.conv2d(view.contiguous(), w, padding=1).numpy(),
            atol=1e-5,
        )


def test_same_padding_by_hand():
    """'same' puts the odd unit of padding after (values copied from PyTorch)."""
    x = ember.arange(5.0).view(1, 1, 5)
    assert F.conv1d(x, ember.tensor([[[1.0, 10.0]]]), padding="same").tolist() == [
        [[10.0, 21.0, 32.0, 43.0, 4.0]]
    ]
    w = ember.tensor([[[1.0, 10.0, 100.0, 1000.0]]])
    assert F.conv1d(x, w, padding="same").tolist() == [[[2100.0, 3210.0, 4321.0, 432.0, 43.0]]]
    assert F.conv1d(x, w, padding="same", dilation=3).tolist() == [
        [[200.0, 300.0, 410.0, 20.0, 30.0]]
    ]
    assert F.conv1d(x.double(), w.double(), padding="same").tolist() == [
        [[2100.0, 3210.0, 4321.0, 432.0, 43.0]]
    ]


def test_transposed_output_padding_past_the_last_tap():
    """output_padding 1 with stride 1 and dilation 2: the last row and column of the output get
    no product, only the bias (the kernel narrows the gradient it writes, oneDNN's rule)."""
    x = ember.ones(1, 1, 2, 2)
    w = ember.ones(1, 1, 2, 2)
    for dtype in (ember.float32, ember.float64):
        y = F.conv_transpose2d(
            x.to(dtype), w.to(dtype), ember.tensor([0.5]).to(dtype), dilation=2, output_padding=1
        )
        assert y.shape == (1, 1, 5, 5)
        want = np_conv_transpose(
            np.ones((1, 1, 2, 2)),
            np.ones((1, 1, 2, 2)),
            np.array([0.5]),
            dilation=2,
            output_padding=1,
        )
        assert want[0, 0, 4].tolist() == [0.5] * 5 and want[0, 0, :, 4].tolist() == [0.5] * 5
        np.testing.assert_array_equal(y.double().numpy(), want)


def test_empty_tensors():
    w, b = ember.randn(3, 2, 3, 3), ember.tensor([1.0, 2.0, 3.0])
    assert F.conv2d(ember.ones(0, 2, 5, 5), w, b).shape == (0, 3, 3, 3)
    # No input channels: every output is its bias; the bias still gets its gradient.
    br = b.clone().requires_grad_(True)
    y = F.conv2d(ember.ones(2, 0, 5, 5), ember.ones(3, 0, 3, 3), br)
    assert y.shape == (2, 3, 3, 3) and y[:, 1].tolist() == [[[2.0] * 3] * 3] * 2
    y.sum().backward()
    assert br.grad.tolist() == [18.0, 18.0, 18.0]
    x = ember.ones(0, 2, 5, 5, requires_grad=True)
    wr = w.clone().requires_grad_(True)
    F.conv2d(x, wr).sum().backward()
    assert x.grad.shape == (0, 2, 5, 5) and wr.grad.abs().sum().item() == 0


def test_unbatched_input():
    rng = rng_for("unbatched")
    x, w = rng.uniform(-1, 1, (3, 6, 6)), rng.uniform(-1, 1, (4, 3, 2, 2))
    y = F.conv2d(tensor(x), tensor(w), stride=2)
    assert y.shape == (4, 3, 3)
    assert_close_f32(y, np_conv(x, w, stride=2), 12)


def test_results_on_one_and_two_threads():
    """float64 (im2col) gives the same bits on one and two threads; float32 (oneDNN, whose
    primitives are cached per thread count) agrees to rounding, before and after a switch."""
    rng = rng_for("threads")
    x, w = rng.uniform(-1, 1, (4, 8, 9, 9)), rng.uniform(-1, 1, (8, 4, 3, 3))
    saved = ember.get_num_threads()
    try:
        out = {}
        for threads in (1, 2, 1):
            ember.set_num_threads(threads)
            for dtype in (ember.float32, ember.float64):
                xs, ws = tensor(x, dtype, grad=True), tensor(w, dtype, grad=True)
                y = F.conv2d(xs, ws, padding=1, groups=2)
                y.backward(ember.ones(*y.shape, dtype=dtype))
                out.setdefault(dtype, []).append(
                    [t.detach().numpy() for t in (y, xs.grad, ws.grad)]
                )
        for a, b in zip(out[ember.float64][0], out[ember.float64][1]):
            assert a.tobytes() == b.tobytes()
        for run in out[ember.float32][1:]:
            for a, b in zip(out[ember.float32][0], run):
                np.testing.assert_allclose(a, b, atol=1e-4)
    finally:
        ember.set_num_threads(saved)


def test_error_messages_name_the_op():
    with pytest.raises(RuntimeError, match=r"^\[conv3d\] Given groups=1, weight of size"):
        F.conv3d(ember.ones(1, 2, 3, 3, 3), ember.ones(1, 3, 1, 1, 1))
    with pytest.raises(RuntimeError, match=r"^\[conv_transpose1d\] Given transposed=1"):
        F.conv_transpose1d(ember.ones(1, 2, 3), ember.ones(3, 1, 1))
    with pytest.raises(RuntimeError, match=r"^\[conv1d\] padding='same' is not supported"):
        F.conv1d(ember.ones(1, 1, 4), ember.ones(1, 1, 2), stride=2, padding="same")


def test_linear_and_bilinear_layouts():
    rng = rng_for("linear")
    x, w, b = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (5, 4)), rng.uniform(-1, 1, 5)
    xt = tensor(x).transpose(0, 1)  # a strided input with leading dims
    y = F.linear(xt, tensor(w), tensor(b))
    np.testing.assert_allclose(y.numpy(), x.transpose(1, 0, 2) @ w.T + b, atol=1e-5)
    x1, x2, wb = (
        rng.uniform(-1, 1, (3, 2)),
        rng.uniform(-1, 1, (3, 4)),
        rng.uniform(-1, 1, (5, 2, 4)),
    )
    y = F.bilinear(tensor(x1, ember.float16), tensor(x2, ember.float16), tensor(wb, ember.float16))
    assert y.dtype == ember.float16
    want = np.einsum(
        "bi,oij,bj->bo", *(a.astype(np.float16).astype(np.float64) for a in (x1, wb, x2))
    )
    np.testing.assert_allclose(y.double().numpy(), want, rtol=1e-3, atol=1e-3)


# ---- side by side with PyTorch -----------------------------------------------------------------

TORCH_CASES = [
    (
        "conv2d",
        (2, 6, 7, 8),
        (4, 3, 3, 2),
        {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2},
    ),
    ("conv2d", (1, 4, 6, 6), (4, 4, 2, 3), {"padding": "same"}),
    ("conv3d", (1, 4, 4, 5, 4), (6, 2, 2, 3, 2), {"padding": (1, 0, 1), "groups": 2}),
    (
        "conv_transpose2d",
        (2, 4, 3, 4),
        (4, 3, 3, 3),
        {"stride": 2, "padding": 1, "output_padding": (1, 0)},
    ),
    ("conv_transpose3d", (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), {"stride": (2, 1, 2)}),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("case", TORCH_CASES, ids=lambda c: c[0] + str(c[3]))
def test_against_pytorch(case, cl):
    torch = pytest.importorskip("torch")
    name, xs, ws, kw = case
    rng = rng_for(name + str(kw))
    x, w = rng.uniform(-1, 1, xs), rng.uniform(-1, 1, ws)
    out_ch = ws[0] if name.startswith("conv2") or name == "conv3d" else ws[1] * kw.get("groups", 1)
    b = rng.uniform(-1, 1, out_ch)
    fmt = torch.channels_last if len(xs) == 4 else torch.channels_last_3d
    tx = torch.tensor(x, dtype=torch.float32)
    if cl:
        tx = tx.contiguous(memory_format=fmt)
    tx.requires_grad_(True)
    tw = torch.tensor(w, dtype=torch.float32, requires_grad=True)
    tb = torch.tensor(b, dtype=torch.float32, requires_grad=True)
    ty = getattr(torch.nn.functional, name)(tx, tw, tb, **kw)
    ex, ew, eb = tensor(x, cl=cl, grad=True), tensor(w, grad=True), tensor(b, grad=True)
    ey = getattr(F, name)(ex, ew, eb, **kw)
    assert tuple(ey.shape) == tuple(ty.shape)
    assert is_channels_last(ey) == cl
    if name != "conv_transpose3d":  # PyTorch's CPU runs that one without oneDNN: contiguous out
        assert ty.is_contiguous(memory_format=fmt if cl else torch.contiguous_format)
    gy = rng.uniform(-1, 1, tuple(ty.shape))
    ty.backward(torch.tensor(gy, dtype=torch.float32))
    ey.backward(tensor(gy))
    for e, t in ((ey, ty), (ex.grad, tx.grad), (ew.grad, tw.grad), (eb.grad, tb.grad)):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), atol=1e-4)


def test_double_backward_in_float32_matches_float64():
    """A gradient penalty (the weight gradient of |d out / d x|^2) through oneDNN's three passes
    in float32 against the float64 kernels (themselves checked by gradgradcheck)."""
    rng = rng_for("gradgrad")
    x, w = rng.uniform(-1, 1, (2, 16, 6, 6)), rng.uniform(-1, 1, (8, 16, 3, 3))
    out = {}
    for dtype in (ember.float32, ember.float64):
        for cl in (False, True):
            xs, ws = tensor(x, dtype, cl, True), tensor(w, dtype, grad=True)
            y = F.conv2d(xs, ws, padding=1, stride=2)
            (gx,) = ember.autograd.grad(y.sum(), xs, create_graph=True)
            (gw,) = ember.autograd.grad((gx * gx).sum(), ws)
            out[dtype, cl] = gw.detach().double().numpy()
    for cl in (False, True):
        np.testing.assert_allclose(
            out[ember.float32, cl], out[ember.float64, False], rtol=1e-4, atol=1e-3
        )


# ---- Winograd (ember.backends.cpu.allow_winograd) ----------------------------------------------


def _has_avx512_core():
    """oneDNN 2.6's Winograd kernels need avx512_core (F, BW, VL, DQ)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return all(f" {x} " in flags.replace("\n", " ") for x in ("avx512f", "avx512bw", "avx512vl"))


def _conv_with_grads(x, w, b, gy, cl, **kw):
    xs, ws, bs = tensor(x, cl=cl, grad=True), tensor(w, grad=True), tensor(b, grad=True)
    y = F.conv2d(xs, ws, bs, **kw)
    y.backward(tensor(gy, cl=cl))
    return [t.detach().numpy().copy() for t in (y, xs.grad, ws.grad, bs.grad)]


@pytest.mark.parametrize("cl", [False, True], ids=["nchw", "channels_last"])
def test_winograd_against_float64_and_the_switch(cl):
    """A 3x3 stride-1 convolution over 16x16 runs Winograd by default: all three passes agree
    with float64 within 4x the direct kernel's bound (the transforms' entries, up to 8 for the
    interpolation points +-2, +-1/2, amplify each tile's rounding: measured 2-3x the direct
    kernel's error). Off gives the direct kernel's bits, the same before and after Winograd ran
    (the switch is part of the primitive cache key); on differs from it where oneDNN has the
    kernel."""
    assert ember.backends.cpu.allow_winograd is True
    rng = rng_for(f"winograd{cl}")
    x, w = rng.uniform(-1, 1, (2, 32, 16, 16)), rng.uniform(-1, 1, (16, 32, 3, 3))
    b = rng.uniform(-1, 1, 16)
    gy = rng.uniform(-1, 1, (2, 16, 16, 16))
    xd, wd, bd = (tensor(a, ember.float64, grad=True) for a in (x, w, b))
    yd = F.conv2d(xd, wd, bd, padding=1)
    yd.backward(tensor(gy, ember.float64))
    want = [t.detach().numpy() for t in (yd, xd.grad, wd.grad, bd.grad)]
    terms = [32 * 9, 16 * 9, 2 * 16 * 16, 2 * 16 * 16]  # y, dx, dw, db: the sums' lengths
    try:
        with ember.backends.cpu.flags(allow_winograd=False):
            direct = _conv_with_grads(x, w, b, gy, cl, padding=1)
        wino = _conv_with_grads(x, w, b, gy, cl, padding=1)
        ember.backends.cpu.allow_winograd = False
        again = _conv_with_grads(x, w, b, gy, cl, padding=1)
    finally:
        ember.backends.cpu.allow_winograd = True
    for d, wn, a, ref, n in zip(direct, wino, again, want, terms):
        np.testing.assert_allclose(d, ref, rtol=0, atol=1e-6 * n)
        np.testing.assert_allclose(wn, ref, rtol=0, atol=4e-6 * n)
        assert d.tobytes() == a.tobytes()
    if _has_avx512_core():
        # the output and both weight-shaped gradients come from different kernels
        for d, wn in zip(direct[:3], wino[:3]):
            assert d.tobytes() != wn.tobytes()


def test_winograd_only_where_it_pays():
    """Below 14x14 outputs (7x7: slower), with a stride, dilation or groups, or a 1x1 kernel the
    direct kernel runs whatever the switch says: the same bits either way."""
    rng = rng_for("winograd off-cases")
    cases = [
        ((1, 16, 7, 7), (16, 16, 3, 3), {"padding": 1}),
        ((1, 16, 16, 16), (16, 16, 3, 3), {"padding": 1, "stride": 2}),
        ((1, 16, 16, 16), (16, 16, 3, 3), {"padding": 2, "dilation": 2}),
        ((1, 32, 16, 16), (32, 16, 3, 3), {"padding": 1, "groups": 2}),
    ]
    try:
        for xs, ws, kw in cases:
            x, w = tensor(rng.uniform(-1, 1, xs)), tensor(rng.uniform(-1, 1, ws))
            ember.backends.cpu.allow_winograd = True
            on = F.conv2d(x, w, **kw).numpy()
            ember.backends.cpu.allow_winograd = False
            off = F.conv2d(x, w, **kw).numpy()
            assert on.tobytes() == off.tobytes(), kw
    finally:
        ember.backends.cpu.allow_winograd = True
    with pytest.raises(TypeError, match=r"^\[allow_winograd\] expected a bool"):
        ember.backends.cpu.allow_winograd = 1


@pytest.mark.parametrize("kw", [{"padding": (2, 1), "dilation": (2, 1)}, {"padding": 0}])
def test_channels_last_depthwise_input_gradient(kw):
    """A channels-last depthwise stride-1 input gradient runs as a forward convolution with the
    taps reversed and the padding mirrored (extent - 1 - pad): against float64, with dilation,
    unequal padding per dim, and no padding."""
    rng = rng_for(f"dw grad{kw}")
    x, w = rng.uniform(-1, 1, (2, 16, 9, 8)), rng.uniform(-1, 1, (16, 1, 3, 3))
    grads = []
    for dtype in (ember.float32, ember.float64):
        xs = tensor(x, dtype, cl=dtype == ember.float32, grad=True)
        y = F.conv2d(xs, tensor(w, dtype), groups=16, **kw)
        y.backward(tensor(rng_for("gy").uniform(-1, 1, tuple(y.shape)), dtype, cl=True))
        assert is_channels_last(xs.grad) == (dtype == ember.float32)
        grads.append(xs.grad)
    assert_close_f32(grads[0], grads[1].numpy(), 9)
