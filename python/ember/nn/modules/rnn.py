"""Recurrent layers, as torch.nn: RNNBase, RNN, LSTM, GRU and the cells RNNCell, LSTMCell,
GRUCell.

The modules only hold parameters (named and initialised as PyTorch's) and check arguments; the
recurrences are the C++ ops ember.rnn_tanh / rnn_relu / lstm / gru and their *_cell forms
(ember/ops/nn_rnn.h). The ops take padded batches only, so a PackedSequence runs one layer and
direction at a time over the runs of steps that share a batch size (_packed_layer): one op call
per distinct sequence length, the rows of the sequences that have ended keeping their last state.
"""

from __future__ import annotations

import math
import numbers
import warnings

import ember
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn.utils.rnn import PackedSequence, _runs

__all__: list[str] = [
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_OPS = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def _reset_uniform(module, hidden_size):
    # PyTorch's default: every weight and bias from U(-1/sqrt(hidden), 1/sqrt(hidden)).
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
    with ember.no_grad():
        for weight in module.parameters():
            weight.uniform_(-stdv, stdv)


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    """The common base of RNN, LSTM and GRU: parameters weight_ih_l{k}, weight_hh_l{k},
    bias_ih_l{k}, bias_hh_l{k} (and weight_hr_l{k} with proj_size), `_reverse` for the second
    direction, in PyTorch's order (`_flat_weights_names`)."""

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        name = type(self).__name__
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                f"{name}: dropout should be a number in range [0, 1] representing the "
                f"probability of an element being zeroed, got {dropout!r}"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        for arg, value in (("hidden_size", hidden_size), ("num_layers", num_layers)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name}: {arg} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name}: {arg} must be greater than zero, got {value}")
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError(
                f"{name}: proj_size should be a positive integer or zero to disable projections, "
                f"got {proj_size!r}"
            )
        if proj_size > 0 and mode != "LSTM":
            raise ValueError(
                f"{name}: proj_size argument is only supported for LSTM, not RNN or GRU"
            )
        if proj_size >= hidden_size:
            raise ValueError(
                f"{name}: proj_size has to be smaller than hidden_size, got proj_size={proj_size} "
                f"and hidden_size={hidden_size}"
            )
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [
                    (f"weight_ih_l{layer}{suffix}", (gate_size, layer_input_size)),
                    (f"weight_hh_l{layer}{suffix}", (gate_size, real_hidden_size)),
                ]
                if bias:
                    shapes.append((f"bias_ih_l{layer}{suffix}", (gate_size,)))
                    shapes.append((f"bias_hh_l{layer}{suffix}", (gate_size,)))
                if proj_size > 0:
                    shapes.append((f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size)))
                for pname, shape in shapes:
                    setattr(
                        self,
                        pname,
                        Parameter(ember.empty(shape, device=device, dtype=dtype)),
                    )
                self._flat_weights_names.extend(n for n, _ in shapes)
                self._all_weights.append([n for n, _ in shapes])
        self.reset_parameters()

    @property
    def _flat_weights(self):
        # Read from the attributes every time, so that it follows load_state_dict, .to() and
        # reassignment without the bookkeeping PyTorch needs for its cached list.
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in weights] for weights in self._all_weights]

    def flatten_parameters(self):
        """A no-op: ember's ops take the weights as separate tensors (no cuDNN flat buffer)."""

    def reset_parameters(self):
        _reset_uniform(self, self.hidden_size)

    def _real_hidden_size(self):
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    def check_input(self, input, batch_sizes):
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"{type(self).__name__}: input must have {expected_input_dim} dimensions, got "
                f"{input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"{type(self).__name__}: input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self._real_hidden_size())

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(
                f"{type(self).__name__}: " + msg.format(expected_hidden_size, list(hx.size()))
            )

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- running the op ------------------------------------------------------------------------

    def _run(self, input, hx, batch_sizes):
        """input [T, B, I] (or packed data [N, I] with batch_sizes), hx the list of states
        ([h] or [h, c]); returns (output, [h_n] or [h_n, c_n])."""
        op = getattr(ember, _OPS[self.mode])
        if batch_sizes is None:
            state = hx if self.mode == "LSTM" else hx[0]
            result = op(
                input,
                state,
                self._flat_weights,
                self.bias,
                self.num_layers,
                self.dropout,
                self.training,
                self.bidirectional,
                self.batch_first,
            )
            return result[0], list(result[1:])
        return self._run_packed(op, input, hx, [int(b) for b in batch_sizes.tolist()])

    def _run_packed(self, op, data, hx, batch_sizes):
        num_directions = 2 if self.bidirectional else 1
        per_direction = len(self._flat_weights_names) // (self.num_layers * num_directions)
        weights = self._flat_weights
        runs = _runs(batch_sizes)
        finals = [[] for _ in hx]
        x = data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                params = weights[index * per_direction : (index + 1) * per_direction]
                out, states = self._packed_layer(
                    op, x, [h[index] for h in hx], params, runs, reverse=direction == 1
                )
                outputs.append(out)
                for final, s in zip(finals, states):
                    final.append(s)
            x = outputs[0] if num_directions == 1 else ember.cat(outputs, 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, [ember.stack(f, 0) for f in finals]

    def _packed_layer(self, op, data, states, params, runs, reverse):
        """One layer and direction over packed `data`: the op runs once per run of steps with
        one batch size, on the rows still running, starting from their current states; the
        reverse direction walks the runs backwards on time-flipped blocks."""
        feature = data.size(1)
        outputs = []
        for t0, t1, b, row in reversed(runs) if reverse else runs:
            steps = t1 - t0
            block = data[row : row + steps * b].reshape([steps, b, feature])
            if reverse:
                block = ember.flip(block, [0])
            start = [s[:b].unsqueeze(0) for s in states]
            result = op(
                block,
                start if self.mode == "LSTM" else start[0],
                params,
                self.bias,
                1,
                0.0,
                self.training,
                False,
                False,
            )
            out = result[0]
            if reverse:
                out = ember.flip(out, [0])
            outputs.append(out.reshape([steps * b, out.size(2)]))
            # Rows b.. have ended (forward) or not started (reverse): they keep their state.
            states = [
                new[0] if b == s.size(0) else ember.cat([new[0], s[b:]], 0)
                for new, s in zip(result[1:], states)
            ]
        if reverse:
            outputs.reverse()
        out = outputs[0] if len(outputs) == 1 else ember.cat(outputs, 0)
        return out, states

    # ---- forward -------------------------------------------------------------------------------

    def _prepare(self, input, hx, hx_dims_error):
        """Shared forward prologue. Returns (input, hx list or None, batch_sizes, sorted_indices,
        unsorted_indices, is_batched, max_batch_size)."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is not None:
                hx = [self.permute_hidden(h, sorted_indices) for h in hx]
            return data, hx, batch_sizes, sorted_indices, unsorted_indices, True, max_batch_size
        name = type(self).__name__
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if hx is not None:
            want = 3 if is_batched else 2
            if any(h.dim() != want for h in hx):
                raise RuntimeError(hx_dims_error(is_batched, [h.dim() for h in hx]))
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                hx = [h.unsqueeze(1) for h in hx]
        max_batch_size = input.size(batch_dim)
        return input, hx, None, None, None, is_batched, max_batch_size

    def _finish(self, orig_input, output, states, batch_sizes, sorted_idx, unsorted_idx, batched):
        states = [self.permute_hidden(s, unsorted_idx) for s in states]
        if isinstance(orig_input, PackedSequence):
            return PackedSequence(output, batch_sizes, sorted_idx, unsorted_idx), states
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            states = [s.squeeze(1) for s in states]
        return output, states

    def _forward_single_state(self, input, hx):
        name = type(self).__name__

        def dims_error(batched, dims):
            if batched:
                return (
                    f"{name}: For batched 3-D input, hx should also be 3-D but got "
                    f"{dims[0]}-D tensor"
                )
            return (
                f"{name}: For unbatched 2-D input, hx should also be 2-D but got {dims[0]}-D tensor"
            )

        orig_input = input
        input, hxs, batch_sizes, sorted_idx, unsorted_idx, batched, max_batch = self._prepare(
            input, None if hx is None else [hx], dims_error
        )
        num_directions = 2 if self.bidirectional else 1
        if hxs is None:
            hxs = [
                ember.zeros(
                    [self.num_layers * num_directions, max_batch, self.hidden_size],
                    dtype=input.dtype,
                    device=input.device,
                )
            ]
        self.check_forward_args(input, hxs[0], batch_sizes)
        output, states = self._run(input, hxs, batch_sizes)
        output, states = self._finish(
            orig_input, output, states, batch_sizes, sorted_idx, unsorted_idx, batched
        )
        return output, states[0]


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (nonlinearity='relu' for
    ReLU). Arguments as torch.nn.RNN: input_size, hidden_size, num_layers=1, nonlinearity='tanh',
    bias=True, batch_first=False, dropout=0.0, bidirectional=False."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit with PyTorch's gates r, z, n. Arguments as torch.nn.GRU."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx)


class LSTM(RNNBase):
    """Long short-term memory with PyTorch's gates i, f, g, o and optional projections
    (proj_size). forward(input, (h_0, c_0)=None) returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def forward(self, input, hx=None):
        def dims_error(batched, dims):
            kind = "batched 3-D" if batched else "unbatched 2-D"
            want = 3 if batched else 2
            return (
                f"LSTM: For {kind} input, hx and cx should also be {want}-D but got "
                f"({dims[0]}-D, {dims[1]}-D) tensors"
            )

        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError("LSTM: hx should be a tuple (h_0, c_0) of two tensors")
        orig_input = input
        input, hxs, batch_sizes, sorted_idx, unsorted_idx, batched, max_batch = self._prepare(
            input, None if hx is None else list(hx), dims_error
        )
        num_directions = 2 if self.bidirectional else 1
        if hxs is None:
            size = [self.num_layers * num_directions, max_batch]
            hxs = [
                ember.zeros(
                    size + [self._real_hidden_size()], dtype=input.dtype, device=input.device
                ),
                ember.zeros(size + [self.hidden_size], dtype=input.dtype, device=input.device),
            ]
        self.check_forward_args(input, hxs, batch_sizes)
        output, states = self._run(input, hxs, batch_sizes)
        output, states = self._finish(
            orig_input, output, states, batch_sizes, sorted_idx, unsorted_idx, batched
        )
        return output, (states[0], states[1])


# ---- cells -----------------------------------------------------------------------------------


class RNNCellBase(Module):
    """Parameters weight_ih [chunks * hidden, input], weight_hh [chunks * hidden, hidden],
    bias_ih, bias_hh (None when bias=False), initialised as RNNBase's."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(
            ember.empty([num_chunks * hidden_size, input_size], device=device, dtype=dtype)
        )
        self.weight_hh = Parameter(
            ember.empty([num_chunks * hidden_size, hidden_size], device=device, dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(
                ember.empty([num_chunks * hidden_size], device=device, dtype=dtype)
            )
            self.bias_hh = Parameter(
                ember.empty([num_chunks * hidden_size], device=device, dtype=dtype)
            )
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def reset_parameters(self):
        _reset_uniform(self, self.hidden_size)

    def _prepare(self, input, hx):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for h in hx:
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {h.dim()}D instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(
                f"{name}: input has inconsistent input_size: got {input.size(-1)} expected "
                f"{self.input_size}"
            )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        states = []
        for h in hx:
            if h is None:
                h = ember.zeros(
                    [input.size(0), self.hidden_size], dtype=input.dtype, device=input.device
                )
            elif not batched:
                h = h.unsqueeze(0)
            if tuple(h.shape) != (input.size(0), self.hidden_size):
                raise RuntimeError(
                    f"{name}: expected hidden size {(input.size(0), self.hidden_size)}, got "
                    f"{list(h.shape)}"
                )
            states.append(h)
        return input, states, batched


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, [hx])
        op = ember.rnn_tanh_cell if self.nonlinearity == "tanh" else ember.rnn_relu_cell
        ret = op(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; forward(input, (h, c)=None) returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError("LSTMCell: hx should be a tuple (h, c) of two tensors")
        input, states, batched = self._prepare(input, [None, None] if hx is None else list(hx))
        h, c = ember.lstm_cell(
            input, states, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        )
        if not batched:
            h, c = h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, [hx])
        ret = ember.gru_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)
