"""ember.nn.functional: the activations, softmax, log_softmax, softmin and gumbel_softmax.

Most are thin wrappers: the arithmetic, the gradient and the checks are in the C++ op
(ember/ops/elementwise*.h); here are only PyTorch's signatures, including the `inplace` flags.
prelu, rrelu, glu, softshrink, hardshrink and softmin have no C++ op of their own: each is
PyTorch's formula written with C++ tensor ops (where, clamp, ...), so autograd comes from those.
"""

from __future__ import annotations

import ember
from ember import _C

__all__: list[str] = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]


def _apply(input, name, inplace, *args, **kwargs):
    if inplace:
        return getattr(input, name + "_")(*args, **kwargs)
    return getattr(_C, name)(input, *args, **kwargs)


def relu(input, inplace: bool = False):
    return _apply(input, "relu", inplace)


def relu_(input):
    return input.relu_()


def relu6(input, inplace: bool = False):
    return _apply(input, "relu6", inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    return _apply(input, "leaky_relu", inplace, negative_slope)


def leaky_relu_(input, negative_slope: float = 0.01):
    return input.leaky_relu_(negative_slope)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    return _apply(input, "elu", inplace, alpha)


def elu_(input, alpha: float = 1.0):
    return input.elu_(alpha)


def selu(input, inplace: bool = False):
    return _apply(input, "selu", inplace)


def selu_(input):
    return input.selu_()


def celu(input, alpha: float = 1.0, inplace: bool = False):
    return _apply(input, "celu", inplace, alpha)


def celu_(input, alpha: float = 1.0):
    return input.celu_(alpha)


def gelu(input, approximate: str = "none"):
    return _C.gelu(input, approximate=approximate)


def silu(input, inplace: bool = False):
    return _apply(input, "silu", inplace)


def mish(input, inplace: bool = False):
    return _apply(input, "mish", inplace)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    return _C.softplus(input, beta, threshold)


def softsign(input):
    return _C.softsign(input)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _apply(input, "hardtanh", inplace, min_val, max_val)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def hardsigmoid(input, inplace: bool = False):
    return _apply(input, "hardsigmoid", inplace)


def hardswish(input, inplace: bool = False):
    return _apply(input, "hardswish", inplace)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    return _apply(input, "threshold", inplace, threshold, value)


def threshold_(input, threshold: float, value: float):
    return input.threshold_(threshold, value)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def logsigmoid(input):
    # log(sigmoid(x)) = -softplus(-x), stable for large |x|.
    return -_C.softplus(-input)


def tanhshrink(input):
    return input - _C.tanh(input)


def _softmax_dim(input, dim):
    # PyTorch's rule for the deprecated implicit dim: 0 for 0-, 1- and 3-d input, else 1.
    if dim is not None:
        return dim
    return 0 if input.dim() in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.softmax(input, _softmax_dim(input, dim), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.log_softmax(input, _softmax_dim(input, dim), dtype=dtype)


# ---- activations composed of other ops ---------------------------------------------------------


def prelu(input, weight):
    """x if x > 0 else weight * x; a weight of n > 1 elements applies per channel (dim 1, or
    dim 0 of a 1-d input)."""
    if weight.numel() != 1:
        channels = input.size(1) if input.dim() >= 2 else input.size(0)
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
        if input.dim() >= 2:
            weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _C.where(input > 0, input, weight * input)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with slopes drawn from U(lower, upper) per element when training, and the
    mean slope (lower + upper) / 2 otherwise."""
    if not training:
        slope = (lower + upper) / 2
        return input.leaky_relu_(slope) if inplace else _C.leaky_relu(input, slope)
    with ember.no_grad():
        slope = ember.empty_like(input).uniform_(lower, upper)
    out = _C.where(input >= 0, input, input * slope)
    if inplace:
        with ember.no_grad():
            input.copy_(out)
        return input
    return out


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input, dim: int = -1):
    """a * sigmoid(b), where a and b are the two halves of `input` along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = dim % input.dim()
    size = input.size(dim)
    if size % 2 != 0:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


def softshrink(input, lambd: float = 0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between: exactly x - clamp(x, -l, l)."""
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be non-negative, but found {lambd}")
    return input - _C.clamp(input, -lambd, lambd)


def hardshrink(input, lambd: float = 0.5):
    """x where |x| > lambd, else 0."""
    return _C.where(input.abs() > lambd, input, _C.zeros_like(input))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim (PyTorch's implicit dim when None)."""
    return softmax(-input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) along dim for Gumbel(0, 1) noise g (drawn as -log of an
    exponential, as PyTorch's); with hard, the one-hot of its argmax in the forward pass and the
    soft sample's gradient (straight through). eps is unused, as in PyTorch."""
    gumbels = -_C.empty_like(logits).exponential_().log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
