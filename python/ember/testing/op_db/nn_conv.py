"""Op-table records of the neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d/3d)
through oneDNN, linear and bilinear.

The references are plain NumPy in float64: a convolution is a sum over kernel taps of strided
slices of the padded input times one weight matrix; a transposed convolution scatters the same
products into a larger output and crops the padding. float64 samples run ember's reference
(im2col) kernels, which the gradient checks use; float32 samples run oneDNN."""

from __future__ import annotations

import itertools

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    FLOATING,
    NUMERIC,
    OpSpec,
    Sample,
    error,
    make_array,
)

# ---- NumPy references --------------------------------------------------------------------------


def _expand(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


def np_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """conv1d/2d/3d: x [N, C, *] (or unbatched [C, *]), w [O, C / groups, *k]."""
    n = w.ndim - 2
    unbatched = x.ndim == n + 1
    if unbatched:
        x = x[None]
    s, d, k = _expand(stride, n), _expand(dilation, n), w.shape[2:]
    if padding == "valid":
        lo = hi = [0] * n
    elif padding == "same":  # the odd unit of padding goes after, as in PyTorch
        total = [d[i] * (k[i] - 1) for i in range(n)]
        lo = [t // 2 for t in total]
        hi = [t - t // 2 for t in total]
    else:
        lo = hi = _expand(padding, n)
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    out = [(xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(n)]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for g in range(groups):
        for tap in itertools.product(*[range(kk) for kk in k]):
            window = tuple(
                slice(tap[i] * d[i], tap[i] * d[i] + s[i] * (out[i] - 1) + 1, s[i])
                for i in range(n)
            )
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg), *window)]
            wk = w[(slice(g * og, (g + 1) * og), slice(None), *tap)]
            y[:, g * og : (g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    if b is not None:
        y += b.reshape((1, -1) + (1,) * n)
    return y[0] if unbatched else y


def np_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """conv_transpose1d/2d/3d: x [N, C_in, *], w [C_in, C_out / groups, *k]."""
    n = w.ndim - 2
    unbatched = x.ndim == n + 1
    if unbatched:
        x = x[None]
    s, p = _expand(stride, n), _expand(padding, n)
    op, d, k = _expand(output_padding, n), _expand(dilation, n), w.shape[2:]
    size = x.shape[2:]
    full = [(size[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 + op[i] for i in range(n)]
    cg, og = x.shape[1] // groups, w.shape[1]
    y = np.zeros((x.shape[0], og * groups, *full))
    for g in range(groups):
        xs = x[:, g * cg : (g + 1) * cg]
        for tap in itertools.product(*[range(kk) for kk in k]):
            contrib = np.einsum(
                "nc...,co->no...", xs, w[(slice(g * cg, (g + 1) * cg), slice(None), *tap)]
            )
            window = tuple(
                slice(tap[i] * d[i], tap[i] * d[i] + s[i] * (size[i] - 1) + 1, s[i])
                for i in range(n)
            )
            y[(slice(None), slice(g * og, (g + 1) * og), *window)] += contrib
    y = y[(slice(None), slice(None), *[slice(p[i], full[i] - p[i]) for i in range(n)])]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * n)
    return y[0] if unbatched else y


def np_linear(x, w, b=None):
    y = x @ w.T if w.ndim == 2 else x @ w
    return y if b is None else y + b


def np_bilinear(x1, x2, w, b=None):
    y = np.einsum("...i,oij,...j->...o", x1, w, x2)
    return y if b is None else y + b


# ---- samples -----------------------------------------------------------------------------------


def _case(shapes, kwargs=None, desc="", grad=True):
    return (shapes, kwargs or {}, desc, grad)


def _samples(cases, low=-1.0, high=1.0):
    """Values in [-1, 1] keep float32 sums well inside the float32 tolerance."""

    def make(dtype, rng):
        return [
            Sample(tuple(make_array(s, dtype, rng, low, high) for s in shapes), kw, desc, grad)
            for shapes, kw, desc, grad in cases
        ]

    return make


def _conv_op(fn):
    def op(x, w, b=None, **kw):
        return fn(x, w, b, **kw)

    return op


CONV1D = [
    _case([(2, 3, 7), (4, 3, 3), (4,)], {}, "basic"),
    _case(
        [(1, 4, 9), (4, 2, 3), (4,)],
        {"stride": 2, "padding": 2, "dilation": 2, "groups": 2},
        "strided grouped",
    ),
    _case([(1, 2, 6), (2, 2, 4)], {"padding": "same"}, "same, even kernel, no bias"),
    _case([(1, 2, 6), (3, 2, 2)], {"padding": "valid"}, "valid"),
    _case([(3, 5), (2, 3, 2), (2,)], {"padding": 1}, "unbatched"),
    _case([(1, 1, 5), (2, 1, 3), (2,)], {"padding": 1}, "small (gradgrad)"),
    _case([(0, 3, 5), (2, 3, 3), (2,)], {}, "empty batch", grad=False),
]

CONV2D = [
    _case([(1, 2, 4, 4), (3, 2, 3, 3), (3,)], {}, "basic"),
    _case(
        [(2, 2, 5, 4), (2, 2, 2, 3), (2,)], {"stride": (2, 1), "padding": (1, 2)}, "stride, padding"
    ),
    _case([(1, 4, 5, 5), (4, 2, 2, 2)], {"dilation": 2, "groups": 2}, "dilation, groups"),
    _case([(2, 3, 4, 4), (3, 1, 3, 3), (3,)], {"padding": 1, "groups": 3}, "depthwise"),
    _case([(1, 2, 4, 5), (2, 2, 2, 3), (2,)], {"padding": "same"}, "same, even kernel"),
    _case([(1, 1, 5, 5), (2, 1, 3, 2)], {"padding": "same", "dilation": (1, 2)}, "same, dilated"),
    _case([(1, 2, 3, 3), (1, 2, 2, 2)], {"padding": "valid"}, "valid"),
    _case([(2, 4, 4), (3, 2, 2, 2), (3,)], {"stride": 2}, "unbatched"),
    _case([(1, 1, 3, 3), (2, 1, 2, 2), (2,)], {}, "small (gradgrad)"),
    _case([(0, 2, 4, 4), (3, 2, 3, 3), (3,)], {}, "empty batch", grad=False),
    _case([(2, 0, 4, 4), (3, 0, 3, 3), (3,)], {}, "no input channels: the bias", grad=False),
    _case([(2, 8, 6, 6), (16, 8, 1, 1), (16,)], {}, "1x1, 8 -> 16 channels", grad=False),
    _case(
        [(2, 32, 8, 8), (32, 1, 3, 3), (32,)],
        {"stride": 2, "padding": 1, "groups": 32},
        "depthwise 32",
        grad=False,
    ),
]

CONV3D = [
    _case([(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)], {}, "basic"),
    _case(
        [(1, 2, 4, 3, 4), (2, 1, 2, 1, 2)],
        {"stride": (2, 1, 1), "padding": (1, 0, 1), "dilation": (1, 1, 2), "groups": 2},
        "options",
    ),
    _case([(1, 1, 3, 3, 3), (1, 1, 2, 2, 2)], {"padding": "same"}, "same"),
    _case([(1, 2, 3, 3), (2, 1, 1, 2, 2), (2,)], {}, "unbatched"),
    _case([(1, 1, 2, 2, 3), (1, 1, 1, 2, 2), (1,)], {}, "small (gradgrad)"),
    _case([(1, 8, 3, 4, 4), (8, 4, 1, 2, 1), (8,)], {"groups": 2}, "8 channels", grad=False),
]

CONV_T1D = [
    _case(
        [(2, 3, 4), (3, 2, 3), (2,)],
        {"stride": 2, "padding": 1, "output_padding": 1},
        "output_padding",
    ),
    _case(
        [(1, 4, 3), (4, 1, 3), (2,)],
        {"stride": 3, "padding": 1, "groups": 2, "dilation": 2, "output_padding": 1},
        "grouped dilated",
    ),
    _case([(2, 4), (2, 3, 2)], {}, "unbatched"),
    _case([(1, 1, 3), (1, 2, 2), (2,)], {}, "small (gradgrad)"),
]

CONV_T2D = [
    _case(
        [(1, 2, 3, 3), (2, 3, 3, 3), (3,)],
        {"stride": 2, "padding": 1, "output_padding": 1},
        "output_padding",
    ),
    # output_padding 1 >= stride 1 (allowed by the dilation): the last row and column get no
    # product, only the bias.
    _case(
        [(2, 4, 3, 3), (4, 1, 2, 2), (2,)],
        {"groups": 2, "dilation": 2, "output_padding": 1},
        "output_padding past the last tap",
    ),
    _case([(1, 2, 3, 4), (2, 2, 2, 3)], {"stride": (1, 2), "padding": (0, 1)}, "asymmetric"),
    _case([(2, 3, 3), (2, 2, 2, 2), (2,)], {"stride": 2}, "unbatched"),
    _case([(1, 1, 2, 2), (1, 2, 2, 2), (2,)], {}, "small (gradgrad)"),
    _case(
        [(2, 8, 4, 4), (8, 4, 3, 3), (4,)],
        {"stride": 2, "padding": 1, "output_padding": 1},
        "8 -> 4 channels",
        grad=False,
    ),
]

CONV_T3D = [
    _case(
        [(1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2,)],
        {"stride": 2, "padding": (1, 0, 0), "output_padding": (1, 0, 1)},
        "basic",
    ),
    _case([(1, 1, 2, 2, 1), (1, 1, 2, 1, 2), (1,)], {}, "small (gradgrad)"),
]

LINEAR = [
    _case([(3, 4), (5, 4), (5,)], {}, "matrix"),
    _case([(2, 3, 4), (5, 4), (5,)], {}, "leading dims"),
    _case([(4,), (5, 4), (5,)], {}, "vector input"),
    _case([(3, 4), (4,)], {}, "vector weight"),
    _case([(3, 4), (5, 4)], {}, "no bias"),
    _case([(0, 4), (5, 4), (5,)], {}, "no rows", grad=False),
    _case([(2, 3), (2, 3), (2,)], {}, "small (gradgrad)"),
]

BILINEAR = [
    _case([(3, 2), (3, 4), (5, 2, 4), (5,)], {}, "matrix"),
    _case([(2, 3, 2), (2, 3, 3), (2, 2, 3)], {}, "leading dims, no bias"),
    _case([(2,), (3,), (2, 2, 3), (2,)], {}, "vectors"),
    _case([(2, 2), (2, 2), (1, 2, 2), (1,)], {}, "small (gradgrad)"),
]

# ---- errors ------------------------------------------------------------------------------------


def _conv_errors():
    x, w = ember.ones(2, 4, 5, 5), ember.ones(3, 4, 3, 3)
    return [
        error(
            lambda: F.conv2d(ember.ones(2, 5, 5, 5), w),
            RuntimeError,
            "to have 4 channels, but got 5",
        ),
        error(
            lambda: F.conv2d(ember.ones(2, 4, 2, 2), w),
            RuntimeError,
            "Kernel size can't be greater",
        ),
        error(lambda: F.conv2d(x, w, stride=0), RuntimeError, "non-positive stride"),
        error(lambda: F.conv2d(x, w, padding=-1), RuntimeError, "negative padding"),
        error(lambda: F.conv2d(x, w, dilation=0), RuntimeError, "non-positive dilation"),
        error(lambda: F.conv2d(x, w, groups=0), RuntimeError, "non-positive groups"),
        error(
            lambda: F.conv2d(x, ember.ones(3, 2, 3, 3), groups=2), RuntimeError, "divisible by 2"
        ),
        error(
            lambda: F.conv2d(ember.ones(2, 3, 5, 5), ember.ones(4, 1, 3, 3), groups=2),
            RuntimeError,
            "to have 2 channels, but got 3",
        ),
        error(
            lambda: F.conv2d(x, ember.ones(0, 4, 3, 3)), RuntimeError, "at least 1 at dimension 0"
        ),
        error(
            lambda: F.conv2d(x, w, ember.ones(4)), RuntimeError, "bias to be 1-dimensional with 3"
        ),
        error(
            lambda: F.conv2d(x, w, stride=2, padding="same"),
            RuntimeError,
            "not supported for strided",
        ),
        error(
            lambda: F.conv2d(x, w, padding="full"), RuntimeError, "Invalid padding string: 'full'"
        ),
        error(lambda: F.conv2d(x, w, padding=1.5), TypeError, "padding must be"),
        error(
            lambda: F.conv2d(ember.ones(5, 5), w),
            RuntimeError,
            "Expected 3D (unbatched) or 4D (batched)",
        ),
        error(
            lambda: F.conv2d(x, ember.ones(3, 4, 3)), RuntimeError, "expected a weight of 4 dims"
        ),
        error(lambda: F.conv2d(x, w, stride=(1, 2, 3)), RuntimeError, "a list of 2 values"),
        error(lambda: F.conv2d(x.double(), w), RuntimeError, "same dtype"),
        error(
            lambda: F.conv2d(x, w, ember.ones(3, dtype=ember.float64)), RuntimeError, "same dtype"
        ),
        error(lambda: F.conv2d(x.long(), w.long()), TypeError, "floating-point"),
        error(
            lambda: F.conv1d(ember.ones(2, 4, 5, 5), ember.ones(3, 4, 3)),
            RuntimeError,
            "Expected 2D (unbatched) or 3D (batched)",
        ),
        error(
            lambda: F.conv3d(ember.ones(1, 4, 2, 5, 5), ember.ones(3, 4, 3, 3, 3)),
            RuntimeError,
            "Kernel size can't be greater",
        ),
    ]


def _conv_transpose_errors():
    x = ember.ones(2, 4, 5, 5)
    w = ember.ones(4, 3, 3, 3)
    return [
        error(
            lambda: F.conv_transpose2d(x, w, stride=2, output_padding=2),
            RuntimeError,
            "output padding must be smaller",
        ),
        error(
            lambda: F.conv_transpose2d(x, w, output_padding=-1),
            RuntimeError,
            "negative output_padding",
        ),
        error(
            lambda: F.conv_transpose2d(x, ember.ones(3, 3, 3, 3)),
            RuntimeError,
            "to have 3 channels, but got 4",
        ),
        error(lambda: F.conv_transpose2d(x, w, groups=3), RuntimeError, "divisible by 3"),
        error(
            lambda: F.conv_transpose2d(ember.ones(1, 4, 1, 1), ember.ones(4, 3, 1, 1), padding=2),
            RuntimeError,
            "Output size is too small",
        ),
        error(
            lambda: F.conv_transpose2d(x, w, ember.ones(4)),
            RuntimeError,
            "bias to be 1-dimensional with 3",
        ),
        error(lambda: F.conv_transpose2d(x, w, padding="same"), TypeError, "padding"),
        error(
            lambda: F.conv_transpose1d(x, ember.ones(4, 3, 3)),
            RuntimeError,
            "Expected 2D (unbatched) or 3D (batched)",
        ),
        error(
            lambda: F.conv_transpose3d(ember.ones(1, 4, 2, 2, 2), ember.ones(4, 3, 2, 2)),
            RuntimeError,
            "expected a weight of 5 dims",
        ),
    ]


def _linear_errors():
    return [
        error(
            lambda: F.linear(ember.ones(2, 3), ember.ones(4, 5)),
            RuntimeError,
            "shapes cannot be multiplied",
        ),
        error(lambda: F.linear(ember.ones(()), ember.ones(4, 3)), RuntimeError, "at least 1D"),
        error(
            lambda: F.linear(ember.ones(2, 3), ember.ones(4, 3), ember.ones(5)),
            RuntimeError,
            "broadcasts",
        ),
        error(lambda: F.linear(ember.ones(2, 3), ember.ones(4, 3, 1)), RuntimeError, "1 or 2 dims"),
        error(
            lambda: F.linear(ember.ones(2, 3), ember.ones(4, 3).double()),
            RuntimeError,
            "same dtype",
        ),
        error(
            lambda: F.linear(ember.ones(2, 3).bool(), ember.ones(4, 3).bool()),
            TypeError,
            "dtype bool",
        ),
    ]


def _bilinear_errors():
    a, b, w = ember.ones(2, 3), ember.ones(2, 4), ember.ones(5, 3, 4)
    return [
        error(
            lambda: F.bilinear(a, b, ember.ones(5, 2, 4)),
            RuntimeError,
            "input1 size does not match",
        ),
        error(
            lambda: F.bilinear(a, ember.ones(2, 5), w), RuntimeError, "input2 size does not match"
        ),
        error(
            lambda: F.bilinear(a, ember.ones(3, 4), w),
            RuntimeError,
            "batch dimensions do not match",
        ),
        error(lambda: F.bilinear(a, b, w, ember.ones(4)), RuntimeError, "bias size does not match"),
        error(
            lambda: F.bilinear(ember.ones(2, 2, 3), b, w),
            RuntimeError,
            "input dimensions do not match",
        ),
        error(lambda: F.bilinear(a, b.double(), w), RuntimeError, "same dtype"),
    ]


# ---- records -----------------------------------------------------------------------------------


def _conv_spec(name, fn, ref, cases, errors=lambda: []):
    return OpSpec(
        name,
        _conv_op(fn),
        ref,
        FLOATING,
        _samples(cases),
        grad=True,
        gradgrad=True,
        errors=errors,
    )


def records():
    return [
        _conv_spec("conv1d", F.conv1d, np_conv, CONV1D),
        _conv_spec("conv2d", F.conv2d, np_conv, CONV2D, _conv_errors),
        _conv_spec("conv3d", F.conv3d, np_conv, CONV3D),
        _conv_spec("conv_transpose1d", F.conv_transpose1d, np_conv_transpose, CONV_T1D),
        _conv_spec(
            "conv_transpose2d",
            F.conv_transpose2d,
            np_conv_transpose,
            CONV_T2D,
            _conv_transpose_errors,
        ),
        _conv_spec("conv_transpose3d", F.conv_transpose3d, np_conv_transpose, CONV_T3D),
        OpSpec(
            "nn.functional.linear",
            lambda x, w, b=None: F.linear(x, w, b),
            np_linear,
            NUMERIC,
            _samples(LINEAR),
            gradgrad=True,
            errors=_linear_errors,
        ),
        OpSpec(
            "bilinear",
            lambda x1, x2, w, b=None: F.bilinear(x1, x2, w, b),
            np_bilinear,
            NUMERIC,
            _samples(BILINEAR),
            gradgrad=True,
            errors=_bilinear_errors,
        ),
    ]
