"""Tensor printing follows PyTorch's format exactly (torch/_tensor_str.py), with ember. names.
The expected strings below were produced by PyTorch 2.15 for the same tensors."""

import pytest

import ember

CASES = [
    (
        lambda: ember.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]),
        "tensor([[0., 1., 2.],\n        [3., 4., 5.]])",
    ),
    (lambda: ember.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
    (lambda: ember.tensor([True, False]), "tensor([ True, False])"),
    (lambda: ember.tensor(15.0), "tensor(15.)"),
    (lambda: ember.tensor([1.0, 1234.5678]), "tensor([1.0000e+00, 1.2346e+03])"),
    (lambda: ember.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: ember.zeros(0), "tensor([])"),
    (lambda: ember.zeros(0, dtype=ember.int64), "tensor([], dtype=ember.int64)"),
    (lambda: ember.arange(6).view(2, 3), "tensor([[0, 1, 2],\n        [3, 4, 5]])"),
    (lambda: ember.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (
        lambda: ember.tensor([1.0, 2.0], dtype=ember.float64),
        "tensor([1., 2.], dtype=ember.float64)",
    ),
    (lambda: ember.tensor([1.0, 2.0], requires_grad=True), "tensor([1., 2.], requires_grad=True)"),
    (lambda: ember.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (
        lambda: ember.tensor([0.1, -2.5, float("nan"), float("inf"), -float("inf")]),
        "tensor([ 0.1000, -2.5000,     nan,     inf,    -inf])",
    ),
    (lambda: ember.tensor([-0.0]), "tensor([-0.])"),
    (lambda: ember.tensor([123456789.0, 1.0]), "tensor([1.2346e+08, 1.0000e+00])"),
    (
        lambda: ember.tensor([1, -20, 300], dtype=ember.int16),
        "tensor([  1, -20, 300], dtype=ember.int16)",
    ),
    (
        lambda: ember.tensor([1.5, 2.25], dtype=ember.float16),
        "tensor([1.5000, 2.2500], dtype=ember.float16)",
    ),
    (lambda: ember.tensor(True), "tensor(True)"),
    (
        lambda: ember.ones(2, 3, requires_grad=True) * 2,
        "tensor([[2., 2., 2.],\n        [2., 2., 2.]], grad_fn=<MulBackward0>)",
    ),
    (
        lambda: ember.tensor([3.0], dtype=ember.float64, requires_grad=True).sum(),
        "tensor(3., dtype=ember.float64, grad_fn=<SumBackward0>)",
    ),
    (
        lambda: ember.zeros(2, 0, 3, dtype=ember.float64),
        "tensor([], size=(2, 0, 3), dtype=ember.float64)",
    ),
    (lambda: ember.tensor([2.5e-3, 1.25e2, 7.0]), "tensor([2.5000e-03, 1.2500e+02, 7.0000e+00])"),
    (
        lambda: ember.linspace(0, 1, 25),
        "tensor([0.0000, 0.0417, 0.0833, 0.1250, 0.1667, 0.2083, 0.2500, 0.2917, 0.3333,\n"
        "        0.3750, 0.4167, 0.4583, 0.5000, 0.5417, 0.5833, 0.6250, 0.6667, 0.7083,\n"
        "        0.7500, 0.7917, 0.8333, 0.8750, 0.9167, 0.9583, 1.0000])",
    ),
    (
        lambda: ember.arange(2000.0).view(40, 50),
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n"
        "         4.9000e+01],\n"
        "        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n"
        "         9.9000e+01],\n"
        "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n"
        "         1.4900e+02],\n"
        "        ...,\n"
        "        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n"
        "         1.8990e+03],\n"
        "        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n"
        "         1.9490e+03],\n"
        "        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
        "         1.9990e+03]])",
    ),
]


@pytest.mark.parametrize("make,expected", CASES)
def test_repr_matches_pytorch(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_3d_blank_lines_between_matrices():
    t = ember.arange(8).view(2, 2, 2)
    assert repr(t) == "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"


def test_printoptions_precision_and_reset():
    ember.set_printoptions(precision=2)
    try:
        assert repr(ember.tensor([1.0 / 3])) == "tensor([0.33])"
    finally:
        ember.set_printoptions(profile="default")
    assert repr(ember.tensor([1.0 / 3])) == "tensor([0.3333])"


def test_dtype_device_size_reprs():
    assert repr(ember.float32) == "ember.float32"
    assert ember.float is ember.float32 and ember.long is ember.int64
    assert repr(ember.zeros(2, 3).shape) == "ember.Size([2, 3])"
    assert repr(ember.device("cpu")) == "device(type='cpu')"
    assert str(ember.zeros(1).device) == "cpu"


def test_same_output_as_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    for make, _ in CASES:
        t = make()
        ref = torch.from_numpy(
            t.detach().float().numpy() if t.dtype == ember.bfloat16 else t.detach().numpy()
        )
        if t.dtype == ember.bfloat16:
            ref = ref.to(torch.bfloat16)
        ref.requires_grad_(t.requires_grad and t.is_leaf)
        if t.is_leaf:
            assert repr(t) == repr(ref).replace("torch.", "ember.")
