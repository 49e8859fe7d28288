"""ember.distributed: torch.distributed on Gloo (docs/design/distributed.md).

Stores (TCPStore, FileStore, HashStore, PrefixStore), init_process_group with env://, tcp:// and
file://, the collectives with async_op Work, point-to-point messages, the *_object forms and
new_group. Launch a job with `python -m ember.distributed.run` (or `ember-run`), as torchrun.
nn.parallel.DistributedDataParallel and utils.data.DistributedSampler build on this.
"""

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


def is_available() -> bool:
    """True: ember is built with Gloo."""
    return _D.gloo_available()


__all__ = [
    *_c10d_all,
    "DistBackendError",
    "DistError",
    "DistStoreError",
    "FileStore",
    "HashStore",
    "PrefixStore",
    "Store",
    "TCPStore",
    "is_available",
]
