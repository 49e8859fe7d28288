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


from ember.autograd import functional, graph  # noqa: E402, F401  (built on grad, above)
