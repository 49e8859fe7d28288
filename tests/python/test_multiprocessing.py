"""ember.multiprocessing: tensors sent to other processes share memory instead of being copied
(Queue, Process arguments, spawn), under fork, spawn and forkserver; spawn re-raises a child's
failure; nothing is left in /dev/shm or among the parent's descriptors; Hogwild training of one
shared model by two processes."""

import gc
import os
import signal

import numpy as np
import pytest

import ember
import ember.multiprocessing as mp

METHODS = ["fork", "spawn", "forkserver"]


def _add_one(inbox, outbox):
    t = inbox.get()
    t.add_(1)
    outbox.put(tuple(t.shape))


def test_share_memory_moves_the_storage_in_place():
    t = ember.arange(6.0)
    view = t[2:5]
    before = t.data_ptr()
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and view.is_shared()
    assert t.data_ptr() != before  # new memory...
    assert view.data_ptr() == t.data_ptr() + 2 * 4  # ...that the view taken before sees
    view[0] = 10.0
    assert t.tolist() == [0.0, 1.0, 10.0, 3.0, 4.0, 5.0]
    t.share_memory_()  # a no-op the second time
    assert t.tolist() == [0.0, 1.0, 10.0, 3.0, 4.0, 5.0]


def test_module_share_memory_keeps_the_parameters():
    model = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.BatchNorm1d(2))
    params = list(model.parameters())
    values = [p.detach().clone() for p in params]
    assert model.share_memory() is model
    assert all(p is q for p, q in zip(params, model.parameters()))
    assert all(p.is_shared() for p in model.parameters())
    assert all(b.is_shared() for b in model.buffers())
    for p, v in zip(params, values):
        np.testing.assert_array_equal(p.detach().numpy(), v.numpy())


@pytest.mark.parametrize("method", METHODS)
def test_a_child_change_through_a_queue_is_seen_by_the_parent(method):
    ctx = mp.get_context(method)
    t = ember.zeros(2, 3)
    view = t[1]  # taken before the tensor is shared
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_add_one, args=(inbox, outbox))
    p.start()
    inbox.put(t)
    assert outbox.get(timeout=120) == (2, 3)
    p.join(120)
    assert p.exitcode == 0
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(view.numpy(), np.ones(3))


def _add_rank(rank, t, param):
    t[rank].add_(rank + 1)
    assert isinstance(param, ember.nn.Parameter) and param.requires_grad
    with ember.no_grad():
        param[rank] = 7.0


def test_spawn_args_share_memory_and_parameters_stay_parameters():
    t = ember.zeros(2)
    param = ember.nn.Parameter(ember.zeros(2))
    mp.spawn(_add_rank, args=(t, param), nprocs=2)
    assert t.tolist() == [1.0, 2.0]
    assert param.tolist() == [7.0, 7.0]


def _views_arrive_on_one_storage(inbox, outbox):
    a, b = inbox.get()
    a[0] = 5.0  # b is a view of the same storage: it must see this
    outbox.put(float(b[0]))


def test_views_sent_together_share_one_storage_in_the_child():
    ctx = mp.get_context("spawn")
    t = ember.zeros(4)
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_views_arrive_on_one_storage, args=(inbox, outbox))
    p.start()
    inbox.put((t, t[:2]))
    assert outbox.get(timeout=120) == 5.0
    p.join(120)
    assert t[0].item() == 5.0


def _fail_at_rank_one(rank):
    if rank == 1:
        raise ValueError("rank one fails")
    signal.pause()  # stopped by the parent when rank 1 fails


def _exit_three(rank):
    os._exit(3)


def test_spawn_reraises_a_child_exception_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException, match="rank one fails") as info:
        mp.spawn(_fail_at_rank_one, nprocs=2)
    assert info.value.error_index == 1
    assert "Process 1 terminated with the following error" in str(info.value)
    assert "ValueError" in str(info.value)


def test_spawn_reports_an_exit_code():
    with pytest.raises(mp.ProcessExitedException, match="exit code 3") as info:
        mp.spawn(_exit_three, nprocs=1)
    assert info.value.exit_code == 3 and info.value.error_index == 0


def test_non_leaf_tensors_that_require_grad_are_refused():
    x = ember.ones(2, requires_grad=True) * 2
    q = mp.get_context("fork").Queue()
    with pytest.raises(RuntimeError, match="non-leaf tensor which requires_grad"):
        from multiprocessing.reduction import ForkingPickler

        ForkingPickler.dumps(x)
    q.close()


def test_sharing_strategies():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(ValueError, match="unknown sharing strategy"):
        mp.set_sharing_strategy("carrier pigeon")


def _hold(inbox, outbox):
    t = inbox.get()
    outbox.put(t.sum().item())
    signal.pause()  # killed by the test


def _shm_entries():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


def _send_and_kill(ctx):
    t = ember.ones(1000)
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_hold, args=(inbox, outbox))
    p.start()
    inbox.put(t)
    assert outbox.get(timeout=120) == 1000.0
    os.kill(p.pid, signal.SIGKILL)
    p.join(120)
    assert p.exitcode == -signal.SIGKILL
    for q in (inbox, outbox):
        q.close()
        q.join_thread()


def test_nothing_is_left_behind_after_a_child_is_killed():
    ctx = mp.get_context("fork")
    _send_and_kill(ctx)  # starts the resource sharer's thread and socket, which stay
    gc.collect()
    shm, fds = _shm_entries(), _open_fds()
    for _ in range(3):
        _send_and_kill(ctx)
    gc.collect()
    assert _shm_entries() == shm
    assert _open_fds() == fds


def _hogwild_worker(rank, model, x, y, steps):
    ember.manual_seed(rank)
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    xs, ys = x[rank::2], y[rank::2]  # disjoint halves of the data
    for _ in range(steps):
        for i in range(0, xs.shape[0], 8):
            opt.zero_grad()
            loss = ((model(xs[i : i + 8]) - ys[i : i + 8]) ** 2).mean()
            loss.backward()
            opt.step()


def test_hogwild_two_processes_train_one_shared_model():
    """PyTorch's Hogwild example in small: two processes update the parameters of one model in
    shared memory with SGD, each on its half of the data, with no locks."""
    ember.manual_seed(0)
    x = ember.randn(128, 4)
    y = x @ ember.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.25
    model = ember.nn.Linear(4, 1)
    model.share_memory()
    with ember.no_grad():
        start = ((model(x) - y) ** 2).mean().item()
    mp.spawn(_hogwild_worker, args=(model, x, y, 20), nprocs=2)
    with ember.no_grad():
        end = ((model(x) - y) ** 2).mean().item()
    assert start > 1.0
    assert end < 1e-3, (start, end)


def test_errors_for_what_cannot_be_shared():
    t = ember.zeros(4).share_memory_()
    t.resize_(2)  # fits in the shared memory: fine
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(10)
    if ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="only CPU tensors"):
            ember.zeros(2, device="cuda").share_memory_()


def _fill_and_sum(t):
    t.fill_(2.0)
    return float(t.sum())


def _pipe_child(conn):
    t = conn.recv()
    t.mul_(3.0)
    conn.send("done")


def test_pool_and_pipe_share_memory_too():
    ctx = mp.get_context("fork")
    tensors = [ember.zeros(3), ember.zeros(4)]
    with ctx.Pool(2) as pool:
        assert pool.map(_fill_and_sum, tensors) == [6.0, 8.0]
    assert all(t.tolist() == [2.0] * t.numel() for t in tensors)
    parent, child = ctx.Pipe()
    t = ember.ones(2)
    p = ctx.Process(target=_pipe_child, args=(child,))
    p.start()
    parent.send(t)
    assert parent.recv() == "done"
    p.join(60)
    assert t.tolist() == [3.0, 3.0]
