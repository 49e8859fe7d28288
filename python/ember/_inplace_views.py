"""The in-place shape ops (t_, transpose_, squeeze_, unsqueeze_, swapaxes_, as_strided_), resize_
and set_: they give a tensor new sizes and strides (or new memory) in place, through the same
TensorImpl::set_data that `x.data = y` uses, so the Python object, its autograd metadata and
existing references stay. Views taken earlier keep the old shape, as in PyTorch.

Not recorded by autograd: on a tensor that requires grad, under grad mode, they raise instead of
silently losing the shape change from its history (PyTorch records them; use the out-of-place
forms, t(), squeeze(), ..., there)."""

import warnings

from ember import _C

Tensor = _C.Tensor


def _check(self, name):
    if self.requires_grad and _C.is_grad_enabled():
        raise RuntimeError(
            f"[{name}] ember does not record in-place shape changes of a tensor that requires "
            f"grad; use the out-of-place form ({name.rstrip('_')}) instead"
        )


def _reshape_in_place(name, view):
    def method(self, *args, **kwargs):
        _check(self, name)
        self.data = view(self.detach(), *args, **kwargs)
        return self

    method.__name__ = name
    return method


def _contiguous_strides(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))


def _sizes(args):
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(args[0])
    return tuple(args)


def resize_(self, *sizes, memory_format=None):
    """Gives self the contiguous shape `sizes`: the same memory when self is contiguous and has
    at least as many elements, else new memory holding self's elements first (the rest
    uninitialised, as PyTorch's)."""
    _check(self, "resize_")
    sizes = _sizes(sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"[resize_] Trying to create tensor with negative dimension: {list(sizes)}"
        )
    n = 1
    for s in sizes:
        n *= s
    flat = self.detach()
    if flat.is_contiguous() and n <= flat.numel():
        self.data = flat.as_strided(sizes, _contiguous_strides(sizes), flat.storage_offset())
        return self
    if self.is_shared():
        # Other processes map this memory: new memory would silently stop sharing (PyTorch's
        # shared storages are not resizable either).
        raise RuntimeError(
            "[resize_] Trying to resize storage that is not resizable: the tensor is in shared "
            f"memory (from {list(self.shape)} to {list(sizes)})"
        )
    fresh = _C.empty(sizes, dtype=self.dtype, device=self.device)
    keep = min(n, flat.numel())
    if keep:
        fresh.view(-1)[:keep].copy_(flat.reshape(-1)[:keep])
    self.data = fresh
    return self


def resize_as_(self, other, memory_format=None):
    return resize_(self, tuple(other.shape))


def resize(self, *sizes):
    """The deprecated out-of-place resize: self's elements viewed in `sizes` (same count)."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return self.contiguous().view(_sizes(sizes))


def resize_as(self, other):
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return self.contiguous().view(tuple(other.shape))


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """self.set_(t): self shares t's memory, sizes and strides; self.set_(): an empty tensor.
    (PyTorch's Storage arguments need a Storage type, which ember does not expose.)"""
    _check(self, "set_")
    if source is None:
        self.data = _C.empty((0,), dtype=self.dtype, device=self.device)
        return self
    if not isinstance(source, Tensor):
        raise TypeError(
            f"[set_] expected a Tensor source, got {type(source).__name__} (ember has no Storage "
            "objects)"
        )
    if size is not None:
        stride = _contiguous_strides(tuple(size)) if stride is None else tuple(stride)
        source = source.detach().as_strided(tuple(size), stride, storage_offset)
    self.data = source.detach()
    return self


_METHODS = {
    "t_": _reshape_in_place("t_", lambda x: x.t()),
    "transpose_": _reshape_in_place("transpose_", lambda x, d0, d1: x.transpose(d0, d1)),
    "swapaxes_": _reshape_in_place("swapaxes_", lambda x, d0, d1: x.transpose(d0, d1)),
    "swapdims_": _reshape_in_place("swapdims_", lambda x, d0, d1: x.transpose(d0, d1)),
    "squeeze_": _reshape_in_place(
        "squeeze_", lambda x, dim=None: x.squeeze() if dim is None else x.squeeze(dim)
    ),
    "unsqueeze_": _reshape_in_place("unsqueeze_", lambda x, dim: x.unsqueeze(dim)),
    "as_strided_": _reshape_in_place(
        "as_strided_",
        lambda x, size, stride, storage_offset=None: x.as_strided(size, stride, storage_offset),
    ),
    "resize_": resize_,
    "resize_as_": resize_as_,
    "resize": resize,
    "resize_as": resize_as,
    "set_": set_,
}


def install(namespace):
    for name, method in _METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)
    namespace.setdefault("as_strided_", _METHODS["as_strided_"])
    namespace.setdefault("resize_as_", resize_as_)
