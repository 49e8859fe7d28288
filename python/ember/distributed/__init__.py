"""ember.distributed: torch.distributed on Gloo (docs/design/distributed.md).

Stores (TCPStore, FileStore, HashStore, PrefixStore), init_process_group with env://, tcp:// and
file://, the collectives with async_op Work, point-to-point messages, the *_object forms and
new_group. Launch a job with `python -m ember.distributed.run` (or `ember-run`), as torchrun.
nn.parallel.DistributedDataParallel and utils.data.DistributedSampler build on this.
"""

import enum
import os

from ember._C import _distributed as _D
from ember.distributed.distributed_c10d import *  # noqa: F403
from ember.distributed.distributed_c10d import _NO_GROUP  # noqa: F401
from ember.distributed.distributed_c10d import __all__ as _c10d_all

Store = _D.Store
TCPStore = _D.TCPStore
FileStore = _D.FileStore
HashStore = _D.HashStore
PrefixStore = _D.PrefixStore


class DistBackendError(RuntimeError):
    """PyTorch's error type for backend failures (a RuntimeError); ember raises RuntimeError."""


class DistError(RuntimeError):
    pass


class DistStoreError(DistError):
    pass


class DistNetworkError(DistError):
    pass


class QueueEmptyError(DistError):
    pass


class DebugLevel(enum.Enum):
    """TORCH_DISTRIBUTED_DEBUG's levels; ember checks collectives' shapes at every level."""

    OFF = 0
    INFO = 1
    DETAIL = 2


_debug_level = DebugLevel.OFF


def get_debug_level() -> DebugLevel:
    return _debug_level


def set_debug_level(level: DebugLevel) -> None:
    global _debug_level
    _debug_level = level


def set_debug_level_from_env() -> None:
    set_debug_level(DebugLevel[os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()])


def is_available() -> bool:
    """True: ember's build requires Gloo (cmake/EmberDependencies.cmake)."""
    return True


__all__ = [
    *_c10d_all,
    "DebugLevel",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "QueueEmptyError",
    "FileStore",
    "HashStore",
    "PrefixStore",
    "Store",
    "TCPStore",
    "get_debug_level",
    "is_available",
    "set_debug_level",
    "set_debug_level_from_env",
]
