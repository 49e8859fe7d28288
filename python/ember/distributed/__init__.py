"""ember.distributed: what a program can ask before it starts a process group.

The collectives, stores and DistributedDataParallel are issue 19 and not built yet. What is here
answers the questions single-process programs ask (nanoGPT's `ddp = int(os.environ.get("RANK",
-1)) != -1`, `dist.is_initialized()`), with PyTorch's answers when no process group exists, and
`init_process_group` raises RuntimeError instead of pretending to start one.
"""

__all__ = [
    "destroy_process_group",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "is_initialized",
]

_NO_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


def is_available() -> bool:
    """False: ember's distributed package has no backend yet."""
    return False


def is_initialized() -> bool:
    return False


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
    raise RuntimeError(
        "ember.distributed.init_process_group: ember has no process-group backend yet (Gloo and "
        "NCCL are planned); run the program as a single process"
    )


def destroy_process_group(group=None) -> None:
    raise ValueError(_NO_GROUP)


def get_rank(group=None) -> int:
    raise ValueError(_NO_GROUP)


def get_world_size(group=None) -> int:
    raise ValueError(_NO_GROUP)
