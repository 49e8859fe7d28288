"""Recurrent ops and scaled_dot_product_attention beyond the op table: option combinations and
larger shapes against NumPy float64, the layer backward against the same recurrence unrolled
with the cell ops, dropout, fully masked rows, double backward, and PyTorch side by side when it
is installed."""

import numpy as np
import pytest
from conftest import rng_for

import ember
import ember.nn.functional as F
from ember.testing.op_db.nn_attention import np_attention
from ember.testing.op_db.nn_rnn import GATES, np_cell, np_rnn, seq_arrays

T64 = ember.float64


def E(a, dtype=T64, grad=False):
    t = ember.from_numpy(np.ascontiguousarray(a)).to(dtype)
    return t.requires_grad_() if grad else t


def N(t):
    return t.detach().double().numpy()


def call_seq(mode, args, L, D, bias, bf, dropout=0.0, train=False):
    fn = getattr(ember, mode)
    if mode == "lstm":
        return fn(args[0], (args[1], args[2]), list(args[3:]), bias, L, dropout, train, D == 2, bf)
    return fn(args[0], args[1], list(args[2:]), bias, L, dropout, train, D == 2, bf)


# ---- sequences -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_multilayer_bidirectional_batch_first_matches_numpy(mode, dtype):
    rng = rng_for(f"seq{mode}{dtype}")
    T, B, I, H, L, D = 7, 3, 5, 6, 2, 2
    arrays = seq_arrays(mode, T64, rng, T, B, I, H, L, D, True, batch_first=True)
    outs = call_seq(mode, [E(a, dtype) for a in arrays], L, D, True, True)
    c0 = arrays[2] if mode == "lstm" else None
    params = arrays[3:] if mode == "lstm" else arrays[2:]
    want = np_rnn(mode, arrays[0], arrays[1], c0, params, True, L, True, True)
    tol = 1e-5 if dtype == ember.float32 else 1e-12
    assert tuple(outs[0].shape) == (B, T, D * H)
    for got, w in zip(outs, want):
        np.testing.assert_allclose(N(got), w, rtol=tol, atol=tol)


def test_lstm_with_projections_matches_numpy():
    rng = rng_for("proj")
    T, B, I, H, P = 5, 2, 3, 4, 2
    arrays = seq_arrays("lstm", T64, rng, T, B, I, H, 2, 2, True, proj=P)
    out, hn, cn = call_seq("lstm", [E(a) for a in arrays], 2, 2, True, False)
    want = np_rnn("lstm", arrays[0], arrays[1], arrays[2], arrays[3:], True, 2, True, False)
    assert tuple(out.shape) == (T, B, 2 * P) and tuple(hn.shape) == (4, B, P)
    assert tuple(cn.shape) == (4, B, H)
    for got, w in zip((out, hn, cn), want):
        np.testing.assert_allclose(N(got), w, rtol=1e-12, atol=1e-12)


def unrolled(mode, x, h0, c0, params, has_biases, L, D):
    """The same recurrence written with the cell ops (their own backward) and cat/stack."""
    per = 2 + 2 * has_biases
    cell = getattr(ember, mode + "_cell")
    inp, hn, cn = x, [], []
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            p = params[k * per : (k + 1) * per]
            h, c = h0[k], (c0[k] if mode == "lstm" else None)
            steps = [None] * x.shape[0]
            for t in reversed(range(x.shape[0])) if d == 1 else range(x.shape[0]):
                if mode == "lstm":
                    h, c = cell(inp[t], (h, c), *p)
                else:
                    h = cell(inp[t], h, *p)
                steps[t] = h
            outs.append(ember.stack(steps))
            hn.append(h)
            cn.append(c)
        inp = ember.cat(outs, 2)
    return inp, ember.stack(hn), (ember.stack(cn) if mode == "lstm" else None)


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_relu"])
def test_layer_backward_equals_the_unrolled_cells(mode):
    # The layer node (one kernel backward through time) against autograd through the cells.
    rng = rng_for(f"unrolled{mode}")
    T, B, I, H, L, D = 5, 3, 4, 5, 2, 2
    arrays = seq_arrays(mode, T64, rng, T, B, I, H, L, D, True)
    a = [E(x, grad=True) for x in arrays]
    b = [E(x, grad=True) for x in arrays]
    outs = call_seq(mode, a, L, D, True, False)
    c0 = b[2] if mode == "lstm" else None
    params = b[3:] if mode == "lstm" else b[2:]
    ref = [r for r in unrolled(mode, b[0], b[1], c0, params, True, L, D) if r is not None]
    weights = [E(rng.standard_normal(tuple(o.shape))) for o in ref]
    sum((o * w).sum() for o, w in zip(outs, weights)).backward()
    sum((o * w).sum() for o, w in zip(ref, weights)).backward()
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(N(o), N(r), rtol=1e-12, atol=1e-12)
    for i, (x, y) in enumerate(zip(a, b)):
        np.testing.assert_allclose(N(x.grad), N(y.grad), rtol=1e-10, atol=1e-12, err_msg=str(i))


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_float32_at_size_prepared_weights(mode):
    # Large enough for the per-step products against prepared (blocked) weights, float32 only:
    # values against NumPy, gradients against the unrolled cells in float64.
    rng = rng_for(f"prepared{mode}")
    T, B, I, H = 4, 16, 72, 80  # B * (I or H) * G * H >= 2^18 for both cells
    arrays = seq_arrays(mode, T64, rng, T, B, I, H, 1, 2, True)
    a = [E(x, ember.float32, grad=True) for x in arrays]
    b = [E(x, grad=True) for x in arrays]
    outs = call_seq(mode, a, 1, 2, True, False)
    c0 = b[2] if mode == "lstm" else None
    params = b[3:] if mode == "lstm" else b[2:]
    ref = [r for r in unrolled(mode, b[0], b[1], c0, params, True, 1, 2) if r is not None]
    weights = [rng.standard_normal(tuple(o.shape)) for o in ref]
    sum((o * E(w, ember.float32)).sum() for o, w in zip(outs, weights)).backward()
    sum((o * E(w)).sum() for o, w in zip(ref, weights)).backward()
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(N(o), N(r), rtol=1e-5, atol=1e-5)
    for i, (x, y) in enumerate(zip(a, b)):
        scale = np.abs(N(y.grad)).max()
        np.testing.assert_allclose(N(x.grad), N(y.grad), atol=2e-5 * scale, err_msg=str(i))


def test_dropout_between_layers():
    rng = rng_for("dropout")
    T, B, I, H = 4, 3, 2, 3
    arrays = seq_arrays("gru", T64, rng, T, B, I, H, 2, 1, True)
    args = [E(a) for a in arrays]
    plain = call_seq("gru", args, 2, 1, True, False)
    # train=False ignores dropout; dropout=1 zeroes the second layer's input.
    np.testing.assert_array_equal(N(call_seq("gru", args, 2, 1, True, False, 1.0, False)[0]),
                                  N(plain[0]))  # fmt: skip
    dropped = call_seq("gru", args, 2, 1, True, False, 1.0, True)
    layer2 = np_rnn("gru", np.zeros((T, B, H)), arrays[1][1:], None, arrays[6:], True, 1, False,
                    False)  # fmt: skip
    np.testing.assert_allclose(N(dropped[0]), layer2[0], rtol=1e-12, atol=1e-12)
    # p = 0.5: reproducible from the seed, and different from no dropout.
    ember.manual_seed(3)
    d1 = call_seq("gru", args, 2, 1, True, False, 0.5, True)[0]
    ember.manual_seed(3)
    d2 = call_seq("gru", args, 2, 1, True, False, 0.5, True)[0]
    np.testing.assert_array_equal(N(d1), N(d2))
    assert not np.allclose(N(d1), N(plain[0]))


def test_sequence_double_backward_raises():
    rng = rng_for("gradgrad")
    arrays = seq_arrays("lstm", T64, rng, 2, 1, 2, 2, 1, 1, True)
    args = [E(a, grad=True) for a in arrays]
    out = call_seq("lstm", args, 1, 1, True, False)[0]
    (g,) = ember.autograd.grad(out.sum(), [args[3]], create_graph=True)
    with pytest.raises(NotImplementedError, match=r"\[lstm\] double backward"):
        g.sum().backward()


def test_saved_weight_changed_in_place_is_refused():
    rng = rng_for("version")
    args = [E(a, grad=True) for a in seq_arrays("gru", T64, rng, 2, 1, 2, 2, 1, 1, True)]
    out = call_seq("gru", args, 1, 1, True, False)[0]
    with ember.no_grad():
        args[2].add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        out.sum().backward()


def test_cells_against_numpy_larger():
    rng = rng_for("cells")
    B, I, H = 17, 33, 40  # H not a multiple of the vector width: the scalar tails run too
    for mode, G in GATES.items():
        x, h, c = (
            rng.standard_normal((B, I)),
            rng.standard_normal((B, H)),
            rng.standard_normal((B, H)),
        )
        w = [rng.standard_normal(s) * 0.3 for s in [(G * H, I), (G * H, H), (G * H,), (G * H,)]]
        fn = getattr(ember, mode + "_cell")
        for dtype, tol in ((ember.float32, 2e-5), (ember.float64, 1e-12)):
            ws = [E(a, dtype) for a in w]
            if mode == "lstm":
                got = fn(E(x, dtype), (E(h, dtype), E(c, dtype)), *ws)
                want = np_cell(mode, x, h, c, *w)
            else:
                got, want = fn(E(x, dtype), E(h, dtype), *ws), np_cell(mode, x, h, None, *w)[:1]
                got = (got,)
            for g, ww in zip(got, want):
                np.testing.assert_allclose(N(g), ww, rtol=tol, atol=tol, err_msg=mode)


def test_float32_gate_functions_are_within_4e7():
    # float32 tanh and sigmoid are a rational approximation (nn_rnn_simd.cpp): check the bound
    # on a dense grid, through rnn_tanh_cell (h = tanh(x)) and lstm_cell with g saturated
    # (c' = sigmoid(x) * tanh(40)).
    x = np.linspace(-12, 12, 4096 * 4).astype(np.float32).reshape(-1, 64)
    eye, zero, h0 = np.eye(64), np.zeros((64, 64)), np.zeros(x.shape)
    f32 = ember.float32
    h = ember.rnn_tanh_cell(E(x, f32), E(h0, f32), E(eye, f32), E(zero, f32))
    np.testing.assert_allclose(N(h), np.tanh(x.astype(np.float64)), rtol=0, atol=4e-7)
    w = np.concatenate([eye, zero, zero, zero])
    b = np.concatenate([np.zeros(128), np.full(64, 40.0), np.zeros(64)])
    _, c = ember.lstm_cell(
        E(x, f32), (E(h0, f32), E(h0, f32)), E(w, f32), E(np.zeros((256, 64)), f32), E(b, f32)
    )
    np.testing.assert_allclose(N(c), 1 / (1 + np.exp(-x.astype(np.float64))), rtol=0, atol=5e-7)
    # Special values reach the activation through the bias (a product would turn inf into NaN).
    b = np.zeros(64)
    b[:3] = [np.nan, np.inf, -np.inf]
    h = N(ember.rnn_tanh_cell(E(x, f32), E(h0, f32), E(eye, f32), E(zero, f32), E(b, f32)))
    assert np.isnan(h[:, 0]).all()
    np.testing.assert_allclose(h[:, 1:3], np.broadcast_to([1.0, -1.0], (len(h), 2)), atol=4e-7)


# ---- attention -----------------------------------------------------------------------------------


def np_attention_grads(q, k, v, g, mask=None, is_causal=False, scale=None):
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    L, S = s.shape[-2:]
    keep = np.ones((L, S), bool) if mask is None else np.broadcast_to(mask, s.shape)
    if is_causal:
        keep = keep & np.tril(np.ones((L, S), bool))
    s = np.where(keep, s, -np.inf)
    m = s.max(-1, keepdims=True)
    p = np.where(np.isneginf(m), 0, np.exp(s - np.where(np.isneginf(m), 0, m)))
    p = p / np.where(p.sum(-1, keepdims=True) == 0, 1, p.sum(-1, keepdims=True))
    dv = np.swapaxes(p, -1, -2) @ g
    dp = g @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, dv


@pytest.mark.parametrize(
    "L,S,causal,mask", [(150, 300, False, None), (300, 150, True, None), (130, 270, False, "bool")]
)
def test_attention_larger_shapes_against_numpy(L, S, causal, mask):
    # Several query and key blocks (64 x 256), partial blocks, the causal diagonal.
    rng = rng_for(f"attn{L}{S}{causal}{mask}")
    q, k = rng.standard_normal((2, 2, L, 16)), rng.standard_normal((2, 2, S, 16))
    v, g = rng.standard_normal((2, 2, S, 8)), rng.standard_normal((2, 2, L, 8))
    m = None
    if mask == "bool":
        m = rng.random((2, 1, L, S)) < 0.7
        m[0, 0, 5] = False  # a row with no key
    want = np_attention(q, k, v, m, is_causal=causal)
    want_grads = np_attention_grads(q, k, v, g, m, causal)
    for dtype, tol in ((ember.float32, 2e-5), (ember.float64, 1e-11)):
        tq, tk, tv = (E(a, dtype, grad=True) for a in (q, k, v))
        out = F.scaled_dot_product_attention(
            tq, tk, tv, None if m is None else E(m, ember.bool), is_causal=causal
        )
        np.testing.assert_allclose(N(out), want, rtol=tol, atol=tol)
        out.backward(E(g, dtype))
        for got, w in zip((tq.grad, tk.grad, tv.grad), want_grads):
            np.testing.assert_allclose(N(got), w, rtol=10 * tol, atol=10 * tol)
    if m is not None:
        assert not N(out)[0, 0, 5].any() and not N(tq.grad)[0, 0, 5].any()


def test_attention_float_mask_gradient_and_values():
    # A floating mask that requires grad takes the materialised path; its gradient is dS.
    rng = rng_for("fmask")
    q, k, v = (rng.standard_normal(s) for s in [(2, 3, 4), (2, 5, 4), (2, 5, 3)])
    mask = rng.standard_normal((3, 5))
    tm = E(mask, grad=True)
    out = F.scaled_dot_product_attention(E(q), E(k), E(v), tm)
    np.testing.assert_allclose(N(out), np_attention(q, k, v, mask), rtol=1e-12, atol=1e-12)
    assert ember.autograd.gradcheck(
        lambda m: F.scaled_dot_product_attention(E(q), E(k), E(v), m), (tm,)
    )


def test_attention_dropout():
    rng = rng_for("attn dropout")
    q, k = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 6, 3))
    eye = np.broadcast_to(np.eye(6), (2, 6, 6)).copy()  # out = the attention weights
    probs = np_attention(q, k, eye)
    assert not N(F.scaled_dot_product_attention(E(q), E(k), E(eye), dropout_p=1.0)).any()
    ember.manual_seed(5)
    got = N(F.scaled_dot_product_attention(E(q), E(k), E(eye), dropout_p=0.5))
    kept = got != 0
    np.testing.assert_allclose(got[kept], 2 * probs[kept], rtol=1e-12)
    assert 0.2 < kept.mean() < 0.8
    ember.manual_seed(5)
    np.testing.assert_array_equal(
        N(F.scaled_dot_product_attention(E(q), E(k), E(eye), dropout_p=0.5)), got
    )


def test_attention_nan_propagates_and_empty_keys_give_zero():
    q, k, v = np.ones((1, 2, 3)), np.ones((1, 4, 3)), np.ones((1, 4, 2))
    k[0, 1, 0] = np.nan
    out = N(F.scaled_dot_product_attention(E(q), E(k), E(v)))
    assert np.isnan(out).all()  # every query saw the NaN score
    empty = F.scaled_dot_product_attention(E(q), E(k[:, :0]), E(v[:, :0]))
    np.testing.assert_array_equal(N(empty), np.zeros((1, 2, 2)))


# ---- PyTorch side by side ------------------------------------------------------------------------


def test_lstm_gru_against_torch():
    torch = pytest.importorskip("torch")
    for cls, mode in ((torch.nn.LSTM, "lstm"), (torch.nn.GRU, "gru"), (torch.nn.RNN, "rnn_tanh")):
        torch.manual_seed(0)
        net = cls(4, 5, num_layers=2, bidirectional=True, batch_first=True).double()
        x = torch.randn(3, 6, 4, dtype=torch.float64, requires_grad=True)
        h0 = torch.randn(4, 3, 5, dtype=torch.float64)
        state = (h0, torch.randn(4, 3, 5, dtype=torch.float64)) if mode == "lstm" else h0
        out, _ = net(x, state)
        out.sum().backward()
        ex = E(x.detach().numpy(), grad=True)
        ps = [E(p.detach().numpy(), grad=True) for p in net._flat_weights]
        st = [E(s.numpy()) for s in (state if mode == "lstm" else (state,))]
        eo = call_seq(mode, [ex, *st, *ps], 2, 2, True, True)[0]
        eo.sum().backward()
        np.testing.assert_allclose(N(eo), out.detach().numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(N(ex.grad), x.grad.numpy(), rtol=1e-10, atol=1e-12)
        for p, tp in zip(ps, net._flat_weights):
            np.testing.assert_allclose(N(p.grad), tp.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_attention_against_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 4, 70, 8), torch.randn(2, 2, 90, 8), torch.randn(2, 2, 90, 8)
    mask = torch.rand(70, 90) > 0.5
    mask[3] = False
    for kw, ekw in (
        ({"is_causal": True, "enable_gqa": True}, {"is_causal": True, "enable_gqa": True}),
        (
            {"attn_mask": mask, "enable_gqa": True},
            {"attn_mask": E(mask.numpy(), ember.bool), "enable_gqa": True},
        ),  # fmt: skip
        (
            {"attn_mask": mask.float().log(), "scale": 0.3, "enable_gqa": True},
            {
                "attn_mask": E(mask.float().log().numpy(), ember.float32),
                "scale": 0.3,
                "enable_gqa": True,
            },
        ),  # fmt: skip
    ):
        tq, tk, tv = (t.clone().requires_grad_() for t in (q, k, v))
        want = tf.scaled_dot_product_attention(tq, tk, tv, **kw)
        want.sum().backward()
        eq, ek, ev = (E(t.numpy(), ember.float32, grad=True) for t in (q, k, v))
        got = F.scaled_dot_product_attention(eq, ek, ev, **ekw)
        got.sum().backward()
        np.testing.assert_allclose(N(got), want.detach().numpy(), rtol=1e-4, atol=2e-5)
        for a, b in zip((eq, ek, ev), (tq, tk, tv)):
            np.testing.assert_allclose(N(a.grad), b.grad.numpy(), rtol=1e-4, atol=1e-4)
