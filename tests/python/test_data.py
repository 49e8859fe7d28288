"""ember.utils.data in one process: datasets, samplers, collation, DataLoader's arguments, and
pickling of tensors (the worker transport). Multi-process loading: test_data_workers.py."""

import collections
import pickle
import warnings

import numpy as np
import pytest

import ember
from ember.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    get_worker_info,
    random_split,
)


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


# --- datasets ---------------------------------------------------------------------------------


def test_tensor_dataset_rows():
    x = ember.arange(12.0).reshape(4, 3)
    y = ember.tensor([5, 6, 7, 8])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    a, b = ds[2]
    assert a.tolist() == [6.0, 7.0, 8.0] and b.item() == 7
    with pytest.raises(AssertionError, match="Size mismatch"):
        TensorDataset(x, ember.zeros(3))


def test_subset_and_concat():
    sub = Subset(Range(10), [7, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [7, 2, 5]
    cat = ConcatDataset([Range(3), Range(4)])
    assert len(cat) == 7
    assert [cat[i] for i in range(7)] == [0, 1, 2, 0, 1, 2, 3]
    assert cat[-1] == 3 and cat[-7] == 0
    assert cat.cumulative_sizes == [3, 7]
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-8]
    assert len(Range(2) + Range(5)) == 7
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Stream(3)])
    assert list(Stream(2) + Stream(3)) == [0, 1, 0, 1, 2]


def test_random_split_lengths_and_fractions():
    ember.manual_seed(3)
    parts = random_split(Range(10), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    items = [p[i] for p in parts for i in range(len(p))]
    assert sorted(items) == list(range(10))  # disjoint and complete
    # Fractions: floor(11 * 0.5) = 5 twice, the remainder 1 goes to the first split.
    parts = random_split(Range(11), [0.5, 0.5])
    assert [len(p) for p in parts] == [6, 5]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(Range(10), [3, 3])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        parts = random_split(Range(2), [0.9, 0.1])
    assert [len(p) for p in parts] == [2, 0] and "at index 1 is 0" in str(w[0].message)


def test_random_split_generator_reproducible():
    a = random_split(Range(20), [10, 10], generator=ember.Generator().manual_seed(7))
    b = random_split(Range(20), [10, 10], generator=ember.Generator().manual_seed(7))
    assert a[0].indices == b[0].indices
    # The permutation is ember.randperm's with that generator.
    assert (
        a[0].indices == ember.randperm(20, generator=ember.Generator().manual_seed(7))[:10].tolist()
    )


# --- samplers ---------------------------------------------------------------------------------


def test_sequential_and_batch_sampler():
    assert list(SequentialSampler(Range(4))) == [0, 1, 2, 3]
    bs = BatchSampler(SequentialSampler(Range(7)), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    bs = BatchSampler(SequentialSampler(Range(7)), 3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5]] and len(bs) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(range(3), 2, 1)


def test_random_sampler_is_randperm_of_its_generator():
    g = ember.Generator().manual_seed(11)
    got = list(RandomSampler(Range(9), generator=g))
    assert got == ember.randperm(9, generator=ember.Generator().manual_seed(11)).tolist()
    assert sorted(got) == list(range(9))
    # num_samples beyond the length without replacement: whole permutations, then a prefix.
    got = list(RandomSampler(Range(4), num_samples=10, generator=ember.Generator().manual_seed(1)))
    assert len(got) == 10
    assert sorted(got[:4]) == sorted(got[4:8]) == [0, 1, 2, 3]
    assert len(set(got[8:])) == 2


def test_random_sampler_replacement_and_seed():
    s = RandomSampler(Range(5), replacement=True, num_samples=70)
    ember.manual_seed(0)
    a = list(s)
    ember.manual_seed(0)
    b = list(s)
    assert a == b and len(a) == 70 and set(a) <= set(range(5)) and len(set(a)) == 5
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler(Range(5), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler(Range(5), replacement=1)


def test_subset_random_sampler():
    g = ember.Generator().manual_seed(2)
    got = list(SubsetRandomSampler([10, 20, 30, 40], generator=g))
    perm = ember.randperm(4, generator=ember.Generator().manual_seed(2)).tolist()
    assert got == [[10, 20, 30, 40][i] for i in perm]


def test_weighted_random_sampler():
    # Zero weights are never drawn; without replacement each index at most once.
    s = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=ember.Generator().manual_seed(0))
    got = list(s)
    assert len(got) == 200 and set(got) == {1, 3}
    assert 120 < got.count(3) < 185  # expected 150, sd ~6
    got = list(WeightedRandomSampler([1.0, 1.0, 1.0, 0.0], 3, replacement=False))
    assert sorted(got) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0]], 1)


# --- collation --------------------------------------------------------------------------------


def test_default_collate_numbers_and_tensors():
    out = default_collate([ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])])
    assert out.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    out = default_collate([1.5, 2.5])
    assert out.dtype == ember.float64 and out.tolist() == [1.5, 2.5]
    out = default_collate([1, 2])
    assert out.dtype == ember.int64 and out.tolist() == [1, 2]
    out = default_collate([True, False])
    assert out.dtype == ember.bool and out.tolist() == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"]


def test_default_collate_nested():
    Point = collections.namedtuple("Point", "x y")
    batch = [
        {"img": ember.ones(2), "meta": (1, "a"), "p": Point(1.0, [2, 3])},
        {"img": ember.zeros(2), "meta": (2, "b"), "p": Point(4.0, [5, 6])},
    ]
    out = default_collate(batch)
    assert out["img"].tolist() == [[1.0, 1.0], [0.0, 0.0]]
    # A tuple becomes a list, as PyTorch; strings stay a sequence of strings.
    assert isinstance(out["meta"], list) and out["meta"][0].tolist() == [1, 2]
    assert list(out["meta"][1]) == ["a", "b"]
    assert isinstance(out["p"], Point) and out["p"].x.tolist() == [1.0, 4.0]
    assert [t.tolist() for t in out["p"].y] == [[2, 5], [3, 6]]


def test_default_collate_numpy():
    out = default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)])
    assert out.dtype == ember.int32 and out.tolist() == [[1, 2], [3, 4]]
    out = default_collate([np.float32(0.5), np.float32(1.5)])
    assert out.dtype == ember.float32 and out.tolist() == [0.5, 1.5]
    with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(
        TypeError, match="default_collate: batch must contain .* found <class 'object'>"
    ):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="stack"):
        default_collate([ember.zeros(2), ember.zeros(3)])


def test_default_convert():
    out = default_convert({"a": np.array([1.0, 2.0]), "b": (np.int64(3), "s")})
    assert out["a"].dtype == ember.float64 and out["a"].tolist() == [1.0, 2.0]
    assert isinstance(out["b"], list) and out["b"][0].item() == 3 and out["b"][1] == "s"
    assert default_convert(5) == 5


# --- DataLoader, one process ------------------------------------------------------------------


def test_loader_batches_and_len():
    loader = DataLoader(Range(10), batch_size=4)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(loader) == 3
    loader = DataLoader(Range(10), batch_size=4, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(loader) == 2
    # batch_size=None: no batching, samples converted one by one.
    assert list(DataLoader(Range(3), batch_size=None)) == [0, 1, 2]


def test_loader_shuffle_follows_manual_seed():
    ember.manual_seed(5)
    a = [b.tolist() for b in DataLoader(Range(20), batch_size=5, shuffle=True)]
    ember.manual_seed(5)
    b = [b.tolist() for b in DataLoader(Range(20), batch_size=5, shuffle=True)]
    assert a == b and sorted(sum(a, [])) == list(range(20)) and a[0] != [0, 1, 2, 3, 4]
    g = ember.Generator().manual_seed(1)
    c = [b.tolist() for b in DataLoader(Range(20), batch_size=5, shuffle=True, generator=g)]
    assert sorted(sum(c, [])) == list(range(20))


def test_loader_custom_samplers_and_collate():
    loader = DataLoader(Range(6), sampler=[5, 0, 3], batch_size=2, collate_fn=lambda b: b)
    assert list(loader) == [[5, 0], [3]]
    loader = DataLoader(Range(6), batch_sampler=[[1, 2], [4]])
    assert [b.tolist() for b in loader] == [[1, 2], [4]] and len(loader) == 2


def test_loader_iterable_dataset():
    loader = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    loader = DataLoader(Stream(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]


class SizedStream(Stream):
    def __len__(self):
        return self.n


def test_loader_len_of_sized_iterable():
    assert len(DataLoader(SizedStream(7), batch_size=3)) == 3
    assert len(DataLoader(SizedStream(7), batch_size=3, drop_last=True)) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_workers": -1}, "num_workers option should be non-negative"),
        ({"timeout": -1}, "timeout option should be non-negative"),
        ({"prefetch_factor": 2}, "prefetch_factor option could only be specified"),
        ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
        ({"sampler": [0], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
        ({"batch_sampler": [[0]], "drop_last": True}, "batch_sampler option is mutually exclusive"),
        ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching"),
        ({"multiprocessing_context": "fork"}, "multiprocessing_context can only be used"),
        ({"num_workers": 1, "multiprocessing_context": "nope"}, "should specify a valid start"),
        ({"worker_memory_budget": -1}, "worker_memory_budget should be a non-negative"),
    ],
)
def test_loader_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(Range(4), **kwargs)


def test_loader_iterable_argument_errors():
    with pytest.raises(
        ValueError, match="expected unspecified shuffle option, but got shuffle=True"
    ):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Stream(3), sampler=[0])
    with pytest.raises(ValueError, match="expected unspecified batch_sampler option"):
        DataLoader(Stream(3), batch_sampler=[[0]])


def test_loader_attributes_frozen():
    loader = DataLoader(Range(4))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader"):
        loader.batch_size = 3
    loader.num_workers = 0  # not frozen, as PyTorch


def test_get_worker_info_in_main_process():
    assert get_worker_info() is None


# --- pickling (the workers' transport for small tensors) --------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [
        ember.float32,
        ember.float64,
        ember.float16,
        ember.bfloat16,
        ember.int64,
        ember.int8,
        ember.uint8,
        ember.bool,
    ],
)
def test_tensor_pickle_round_trip(dtype):
    x = (ember.arange(24) % 7).to(dtype).reshape(2, 3, 4)
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype == dtype and y.shape == x.shape and ember.equal(y, x)


def test_tensor_pickle_non_contiguous_and_grad():
    x = ember.arange(12.0).reshape(3, 4).t()[1:]
    y = pickle.loads(pickle.dumps(x))
    assert y.is_contiguous() and y.tolist() == x.tolist()
    w = ember.ones(3, requires_grad=True)
    z = pickle.loads(pickle.dumps(w))
    assert z.requires_grad and z.tolist() == [1.0, 1.0, 1.0]
    e = pickle.loads(pickle.dumps(ember.zeros(0, 5)))
    assert e.shape == (0, 5)
    s = pickle.loads(pickle.dumps(ember.tensor(2.5)))
    assert s.dim() == 0 and s.item() == 2.5


def test_distributed_sampler_splits_pads_and_reshuffles_by_epoch():
    from ember.utils.data import DistributedSampler

    data = list(range(10))
    parts = [
        list(DistributedSampler(data, num_replicas=3, rank=r, shuffle=False)) for r in range(3)
    ]
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded with the first ones
    dropped = [
        list(DistributedSampler(data, 3, r, shuffle=False, drop_last=True)) for r in range(3)
    ]
    assert dropped == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    shuffled = [DistributedSampler(data, 2, r, seed=7) for r in range(2)]
    epoch0 = [list(s) for s in shuffled]
    assert sorted(epoch0[0] + epoch0[1]) == data
    for s in shuffled:
        s.set_epoch(1)
    epoch1 = [list(s) for s in shuffled]
    assert sorted(epoch1[0] + epoch1[1]) == data and epoch1 != epoch0
    assert len(shuffled[0]) == 5
    with pytest.raises(ValueError, match="Invalid rank 3"):
        DistributedSampler(data, num_replicas=3, rank=3)
    with pytest.raises(RuntimeError, match="Requires distributed package"):
        DistributedSampler(data)


def test_stack_dataset_zips_datasets():
    from ember.utils.data import StackDataset

    s = StackDataset([1, 2, 3], ["a", "b", "c"])
    assert len(s) == 3 and s[1] == (2, "b")
    d = StackDataset(x=[1, 2], y=[3, 4])
    assert d[0] == {"x": 1, "y": 3}
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset([1], [1, 2])
