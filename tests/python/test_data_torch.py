"""Optional: ember.utils.data side by side with torch.utils.data (skipped without PyTorch)."""

import collections

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader, default_collate

torch = pytest.importorskip("torch")

Point = collections.namedtuple("Point", "x y")


def to_py(obj):
    """Nested structure with tensors replaced by (dtype name, shape, values)."""
    if isinstance(obj, (ember.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype).rpartition(".")[2], tuple(obj.shape), obj.tolist())
    if isinstance(obj, dict):
        return {k: to_py(v) for k, v in obj.items()}
    if isinstance(obj, Point):
        return ("Point", *[to_py(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [to_py(v) for v in obj])
    return obj


def samples(lib):
    return [
        {
            "x": lib.tensor([[1.0, 2.0], [3.0, 4.0]]) * (i + 1),
            "n": i,
            "f": 0.5 * i,
            "b": i % 2 == 0,
            "s": f"s{i}",
            "np": np.arange(3, dtype=np.int16) + i,
            "nps": np.float32(i),
            "p": Point(i, [i, 2 * i]),
            "t": (i, "a"),
        }
        for i in range(3)
    ]


def test_default_collate_matches_torch():
    from torch.utils.data import default_collate as torch_collate

    assert to_py(default_collate(samples(ember))) == to_py(torch_collate(samples(torch)))


def test_sampler_lengths_and_batching_match_torch():
    for kwargs in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        ours = DataLoader(list(range(10)), **kwargs)
        theirs = torch.utils.data.DataLoader(list(range(10)), **kwargs)
        assert len(ours) == len(theirs)
        assert to_py(list(ours)) == to_py(list(theirs))


BAD_ARGUMENTS = [
    {"num_workers": -1},
    {"timeout": -1},
    {"prefetch_factor": 2},
    {"persistent_workers": True},
    {"sampler": [0], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_size": None, "drop_last": True},
    {"multiprocessing_context": "fork"},
]


@pytest.mark.parametrize("kwargs", BAD_ARGUMENTS)
def test_argument_errors_match_torch(kwargs):
    with pytest.raises(ValueError) as ours:
        DataLoader(list(range(4)), **kwargs)
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader(list(range(4)), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_collate_errors_match_torch():
    from torch.utils.data import default_collate as torch_collate

    for batch in ([[1, 2], [3]], [object(), object()]):
        with pytest.raises((RuntimeError, TypeError)) as ours:
            default_collate(batch)
        with pytest.raises((RuntimeError, TypeError)) as theirs:
            torch_collate(batch)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)
