"""torch.distributed's process-group API (torch.distributed.distributed_c10d) on ember's C++
process groups (ember/distributed/, docs/design/distributed.md).

The default group and the groups made by new_group live here; each is a C++ ProcessGroup whose
collectives run on its own worker thread without the GIL. Ranks given to the functions
(src, dst) are global ranks, as in PyTorch; group_src/group_dst are ranks within the group.
"""

from __future__ import annotations

import os
import pickle
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlparse

import ember
from ember._C import _distributed as _D

__all__ = [
    "Backend",
    "GroupMember",
    "P2POp",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_default_backend_for_device",
    "get_global_rank",
    "get_group_rank",
    "get_node_local_rank",
    "get_pg_count",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "is_ucc_available",
    "is_xccl_available",
    "isend",
    "monitored_barrier",
    "new_group",
    "new_subgroups",
    "recv",
    "recv_object_list",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
    "send_object_list",
    "supports_complex",
]

ReduceOp = _D.ReduceOp
ProcessGroup = _D.ProcessGroup
Work = _D.Work

# PyTorch's default for Gloo groups.
default_pg_timeout = timedelta(minutes=30)

_NO_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class Backend(str):
    """A backend name: Backend("GLOO") == "gloo"."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {name}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class _NonGroupMember:
    def __repr__(self):
        return "GroupMember.NON_GROUP_MEMBER"


class _WorldMeta(type):
    @property
    def WORLD(cls):  # noqa: N802 (PyTorch's name)
        return _state.default


class GroupMember(metaclass=_WorldMeta):
    """GroupMember.WORLD is the default group; NON_GROUP_MEMBER what new_group gives a rank that
    is not in the group."""

    NON_GROUP_MEMBER = _NonGroupMember()


class group(metaclass=_WorldMeta):  # noqa: N801 (PyTorch's name)
    """dist.group.WORLD: the default group."""


class _State:
    def __init__(self):
        self.default = None  # the default ProcessGroup
        self.store = None  # the store it was made from (new_group makes prefixed stores on it)
        self.ranks: dict[Any, list[int]] = {}  # group -> its global ranks, in group-rank order
        self.group_count = 0


_state = _State()


def is_gloo_available() -> bool:
    return True  # ember's build requires Gloo (cmake/EmberDependencies.cmake)


def is_nccl_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_xccl_available() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return str(backend).lower() == Backend.GLOO


def get_default_backend_for_device(device) -> str:
    kind = device if isinstance(device, str) else device.type
    kind = kind.split(":")[0]
    if kind == "cpu":
        return Backend.GLOO
    raise RuntimeError(
        f"ember.distributed has no backend for {kind} tensors (it has gloo, for CPU)"
    )


def supports_complex(reduceOp) -> bool:  # noqa: N803 (PyTorch's name)
    """Whether complex tensors can be reduced with this op (ember also allows PRODUCT)."""
    return reduceOp not in (ReduceOp.MIN, ReduceOp.MAX, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def get_node_local_rank(fallback_rank=None) -> int:
    """This process's rank on its machine: LOCAL_RANK from the launcher, else fallback_rank."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
        "and want the code to run locally instead."
    )


def get_pg_count() -> int:
    """The number of process groups made (the default one included)."""
    return len(_state.ranks)


def is_torchelastic_launched() -> bool:
    """True in a worker started by ember-run / python -m ember.distributed.run (as torchrun)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    return _state.default is not None


# ---- init -------------------------------------------------------------------------------------


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise ValueError(
            f"Error initializing torch.distributed using env:// rendezvous: environment variable "
            f"{name} expected, but not set"
        )
    return value


def _env_int(name: str) -> int:
    value = _env(name)
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer, got {value!r}") from None


def _check_backend(backend) -> str:
    if backend is None:
        return Backend.GLOO
    name = str(backend).lower()
    if ":" in name:  # "cpu:gloo,cuda:nccl"
        parts = dict(p.split(":", 1) for p in name.split(","))
        name = parts.get("cpu", next(iter(parts.values())))
    if name == Backend.GLOO:
        return name
    if name == Backend.NCCL:
        raise RuntimeError(
            "ember.distributed: the nccl backend is not built in this ember (it needs a CUDA "
            "build with NCCL); use backend='gloo' for CPU tensors"
        )
    raise ValueError(f"ember.distributed: unknown or unsupported backend {backend!r}; use 'gloo'")


def _store_from_init_method(init_method: str, rank: int, world_size: int, timeout: timedelta):
    url = urlparse(init_method)
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    if "rank" in query:
        rank = int(query["rank"])
    if "world_size" in query:
        world_size = int(query["world_size"])
    if url.scheme == "env":
        rank = _env_int("RANK") if rank < 0 else rank
        world_size = _env_int("WORLD_SIZE") if world_size < 0 else world_size
        host, port = _env("MASTER_ADDR"), _env_int("MASTER_PORT")
    elif url.scheme == "tcp":
        if not url.hostname or not url.port:
            raise ValueError(f"tcp:// init_method needs host and port, got {init_method!r}")
        host, port = url.hostname, url.port
    elif url.scheme == "file":
        host = port = None
    else:
        raise ValueError(f"ember.distributed: unsupported init_method {init_method!r}")
    if rank < 0 or world_size < 1:
        raise ValueError(
            f"ember.distributed: rank and world_size are needed with {url.scheme}:// (got rank "
            f"{rank}, world_size {world_size})"
        )
    if url.scheme == "file":
        store = _D.FileStore(url.path, world_size, timeout)
    else:
        store = _D.TCPStore(host, port, world_size, rank == 0, timeout)
    return store, rank, world_size


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    """Starts the default group: every rank calls it, and it returns when all have connected."""
    if _state.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    _check_backend(backend)
    timeout = default_pg_timeout if timeout is None else timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout}"
        )
    if store is None:
        store, rank, world_size = _store_from_init_method(
            init_method or "env://", rank, world_size, timeout
        )
    else:
        if init_method is not None:
            raise ValueError("Cannot specify both init_method and store.")
        if rank < 0 or world_size < 1:
            raise ValueError("rank and world_size must be given with store")
    pg = _D.make_gloo(_D.PrefixStore("default_pg", store), rank, world_size, timeout)
    _state.default = pg
    _state.store = store
    _state.ranks[pg] = list(range(world_size))
    _state.group_count = 0


def destroy_process_group(group=None) -> None:
    global _state
    if _state.default is None:
        raise ValueError(_NO_GROUP)
    if group is None or group is _state.default:
        _state = _State()
        return
    _state.ranks.pop(group, None)


def new_subgroups(
    group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None
):
    """Splits the world into groups of group_size consecutive ranks (every rank makes them all);
    returns (this rank's subgroup, all the subgroups)."""
    world = _default("new_subgroups").size()
    if group_size is None:
        raise ValueError("new_subgroups: ember needs group_size (it has no devices to count)")
    if group_size <= 0 or world % group_size:
        raise ValueError(f"The world size ({world}) must be divisible by group_size={group_size}")
    subgroups, mine = [], None
    for start in range(0, world, group_size):
        ranks = list(range(start, start + group_size))
        pg = new_group(ranks, timeout=timeout, backend=backend)
        subgroups.append(pg)
        if get_rank() in ranks:
            mine = pg
    return mine, subgroups


def new_group(
    ranks=None,
    timeout=None,
    backend=None,
    pg_options=None,
    use_local_synchronization=False,
    group_desc=None,
    device_id=None,
):
    """A group of some ranks. Every rank of the default group must call it, in the same order
    (the groups are numbered by their calls); a rank outside `ranks` gets NON_GROUP_MEMBER."""
    world = _default("new_group")
    _check_backend(backend)
    size = world.size()
    ranks = list(range(size)) if ranks is None else sorted(int(r) for r in ranks)
    for r in ranks:
        if not 0 <= r < size:
            raise ValueError(f"new_group: rank {r} is not in the world (size {size})")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks {ranks} has duplicates")
    _state.group_count += 1
    me = world.rank()
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    prefix = f"group{_state.group_count}:" + ",".join(map(str, ranks))
    timeout = world.timeout if timeout is None else timeout
    pg = _D.make_gloo(_D.PrefixStore(prefix, _state.store), ranks.index(me), len(ranks), timeout)
    _state.ranks[pg] = ranks
    return pg


# ---- groups and ranks -------------------------------------------------------------------------


def _default(op: str):
    if _state.default is None:
        raise ValueError(_NO_GROUP)
    return _state.default


def _group(group, op: str):
    """The ProcessGroup for `group` (None: the default), or None for a non-member."""
    if group is None or group is GroupMember.WORLD:
        return _default(op)
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if group not in _state.ranks:
        raise ValueError(f"{op}: the group is not registered (was it destroyed?)")
    return group


def get_rank(group=None) -> int:
    pg = _group(group, "get_rank")
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    pg = _group(group, "get_world_size")
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    pg = _group(group, "get_backend")
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg.name()


def get_process_group_ranks(group) -> list[int]:
    pg = _group(group, "get_process_group_ranks")
    return list(_state.ranks[pg])


def get_global_rank(group, group_rank: int) -> int:
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    ranks = get_process_group_ranks(group)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def _to_group_rank(pg, global_rank, group_rank, op: str, what: str) -> int:
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"{op}: give {what} or group_{what}, not both")
    if group_rank is not None:
        return group_rank
    if global_rank is None:
        global_rank = 0
    ranks = _state.ranks[pg]
    if global_rank not in ranks:
        raise ValueError(f"{op}: {what} rank {global_rank} is not in the group (ranks {ranks})")
    return ranks.index(global_rank)


def _check_tensor(t, op: str, name: str = "tensor") -> None:
    if not isinstance(t, ember.Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")


def _check_list(ts, op: str, name: str) -> None:
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, ember.Tensor) for t in ts):
        raise TypeError(f"{op}: {name} must be a list of Tensors")


def _flatten(tensors) -> ember.Tensor:
    """The tensors' elements, one after the other, in one 1-d tensor."""
    return ember.cat([t.reshape(-1) for t in tensors])


def _unflatten_into(flat, tensors) -> None:
    """The inverse of _flatten: consecutive pieces of flat copied into each tensor."""
    offset = 0
    for t in tensors:
        t.copy_(flat[offset : offset + t.numel()].view(t.shape))
        offset += t.numel()


def _finish(work, async_op: bool):
    if async_op:
        return work
    work.wait()
    return None


# ---- collectives ------------------------------------------------------------------------------


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor, "all_reduce")
    pg = _group(group, "all_reduce")
    if pg is None:
        return None
    return _finish(pg.allreduce(tensor, op), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "broadcast")
    pg = _group(group, "broadcast")
    if pg is None:
        return None
    root = _to_group_rank(pg, src, group_src, "broadcast", "src")
    return _finish(pg.broadcast(tensor, root), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "reduce")
    pg = _group(group, "reduce")
    if pg is None:
        return None
    root = _to_group_rank(pg, dst, group_dst, "reduce", "dst")
    return _finish(pg.reduce(tensor, root, op), async_op)


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """all_reduce of a list of tensors of one dtype, as one flat tensor."""
    _check_list(tensors, "all_reduce_coalesced", "tensors")
    pg = _group(group, "all_reduce_coalesced")
    if pg is None or not tensors:
        return None
    flat = _flatten(tensors)
    pg.allreduce(flat, op).wait()
    _unflatten_into(flat, tensors)
    return _CompletedWork() if async_op else None


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_list(tensor_list, "all_gather", "tensor_list")
    _check_tensor(tensor, "all_gather")
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    return _finish(pg.allgather(list(tensor_list), tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor(output_tensor, "all_gather_into_tensor", "output_tensor")
    _check_tensor(input_tensor, "all_gather_into_tensor", "input_tensor")
    pg = _group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    return _finish(pg.allgather_into_tensor(output_tensor, input_tensor), async_op)


_all_gather_base = all_gather_into_tensor


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "gather")
    pg = _group(group, "gather")
    if pg is None:
        return None
    root = _to_group_rank(pg, dst, group_dst, "gather", "dst")
    outputs = list(gather_list) if gather_list is not None and pg.rank() == root else []
    if pg.rank() == root:
        _check_list(outputs, "gather", "gather_list")
    return _finish(pg.gather(outputs, tensor, root), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "scatter")
    pg = _group(group, "scatter")
    if pg is None:
        return None
    root = _to_group_rank(pg, src, group_src, "scatter", "src")
    inputs = list(scatter_list) if scatter_list is not None and pg.rank() == root else []
    if pg.rank() == root:
        _check_list(inputs, "scatter", "scatter_list")
    return _finish(pg.scatter(tensor, inputs, root), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "reduce_scatter_tensor", "output")
    _check_tensor(input, "reduce_scatter_tensor", "input")
    pg = _group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    return _finish(pg.reduce_scatter_tensor(output, input, op), async_op)


_reduce_scatter_base = reduce_scatter_tensor


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "reduce_scatter", "output")
    _check_list(input_list, "reduce_scatter", "input_list")
    return reduce_scatter_tensor(output, _flatten(input_list), op, group, async_op)


def all_to_all_single(
    output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False
):
    _check_tensor(output, "all_to_all_single", "output")
    _check_tensor(input, "all_to_all_single", "input")
    pg = _group(group, "all_to_all_single")
    if pg is None:
        return None
    work = pg.alltoall_base(
        output, input, list(output_split_sizes or []), list(input_split_sizes or [])
    )
    return _finish(work, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    _check_list(output_tensor_list, "all_to_all", "output_tensor_list")
    _check_list(input_tensor_list, "all_to_all", "input_tensor_list")
    pg = _group(group, "all_to_all")
    if pg is None:
        return None
    send = _flatten(input_tensor_list)
    recv = ember.empty(sum(t.numel() for t in output_tensor_list), dtype=send.dtype)
    pg.alltoall_base(
        recv, send, [t.numel() for t in output_tensor_list], [t.numel() for t in input_tensor_list]
    ).wait()
    _unflatten_into(recv, output_tensor_list)
    return _CompletedWork() if async_op else None


class _CompletedWork:
    """A Work already done (the async form of a collective that finished in Python)."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def exception(self):
        return None


def barrier(group=None, async_op=False, device_ids=None):
    pg = _group(group, "barrier")
    if pg is None:
        return None
    return _finish(pg.barrier(), async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that fails (RuntimeError) when it takes longer than `timeout`."""
    pg = _group(group, "monitored_barrier")
    if pg is None:
        return
    work = pg.barrier()
    if timeout is None:
        work.wait()
    else:
        work.wait(timeout)


# ---- point to point ---------------------------------------------------------------------------


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor, "isend")
    pg = _group(group, "isend")
    if pg is None:
        return None
    peer = _to_group_rank(pg, dst, group_dst, "isend", "dst")
    return pg.send(tensor, peer, tag)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor, "irecv")
    pg = _group(group, "irecv")
    if pg is None:
        return None
    if src is None and group_src is None:
        return pg.recv(tensor, -1, tag)
    peer = _to_group_rank(pg, src, group_src, "irecv", "src")
    return pg.recv(tensor, peer, tag)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor`; returns the sender's global rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    pg = _group(group, "recv")
    return _state.ranks[pg][work._source_rank()]


class P2POp:
    """One send or receive for batch_isend_irecv: P2POp(dist.isend, tensor, peer)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list):
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("batch_isend_irecv expects a non-empty list of P2POp")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# ---- objects ----------------------------------------------------------------------------------
# A picklable object travels as a uint8 tensor; the sizes go first, so every rank can pad to
# the largest.


def _to_tensor(obj) -> ember.Tensor:
    return ember.frombuffer(bytearray(pickle.dumps(obj)), dtype=ember.uint8)


def _from_tensor(t: ember.Tensor, size: int):
    return pickle.loads(t[:size].numpy().tobytes())


def all_gather_object(object_list, obj, group=None):
    pg = _group(group, "all_gather_object")
    if pg is None:
        return
    data = _to_tensor(obj)
    n = pg.size()
    sizes = ember.zeros(n, dtype=ember.int64)
    pg.allgather_into_tensor(sizes, ember.tensor([data.numel()], dtype=ember.int64)).wait()
    longest = int(sizes.max())
    padded = ember.zeros(longest, dtype=ember.uint8)
    padded[: data.numel()] = data
    out = ember.zeros(longest * n, dtype=ember.uint8)
    pg.allgather_into_tensor(out, padded).wait()
    for i in range(n):
        object_list[i] = _from_tensor(out[i * longest : (i + 1) * longest], int(sizes[i]))


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    """Sends picklable objects to dst (recv_object_list there fills a list of the same length)."""
    pg = _group(group, "send_object_list")
    if pg is None:
        return
    peer = _to_group_rank(pg, dst, group_dst, "send_object_list", "dst")
    data = _to_tensor(list(object_list))
    pg.send(ember.tensor([data.numel()], dtype=ember.int64), peer, 0).wait()
    pg.send(data, peer, 0).wait()


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Fills object_list with what send_object_list sent; returns the sender's rank."""
    pg = _group(group, "recv_object_list")
    if pg is None:
        return -1
    size = ember.zeros(1, dtype=ember.int64)
    if src is None and group_src is None:
        work = pg.recv(size, -1, 0)
        work.wait()
        peer = work._source_rank()
    else:
        peer = _to_group_rank(pg, src, group_src, "recv_object_list", "src")
        pg.recv(size, peer, 0).wait()
    data = ember.zeros(int(size[0]), dtype=ember.uint8)
    pg.recv(data, peer, 0).wait()
    object_list[:] = _from_tensor(data, int(size[0]))
    return _state.ranks[pg][peer]


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    pg = _group(group, "gather_object")
    if pg is None:
        return
    root = _to_group_rank(pg, dst, group_dst, "gather_object", "dst")
    gathered = [None] * pg.size()
    all_gather_object(gathered, obj, group)
    if pg.rank() == root:
        if object_gather_list is None:
            raise ValueError("gather_object: object_gather_list must be given on the dst rank")
        object_gather_list[:] = gathered


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    pg = _group(group, "broadcast_object_list")
    if pg is None:
        return
    root = _to_group_rank(pg, src, group_src, "broadcast_object_list", "src")
    size = ember.zeros(1, dtype=ember.int64)
    if pg.rank() == root:
        data = _to_tensor(list(object_list))
        size[0] = data.numel()
    pg.broadcast(size, root).wait()
    if pg.rank() != root:
        data = ember.zeros(int(size[0]), dtype=ember.uint8)
    pg.broadcast(data, root).wait()
    if pg.rank() != root:
        object_list[:] = _from_tensor(data, int(size[0]))


def scatter_object_list(
    scatter_object_output_list, scatter_object_input_list=None, src=None, group=None, group_src=None
):
    pg = _group(group, "scatter_object_list")
    if pg is None:
        return
    root = _to_group_rank(pg, src, group_src, "scatter_object_list", "src")
    objects = [None]
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != pg.size():
            raise ValueError(
                "scatter_object_list: scatter_object_input_list must hold world_size objects on "
                "the src rank"
            )
        objects = [list(scatter_object_input_list)]
    broadcast_object_list(objects, group_src=root, group=group)
    scatter_object_output_list[0] = objects[0][pg.rank()]
