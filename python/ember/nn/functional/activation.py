"""ember.nn.functional: the activations, softmax / log_softmax and pad.

Each function is a thin wrapper: the arithmetic, the gradient and the checks are in the C++ op
(ember/ops/elementwise*.h); here are only PyTorch's signatures, including the `inplace` flags.
"""

from __future__ import annotations

from ember import _C

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "pad",
    "relu",
    "relu6",
    "relu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
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


def pad(input, pad, mode: str = "constant", value=None):
    """Pads `input`: `pad` lists (before, after) pairs from the last dim backwards, so
    pad(x, (1, 2)) adds 1 element before and 2 after the last dim. Negative pads crop. mode is
    "constant" (with `value`, default 0), "reflect", "replicate" or "circular"."""
    return _C._pad(input, tuple(pad), mode, value)


def _softmax_dim(input, dim):
    # PyTorch's rule for the deprecated implicit dim: 0 for 0-, 1- and 3-d input, else 1.
    if dim is not None:
        return dim
    return 0 if input.dim() in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.softmax(input, _softmax_dim(input, dim), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.log_softmax(input, _softmax_dim(input, dim), dtype=dtype)
