"""The nn layers (ember.nn.modules): reprs against PyTorch's literal text, forward against the
functional call with the layer's own parameters, NumPy float64 references for Linear, Conv2d,
BatchNorm and LayerNorm, PyTorch's default-initialisation bounds, constructor and input errors
with PyTorch's exception types, and gradients reaching the parameters."""

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F


def t(a, requires_grad=False):
    """A float32 ember tensor from NumPy data."""
    return ember.tensor(np.asarray(a, dtype=np.float32), requires_grad=requires_grad)


def randn(*shape, seed=0):
    return t(np.random.default_rng(seed).standard_normal(shape))


def close(a, b, atol=1e-5, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(a.detach().numpy()), np.asarray(b), atol=atol, rtol=rtol)


# ---- reprs: the strings PyTorch 2.15 prints for the same constructor calls --------------------

# Each expected string was printed by torch 2.15 for the same expression (torch.nn as nn).
REPRS = [
    ('nn.Identity(54, unused="x")', "Identity()"),
    ("nn.Linear(3, 4)", "Linear(in_features=3, out_features=4, bias=True)"),
    ("nn.Linear(3, 4, bias=False)", "Linear(in_features=3, out_features=4, bias=False)"),
    ("nn.Bilinear(2, 3, 4)", "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"),
    (
        'nn.Conv1d(2, 4, 3, padding="same")',
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same)",
    ),
    ("nn.Conv2d(3, 6, 3)", "Conv2d(3, 6, kernel_size=(3, 3), stride=(1, 1))"),
    (
        'nn.Conv2d(4, 8, (3, 5), stride=2, padding=(1, 2), dilation=2, groups=2, bias=False, padding_mode="reflect")',  # noqa: E501
        "Conv2d(4, 8, kernel_size=(3, 5), stride=(2, 2), padding=(1, 2), dilation=(2, 2), groups=2, bias=False, padding_mode=reflect)",  # noqa: E501
    ),
    (
        'nn.Conv3d(2, 2, 1, padding="valid")',
        "Conv3d(2, 2, kernel_size=(1, 1, 1), stride=(1, 1, 1), padding=valid)",
    ),
    (
        "nn.ConvTranspose1d(2, 4, 3, bias=False, dilation=2)",
        "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(1,), dilation=(2,), bias=False)",
    ),
    (
        "nn.ConvTranspose2d(3, 6, 3, stride=2, output_padding=1)",
        "ConvTranspose2d(3, 6, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))",
    ),
    (
        "nn.ConvTranspose3d(2, 4, 2, groups=2)",
        "ConvTranspose3d(2, 4, kernel_size=(2, 2, 2), stride=(1, 1, 1), groups=2)",
    ),
    (
        "nn.MaxPool1d(3, 2, 1, return_indices=True, ceil_mode=True)",
        "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)",
    ),
    (
        "nn.MaxPool2d(2)",
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
    ),
    (
        "nn.MaxPool3d((1, 2, 2), dilation=2)",
        "MaxPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2), padding=0, dilation=2, ceil_mode=False)",  # noqa: E501
    ),
    ("nn.AvgPool1d(3)", "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"),
    ("nn.AvgPool2d(2)", "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
    (
        "nn.AvgPool3d(2, count_include_pad=False, divisor_override=2)",
        "AvgPool3d(kernel_size=2, stride=2, padding=0)",
    ),
    ("nn.AdaptiveAvgPool1d(3)", "AdaptiveAvgPool1d(output_size=3)"),
    ("nn.AdaptiveAvgPool2d((5, None))", "AdaptiveAvgPool2d(output_size=(5, None))"),
    ("nn.AdaptiveAvgPool3d(2)", "AdaptiveAvgPool3d(output_size=2)"),
    ("nn.AdaptiveMaxPool1d(3)", "AdaptiveMaxPool1d(output_size=3)"),
    ("nn.AdaptiveMaxPool2d((2, 3), return_indices=True)", "AdaptiveMaxPool2d(output_size=(2, 3))"),
    ("nn.AdaptiveMaxPool3d((2, None, 3))", "AdaptiveMaxPool3d(output_size=(2, None, 3))"),
    ("nn.MaxUnpool2d(2)", "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"),
    ("nn.MaxUnpool1d(2)", "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))"),
    (
        "nn.MaxUnpool3d(2, stride=1, padding=1)",
        "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(1, 1, 1), padding=(1, 1, 1))",
    ),
    ("nn.LPPool1d(2, 3)", "LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"),
    (
        "nn.LPPool2d(1.5, 2, stride=1)",
        "LPPool2d(norm_type=1.5, kernel_size=2, stride=1, ceil_mode=False)",
    ),
    ("nn.LPPool3d(2, 2)", "LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)"),
    ("nn.NLLLoss2d()", "NLLLoss2d()"),
    (
        "nn.BatchNorm1d(3, affine=False, track_running_stats=False, momentum=None)",
        "BatchNorm1d(3, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=False)",  # noqa: E501
    ),
    (
        "nn.BatchNorm2d(4)",
        "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)",
    ),
    (
        "nn.BatchNorm3d(2, eps=1e-3, bias=False)",
        "BatchNorm3d(2, eps=0.001, momentum=0.1, affine=True, bias=False, track_running_stats=True)",  # noqa: E501
    ),
    (
        "nn.InstanceNorm1d(3, affine=True, track_running_stats=True)",
        "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)",  # noqa: E501
    ),
    (
        "nn.InstanceNorm2d(3)",
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)",  # noqa: E501
    ),
    (
        "nn.InstanceNorm3d(2, momentum=None)",
        "InstanceNorm3d(2, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=False)",  # noqa: E501
    ),
    ("nn.LayerNorm(5)", "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)"),
    (
        "nn.LayerNorm((2, 3), elementwise_affine=False, bias=False)",
        "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)",
    ),
    (
        "nn.LayerNorm([4], bias=False)",
        "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=False)",
    ),
    ("nn.GroupNorm(2, 4)", "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"),
    ("nn.GroupNorm(3, 6, affine=False)", "GroupNorm(3, 6, eps=1e-05, affine=False, bias=False)"),
    ("nn.RMSNorm(4)", "RMSNorm((4,), eps=None, elementwise_affine=True)"),
    ("nn.RMSNorm([2, 3], eps=1e-3)", "RMSNorm((2, 3), eps=0.001, elementwise_affine=True)"),
    ("nn.LocalResponseNorm(3)", "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"),
    ("nn.Dropout()", "Dropout(p=0.5, inplace=False)"),
    ("nn.Dropout1d(0.1)", "Dropout1d(p=0.1, inplace=False)"),
    ("nn.Dropout2d(0.2, inplace=True)", "Dropout2d(p=0.2, inplace=True)"),
    ("nn.Dropout3d()", "Dropout3d(p=0.5, inplace=False)"),
    ("nn.AlphaDropout(0.1)", "AlphaDropout(p=0.1, inplace=False)"),
    ("nn.FeatureAlphaDropout()", "FeatureAlphaDropout(p=0.5, inplace=False)"),
    ("nn.Embedding(10, 3)", "Embedding(10, 3)"),
    (
        "nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=3, scale_grad_by_freq=True, sparse=True)",  # noqa: E501
        "Embedding(10, 3, padding_idx=9, max_norm=1.0, norm_type=3, scale_grad_by_freq=True, sparse=True)",  # noqa: E501
    ),
    ("nn.EmbeddingBag(10, 3)", "EmbeddingBag(10, 3, mode='mean')"),
    (
        'nn.EmbeddingBag(10, 3, mode="sum", padding_idx=1, max_norm=2.0)',
        "EmbeddingBag(10, 3, max_norm=2.0, mode='sum', padding_idx=1)",
    ),
    ("nn.ReLU()", "ReLU()"),
    ("nn.ReLU(inplace=True)", "ReLU(inplace=True)"),
    ("nn.ReLU6(True)", "ReLU6(inplace=True)"),
    ("nn.LeakyReLU()", "LeakyReLU(negative_slope=0.01)"),
    ("nn.LeakyReLU(0.2, True)", "LeakyReLU(negative_slope=0.2, inplace=True)"),
    ("nn.PReLU()", "PReLU(num_parameters=1)"),
    ("nn.PReLU(3, 0.1)", "PReLU(num_parameters=3)"),
    ("nn.RReLU()", "RReLU(lower=0.125, upper=0.3333333333333333)"),
    ("nn.ELU(0.5, True)", "ELU(alpha=0.5, inplace=True)"),
    ("nn.SELU()", "SELU()"),
    ("nn.CELU(2.0, True)", "CELU(alpha=2.0, inplace=True)"),
    ("nn.GELU()", "GELU(approximate='none')"),
    ('nn.GELU("tanh")', "GELU(approximate='tanh')"),
    ("nn.SiLU(True)", "SiLU(inplace=True)"),
    ("nn.Mish()", "Mish()"),
    ("nn.Sigmoid()", "Sigmoid()"),
    ("nn.Tanh()", "Tanh()"),
    ("nn.Hardtanh()", "Hardtanh(min_val=-1.0, max_val=1.0)"),
    ("nn.Hardtanh(-2, 2, True)", "Hardtanh(min_val=-2, max_val=2, inplace=True)"),
    ("nn.Hardsigmoid(True)", "Hardsigmoid()"),
    ("nn.Hardswish()", "Hardswish()"),
    ("nn.Softplus()", "Softplus(beta=1.0, threshold=20.0)"),
    ("nn.Softplus(2, 10)", "Softplus(beta=2, threshold=10)"),
    ("nn.Softsign()", "Softsign()"),
    ("nn.Softshrink()", "Softshrink(0.5)"),
    ("nn.Hardshrink(0.3)", "Hardshrink(0.3)"),
    ("nn.Tanhshrink()", "Tanhshrink()"),
    ("nn.Threshold(0.1, 20, True)", "Threshold(threshold=0.1, value=20, inplace=True)"),
    ("nn.LogSigmoid()", "LogSigmoid()"),
    ("nn.Softmax()", "Softmax(dim=None)"),
    ("nn.Softmax(dim=1)", "Softmax(dim=1)"),
    ("nn.LogSoftmax(1)", "LogSoftmax(dim=1)"),
    ("nn.Softmin(0)", "Softmin(dim=0)"),
    ("nn.Softmax2d()", "Softmax2d()"),
    ("nn.GLU()", "GLU(dim=-1)"),
    ("nn.L1Loss()", "L1Loss()"),
    ('nn.MSELoss(reduction="sum")', "MSELoss()"),
    ("nn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.1)", "CrossEntropyLoss()"),
    ("nn.CTCLoss(blank=2, zero_infinity=True)", "CTCLoss()"),
    (
        "nn.TripletMarginWithDistanceLoss()",
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)",
    ),
    ("nn.Flatten()", "Flatten(start_dim=1, end_dim=-1)"),
    (
        "nn.Fold((4, 5), 2)",
        "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)",
    ),
    (
        "nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))",
        "Unfold(kernel_size=(2, 3), dilation=2, padding=1, stride=(1, 2))",
    ),
    ("nn.Unflatten(1, (2, 3))", "Unflatten(dim=1, unflattened_size=(2, 3))"),
    ("nn.PixelShuffle(2)", "PixelShuffle(upscale_factor=2)"),
    ("nn.PixelUnshuffle(2)", "PixelUnshuffle(downscale_factor=2)"),
    ("nn.ChannelShuffle(2)", "ChannelShuffle(groups=2)"),
    ("nn.Upsample(scale_factor=2)", "Upsample(scale_factor=2.0, mode='nearest')"),
    (
        'nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True)',
        "Upsample(size=(3, 4), mode='bilinear')",
    ),
    (
        "nn.UpsamplingNearest2d(scale_factor=2)",
        "UpsamplingNearest2d(scale_factor=2.0, mode='nearest')",
    ),
    ("nn.UpsamplingBilinear2d(size=4)", "UpsamplingBilinear2d(size=4, mode='bilinear')"),
    ("nn.ZeroPad1d((1, 2))", "ZeroPad1d((1, 2))"),
    ("nn.ZeroPad2d(1)", "ZeroPad2d((1, 1, 1, 1))"),
    ("nn.ZeroPad3d(1)", "ZeroPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.ConstantPad1d(2, 1)", "ConstantPad1d(padding=(2, 2), value=1)"),
    ("nn.ConstantPad2d(1, 3.5)", "ConstantPad2d(padding=(1, 1, 1, 1), value=3.5)"),
    (
        "nn.ConstantPad3d((1, 2, 0, 0, 1, 1), -1.0)",
        "ConstantPad3d(padding=(1, 2, 0, 0, 1, 1), value=-1.0)",
    ),
    ("nn.ReflectionPad1d(2)", "ReflectionPad1d((2, 2))"),
    ("nn.ReflectionPad2d((1, 0, 2, 1))", "ReflectionPad2d((1, 0, 2, 1))"),
    ("nn.ReflectionPad3d(1)", "ReflectionPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.ReplicationPad1d((0, 3))", "ReplicationPad1d((0, 3))"),
    ("nn.ReplicationPad2d(2)", "ReplicationPad2d((2, 2, 2, 2))"),
    ("nn.ReplicationPad3d(1)", "ReplicationPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.CircularPad1d(1)", "CircularPad1d((1, 1))"),
    ("nn.CircularPad2d((1, 2, 3, 4))", "CircularPad2d((1, 2, 3, 4))"),
    ("nn.CircularPad3d(1)", "CircularPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.CosineSimilarity()", "CosineSimilarity()"),
    ("nn.PairwiseDistance(p=1.0)", "PairwiseDistance()"),
]


@pytest.mark.parametrize("expr,expected", REPRS, ids=[e for e, _ in REPRS])
def test_repr_matches_pytorch(expr, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # NLLLoss2d is deprecated, as in torch
        assert repr(eval(expr)) == expected


def test_repr_of_a_container_of_layers():
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 2))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
        "  (1): ReLU()\n"
        "  (2): Flatten(start_dim=1, end_dim=-1)\n"
        "  (3): Linear(in_features=8, out_features=2, bias=True)\n"
        ")"
    )


# ---- forward is the functional call with the layer's parameters -------------------------------

x1d, x2d, x3d = randn(2, 4, 9, seed=1), randn(2, 4, 6, 7, seed=2), randn(2, 4, 4, 5, 6, seed=3)

# (module, input, the same computation through ember.nn.functional with the module's state)
FORWARD = [
    (nn.Linear(4, 3), randn(5, 4), lambda m, x: F.linear(x, m.weight, m.bias)),
    (nn.Linear(4, 3, bias=False), randn(5, 4), lambda m, x: x @ m.weight.t()),
    (
        nn.Conv1d(4, 6, 3, stride=2, padding=1),
        x1d,
        lambda m, x: F.conv1d(x, m.weight, m.bias, 2, 1),
    ),
    (
        nn.Conv2d(4, 6, (3, 2), padding="same", dilation=2, groups=2),
        x2d,
        lambda m, x: F.conv2d(x, m.weight, m.bias, 1, "same", 2, 2),
    ),
    (
        nn.Conv2d(4, 2, 3, padding=(1, 2), padding_mode="reflect"),
        x2d,
        lambda m, x: F.conv2d(F.pad(x, (2, 2, 1, 1), mode="reflect"), m.weight, m.bias),
    ),
    (
        nn.Conv2d(4, 2, 3, padding=1, padding_mode="circular", bias=False),
        x2d,
        lambda m, x: F.conv2d(F.pad(x, (1, 1, 1, 1), mode="circular"), m.weight),
    ),
    (
        nn.Conv1d(4, 2, 4, padding="same", padding_mode="replicate"),
        x1d,
        lambda m, x: F.conv1d(F.pad(x, (1, 2), mode="replicate"), m.weight, m.bias),
    ),
    (
        nn.Conv3d(4, 2, 2, stride=(1, 2, 1)),
        x3d,
        lambda m, x: F.conv3d(x, m.weight, m.bias, (1, 2, 1)),
    ),
    (
        nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1),
        x1d,
        lambda m, x: F.conv_transpose1d(x, m.weight, m.bias, 2, 0, 1),
    ),
    (
        nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, dilation=2),
        x2d,
        lambda m, x: F.conv_transpose2d(x, m.weight, m.bias, 2, 1, 0, 2, 2),
    ),
    (nn.ConvTranspose3d(4, 2, 2), x3d, lambda m, x: F.conv_transpose3d(x, m.weight, m.bias)),
    (
        nn.MaxPool1d(3, 2, 1, ceil_mode=True),
        x1d,
        lambda m, x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True),
    ),
    (nn.MaxPool2d(2, dilation=2), x2d, lambda m, x: F.max_pool2d(x, 2, 2, 0, 2)),
    (nn.MaxPool3d(2), x3d, lambda m, x: F.max_pool3d(x, 2)),
    (nn.AvgPool1d(3, 2), x1d, lambda m, x: F.avg_pool1d(x, 3, 2)),
    (
        nn.AvgPool2d(3, 1, 1, count_include_pad=False),
        x2d,
        lambda m, x: F.avg_pool2d(x, 3, 1, 1, False, False),
    ),
    (nn.AvgPool3d(2, divisor_override=3), x3d, lambda m, x: F.avg_pool3d(x, 2, divisor_override=3)),
    (nn.AdaptiveAvgPool1d(4), x1d, lambda m, x: F.adaptive_avg_pool1d(x, 4)),
    (nn.AdaptiveAvgPool2d((3, None)), x2d, lambda m, x: F.adaptive_avg_pool2d(x, (3, 7))),
    (nn.AdaptiveAvgPool3d(2), x3d, lambda m, x: F.adaptive_avg_pool3d(x, 2)),
    (nn.AdaptiveMaxPool1d(4), x1d, lambda m, x: F.adaptive_max_pool1d(x, 4)),
    (nn.AdaptiveMaxPool2d((2, 3)), x2d, lambda m, x: F.adaptive_max_pool2d(x, (2, 3))),
    (
        nn.BatchNorm1d(4).eval(),
        x1d,
        lambda m, x: F.batch_norm(x, m.running_mean, m.running_var, m.weight, m.bias),
    ),
    (nn.InstanceNorm2d(4), x2d, lambda m, x: F.instance_norm(x)),
    (nn.LayerNorm([6, 7]), x2d, lambda m, x: F.layer_norm(x, (6, 7), m.weight, m.bias)),
    (nn.GroupNorm(2, 4), x2d, lambda m, x: F.group_norm(x, 2, m.weight, m.bias)),
    (nn.RMSNorm(7, eps=1e-4), x2d, lambda m, x: F.rms_norm(x, (7,), m.weight, 1e-4)),
    (nn.LocalResponseNorm(3), x2d, lambda m, x: F.local_response_norm(x, 3)),
    (nn.Dropout().eval(), x2d, lambda m, x: x),
    (nn.Embedding(10, 3), ember.tensor([[1, 2], [9, 0]]), lambda m, x: F.embedding(x, m.weight)),
    (nn.ReLU(), x2d, lambda m, x: F.relu(x)),
    (nn.ReLU6(), x2d * 4, lambda m, x: F.relu6(x)),
    (nn.LeakyReLU(0.2), x2d, lambda m, x: F.leaky_relu(x, 0.2)),
    (nn.ELU(0.5), x2d, lambda m, x: F.elu(x, 0.5)),
    (nn.SELU(), x2d, lambda m, x: F.selu(x)),
    (nn.CELU(2.0), x2d, lambda m, x: F.celu(x, 2.0)),
    (nn.GELU("tanh"), x2d, lambda m, x: F.gelu(x, approximate="tanh")),
    (nn.SiLU(), x2d, lambda m, x: F.silu(x)),
    (nn.Mish(), x2d, lambda m, x: F.mish(x)),
    (nn.Sigmoid(), x2d, lambda m, x: F.sigmoid(x)),
    (nn.Tanh(), x2d, lambda m, x: F.tanh(x)),
    (nn.Hardtanh(-0.5, 0.7), x2d, lambda m, x: F.hardtanh(x, -0.5, 0.7)),
    (nn.Hardsigmoid(), x2d * 4, lambda m, x: F.hardsigmoid(x)),
    (nn.Hardswish(), x2d * 4, lambda m, x: F.hardswish(x)),
    (nn.Softplus(2.0, 1.0), x2d, lambda m, x: F.softplus(x, 2.0, 1.0)),
    (nn.Softsign(), x2d, lambda m, x: F.softsign(x)),
    (nn.Tanhshrink(), x2d, lambda m, x: F.tanhshrink(x)),
    (nn.Threshold(0.1, 20.0), x2d, lambda m, x: F.threshold(x, 0.1, 20.0)),
    (nn.LogSigmoid(), x2d, lambda m, x: F.logsigmoid(x)),
    (nn.Softmax(2), x2d, lambda m, x: F.softmax(x, 2)),
    (nn.LogSoftmax(-1), x2d, lambda m, x: F.log_softmax(x, -1)),
    (nn.Softmin(1), x2d, lambda m, x: F.softmax(-x, 1)),
    (nn.Softmax2d(), x2d, lambda m, x: F.softmax(x, 1)),
    (nn.Flatten(), x2d, lambda m, x: x.reshape(2, -1)),
    (nn.Flatten(0, 2), x2d, lambda m, x: x.reshape(48, 7)),
    (nn.Unflatten(1, (2, 2)), x2d, lambda m, x: x.reshape(2, 2, 2, 6, 7)),
    (nn.PixelShuffle(2), x2d, lambda m, x: F.pixel_shuffle(x, 2)),
    (nn.Unfold(2, padding=1, stride=2), x2d, lambda m, x: F.unfold(x, 2, 1, 1, 2)),
    (nn.Fold((3, 4), 2), randn(2, 8, 6), lambda m, x: F.fold(x, (3, 4), 2)),
    (nn.PixelUnshuffle(2), randn(1, 2, 4, 6), lambda m, x: F.pixel_unshuffle(x, 2)),
    (nn.Upsample(scale_factor=2), x2d, lambda m, x: F.interpolate(x, scale_factor=2.0)),
    (
        nn.UpsamplingBilinear2d(size=(5, 3)),
        x2d,
        lambda m, x: F.interpolate(x, (5, 3), mode="bilinear", align_corners=True),
    ),
    (nn.UpsamplingNearest2d(size=9), x2d, lambda m, x: F.interpolate(x, 9)),
    (nn.ZeroPad2d((1, 2, 0, 3)), x2d, lambda m, x: F.pad(x, (1, 2, 0, 3))),
    (nn.ConstantPad1d(2, 1.5), x1d, lambda m, x: F.pad(x, (2, 2), value=1.5)),
    (nn.ConstantPad3d(1, -1.0), x3d, lambda m, x: F.pad(x, (1,) * 6, value=-1.0)),
    (nn.ReflectionPad1d((3, 1)), x1d, lambda m, x: F.pad(x, (3, 1), mode="reflect")),
    (nn.ReflectionPad2d(2), x2d, lambda m, x: F.pad(x, (2, 2, 2, 2), mode="reflect")),
    (
        nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)),
        x3d,
        lambda m, x: F.pad(x, (1, 0, 2, 1, 0, 1), mode="replicate"),
    ),
    (nn.CircularPad2d(1), x2d, lambda m, x: F.pad(x, (1, 1, 1, 1), mode="circular")),
]


@pytest.mark.parametrize("idx", range(len(FORWARD)), ids=[repr(m)[:40] for m, _, _ in FORWARD])
def test_forward_equals_functional_call(idx):
    module, x, reference = FORWARD[idx]
    close(module(x), reference(module, x).detach().numpy(), atol=1e-6)


# ---- NumPy float64 references ------------------------------------------------------------------


def test_linear_forward_and_gradients_match_numpy():
    rng = np.random.default_rng(10)
    m = nn.Linear(4, 3).double()
    xn = rng.standard_normal((5, 4))
    x = ember.tensor(xn, requires_grad=True)
    y = m(x)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), xn @ w.T + b, rtol=1e-12)
    gn = rng.standard_normal((5, 3))
    y.backward(ember.tensor(gn))
    np.testing.assert_allclose(m.weight.grad.numpy(), gn.T @ xn, rtol=1e-12)
    np.testing.assert_allclose(m.bias.grad.numpy(), gn.sum(0), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), gn @ w, rtol=1e-12)


@pytest.mark.parametrize("a_cols", [False, True])
@pytest.mark.parametrize("b_cols", [False, True])
def test_mm_gradients_for_row_and_column_major_operands(a_cols, b_cols):
    # mm's backward computes a column-major operand's gradient transposed (Note [Gradient
    # layouts of mm]): the values are the same, and the leaf's .grad has the leaf's strides.
    rng = np.random.default_rng(11)
    an, bn, gn = (
        rng.standard_normal((5, 4)),
        rng.standard_normal((4, 3)),
        rng.standard_normal((5, 3)),
    )

    def leaf(x, cols):
        t = ember.tensor(np.ascontiguousarray(x.T)).t() if cols else ember.tensor(x)
        return t.detach().requires_grad_()

    a, b = leaf(an, a_cols), leaf(bn, b_cols)
    assert (a.stride() == (1, 5)) == a_cols and (b.stride() == (1, 4)) == b_cols
    ember.mm(a, b).backward(ember.tensor(gn))
    np.testing.assert_allclose(a.grad.numpy(), gn @ bn.T, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), an.T @ gn, rtol=1e-12)
    assert a.grad.stride() == a.stride() and b.grad.stride() == b.stride()
    # Second order through the transposed formulas: d/da sum(grad_b * v) = g @ v^T.
    a2, b2 = leaf(an, a_cols), leaf(bn, b_cols)
    (grad_b,) = ember.autograd.grad(ember.mm(a2, b2), b2, ember.tensor(gn), create_graph=True)
    v = rng.standard_normal((4, 3))
    (grad_a,) = ember.autograd.grad((grad_b * ember.tensor(v)).sum(), a2)
    np.testing.assert_allclose(grad_a.numpy(), gn @ v.T, rtol=1e-12)


def _conv2d_numpy(x, w, b, stride, padding, dilation, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (x.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (x.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg : (g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[
                    :,
                    :,
                    i * dilation[0] : i * dilation[0] + stride[0] * (oh - 1) + 1 : stride[0],
                    j * dilation[1] : j * dilation[1] + stride[1] * (ow - 1) + 1 : stride[1],
                ]
                out[:, g * og : (g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch, w[g * og : (g + 1) * og, :, i, j]
                )
    return out + b[None, :, None, None]


def test_conv2d_matches_numpy():
    m = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2).double()
    xn = np.random.default_rng(11).standard_normal((2, 4, 7, 6))
    y = m(ember.tensor(xn))
    ref = _conv2d_numpy(
        xn, m.weight.detach().numpy(), m.bias.detach().numpy(), (2, 1), (1, 2), (1, 2), 2
    )
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
def test_batchnorm_running_stats_follow_numpy(momentum):
    rng = np.random.default_rng(12)
    m = nn.BatchNorm2d(3, momentum=momentum).double()
    with ember.no_grad():
        m.weight.copy_(ember.tensor([0.5, 1.0, 2.0], dtype=ember.float64))
        m.bias.copy_(ember.tensor([0.0, -1.0, 1.0], dtype=ember.float64))
    mean, var = np.zeros(3), np.ones(3)
    batches = [rng.standard_normal((4, 3, 2, 5)) * 3 + 1 for _ in range(3)]
    for k, xn in enumerate(batches, start=1):
        y = m(ember.tensor(xn))
        bm, bv = xn.mean((0, 2, 3)), xn.var((0, 2, 3))
        ref = (xn - bm[None, :, None, None]) / np.sqrt(bv[None, :, None, None] + 1e-5)
        ref = ref * np.array([0.5, 1.0, 2.0])[None, :, None, None]
        ref = ref + np.array([0.0, -1.0, 1.0])[None, :, None, None]
        np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-9, atol=1e-9)
        # running_var takes the unbiased batch variance; momentum=None is a cumulative average.
        f = 1.0 / k if momentum is None else momentum
        unbiased = bv * xn[:, 0].size / (xn[:, 0].size - 1)
        mean = (1 - f) * mean + f * bm
        var = (1 - f) * var + f * unbiased
        np.testing.assert_allclose(m.running_mean.numpy(), mean, rtol=1e-10)
        np.testing.assert_allclose(m.running_var.numpy(), var, rtol=1e-10)
        assert m.num_batches_tracked.item() == k
        assert m.num_batches_tracked.dtype == ember.int64
    if momentum is None:
        np.testing.assert_allclose(
            m.running_mean.numpy(), np.mean([b.mean((0, 2, 3)) for b in batches], 0), rtol=1e-10
        )
    m.eval()
    xn = rng.standard_normal((2, 3, 2, 2))
    y = m(ember.tensor(xn))
    ref = (xn - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    ref = ref * np.array([0.5, 1.0, 2.0])[None, :, None, None]
    ref = ref + np.array([0.0, -1.0, 1.0])[None, :, None, None]
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-9, atol=1e-9)
    assert m.num_batches_tracked.item() == 3  # eval does not count batches


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval():
    m = nn.BatchNorm1d(2, affine=False, track_running_stats=False).double().eval()
    xn = np.random.default_rng(13).standard_normal((6, 2))
    ref = (xn - xn.mean(0)) / np.sqrt(xn.var(0) + 1e-5)
    np.testing.assert_allclose(m(ember.tensor(xn)).numpy(), ref, rtol=1e-9)
    assert m.running_mean is None and m.num_batches_tracked is None
    assert list(m.state_dict().keys()) == []


def test_layernorm_matches_numpy_and_gets_gradients():
    m = nn.LayerNorm((3, 4), eps=1e-3).double()
    with ember.no_grad():
        m.weight.copy_(ember.arange(12, dtype=ember.float64).reshape(3, 4) / 6)
        m.bias.fill_(0.25)
    xn = np.random.default_rng(14).standard_normal((2, 3, 4)) * 2
    y = m(ember.tensor(xn))
    mu = xn.mean((1, 2), keepdims=True)
    var = xn.var((1, 2), keepdims=True)
    ref = (xn - mu) / np.sqrt(var + 1e-3) * (np.arange(12).reshape(3, 4) / 6) + 0.25
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(m.bias.grad.numpy(), np.full((3, 4), 2.0))
    np.testing.assert_allclose(
        m.weight.grad.numpy(), ((xn - mu) / np.sqrt(var + 1e-3)).sum(0), rtol=1e-10
    )


# ---- default initialisation: PyTorch's formulas -----------------------------------------------


@pytest.mark.parametrize(
    "make,fan_in",
    [
        (lambda: nn.Linear(50, 40), 50),
        (lambda: nn.Conv2d(6, 33, (3, 5), groups=3), 2 * 15),
        (lambda: nn.Conv1d(8, 16, 5), 8 * 5),
        (lambda: nn.Conv3d(4, 8, 3), 4 * 27),
        (lambda: nn.ConvTranspose2d(6, 32, 3, groups=2), 16 * 9),
        (lambda: nn.ConvTranspose1d(8, 4, 5), 4 * 5),
    ],
)
def test_linear_and_conv_default_init_is_uniform_within_one_over_sqrt_fan_in(make, fan_in):
    m = make()
    bound = 1 / math.sqrt(fan_in)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound
    # U(-b, b) has std b / sqrt(3); with >= 640 samples, the spread is well inside 15 %.
    assert abs(w.std() - bound / math.sqrt(3)) < 0.15 * bound / math.sqrt(3)
    assert np.abs(w).max() > 0.9 * bound
    b = m.bias.detach().numpy()
    assert np.abs(b).max() <= bound and np.unique(b).size == b.size


def test_bilinear_init_bound_is_one_over_sqrt_in1():
    m = nn.Bilinear(25, 7, 30)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= 0.2 and np.abs(w).max() > 0.19 and np.abs(b).max() <= 0.2


def test_embedding_init_is_standard_normal_with_zero_padding_row():
    m = nn.Embedding(200, 50, padding_idx=-2)
    assert m.padding_idx == 198
    w = m.weight.detach().numpy()
    assert np.all(w[198] == 0)
    rest = np.delete(w, 198, axis=0)
    assert abs(rest.mean()) < 0.03 and abs(rest.std() - 1) < 0.03


def test_norm_and_prelu_init_values():
    bn = nn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert nn.LayerNorm(2).weight.tolist() == [1.0, 1.0] and nn.GroupNorm(1, 2).bias.tolist() == [
        0,
        0,
    ]
    assert nn.RMSNorm(2).weight.tolist() == [1.0, 1.0]
    assert nn.PReLU(3, 0.1).weight.tolist() == pytest.approx([0.1] * 3)


def test_reset_parameters_redraws_and_reset_running_stats_zeroes():
    m = nn.Linear(8, 8)
    before = m.weight.detach().clone()
    m.reset_parameters()
    assert not ember.equal(before, m.weight.detach())
    bn = nn.BatchNorm1d(2)
    bn(randn(4, 2))
    assert bn.num_batches_tracked.item() == 1 and bn.running_mean.abs().sum().item() > 0
    bn.reset_running_stats()
    assert bn.num_batches_tracked.item() == 0 and bn.running_mean.tolist() == [0.0, 0.0]


def test_factory_kwargs_make_float64_parameters():
    f64 = {"dtype": ember.float64}
    for m in (nn.Linear(2, 3, **f64), nn.Conv2d(1, 1, 1, **f64), nn.BatchNorm1d(2, **f64)):
        assert all(p.dtype == ember.float64 for p in m.parameters())


# ---- parameters, buffers and state dicts -------------------------------------------------------


@pytest.mark.parametrize(
    "module,keys",
    [
        (nn.Linear(2, 3, bias=False), ["weight"]),
        (nn.Conv2d(2, 2, 1), ["weight", "bias"]),
        (
            nn.BatchNorm2d(2),
            ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"],
        ),
        (
            nn.BatchNorm1d(2, bias=False),
            ["weight", "running_mean", "running_var", "num_batches_tracked"],
        ),
        (nn.InstanceNorm1d(2), []),
        (nn.LayerNorm(3, bias=False), ["weight"]),
        (nn.PReLU(), ["weight"]),
        (nn.CrossEntropyLoss(weight=ember.ones(3)), ["weight"]),
        (nn.NLLLoss(), []),
        (
            nn.BCEWithLogitsLoss(weight=ember.ones(2), pos_weight=ember.ones(2)),
            ["weight", "pos_weight"],
        ),
        (nn.EmbeddingBag(4, 2), ["weight"]),
    ],
)
def test_state_dict_keys_are_pytorchs(module, keys):
    assert list(module.state_dict().keys()) == keys


def test_batchnorm_loads_a_state_dict_without_num_batches_tracked():
    src = nn.BatchNorm1d(2)
    src(randn(4, 2))
    state = {k: v for k, v in src.state_dict().items() if k != "num_batches_tracked"}
    dst = nn.BatchNorm1d(2)
    dst.load_state_dict(state)
    assert dst.running_mean.tolist() == src.running_mean.tolist()
    assert dst.num_batches_tracked.item() == 0


def test_gradients_reach_every_parameter():
    model = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.PReLU(4), nn.MaxPool2d(2),
        nn.GroupNorm(2, 4), nn.Flatten(), nn.Dropout(0.1), nn.Linear(16, 5), nn.LayerNorm(5),
    )  # fmt: skip
    loss = nn.CrossEntropyLoss()(model(randn(3, 2, 4, 4)), ember.tensor([0, 4, 2]))
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum().item() > 0, name


# ---- training / eval behaviour -----------------------------------------------------------------


def test_dropout_drops_only_in_training():
    x = ember.ones(4000)
    m = nn.Dropout(0.25)
    y = m(x).numpy()
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(4.0 / 3.0))}
    assert 0.2 < (y == 0).mean() < 0.3
    assert ember.equal(m.eval()(x), x)
    channels = nn.Dropout2d(0.5)(ember.ones(2, 50, 3, 3)).numpy()
    assert np.all(channels.std(axis=(2, 3)) == 0)  # whole channels are dropped or kept


def test_dropout_inplace_writes_into_the_input():
    x = ember.ones(100)
    out = nn.Dropout(0.5, inplace=True)(x)
    assert out.data_ptr() == x.data_ptr() and (x == 0).any().item()


def test_rrelu_uses_the_mean_slope_in_eval_and_random_slopes_in_training():
    x = -ember.ones(1000)
    close(nn.RReLU(0.1, 0.3).eval()(x), np.full(1000, -0.2))
    y = nn.RReLU(0.1, 0.3)(x).numpy()
    assert y.min() >= -0.3 and y.max() <= -0.1 and y.std() > 0.03


def test_instancenorm_with_running_stats_uses_them_in_eval():
    m = nn.InstanceNorm1d(2, track_running_stats=True, momentum=0.5).double()
    xn = np.random.default_rng(15).standard_normal((3, 2, 8)) + 2
    m(ember.tensor(xn))
    np.testing.assert_allclose(m.running_mean.numpy(), 0.5 * xn.mean((0, 2)), rtol=1e-10)
    m.eval()
    y = m(ember.tensor(xn[0]))  # no batch dim
    rm, rv = m.running_mean.numpy()[:, None], m.running_var.numpy()[:, None]
    np.testing.assert_allclose(y.numpy(), (xn[0] - rm) / np.sqrt(rv + 1e-5), rtol=1e-9)


def test_prelu_per_channel_slopes():
    m = nn.PReLU(3)
    with ember.no_grad():
        m.weight.copy_(ember.tensor([0.1, 0.2, 0.3]))
    y = m(-ember.ones(2, 3, 2))
    close(y, -np.array([0.1, 0.2, 0.3])[None, :, None] * np.ones((2, 3, 2)))
    y.sum().backward()
    close(m.weight.grad, np.full(3, -4.0))


def test_shrinks_glu_and_channel_shuffle_values():
    x = t([-1.0, -0.4, 0.0, 0.3, 0.9])
    close(nn.Softshrink(0.5)(x), [-0.5, 0, 0, 0, 0.4])
    close(nn.Hardshrink(0.35)(x), [-1.0, -0.4, 0, 0, 0.9])
    close(nn.GLU(0)(t([1.0, 2.0, 0.0, 100.0])), [0.5, 2.0])
    y = nn.ChannelShuffle(2)(ember.arange(6.0).reshape(1, 6, 1))
    assert y.flatten().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_distance_layers_match_numpy():
    a, b = np.random.default_rng(16).standard_normal((2, 4, 5))
    close(nn.PairwiseDistance()(t(a), t(b)), np.linalg.norm(a - b + 1e-6, axis=-1))
    close(
        nn.PairwiseDistance(p=1, keepdim=True)(t(a), t(b)),
        np.abs(a - b + 1e-6).sum(-1, keepdims=True),
    )
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    close(nn.CosineSimilarity()(t(a), t(b)), cos)


def test_lppool_matches_numpy():
    xn = np.abs(np.random.default_rng(17).standard_normal((1, 2, 4, 6)))
    y = nn.LPPool2d(2, (2, 3))(t(xn))
    ref = np.sqrt((xn**2).reshape(1, 2, 2, 2, 2, 3).sum((3, 5)))
    close(y, ref)
    close(nn.LPPool1d(3, 2)(t(xn[0])), ((xn[0] ** 3).reshape(2, 4, 3, 2).sum(-1)) ** (1 / 3))


def test_adaptive_max_pool3d_matches_numpy_windows():
    xn = np.random.default_rng(41).standard_normal((2, 3, 5, 4, 7))
    out, idx = nn.AdaptiveMaxPool3d((3, 2, 4), return_indices=True)(ember.tensor(xn))

    def windows(size, n):
        return [(i * size // n, -(-(i + 1) * size // n)) for i in range(n)]

    ref = np.zeros((2, 3, 3, 2, 4))
    ref_idx = np.zeros((2, 3, 3, 2, 4), dtype=np.int64)
    for i, (d0, d1) in enumerate(windows(5, 3)):
        for j, (h0, h1) in enumerate(windows(4, 2)):
            for k, (w0, w1) in enumerate(windows(7, 4)):
                box = xn[:, :, d0:d1, h0:h1, w0:w1]
                ref[:, :, i, j, k] = box.max((2, 3, 4))
                flat = box.reshape(2, 3, -1).argmax(-1)
                dd, hh, ww = np.unravel_index(flat, box.shape[2:])
                ref_idx[:, :, i, j, k] = (dd + d0) * 28 + (hh + h0) * 7 + (ww + w0)
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)


def test_maxpool_indices_feed_maxunpool():
    x = randn(1, 2, 4, 4).abs() + 0.1  # positive, so the unpooled zeros never win
    y, idx = nn.MaxPool2d(2, return_indices=True)(x)
    close(y, F.max_pool2d(x, 2).numpy())
    up = nn.MaxUnpool2d(2)(y, idx)
    assert up.shape == (1, 2, 4, 4)
    assert ember.equal(F.max_pool2d(up, 2), y) and (up != 0).sum().item() == 8


@pytest.mark.parametrize("dims", [1, 3])
def test_maxunpool_1d_and_3d_invert_their_pooling(dims):
    shape = (2, 3, 6) if dims == 1 else (1, 2, 4, 4, 6)
    x = randn(*shape, seed=dims).abs() + 0.1
    pool = (nn.MaxPool1d if dims == 1 else nn.MaxPool3d)(2, return_indices=True)
    unpool = (nn.MaxUnpool1d if dims == 1 else nn.MaxUnpool3d)(2)
    y, idx = pool(x)
    y.requires_grad_(True)
    up = unpool(y, idx)
    assert up.shape == x.shape and (up != 0).sum().item() == y.numel()
    assert ember.equal(pool(up)[0], y)
    up.sum().backward()
    assert y.grad.tolist() == ember.ones_like(y).tolist()
    bigger = [s + 1 for s in shape[2:]]
    assert unpool(y, idx, output_size=bigger).shape == tuple(shape[:2]) + tuple(bigger)
    with pytest.raises(ValueError, match="invalid output_size"):
        unpool(y, idx, output_size=[s + 2 for s in shape[2:]])


def test_conv_transpose_output_size_picks_output_padding():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = randn(1, 2, 4, 5)
    assert m(x).shape == (1, 3, 7, 9)
    y = m(x, output_size=[8, 10])
    assert y.shape == (1, 3, 8, 10)
    close(y, F.conv_transpose2d(x, m.weight, m.bias, 2, 1, 1).detach().numpy())
    assert m(x, output_size=(1, 3, 8, 9)).shape == (1, 3, 8, 9)
    with pytest.raises(ValueError, match=r"valid sizes range from \[7, 9\] to \[8, 10\]"):
        m(x, output_size=[9, 9])
    with pytest.raises(ValueError, match="output_size must have 2 or 4 elements"):
        m(x, output_size=[8])


def test_embedding_from_pretrained_and_max_norm():
    w = t([[3.0, 4.0], [0.3, 0.4], [1.0, 0.0]])
    m = nn.Embedding.from_pretrained(w)
    assert not m.weight.requires_grad and repr(m) == "Embedding(3, 2)"
    close(m(ember.tensor([2, 0])), [[1.0, 0.0], [3.0, 4.0]])
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    capped = nn.Embedding.from_pretrained(w.clone(), max_norm=1.0)
    close(capped(ember.tensor([0, 1])), [[0.6, 0.8], [0.3, 0.4]], atol=1e-4)
    with pytest.raises(AssertionError, match="2-dimensional"):
        nn.Embedding.from_pretrained(ember.ones(3))


def test_embedding_padding_idx_row_gets_no_gradient():
    m = nn.Embedding(4, 2, padding_idx=1)
    m(ember.tensor([1, 2, 1, 3])).sum().backward()
    assert m.weight.grad.tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]


def test_embedding_bag_modes_offsets_and_per_sample_weights():
    w = ember.arange(10.0).reshape(5, 2)
    bag = nn.EmbeddingBag.from_pretrained(w, mode="sum")
    inp, offsets = ember.tensor([0, 1, 4, 2]), ember.tensor([0, 3])
    close(bag(inp, offsets), [[10.0, 13.0], [4.0, 5.0]])
    close(
        bag(inp, offsets, per_sample_weights=t([1.0, 2.0, 0.5, -1.0])), [[8.0, 11.5], [-4.0, -5.0]]
    )
    mean = nn.EmbeddingBag.from_pretrained(w)
    close(mean(ember.tensor([[0, 4], [1, 3]])), [[4.0, 5.0], [4.0, 5.0]])
    biggest = nn.EmbeddingBag.from_pretrained(w, mode="max")
    close(biggest(inp, offsets), [[8.0, 9.0], [4.0, 5.0]])


# ---- losses ------------------------------------------------------------------------------------

logits, labels = randn(6, 4, seed=20), ember.tensor([0, 3, 1, 1, 2, 3])
probs, bin_t = F.sigmoid(randn(6, 4, seed=21)), (randn(6, 4, seed=22) > 0).to(ember.float32)
pm1 = (randn(6, seed=23) > 0).to(ember.float32) * 2 - 1
a, p_, n_ = randn(6, 4, seed=24), randn(6, 4, seed=25), randn(6, 4, seed=26)
cls_w = t([0.5, 1.0, 2.0, 1.5])

LOSSES = [
    (nn.L1Loss(), (logits, probs), lambda: F.l1_loss(logits, probs)),
    (
        nn.MSELoss(reduction="sum"),
        (logits, probs),
        lambda: F.mse_loss(logits, probs, reduction="sum"),
    ),
    (
        nn.CrossEntropyLoss(weight=cls_w, ignore_index=1, label_smoothing=0.1),
        (logits, labels),
        lambda: F.cross_entropy(logits, labels, cls_w, ignore_index=1, label_smoothing=0.1),
    ),
    (
        nn.CrossEntropyLoss(),
        (logits, F.softmax(probs, 1)),
        lambda: F.cross_entropy(logits, F.softmax(probs, 1)),
    ),
    (
        nn.NLLLoss(cls_w, reduction="none"),
        (logits, labels),
        lambda: F.nll_loss(logits, labels, cls_w, reduction="none"),
    ),
    (nn.BCELoss(cls_w), (probs, bin_t), lambda: F.binary_cross_entropy(probs, bin_t, cls_w)),
    (
        nn.BCEWithLogitsLoss(pos_weight=cls_w),
        (logits, bin_t),
        lambda: F.binary_cross_entropy_with_logits(logits, bin_t, pos_weight=cls_w),
    ),
    (nn.HuberLoss(delta=0.5), (logits, probs), lambda: F.huber_loss(logits, probs, delta=0.5)),
    (nn.SmoothL1Loss(beta=0.5), (logits, probs), lambda: F.smooth_l1_loss(logits, probs, beta=0.5)),
    (
        nn.KLDivLoss(reduction="batchmean"),
        (F.log_softmax(logits, 1), F.softmax(probs, 1)),
        lambda: F.kl_div(F.log_softmax(logits, 1), F.softmax(probs, 1), reduction="batchmean"),
    ),
    (
        nn.PoissonNLLLoss(full=True),
        (logits, probs * 3),
        lambda: F.poisson_nll_loss(logits, probs * 3, full=True),
    ),
    (
        nn.GaussianNLLLoss(eps=1e-3),
        (logits, p_, probs),
        lambda: F.gaussian_nll_loss(logits, p_, probs, eps=1e-3),
    ),
    (
        nn.MarginRankingLoss(0.2),
        (a[:, 0], p_[:, 0], pm1),
        lambda: F.margin_ranking_loss(a[:, 0], p_[:, 0], pm1, 0.2),
    ),
    (
        nn.HingeEmbeddingLoss(0.5),
        (logits[:, 0], pm1),
        lambda: F.hinge_embedding_loss(logits[:, 0], pm1, 0.5),
    ),
    (nn.SoftMarginLoss(), (logits[:, 0], pm1), lambda: F.soft_margin_loss(logits[:, 0], pm1)),
    (
        nn.MultiMarginLoss(p=2, margin=0.5, weight=cls_w),
        (logits, labels),
        lambda: F.multi_margin_loss(logits, labels, 2, 0.5, cls_w),
    ),
    (nn.CosineEmbeddingLoss(0.1), (a, p_, pm1), lambda: F.cosine_embedding_loss(a, p_, pm1, 0.1)),
    (
        nn.TripletMarginLoss(0.5, p=1.0, swap=True),
        (a, p_, n_),
        lambda: F.triplet_margin_loss(a, p_, n_, 0.5, 1.0, swap=True),
    ),
    (
        nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True, reduction="sum"),
        (a, p_, n_),
        lambda: F.triplet_margin_loss(a, p_, n_, 0.5, swap=True, reduction="sum"),
    ),
]


@pytest.mark.parametrize("idx", range(len(LOSSES)), ids=[type(m).__name__ for m, _, _ in LOSSES])
def test_loss_module_equals_functional_call(idx):
    module, args, reference = LOSSES[idx]
    close(module(*args), reference().detach().numpy(), atol=1e-6)


def test_multilabel_soft_margin_loss_matches_numpy():
    x, y, w = logits.numpy().astype(np.float64), bin_t.numpy(), cls_w.numpy()
    ls = lambda v: -np.log1p(np.exp(-v))  # noqa: E731
    per = -(y * ls(x) + (1 - y) * ls(-x)) * w
    close(nn.MultiLabelSoftMarginLoss(cls_w)(logits, bin_t), per.mean(1).mean())
    close(nn.MultiLabelSoftMarginLoss(reduction="none")(logits, bin_t), (per / w).mean(1))


def test_multilabel_margin_loss_matches_a_loop():
    xn = logits.numpy().astype(np.float64)
    yn = np.array(
        [[3, 0, -1, 1], [1, -1, 3, 0], [0, 1, 2, 3], [-1, 0, 1, 2], [2, 2, -1, 0], [1, 0, 2, -1]]
    )
    ref = []
    for row, ys in zip(xn, yn):
        listed = list(ys[: list(ys).index(-1)] if -1 in ys else ys)
        others = [i for i in range(4) if i not in listed]
        ref.append(sum(max(0, 1 - (row[j] - row[i])) for j in listed for i in others) / 4)
    m = nn.MultiLabelMarginLoss(reduction="none")
    close(m(logits, ember.tensor(yn)), ref)
    close(nn.MultiLabelMarginLoss()(logits[0], ember.tensor(yn[0])), ref[0])
    with pytest.raises(RuntimeError, match="out of range"):
        m(logits[:1], ember.tensor([[4, 0, -1, 1]]))
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        m(logits, ember.tensor([[0, 1]]))


def test_triplet_with_custom_distance_function():
    d = lambda u, v: 1 - F.normalize(u, dim=1).mul(F.normalize(v, dim=1)).sum(1)  # noqa: E731
    m = nn.TripletMarginWithDistanceLoss(distance_function=d, margin=0.3, reduction="none")
    close(m(a, p_, n_), ember.clamp(0.3 + d(a, p_) - d(a, n_), min=0).numpy())


def test_legacy_size_average_sets_reduction_with_a_warning():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        m = nn.MSELoss(size_average=False)
    assert m.reduction == "sum"


def test_loss_weight_buffer_follows_the_module_dtype():
    m = nn.CrossEntropyLoss(weight=cls_w).double()
    assert m.weight.dtype == ember.float64


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make,exc,match",
    [
        (
            lambda: nn.Conv2d(3, 4, 3, groups=2),
            ValueError,
            "in_channels must be divisible by groups",
        ),
        (
            lambda: nn.Conv2d(4, 3, 3, groups=2),
            ValueError,
            "out_channels must be divisible by groups",
        ),
        (lambda: nn.Conv1d(4, 4, 3, groups=0), ValueError, "groups must be a positive integer"),
        (lambda: nn.Conv2d(1, 1, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
        (
            lambda: nn.Conv2d(1, 1, 3, stride=2, padding="same"),
            ValueError,
            "not supported for strided",
        ),
        (
            lambda: nn.Conv2d(1, 1, 3, padding_mode="mirror"),
            ValueError,
            "padding_mode must be one of",
        ),
        (
            lambda: nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect"),
            ValueError,
            'Only "zeros" padding mode',
        ),
        (
            lambda: nn.GroupNorm(3, 4),
            ValueError,
            r"num_channels \(4\) must be divisible by num_groups \(3\)",
        ),
        (
            lambda: nn.Bilinear(0, 2, 3),
            ValueError,
            r"in1_features must be > 0, but got \(in1_features=0\)",
        ),
        (lambda: nn.LPPool2d(0, 2), ValueError, "norm_type must be a non-zero value, but got 0"),
        (lambda: nn.Softmax(dim=1.0), TypeError, "dim must be an int or None"),
        (lambda: nn.LogSoftmax(dim=True), TypeError, "dim must be an int or None"),
        (
            lambda: nn.Dropout(1.5),
            ValueError,
            "dropout probability has to be between 0 and 1, but got 1.5",
        ),
        (lambda: nn.AlphaDropout(-0.1), ValueError, "between 0 and 1"),
        (lambda: nn.Embedding(5, 2, padding_idx=5), AssertionError, "Padding_idx must be within"),
        (
            lambda: nn.EmbeddingBag(5, 2, padding_idx=-6),
            AssertionError,
            "^padding_idx must be within",
        ),
        (lambda: nn.Embedding(5, 2, _weight=ember.ones(4, 2)), AssertionError, "Shape of weight"),
        (lambda: nn.Hardtanh(1.0, 0.0), AssertionError, r"max_val \(0.0\) must be greater"),
        (lambda: nn.MultiMarginLoss(p=3), ValueError, "only p == 1 and p == 2 supported"),
        (lambda: nn.MultiMarginLoss(weight=ember.ones(2, 2)), ValueError, "got 2D instead"),
        (
            lambda: nn.TripletMarginLoss(margin=0),
            ValueError,
            "expected margin to be greater than 0",
        ),
        (lambda: nn.TripletMarginWithDistanceLoss(margin=-1), ValueError, "greater than 0"),
        (lambda: nn.HuberLoss(delta="1"), TypeError, "delta must be a float or int"),
        (lambda: nn.Unflatten(1, 6), TypeError, "unflattened_size must be a tuple of ints"),
        (lambda: nn.Unflatten(1, (2, 3.0)), TypeError, "found element of type float at pos 1"),
    ],
)
def test_constructor_errors_are_pytorchs(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


@pytest.mark.parametrize(
    "module,x,exc,match",
    [
        (
            nn.BatchNorm1d(3),
            ember.ones(2, 3, 4, 5),
            ValueError,
            r"expected 2D or 3D input \(got 4D input\)",
        ),
        (nn.BatchNorm2d(3), ember.ones(2, 3, 4), ValueError, r"expected 4D input \(got 3D input\)"),
        (
            nn.BatchNorm3d(3),
            ember.ones(2, 3, 4, 4),
            ValueError,
            r"expected 5D input \(got 4D input\)",
        ),
        (nn.BatchNorm1d(3), ember.ones(1, 3), ValueError, "Expected more than 1 value per channel"),
        (
            nn.InstanceNorm2d(3),
            ember.ones(3, 4),
            ValueError,
            r"expected 3D or 4D input \(got 2D input\)",
        ),
        (
            nn.InstanceNorm1d(3, affine=True),
            ember.ones(2, 4, 5),
            ValueError,
            r"match num_features \(3\), but got: 4",
        ),
        (
            nn.CircularPad2d(1),
            ember.ones(4, 4),
            ValueError,
            r"expected 3D or 4D input \(got 2D input\)",
        ),
        (nn.ReflectionPad2d(1), ember.ones(4, 4), NotImplementedError, "padding length 4"),
        (nn.Softmax2d(), ember.ones(4, 4), ValueError, "expected input to be 3D or 4D, got 2D"),
        (
            nn.GLU(),
            ember.ones(2, 3),
            RuntimeError,
            "Halving dimension must be even, but dimension 1 is size 3",
        ),
        (nn.PReLU(3), ember.ones(2, 4), RuntimeError, "channel size = 4"),
        (nn.ChannelShuffle(4), ember.ones(1, 6, 2), RuntimeError, "6 channels and 4 groups"),
        (nn.Linear(3, 2), ember.ones(2, 4), RuntimeError, "cannot be multiplied"),
    ],
)
def test_forward_input_errors(module, x, exc, match):
    with pytest.raises(exc, match=match):
        module(x)


def test_nllloss2d_is_nllloss_with_a_deprecation_warning():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        m = nn.NLLLoss2d(reduction="sum")
    x, y = randn(2, 3, 2, 2), ember.tensor([[[0, 1], [2, 0]], [[1, 1], [0, 2]]])
    close(m(x, y), F.nll_loss(x, y, reduction="sum").numpy())


def test_hardtanh_accepts_the_deprecated_min_value_and_max_value():
    with pytest.warns(FutureWarning, match="`(min|max)_value` is deprecated"):
        m = nn.Hardtanh(min_value=-0.5, max_value=2.0)
    assert (m.min_val, m.max_val) == (-0.5, 2.0)


def test_instancenorm_without_affine_warns_on_channel_mismatch():
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(3)(randn(2, 4, 5))


def test_lazy_linear_takes_in_features_from_the_first_input():
    m = nn.LazyLinear(3)
    assert m.has_uninitialized_params()
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    weight = m.weight
    y = m(randn(2, 7))
    assert m.weight is weight and m.bias.shape == (3,)
    assert y.shape == (2, 3) and type(m) is nn.Linear
    assert m.weight.shape == (3, 7) and np.abs(m.weight.detach().numpy()).max() <= 1 / math.sqrt(7)
    assert repr(m) == "Linear(in_features=7, out_features=3, bias=True)"


@pytest.mark.parametrize(
    "module,reference",
    [
        (nn.ReLU(inplace=True), F.relu),
        (nn.ReLU6(inplace=True), F.relu6),
        (nn.LeakyReLU(0.3, inplace=True), lambda x: F.leaky_relu(x, 0.3)),
        (nn.ELU(inplace=True), F.elu),
        (nn.SELU(inplace=True), F.selu),
        (nn.CELU(0.5, inplace=True), lambda x: F.celu(x, 0.5)),
        (nn.SiLU(inplace=True), F.silu),
        (nn.Mish(inplace=True), F.mish),
        (nn.Hardtanh(-0.2, 0.3, inplace=True), lambda x: F.hardtanh(x, -0.2, 0.3)),
        (nn.Hardsigmoid(inplace=True), F.hardsigmoid),
        (nn.Hardswish(inplace=True), F.hardswish),
        (nn.Threshold(0.1, 5.0, inplace=True), lambda x: F.threshold(x, 0.1, 5.0)),
        (nn.RReLU(inplace=True).eval(), lambda x: F.leaky_relu(x, (1 / 8 + 1 / 3) / 2)),
    ],
    ids=lambda v: repr(v)[:30] if isinstance(v, nn.Module) else "",
)
def test_inplace_activations_write_into_their_input(module, reference):
    x = randn(3, 5, seed=30) * 3
    expected = reference(x.clone()).numpy()
    y = module(x)
    assert y.data_ptr() == x.data_ptr()
    close(x, expected)


def test_lazy_conv_and_batchnorm_take_their_sizes_from_the_first_input():
    conv = nn.LazyConv2d(6, 3, groups=2)
    assert repr(conv) == "LazyConv2d(0, 6, kernel_size=(3, 3), stride=(1, 1), groups=2)"
    weight = conv.weight
    y = conv(randn(2, 4, 5, 5))
    assert type(conv) is nn.Conv2d and conv.weight is weight and conv.in_channels == 4
    assert conv.weight.shape == (6, 2, 3, 3) and y.shape == (2, 6, 3, 3)
    bound = 1 / math.sqrt(2 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv1d(4, 3, groups=2)(randn(1, 3, 5))
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\)"):
        nn.LazyConv1d(4, 3)(randn(5))
    bn = nn.LazyBatchNorm1d(momentum=0.5)
    bn(randn(4, 3) + 2)
    assert type(bn) is nn.BatchNorm1d and bn.num_features == 3
    assert bn.weight.tolist() == [1.0] * 3 and bn.num_batches_tracked.item() == 1
    assert all(0.4 < v < 1.6 for v in bn.running_mean.tolist())  # 0.5 * batch mean near 2


def test_lazy_instancenorm_finds_the_channels_of_unbatched_input():
    # PyTorch 2.15 reads dim 1 here and then fails on its own channel check; ember reads dim 0.
    m = nn.LazyInstanceNorm2d()
    m(randn(3, 4, 5))
    assert type(m) is nn.InstanceNorm2d and m.num_features == 3 and m.weight.shape == (3,)


def test_lazy_layer_loads_a_state_dict_before_its_first_forward():
    src = nn.Linear(4, 2)
    lazy = nn.LazyLinear(2)
    lazy.load_state_dict(src.state_dict())
    assert lazy.weight.shape == (2, 4)
    x = randn(3, 4)
    close(lazy(x), src(x).detach().numpy())
    assert type(lazy) is nn.Linear and lazy.in_features == 4


def _ctc_brute_force(probs, target):
    """Sum over all T-step label paths that collapse (merge repeats, drop blanks) to target."""
    import itertools

    steps, classes = probs.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or path[i - 1] != c)]
        if collapsed == list(target):
            total += np.prod([probs[t, c] for t, c in enumerate(path)])
    return -np.log(total)


def test_ctc_loss_matches_brute_force_enumeration():
    rng = np.random.default_rng(40)
    logits = rng.standard_normal((5, 3, 3))
    targets = np.array([[1, 2], [1, 1], [2, 0]])
    in_len, tgt_len = [5, 5, 4], [2, 2, 1]
    x = ember.tensor(logits, requires_grad=True)
    m = nn.CTCLoss(reduction="none")
    loss = m(F.log_softmax(x, 2), ember.tensor(targets), in_len, tgt_len)
    probs = np.exp(logits) / np.exp(logits).sum(2, keepdims=True)
    ref = [_ctc_brute_force(probs[: in_len[n], n], targets[n, : tgt_len[n]]) for n in range(3)]
    np.testing.assert_allclose(loss.detach().numpy(), ref, rtol=1e-10)
    # mean divides by the target lengths, then averages; the gradient is finite everywhere.
    mean = nn.CTCLoss()(F.log_softmax(x, 2), ember.tensor(targets), in_len, tgt_len)
    np.testing.assert_allclose(mean.item(), np.mean(np.array(ref) / tgt_len), rtol=1e-10)
    mean.backward()
    assert np.isfinite(x.grad.numpy()).all() and np.abs(x.grad.numpy()).sum() > 0


def test_ctc_loss_impossible_alignment_is_inf_or_zero():
    lp = F.log_softmax(randn(2, 1, 3), 2)
    target = ember.tensor([[1, 1]])  # needs 3 steps (a blank between the repeats)
    assert nn.CTCLoss(reduction="none")(lp, target, [2], [2]).item() == math.inf
    assert nn.CTCLoss(reduction="sum", zero_infinity=True)(lp, target, [2], [2]).item() == 0


def test_adaptive_log_softmax_is_a_normalised_distribution():
    m = nn.AdaptiveLogSoftmaxWithLoss(6, 12, [4, 8], div_value=2.0)
    assert [n for n, _ in m.named_parameters()] == [
        "head.weight", "tail.0.0.weight", "tail.0.1.weight", "tail.1.0.weight", "tail.1.1.weight",
    ]  # fmt: skip
    assert m.head.out_features == 6 and m.tail[1][0].out_features == 1
    x, y = randn(5, 6), ember.tensor([0, 11, 5, 3, 8])
    logp = m.log_prob(x).detach().numpy()
    np.testing.assert_allclose(np.exp(logp).sum(1), np.ones(5), rtol=1e-5)
    out = m(x, y)
    close(out.output, logp[np.arange(5), y.numpy()], atol=1e-5)
    close(out.loss, -logp[np.arange(5), y.numpy()].mean(), atol=1e-5)
    assert m.predict(x).tolist() == logp.argmax(1).tolist()
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 11\]"):
        m(x, ember.tensor([0, 1, 2, 3, 12]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        nn.AdaptiveLogSoftmaxWithLoss(6, 12, [4, 4])


def test_one_hot_matches_numpy_and_pytorchs_errors():
    idx = np.array([[0, 2, 1], [3, 0, 2]])
    out = F.one_hot(ember.tensor(idx.tolist()))
    assert out.dtype == ember.int64 and tuple(out.shape) == (2, 3, 4)
    np.testing.assert_array_equal(np.array(out.tolist()), np.eye(4, dtype=np.int64)[idx])
    wide = F.one_hot(ember.tensor([1, 0]), num_classes=5)
    assert wide.tolist() == [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]
    assert F.one_hot(ember.tensor(2), 3).tolist() == [0, 0, 1]
    assert tuple(F.one_hot(ember.zeros(0, dtype=ember.int64), 3).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="only applicable to index tensor of type LongTensor"):
        F.one_hot(ember.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(ember.tensor([0, -1]))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(ember.tensor([0, 3]), 3)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes"):
        F.one_hot(ember.zeros(0, dtype=ember.int64))


def test_gumbel_softmax():
    """Soft samples on the simplex; hard ones one-hot with the soft sample's gradient; the argmax
    follows softmax(logits) (the Gumbel-max trick)."""
    F = ember.nn.functional
    logits = ember.tensor([[0.5, -1.0, 2.0, 0.0]], dtype=ember.float64).requires_grad_()
    ember.manual_seed(0)
    y = F.gumbel_softmax(logits, tau=0.5)
    assert y.shape == (1, 4) and abs(y.sum().item() - 1) < 1e-12 and (y > 0).all()
    ember.manual_seed(0)
    h = F.gumbel_softmax(logits, tau=0.5, hard=True)
    assert sorted(h.detach().numpy().ravel().tolist()) == [0.0, 0.0, 0.0, 1.0]
    assert h.argmax().item() == y.argmax().item()
    w = ember.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=ember.float64)
    (gh,) = ember.autograd.grad((h * w).sum(), logits)
    (gy,) = ember.autograd.grad((y * w).sum(), logits)
    np.testing.assert_allclose(gh.numpy(), gy.numpy(), rtol=1e-12)  # straight through
    ember.manual_seed(1)
    many = F.gumbel_softmax(logits.detach().expand(40000, 4), tau=1.0, hard=True)
    freq = many.sum(0).numpy() / 40000
    p = np.exp([0.5, -1.0, 2.0, 0.0])
    np.testing.assert_allclose(freq, p / p.sum(), atol=0.01)
