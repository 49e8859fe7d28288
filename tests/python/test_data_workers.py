"""DataLoader with worker processes: same batches as in one process, errors, dead workers,
worker info, IterableDataset sharding, persistent workers, memory-budget recycling."""

import gc
import os
import signal
import sys
import time

import pytest

import ember
from ember.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork and /proc: Linux")


class Pairs(Dataset):
    """Sample i: (a 1-D float tensor of `width` copies of i, the label i % 3). Width 70000 makes
    a batch of 4 larger than the shared-memory threshold (512 KiB); width 3 stays inline."""

    def __init__(self, n, width=3):
        self.n = n
        self.width = width

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full((self.width,), float(i)), i % 3


def as_lists(batches):
    return [(x.tolist(), y.tolist()) for x, y in batches]


def children(pid=None):
    """The worker processes: this process's descendants, minus fork servers (which have
    children of their own). Zombies would show too."""
    pid = os.getpid() if pid is None else pid
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        direct = [int(p) for p in f.read().split()]
    out = []
    for p in direct:
        try:
            grandchildren = children(p)
        except OSError:
            grandchildren = []
        # A fork server is a process whose own children are workers; an idle server with none
        # left counts as a process too, so a leak of it shows.
        out += grandchildren if grandchildren else [p]
    return out


# Budget 0: no recycling, so the workers are forked by the main process itself; otherwise by
# the fork server. Both paths are tested.
@pytest.mark.parametrize(("width", "budget"), [(3, None), (70000, None), (3, 0)])
def test_workers_give_the_batches_of_one_process(width, budget):
    ember.manual_seed(0)
    ref = as_lists(DataLoader(Pairs(23, width), batch_size=4, shuffle=True))
    ember.manual_seed(0)
    kwargs = {} if budget is None else {"worker_memory_budget": budget}
    loader = DataLoader(Pairs(23, width), batch_size=4, shuffle=True, num_workers=2, **kwargs)
    got = as_lists(loader)
    assert got == ref and len(got) == 6
    assert sorted(v[0] for x, _ in got for v in x) == list(range(23))


def test_large_batch_arrives_through_shared_memory_and_is_writable():
    """ember.multiprocessing's transport: the worker's batch moves into an unnamed memory file
    whose descriptor the main process maps; nothing is named in /dev/shm."""
    before = set(os.listdir("/dev/shm"))
    loader = DataLoader(Pairs(8, 70000), batch_size=4, num_workers=2)
    x, y = next(iter(loader))
    assert x.shape == (4, 70000) and x[3, 0].item() == 3.0
    assert x.is_shared() and not y.is_shared()  # y is small: pickled inline
    with open("/proc/self/maps") as f:  # the batch is a mapping of the worker's memfd
        assert any("/memfd:ember-shared" in line for line in f)
    x.add_(1.0)  # the worker has let go of it: the mapping is this process's, and writable
    assert x[3, 0].item() == 4.0
    del loader
    assert set(os.listdir("/dev/shm")) == before


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"bad sample {i}")
        return i


def test_worker_exception_reraised_with_traceback():
    it = iter(DataLoader(Failing(), batch_size=2, num_workers=2))
    assert next(it).tolist() == [0, 1]
    assert next(it).tolist() == [2, 3]
    with pytest.raises(ValueError) as info:
        next(it)
    text = str(info.value)
    assert "Caught ValueError in DataLoader worker process 0." in text
    assert "Original Traceback (most recent call last):" in text
    assert "bad sample 5" in text and "__getitem__" in text
    # As PyTorch, the loader goes on after a failed batch.
    assert next(it).tolist() == [6, 7]
    del it, info


class KeyErrors(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {}["missing"]


def test_worker_key_error_message_is_readable():
    with pytest.raises(KeyError) as info:
        next(iter(DataLoader(KeyErrors(), num_workers=1)))
    assert "Caught KeyError in DataLoader worker process 0" in str(info.value)
    assert "\\n" not in str(info.value)


class Suicidal(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        if i == 6:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


@pytest.mark.parametrize("budget", [None, 0])
def test_killed_worker_raises_instead_of_hanging(budget):
    before = children()
    start = time.monotonic()
    kwargs = {} if budget is None else {"worker_memory_budget": budget}
    with pytest.raises(
        RuntimeError, match=r"DataLoader worker \(pid \d+\) is killed by signal: SIGKILL"
    ):
        list(DataLoader(Suicidal(), batch_size=2, num_workers=2, **kwargs))
    assert time.monotonic() - start < 10
    time.sleep(0.1)
    assert children() == before  # the other worker was shut down too


class Exiting(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


@pytest.mark.parametrize("budget", [None, 0])
def test_exiting_worker_names_exit_code(budget):
    kwargs = {} if budget is None else {"worker_memory_budget": budget}
    with pytest.raises(RuntimeError, match=r"exited unexpectedly with exit code 3"):
        list(DataLoader(Exiting(), num_workers=1, **kwargs))


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(3)
        return i


def test_timeout():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        next(iter(DataLoader(Slow(), num_workers=1, timeout=0.3)))
    assert time.monotonic() - start < 2.5


class WhoAmI(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return (info.id, info.num_workers, info.seed, os.environ.get("EMBER_TEST_INIT"))


def init_fn(worker_id):
    os.environ["EMBER_TEST_INIT"] = f"init{worker_id}"


def test_worker_init_fn_and_worker_info():
    loader = DataLoader(WhoAmI(), batch_size=None, num_workers=2, worker_init_fn=init_fn)
    got = list(loader)
    # Batches go to the workers round robin; seeds are base_seed + worker id.
    assert [(w, n, e) for w, n, _, e in got] == [(i % 2, 2, f"init{i % 2}") for i in range(6)]
    seeds = {w: s for w, _, s, _ in got}
    assert seeds[1] == seeds[0] + 1
    assert get_worker_info() is None


def failing_init(worker_id):
    raise RuntimeError("init failed")


def test_worker_init_fn_error():
    with pytest.raises(RuntimeError, match="init failed"):
        list(DataLoader(WhoAmI(), num_workers=1, worker_init_fn=failing_init))


class Sharded(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def test_iterable_dataset_sharded_by_worker_info():
    got = [b.tolist() for b in DataLoader(Sharded(11), batch_size=2, num_workers=2)]
    # Worker 0 yields 0,2,4,...; worker 1 yields 1,3,5,...; batches alternate between them.
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9]]
    got = [b.tolist() for b in DataLoader(Sharded(11), batch_size=2, num_workers=2, drop_last=True)]
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10]]


def test_persistent_workers_across_epochs():
    before = children()
    loader = DataLoader(Pairs(10), batch_size=4, num_workers=2, persistent_workers=True)
    first = as_lists(loader)
    pids = [p for p in children() if p not in before]
    second = as_lists(loader)
    assert first == second == as_lists(DataLoader(Pairs(10), batch_size=4))
    assert [p for p in children() if p not in before] == pids  # the same two processes
    assert len(pids) == 2
    # An epoch abandoned half way: the next one starts from its beginning.
    it = iter(loader)
    next(it)
    assert as_lists(loader) == first
    it = iter(DataLoader(Sharded(6), batch_size=2, num_workers=2, persistent_workers=True))
    loader = DataLoader(Sharded(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert (
        [b.tolist() for b in loader] == [b.tolist() for b in loader] == [[0, 2], [1, 3], [4], [5]]
    )
    del it, loader
    gc.collect()


def test_workers_shut_down_when_iterator_is_deleted_or_exhausted():
    gc.collect()
    before = children()
    list(DataLoader(Pairs(8), batch_size=2, num_workers=2))
    assert children() == before
    it = iter(DataLoader(Pairs(8), batch_size=2, num_workers=2))
    next(it)
    assert len(children()) == len(before) + 2
    del it
    gc.collect()
    assert children() == before


class Hungry(Dataset):
    """Each sample allocates and keeps 1 MiB in the worker: private memory grows by design."""

    def __init__(self):
        self.keep = []

    def __len__(self):
        return 48

    def __getitem__(self, i):
        self.keep.append(bytearray(1 << 20))
        return i


def test_worker_recycled_past_memory_budget():
    # Budget 20 MiB above what a fresh worker already holds: each worker passes it after a few
    # dozen samples, hands in its batch and is replaced; the batches stay complete and in order.
    from ember.utils.data._worker import private_dirty_bytes

    budget = private_dirty_bytes() // 4 + (20 << 20)
    loader = DataLoader(Hungry(), batch_size=4, num_workers=2, worker_memory_budget=budget)
    seen = set()
    got = []
    for b in loader:
        got += b.tolist()
        seen.update(children())
    assert got == list(range(48))
    assert len(seen) > 2  # fresh workers were forked


def test_spawn_context():
    loader = DataLoader(Pairs(6), batch_size=3, num_workers=1, multiprocessing_context="spawn")
    assert as_lists(loader) == as_lists(DataLoader(Pairs(6), batch_size=3))


class Rows(Dataset):
    """Rows of one large tensor: each item is a view of its storage."""

    def __init__(self):
        self.big = ember.arange(8 * 200000.0).reshape(8, 200000)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.big[i]


def test_a_view_of_a_larger_storage_travels_as_a_copy_of_itself():
    """Sharing a view would share (and send) all of its storage: the worker sends the view's
    own bytes instead."""
    row = next(iter(DataLoader(Rows(), batch_size=None, num_workers=1, shuffle=False)))
    assert row.shape == (200000,) and row[1].item() == 1.0 and row.is_shared()
    assert ember._C._multiprocessing.storage_nbytes(row) == row.nbytes


class Environment(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return gc.get_freeze_count(), ember.get_num_threads()


def test_workers_run_one_thread_and_never_collect_the_parents_objects():
    from ember.utils.data import dataloader

    gc.collect()  # iterators of earlier tests still waiting for collection
    users = dataloader._freeze_users
    got = list(DataLoader(Environment(), batch_size=None, num_workers=1))
    # The parent's objects are in the permanent generation in the worker: no collection there
    # writes their headers (copy-on-write stays shared).
    assert all(frozen > 1000 and threads == 1 for frozen, threads in got)
    assert dataloader._freeze_users == users
    if users == 0:
        assert gc.get_freeze_count() == 0  # unfrozen in the parent once the workers are gone


def test_budget_below_the_working_set_is_raised_with_a_warning():
    # 4 MiB per batch against a 1 MiB budget: the first worker retires after one batch; the
    # loader doubles the budget instead of forking for every batch.
    loader = DataLoader(Hungry(), batch_size=4, num_workers=1, worker_memory_budget=1 << 20)
    with pytest.warns(RuntimeWarning, match="raising the budget to"):
        got = [x for b in loader for x in b.tolist()]
    assert got == list(range(48))


def test_persistent_loader_is_collected_with_its_workers():
    gc.collect()
    before = children()
    loader = DataLoader(Pairs(8), batch_size=2, num_workers=2, persistent_workers=True)
    assert len(list(loader)) == 4 and len(list(loader)) == 4
    assert len(children()) == len(before) + 2
    # No reference cycle through the iterator: the loader goes with its last reference, even
    # though its objects were frozen (gc.freeze) before the workers were forked.
    del loader
    gc.collect()
    assert children() == before


def test_unpicklable_exception_type_arrives_as_runtime_error():
    class LocalError(Exception):
        pass

    class Raising(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            raise LocalError("boom")

    with pytest.raises(RuntimeError, match="Caught LocalError in DataLoader worker process 0"):
        list(DataLoader(Raising(), num_workers=1))
