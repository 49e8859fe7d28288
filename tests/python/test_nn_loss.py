"""Losses and embeddings beyond the op table: cross_entropy's option combinations (weight,
ignore_index, label_smoothing, spatial targets) and its fused kernel's gradient against NumPy,
masked (-inf) logits, binary_cross_entropy at 0 and 1, the legacy size_average/reduce arguments
and PyTorch's warnings, embedding and embedding_bag gradients (padding_idx, frequency scaling,
per-sample weights, max mode) and max_norm, results independent of the thread count, and
PyTorch's results side by side where it is installed."""

import itertools
import warnings

import numpy as np
import pytest
from conftest import rng_for

import ember
import ember.nn.functional as F
from ember.testing.op_db.nn_embedding import np_embedding_bag
from ember.testing.op_db.nn_loss import np_cross_entropy


def t64(a):
    return ember.from_numpy(np.array(a, dtype=np.float64, order="C")).clone()  # keeps 0-d


def i64(a):
    return ember.from_numpy(np.array(a, dtype=np.int64, order="C")).clone()


@pytest.fixture
def restore_threads():
    before = ember.get_num_threads()
    yield
    ember.set_num_threads(before)


# ---- cross_entropy -------------------------------------------------------------------------------


def np_ce_grad(x, t, w, reduction, ignore_index, eps):
    """d loss / d x for class-index targets, in NumPy (classes last: x [L, C])."""
    c = x.shape[1]
    w = np.ones(c) if w is None else w
    valid = t != ignore_index
    ts = np.where(valid, t, 0)
    wt = np.where(valid, w[ts], 0.0)
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    onehot = np.eye(c)[ts]
    g = (p * ((1 - eps) * wt + eps * w.sum() / c * valid)[:, None]) - (1 - eps) * wt[
        :, None
    ] * onehot
    g -= eps / c * w[None, :] * valid[:, None]
    if reduction == "mean":
        g /= wt.sum()
    return g


@pytest.mark.parametrize(
    "reduction,weighted,ignore,eps",
    list(itertools.product(["none", "mean", "sum"], [False, True], [-100, 2], [0.0, 0.25])),
)
def test_cross_entropy_options_against_numpy(reduction, weighted, ignore, eps):
    rng = rng_for(f"ce{reduction}{weighted}{ignore}{eps}")
    x = rng.standard_normal((6, 5)) * 3
    t = rng.integers(0, 5, 6)
    t[::3] = ignore if ignore >= 0 else -100
    w = rng.random(5) + 0.5 if weighted else None
    xe = t64(x).requires_grad_()
    out = F.cross_entropy(
        xe,
        i64(t),
        None if w is None else t64(w),
        reduction=reduction,
        ignore_index=ignore,
        label_smoothing=eps,
    )
    want = np_cross_entropy(x, t, w, reduction, ignore, eps)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    # The fused kernel's backward against the closed form, for a non-uniform upstream gradient.
    g = rng.standard_normal(np.shape(want))
    out.backward(t64(g))
    grad = np_ce_grad(x, t, w, reduction, ignore, eps) * (g[:, None] if reduction == "none" else g)
    np.testing.assert_allclose(xe.grad.numpy(), grad, rtol=1e-10, atol=1e-12)


def test_cross_entropy_spatial_and_strided_lines():
    rng = rng_for("ce spatial")
    x = rng.standard_normal((2, 7, 3, 4))
    t = rng.integers(0, 7, (2, 3, 4))
    t[0, 1] = -100
    want = np_cross_entropy(x, t, None, "none", -100, 0.1)
    xe = t64(x).requires_grad_()
    out = F.cross_entropy(xe, i64(t), reduction="none", label_smoothing=0.1)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    # Gradient: classes at stride 12 (gathered per line by the kernel).
    out.sum().backward()
    lines = np.moveaxis(x, 1, -1).reshape(-1, 7)
    g = np_ce_grad(lines, t.reshape(-1), None, "sum", -100, 0.1)
    np.testing.assert_allclose(
        xe.grad.numpy(), np.moveaxis(g.reshape(2, 3, 4, 7), -1, 1), rtol=1e-10, atol=1e-12
    )
    # A transposed (N, C) input: the class dim is strided.
    xt = t64(x[:, :, 0, 0].T.copy()).t()
    np.testing.assert_allclose(
        F.cross_entropy(xt, i64(t[:, 0, 0]), reduction="none").numpy(),
        np_cross_entropy(x[:, :, 0, 0], t[:, 0, 0], reduction="none"),
        rtol=1e-12,
    )


@pytest.mark.parametrize("layout", ["channels_last", "permuted"])
def test_cross_entropy_channels_last_and_permuted_inputs(layout):
    # channels_last: classes contiguous, H and W collapse into one stride (no copy); "permuted"
    # (N, H, C, W in memory) does not collapse and takes the copying path. Same values and
    # gradients either way.
    rng = rng_for("ce layout" + layout)
    x = rng.standard_normal((2, 5, 3, 4))
    t = rng.integers(0, 5, (2, 3, 4))
    if layout == "channels_last":
        xe = t64(x).to(memory_format=ember.channels_last)
    else:
        xe = t64(np.ascontiguousarray(x.transpose(0, 2, 1, 3))).permute(0, 2, 1, 3)
    xe.requires_grad_()
    out = F.cross_entropy(xe, i64(t), reduction="none", label_smoothing=0.1)
    np.testing.assert_allclose(
        out.detach().numpy(), np_cross_entropy(x, t, None, "none", -100, 0.1), rtol=1e-12
    )
    out.sum().backward()
    lines = np.moveaxis(x, 1, -1).reshape(-1, 5)
    g = np_ce_grad(lines, t.reshape(-1), None, "sum", -100, 0.1)
    want = np.moveaxis(g.reshape(2, 3, 4, 5), -1, 1)
    np.testing.assert_allclose(xe.grad.numpy(), want, rtol=1e-10, atol=1e-12)


def test_cross_entropy_large_float32_rows_against_numpy():
    # Rows long enough for the vector loops, with a tail that is not a multiple of the lanes.
    rng = rng_for("ce large")
    x = (rng.standard_normal((8, 1003)) * 4).astype(np.float32)
    t = rng.integers(0, 1003, 8)
    xe = ember.from_numpy(x).clone().requires_grad_()
    out = F.cross_entropy(xe, i64(t), label_smoothing=0.05)
    want = np_cross_entropy(x.astype(np.float64), t, label_smoothing=0.05)
    np.testing.assert_allclose(out.item(), want, rtol=2e-6)
    out.backward()
    grad = np_ce_grad(x.astype(np.float64), t, None, "mean", -100, 0.05)
    np.testing.assert_allclose(xe.grad.numpy(), grad, rtol=1e-4, atol=1e-8)


def test_cross_entropy_masked_logits_give_finite_loss_and_zero_gradient():
    # -inf logits (a common mask) take the scalar path: exp(-inf) = 0, no NaN.
    x = np.array([[0.5, -np.inf, 1.0, -np.inf] * 5, [2.0] * 20])
    xe = t64(x).requires_grad_()
    out = F.cross_entropy(xe, i64([2, 0]))
    want = np_cross_entropy(np.where(np.isinf(x), -1e300, x), np.array([2, 0]))
    np.testing.assert_allclose(out.item(), want, rtol=1e-12)
    out.backward()
    g = xe.grad.numpy()
    assert np.isfinite(g).all()
    assert (g[0, 1::4] == 0).all() and (g[0, 3::4] == 0).all()
    # A NaN logit makes that sample's loss NaN, as PyTorch.
    bad = F.cross_entropy(t64([[0.0, np.nan, 1.0], [1.0, 2.0, 3.0]]), i64([0, 1]), reduction="none")
    assert np.isnan(bad.numpy()[0]) and np.isfinite(bad.numpy()[1])


def test_cross_entropy_double_backward_uses_the_composite_gradient():
    # Under create_graph the backward is written with public ops; its value equals the kernel's.
    rng = rng_for("ce gg")
    x = t64(rng.standard_normal((3, 4))).requires_grad_()
    t = i64([1, -100, 3])
    w = t64([0.5, 1.0, 2.0, 1.5])
    loss = F.cross_entropy(x, t, w, label_smoothing=0.2)
    (g1,) = ember.autograd.grad(loss, (x,), create_graph=True)
    assert g1.requires_grad
    (g2,) = ember.autograd.grad(F.cross_entropy(x, t, w, label_smoothing=0.2), (x,))
    np.testing.assert_allclose(g1.detach().numpy(), g2.numpy(), rtol=1e-12, atol=1e-15)


def test_cross_entropy_low_precision_and_probability_dtypes():
    rng = rng_for("ce dtypes")
    x = rng.standard_normal((4, 6))
    t = rng.integers(0, 6, 4)
    for dt, tol in ((ember.float16, 2e-3), (ember.bfloat16, 2e-2)):
        out = F.cross_entropy(t64(x).to(dt), i64(t))
        assert out.dtype == dt
        xr = t64(x).to(dt).double().numpy()
        np.testing.assert_allclose(out.double().item(), np_cross_entropy(xr, t), rtol=tol)
    # Probabilities of a wider dtype promote, as in PyTorch.
    p = rng.random((4, 6))
    out = F.cross_entropy(t64(x).float(), t64(p))
    assert out.dtype == ember.float64


# ---- the other losses ----------------------------------------------------------------------------


def test_binary_cross_entropy_clamps_logs_and_keeps_gradients_finite():
    x = t64([0.0, 1.0, 0.0, 0.5]).requires_grad_()
    y = t64([0.0, 1.0, 1.0, 0.25])
    out = F.binary_cross_entropy(x, y, reduction="none")
    np.testing.assert_allclose(
        out.detach().numpy(), [0, 0, 100, -(0.25 * np.log(0.5) + 0.75 * np.log(0.5))]
    )
    out.sum().backward()
    # PyTorch's gradient: (x - y) / max(x (1 - x), 1e-12).
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, -1e12, 1.0], rtol=1e-12)


def test_bce_with_logits_is_stable_for_large_logits():
    x = t64([100.0, -100.0, 800.0, -800.0])
    y = t64([1.0, 0.0, 0.0, 1.0])
    out = F.binary_cross_entropy_with_logits(x, y, reduction="none").numpy()
    np.testing.assert_allclose(out, [0.0, 0.0, 800.0, 800.0], atol=1e-30)
    pw = t64([3.0])
    out = F.binary_cross_entropy_with_logits(t64([-2.0]), t64([1.0]), pos_weight=pw)
    np.testing.assert_allclose(out.item(), 3 * np.log1p(np.exp(2.0)), rtol=1e-12)


def test_legacy_size_average_and_reduce_map_to_reduction_with_a_warning():
    x, y = t64([1.0, 2.0, 4.0]), t64([0.0, 0.0, 0.0])
    cases = [
        ((None, False), [1, 4, 16]),
        ((False, None), 21.0),
        ((True, True), 7.0),
        ((False, True), 21.0),
    ]
    for (size_average, reduce), want in cases:
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            out = F.mse_loss(x, y, size_average=size_average, reduce=reduce)
        np.testing.assert_allclose(out.numpy(), want)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        out = F.nll_loss(t64([[-1.0, -2.0]]), i64([1]), size_average=False)
    assert out.item() == 2.0


def test_pytorch_warnings_on_broadcast_targets_and_kl_mean():
    x = t64(np.ones((3, 4)))
    with pytest.warns(UserWarning, match="that is different to the input size"):
        out = F.mse_loss(x, t64(np.zeros(4)))
    assert out.item() == 1.0
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(x, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.mse_loss(x, x)  # same shape: no warning
        F.kl_div(x, x, reduction="batchmean")


def test_losses_without_pytorch_match_hand_values():
    # Values worked out by hand.
    assert F.margin_ranking_loss(t64([1.0]), t64([3.0]), t64([1.0]), margin=0.5).item() == 2.5
    assert F.hinge_embedding_loss(t64([0.3, 2.0]), i64([-1, 1]), reduction="sum").item() == 2.7
    np.testing.assert_allclose(F.soft_margin_loss(t64([0.0]), t64([1.0])).item(), np.log(2))
    np.testing.assert_allclose(
        F.triplet_margin_loss(
            t64([[0.0, 0.0]]), t64([[3.0, 4.0]]), t64([[0.0, 1.0]]), eps=0
        ).item(),
        1 + 5 - 1,
    )
    np.testing.assert_allclose(
        F.kl_div(t64([np.log(0.5)]), t64([0.25]), reduction="sum").item(),
        0.25 * np.log(0.25 / 0.5),
    )


def test_gaussian_nll_clamp_passes_the_gradient_through():
    # var below eps is clamped for the value, while the gradient is that at the clamped value
    # (PyTorch clamps a clone in place under no_grad).
    var = t64([1e-9]).requires_grad_()
    x, y = t64([1.0]), t64([0.0])
    out = F.gaussian_nll_loss(x, y, var, eps=1e-2)
    np.testing.assert_allclose(out.item(), 0.5 * (np.log(1e-2) + 1 / 1e-2))
    out.backward()
    np.testing.assert_allclose(var.grad.item(), 0.5 * (1 / 1e-2 - 1 / 1e-4), rtol=1e-12)


# ---- embeddings ----------------------------------------------------------------------------------


def test_embedding_padding_row_gets_no_gradient_and_freq_scaling():
    w = t64(np.arange(12.0).reshape(6, 2)).requires_grad_()
    idx = i64([[0, 2, 2], [5, 2, 1]])
    g = np.arange(12.0).reshape(2, 3, 2) + 1
    F.embedding(idx, w, padding_idx=2).backward(t64(g))
    want = np.zeros((6, 2))
    for k, r in enumerate(idx.numpy().reshape(-1)):
        if r != 2:
            want[r] += g.reshape(-1, 2)[k]
    np.testing.assert_array_equal(w.grad.numpy(), want)
    w.grad = None
    F.embedding(idx, w, scale_grad_by_freq=True).backward(t64(g))
    counts = np.bincount(idx.numpy().reshape(-1), minlength=6)
    want = np.zeros((6, 2))
    for k, r in enumerate(idx.numpy().reshape(-1)):
        want[r] += g.reshape(-1, 2)[k] / counts[r]
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-15)


def test_embedding_max_norm_renormalises_used_rows_in_place():
    w = ember.tensor([[3.0, 4.0], [6.0, 8.0], [0.3, 0.4]], requires_grad=True)
    out = F.embedding(i64([0, 0, 2]), w, max_norm=1.0)
    np.testing.assert_allclose(w.detach().numpy(), [[0.6, 0.8], [6, 8], [0.3, 0.4]], rtol=1e-6)
    np.testing.assert_allclose(
        out.detach().numpy(), [[0.6, 0.8], [0.6, 0.8], [0.3, 0.4]], rtol=1e-6
    )
    out.sum().backward()  # the in-place renorm is not recorded: w is still a leaf
    np.testing.assert_array_equal(w.grad.numpy(), [[2, 2], [0, 0], [1, 1]])


def test_embedding_double_backward_and_torch_signature():
    w = t64(np.arange(6.0).reshape(3, 2)).requires_grad_()
    idx = i64([0, 1, 1])
    (g,) = ember.autograd.grad((F.embedding(idx, w) ** 2).sum(), (w,), create_graph=True)
    (gg,) = ember.autograd.grad(g.sum(), (w,))
    np.testing.assert_array_equal(gg.numpy(), [[2, 2], [4, 4], [0, 0]])
    # torch.embedding(weight, indices, padding_idx=-1): ATen's order; -1 is no padding.
    out = ember.embedding(w, idx)
    np.testing.assert_array_equal(out.detach().numpy(), w.detach().numpy()[[0, 1, 1]])


def test_indices_changed_in_place_before_backward_are_an_error():
    w = t64(np.ones((4, 2))).requires_grad_()
    for make in (
        lambda i: F.embedding(i, w),
        lambda i: F.embedding_bag(i, w, i64([0])),
        lambda i: F.cross_entropy(w, i),
    ):
        i = i64([0, 1, 1, 0])
        out = make(i)
        i[0] = 3
        with pytest.raises(RuntimeError, match="modified by an in-place operation"):
            out.sum().backward()


def test_embedding_bag_gradients_by_hand():
    rng = rng_for("bag grads")
    w_np = rng.standard_normal((5, 3))
    idx = np.array([0, 4, 4, 1, 2, 0, 3])
    off = np.array([0, 3, 3, 5])
    g = rng.standard_normal((4, 3))
    starts = list(off) + [len(idx)]
    bag_of = np.repeat(np.arange(4), np.diff(starts))
    # mean with padding_idx: each counted row gets g[bag] / count.
    w = t64(w_np).requires_grad_()
    F.embedding_bag(i64(idx), w, i64(off), mode="mean", padding_idx=4).backward(t64(g))
    want = np.zeros((5, 3))
    for k, r in enumerate(idx):
        if r != 4:
            count = sum(idx[j] != 4 for j in range(starts[bag_of[k]], starts[bag_of[k] + 1]))
            want[r] += g[bag_of[k]] / count
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-14)
    # sum with per_sample_weights: gradients for the weight and for the per-sample weights.
    w = t64(w_np).requires_grad_()
    psw = t64(rng.random(7)).requires_grad_()
    F.embedding_bag(i64(idx), w, i64(off), mode="sum", per_sample_weights=psw).backward(t64(g))
    want_w = np.zeros((5, 3))
    for k, r in enumerate(idx):
        want_w[r] += psw.detach().numpy()[k] * g[bag_of[k]]
    np.testing.assert_allclose(w.grad.numpy(), want_w, rtol=1e-14)
    np.testing.assert_allclose(psw.grad.numpy(), (g[bag_of] * w_np[idx]).sum(1), rtol=1e-14)
    # max: the gradient goes to the row each maximum came from; the empty bag gives nothing.
    w = t64(w_np).requires_grad_()
    out = F.embedding_bag(i64(idx), w, i64(off), mode="max")
    np.testing.assert_allclose(out.detach().numpy(), np_embedding_bag(idx, w_np, off, mode="max"))
    out.backward(t64(g))
    want = np.zeros((5, 3))
    for b in range(4):
        rows = idx[starts[b] : starts[b + 1]]
        if len(rows):
            for d in range(3):
                want[rows[np.argmax(w_np[rows, d])], d] += g[b, d]
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-14)


def test_embedding_bag_double_backward_raises_like_pytorch():
    w = t64(np.ones((3, 2))).requires_grad_()
    out = F.embedding_bag(i64([0, 1]), w, i64([0]), mode="sum")
    (g,) = ember.autograd.grad((out**2).sum(), (w,), create_graph=True)
    with pytest.raises(NotImplementedError, match="not implemented"):
        ember.autograd.grad(g.sum(), (w,))


def test_embedding_bag_include_last_offset_and_2d_input():
    w_np = np.arange(12.0).reshape(6, 2)
    out = F.embedding_bag(
        i64([0, 1, 2, 3]), t64(w_np), i64([0, 1, 3]), mode="sum", include_last_offset=True
    )
    np.testing.assert_array_equal(out.numpy(), [w_np[0], w_np[1] + w_np[2]])
    out = F.embedding_bag(i64([[0, 5], [2, 2]]), t64(w_np), mode="mean")
    np.testing.assert_array_equal(out.numpy(), [(w_np[0] + w_np[5]) / 2, w_np[2]])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_gradients_do_not_depend_on_the_thread_count(mode, restore_threads):
    # Large enough that the backward splits the rows between threads; repeated indices.
    rng = rng_for("bag threads" + mode)
    w_np = rng.standard_normal((4000, 16)).astype(np.float32)
    idx = rng.integers(0, 300, 6000)
    off = np.arange(0, 6000, 6)
    g = rng.standard_normal((1000, 16)).astype(np.float32)
    got = []
    for threads in (1, 2):
        ember.set_num_threads(threads)
        w = ember.from_numpy(w_np).clone().requires_grad_()
        out = F.embedding_bag(i64(idx), w, i64(off), mode=mode)
        out.backward(ember.from_numpy(g))
        e = ember.from_numpy(w_np).clone().requires_grad_()
        F.embedding(i64(idx), e).backward(ember.from_numpy(np.repeat(g, 6, axis=0)))
        got.append(
            (out.detach().numpy().tobytes(), w.grad.numpy().tobytes(), e.grad.numpy().tobytes())
        )
    assert got[0] == got[1]


def test_cross_entropy_does_not_depend_on_the_thread_count(restore_threads):
    rng = rng_for("ce threads")
    x = rng.standard_normal((64, 3000)).astype(np.float32)
    t = rng.integers(0, 3000, 64)
    got = []
    for threads in (1, 2):
        ember.set_num_threads(threads)
        xe = ember.from_numpy(x).clone().requires_grad_()
        loss = F.cross_entropy(xe, i64(t), label_smoothing=0.1)
        loss.backward()
        got.append((loss.detach().numpy().tobytes(), xe.grad.numpy().tobytes()))
    assert got[0] == got[1]


def test_embedding_bag_large_table_against_numpy():
    # The vector bag loop (8-, 4- and 1-vector column blocks and a scalar tail: dim 77).
    rng = rng_for("bag large")
    w_np = rng.standard_normal((1000, 77)).astype(np.float32)
    idx = rng.integers(0, 1000, 400)
    off = np.sort(rng.integers(0, 400, 50))
    off[0] = 0
    psw = rng.random(400).astype(np.float32)
    for mode, p in (("sum", None), ("mean", None), ("sum", psw)):
        out = F.embedding_bag(
            i64(idx),
            ember.from_numpy(w_np),
            i64(off),
            mode=mode,
            per_sample_weights=None if p is None else ember.from_numpy(p),
        )
        want = np_embedding_bag(idx, w_np.astype(np.float64), off, p, mode=mode)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


# ---- side by side with PyTorch -------------------------------------------------------------------


def test_losses_match_pytorch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    rng = rng_for("torch losses")
    x, y = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    p, q = rng.random((4, 5)) * 0.9 + 0.05, rng.random((4, 5))
    cls = rng.integers(0, 5, 4)
    signs = np.sign(rng.standard_normal(4))
    w5 = rng.random(5) + 0.5
    cases = [
        ("mse_loss", (x, y), {}),
        ("l1_loss", (x, y), {"reduction": "sum"}),
        ("smooth_l1_loss", (x, y), {"beta": 0.5}),
        ("huber_loss", (x, y), {"delta": 0.8}),
        ("binary_cross_entropy", (p, q), {}),
        ("binary_cross_entropy_with_logits", (x, q), {}),
        ("kl_div", (x, q), {"reduction": "batchmean"}),
        ("kl_div", (x, y), {"reduction": "sum", "log_target": True}),
        ("poisson_nll_loss", (x, np.abs(y) * 3), {"full": True}),
        ("poisson_nll_loss", (p, np.abs(y)), {"log_input": False}),
        ("gaussian_nll_loss", (x, y, p), {"full": True}),
        ("soft_margin_loss", (x, np.sign(y).astype(np.int64)), {}),
        ("cosine_embedding_loss", (x, y, signs), {"margin": 0.1}),
        ("margin_ranking_loss", (x[0], y[0], np.sign(y[1])), {"margin": 0.2}),
        ("hinge_embedding_loss", (x, np.sign(y)), {"margin": 0.5}),
        ("triplet_margin_loss", (x, y, p), {"swap": True, "p": 1.5}),
        ("multi_margin_loss", (x, cls), {"p": 2, "margin": 0.7}),
        ("cross_entropy", (x, cls), {"label_smoothing": 0.15}),
        ("cross_entropy", (x, q), {"label_smoothing": 0.15}),
        ("nll_loss", (x, cls), {"reduction": "none"}),
    ]
    for name, args, kw in cases:
        e_args = [i64(a) if a.dtype == np.int64 else t64(a).requires_grad_() for a in args]
        t_args = [torch.tensor(a, requires_grad=a.dtype != np.int64) for a in args]
        if name in ("cosine_embedding_loss",):
            e_args[2], t_args[2] = t64(args[2]), torch.tensor(args[2])
        if name in ("cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"):
            kw = (
                dict(kw, weight=w5)
                if args[0].shape == (4, 5) and name != "binary_cross_entropy_with_logits"
                else kw
            )
        ekw = {k: (t64(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        tkw = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        e_out = getattr(F, name)(*e_args, **ekw)
        t_out = getattr(tf, name)(*t_args, **tkw)
        np.testing.assert_allclose(
            e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=name
        )
        e_out.sum().backward()
        t_out.sum().backward()
        for ea, ta in zip(e_args, t_args):
            if ta.requires_grad and ta.grad is not None:
                np.testing.assert_allclose(
                    ea.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name
                )


def test_cross_entropy_option_grid_matches_pytorch():
    # Every combination of reduction, weight, ignore_index and label_smoothing, spatial targets
    # included, values and gradients.
    torch = pytest.importorskip("torch")
    rng = rng_for("torch ce grid")
    x = rng.standard_normal((5, 4, 3))
    t = rng.integers(0, 4, (5, 3))
    t[1, :2] = 2
    w = rng.random(4) + 0.5
    for reduction, weighted, ignore, eps in itertools.product(
        ["none", "mean", "sum"], [False, True], [-100, 2], [0.0, 0.3]
    ):
        xe, xt = t64(x).requires_grad_(), torch.tensor(x, requires_grad=True)
        kw = dict(reduction=reduction, ignore_index=ignore, label_smoothing=eps)
        e = F.cross_entropy(xe, i64(t), t64(w) if weighted else None, **kw)
        o = torch.nn.functional.cross_entropy(
            xt, torch.tensor(t), torch.tensor(w) if weighted else None, **kw
        )
        desc = f"{reduction} {weighted} {ignore} {eps}"
        np.testing.assert_allclose(e.detach().numpy(), o.detach().numpy(), rtol=1e-12, err_msg=desc)
        e.sum().backward()
        o.sum().backward()
        np.testing.assert_allclose(
            xe.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-14, err_msg=desc
        )


def test_embeddings_match_pytorch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    rng = rng_for("torch embeddings")
    w = rng.standard_normal((10, 4))
    idx = rng.integers(0, 10, 12)
    off = np.array([0, 2, 2, 7])
    for mode, kw in (
        ("sum", {}),
        ("mean", {"padding_idx": 3}),
        ("max", {}),
        ("mean", {"scale_grad_by_freq": True}),
    ):
        ew, tw = t64(w).requires_grad_(), torch.tensor(w, requires_grad=True)
        e = F.embedding_bag(i64(idx), ew, i64(off), mode=mode, **kw)
        t = tf.embedding_bag(torch.tensor(idx), tw, torch.tensor(off), mode=mode, **kw)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12, err_msg=mode)
        g = rng.standard_normal(tuple(t.shape))
        e.backward(t64(g))
        t.backward(torch.tensor(g))
        np.testing.assert_allclose(
            ew.grad.numpy(), tw.grad.numpy(), rtol=1e-12, atol=1e-14, err_msg=mode
        )
    ew, tw = t64(w).requires_grad_(), torch.tensor(w, requires_grad=True)
    e = F.embedding(i64(idx.reshape(3, 4)), ew, padding_idx=-2, scale_grad_by_freq=True)
    t = tf.embedding(torch.tensor(idx.reshape(3, 4)), tw, padding_idx=-2, scale_grad_by_freq=True)
    g = rng.standard_normal(tuple(t.shape))
    e.backward(t64(g))
    t.backward(torch.tensor(g))
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-12, atol=1e-14)
