"""Data-parallel communication and training: ember.distributed against torch.distributed, both on
Gloo over loopback, in the same processes.

    benchmarks/run.sh distributed [--world 2] [--rounds 5] [--ddp-steps 6] [--image-size 224]
    python benchmarks/distributed.py [--sizes 4K,64K,1M,16M,64M] [--skip-ddp]

Starts --world rank processes (one thread each: OMP_NUM_THREADS=1 and set_num_threads(1)), each
with an ember and a torch process group (two stores, two ports). Two parts, printed by rank 0:

  all_reduce   float32 SUM of each size (--sizes 4: one element, the latency); per round each
               side runs the same number of calls back to back (enough for about 0.2 s) after a
               barrier, the sides alternating which goes first. Bus bandwidth = bytes x
               2(n-1)/n / median time per call (NCCL-tests' definition), also shown as
               microseconds per call; ratio = ember bandwidth / torch bandwidth (above 1: ember
               faster).
  DDP step     ResNet-50 (benchmarks/models/resnet.py, the same code for both) wrapped in each
               library's DistributedDataParallel, batch 8 per rank of random 224x224 images,
               SGD momentum; one ember step, one torch step, and so on. Median step time after
               the first two; ratio = torch time / ember time (above 1: ember faster).

ember checks each collective's shapes across ranks first (an all-gather of fixed-size slots;
torch does not); an all_reduce of up to 4 KiB rides in that exchange, larger ones pay one more
round trip. EMBER_DISTRIBUTED_CHECKS=0 measures without the check.
"""

import argparse
import datetime
import os
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_size(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def human(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n // size} {unit}"
    return f"{n} B"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- one rank ---------------------------------------------------------------------------------


def rank_main(args):
    import torch

    import ember

    torch.set_num_threads(1)
    ember.set_num_threads(1)
    rank, world = args.rank, args.world
    timeout = datetime.timedelta(minutes=10)
    libs = {"ember": ember, "torch": torch}
    for name, port in (("torch", args.torch_port), ("ember", args.ember_port)):
        libs[name].distributed.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=world,
            timeout=timeout,
        )

    def say(*a):
        if rank == 0:
            print(*a, flush=True)

    say(f"all_reduce, float32 SUM, {world} ranks over loopback, 1 thread each")
    head = ["ember us", "torch us", "ember GB/s", "torch GB/s"]
    say(f"{'size':>9} " + " ".join(f"{h:>10}" for h in head) + f" {'ratio':>6}")
    for size in [parse_size(s) for s in args.sizes.split(",")]:
        numel = size // 4
        tensors = {n: lib.ones(numel) for n, lib in libs.items()}
        # calls per round: about 0.2 s of torch's, agreed by all ranks (rank 0's count)
        dist = torch.distributed
        dist.all_reduce(tensors["torch"])
        start = time.perf_counter()
        dist.all_reduce(tensors["torch"])
        probe = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.broadcast(probe, 0)
        calls = max(3, min(2000, int(0.2 / max(probe.item(), 1e-6))))
        times = {n: [] for n in libs}
        for r in range(args.rounds):
            order = ("ember", "torch") if r % 2 == 0 else ("torch", "ember")
            for name in order:
                d = libs[name].distributed
                t = tensors[name]
                d.barrier()
                start = time.perf_counter()
                for _ in range(calls):
                    d.all_reduce(t)
                times[name].append((time.perf_counter() - start) / calls)
        per_call = {n: statistics.median(v) for n, v in times.items()}
        bus = {n: size * 2 * (world - 1) / world / t / 1e9 for n, t in per_call.items()}
        say(
            f"{human(size):>9} {per_call['ember'] * 1e6:10.0f} {per_call['torch'] * 1e6:10.0f} "
            f"{bus['ember']:10.3f} {bus['torch']:10.3f} {bus['ember'] / bus['torch']:6.2f}"
        )

    if args.skip_ddp:
        for lib in libs.values():
            lib.distributed.destroy_process_group()
        return
    sys.path.insert(0, HERE)
    import numpy as np
    from models import common, resnet

    common.IMAGE_SIZE = args.image_size
    batch = 8
    rng = np.random.default_rng(rank)
    data = common.image_batch(batch, rng)
    sides = {}
    for name, lib in libs.items():
        lib.manual_seed(0)
        w = resnet.build(lib, batch)
        ddp = lib.nn.parallel.DistributedDataParallel(w.model)
        criterion = lib.nn.CrossEntropyLoss()
        opt = lib.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
        x, y = lib.from_numpy(data["x"]), lib.from_numpy(data["y"])

        def step(ddp=ddp, criterion=criterion, opt=opt, x=x, y=y):
            opt.zero_grad()
            loss = criterion(ddp(x), y)
            loss.backward()
            opt.step()
            return loss.item()

        sides[name] = step
    times = {n: [] for n in libs}
    for s in range(args.ddp_steps + 2):
        order = ("ember", "torch") if s % 2 == 0 else ("torch", "ember")
        for name in order:
            libs[name].distributed.barrier()
            start = time.perf_counter()
            sides[name]()
            if s >= 2:
                times[name].append(time.perf_counter() - start)
    e, t = statistics.median(times["ember"]), statistics.median(times["torch"])
    say(
        f"\nDDP training step, ResNet-50, batch {batch} per rank, {args.image_size}x"
        f"{args.image_size}, {world} ranks x 1 thread, median of {args.ddp_steps} steps"
    )
    say(f"{'':>9} {'ember s':>11} {'torch s':>11} {'ratio':>6}")
    say(f"{'step':>9} {e:11.3f} {t:11.3f} {t / e:6.2f}")
    for lib in libs.values():
        lib.distributed.destroy_process_group()


# ---- the driver -------------------------------------------------------------------------------


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--world", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sizes", default="4K,64K,1M,16M,64M")
    p.add_argument("--ddp-steps", type=int, default=6)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--skip-ddp", action="store_true")
    p.add_argument("--rank", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--ember-port", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--torch-port", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.rank is not None:
        rank_main(args)
        return
    ports = ["--ember-port", str(free_port()), "--torch-port", str(free_port())]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, *sys.argv[1:], *ports, "--rank", str(r)], env=env
        )
        for r in range(args.world)
    ]
    codes = [p.wait() for p in procs]
    sys.exit(max(codes))


if __name__ == "__main__":
    main()
