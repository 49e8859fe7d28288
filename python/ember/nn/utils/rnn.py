"""Variable-length sequences, as torch.nn.utils.rnn: PackedSequence, pad_sequence,
pack_padded_sequence, pad_packed_sequence, pack_sequence, unpack_sequence, unpad_sequence.

A packed batch stores its sequences (sorted by decreasing length) time step by time step: `data`
holds, for each step t, the rows of the `batch_sizes[t]` sequences still running. Steps with the
same batch size form a run, and a run's rows are exactly `padded[t0:t1, :b]` flattened, so packing
and padding are one slice per distinct length (no per-step or per-element loop); the arithmetic
is in the slicing and concatenation ops, which also carry the gradient.
"""

from __future__ import annotations

from collections import namedtuple

import ember

__all__: list[str] = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]

_PackedSequenceBase = namedtuple(
    "_PackedSequenceBase", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]
)


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    return ember.argsort(permutation)


class PackedSequence(_PackedSequenceBase):
    """Holds the data and the list of batch sizes of a packed sequence. Build it with
    pack_padded_sequence or pack_sequence; `batch_sizes` is an int64 CPU tensor, `sorted_indices`
    the order the sequences were sorted in (None when they came sorted) and `unsorted_indices` its
    inverse."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PackedSequence((data, batch_sizes)), as torch accepts.
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "PackedSequence: batch_sizes should always be on CPU, got one on "
                f"{batch_sizes.device}"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Moves or casts `data` as Tensor.to; the index tensors follow data's device and
        batch_sizes stays on the CPU. Returns self when data does not change."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = self.sorted_indices
        unsorted_indices = self.unsorted_indices
        if sorted_indices is not None:
            sorted_indices = sorted_indices.to(data.device)
            unsorted_indices = unsorted_indices.to(data.device)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda", *args, **kwargs)

    def double(self):
        return self.to(dtype=ember.float64)

    def float(self):
        return self.to(dtype=ember.float32)

    def half(self):
        return self.to(dtype=ember.float16)

    def long(self):
        return self.to(dtype=ember.int64)

    def int(self):
        return self.to(dtype=ember.int32)

    @property
    def is_cuda(self):
        return self.data.device.type == "cuda"


def _runs(batch_sizes):
    """The runs of equal batch size: a list of (first step, end step, batch size, first row of
    the run in the packed data)."""
    runs = []
    t0 = 0
    row = 0
    for t in range(1, len(batch_sizes) + 1):
        if t == len(batch_sizes) or batch_sizes[t] != batch_sizes[t0]:
            runs.append((t0, t, batch_sizes[t0], row))
            row += (t - t0) * batch_sizes[t0]
            t0 = t
    return runs


def _lengths_list(lengths, fn):
    if isinstance(lengths, ember.Tensor):
        if lengths.dim() != 1:
            raise ValueError(f"{fn}: expected a 1-D lengths tensor, got {lengths.dim()}-D")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch `input` ([T, B, *], or [B, T, *] when batch_first) of sequences with
    the given `lengths` (a list or a 1-D CPU int64 tensor). With enforce_sorted the lengths must be
    decreasing; otherwise the batch is sorted here and the order kept in the result."""
    lengths = _lengths_list(lengths, "pack_padded_sequence")
    batch_dim = 0 if batch_first else 1
    if len(lengths) != input.size(batch_dim):
        raise RuntimeError(
            "pack_padded_sequence: Expected `len(lengths)` to be equal to batch_size, but got "
            f"{len(lengths)} (batch_size={input.size(batch_dim)})"
        )
    if enforce_sorted:
        if any(lengths[i] < lengths[i + 1] for i in range(len(lengths) - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = ember.tensor(order, dtype=ember.int64)
        lengths = [lengths[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices.to(input.device))
    if len(lengths) == 0 or lengths[-1] <= 0:
        raise RuntimeError(
            "pack_padded_sequence: Length of all samples has to be greater than 0, but found an "
            "element in 'lengths' that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    if lengths[0] > input.size(0):
        raise RuntimeError(
            f"pack_padded_sequence: a length of {lengths[0]} is longer than the padded input's "
            f"{input.size(0)} steps"
        )
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    pieces = [
        input[t0:t1, :b].reshape([(t1 - t0) * b, *input.shape[2:]])
        for t0, t1, b, _ in _runs(batch_sizes)
    ]
    data = pieces[0] if len(pieces) == 1 else ember.cat(pieces, 0)
    return PackedSequence(data, ember.tensor(batch_sizes, dtype=ember.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undoes pack_padded_sequence: returns (padded [T, B, *] or [B, T, *], lengths), the
    sequences back in their original order and `lengths` an int64 CPU tensor. total_length pads
    to that many steps (at least the longest sequence's)."""
    data = sequence.data
    batch_sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    max_batch = batch_sizes[0]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
    else:
        total_length = steps
    feature = list(data.shape[1:])
    pieces = []
    for t0, t1, b, row in _runs(batch_sizes):
        block = data[row : row + (t1 - t0) * b].reshape([t1 - t0, b, *feature])
        if b < max_batch:
            fill = ember.full(
                [t1 - t0, max_batch - b, *feature],
                padding_value,
                dtype=data.dtype,
                device=data.device,
            )
            block = ember.cat([block, fill], 1)
        pieces.append(block)
    if total_length > steps:
        pieces.append(
            ember.full(
                [total_length - steps, max_batch, *feature],
                padding_value,
                dtype=data.dtype,
                device=data.device,
            )
        )
    padded = pieces[0] if len(pieces) == 1 else ember.cat(pieces, 0)
    # Length of sequence b = number of steps whose batch holds it.
    lengths = [sum(1 for n in batch_sizes if n > i) for i in range(max_batch)]
    lengths = ember.tensor(lengths, dtype=ember.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.to("cpu"))
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape [L_i, *] into [max L, B, *] ([B, max L, *] when batch_first),
    filling with padding_value on the right (or the left with padding_side="left")."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"pad_sequence: Expected padding_side to be one of left or right, but got "
            f"{padding_side}."
        )
    if isinstance(sequences, ember.Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if len(sequences) == 0:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        n = max_len - s.size(0)
        if n > 0:
            fill = ember.full([n, *s.shape[1:]], padding_value, dtype=s.dtype, device=s.device)
            s = ember.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return ember.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Splits a padded batch back into a list of tensors of the given lengths."""
    lengths = _lengths_list(lengths, "unpad_sequence")
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors [L_i, *] (decreasing lengths unless enforce_sorted=False)."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Undoes pack_sequence: the list of tensors, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
