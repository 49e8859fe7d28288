"""PyTorch side by side (skipped without torch): the recurrent, attention and transformer modules
with weights copied from torch's, outputs (and for the recurrent ones, gradients) to float32
tolerance, padded and packed."""

import numpy as np
import pytest
from conftest import rng_for

import ember
from ember import nn
from ember.nn.utils import rnn as rnn_utils

torch = pytest.importorskip("torch")
TR = torch.nn.utils.rnn


def copy_weights(tm, em):
    sd = {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    assert list(sd) == list(em.state_dict())
    em.load_state_dict(sd)


def close(t, e, tol=2e-5):
    a = t.detach().numpy()
    b = e.detach().numpy()
    assert a.shape == b.shape
    np.testing.assert_allclose(b, a, atol=tol, rtol=tol)


def states(out):
    h = out[1]
    return list(h) if isinstance(h, tuple) else [h]


@pytest.mark.parametrize(
    "cls,kwargs",
    [("LSTM", {}), ("GRU", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {"proj_size": 2})],
)
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_modules_match_torch(cls, kwargs, batch_first):
    rng = rng_for(f"torch{cls}{kwargs}{batch_first}")
    kw = dict(num_layers=2, bidirectional=True, batch_first=batch_first, **kwargs)
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(3, 5, **kw)
    em = getattr(nn, cls)(3, 5, **kw)
    copy_weights(tm, em)
    x = rng.standard_normal((4, 6, 3)).astype(np.float32)  # [B, T] or [T, B]
    t_out = tm(torch.from_numpy(x))
    e_out = em(ember.from_numpy(x))
    close(t_out[0], e_out[0])
    for t, e in zip(states(t_out), states(e_out)):
        close(t, e)

    lengths = [2, 6, 3, 6] if batch_first else [3, 1, 4, 2, 4, 3]
    tx = torch.from_numpy(x).requires_grad_()
    ex = ember.from_numpy(x).requires_grad_()
    tp = TR.pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=False)
    ep = rnn_utils.pack_padded_sequence(ex, lengths, batch_first=batch_first, enforce_sorted=False)
    t_out, e_out = tm(tp), em(ep)
    close(t_out[0].data, e_out[0].data)
    for t, e in zip(states(t_out), states(e_out)):
        close(t, e)
    (t_out[0].data.square().sum() + sum(s.sum() for s in states(t_out))).backward()
    (e_out[0].data.square().sum() + sum(s.sum() for s in states(e_out))).backward()
    close(tx.grad, ex.grad, 1e-4)
    for tp_, ep_ in zip(tm.parameters(), em.parameters()):
        close(tp_.grad, ep_.grad, 1e-4)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True, "add_zero_attn": True}, {"bias": False}],
)
def test_multihead_attention_matches_torch(kwargs):
    rng = rng_for(f"torchmha{kwargs}")
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=True, **kwargs).eval()
    em = nn.MultiheadAttention(8, 2, batch_first=True, **kwargs).eval()
    copy_weights(tm, em)
    q = rng.standard_normal((2, 3, 8)).astype(np.float32)
    k = rng.standard_normal((2, 4, kwargs.get("kdim", 8))).astype(np.float32)
    v = rng.standard_normal((2, 4, kwargs.get("vdim", 8))).astype(np.float32)
    kpm = np.zeros((2, 4), bool)
    kpm[0, 3] = True
    mask = rng.standard_normal((3, 4)).astype(np.float32)
    for need_weights in (True, False):
        t = tm(
            *(torch.from_numpy(a) for a in (q, k, v)),
            key_padding_mask=torch.from_numpy(kpm),
            attn_mask=torch.from_numpy(mask),
            need_weights=need_weights,
        )
        e = em(
            *(ember.from_numpy(a) for a in (q, k, v)),
            key_padding_mask=ember.from_numpy(kpm),
            attn_mask=ember.from_numpy(mask),
            need_weights=need_weights,
        )
        close(t[0], e[0])
        if need_weights:
            close(t[1], e[1])


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_layers_match_torch(norm_first, activation):
    rng = rng_for(f"torchlayers{norm_first}{activation}")
    torch.manual_seed(0)
    kw = dict(activation=activation, norm_first=norm_first, batch_first=True)
    t_enc = torch.nn.TransformerEncoderLayer(8, 2, 16, **kw).eval()
    e_enc = nn.TransformerEncoderLayer(8, 2, 16, **kw).eval()
    t_dec = torch.nn.TransformerDecoderLayer(8, 2, 16, **kw).eval()
    e_dec = nn.TransformerDecoderLayer(8, 2, 16, **kw).eval()
    copy_weights(t_enc, e_enc)
    copy_weights(t_dec, e_dec)
    x = rng.standard_normal((2, 5, 8)).astype(np.float32)
    mem = rng.standard_normal((2, 4, 8)).astype(np.float32)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    e_mask = nn.Transformer.generate_square_subsequent_mask(5)
    close(mask, e_mask)
    close(t_enc(torch.from_numpy(x)), e_enc(ember.from_numpy(x)))
    close(
        t_enc(torch.from_numpy(x), src_mask=mask, is_causal=True),
        e_enc(ember.from_numpy(x), src_mask=e_mask, is_causal=True),
    )
    close(
        t_dec(torch.from_numpy(x), torch.from_numpy(mem), tgt_mask=mask),
        e_dec(ember.from_numpy(x), ember.from_numpy(mem), tgt_mask=e_mask),
    )


@pytest.mark.parametrize("batched", [True, False])
def test_transformer_matches_torch(batched):
    rng = rng_for(f"torchtransformer{batched}")
    torch.manual_seed(0)
    tm = torch.nn.Transformer(8, 2, 2, 2, 16, activation="gelu").eval()
    em = nn.Transformer(8, 2, 2, 2, 16, activation="gelu").eval()
    copy_weights(tm, em)
    src = rng.standard_normal((5, 2, 8) if batched else (5, 8)).astype(np.float32)
    tgt = rng.standard_normal((4, 2, 8) if batched else (4, 8)).astype(np.float32)
    kpm = np.zeros((2, 5) if batched else (5,), bool)
    kpm[..., 4] = True
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    t = tm(
        torch.from_numpy(src),
        torch.from_numpy(tgt),
        tgt_mask=mask,
        src_key_padding_mask=torch.from_numpy(kpm),
        memory_key_padding_mask=torch.from_numpy(kpm),
    )
    e = em(
        ember.from_numpy(src),
        ember.from_numpy(tgt),
        tgt_mask=ember.from_numpy(mask.numpy()),
        src_key_padding_mask=ember.from_numpy(kpm),
        memory_key_padding_mask=ember.from_numpy(kpm),
    )
    close(t, e)
