"""The few initialisers the layers need, used until ember.nn.init provides them: each call goes
to ember.nn.init when it has the function, else to the fallback here (PyTorch's formulas, with
ember's in-place samplers under no_grad)."""

from __future__ import annotations

import math

import ember
from ember.nn import init as _nn_init

__all__: list[str] = []


def _calculate_fan_in_and_fan_out(tensor):
    f = getattr(_nn_init, "_calculate_fan_in_and_fan_out", None)
    if f is not None:
        return f(tensor)
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def uniform_(tensor, a: float = 0.0, b: float = 1.0):
    f = getattr(_nn_init, "uniform_", None)
    if f is not None:
        return f(tensor, a, b)
    with ember.no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean: float = 0.0, std: float = 1.0):
    f = getattr(_nn_init, "normal_", None)
    if f is not None:
        return f(tensor, mean, std)
    with ember.no_grad():
        return tensor.normal_(mean, std)


def constant_(tensor, val: float):
    f = getattr(_nn_init, "constant_", None)
    if f is not None:
        return f(tensor, val)
    with ember.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def kaiming_uniform_(tensor, a: float = 0.0):
    """mode='fan_in', nonlinearity='leaky_relu': U(-b, b), b = sqrt(6 / ((1 + a^2) fan_in))."""
    f = getattr(_nn_init, "kaiming_uniform_", None)
    if f is not None:
        return f(tensor, a=a)
    fan_in, _ = _calculate_fan_in_and_fan_out(tensor)
    if fan_in == 0:
        return tensor
    bound = math.sqrt(3.0) * math.sqrt(2.0 / (1 + a * a)) / math.sqrt(fan_in)
    return uniform_(tensor, -bound, bound)
