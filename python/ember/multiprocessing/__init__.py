"""ember.multiprocessing: Python's multiprocessing, with tensors passed by shared memory.

As torch.multiprocessing (the paper's section 5.4): the standard library's names are re-exported,
and reductions registered on its ForkingPickler send a CPU tensor to another process (through a
Queue, a Pipe, a Pool or a Process's arguments, under fork, spawn or forkserver) by moving its
storage into shared memory and sending the file descriptor, not the bytes. The receiving process
maps the same pages: an in-place change on either side is seen by the other, and by views taken
before. `spawn` and `start_processes` run a function in N processes and re-raise a child's
exception in the parent. docs/design/multiprocessing.md has the layers.
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from ember.multiprocessing.reductions import init_reductions
from ember.multiprocessing.spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = list(multiprocessing.__all__) + [
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
    "spawn",
    "start_processes",
    "ProcessContext",
    "SpawnContext",
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
]

# PyTorch's names. "file_descriptor" (its default on Linux) sends the descriptor of an
# anonymous shared memory file; "file_system" would name a file in /dev/shm, which a killed
# process leaves behind, so ember keeps descriptors whatever is asked (see set_sharing_strategy).
_all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors: "file_descriptor" or "file_system". Both send a
    descriptor of an unnamed memory file here (the files of "file_system" could outlive killed
    processes); the choice is recorded for get_sharing_strategy."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise ValueError(
            f"[multiprocessing] unknown sharing strategy {new_strategy!r}; expected one of "
            f"{sorted(_all_sharing_strategies)}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The strategies this system supports."""
    return set(_all_sharing_strategies)


init_reductions()
