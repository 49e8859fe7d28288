"""ember.nn.functional: normalisation (batch, layer, group, instance, local response, normalize).

PyTorch's signatures and its Python-side argument checks (the ValueErrors torch.nn.functional
raises before calling its C++ op); the numerics, gradients and the other checks are in the C++
ops (ember/ops/nn_norm.cpp)."""

from __future__ import annotations

from ember import _C

__all__: list[str] = [
    "batch_norm",
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
