"""ember.nn.functional: normalisation (batch, layer, group, instance, local response, normalize)
and dropout.

PyTorch's signatures and its Python-side argument checks (the ValueErrors torch.nn.functional
raises before calling its C++ op); the numerics, gradients and the other checks are in the C++
ops (ember/ops/nn_norm.cpp, ember/ops/nn_dropout.cpp)."""

from __future__ import annotations

import warnings

from ember import _C

__all__: list[str] = [
    "alpha_dropout",
    "batch_norm",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "normalize",
    "rms_norm",
]


def _verify_batch_size(size) -> None:
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def _verify_spatial_size(size) -> None:
    n = 1
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {size}"
        )


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
):
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _C.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, False
    )


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
):
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _C.instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    return _C.layer_norm(input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _C.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    if num_groups > 0:
        _verify_batch_size(
            [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:])
        )
    return _C.group_norm(input, num_groups, weight, bias, eps)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    return _C._nn.local_response_norm(input, size, alpha, beta, k)


def normalize(input, p: float = 2.0, dim=1, eps: float = 1e-12, out=None):
    result = _C._nn.normalize(input, p, dim, eps)
    if out is None:
        return result
    return out.copy_(result.detach())


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    return _C.dropout_(input, p, training) if inplace else _C.dropout(input, p, training)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    _check_p(p)
    return (
        _C.alpha_dropout_(input, p, training) if inplace else _C.alpha_dropout(input, p, training)
    )


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    _check_p(p)
    return _C._nn.feature_dropout(input, p, training, True, inplace, True)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    return _C._nn.feature_dropout(input, p, training, False, inplace, inp_dim == 3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if inp_dim == 3:
        # As PyTorch: a 3-d input is taken as (N, C, L), channel-wise 1-d dropout.
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _C._nn.feature_dropout(input, p, training, False, inplace, True)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    return _C._nn.feature_dropout(input, p, training, False, inplace, inp_dim == 5)
