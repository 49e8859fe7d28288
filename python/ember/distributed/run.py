"""python -m ember.distributed.run (also installed as `ember-run`): torchrun's launcher.

    python -m ember.distributed.run --standalone --nproc-per-node=2 train.py --epochs 3

starts nproc-per-node copies of the program on this machine with RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT and OMP_NUM_THREADS=1 set, so that
init_process_group("gloo") finds its peers. With --nnodes N the same command runs on each
machine with its --node-rank and the address of node 0 (static rendezvous). When a worker fails,
the others are stopped (SIGTERM, then SIGKILL after a grace period); with --max-restarts the whole
group is started again, otherwise the launcher reports the first failing rank and its exit code
and exits with 1. Workers die with the launcher, so nothing is left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import time
import uuid

__all__ = ["main", "parse_args", "run"]

_GRACE_SECONDS = 5.0  # between SIGTERM and SIGKILL when stopping workers
_POLL_SECONDS = 0.05


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value == "gpu":
        raise ValueError("--nproc-per-node=gpu: ember's launcher has no GPU workers")
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {n}")
    return n


def _nnodes(value: str) -> int:
    lo, _, hi = value.partition(":")
    if hi and hi != lo:
        raise ValueError(f"--nnodes={value}: elastic ranges are not supported; give one number")
    return int(lo)


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m ember.distributed.run",
        description="Starts a data-parallel job's worker processes (torchrun's options).",
    )
    opt = p.add_argument
    opt("--nnodes", type=_nnodes, default=1, help="number of machines (default 1)")
    opt("--nproc-per-node", "--nproc_per_node", type=_nproc, default=1, dest="nproc_per_node")
    opt("--node-rank", "--node_rank", type=int, default=0, dest="node_rank")
    opt("--master-addr", "--master_addr", default="127.0.0.1", dest="master_addr")
    opt(
        "--master-port",
        "--master_port",
        type=int,
        default=None,
        dest="master_port",
        help="0 picks a free port (the default with --standalone; otherwise 29500)",
    )
    opt("--standalone", action="store_true", help="one machine, a free local port")
    opt(
        "--rdzv-endpoint",
        "--rdzv_endpoint",
        default="",
        dest="rdzv_endpoint",
        help="host:port of node 0, instead of --master-addr/--master-port",
    )
    opt("--rdzv-backend", "--rdzv_backend", default="static", dest="rdzv_backend")
    opt("--rdzv-id", "--rdzv_id", default="", dest="rdzv_id")
    opt("--max-restarts", "--max_restarts", type=int, default=0, dest="max_restarts")
    opt(
        "--monitor-interval",
        "--monitor_interval",
        type=float,
        default=_POLL_SECONDS,
        dest="monitor_interval",
    )
    opt("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    opt(
        "--no-python",
        "--no_python",
        action="store_true",
        dest="no_python",
        help="run the script as an executable, not with this Python",
    )
    opt("training_script")
    opt("training_script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.standalone:
        args.nnodes, args.node_rank, args.master_addr = 1, 0, "127.0.0.1"
        if args.master_port is None:
            args.master_port = 0
    elif args.rdzv_endpoint:
        host, _, port = args.rdzv_endpoint.rpartition(":")
        args.master_addr = host or args.rdzv_endpoint
        args.master_port = int(port) if host else 29500
    if args.master_port is None:
        args.master_port = 29500
    if not 0 <= args.node_rank < args.nnodes:
        p.error(f"--node-rank {args.node_rank} is not in [0, --nnodes {args.nnodes})")
    return args


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _command(args) -> list[str]:
    if args.no_python:
        return [args.training_script, *args.training_script_args]
    if args.module:
        return [sys.executable, "-u", "-m", args.training_script, *args.training_script_args]
    return [sys.executable, "-u", args.training_script, *args.training_script_args]


def _child_setup():
    from ember.multiprocessing.spawn import _die_with_parent

    _die_with_parent(signal.SIGKILL)


def _start(args, port: int, run_id: str, restart: int) -> list[subprocess.Popen]:
    world = args.nnodes * args.nproc_per_node
    procs = []
    for local in range(args.nproc_per_node):
        rank = args.node_rank * args.nproc_per_node + local
        env = dict(os.environ)
        env.update(
            RANK=str(rank),
            LOCAL_RANK=str(local),
            WORLD_SIZE=str(world),
            LOCAL_WORLD_SIZE=str(args.nproc_per_node),
            GROUP_RANK=str(args.node_rank),
            GROUP_WORLD_SIZE=str(args.nnodes),
            ROLE_RANK=str(rank),
            ROLE_WORLD_SIZE=str(world),
            ROLE_NAME="default",
            MASTER_ADDR=args.master_addr,
            MASTER_PORT=str(port),
            TORCHELASTIC_RUN_ID=run_id,
            TORCHELASTIC_RESTART_COUNT=str(restart),
            TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts),
        )
        # torchrun's default: one OpenMP thread per worker, so that workers do not oversubscribe
        # the cores; a value the user set is kept.
        env.setdefault("OMP_NUM_THREADS", "1")
        procs.append(
            subprocess.Popen(
                _command(args), env=env, start_new_session=True, preexec_fn=_child_setup
            )
        )
    return procs


def _stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM to every live worker's process group, SIGKILL to what is left after the grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in procs:
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, sig)
        deadline = time.monotonic() + (_GRACE_SECONDS if sig == signal.SIGTERM else 10.0)
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            time.sleep(_POLL_SECONDS)
    # Leftovers of a worker's group (its DataLoader workers, say) go too.
    for p in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)


class _ExitWatch:
    """Wakes the launcher the moment a worker exits (pidfds), so that the first failure is
    told apart from the peers that fail after it because it is gone."""

    def __init__(self, procs):
        self.fds = []
        self.poller = select.poll()
        for p in procs:
            try:
                fd = os.pidfd_open(p.pid)
            except (AttributeError, OSError):
                continue
            self.fds.append(fd)
            self.poller.register(fd, select.POLLIN)

    def wait(self, seconds: float) -> None:
        if self.fds:
            # An exited worker's pidfd stays readable: stop watching it, or poll would spin.
            for fd, _ in self.poller.poll(seconds * 1000):
                self.poller.unregister(fd)
        else:
            time.sleep(seconds)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


def _describe(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _monitor(procs, interval, stopping):
    """Waits until every worker has exited with 0 (returns None), one has failed (returns its
    (local rank, exit code)), or the launcher got a signal (`stopping`; returns None)."""
    watch = _ExitWatch(procs)
    try:
        while not stopping:
            codes = [p.poll() for p in procs]
            for local, code in enumerate(codes):
                if code not in (None, 0):
                    return local, code
            if all(c == 0 for c in codes):
                return None
            watch.wait(interval)
        return None
    finally:
        watch.close()


def run(args) -> int:
    port = args.master_port
    if port == 0:
        if args.nnodes > 1:
            raise ValueError("--master-port 0 needs --nnodes 1: other nodes must know the port")
        port = _free_port()
    run_id = args.rdzv_id or uuid.uuid4().hex[:12]
    restart = 0
    stopping = []

    def on_signal(signum, frame):
        stopping.append(signum)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            procs = _start(args, port, run_id, restart)
            failed = _monitor(procs, args.monitor_interval, stopping)
            if stopping:
                _stop(procs)
                return 128 + stopping[0]
            if failed is None:
                return 0
            _stop(procs)
            local, code = failed
            rank = args.node_rank * args.nproc_per_node + local
            print(
                f"ember.distributed.run: worker rank {rank} (local_rank {local}, pid "
                f"{procs[local].pid}) {_describe(code)}; stopped the other workers",
                file=sys.stderr,
                flush=True,
            )
            if restart >= args.max_restarts:
                print(
                    f"ember.distributed.run: {args.training_script} FAILED: first failure rank "
                    f"{rank}, exit code {code}"
                    + (f" (after {restart} restarts)" if restart else ""),
                    file=sys.stderr,
                    flush=True,
                )
                return 1
            restart += 1
            print(
                f"ember.distributed.run: restarting the workers ({restart} of {args.max_restarts})",
                file=sys.stderr,
                flush=True,
            )
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def main(argv=None) -> None:
    sys.exit(run(parse_args(argv)))


if __name__ == "__main__":
    main()
