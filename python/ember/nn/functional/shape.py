"""ember.nn.functional: pad and channel_shuffle.

pad is the C++ op (ember._C._pad) with PyTorch's signature; channel_shuffle is a reshape and a
transpose, PyTorch's formula."""

from __future__ import annotations

from ember import _C

__all__: list[str] = [
    "channel_shuffle",
    "native_channel_shuffle",
    "pad",
]


def pad(input, pad, mode: str = "constant", value=None):
    """Pads `input`: `pad` lists (before, after) pairs from the last dim backwards, so
    pad(x, (1, 2)) adds 1 element before and 2 after the last dim. Negative pads crop. mode is
    "constant" (with `value`, default 0), "reflect", "replicate" or "circular"."""
    return _C._pad(input, tuple(pad), mode, value)


def channel_shuffle(input, groups: int):
    """Interleaves `groups` groups of the channels of (N, C, *) (ShuffleNet)."""
    if input.dim() <= 2:
        raise RuntimeError(
            "channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    n, c = input.size(0), input.size(1)
    if c % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    rest = list(input.shape[2:])
    shuffled = input.reshape([n, groups, c // groups] + rest).transpose(1, 2)
    return shuffled.reshape([n, c] + rest)


native_channel_shuffle = channel_shuffle
