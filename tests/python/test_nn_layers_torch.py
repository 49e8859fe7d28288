"""Optional: ember's layers side by side with PyTorch's. For each layer, both libraries build it
from the same constructor call; PyTorch's state dict is copied into ember's (through NumPy), and
the reprs, the state-dict keys, the forward outputs (float32 tolerance) and the parameter
gradients are compared. Skipped when torch is not importable."""

import warnings
import zlib

import numpy as np
import pytest

import ember
import ember.nn as enn

torch = pytest.importorskip("torch")
tnn = torch.nn


def f32(*shape):
    return lambda rng: rng.standard_normal(shape).astype(np.float32)


def ints(high, *shape):
    return lambda rng: rng.integers(0, high, shape).astype(np.int64)


def pm1(*shape):
    return lambda rng: np.sign(rng.standard_normal(shape)).astype(np.float32)


def unit(*shape):
    return lambda rng: rng.uniform(0.05, 0.95, shape).astype(np.float32)


def const(values, dtype=np.int64):
    return lambda rng: np.asarray(values, dtype=dtype)


# (constructor expression with `nn` the library's nn, input makers, train mode)
CASES = [
    ("nn.Linear(5, 3)", [f32(4, 5)], True),
    ("nn.Bilinear(3, 4, 2)", [f32(5, 3), f32(5, 4)], True),
    ("nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2)", [f32(2, 4, 11)], True),
    ("nn.Conv2d(3, 4, (3, 2), padding='same', padding_mode='reflect')", [f32(2, 3, 6, 5)], True),
    ("nn.Conv2d(3, 4, 3, padding=1, padding_mode='circular', bias=False)", [f32(2, 3, 5, 5)], True),
    (
        "nn.Conv3d(2, 4, 2, stride=(1, 2, 1), padding=1, padding_mode='replicate')",
        [f32(1, 2, 4, 5, 4)],
        True,
    ),
    ("nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1)", [f32(2, 4, 6)], True),
    (
        "nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, dilation=2)",
        [f32(2, 4, 5, 4)],
        True,
    ),
    ("nn.ConvTranspose3d(2, 3, 2, stride=2)", [f32(1, 2, 3, 3, 2)], True),
    ("nn.MaxPool1d(3, 2, 1, ceil_mode=True)", [f32(2, 3, 10)], True),
    ("nn.MaxPool2d(3, 2, 1, dilation=1)", [f32(2, 3, 7, 6)], True),
    ("nn.MaxPool3d(2)", [f32(1, 2, 4, 4, 4)], True),
    ("nn.AvgPool1d(3, 2, 1, count_include_pad=False)", [f32(2, 3, 10)], True),
    ("nn.AvgPool2d(3, 2, 1, ceil_mode=True)", [f32(2, 3, 7, 6)], True),
    ("nn.AvgPool3d(2, divisor_override=3)", [f32(1, 2, 4, 4, 4)], True),
    ("nn.AdaptiveAvgPool1d(4)", [f32(2, 3, 10)], True),
    ("nn.AdaptiveAvgPool2d((3, None))", [f32(2, 3, 7, 6)], True),
    ("nn.AdaptiveAvgPool3d(2)", [f32(1, 2, 5, 4, 3)], True),
    ("nn.AdaptiveMaxPool1d(3)", [f32(2, 3, 10)], True),
    ("nn.AdaptiveMaxPool2d((2, 3))", [f32(2, 3, 7, 6)], True),
    ("nn.AdaptiveMaxPool3d((2, None, 3))", [f32(2, 3, 5, 4, 7)], True),
    ("nn.AdaptiveMaxPool3d(2, return_indices=True)", [f32(2, 5, 3, 4)], True),
    ("nn.LPPool1d(2, 3)", [f32(2, 3, 9)], True),
    ("nn.LPPool2d(3, 2)", [unit(2, 3, 4, 4)], True),
    ("nn.LPPool3d(2, (2, 1, 2), stride=1)", [f32(1, 2, 3, 3, 4)], True),
    ("nn.NLLLoss2d()", [f32(2, 3, 2, 2), ints(3, 2, 2, 2)], True),
    ("nn.BatchNorm1d(3)", [f32(8, 3)], True),
    ("nn.BatchNorm1d(3, momentum=None)", [f32(4, 3, 5)], True),
    ("nn.BatchNorm2d(3, affine=False)", [f32(4, 3, 2, 2)], True),
    ("nn.BatchNorm2d(3)", [f32(4, 3, 2, 2)], False),
    ("nn.BatchNorm3d(2, track_running_stats=False)", [f32(2, 2, 2, 2, 3)], False),
    ("nn.InstanceNorm1d(3, affine=True, track_running_stats=True)", [f32(2, 3, 6)], True),
    ("nn.InstanceNorm2d(3)", [f32(3, 4, 5)], True),
    ("nn.InstanceNorm3d(2, affine=True)", [f32(2, 2, 3, 3, 3)], True),
    ("nn.LayerNorm([4, 5])", [f32(2, 3, 4, 5)], True),
    ("nn.LayerNorm(5, elementwise_affine=False)", [f32(2, 5)], True),
    ("nn.GroupNorm(2, 6)", [f32(2, 6, 3, 2)], True),
    ("nn.RMSNorm(5)", [f32(2, 3, 5)], True),
    ("nn.LocalResponseNorm(3, alpha=0.1)", [f32(2, 5, 3, 3)], True),
    ("nn.Dropout(0.3)", [f32(4, 5)], False),
    ("nn.AlphaDropout(0.3)", [f32(4, 5)], False),
    ("nn.Embedding(10, 4, padding_idx=2)", [ints(10, 3, 5)], True),
    ("nn.Embedding(10, 4, max_norm=1.0)", [ints(10, 3, 5)], True),
    ("nn.EmbeddingBag(10, 4, mode='sum')", [ints(10, 3, 5)], True),
    (
        "nn.EmbeddingBag(10, 4, mode='max', include_last_offset=True)",
        [ints(10, 8), const([0, 3, 3, 8])],
        True,
    ),
    ("nn.ReLU()", [f32(3, 4)], True),
    ("nn.ReLU6()", [lambda r: 5 * f32(3, 4)(r)], True),
    ("nn.LeakyReLU(0.2)", [f32(3, 4)], True),
    ("nn.PReLU()", [f32(3, 4)], True),
    ("nn.PReLU(4, 0.1)", [f32(3, 4, 2)], True),
    ("nn.RReLU(0.1, 0.3)", [f32(3, 4)], False),
    ("nn.ELU(0.5)", [f32(3, 4)], True),
    ("nn.SELU()", [f32(3, 4)], True),
    ("nn.CELU(2.0)", [f32(3, 4)], True),
    ("nn.GELU()", [f32(3, 4)], True),
    ("nn.GELU('tanh')", [f32(3, 4)], True),
    ("nn.SiLU()", [f32(3, 4)], True),
    ("nn.Mish()", [f32(3, 4)], True),
    ("nn.Sigmoid()", [f32(3, 4)], True),
    ("nn.Tanh()", [f32(3, 4)], True),
    ("nn.Hardtanh(-0.5, 0.5)", [f32(3, 4)], True),
    ("nn.Hardsigmoid()", [lambda r: 4 * f32(3, 4)(r)], True),
    ("nn.Hardswish()", [lambda r: 4 * f32(3, 4)(r)], True),
    ("nn.Softplus(2, 1)", [f32(3, 4)], True),
    ("nn.Softsign()", [f32(3, 4)], True),
    ("nn.Softshrink(0.3)", [f32(3, 4)], True),
    ("nn.Hardshrink(0.3)", [f32(3, 4)], True),
    ("nn.Tanhshrink()", [f32(3, 4)], True),
    ("nn.Threshold(0.1, 2.0)", [f32(3, 4)], True),
    ("nn.LogSigmoid()", [f32(3, 4)], True),
    ("nn.Softmax(1)", [f32(3, 4)], True),
    ("nn.LogSoftmax(0)", [f32(3, 4)], True),
    ("nn.Softmin(1)", [f32(3, 4)], True),
    ("nn.Softmax2d()", [f32(2, 3, 2, 2)], True),
    ("nn.GLU(1)", [f32(3, 4)], True),
    ("nn.L1Loss()", [f32(3, 4), f32(3, 4)], True),
    ("nn.MSELoss(reduction='sum')", [f32(3, 4), f32(3, 4)], True),
    ("nn.CrossEntropyLoss(label_smoothing=0.2, ignore_index=1)", [f32(6, 4), ints(4, 6)], True),
    ("nn.NLLLoss(reduction='none')", [f32(6, 4), ints(4, 6)], True),
    ("nn.BCELoss()", [unit(3, 4), unit(3, 4)], True),
    ("nn.BCEWithLogitsLoss()", [f32(3, 4), unit(3, 4)], True),
    ("nn.HuberLoss(delta=0.5)", [f32(3, 4), f32(3, 4)], True),
    ("nn.SmoothL1Loss(beta=0.5)", [f32(3, 4), f32(3, 4)], True),
    ("nn.KLDivLoss(reduction='batchmean', log_target=True)", [f32(3, 4), f32(3, 4)], True),
    ("nn.PoissonNLLLoss()", [f32(3, 4), unit(3, 4)], True),
    ("nn.GaussianNLLLoss()", [f32(3, 4), f32(3, 4), unit(3, 4)], True),
    ("nn.MarginRankingLoss(0.1)", [f32(5), f32(5), pm1(5)], True),
    ("nn.HingeEmbeddingLoss()", [f32(5), pm1(5)], True),
    ("nn.SoftMarginLoss()", [f32(5), pm1(5)], True),
    ("nn.MultiLabelSoftMarginLoss()", [f32(3, 4), unit(3, 4)], True),
    (
        "nn.MultiLabelMarginLoss()",
        [f32(3, 4), const([[3, 0, -1, 1], [1, 2, 3, -1], [2, 2, 0, 0]])],
        True,
    ),
    ("nn.MultiLabelMarginLoss(reduction='none')", [f32(4), const([0, 3, -1, 2])], True),
    ("nn.MultiMarginLoss(p=2, margin=0.5)", [f32(6, 4), ints(4, 6)], True),
    ("nn.CosineEmbeddingLoss(0.2)", [f32(5, 3), f32(5, 3), pm1(5)], True),
    ("nn.TripletMarginLoss(swap=True)", [f32(5, 3), f32(5, 3), f32(5, 3)], True),
    ("nn.TripletMarginWithDistanceLoss(margin=2.0)", [f32(5, 3), f32(5, 3), f32(5, 3)], True),
    ("nn.Flatten(0, 1)", [f32(2, 3, 4)], True),
    ("nn.Unflatten(1, (2, 2))", [f32(3, 4)], True),
    ("nn.PixelShuffle(2)", [f32(1, 8, 2, 3)], True),
    ("nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))", [f32(2, 3, 5, 6)], True),
    ("nn.Fold((4, 5), 2)", [f32(2, 8, 12)], True),
    ("nn.PixelUnshuffle(2)", [f32(1, 2, 4, 6)], True),
    ("nn.ChannelShuffle(3)", [f32(2, 6, 2)], True),
    ("nn.Upsample(scale_factor=2, mode='bilinear')", [f32(1, 2, 3, 4)], True),
    ("nn.Upsample(size=(5, 7), mode='bicubic', align_corners=True)", [f32(1, 2, 3, 4)], True),
    ("nn.UpsamplingNearest2d(scale_factor=3)", [f32(1, 2, 3, 4)], True),
    ("nn.UpsamplingBilinear2d(size=5)", [f32(1, 2, 3, 4)], True),
    ("nn.ZeroPad2d((1, 2, 0, 1))", [f32(1, 2, 3, 4)], True),
    ("nn.ConstantPad3d(1, 2.5)", [f32(1, 2, 2, 3, 2)], True),
    ("nn.ReflectionPad1d((2, 1))", [f32(2, 3, 5)], True),
    ("nn.ReflectionPad3d(1)", [f32(1, 1, 3, 3, 3)], True),
    ("nn.ReplicationPad2d(2)", [f32(1, 2, 3, 4)], True),
    ("nn.CircularPad1d((1, 2))", [f32(2, 3, 5)], True),
    ("nn.CosineSimilarity(dim=0)", [f32(4, 3), f32(4, 3)], True),
    ("nn.PairwiseDistance(p=3.0, keepdim=True)", [f32(4, 3), f32(4, 3)], True),
]


def _to_numpy(out):
    if isinstance(out, (tuple, list)):
        return [_to_numpy(o) for o in out]
    return out.detach().cpu().numpy() if hasattr(out, "cpu") else out.detach().numpy()


@pytest.mark.parametrize("expr,makers,train", CASES, ids=[c[0] for c in CASES])
def test_layer_matches_pytorch(expr, makers, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # NLLLoss2d is deprecated in both
        tm = eval(expr, {"nn": tnn})
        em = eval(expr, {"nn": enn})
    assert repr(em) == repr(tm)
    assert list(em.state_dict().keys()) == list(tm.state_dict().keys())
    em.load_state_dict({k: ember.tensor(v.cpu().numpy()) for k, v in tm.state_dict().items()})
    tm.train(train)
    em.train(train)

    rng = np.random.default_rng(zlib.crc32(expr.encode()))
    arrays = [make(rng) for make in makers]
    targs = [torch.tensor(a) for a in arrays]
    eargs = [ember.tensor(a) for a in arrays]
    floats = [i for i, a in enumerate(arrays) if a.dtype == np.float32]
    if floats:  # gradients also flow to the first floating input
        targs[floats[0]].requires_grad_(True)
        eargs[floats[0]].requires_grad_(True)

    tout, eout = tm(*targs), em(*eargs)
    for a, b in zip(np.atleast_1d(_to_numpy(eout)), np.atleast_1d(_to_numpy(tout))):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    for k, v in tm.state_dict().items():  # running statistics after the step
        np.testing.assert_allclose(
            em.state_dict()[k].numpy(), v.cpu().numpy(), rtol=1e-5, atol=1e-6
        )

    if isinstance(tout, tuple):  # (values, indices): the gradient flows through the values
        tout, eout = tout[0], eout[0]
    if tout.requires_grad:
        g = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
        tout.backward(torch.tensor(g))
        eout.backward(ember.tensor(g))
        for (name, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
            if tp.grad is None:
                assert ep.grad is None, name
                continue
            np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5)
        if floats:
            i = floats[0]
            np.testing.assert_allclose(
                eargs[i].grad.numpy(), targs[i].grad.numpy(), rtol=1e-4, atol=1e-5
            )


def test_weighted_losses_match_pytorch():
    rng = np.random.default_rng(1)
    w = rng.uniform(0.5, 2, 4).astype(np.float32)
    x, y = rng.standard_normal((6, 4)).astype(np.float32), rng.integers(0, 4, 6)
    p = rng.uniform(0.1, 0.9, (6, 4)).astype(np.float32)
    for name, args, kwargs in [
        ("CrossEntropyLoss", (x, y), {}),
        ("NLLLoss", (x, y), {}),
        ("MultiMarginLoss", (x, y), {}),
        ("BCELoss", (p, p[::-1].copy()), {}),
        ("MultiLabelSoftMarginLoss", (x, p), {}),
        ("BCEWithLogitsLoss", (x, p), {"pos_weight": w}),
    ]:
        tw = {"weight": torch.tensor(w), **{k: torch.tensor(v) for k, v in kwargs.items()}}
        ew = {"weight": ember.tensor(w), **{k: ember.tensor(v) for k, v in kwargs.items()}}
        tl = getattr(tnn, name)(**tw)(*[torch.tensor(a) for a in args])
        el = getattr(enn, name)(**ew)(*[ember.tensor(a) for a in args])
        np.testing.assert_allclose(el.numpy(), tl.numpy(), rtol=1e-5, err_msg=name)


def test_functional_compositions_match_pytorch():
    """The F functions the layers added (no C++ op of their own), on cases the layers do not
    reach: broadcasting, 1-d inputs, training-free rrelu, functional defaults."""
    import torch.nn.functional as TF

    import ember.nn.functional as EF

    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((1, 3)).astype(np.float32)
    v = rng.standard_normal(5).astype(np.float32)
    w = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    cases = [
        ("cosine_similarity", (a, b), {}),
        ("cosine_similarity", (a, a[:1] * 0), {"dim": 1}),
        ("pairwise_distance", (a, b), {"p": 1.5}),
        ("pairwise_distance", (v, v[::-1].copy()), {}),
        ("prelu", (a, w), {}),
        ("prelu", (v, w[:1]), {}),
        ("rrelu", (a,), {}),
        ("glu", (a[:, :2],), {}),
        ("softshrink", (a,), {"lambd": 0.2}),
        ("hardshrink", (a,), {}),
        ("softmin", (a,), {"dim": 0}),
        ("channel_shuffle", (rng.standard_normal((2, 6, 3)).astype(np.float32), 2), {}),
        ("lp_pool1d", (np.abs(a)[None], 2.0, 3), {}),
        ("multilabel_soft_margin_loss", (a, (a > 0).astype(np.float32)), {"reduction": "sum"}),
    ]
    for name, args, kwargs in cases:
        ta = [torch.tensor(x) if isinstance(x, np.ndarray) else x for x in args]
        ea = [ember.tensor(x) if isinstance(x, np.ndarray) else x for x in args]
        expected = getattr(TF, name)(*ta, **kwargs).numpy()
        got = getattr(EF, name)(*ea, **kwargs).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_maxunpool_matches_pytorch(dims):
    shape = {1: (2, 3, 7), 2: (1, 2, 5, 6), 3: (1, 2, 4, 5, 4)}[dims]
    x = np.random.default_rng(dims).standard_normal(shape).astype(np.float32)
    tpool = getattr(tnn, f"MaxPool{dims}d")(2, stride=1, return_indices=True)
    y, idx = tpool(torch.tensor(x))
    args = (2,)
    kwargs = {"stride": 1}
    tun = getattr(tnn, f"MaxUnpool{dims}d")(*args, **kwargs)
    eun = getattr(enn, f"MaxUnpool{dims}d")(*args, **kwargs)
    assert repr(eun) == repr(tun)
    expected = tun(y, idx).numpy()
    got = eun(ember.tensor(y.numpy()), ember.tensor(idx.numpy())).numpy()
    np.testing.assert_array_equal(got, expected)


def _layer_names():
    import importlib

    topics = ["linear", "conv", "pooling", "batchnorm", "normalization", "instancenorm"]
    topics += ["dropout", "sparse", "activation", "loss", "flatten", "fold", "pixelshuffle"]
    topics += ["upsampling", "padding", "distance", "adaptive"]
    return [n for t in topics for n in importlib.import_module(f"ember.nn.modules.{t}").__all__]


@pytest.mark.parametrize("name", _layer_names())
def test_constructor_and_forward_signatures_are_pytorchs(name):
    """Same parameter names, kinds and defaults for __init__ and forward."""
    import inspect

    def sig(f):
        return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(f).parameters.values()]

    ours, theirs = getattr(enn, name), getattr(tnn, name)
    assert sig(ours.__init__) == sig(theirs.__init__)
    assert sig(ours.forward) == sig(theirs.forward)


@pytest.mark.parametrize(
    "expr,shape",
    [
        ("nn.LazyLinear(3)", (2, 5)),
        ("nn.LazyConv1d(4, 3, groups=2)", (2, 6, 7)),
        ("nn.LazyConv2d(4, 3, padding='same', padding_mode='reflect')", (3, 5, 6)),
        ("nn.LazyConv3d(2, 2, bias=False)", (1, 3, 3, 4, 3)),
        ("nn.LazyConvTranspose1d(4, 3, stride=2)", (2, 3, 5)),
        ("nn.LazyConvTranspose2d(2, 3, groups=2)", (1, 4, 3, 3)),
        ("nn.LazyConvTranspose3d(2, 2)", (1, 3, 2, 2, 2)),
        ("nn.LazyBatchNorm1d()", (6, 3)),
        ("nn.LazyBatchNorm2d(affine=False)", (4, 3, 2, 2)),
        ("nn.LazyBatchNorm3d(momentum=None)", (2, 2, 2, 2, 3)),
        ("nn.LazyInstanceNorm1d()", (2, 3, 6)),
        ("nn.LazyInstanceNorm2d(momentum=0.2)", (2, 3, 4, 5)),
        ("nn.LazyInstanceNorm3d()", (2, 2, 3, 3, 3)),
    ],
)
def test_lazy_layer_matches_pytorch(expr, shape):
    tm, em = eval(expr, {"nn": tnn}), eval(expr, {"nn": enn})
    assert repr(em) == repr(tm)
    x = np.random.default_rng(zlib.crc32(expr.encode())).standard_normal(shape).astype(np.float32)
    tm(torch.tensor(x))
    em(ember.tensor(x))
    assert type(em).__name__ == type(tm).__name__ and repr(em) == repr(tm)
    assert list(em.state_dict().keys()) == list(tm.state_dict().keys())
    for (name, tp), (_, ep) in zip(tm.state_dict().items(), em.state_dict().items()):
        assert tuple(ep.shape) == tuple(tp.shape), name
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    np.testing.assert_allclose(
        em(ember.tensor(x)).detach().numpy(),
        tm(torch.tensor(x)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


@pytest.mark.parametrize("flat", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_matches_pytorch(flat, reduction):
    rng = np.random.default_rng(3)
    steps, batch, classes = 12, 4, 5
    x = rng.standard_normal((steps, batch, classes)).astype(np.float32)
    tgt_len, in_len = np.array([4, 2, 0, 3]), np.array([12, 9, 5, 12])
    targets = rng.integers(1, classes, (batch, 4))
    targets[3, :3] = [2, 2, 3]  # a repeated label needs a blank between
    if flat:
        targets = np.concatenate([targets[n, : tgt_len[n]] for n in range(batch)])
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    tl = tnn.CTCLoss(reduction=reduction)(
        tx.log_softmax(2), torch.tensor(targets), torch.tensor(in_len), torch.tensor(tgt_len)
    )
    el = enn.CTCLoss(reduction=reduction)(
        ex.log_softmax(2), ember.tensor(targets), ember.tensor(in_len), ember.tensor(tgt_len)
    )
    np.testing.assert_allclose(el.detach().numpy(), tl.detach().numpy(), rtol=1e-5)
    tl.sum().backward()
    el.sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_adaptive_log_softmax_matches_pytorch():
    args = (8, 10, [3, 6])
    tm = tnn.AdaptiveLogSoftmaxWithLoss(*args, div_value=2.0, head_bias=True)
    em = enn.AdaptiveLogSoftmaxWithLoss(*args, div_value=2.0, head_bias=True)
    assert repr(em) == repr(tm)
    assert list(em.state_dict().keys()) == list(tm.state_dict().keys())
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 8)).astype(np.float32)
    y = np.array([0, 9, 4, 2, 6, 7, 3])
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    tout, eout = tm(tx, torch.tensor(y)), em(ex, ember.tensor(y))
    np.testing.assert_allclose(
        eout.output.detach().numpy(), tout.output.detach().numpy(), rtol=1e-5
    )
    np.testing.assert_allclose(eout.loss.item(), tout.loss.item(), rtol=1e-5)
    tout.loss.backward()
    eout.loss.backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    for (name, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
        np.testing.assert_allclose(
            ep.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name
        )
    np.testing.assert_allclose(
        em.log_prob(ex).detach().numpy(), tm.log_prob(tx).detach().numpy(), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_array_equal(em.predict(ex).numpy(), tm.predict(tx).numpy())
    single = em(ex[0], ember.tensor(y[0]))
    np.testing.assert_allclose(single.output.item(), tout.output[0].item(), rtol=1e-5)


def test_small_cnn_trains_like_pytorch():
    """Same CNN, same weights, same batches, plain SGD by hand: the losses and the final
    weights follow PyTorch's over 5 steps (BatchNorm running stats included)."""

    def build(nn):
        return nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 6, 3, groups=2, padding="same", padding_mode="reflect"),
            nn.GELU(),
            nn.AdaptiveAvgPool2d((2, 2)),
            nn.Flatten(),
            nn.Dropout(0.0),
            nn.Linear(24, 10),
            nn.LayerNorm(10),
        )

    tm, em = build(tnn), build(enn)
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(7)
    loss_t, loss_e = (
        tnn.CrossEntropyLoss(label_smoothing=0.1),
        enn.CrossEntropyLoss(label_smoothing=0.1),
    )
    for _ in range(5):
        x = rng.standard_normal((8, 1, 8, 8)).astype(np.float32)
        y = rng.integers(0, 10, 8)
        lt = loss_t(tm(torch.tensor(x)), torch.tensor(y))
        le = loss_e(em(ember.tensor(x)), ember.tensor(y))
        np.testing.assert_allclose(le.item(), lt.item(), rtol=1e-4)
        lt.backward()
        le.backward()
        with torch.no_grad():
            for p in tm.parameters():
                p -= 0.1 * p.grad
                p.grad = None
        with ember.no_grad():
            for p in em.parameters():
                p -= 0.1 * p.grad
                p.grad = None
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(
            em.state_dict()[k].numpy(), v.numpy(), rtol=1e-3, atol=1e-5, err_msg=k
        )


def test_weight_normed_state_dicts_load_across_ember_and_torch():
    import ember.nn.utils.parametrizations as ep

    for make_e, make_t in [
        (lambda m: ep.weight_norm(m), lambda m: torch.nn.utils.parametrizations.weight_norm(m)),
        (lambda m: ember.nn.utils.weight_norm(m), lambda m: torch.nn.utils.weight_norm(m)),
    ]:
        tm = make_t(torch.nn.Linear(4, 3))
        em = make_e(ember.nn.Linear(4, 3))
        state = {k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
        assert list(em.state_dict()) == list(state)
        em.load_state_dict(state)
        x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
        np.testing.assert_allclose(
            em(ember.tensor(x)).detach().numpy(),
            tm(torch.tensor(x)).detach().numpy(),
            rtol=1e-5,
            atol=1e-6,
        )
