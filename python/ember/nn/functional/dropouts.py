"""ember.nn.functional: dropout (dropout, alpha_dropout, feature_alpha_dropout,
dropout1d/2d/3d).

PyTorch's signatures and its Python-side argument checks (the ValueError for p, the warnings for
unexpected ranks); the masks, the scaling and the gradients are in the C++ ops
(ember/ops/nn_dropout.cpp)."""

from __future__ import annotations

import warnings

from ember import _C

__all__: list[str] = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]


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
