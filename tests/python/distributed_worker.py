"""The program test_distributed.py launches on several ranks (python -m ember.distributed.run).

    distributed_worker.py MODE [ARGS]

Each mode checks its results itself (against NumPy, or against a model trained in one process)
and exits non-zero with the failed assertion; the test reads the exit code and the output.
"""

import datetime
import os
import signal
import sys
import time

import numpy as np

import ember as torch
import ember.distributed as dist
import ember.nn as nn
import ember.nn.functional as F
from ember.nn.parallel import DistributedDataParallel as DDP

DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.complex64,
    torch.complex128,
]
SMALL_INTS = (torch.int16, torch.int8, torch.uint8)  # a product of 3 ranks' values overflows


def value(rank, n, dtype):
    """Rank r's test data: r + 1 + i/8 (small integers for the integer dtypes)."""
    integral = not (dtype.is_floating_point or dtype.is_complex)
    x = np.arange(n) % 5 + rank + 1 + (0 if integral else 0.125)
    t = torch.tensor(x).to(dtype)
    if dtype.is_complex:
        t = t + 1j * torch.tensor(x).to(dtype)
    return t


def close(a, b, dtype):
    tol = 1e-2 if dtype in (torch.bfloat16, torch.float16) else 1e-5
    an, bn = a.to(torch.complex128).numpy(), b.to(torch.complex128).numpy()
    assert np.allclose(an, bn, rtol=tol, atol=tol), (dtype, an, bn)


def collectives():
    rank, world = dist.get_rank(), dist.get_world_size()
    n = 37
    for dtype in DTYPES:
        everyone = [value(r, n, dtype) for r in range(world)]
        ops = [(dist.ReduceOp.SUM, lambda xs: sum(xs[1:], xs[0]))]
        if dtype not in SMALL_INTS:
            ops.append((dist.ReduceOp.PRODUCT, lambda xs: np.prod(np.stack(xs), axis=0)))
        if not dtype.is_complex:
            ops.append((dist.ReduceOp.MIN, lambda xs: np.min(np.stack(xs), axis=0)))
            ops.append((dist.ReduceOp.MAX, lambda xs: np.max(np.stack(xs), axis=0)))
        if dtype.is_floating_point or dtype.is_complex:
            ops.append((dist.ReduceOp.AVG, lambda xs: sum(xs[1:], xs[0]) / len(xs)))
        for op, ref in ops:
            t = value(rank, n, dtype)
            dist.all_reduce(t, op=op)
            expected = ref([e.to(torch.complex128).numpy() for e in everyone])
            close(t, torch.tensor(expected), dtype)
        # async_op returns a Work
        t = value(rank, n, dtype)
        work = dist.all_reduce(t, async_op=True)
        assert work.wait() is True and work.is_completed()
        close(t, torch.tensor(sum(e.to(torch.complex128).numpy() for e in everyone)), dtype)
        # broadcast from the last rank
        t = value(rank, n, dtype)
        dist.broadcast(t, src=world - 1)
        close(t, everyone[-1], dtype)
        # reduce to rank 0
        t = value(rank, n, dtype)
        dist.reduce(t, dst=0)
        if rank == 0:
            close(t, torch.tensor(sum(e.to(torch.complex128).numpy() for e in everyone)), dtype)
        # all_gather, all_gather_into_tensor
        outs = [torch.zeros(n, dtype=dtype) for _ in range(world)]
        dist.all_gather(outs, value(rank, n, dtype))
        for r in range(world):
            close(outs[r], everyone[r], dtype)
        flat = torch.zeros(world * n, dtype=dtype)
        dist.all_gather_into_tensor(flat, value(rank, n, dtype))
        close(flat, torch.cat(everyone), dtype)
        # gather to rank 1, scatter from rank 0
        gl = [torch.zeros(n, dtype=dtype) for _ in range(world)] if rank == 1 else None
        dist.gather(value(rank, n, dtype), gl, dst=1)
        if rank == 1:
            for r in range(world):
                close(gl[r], everyone[r], dtype)
        out = torch.zeros(n, dtype=dtype)
        dist.scatter(out, everyone if rank == 0 else None, src=0)
        close(out, everyone[rank], dtype)
        # reduce_scatter_tensor: chunk r of the sum
        big = torch.cat([value(rank, n, dtype) * 0 + value(rank, n, dtype) for _ in range(world)])
        out = torch.zeros(n, dtype=dtype)
        dist.reduce_scatter_tensor(out, big)
        close(out, torch.tensor(sum(e.to(torch.complex128).numpy() for e in everyone)), dtype)
    # above 4 KiB all_reduce takes Gloo's ring instead of the one-exchange path
    for dtype in (torch.float32, torch.float64, torch.int64):
        big = [value(r, 3001, dtype) for r in range(world)]
        for op, ref in ((dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.MAX, np.max)):
            t = value(rank, 3001, dtype)
            dist.all_reduce(t, op=op)
            close(t, torch.tensor(ref(np.stack([b.numpy() for b in big]), axis=0)), dtype)
    # bool: SUM is or, PRODUCT is and
    b = torch.tensor([rank == 0, True, False])
    dist.all_reduce(b)
    assert b.tolist() == [True, True, False]
    b = torch.tensor([rank == 0, True, False])
    dist.all_reduce(b, op=dist.ReduceOp.PRODUCT)
    assert b.tolist() == [world == 1, True, False]
    # bitwise ops on integers
    t = torch.tensor([1 << rank, 3], dtype=torch.int64)
    dist.all_reduce(t, op=dist.ReduceOp.BOR)
    assert t.tolist() == [(1 << world) - 1, 3]
    # a strided (non-contiguous) tensor is reduced in place
    m = torch.arange(12.0).reshape(3, 4) * (rank + 1)
    col = m[:, 1]
    dist.all_reduce(col)
    assert col.tolist() == [v * world * (world + 1) / 2 for v in [1.0, 5.0, 9.0]], col
    # all_to_all_single, equal and uneven splits
    inp = torch.arange(world * 2, dtype=torch.float32) + 100 * rank
    out = torch.zeros(world * 2)
    dist.all_to_all_single(out, inp)
    expected = [100 * r + 2 * rank + k for r in range(world) for k in range(2)]
    assert out.tolist() == expected, (out, expected)
    # rank r sends r + 1 rows to every rank: rank r receives (s + 1) rows from each rank s
    inp = torch.full(((rank + 1) * world, 2), float(rank))
    out = torch.zeros(sum(s + 1 for s in range(world)), 2)
    dist.all_to_all_single(out, inp, [s + 1 for s in range(world)], [rank + 1] * world)
    assert out[:, 0].tolist() == [float(s) for s in range(world) for _ in range(s + 1)], out
    # all_to_all with lists
    outs = [torch.zeros(2) for _ in range(world)]
    dist.all_to_all(outs, [torch.full((2,), float(rank * 10 + d)) for d in range(world)])
    assert [o[0].item() for o in outs] == [float(s * 10 + rank) for s in range(world)]
    # point to point: a ring
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    got = torch.zeros(3)
    if world > 1:
        reqs = dist.batch_isend_irecv(
            [
                dist.P2POp(dist.isend, torch.full((3,), float(rank)), nxt),
                dist.P2POp(dist.irecv, got, prv),
            ]
        )
        for r in reqs:
            r.wait()
        assert got.tolist() == [float(prv)] * 3
        if rank == 0:
            dist.send(torch.tensor([42.0]), dst=1, tag=7)
        elif rank == 1:
            x = torch.zeros(1)
            assert dist.recv(x, tag=7) == 0 and x.item() == 42.0  # from any source
    # objects
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "s": "x" * rank})
    assert objs == [{"rank": r, "s": "x" * r} for r in range(world)]
    lst = [1, "two", {3: 4}] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [1, "two", {3: 4}]
    out = [None]
    dist.scatter_object_list(out, [f"to{r}" for r in range(world)] if rank == 0 else None, src=0)
    assert out == [f"to{rank}"]
    gathered = [None] * world if rank == 0 else None
    dist.gather_object(rank * 2, gathered, dst=0)
    if rank == 0:
        assert gathered == [2 * r for r in range(world)]
    if world > 1:
        if rank == 0:
            dist.send_object_list([{"a": 1}, "b"], dst=1)
        elif rank == 1:
            got = [None, None]
            assert dist.recv_object_list(got) == 0 and got == [{"a": 1}, "b"]
    ts = [torch.full((2,), float(rank)), torch.full((3,), 2.0 * rank)]
    dist.all_reduce_coalesced(ts)
    total = world * (world - 1) / 2
    assert ts[0].tolist() == [total] * 2 and ts[1].tolist() == [2 * total] * 3
    assert dist.get_node_local_rank() == int(os.environ["LOCAL_RANK"])
    assert dist.get_pg_count() == 1
    # a subgroup of ranks 0 and 1 (every rank calls new_group)
    sub = dist.new_group([0, 1])
    if rank < 2:
        t = torch.tensor([float(rank + 1)])
        dist.all_reduce(t, group=sub)
        assert t.item() == 3.0 and dist.get_world_size(sub) == 2
        assert dist.get_process_group_ranks(sub) == [0, 1]
    else:
        assert sub is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(sub) == -1
    mine, subs = dist.new_subgroups(1)  # a group per rank
    t = torch.tensor([float(rank)])
    dist.all_reduce(t, group=mine)
    assert len(subs) == world and dist.get_world_size(mine) == 1 and t.item() == rank
    dist.barrier()
    # DistributedSampler asks the default group for its rank and world size
    sampler = torch.utils.data.DistributedSampler(list(range(10)), shuffle=False)
    shares = [None] * world
    dist.all_gather_object(shares, list(sampler))
    flat = sum(shares, [])
    assert set(flat) == set(range(10)) and len(flat) == world * len(sampler)
    # errors that leave the group usable: a bad root, and mismatched shapes across ranks
    try:
        dist.broadcast(torch.zeros(1), src=world)
        raise AssertionError("expected ValueError")
    except ValueError as e:
        assert "not in the group" in str(e)
    try:
        dist.all_reduce(torch.zeros(4 + rank))
        raise AssertionError("expected RuntimeError")
    except RuntimeError as e:
        assert "mismatched tensors across ranks" in str(e), e
    try:  # one rank below the one-exchange size, the other above it
        dist.all_reduce(torch.zeros(4 if rank == 0 else 5000))
        raise AssertionError("expected RuntimeError")
    except RuntimeError as e:
        assert "mismatched tensors across ranks" in str(e), e
    try:
        dist.all_reduce(torch.zeros(4, dtype=torch.float32 if rank == 0 else torch.float64))
        raise AssertionError("expected RuntimeError")
    except RuntimeError as e:
        assert "float32" in str(e) and "float64" in str(e), e
    t = torch.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [float(world)] * 2
    print(f"rank {rank}: collectives ok", flush=True)


# ---- DDP against one process on the concatenated batches --------------------------------------


class MLP(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 4)
        self.unused = nn.Linear(3, 3) if unused else None

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, stride=2)
        self.fc = nn.Linear(8 * 3 * 3, 4)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


def ddp(model_name, optim_name, variant):
    rank, world = dist.get_rank(), dist.get_world_size()
    per_rank, steps = 4, 20

    def make():
        torch.manual_seed(1234 + rank)  # different on each rank: DDP must broadcast rank 0's
        if model_name == "mlp":
            return MLP(unused=variant == "unused")
        return CNN()

    model = make()
    reference = make()
    options = {"find_unused_parameters": variant == "unused"}
    if variant == "small_buckets":  # many buckets, .grad living in them
        options.update(bucket_cap_mb=0.0005, gradient_as_bucket_view=True)
    model_ddp = DDP(model, **options)
    if variant == "small_buckets":
        assert len(model_ddp._bucket_indices()) > 2, model_ddp._bucket_indices()
    reference.load_state_dict(model.state_dict())  # rank 0's, after the broadcast

    def optimizer(params):
        if optim_name == "sgd":
            return torch.optim.SGD(params, lr=0.05, momentum=0.9)
        return torch.optim.Adam(params, lr=1e-3)

    opt, ref_opt = optimizer(model_ddp.parameters()), optimizer(reference.parameters())
    g = torch.Generator().manual_seed(7)
    shape = (10,) if model_name == "mlp" else (1, 8, 8)
    accumulate = 2 if variant == "no_sync" else 1
    for _ in range(steps):
        opt.zero_grad()
        ref_opt.zero_grad()
        for micro in range(accumulate):
            x = torch.randn(world * per_rank, *shape, generator=g)
            y = torch.randn(world * per_rank, 4, generator=g)
            mine = slice(rank * per_rank, (rank + 1) * per_rank)
            if micro < accumulate - 1:
                with model_ddp.no_sync():
                    F.mse_loss(model_ddp(x[mine]), y[mine]).backward()
            else:
                F.mse_loss(model_ddp(x[mine]), y[mine]).backward()
            F.mse_loss(reference(x), y).backward()
        opt.step()
        ref_opt.step()
    worst = 0.0
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        if variant == "unused" and name.startswith("unused"):
            assert p.grad is None, f"{name} was unused on every rank: its grad stays None"
            continue
        worst = max(worst, (p - q).abs().max().item())
    assert worst < 1e-6, f"DDP differs from one process by {worst}"
    # every rank holds the same bits
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    everyone = [torch.zeros_like(flat) for _ in range(world)]
    dist.all_gather(everyone, flat)
    for other in everyone:
        assert torch.equal(other, flat), "ranks' parameters differ"
    print(f"rank {rank}: ddp {model_name} {optim_name} {variant} ok, max diff {worst:.2e}")


def ddp_errors():
    # A parameter without gradient, without find_unused_parameters: PyTorch's error, raised by
    # backward() (the end-of-backward callback), on every rank.
    model = DDP(MLP(unused=True))
    loss = model(torch.randn(2, 10)).sum()
    try:
        loss.backward()
        raise AssertionError("expected RuntimeError")
    except RuntimeError as e:
        assert "find_unused_parameters=True" in str(e), e
    # The group still works afterwards.
    t = torch.ones(1)
    dist.all_reduce(t)
    assert t.item() == dist.get_world_size()
    print(f"rank {dist.get_rank()}: ddp errors ok")


def join():
    """Uneven inputs: rank r has 3 + 2r batches. With join(), the ranks that run out shadow the
    others; the result is one process applying, at step t, the sum of the gradients of the ranks
    still training divided by the world size, and every rank ends with that model."""
    rank, world = dist.get_rank(), dist.get_world_size()

    def batch(r, t):
        g = torch.Generator().manual_seed(100 * r + t)
        return torch.randn(4, 6, generator=g), torch.randn(4, 2, generator=g)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
    reference = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
    reference.load_state_dict(model.state_dict())
    ddp_model = DDP(model)
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    with ddp_model.join():
        for t in range(3 + 2 * rank):
            x, y = batch(rank, t)
            opt.zero_grad()
            F.mse_loss(ddp_model(x), y).backward()
            opt.step()
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    for t in range(3 + 2 * (world - 1)):
        ref_opt.zero_grad()
        for r in range(world):
            if t < 3 + 2 * r:
                x, y = batch(r, t)
                (F.mse_loss(reference(x), y) / world).backward()
        ref_opt.step()
    worst = max(
        (p - q).abs().max().item() for p, q in zip(model.parameters(), reference.parameters())
    )
    assert worst < 1e-6, worst
    print(f"rank {rank}: join ok, max diff {worst:.1e}")


def syncbn():
    """SyncBatchNorm on each rank's rows against BatchNorm on all rows in one process: outputs,
    input gradients, summed parameter gradients and running statistics."""
    rank, world = dist.get_rank(), dist.get_world_size()
    g = torch.Generator().manual_seed(3)
    x_all = torch.randn(4 * world, 3, 5, 5, generator=g, dtype=torch.float64) * 2 + 1
    w_all = torch.randn(4 * world, 3, 5, 5, generator=g, dtype=torch.float64)
    mine = slice(4 * rank, 4 * (rank + 1))
    sync = nn.SyncBatchNorm(3).double()
    ref = nn.BatchNorm2d(3).double()
    with torch.no_grad():
        for m in (sync, ref):
            m.weight.copy_(torch.tensor([1.5, -0.5, 2.0]))
            m.bias.copy_(torch.tensor([0.1, 0.2, -0.3]))
    x = x_all[mine].clone().requires_grad_(True)
    y = sync(x)
    (y * w_all[mine]).sum().backward()
    xr = x_all.clone().requires_grad_(True)
    yr = ref(xr)
    (yr * w_all).sum().backward()
    assert torch.allclose(y, yr[mine], atol=1e-10), (y - yr[mine]).abs().max()
    assert torch.allclose(x.grad, xr.grad[mine], atol=1e-10), (x.grad - xr.grad[mine]).abs().max()
    for p, q in ((sync.weight, ref.weight), (sync.bias, ref.bias)):
        total = p.grad.clone()
        dist.all_reduce(total)
        assert torch.allclose(total, q.grad, atol=1e-10), (total, q.grad)
    assert torch.allclose(sync.running_mean, ref.running_mean, atol=1e-12)
    assert torch.allclose(sync.running_var, ref.running_var, atol=1e-12)
    print(f"rank {rank}: syncbn ok")


# ---- failures ---------------------------------------------------------------------------------


def exit_at_step_3():
    """Rank 1 exits with code 3 at step 3; rank 0 reports how long it took to raise."""
    rank = dist.get_rank()
    for step in range(1000):
        if step == 3 and rank == 1:
            sys.exit(3)
        t = torch.ones(1000)
        if step == 3:
            start = time.monotonic()
        try:
            dist.all_reduce(t)
        except RuntimeError as e:
            print(f"rank {rank} raised after {time.monotonic() - start:.2f} s: {e}", flush=True)
            raise
        time.sleep(0.05)


def stopped_peer():
    """Rank 1 stops itself (SIGSTOP) at step 3; rank 0 must raise after the group's timeout."""
    rank = dist.get_rank()
    for step in range(1000):
        if step == 3 and rank == 1:
            os.kill(os.getpid(), signal.SIGSTOP)
        if step == 3:
            start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(10))
        except RuntimeError as e:
            print(f"rank {rank} raised after {time.monotonic() - start:.2f} s: {e}", flush=True)
            os._exit(0)
        time.sleep(0.05)


def main():
    mode = sys.argv[1]
    timeout = datetime.timedelta(seconds=float(os.environ.get("TEST_PG_TIMEOUT", "60")))
    dist.init_process_group("gloo", timeout=timeout)
    assert dist.is_initialized() and dist.get_backend() == "gloo"
    assert os.environ["OMP_NUM_THREADS"] == "1"
    if mode == "collectives":
        collectives()
    elif mode == "ddp":
        ddp(*sys.argv[2:5])
    elif mode == "join":
        join()
    elif mode == "syncbn":
        syncbn()
    elif mode == "ddp_errors":
        ddp_errors()
    elif mode == "exit3":
        exit_at_step_3()
    elif mode == "stop":
        stopped_peer()
    else:
        raise SystemExit(f"unknown mode {mode}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
