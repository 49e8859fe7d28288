"""nn.MultiheadAttention and the transformer layers against NumPy float64 compositions (eval
mode), parameter names as PyTorch's, the causal mask, deep-copied stacks, gradients, errors."""

import math

import numpy as np
import pytest
from conftest import rng_for

import ember
from ember import nn

F64 = ember.float64


def E(a, grad=False):
    a = np.ascontiguousarray(a)
    t = ember.from_numpy(a if a.dtype == np.bool_ else a.astype(np.float64))
    return t.requires_grad_() if grad else t


def N(t):
    return t.detach().double().numpy()


# ---- NumPy reference -------------------------------------------------------------------------


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_mha(m, q, k, v, key_padding_mask=None, attn_mask=None):
    """MultiheadAttention on time-major q [L, N, E], k [S, N, kdim], v [S, N, vdim]. Masks: bool
    True = may not attend, or floating (added). Returns (out [L, N, E], weights [N, h, L, S])."""
    E_, h = m.embed_dim, m.num_heads
    d = E_ // h
    if m.in_proj_weight is not None:
        wq, wk, wv = np.split(N(m.in_proj_weight), 3)
    else:
        wq, wk, wv = N(m.q_proj_weight), N(m.k_proj_weight), N(m.v_proj_weight)
    bq, bk, bv = np.split(N(m.in_proj_bias), 3) if m.in_proj_bias is not None else (0, 0, 0)
    Q, K, V = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    L, B, S = q.shape[0], q.shape[1], k.shape[0]
    add = np.zeros((B, L, S))
    if attn_mask is not None:
        add = add + (np.where(attn_mask, -np.inf, 0.0) if attn_mask.dtype == bool else attn_mask)
    if key_padding_mask is not None:
        add = add + np.where(key_padding_mask, -np.inf, 0.0)[:, None, :]
    if m.bias_k is not None:
        K = np.concatenate([K, np.broadcast_to(N(m.bias_k), (1, B, E_))])
        V = np.concatenate([V, np.broadcast_to(N(m.bias_v), (1, B, E_))])
        add = np.concatenate([add, np.zeros((B, L, 1))], -1)
    if m.add_zero_attn:
        K = np.concatenate([K, np.zeros((1, B, E_))])
        V = np.concatenate([V, np.zeros((1, B, E_))])
        add = np.concatenate([add, np.zeros((B, L, 1))], -1)
    out = np.zeros((L, B, E_))
    weights = np.zeros((B, h, L, K.shape[0]))
    for b in range(B):
        for j in range(h):
            cols = slice(j * d, (j + 1) * d)
            p = np_softmax(Q[:, b, cols] @ K[:, b, cols].T / math.sqrt(d) + add[b])
            weights[b, j] = p
            out[:, b, cols] = p @ V[:, b, cols]
    out = out @ N(m.out_proj.weight).T
    if m.out_proj.bias is not None:
        out = out + N(m.out_proj.bias)
    return out, weights


def np_layer_norm(x, ln):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + ln.eps) * N(ln.weight) + N(ln.bias)


def np_encoder_layer(layer, x, mask=None):
    def sa(y):
        return np_mha(layer.self_attn, y, y, y, attn_mask=mask)[0]

    def ff(y):
        hidden = np.maximum(y @ N(layer.linear1.weight).T + N(layer.linear1.bias), 0.0)
        return hidden @ N(layer.linear2.weight).T + N(layer.linear2.bias)

    if layer.norm_first:
        x = x + sa(np_layer_norm(x, layer.norm1))
        return x + ff(np_layer_norm(x, layer.norm2))
    x = np_layer_norm(x + sa(x), layer.norm1)
    return np_layer_norm(x + ff(x), layer.norm2)


def _randomise(module, rng):
    # Non-trivial values everywhere (the default init leaves biases at 0 and norms at 1).
    with ember.no_grad():
        for p in module.parameters():
            p.copy_(E(rng.uniform(-0.5, 0.5, tuple(p.shape))).to(p.dtype))


# ---- MultiheadAttention ----------------------------------------------------------------------

MHA_CASES = [
    {},
    {"kdim": 3, "vdim": 5},
    {"add_bias_kv": True, "add_zero_attn": True},
    {"bias": False},
    {"batch_first": True},
]


@pytest.mark.parametrize("kwargs", MHA_CASES)
@pytest.mark.parametrize("masks", ["none", "padding", "float", "bool+padding"])
def test_mha_matches_numpy(kwargs, masks):
    rng = rng_for(f"mha{kwargs}{masks}")
    m = nn.MultiheadAttention(6, 2, dtype=F64, **kwargs).eval()
    _randomise(m, rng)
    L, S, B = 3, 4, 2
    q = rng.standard_normal((L, B, 6))
    k = rng.standard_normal((S, B, kwargs.get("kdim", 6)))
    v = rng.standard_normal((S, B, kwargs.get("vdim", 6)))
    kpm = np.zeros((B, S), bool)
    kpm[1, 2:] = True
    amask = None
    if masks == "float":
        amask = rng.standard_normal((L, S))
    elif masks == "bool+padding":
        amask = np.zeros((L, S), bool)
        amask[0, 0] = amask[2, 1] = True
    kpm = kpm if "padding" in masks else None
    ref_out, ref_w = np_mha(m, q, k, v, kpm, amask)

    def run(**kw):
        args = [E(a.transpose(1, 0, 2)) if m.batch_first else E(a) for a in (q, k, v)]
        out, w = m(
            *args,
            key_padding_mask=None if kpm is None else E(kpm),
            attn_mask=None if amask is None else E(amask),
            **kw,
        )
        return (N(out).transpose(1, 0, 2) if m.batch_first else N(out)), w

    out, w = run()
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(N(w), ref_w.mean(1), rtol=1e-10, atol=1e-12)
    _, w = run(average_attn_weights=False)
    np.testing.assert_allclose(N(w), ref_w, rtol=1e-10, atol=1e-12)
    out, w = run(need_weights=False)  # the attention kernel's path
    assert w is None
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-10)


def test_mha_unbatched_and_3d_mask():
    rng = rng_for("mha3d")
    m = nn.MultiheadAttention(4, 2, dtype=F64).eval()
    _randomise(m, rng)
    q = rng.standard_normal((3, 1, 4))
    ref_out, ref_w = np_mha(m, q, q, q)
    out, w = m(E(q[:, 0]), E(q[:, 0]), E(q[:, 0]))
    assert tuple(out.shape) == (3, 4) and tuple(w.shape) == (3, 3)
    np.testing.assert_allclose(N(out), ref_out[:, 0], atol=1e-10)
    np.testing.assert_allclose(N(w), ref_w[0].mean(0), atol=1e-12)
    # A 3-D float mask is per (batch * head).
    mask = rng.standard_normal((2, 3, 3))
    out, w = m(E(q), E(q), E(q), attn_mask=E(mask), average_attn_weights=False)
    for j in range(2):
        scores = N(w)[0, j]
        np.testing.assert_allclose(scores.sum(-1), 1.0, atol=1e-12)
    ref_head0 = np_mha(m, q, q, q, attn_mask=mask[0][None])[1][0, 0]
    np.testing.assert_allclose(N(w)[0, 0], ref_head0, atol=1e-12)


def test_mha_names_and_init():
    ember.manual_seed(1)
    m = nn.MultiheadAttention(8, 2)
    assert list(m.state_dict()) == [
        "in_proj_weight",
        "in_proj_bias",
        "out_proj.weight",
        "out_proj.bias",
    ]
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(m.out_proj, nn.Linear)
    # Xavier-uniform in_proj_weight: bound sqrt(6 / (8 + 24)); zero biases.
    w = N(m.in_proj_weight)
    assert np.abs(w).max() <= math.sqrt(6 / 32) and np.abs(w).max() > 0.6 * math.sqrt(6 / 32)
    assert not N(m.in_proj_bias).any() and not N(m.out_proj.bias).any()
    sep = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert list(sep.state_dict()) == [
        "q_proj_weight",
        "k_proj_weight",
        "v_proj_weight",
        "in_proj_bias",
        "bias_k",
        "bias_v",
        "out_proj.weight",
        "out_proj.bias",
    ]
    assert sep.in_proj_weight is None and tuple(sep.k_proj_weight.shape) == (8, 3)


def test_mha_errors():
    with pytest.raises(AssertionError, match="divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    with pytest.raises(ValueError, match="must be greater than 0"):
        nn.MultiheadAttention(0, 1)
    m = nn.MultiheadAttention(4, 2)
    x = ember.zeros(3, 2, 4)
    with pytest.raises(RuntimeError, match="shape of the 2D attn_mask"):
        m(x, x, x, attn_mask=ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="batched 3D"):
        m(ember.zeros(1, 3, 2, 4), x, x)


# ---- transformer layers ----------------------------------------------------------------------


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_numpy(norm_first):
    rng = rng_for(f"enc{norm_first}")
    layer = nn.TransformerEncoderLayer(8, 2, 16, norm_first=norm_first, dtype=F64).eval()
    _randomise(layer, rng)
    x = rng.standard_normal((5, 2, 8))
    np.testing.assert_allclose(N(layer(E(x))), np_encoder_layer(layer, x), atol=1e-10)
    mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=F64)
    ref = np_encoder_layer(layer, x, N(mask))
    np.testing.assert_allclose(N(layer(E(x), src_mask=mask)), ref, atol=1e-10)
    np.testing.assert_allclose(N(layer(E(x), src_mask=mask, is_causal=True)), ref, atol=1e-10)


def test_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == ember.float32
    inf = float("-inf")
    assert N(m).tolist() == [[0, inf, inf], [0, 0, inf], [0, 0, 0]]


def test_encoder_stack_deep_copies_layers():
    rng = rng_for("stack")
    layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, dtype=F64)
    _randomise(layer, rng)
    norm = nn.LayerNorm(4, dtype=F64)
    enc = nn.TransformerEncoder(layer, 2, norm=norm).eval()
    assert enc.layers[0] is not enc.layers[1]
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    x = rng.standard_normal((3, 2, 4))
    ref = np_layer_norm(np_encoder_layer(layer, np_encoder_layer(layer, x)), norm)
    np.testing.assert_allclose(N(enc(E(x))), ref, atol=1e-10)
    with ember.no_grad():
        enc.layers[1].linear2.bias.add_(1.0)
    assert N(enc.layers[0].linear2.bias).tolist() == N(layer.linear2.bias).tolist()
    keys = list(enc.state_dict())
    assert keys[:4] == [
        "layers.0.self_attn.in_proj_weight",
        "layers.0.self_attn.in_proj_bias",
        "layers.0.self_attn.out_proj.weight",
        "layers.0.self_attn.out_proj.bias",
    ]
    assert keys[-2:] == ["norm.weight", "norm.bias"] and len(keys) == 2 * 12 + 2


def test_decoder_layer_names_and_self_consistency():
    layer = nn.TransformerDecoderLayer(4, 2, 8)
    assert list(layer.state_dict()) == [
        "self_attn.in_proj_weight",
        "self_attn.in_proj_bias",
        "self_attn.out_proj.weight",
        "self_attn.out_proj.bias",
        "multihead_attn.in_proj_weight",
        "multihead_attn.in_proj_bias",
        "multihead_attn.out_proj.weight",
        "multihead_attn.out_proj.bias",
        "linear1.weight",
        "linear1.bias",
        "linear2.weight",
        "linear2.bias",
        "norm1.weight",
        "norm1.bias",
        "norm2.weight",
        "norm2.bias",
        "norm3.weight",
        "norm3.bias",
    ]
    rng = rng_for("dec")
    layer = nn.TransformerDecoderLayer(4, 2, 8, dtype=F64).eval()
    _randomise(layer, rng)
    tgt, mem = rng.standard_normal((3, 2, 4)), rng.standard_normal((5, 2, 4))
    # Post-norm decoder = norm3(x + ff(x)) with x = norm2(y + cross(y, mem)), y = norm1(t + sa(t)).
    y = np_layer_norm(tgt + np_mha(layer.self_attn, tgt, tgt, tgt)[0], layer.norm1)
    x = np_layer_norm(y + np_mha(layer.multihead_attn, y, mem, mem)[0], layer.norm2)
    hidden = np.maximum(x @ N(layer.linear1.weight).T + N(layer.linear1.bias), 0)
    ref = np_layer_norm(x + hidden @ N(layer.linear2.weight).T + N(layer.linear2.bias), layer.norm3)
    np.testing.assert_allclose(N(layer(E(tgt), E(mem))), ref, atol=1e-10)


def test_transformer_runs_and_gradients_reach_every_parameter():
    ember.manual_seed(3)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)
    assert len(list(model.state_dict())) == 12 + 2 + 18 + 2
    src, tgt = ember.randn(2, 5, 8), ember.randn(2, 3, 8)
    mask = model.generate_square_subsequent_mask(3)
    out = model(src, tgt, tgt_mask=mask)
    assert tuple(out.shape) == (2, 3, 8)
    out.square().sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and np.abs(N(p.grad)).max() > 0, name
    with pytest.raises(RuntimeError, match="batch number of src and tgt must be equal"):
        model(src, ember.randn(3, 3, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt"):
        model(src, ember.randn(2, 3, 4))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")
