"""Reverse-mode automatic differentiation (torch.autograd)."""

from collections.abc import Sequence
from typing import Optional, Union

from ember import _C
from ember.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ember.autograd.function import Function, FunctionCtx
from ember.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ember.autograd.variable import Variable

Tensor = _C.Tensor
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
    "Variable",
    "detect_anomaly",
    "set_detect_anomaly",
]


def backward(
    tensors: _TensorOrTensors,
    grad_tensors: Optional[_TensorOrTensors] = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    inputs: Optional[_TensorOrTensors] = None,
) -> None:
    """Accumulates the gradients of `tensors` into the .grad of the leaves they depend on."""
    _C._backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(
    outputs: _TensorOrTensors,
    inputs: _TensorOrTensors,
    grad_outputs: Optional[_TensorOrTensors] = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    allow_unused: Optional[bool] = None,
    materialize_grads: bool = False,
):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (no .grad is changed)."""
    single = isinstance(inputs, Tensor)
    result = _C._grad(
        outputs,
        inputs,
        grad_outputs,
        retain_graph,
        create_graph,
        bool(allow_unused) or materialize_grads,
    )
    if materialize_grads:
        ins = (inputs,) if single else tuple(inputs)
        result = tuple(_C.zeros_like(i) if g is None else g for g, i in zip(result, ins))
    return result


from ember.autograd import (  # noqa: E402, F401  (built on grad, above)
    forward_ad,  # noqa: E402, F401
    functional,
    graph,
)


def __getattr__(name):
    # torch.autograd re-exports the __torch_function__ helpers; ember.overrides needs ember.nn,
    # which is built after this package.
    if name in ("handle_torch_function", "has_torch_function", "is_tensor_like"):
        import ember.overrides

        return getattr(ember.overrides, name)
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")


_multithreading = True


class set_multithreading_enabled:
    """torch.autograd.set_multithreading_enabled: whether backward may run device work on the
    engine's worker threads. ember's engine runs backward on the calling thread for every
    device, so the flag is kept for is_multithreading_enabled and changes nothing else."""

    def __init__(self, mode: bool) -> None:
        global _multithreading
        self.prev = _multithreading
        _multithreading = bool(mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        global _multithreading
        _multithreading = self.prev


def is_multithreading_enabled() -> bool:
    return _multithreading


def is_view_replay_enabled() -> bool:
    """False: ember does not replay view ops on a view's base (views keep their own history)."""
    return False


def kineto_available() -> bool:
    """False: ember's builds have no Kineto profiler."""
    return False


class DeviceType:
    """The device kinds of autograd's profiler records (torch.autograd.DeviceType)."""

    CPU = 0
    CUDA = 1
