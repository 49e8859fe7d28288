"""ember.distributed: stores, collectives on 2 and 3 ranks (checked against NumPy), DDP against
one process trained on the concatenated batches, the launcher, and failures that must be errors
within a bound instead of hangs (an exited peer, a stopped peer, an unreachable store).

The multi-rank programs are tests/python/distributed_worker.py, started by the launcher (or
directly, to test what happens without it). Every job uses a free port; 3 ranks run on 2 cores.
"""

import datetime
import os
import socket
import subprocess
import sys
import threading
import time
import uuid

import pytest

import ember
import ember.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "distributed_worker.py")
# Workers inherit the environment: they import the same ember as this process (the installed
# package under scripts/test.sh, the source tree with PYTHONPATH=python in development).


def _env(**extra):
    env = dict(os.environ)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def launch(nproc, *args, timeout=180, extra_env=None, launcher_args=()):
    """Runs the worker under the launcher; returns (returncode, output, seconds)."""
    cmd = [
        sys.executable,
        "-m",
        "ember.distributed.run",
        "--standalone",
        f"--nproc-per-node={nproc}",
        *launcher_args,
        WORKER,
        *args,
    ]
    start = time.monotonic()
    p = subprocess.run(
        cmd, env=_env(**(extra_env or {})), capture_output=True, text=True, timeout=timeout
    )
    return p.returncode, p.stdout + p.stderr, time.monotonic() - start


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ranks(world, *args, **env):
    """The ranks started directly (no launcher), as a program's own script would."""
    port = free_port()
    return [
        subprocess.Popen(
            [sys.executable, "-u", WORKER, *args],
            env=_env(
                RANK=r,
                WORLD_SIZE=world,
                MASTER_ADDR="127.0.0.1",
                MASTER_PORT=port,
                OMP_NUM_THREADS=1,
                **env,
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for r in range(world)
    ]


# ---- stores -----------------------------------------------------------------------------------


def _store_semantics(store):
    store.set("a", b"1")
    store.set("text", "héllo")
    assert store.get("a") == b"1" and store.get("text") == "héllo".encode()
    assert store.add("n", 5) == 5 and store.add("n", -2) == 3 and store.get("n") == b"3"
    assert store.check(["a", "n"]) and not store.check(["a", "missing"])
    # compare_set: PyTorch's rules for a missing key and a mismatch
    assert store.compare_set("cs", "x", "y") == b"x"  # missing, expected not empty: unchanged
    assert not store.check(["cs"])
    assert store.compare_set("cs", "", "first") == b"first"
    assert store.compare_set("cs", "wrong", "second") == b"first"
    assert store.compare_set("cs", "first", "second") == b"second"
    assert store.delete_key("cs") and not store.delete_key("cs")
    store.wait(["a"])
    with pytest.raises(RuntimeError, match="timed out after 200 ms.*'never'"):
        store.wait(["never"], datetime.timedelta(milliseconds=200))
    with pytest.raises(RuntimeError, match="not an integer|does not hold an integer"):
        store.add("text", 1)


def test_hash_store():
    _store_semantics(dist.HashStore())


def test_file_store_is_shared_by_its_users(tmp_path):
    path = str(tmp_path / "store")
    a = dist.FileStore(path, 2)
    b = dist.FileStore(path, 2)
    _store_semantics(a)
    assert b.get("a") == b"1" and b.add("n", 1) == 4
    del a, b
    assert not os.path.exists(path), "the last user removes the file"


def test_file_store_reports_a_corrupt_file(tmp_path):
    path = tmp_path / "store"
    path.write_bytes(b"\xff\xff\xff\x7fgarbage")
    with pytest.raises(RuntimeError, match="corrupt"):
        dist.FileStore(str(path), 1)


def test_tcp_store_master_and_client():
    master = dist.TCPStore(
        "127.0.0.1", 0, 2, True, datetime.timedelta(seconds=20), wait_for_workers=False
    )
    client = dist.TCPStore(
        "127.0.0.1", master.port, 2, False, datetime.timedelta(seconds=20), wait_for_workers=False
    )
    _store_semantics(client)
    assert master.get("a") == b"1"
    # get waits for a key another client sets later
    threading.Timer(0.3, lambda: master.set("late", b"ok")).start()
    start = time.monotonic()
    assert client.get("late") == b"ok"
    assert 0.2 < time.monotonic() - start < 5
    prefixed = dist.PrefixStore("p", client)
    prefixed.set("k", b"v")
    assert master.get("p/k") == b"v" and prefixed.get("k") == b"v"


def test_tcp_store_unreachable_is_an_error_within_the_timeout():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="could not connect to the store at 127.0.0.1:"):
        dist.TCPStore("127.0.0.1", free_port(), 2, False, datetime.timedelta(seconds=1))
    assert time.monotonic() - start < 5


def test_tcp_store_port_in_use():
    master = dist.TCPStore("127.0.0.1", 0, 1, True, datetime.timedelta(seconds=5))
    with pytest.raises(RuntimeError, match="another job uses this port"):
        dist.TCPStore("127.0.0.1", master.port, 1, True, datetime.timedelta(seconds=5))


# ---- the API without a group ------------------------------------------------------------------


def test_without_a_process_group():
    assert dist.is_available() and dist.is_gloo_available() and not dist.is_nccl_available()
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.all_reduce(ember.ones(1))
    with pytest.raises(ValueError, match="has not been initialized"):
        ember.nn.parallel.DistributedDataParallel(ember.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="nccl backend is not built"):
        dist.init_process_group("nccl", rank=0, world_size=1, store=dist.HashStore())
    env = {k: v for k, v in os.environ.items() if k != "MASTER_ADDR"}
    env.update(RANK="0", WORLD_SIZE="1")
    code = "import ember.distributed as d; d.init_process_group('gloo')"
    p = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode != 0 and "MASTER_ADDR expected, but not set" in p.stderr


def test_world_of_one_with_a_store():
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    try:
        with pytest.raises(ValueError, match="twice"):
            dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
        t = ember.arange(4.0)
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
        assert dist.get_rank() == 0 and dist.get_world_size() == 1
        # DDP on one rank is the module itself, gradients unchanged
        torch = ember
        lin = torch.nn.Linear(3, 2)
        ddp = torch.nn.parallel.DistributedDataParallel(lin)
        x = torch.randn(4, 3)
        ddp(x).sum().backward()
        assert torch.allclose(lin.weight.grad, x.sum(0).expand(2, 3))
        assert list(ddp.state_dict())[0].startswith("module.")
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


def test_queue_callback_runs_after_backward_and_its_error_surfaces():
    from ember.autograd import Variable

    with pytest.raises(RuntimeError, match="only be installed during backward"):
        Variable._execution_engine.queue_callback(lambda: None)
    order = []
    w = ember.ones(2, requires_grad=True)

    def hook(p):
        order.append("hook")
        Variable._execution_engine.queue_callback(lambda: order.append("callback"))

    handle = w.register_post_accumulate_grad_hook(hook)
    (w * 2).sum().backward()
    assert order == ["hook", "callback"]
    handle.remove()

    def failing(p):
        def boom():
            raise KeyError("from the callback")

        Variable._execution_engine.queue_callback(boom)

    w.register_post_accumulate_grad_hook(failing)
    with pytest.raises(KeyError, match="from the callback"):
        (w * 2).sum().backward()


# ---- collectives and DDP on several ranks -----------------------------------------------------


@pytest.mark.parametrize("world", [2, 3])
def test_collectives(world):
    rc, out, _ = launch(world, "collectives")
    assert rc == 0, out
    assert out.count("collectives ok") == world


DDP_CASES = [
    (2, "mlp", "sgd", "plain"),
    (2, "mlp", "adam", "plain"),
    (2, "cnn", "sgd", "plain"),
    (2, "cnn", "adam", "plain"),
    (3, "mlp", "sgd", "plain"),
    (3, "cnn", "adam", "plain"),
    (2, "mlp", "sgd", "no_sync"),
    (2, "mlp", "adam", "unused"),
    (2, "cnn", "sgd", "small_buckets"),
]


@pytest.mark.parametrize("world,model,optim,variant", DDP_CASES)
def test_ddp_matches_one_process(world, model, optim, variant):
    rc, out, _ = launch(world, "ddp", model, optim, variant)
    assert rc == 0, out
    assert out.count(" ok, max diff") == world


@pytest.mark.parametrize("world", [2, 3])
def test_ddp_join_with_uneven_inputs(world):
    rc, out, _ = launch(world, "join")
    assert rc == 0, out
    assert out.count("join ok") == world


@pytest.mark.parametrize("world", [2, 3])
def test_sync_batch_norm_matches_one_process(world):
    rc, out, _ = launch(world, "syncbn")
    assert rc == 0, out
    assert out.count("syncbn ok") == world


def test_ddp_unused_parameter_without_find_unused_is_pytorchs_error():
    rc, out, _ = launch(2, "ddp_errors")
    assert rc == 0, out
    assert out.count("ddp errors ok") == 2


# ---- failures ---------------------------------------------------------------------------------


def test_launcher_stops_everyone_when_a_rank_exits():
    token = uuid.uuid4().hex
    rc, out, seconds = launch(2, "exit3", token)
    assert rc != 0
    assert seconds < 10 + 3, out  # 3 s of start-up on a loaded 2-core machine
    assert "rank 1" in out and "exit code 3" in out, out
    left = subprocess.run(["pgrep", "-f", token], capture_output=True, text=True)
    assert left.stdout == "", f"processes left behind: {left.stdout}"


def test_surviving_rank_raises_when_a_peer_exits():
    procs = start_ranks(2, "exit3")
    try:
        outs = [p.communicate(timeout=60)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert procs[1].returncode == 3
    assert procs[0].returncode != 0
    line = next(ln for ln in outs[0].splitlines() if "raised after" in ln)
    assert float(line.split("raised after ")[1].split(" s")[0]) < 5, line
    assert "[all_reduce]" in line and "peer rank 1 has exited" in line, line


def test_stopped_peer_is_a_timeout_error():
    procs = start_ranks(2, "stop", TEST_PG_TIMEOUT=5)
    try:
        out0 = procs[0].communicate(timeout=60)[0]
    finally:
        for p in procs:
            p.kill()  # the stopped rank too (SIGKILL ends a stopped process)
            p.wait()
    line = next(ln for ln in out0.splitlines() if "raised after" in ln)
    assert float(line.split("raised after ")[1].split(" s")[0]) < 10, line
    assert "peer rank 1 is stopped" in line, line


def test_launcher_restarts_then_succeeds(tmp_path):
    script = tmp_path / "flaky.py"
    script.write_text(
        "import os, sys\n"
        "import ember.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "if os.environ['TORCHELASTIC_RESTART_COUNT'] == '0' and dist.get_rank() == 1:\n"
        "    sys.exit(5)\n"
        "names = 'RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE OMP_NUM_THREADS'.split()\n"
        f"with open({str(tmp_path)!r} + '/env' + os.environ['RANK'], 'w') as f:\n"
        "    f.write(' '.join(os.environ[n] for n in names))\n"
        "dist.barrier()\n"
    )
    cmd = [
        sys.executable,
        "-m",
        "ember.distributed.run",
        "--standalone",
        "--nproc-per-node=2",
        "--max-restarts=1",
        str(script),
    ]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "restarting the workers (1 of 1)" in p.stderr
    assert (tmp_path / "env0").read_text() == "0 0 2 2 1"
    assert (tmp_path / "env1").read_text() == "1 1 2 2 1"


@pytest.mark.parametrize("scheme", ["tcp", "file"])
def test_init_methods(scheme, tmp_path):
    if scheme == "tcp":
        url = f"tcp://127.0.0.1:{free_port()}"
    else:
        url = f"file://{tmp_path / 'rendezvous'}"
    code = (
        "import sys, ember, ember.distributed as d\n"
        f"d.init_process_group('gloo', init_method={url!r}, rank=int(sys.argv[1]), world_size=2)\n"
        "t = ember.tensor([float(d.get_rank() + 1)]); d.all_reduce(t); print('sum', t.item())\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(r)],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for r in range(2)
    ]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    for p, out in zip(procs, outs):
        assert p.returncode == 0 and "sum 3.0" in out, out


def test_launcher_arguments():
    from ember.distributed.run import parse_args

    a = parse_args(["--standalone", "--nproc_per_node", "3", "train.py", "--lr", "1"])
    assert (a.nnodes, a.nproc_per_node, a.master_port) == (1, 3, 0)
    assert a.training_script == "train.py" and a.training_script_args == ["--lr", "1"]
    a = parse_args(["--nnodes=2", "--node-rank=1", "--master-addr=10.0.0.1", "x.py"])
    assert (a.nnodes, a.node_rank, a.master_addr, a.master_port) == (2, 1, "10.0.0.1", 29500)
    with pytest.raises(SystemExit):
        parse_args(["--nnodes=2", "--node-rank=2", "x.py"])


def test_two_nodes_static_rendezvous():
    """Two launchers, as on two machines (--nnodes 2, each its --node-rank), one job of 4 ranks."""
    port = free_port()
    cmds = [
        [
            sys.executable,
            "-m",
            "ember.distributed.run",
            "--nnodes=2",
            f"--node-rank={node}",
            "--nproc-per-node=2",
            "--master-addr=127.0.0.1",
            f"--master-port={port}",
            WORKER,
            "collectives",
        ]
        for node in (0, 1)
    ]
    procs = [
        subprocess.Popen(c, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for c in cmds
    ]
    outs = [p.communicate(timeout=180)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sum(o.count("collectives ok") for o in outs) == 4
