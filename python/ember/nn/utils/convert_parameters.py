"""parameters_to_vector and vector_to_parameters (torch.nn.utils names and semantics)."""

from collections.abc import Iterable

from ember import _C

Tensor = _C.Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, old_device: object) -> object:
    if old_device is not None and param.device != old_device:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return param.device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All the parameters flattened and concatenated into one 1-D tensor (a copy)."""
    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    if not vec:
        raise RuntimeError("parameters_to_vector: expected at least one parameter, got none")
    return _C.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Makes each parameter look at its consecutive slice of vec (as PyTorch: `param.data =`
    a view of vec, so the parameters share vec's memory afterwards)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.dim() != 1 or vec.numel() < total:
        raise ValueError(
            f"vector_to_parameters: expected a 1-D vector of at least {total} elements (the "
            f"parameters' total), got shape {tuple(vec.shape)}"
        )
    for param in params:
        device = _check_param_device(param, device)
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param
