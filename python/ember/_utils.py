from typing import Optional

from ember import _C


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
