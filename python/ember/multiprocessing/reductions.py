"""The ForkingPickler reductions that send tensors between processes by shared memory.

A tensor is reduced to (its storage's shared-memory descriptor, nbytes, dtype, sizes, strides,
offset, requires_grad). The descriptor travels as multiprocessing.reduction.DupFd: duplicated
into the child at start under spawn and forkserver, or handed over a Unix socket by the sending
process's resource sharer when a Queue or Pipe carries it. The receiving process maps the file;
storages it already mapped are looked up by the file's identity (device, inode), so that views
sent separately share one storage again, as in PyTorch.
"""

import os
import threading
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler

from ember import _C

_mp = _C._multiprocessing

# (st_dev, st_ino) of a shared memory file -> a weak reference to a tensor on its storage.
_storages = {}
_storages_lock = threading.Lock()


def _storage_key(fd):
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino)


def _rebuild_tensor(df, nbytes, dtype, sizes, strides, offset, requires_grad, cls):
    fd = df.detach()
    key = _storage_key(fd)
    with _storages_lock:
        ref = _storages.get(key)
        base = ref() if ref is not None else None
        if base is not None:
            os.close(fd)  # this storage is mapped already; its own descriptor stays
            t = _mp.tensor_on_storage_of(base, dtype, sizes, strides, offset)
        else:
            t = _mp.tensor_from_fd(fd, nbytes, dtype, sizes, strides, offset)
            _storages[key] = weakref.ref(t, lambda _, key=key: _forget(key))
    if cls is not None:
        return cls(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _forget(key):
    with _storages_lock:
        ref = _storages.get(key)
        if ref is not None and ref() is None:
            del _storages[key]


def reduce_tensor(tensor):
    """Moves tensor's storage into shared memory (in place) and reduces it to its descriptor."""
    from ember.nn.parameter import Parameter

    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries. If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the queue)."
        )
    if tensor.device.type != "cpu":
        raise RuntimeError(
            f"[multiprocessing] only CPU tensors can be shared between processes, got a tensor on "
            f"{tensor.device}"
        )
    fd, nbytes = _mp.share_fd(tensor)
    cls = Parameter if isinstance(tensor, Parameter) else None
    return (
        _rebuild_tensor,
        (
            DupFd(fd),
            nbytes,
            tensor.dtype,
            tuple(tensor.shape),
            tuple(tensor.stride()),
            tensor.storage_offset(),
            tensor.requires_grad,
            cls,
        ),
    )


def init_reductions():
    from ember.nn.parameter import Parameter

    ForkingPickler.register(_C.Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_tensor)
