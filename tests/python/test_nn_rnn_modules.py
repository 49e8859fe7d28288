"""nn.RNN / LSTM / GRU, the cells and nn.utils.rnn: forward against a NumPy float64 recurrence
run sequence by sequence (so padded and packed batches share one reference), hand-checked packing,
parameter names and reprs as PyTorch's, gradients, errors."""

import copy
import math
import zlib

import numpy as np
import pytest
from conftest import rng_for

import ember
from ember import nn
from ember.nn.utils import rnn as rnn_utils

F64 = ember.float64


def E(a, grad=False):
    t = ember.from_numpy(np.ascontiguousarray(a, dtype=np.float64))
    return t.requires_grad_() if grad else t


def N(t):
    return t.detach().double().numpy()


# ---- NumPy reference -------------------------------------------------------------------------


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_step(mode, x, h, c, w):
    """One step of PyTorch's cell `mode` for one sequence; w = dict of this layer/direction."""
    gi = x @ w["ih"].T + w.get("bih", 0.0)
    gh = h @ w["hh"].T + w.get("bhh", 0.0)
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        if "hr" in w:
            h = w["hr"] @ h
        return h, c
    if mode == "GRU":
        ri, zi, ni = np.split(gi, 3)
        rh, zh, nh = np.split(gh, 3)
        r, z = _sig(ri + rh), _sig(zi + zh)
        n = np.tanh(ni + r * nh)
        return (1 - z) * n + z * h, c
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0.0)), c


def np_module(m, x, lengths, h0, c0):
    """Runs module m's recurrence in NumPy on x [T, B, I] (time-major), sequence b over its first
    lengths[b] steps. Returns (output [T, B, D*H'] zero past each length, h_n, c_n)."""
    D = 2 if m.bidirectional else 1
    T, B, _ = x.shape
    names = m._flat_weights_names
    params = {n: N(getattr(m, n)) for n in names}
    out_size = D * (m.proj_size or m.hidden_size)
    out = np.zeros((T, B, out_size))
    hn = np.zeros_like(h0)
    cn = None if c0 is None else np.zeros_like(c0)
    for b in range(B):
        seq = x[: lengths[b], b]
        for layer in range(m.num_layers):
            outs = []
            for d in range(D):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                w = {k: params[n + sfx] for k, n in _KEYS.items() if n + sfx in params}
                h = h0[layer * D + d, b]
                c = None if c0 is None else c0[layer * D + d, b]
                steps = range(len(seq) - 1, -1, -1) if d else range(len(seq))
                ys = np.zeros((len(seq), h.shape[0]))
                for t in steps:
                    h, c = np_step(m.mode, seq[t], h, c, w)
                    ys[t] = h
                hn[layer * D + d, b] = h
                if c0 is not None:
                    cn[layer * D + d, b] = c
                outs.append(ys)
            seq = np.concatenate(outs, axis=1)
        out[: lengths[b], b] = seq
    return out, hn, cn


_KEYS = {
    "ih": "weight_ih",
    "hh": "weight_hh",
    "bih": "bias_ih",
    "bhh": "bias_hh",
    "hr": "weight_hr",
}

CASES = [
    # (class, kwargs)
    ("LSTM", {}),
    ("GRU", {}),
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu"}),
    ("LSTM", {"proj_size": 2}),
]


def _make(cls, kwargs, rng_name, **extra):
    ember.manual_seed(zlib.crc32(rng_name.encode()))
    return getattr(nn, cls)(3, 4, dtype=F64, **kwargs, **extra)


def _states(m, B, rng):
    D = 2 if m.bidirectional else 1
    h0 = rng.standard_normal((m.num_layers * D, B, m.proj_size or m.hidden_size))
    c0 = rng.standard_normal((m.num_layers * D, B, m.hidden_size)) if m.mode == "LSTM" else None
    return h0, c0


def _call(m, x, h0, c0):
    if m.mode == "LSTM":
        out, (h, c) = m(x, (E(h0), E(c0)))
        return out, h, c
    out, h = m(x, E(h0))
    return out, h, None


@pytest.mark.parametrize("cls,kwargs", CASES)
@pytest.mark.parametrize("layers,bidir,batch_first", [(1, False, False), (2, True, True)])
def test_forward_matches_numpy(cls, kwargs, layers, bidir, batch_first):
    rng = rng_for(f"fwd{cls}{kwargs}{layers}{bidir}{batch_first}")
    m = _make(cls, kwargs, "fwd", num_layers=layers, bidirectional=bidir, batch_first=batch_first)
    T, B = 5, 3
    x = rng.standard_normal((T, B, 3))
    h0, c0 = _states(m, B, rng)
    out, h, c = _call(m, E(x.transpose(1, 0, 2) if batch_first else x), h0, c0)
    ref_out, ref_h, ref_c = np_module(m, x, [T] * B, h0, c0)
    if batch_first:
        ref_out = ref_out.transpose(1, 0, 2)
    np.testing.assert_allclose(N(out), ref_out, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(N(h), ref_h, rtol=1e-10, atol=1e-10)
    if c is not None:
        np.testing.assert_allclose(N(c), ref_c, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("cls,kwargs", CASES)
@pytest.mark.parametrize("bidir", [False, True])
def test_packed_matches_per_sequence_numpy(cls, kwargs, bidir):
    rng = rng_for(f"packed{cls}{kwargs}{bidir}")
    m = _make(cls, kwargs, "packed", num_layers=2, bidirectional=bidir)
    lengths = [3, 5, 1, 5, 2]
    T, B = 5, len(lengths)
    x = rng.standard_normal((T, B, 3))
    h0, c0 = _states(m, B, rng)
    packed = rnn_utils.pack_padded_sequence(E(x), lengths, enforce_sorted=False)
    out, h, c = _call(m, packed, h0, c0)
    assert isinstance(out, rnn_utils.PackedSequence)
    assert out.sorted_indices.tolist() == packed.sorted_indices.tolist()
    padded, out_lengths = rnn_utils.pad_packed_sequence(out)
    assert out_lengths.tolist() == lengths
    ref_out, ref_h, ref_c = np_module(m, x, lengths, h0, c0)
    np.testing.assert_allclose(N(padded), ref_out, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(N(h), ref_h, rtol=1e-10, atol=1e-10)
    if c is not None:
        np.testing.assert_allclose(N(c), ref_c, rtol=1e-10, atol=1e-10)


def test_packed_default_state_and_unbatched():
    rng = rng_for("unbatched")
    m = _make("GRU", {}, "unbatched", num_layers=2, bidirectional=True)
    x = rng.standard_normal((4, 3))
    zeros = np.zeros((4, 1, 4))
    out, h = m(E(x))
    ref_out, ref_h, _ = np_module(m, x[:, None], [4], zeros, None)
    assert tuple(out.shape) == (4, 8) and tuple(h.shape) == (4, 4)
    np.testing.assert_allclose(N(out), ref_out[:, 0], atol=1e-10)
    np.testing.assert_allclose(N(h), ref_h[:, 0], atol=1e-10)
    # A packed batch of one sequence with no initial state gives the same numbers.
    out_p, h_p = m(rnn_utils.pack_sequence([E(x)]))
    np.testing.assert_allclose(N(out_p.data), ref_out[:, 0], atol=1e-10)
    np.testing.assert_allclose(N(h_p), ref_h, atol=1e-10)


# ---- names, reprs, init ----------------------------------------------------------------------


def test_state_dict_keys_are_torchs():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert list(lstm.state_dict()) == [
        "weight_ih_l0",
        "weight_hh_l0",
        "bias_ih_l0",
        "bias_hh_l0",
        "weight_ih_l0_reverse",
        "weight_hh_l0_reverse",
        "bias_ih_l0_reverse",
        "bias_hh_l0_reverse",
        "weight_ih_l1",
        "weight_hh_l1",
        "bias_ih_l1",
        "bias_hh_l1",
        "weight_ih_l1_reverse",
        "weight_hh_l1_reverse",
        "bias_ih_l1_reverse",
        "bias_hh_l1_reverse",
    ]
    assert list(nn.LSTM(3, 4, proj_size=2, bias=False).state_dict()) == [
        "weight_ih_l0",
        "weight_hh_l0",
        "weight_hr_l0",
    ]
    assert list(nn.GRUCell(3, 4).state_dict()) == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert list(nn.RNNCell(3, 4, bias=False).state_dict()) == ["weight_ih", "weight_hh"]
    shapes = {k: tuple(v.shape) for k, v in nn.LSTM(3, 4, 2, proj_size=2).state_dict().items()}
    assert shapes == {
        "weight_ih_l0": (16, 3),
        "weight_hh_l0": (16, 2),
        "bias_ih_l0": (16,),
        "bias_hh_l0": (16,),
        "weight_hr_l0": (2, 4),
        "weight_ih_l1": (16, 2),
        "weight_hh_l1": (16, 2),
        "bias_ih_l1": (16,),
        "bias_hh_l1": (16,),
        "weight_hr_l1": (2, 4),
    }
    gru = nn.GRU(3, 5, bidirectional=True)
    assert tuple(gru.weight_ih_l0_reverse.shape) == (15, 3)


def test_reprs_are_torchs():
    assert repr(nn.LSTM(2, 3)) == "LSTM(2, 3)"
    assert (
        repr(
            nn.RNN(
                2,
                3,
                2,
                nonlinearity="relu",
                bias=False,
                batch_first=True,
                dropout=0.5,
                bidirectional=True,
            )
        )
        == "RNN(2, 3, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)"
    )
    assert repr(nn.LSTM(2, 3, proj_size=2)) == "LSTM(2, 3, proj_size=2)"
    assert repr(nn.RNNCell(2, 3, nonlinearity="relu")) == "RNNCell(2, 3, nonlinearity=relu)"
    assert repr(nn.LSTMCell(2, 3, bias=False)) == "LSTMCell(2, 3, bias=False)"


def test_default_init_is_uniform_in_one_over_sqrt_hidden():
    ember.manual_seed(0)
    m = nn.LSTM(8, 16, num_layers=2)
    bound = 1 / math.sqrt(16)
    values = np.concatenate([N(p).ravel() for p in m.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    # U(-b, b) has standard deviation b / sqrt(3).
    assert abs(values.std() - bound / math.sqrt(3)) < 0.01
    assert len(m._flat_weights) == 8 and m._flat_weights[0] is m.weight_ih_l0
    m.flatten_parameters()  # a no-op


def test_flat_weights_follow_load_state_dict_and_dtype_changes():
    rng = rng_for("flat")
    a, b = nn.GRU(3, 4), nn.GRU(3, 4)
    b.load_state_dict(a.state_dict())
    x = E(rng.standard_normal((2, 1, 3))).float()
    np.testing.assert_array_equal(N(a(x)[0]), N(b(x)[0]))
    b.double()
    assert b._flat_weights[0].dtype == F64
    np.testing.assert_allclose(N(b(x.double())[0]), N(a(x)[0]), atol=1e-6)
    c = copy.deepcopy(a)
    np.testing.assert_array_equal(N(c(x)[0]), N(a(x)[0]))
    assert c.weight_ih_l0 is not a.weight_ih_l0


# ---- gradients, dropout --------------------------------------------------------------------


def test_gradients_reach_every_weight_through_packed_input():
    rng = rng_for("grads")
    m = _make("LSTM", {"proj_size": 2}, "grads", num_layers=2, bidirectional=True)
    x = E(rng.standard_normal((4, 3, 3)), grad=True)
    packed = rnn_utils.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
    out, (h, c) = m(packed)
    (out.data.square().sum() + h.sum() + c.sum()).backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and np.abs(N(p.grad)).max() > 0, name
    # Padding never reaches the output: its gradient is zero.
    g = N(x.grad)
    assert np.all(g[2:, 0] == 0) and np.all(g[3:, 2] == 0) and np.abs(g[:2, 0]).max() > 0


def test_packed_gradient_matches_finite_differences():
    rng = rng_for("fd")
    m = _make("GRU", {}, "fd", bidirectional=True)
    x = rng.standard_normal((3, 2, 3))

    def loss():
        out, h = m(rnn_utils.pack_padded_sequence(E(x), [3, 1]))
        return (out.data * E(np.linspace(-1, 1, 16).reshape(2, 8)).repeat(2, 1)).sum() + h.sum()

    loss().backward()
    w = m.weight_hh_l0_reverse
    analytic = N(w.grad)
    numeric = np.zeros_like(analytic)
    eps = 1e-6
    base = N(w).copy()
    for idx in [(0, 0), (5, 2), (11, 3)]:
        for sign in (1, -1):
            arr = base.copy()
            arr[idx] += sign * eps
            with ember.no_grad():
                w.copy_(E(arr))
            numeric[idx] += sign * loss().item() / (2 * eps)
        with ember.no_grad():
            w.copy_(E(base))
        np.testing.assert_allclose(analytic[idx], numeric[idx], rtol=1e-6, atol=1e-8)


def test_dropout_between_layers_only_in_training():
    rng = rng_for("dropout")
    m = _make("LSTM", {}, "dropout", num_layers=2, dropout=0.5)
    x = E(rng.standard_normal((4, 2, 3)))
    m.eval()
    a, b = N(m(x)[0]), N(m(x)[0])
    np.testing.assert_array_equal(a, b)
    m.train()
    assert np.abs(N(m(x)[0]) - a).max() > 1e-6
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.2)


# ---- cells -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_numpy(cls):
    rng = rng_for("cell" + cls)
    m = getattr(nn, cls)(3, 4, dtype=F64)
    mode = {"RNNCell": "RNN_TANH", "LSTMCell": "LSTM", "GRUCell": "GRU"}[cls]
    x = rng.standard_normal((2, 3))
    h = rng.standard_normal((2, 4))
    c = rng.standard_normal((2, 4))
    w = {"ih": N(m.weight_ih), "hh": N(m.weight_hh), "bih": N(m.bias_ih), "bhh": N(m.bias_hh)}
    refs = [np_step(mode, x[i], h[i], c[i], w) for i in range(2)]
    if cls == "LSTMCell":
        h1, c1 = m(E(x), (E(h), E(c)))
        np.testing.assert_allclose(N(h1), [r[0] for r in refs], atol=1e-12)
        np.testing.assert_allclose(N(c1), [r[1] for r in refs], atol=1e-12)
        h_u, c_u = m(E(x[0]))  # unbatched, zero state
        ref = np_step(mode, x[0], np.zeros(4), np.zeros(4), w)
        np.testing.assert_allclose(N(h_u), ref[0], atol=1e-12)
        np.testing.assert_allclose(N(c_u), ref[1], atol=1e-12)
    else:
        h1 = m(E(x), E(h))
        np.testing.assert_allclose(N(h1), [r[0] for r in refs], atol=1e-12)
        h_u = m(E(x[1]), E(h[1]))
        assert tuple(h_u.shape) == (4,)
        np.testing.assert_allclose(N(h_u), refs[1][0], atol=1e-12)


# ---- errors ----------------------------------------------------------------------------------


def test_errors_name_the_module_and_the_sizes():
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="input_size. Expected 3, got 5"):
        m(ember.zeros(2, 1, 5))
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"
    ):
        m(ember.zeros(2, 2, 3), (ember.zeros(1, 3, 4), ember.zeros(1, 2, 4)))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D"):
        m(ember.zeros(1, 2, 2, 3))
    with pytest.raises(RuntimeError, match="hx and cx should also be 3-D"):
        m(ember.zeros(2, 2, 3), (ember.zeros(2, 4), ember.zeros(2, 4)))
    with pytest.raises(RuntimeError, match="GRU: For unbatched 2-D input, hx should also be 2-D"):
        nn.GRU(3, 4)(ember.zeros(2, 3), ember.zeros(1, 1, 4))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        nn.GRU(3, 4.0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.GRU(3, 4, num_layers=0)
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D"):
        nn.GRUCell(3, 4)(ember.zeros(1, 1, 3))
    with pytest.raises(RuntimeError, match="LSTMCell: input has inconsistent input_size"):
        nn.LSTMCell(3, 4)(ember.zeros(2, 5))


# ---- nn.utils.rnn ----------------------------------------------------------------------------


def _steps(T, B):
    # x[t, b] = 10 * t + b: every packed row names its origin.
    return E(np.arange(T)[:, None, None] * 10.0 + np.arange(B)[None, :, None])


def test_pack_padded_sequence_by_hand():
    packed = rnn_utils.pack_padded_sequence(_steps(4, 3), [4, 2, 1])
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    assert packed.batch_sizes.dtype == ember.int64
    assert N(packed.data).ravel().tolist() == [0, 1, 2, 10, 11, 20, 30]
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    data, batch_sizes, sorted_indices, unsorted_indices = packed  # a namedtuple
    assert data is packed.data

    unsorted = rnn_utils.pack_padded_sequence(_steps(3, 3), [1, 3, 2], enforce_sorted=False)
    assert unsorted.batch_sizes.tolist() == [3, 2, 1]
    assert unsorted.sorted_indices.tolist() == [1, 2, 0]
    assert unsorted.unsorted_indices.tolist() == [2, 0, 1]
    assert N(unsorted.data).ravel().tolist() == [1, 2, 0, 11, 12, 21]

    bf = rnn_utils.pack_padded_sequence(_steps(4, 3).transpose(0, 1), [4, 2, 1], batch_first=True)
    assert N(bf.data).ravel().tolist() == [0, 1, 2, 10, 11, 20, 30]


@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_packed_round_trip(batch_first):
    x = _steps(4, 3)
    lengths = [2, 4, 1]
    packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False)
    padded, out_lengths = rnn_utils.pad_packed_sequence(
        packed, batch_first=batch_first, padding_value=-1.0, total_length=5
    )
    assert out_lengths.tolist() == lengths
    ref = np.full((5, 3, 1), -1.0)
    for b, n in enumerate(lengths):
        ref[:n, b] = N(x)[:n, b]
    np.testing.assert_array_equal(N(padded), ref.transpose(1, 0, 2) if batch_first else ref)


def test_pad_sequence_left_and_right():
    a, b = E([1.0, 2.0, 3.0]), E([4.0])
    assert N(rnn_utils.pad_sequence([a, b])).tolist() == [[1, 4], [2, 0], [3, 0]]
    assert N(rnn_utils.pad_sequence([a, b], batch_first=True, padding_value=9)).tolist() == [
        [1, 2, 3],
        [4, 9, 9],
    ]
    left = rnn_utils.pad_sequence([a, b], batch_first=True, padding_side="left")
    assert N(left).tolist() == [[1, 2, 3], [0, 0, 4]]
    parts = rnn_utils.unpad_sequence(rnn_utils.pad_sequence([a, b]), [3, 1])
    assert [N(p).tolist() for p in parts] == [[1, 2, 3], [4]]


def test_pack_sequence_and_unpack():
    seqs = [E([[1.0], [2.0]]), E([[3.0], [4.0], [5.0]]), E([[6.0]])]
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert N(packed.data).ravel().tolist() == [3, 1, 6, 4, 2, 5]
    assert [N(s).ravel().tolist() for s in rnn_utils.unpack_sequence(packed)] == [
        [1, 2],
        [3, 4, 5],
        [6],
    ]
    moved = packed.to(F64)
    assert moved.data.dtype == F64 and moved.batch_sizes is packed.batch_sizes
    assert packed.to(packed.data.dtype) is packed


def test_packing_errors():
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn_utils.pack_padded_sequence(_steps(3, 2), [1, 3])
    with pytest.raises(RuntimeError, match="greater than 0"):
        rnn_utils.pack_padded_sequence(_steps(3, 2), [3, 0])
    with pytest.raises(RuntimeError, match=r"got 3 \(batch_size=2\)"):
        rnn_utils.pack_padded_sequence(_steps(3, 2), [3, 2, 1])
    with pytest.raises(RuntimeError, match="padding_side to be one of left or right"):
        rnn_utils.pad_sequence([E([1.0])], padding_side="middle")
    packed = rnn_utils.pack_padded_sequence(_steps(3, 2), [3, 2])
    with pytest.raises(ValueError, match="total_length=2 and max sequence length being 3"):
        rnn_utils.pad_packed_sequence(packed, total_length=2)
    with pytest.raises(RuntimeError, match="input must have 2 dimensions"):
        nn.GRU(1, 2)(rnn_utils.PackedSequence(ember.zeros(5), packed.batch_sizes))
