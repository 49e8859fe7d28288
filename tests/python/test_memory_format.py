"""Memory formats: channels_last layouts, conversions, and elementwise ops keeping a layout."""

import numpy as np
import pytest

import ember


def _nhwc_strides(n, c, h, w):
    return (h * w * c, 1, w * c, c)


def _cl(shape=(2, 3, 4, 5), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a, ember.from_numpy(a).to(memory_format=ember.channels_last)


def test_to_channels_last_strides_values_and_flags():
    a, y = _cl()
    assert y.stride() == _nhwc_strides(2, 3, 4, 5)
    assert y.is_contiguous(memory_format=ember.channels_last)
    assert not y.is_contiguous()
    np.testing.assert_array_equal(y.numpy(), a)
    x = ember.from_numpy(a)
    assert x.to(memory_format=ember.contiguous_format) is x
    assert y.to(memory_format=ember.channels_last) is y
    assert y.contiguous().stride() == (60, 20, 5, 1)
    np.testing.assert_array_equal(y.contiguous().numpy(), a)


def test_channels_last_3d():
    a = np.arange(2 * 3 * 2 * 4 * 5, dtype=np.float64).reshape(2, 3, 2, 4, 5)
    y = ember.from_numpy(a).contiguous(memory_format=ember.channels_last_3d)
    assert y.stride() == (120, 1, 60, 15, 3)
    assert y.is_contiguous(memory_format=ember.channels_last_3d)
    np.testing.assert_array_equal(y.numpy(), a)


def test_wrong_rank_is_an_error():
    with pytest.raises(RuntimeError, match="channels_last needs a 4-d tensor, got 3 dims"):
        ember.zeros(2, 3, 4).contiguous(memory_format=ember.channels_last)
    assert not ember.zeros(2, 3, 4).is_contiguous(memory_format=ember.channels_last)


def test_size_one_dims_are_both_layouts():
    # N x C x 1 x 1: both layouts describe the same memory.
    y = ember.zeros(2, 3, 1, 1).to(memory_format=ember.channels_last)
    assert y.is_contiguous() and y.is_contiguous(memory_format=ember.channels_last)
    assert y._suggest_memory_format() == ember.channels_last
    assert ember.zeros(2, 3, 1, 1)._suggest_memory_format() == ember.contiguous_format


@pytest.mark.parametrize(
    "fn",
    [
        lambda y, b: y.relu(),
        lambda y, b: y.exp(),
        lambda y, b: y + b,
        lambda y, b: b * y,
        lambda y, b: y * y - 1.5,
        lambda y, b: ember.where(y > 0, y, b),
        lambda y, b: y.float(),
        lambda y, b: y.clone(),
        lambda y, b: y > 0,
    ],
)
def test_elementwise_ops_keep_channels_last(fn):
    a, y = _cl()
    bias = np.random.default_rng(1).standard_normal((1, 3, 1, 1))
    got = fn(y, ember.from_numpy(bias))
    want = fn(ember.from_numpy(a), ember.from_numpy(bias))
    assert got.is_contiguous(memory_format=ember.channels_last)
    assert want.is_contiguous()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_large_channels_last_through_vector_loops():
    # Big enough for the vectorised and multithreaded paths.
    a, y = _cl((4, 16, 33, 35))
    b = y * 2.0 + y.tanh()
    np.testing.assert_allclose(b.numpy(), a * 2.0 + np.tanh(a), rtol=1e-12)
    assert b.stride() == y.stride()


def test_like_factories_preserve_the_layout():
    _, y = _cl()
    for t in (ember.empty_like(y), ember.zeros_like(y), ember.ones_like(y), ember.full_like(y, 2)):
        assert t.stride() == y.stride()
    assert ember.zeros_like(y).sum().item() == 0
    assert ember.full_like(y, 2).sum().item() == 2 * y.numel()
    assert ember.zeros_like(y, memory_format=ember.contiguous_format).is_contiguous()
    e = ember.empty(2, 3, 4, 5, memory_format=ember.channels_last)
    assert e.stride() == _nhwc_strides(2, 3, 4, 5)


def test_clone_preserves_dense_layouts_as_pytorch():
    t = ember.arange(12.0).reshape(3, 4).t()
    assert t.clone().stride() == (1, 4)  # dense but permuted: kept
    assert t.contiguous().stride() == (3, 1)
    assert ember.tensor(t).stride() == (3, 1)
    s = ember.arange(24.0).reshape(4, 6)[:, ::2]  # not dense: contiguous copy
    assert s.clone().is_contiguous()


def test_reshape_of_channels_last_copies_in_row_major_order():
    a, y = _cl()
    np.testing.assert_array_equal(y.reshape(2, -1).numpy(), a.reshape(2, -1))
    np.testing.assert_array_equal(y.flatten(1).numpy(), a.reshape(2, -1))


def test_gradient_through_channels_last():
    a, y = _cl()
    y.requires_grad_(True)
    (y.relu() * 3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), 3.0 * (a > 0))


def test_repr():
    assert repr(ember.channels_last) == "ember.channels_last"
    assert str(ember.contiguous_format) == "ember.contiguous_format"


def test_same_strides_as_pytorch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    t = torch.from_numpy(a).to(memory_format=torch.channels_last)
    e = ember.from_numpy(a).to(memory_format=ember.channels_last)
    b = np.ones((1, 3, 1, 1))
    for ft, fe in [
        (t.relu(), e.relu()),
        (t + torch.from_numpy(b), e + ember.from_numpy(b)),
        (t.clone(), e.clone()),
        (torch.empty_like(t), ember.empty_like(e)),
        (t.float(), e.float()),
    ]:
        assert tuple(ft.stride()) == tuple(fe.stride())
