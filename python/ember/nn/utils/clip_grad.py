"""Gradient clipping: clip_grad_norm_, clip_grad_value_, get_total_norm,
clip_grads_with_norm_ (torch.nn.utils names and semantics).

The total norm is the norm of the per-tensor norms: one C++ vector_norm per gradient, one
stack and one more norm, then one in-place multiply per gradient by a 0-d tensor (no .item(),
so no host round trip on an accelerator).
"""

from collections.abc import Iterable
from typing import Any

from ember import _C
from ember.autograd.grad_mode import no_grad

Tensor = _C.Tensor
_vector_norm = _C._linalg.vector_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def _tensor_list(tensors: Any) -> list:
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def get_total_norm(
    tensors: Any,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The norm of all the tensors together, as if concatenated into one vector: the
    norm_type-norm of their norm_type-norms (inf: the largest absolute value)."""
    tensors = [t for t in _tensor_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    with no_grad():
        norms = [_vector_norm(t, norm_type) for t in tensors]
        dtype = norms[0].dtype
        for n in norms[1:]:
            dtype = _C.promote_types(dtype, n.dtype)
        total_norm = _vector_norm(_C.stack([n.to(dtype) for n in norms]), norm_type)
    if error_if_nonfinite and not bool(total_norm.isfinite()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


def clip_grads_with_norm_(
    parameters: Any, max_norm: float, total_norm: Tensor, foreach: bool | None = None
) -> None:
    """Scales the gradients by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _tensor_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef.to(g.dtype))


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scales the parameters' gradients in place so that their total norm is at most
    max_norm; returns the total norm before clipping (a 0-d tensor). `foreach` is accepted
    for PyTorch compatibility; ember has one code path."""
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamps every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensor_list(parameters):
            g = p.grad
            if g is not None:
                g.clamp_(min=-clip_value, max=clip_value)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The deprecated name of clip_grad_norm_ (PyTorch warns and calls it)."""
    import warnings

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
