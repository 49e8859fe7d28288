import sys
from typing import Optional

from ember import _C


def as_tensor(data, dtype=None, device=None):
    """data as a tensor, sharing memory where it can, as torch.as_tensor: a tensor comes back
    itself (or through .to when dtype or device differ, keeping its graph); a NumPy array goes
    through from_numpy (shared memory) and then .to; anything else is copied, as ember.tensor."""
    if isinstance(data, _C.Tensor):
        return data.to(device=device, dtype=dtype)
    # An ndarray exists only if NumPy is loaded; importing ember must not load it.
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(data, numpy.ndarray):
        return _C.from_numpy(data).to(device=device, dtype=dtype)
    return _C.tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, as torch.asarray. A tensor, a NumPy array or a DLPack producer is shared
    when dtype and device allow it (copy=None); copy=True always copies; copy=False raises
    ValueError where a copy would be needed. Numbers and (nested) sequences are copied, as
    ember.tensor reads them. requires_grad=True makes the result require grad."""
    numpy = sys.modules.get("numpy")  # an ndarray exists only if NumPy is loaded
    if isinstance(obj, _C.Tensor):
        source = obj
    elif numpy is not None and isinstance(obj, numpy.ndarray):
        source = _C.from_numpy(obj)
    elif hasattr(obj, "__dlpack__"):
        source = _C.from_dlpack(obj)
    else:
        if copy is False:
            raise ValueError(
                f"asarray(): can't share the memory of a {type(obj).__name__} (copy=False)"
            )
        out = _C.tensor(obj, dtype=dtype, device=device)
        return out.requires_grad_() if requires_grad else out
    out = source.to(device=device, dtype=dtype)
    shared = out is source  # .to gives source itself when nothing changes, else a copy
    if copy is False and not shared:
        raise ValueError(
            f"asarray(): copy=False, but {source.dtype} on {source.device} must be copied to "
            f"give {out.dtype} on {out.device}"
        )
    if copy and shared:
        out = out.clone()
    if requires_grad and not out.requires_grad:
        out.requires_grad_()
    return out


def is_tensor(obj) -> bool:
    """True if obj is an ember Tensor."""
    return isinstance(obj, _C.Tensor)


def numel(input) -> int:
    """Number of elements of a tensor."""
    return input.numel()


def result_type(tensor1, tensor2):
    """The dtype of tensor1 op tensor2 under PyTorch's promotion rules."""
    return _C._result_type(tensor1, tensor2)


def set_printoptions(
    precision: Optional[int] = None,
    threshold: Optional[int] = None,
    edgeitems: Optional[int] = None,
    linewidth: Optional[int] = None,
    profile: Optional[str] = None,
    sci_mode: Optional[bool] = None,
) -> None:
    """Options for printing tensors, as torch.set_printoptions (profile: default, short, full)."""
    reset = profile == "default"
    if profile == "short":
        precision, threshold, edgeitems, linewidth = 2, 1000, 2, 80
    elif profile == "full":
        precision, threshold, edgeitems, linewidth = 4, 2**63 - 1, 3, 80
    _C._set_printoptions(precision, threshold, edgeitems, linewidth, sci_mode, reset)
