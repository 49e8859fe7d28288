"""Op-table records of the neural-network ops: normalisation (batch, layer, group, instance, local
response, normalize).

Running stats travel as NumPy arrays in a sample's kwargs (the wrappers below make tensors of
them), so that the gradient tests do not differentiate with respect to them."""

from __future__ import annotations

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    FLOATING,
    ErrorSample,
    OpSpec,
    Sample,
    make_array,
)


def _param_dtype(dtype):
    # Running stats of a 16-bit input are float32 (PyTorch's mixed precision on the CPU).
    return ember.float32 if dtype in (ember.float16, ember.bfloat16) else dtype


def _stat(a, like):
    return None if a is None else ember.tensor(a.tolist(), dtype=_param_dtype(like.dtype))


def _bshape(ndim):
    return (1, -1) + (1,) * (ndim - 2)


def _affine(y, w, b, shape):
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


# ---- batch norm ----------------------------------------------------------------------------------


def _batch_norm(x, w=None, b=None, *, training, rm=None, rv=None, momentum=0.1, eps=1e-5):
    return ember.batch_norm(x, w, b, _stat(rm, x), _stat(rv, x), training, momentum, eps)


def _np_batch_norm(x, w=None, b=None, *, training, rm=None, rv=None, momentum=0.1, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = _bshape(x.ndim)
    mean, var = (x.mean(axes), x.var(axes)) if training else (rm, rv)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return _affine(y, w, b, shape)


def _batch_norm_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng)

    def stats(c):
        return {"rm": rng.uniform(-1, 1, c), "rv": rng.uniform(0.5, 2, c)}

    return [
        Sample((arr(4, 3), arr(3), arr(3)), {"training": True}, desc="2-d train"),
        Sample((arr(2, 3, 2), arr(3), arr(3)), {"training": True, **stats(3)}, desc="3-d train"),
        Sample((arr(2, 2, 3, 2),), {"training": True, "eps": 1e-3}, desc="4-d, no affine"),
        Sample((arr(2, 2, 1, 2, 2), arr(2), None), {"training": True}, desc="5-d, weight only"),
        Sample((arr(3, 4), arr(4), arr(4)), {"training": False, **stats(4)}, desc="2-d eval"),
        Sample((arr(2, 3, 2, 2), None, arr(3)), {"training": False, **stats(3)}, desc="4-d eval"),
        Sample((arr(0, 3),), {"training": False, **stats(3)}, desc="zero-size", grad=False),
    ]


def _batch_norm_errors():
    x = ember.ones(4, 3)
    one = ember.ones(3)
    return [
        ErrorSample(
            lambda: ember.batch_norm(ember.ones(3), None, None, None, None, True, 0.1, 1e-5),
            IndexError,
            "[batch_norm]",
            "1-d input",
        ),
        ErrorSample(
            lambda: ember.batch_norm(x, ember.ones(4), None, None, None, True, 0.1, 1e-5),
            RuntimeError,
            "weight should contain 3 elements not 4",
            "weight size",
        ),
        ErrorSample(
            lambda: ember.batch_norm(x, None, None, None, None, False, 0.1, 1e-5),
            RuntimeError,
            "running_mean must be defined in evaluation mode",
            "eval without running stats",
        ),
        ErrorSample(
            lambda: ember.batch_norm(x, None, None, one, None, True, 0.1, 1e-5),
            ValueError,
            "either both be None or neither",
            "running_var missing",
        ),
        ErrorSample(
            lambda: ember.batch_norm(x.double(), one, None, None, None, True, 0.1, 1e-5),
            RuntimeError,
            "expected weight to have the input's dtype",
            "float32 weight, float64 input",
        ),
        ErrorSample(
            lambda: F.batch_norm(ember.ones(1, 3), None, None, training=True),
            ValueError,
            "Expected more than 1 value per channel when training",
            "one value per channel",
        ),
        ErrorSample(
            lambda: F.batch_norm(x, None, None, training=True, eps=0.0),
            ValueError,
            "eps must be positive",
            "eps 0 in training",
        ),
    ]


# ---- layer norm and group norm -------------------------------------------------------------------


def _layer_norm(x, w=None, b=None, *, shape, eps=1e-5):
    return ember.layer_norm(x, shape, w, b, eps)


def _np_layer_norm(x, w=None, b=None, *, shape, eps=1e-5):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean = x.mean(axes, keepdims=True) if x.size else 0
    var = x.var(axes, keepdims=True) if x.size else 0
    y = (x - mean) / np.sqrt(var + eps)
    return _affine(y, w, b, tuple(shape))


def _layer_norm_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng)

    return [
        Sample((arr(3, 4), arr(4), arr(4)), {"shape": [4]}, desc="rows"),
        Sample((arr(2, 3, 4), arr(3, 4), arr(3, 4)), {"shape": [3, 4]}, desc="2 dims"),
        Sample((arr(5),), {"shape": [5], "eps": 1e-3}, desc="1-d, no affine"),
        Sample((arr(2, 1, 3), arr(3), None), {"shape": [3]}, desc="weight only"),
        Sample((arr(2, 3), None, arr(3)), {"shape": [3]}, desc="bias only"),
        Sample((arr(0, 4), arr(4), arr(4)), {"shape": [4]}, desc="no rows", grad=False),
    ]


def _layer_norm_errors():
    x = ember.ones(4, 3, 5)
    return [
        ErrorSample(
            lambda: ember.layer_norm(x, [4]),
            RuntimeError,
            "expected input with shape [*, 4], but got input of size",
            "shape mismatch",
        ),
        ErrorSample(
            lambda: ember.layer_norm(x, [5], ember.ones(4)),
            RuntimeError,
            "Expected weight to be of same shape as normalized_shape",
            "weight shape",
        ),
        ErrorSample(
            lambda: ember.layer_norm(x, []),
            RuntimeError,
            "Expected normalized_shape to be at least 1-dimensional",
            "empty normalized_shape",
        ),
    ]


def _rms_norm(x, w=None, *, shape, eps=None):
    return ember.rms_norm(x, shape, w, eps)


def _np_rms_norm(x, w=None, *, shape, eps=None):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    eps = np.finfo(np.float32).eps if eps is None else eps
    y = x / np.sqrt((x * x).mean(axes, keepdims=True) + eps) if x.size else x
    return y if w is None else y * w


def _rms_norm_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng)

    default_eps = {"eps": float(np.finfo(np.float64).eps)} if dtype == ember.float64 else {}

    return [
        Sample((arr(3, 4), arr(4)), {"shape": [4], **default_eps}, desc="rows"),
        Sample((arr(2, 3, 4), arr(3, 4)), {"shape": [3, 4], "eps": 1e-3}, desc="2 dims"),
        # Default eps: float32's machine epsilon, except for float64 (given here: the reference
        # does not know the dtype).
        Sample((arr(5),), {"shape": [5], **default_eps}, desc="1-d, no weight"),
        Sample((arr(0, 4), arr(4)), {"shape": [4], "eps": 1e-5}, desc="no rows", grad=False),
    ]


def _group_norm(x, w=None, b=None, *, groups, eps=1e-5):
    return ember.group_norm(x, groups, w, b, eps)


def _np_group_norm(x, w=None, b=None, *, groups, eps=1e-5):
    n = x.shape[0]
    xr = x.reshape(n, groups, -1)
    y = ((xr - xr.mean(2, keepdims=True)) / np.sqrt(xr.var(2, keepdims=True) + eps)).reshape(
        x.shape
    )
    return _affine(y, w, b, _bshape(x.ndim))


def _group_norm_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng)

    return [
        Sample((arr(2, 4, 3), arr(4), arr(4)), {"groups": 2}, desc="3-d"),
        Sample((arr(2, 6), arr(6), arr(6)), {"groups": 3}, desc="2-d"),
        Sample((arr(1, 4, 2, 2),), {"groups": 4, "eps": 1e-3}, desc="4-d, group per channel"),
        Sample((arr(2, 2, 1, 3), None, arr(2)), {"groups": 1}, desc="one group, bias only"),
    ]


def _group_norm_errors():
    x = ember.ones(2, 6, 4)
    return [
        ErrorSample(
            lambda: ember.group_norm(x, 4),
            RuntimeError,
            "Expected number of channels in input to be divisible by num_groups",
            "groups",
        ),
        ErrorSample(
            lambda: ember.group_norm(x, 0),
            RuntimeError,
            "Expected num groups to be greater than 0",
            "0 groups",
        ),
        ErrorSample(
            lambda: ember.group_norm(x, 3, ember.ones(5)),
            RuntimeError,
            "Expected weight to be a vector of size equal to the number of channels",
            "weight size",
        ),
        ErrorSample(lambda: ember.group_norm(ember.ones(6), 2), IndexError, "[group_norm]", "1-d"),
    ]


# ---- instance norm -------------------------------------------------------------------------------


def _instance_norm(x, w=None, b=None, *, use_input_stats=True, rm=None, rv=None, eps=1e-5):
    return ember.instance_norm(
        x, w, b, _stat(rm, x), _stat(rv, x), use_input_stats, 0.1, eps, False
    )


def _np_instance_norm(x, w=None, b=None, *, use_input_stats=True, rm=None, rv=None, eps=1e-5):
    shape = _bshape(x.ndim)
    if use_input_stats:
        axes = tuple(range(2, x.ndim))
        mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    else:
        mean, var = rm.reshape(shape), rv.reshape(shape)
    return _affine((x - mean) / np.sqrt(var + eps), w, b, shape)


def _instance_norm_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng)

    return [
        Sample((arr(2, 3, 4), arr(3), arr(3)), desc="3-d"),
        Sample((arr(2, 2, 2, 3),), desc="4-d, no affine"),
        Sample(
            (arr(2, 3, 2), arr(3), None),
            {"rm": rng.uniform(-1, 1, 3), "rv": rng.uniform(0.5, 2, 3)},
            desc="with running stats",
        ),
        Sample(
            (arr(2, 3, 2),),
            {"use_input_stats": False, "rm": rng.uniform(-1, 1, 3), "rv": rng.uniform(0.5, 2, 3)},
            desc="running stats used",
        ),
    ]


def _instance_norm_errors():
    return [
        ErrorSample(
            lambda: ember.instance_norm(
                ember.ones(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False
            ),
            RuntimeError,
            "Expected running_mean and running_var to be defined",
            "eval without running stats",
        ),
        ErrorSample(
            lambda: F.instance_norm(ember.ones(2, 3, 1)),
            ValueError,
            "Expected more than 1 spatial element when training",
            "one spatial element",
        ),
    ]


# ---- local response norm and normalize -----------------------------------------------------------


def _np_lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    sq = x * x
    pad = [(0, 0)] * x.ndim
    pad[1] = (size // 2, (size - 1) // 2)
    sq = np.pad(sq, pad)
    acc = sum(sq[:, j : j + c] for j in range(size))
    return x / (k + alpha * acc / size) ** beta


def _lrn_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng)

    return [
        Sample((arr(2, 5, 3), 3), desc="3-d, size 3"),
        Sample((arr(2, 4, 2, 3), 2, 0.1, 0.5, 2.0), desc="4-d, size 2"),
        Sample((arr(1, 3, 2, 1, 2), 5, 0.5), desc="5-d, window wider than C"),
        Sample((arr(2, 0, 3), 3), desc="zero-size", grad=False),
    ]


def _lrn_errors():
    f = F.local_response_norm
    return [
        ErrorSample(
            lambda: f(ember.ones(2, 3), 2), ValueError, "Expected 3D or higher", "2-d input"
        ),
        ErrorSample(lambda: f(ember.ones(2, 3, 4), 0), RuntimeError, "size", "size 0"),
    ]


def _np_normalize(x, p=2.0, dim=1, eps=1e-12):
    dim = None if x.ndim == 0 else dim
    norm = np.sum(np.abs(x) ** p, axis=dim, keepdims=True) ** (1.0 / p)
    return x / np.maximum(norm, eps)


def _normalize_samples(dtype, rng):
    def arr(*s):
        return make_array(s, dtype, rng, away_from_zero=True)

    zero_row = arr(3, 4)
    zero_row[1] = 0
    return [
        Sample((arr(3, 4),), desc="default"),
        Sample((arr(2, 3, 4), 1.0, -1), desc="p=1, last dim"),
        Sample((arr(3, 4), 3.0, 0), desc="p=3, dim 0"),
        Sample((arr(2, 3, 4), 2.0, (1, 2)), desc="two dims"),
        Sample((zero_row, 2.0, 1, 1e-3), desc="a zero row: eps", grad=False),
        Sample((arr(), 2.0, 0), desc="0-d"),
    ]


def records():
    return [
        OpSpec(
            "batch_norm",
            _batch_norm,
            _np_batch_norm,
            FLOATING,
            _batch_norm_samples,
            gradgrad=True,
            errors=_batch_norm_errors,
        ),
        OpSpec(
            "layer_norm",
            _layer_norm,
            _np_layer_norm,
            FLOATING,
            _layer_norm_samples,
            gradgrad=True,
            errors=_layer_norm_errors,
        ),
        OpSpec(
            "rms_norm",
            _rms_norm,
            _np_rms_norm,
            FLOATING,
            _rms_norm_samples,
            gradgrad=True,
            errors=lambda: [
                ErrorSample(
                    lambda: ember.rms_norm(ember.ones(4, 3), [4]),
                    RuntimeError,
                    "[rms_norm] Given normalized_shape=[4], expected input with shape [*, 4]",
                    "shape mismatch",
                )
            ],
        ),
        OpSpec(
            "group_norm",
            _group_norm,
            _np_group_norm,
            FLOATING,
            _group_norm_samples,
            gradgrad=True,
            errors=_group_norm_errors,
        ),
        OpSpec(
            "instance_norm",
            _instance_norm,
            _np_instance_norm,
            FLOATING,
            _instance_norm_samples,
            gradgrad=True,
            errors=_instance_norm_errors,
        ),
        OpSpec(
            "nn.functional.local_response_norm",
            F.local_response_norm,
            _np_lrn,
            FLOATING,
            _lrn_samples,
            gradgrad=True,
            errors=_lrn_errors,
        ),
        OpSpec(
            "nn.functional.normalize",
            F.normalize,
            _np_normalize,
            FLOATING,
            _normalize_samples,
            gradgrad=True,
        ),
    ]
