"""Forward-mode AD with torch.autograd.forward_ad's API: dual_level, make_dual, unpack_dual.

ember's engine is reverse mode; forward-mode tangents are computed from it by the double-vjp
identity (the "double backward trick"): for an output y of the duals x with tangents v,
u -> J^T u is linear in u, so the gradient of <J^T u, v> with respect to u is J v. unpack_dual
runs two backward passes over the graph recorded since make_dual. So a tangent exists for what
autograd records (not for code under no_grad), and each op needs a double backward, which ember's
differentiable ops have. The cost is two reverse passes per unpack_dual rather than one forward
pass alongside the computation."""

from collections import namedtuple

from ember import _C
from ember.autograd.grad_mode import enable_grad as _GradOn

UnpackedDualTensor = namedtuple("UnpackedDualTensor", "primal tangent")

# One list of (dual tensor, tangent) per open level, innermost last.
_levels: list = []


def enter_dual_level() -> int:
    """Opens a new forward-AD level and returns its index."""
    _levels.append([])
    return len(_levels) - 1


def exit_dual_level(*, level=None) -> None:
    """Closes the innermost level (which must be `level` when given); its duals lose their
    tangents."""
    if not _levels:
        raise RuntimeError("Trying to exit a forward AD level that was not entered")
    if level is not None and level != len(_levels) - 1:
        raise RuntimeError(
            f"Trying to exit a forward AD level ({level}) that is not the innermost one "
            f"({len(_levels) - 1})"
        )
    _levels.pop()


class dual_level:
    """Context manager of a forward-AD level: the duals made inside live until it exits."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def _level(level):
    if not _levels:
        raise RuntimeError(
            "make_dual and unpack_dual need an enclosing dual_level (with "
            "forward_ad.dual_level(): ...)"
        )
    index = len(_levels) - 1 if level is None else level
    if not 0 <= index < len(_levels):
        raise RuntimeError(f"forward AD level {level} is not open")
    return _levels[index]


def make_dual(tensor, tangent, *, level=None):
    """A tensor with tensor's values (sharing its memory) carrying `tangent` at this level."""
    duals = _level(level)
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            f"Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if not tensor.is_floating_point():
        raise ValueError("Expected a floating-point tensor as the primal of make_dual")
    with _GradOn():
        dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_()
    duals.append((dual, tangent.detach()))
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): tensor's values without autograd history, and J v, the derivative of
    tensor along the tangents of the duals it was computed from (None when it depends on none)."""
    if not _levels:
        return UnpackedDualTensor(tensor, None)
    duals = _level(level)
    primal = tensor.detach()
    for d, t in duals:
        if d is tensor:
            return UnpackedDualTensor(primal, t)
    if not tensor.requires_grad or not tensor.is_floating_point():
        return UnpackedDualTensor(primal, None)
    from ember.autograd import grad

    inputs = [d for d, _ in duals]
    with _GradOn():
        u = _C.zeros_like(tensor).requires_grad_(True)
        gs = grad(tensor, inputs, u, create_graph=True, allow_unused=True)
        pairs = [(g, t) for g, (_, t) in zip(gs, duals) if g is not None and g.requires_grad]
        if not pairs:
            return UnpackedDualTensor(primal, None)
        (jv,) = grad([g for g, _ in pairs], [u], [t for _, t in pairs], allow_unused=True)
    if jv is None:
        jv = _C.zeros_like(primal)
    return UnpackedDualTensor(primal, jv)
