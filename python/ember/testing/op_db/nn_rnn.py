"""Op-table records of the neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU).

The NumPy references here (np_cell, np_rnn) are float64 transcriptions of PyTorch's formulas;
tests/python/test_nn_rnn.py uses them too. Shapes are tiny so that gradcheck (at most 200 input
elements) and gradgradcheck (30) reach the samples."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    FLOAT32_64,
    ErrorSample,
    OpSpec,
    Sample,
    make_array,
)

GATES = {"rnn_tanh": 1, "rnn_relu": 1, "lstm": 4, "gru": 3}

# ---- NumPy references ----------------------------------------------------------------------------


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_cell(mode, x, h, c, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of `mode` ("rnn_tanh", "rnn_relu", "lstm", "gru"); returns (h', c')."""
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "rnn_tanh":
        return np.tanh(gi + gh), None
    if mode == "rnn_relu":
        return np.maximum(gi + gh, 0), None
    if mode == "lstm":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c2 = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c2), c2
    ir, iz, in_ = np.split(gi, 3, axis=-1)
    hr, hz, hn = np.split(gh, 3, axis=-1)
    r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
    n = np.tanh(in_ + r * hn)
    return (1 - z) * n + z * h, None


def np_rnn(mode, x, h0, c0, params, has_biases, num_layers, bidirectional, batch_first):
    """torch.<mode>(input, hx, params, ...) without dropout: (output, h_n, c_n or None)."""
    lstm = mode == "lstm"
    proj = lstm and h0.shape[2] != c0.shape[2]
    per = 2 + 2 * has_biases + proj
    D = 2 if bidirectional else 1
    inp = x.swapaxes(0, 1) if batch_first else x
    T, B = inp.shape[:2]
    hn, cn = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            p = params[k * per : (k + 1) * per]
            b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
            h, c = h0[k], (c0[k] if lstm else None)
            out = np.zeros((T, B, h0.shape[2]))
            for t in reversed(range(T)) if d == 1 else range(T):
                h, c = np_cell(mode, inp[t], h, c, p[0], p[1], b_ih, b_hh)
                if proj:
                    h = h @ p[-1].T
                out[t] = h
            outs.append(out)
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, axis=2)
    out = inp.swapaxes(0, 1) if batch_first else inp
    return out, np.stack(hn), (np.stack(cn) if lstm else None)


# ---- cells ---------------------------------------------------------------------------------------


def _w(shape, dtype, rng):
    return make_array(shape, dtype, rng, -0.8, 0.8)


def _cell_op(mode):
    fn = getattr(ember, mode + "_cell")
    if mode == "lstm":
        return lambda x, h, c, *w: fn(x, (h, c), *w)
    return fn


def _cell_ref(mode):
    if mode == "lstm":
        return lambda x, h, c, *w: np_cell(mode, x, h, c, *w)
    return lambda x, h, *w: np_cell(mode, x, h, None, *w)[0]


def _cell_samples(mode):
    G = GATES[mode]

    def make(dtype, rng):
        out = []
        for B, I, H, bias in [(2, 3, 3, True), (3, 2, 2, False), (1, 1, 1, True), (0, 2, 2, True)]:
            states = [_w((B, H), dtype, rng) for _ in range(2 if mode == "lstm" else 1)]
            ws = [_w((G * H, I), dtype, rng), _w((G * H, H), dtype, rng)]
            if bias:
                ws += [_w((G * H,), dtype, rng), _w((G * H,), dtype, rng)]
            x = _w((B, I), dtype, rng)
            out.append(Sample((x, *states, *ws), desc=f"B={B} I={I} H={H} bias={bias}"))
        return out

    return make


def _cell_errors(mode):
    G = GATES[mode]
    fn = _cell_op(mode)

    def errors():
        def call(B=2, I=3, H=4, x_dim=2, h_size=None, x_size=None, hb=None, dtype=ember.float32):
            x = ember.randn(*([B, x_size or I][:x_dim] if x_dim <= 2 else [1, B, I]))
            states = [ember.randn(hb or B, h_size or H) for _ in range(2 if mode == "lstm" else 1)]
            ws = [ember.randn(G * H, I), ember.randn(G * H, H), ember.randn(G * H).to(dtype)]
            return fn(x, *states, *ws, ember.randn(G * H))

        errs = [
            ErrorSample(lambda: call(h_size=3), RuntimeError, "inconsistent hidden_size", "hx"),
            ErrorSample(lambda: call(x_size=2), RuntimeError, "inconsistent input_size", "x"),
            ErrorSample(lambda: call(x_dim=1), RuntimeError, "Expected 2D input", "1-d input"),
            ErrorSample(lambda: call(x_dim=3), RuntimeError, "Expected 2D input", "3-d input"),
            ErrorSample(lambda: call(hb=3), RuntimeError, "batch size", "batch"),
            ErrorSample(lambda: call(dtype=ember.float64), RuntimeError, "dtype", "bias dtype"),
        ]
        if mode == "lstm":
            x, h = ember.randn(2, 3), ember.randn(2, 4)
            errs.append(
                ErrorSample(
                    lambda: ember.lstm_cell(x, (h,), ember.randn(16, 3), ember.randn(16, 4)),
                    RuntimeError,
                    "two hidden states",
                    "one state",
                )
            )
        else:
            x, h = ember.randn(2, 3), ember.randn(2, 4)
            errs.append(
                ErrorSample(
                    lambda: fn(x, h, ember.randn(G * 4 + 1, 3), ember.randn(G * 4, 4)),
                    RuntimeError,
                    "weight_ih first dim",
                    "w_ih rows",
                )
            )
        return errs

    return errors


# ---- sequences -----------------------------------------------------------------------------------


def _seq_op(mode):
    fn = getattr(ember, mode)

    def op(x, h0, *rest, has_biases, num_layers, bidirectional, batch_first):
        if mode == "lstm":
            c0, params = rest[0], list(rest[1:])
            return fn(x, (h0, c0), params, has_biases, num_layers, 0.0, False, bidirectional,
                      batch_first)  # fmt: skip
        return fn(x, h0, list(rest), has_biases, num_layers, 0.0, False, bidirectional, batch_first)

    return op


def _seq_ref(mode):
    def ref(x, h0, *rest, has_biases, num_layers, bidirectional, batch_first):
        c0, params = (rest[0], rest[1:]) if mode == "lstm" else (None, rest)
        out, hn, cn = np_rnn(
            mode, x, h0, c0, params, has_biases, num_layers, bidirectional, batch_first
        )
        return (out, hn, cn) if mode == "lstm" else (out, hn)

    return ref


def seq_arrays(mode, dtype, rng, T, B, I, H, L, D, bias, batch_first=False, proj=0):
    """(x, h0, [c0], *params) for torch.<mode>, small random values."""
    G, P = GATES[mode], proj or H
    x = _w((B, T, I) if batch_first else (T, B, I), dtype, rng)
    states = [_w((L * D, B, P), dtype, rng)]
    if mode == "lstm":
        states.append(_w((L * D, B, H), dtype, rng))
    params = []
    for layer in range(L):
        for _ in range(D):
            params += [
                _w((G * H, I if layer == 0 else D * P), dtype, rng),
                _w((G * H, P), dtype, rng),
            ]
            if bias:
                params += [_w((G * H,), dtype, rng), _w((G * H,), dtype, rng)]
            if proj:
                params.append(_w((P, H), dtype, rng))
    return (x, *states, *params)


def _seq_samples(mode):
    cases = [
        # T, B, I, H, L, D, bias, batch_first, proj
        (3, 2, 2, 2, 1, 1, True, False, 0),
        (2, 1, 1, 2, 2, 2, False, True, 0),
        (3, 2, 2, 2, 1, 2, True, False, 0),
        (2, 0, 2, 2, 1, 1, True, False, 0),
    ]
    if mode == "lstm":
        cases.append((3, 2, 2, 2, 1, 2, True, True, 1))

    def make(dtype, rng):
        out = []
        for T, B, I, H, L, D, bias, bf, proj in cases:
            args = seq_arrays(mode, dtype, rng, T, B, I, H, L, D, bias, bf, proj)
            kw = dict(has_biases=bias, num_layers=L, bidirectional=D == 2, batch_first=bf)
            out.append(Sample(args, kw, desc=f"T={T} B={B} L={L} D={D} {kw} proj={proj}"))
        return out

    return make


def _seq_errors(mode):
    fn = getattr(ember, mode)
    G = GATES[mode]

    def call(T=3, B=2, I=3, H=4, L=1, x_dim=3, params=4, h_shape=None, dropout=0.0, w_in=None):
        x = ember.randn(*[T, B, I][3 - x_dim :])
        hx = ember.randn(*(h_shape or (L, B, H)))
        ps = [ember.randn(G * H, w_in or I), ember.randn(G * H, H), ember.randn(G * H)]
        ps = (ps + [ember.randn(G * H)])[:params]
        state = (hx, ember.randn(L, B, H)) if mode == "lstm" else hx
        return fn(x, state, ps, params >= 4, L, dropout, True, False, False)

    def errors():
        errs = [
            ErrorSample(lambda: call(x_dim=2), RuntimeError, "expected input of 3 dims", "2-d"),
            ErrorSample(lambda: call(params=3), RuntimeError, "incorrect number of RNN param", "n"),
            ErrorSample(lambda: call(h_shape=(2, 2, 4)), RuntimeError, "Expected hidden", "hx"),
            ErrorSample(lambda: call(w_in=2), RuntimeError, "inconsistent input_size", "input"),
            ErrorSample(lambda: call(T=0), RuntimeError, "sequence length", "empty sequence"),
            ErrorSample(lambda: call(dropout=1.5), ValueError, "dropout", "dropout"),
            ErrorSample(lambda: call(L=0), RuntimeError, "num_layers", "no layer"),
        ]
        if mode == "lstm":
            x, h = ember.randn(3, 2, 3), ember.randn(1, 2, 4)
            ps = [ember.randn(16, 3), ember.randn(16, 4)]
            errs.append(
                ErrorSample(
                    lambda: ember.lstm(x, (h,), ps, False, 1, 0.0, False, False, False),
                    RuntimeError,
                    "two hidden states",
                    "one state",
                )
            )
        return errs

    return errors


def records():
    out = []
    for mode in ("rnn_tanh", "rnn_relu", "lstm", "gru"):
        out.append(
            OpSpec(
                mode + "_cell",
                _cell_op(mode),
                _cell_ref(mode),
                FLOAT32_64,
                _cell_samples(mode),
                gradgrad=True,
                errors=_cell_errors(mode),
            )
        )
        out.append(
            OpSpec(
                mode,
                _seq_op(mode),
                _seq_ref(mode),
                FLOAT32_64,
                _seq_samples(mode),
                # One kernel node per layer: double backward raises (test_nn_rnn.py).
                gradgrad=False,
                errors=_seq_errors(mode),
            )
        )
    return out
