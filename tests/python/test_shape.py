"""Shape ops: what the generic op-table tests cannot see (views, promotion, aliases, messages)."""

import numpy as np
import pytest

import ember
import ember.nn.functional as F


def test_diagonal_is_a_view_sharing_storage():
    x = ember.arange(12.0).reshape(3, 4).clone()
    d = x.diagonal(1)
    assert d._is_view()
    assert d.data_ptr() == x.data_ptr() + 1 * x.element_size()
    assert d.stride() == (5,)
    d.mul_(0)  # writes through to x
    np.testing.assert_array_equal(x.numpy()[[0, 1, 2], [1, 2, 3]], [0, 0, 0])
    assert x[0, 0].item() == 0 and x[1, 1].item() == 5


def test_diagonal_backward_writes_the_diagonal_only():
    x = ember.ones(2, 3, dtype=ember.float64, requires_grad=True)
    (x.diagonal(-1, 0, 1) * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0], [3, 0, 0]])


def test_cat_promotes_dtypes_as_pytorch():
    a = ember.tensor([1, 2], dtype=ember.int32)
    b = ember.tensor([0.5], dtype=ember.float16)
    c = ember.tensor([True])
    out = ember.cat([a, b, c])
    assert out.dtype == ember.float16
    np.testing.assert_array_equal(out.float().numpy(), [1, 2, 0.5, 1])
    assert ember.cat([a, c]).dtype == ember.int32
    assert ember.cat([a, ember.tensor([3])]).dtype == ember.int64


def test_cat_gradient_goes_back_in_each_inputs_dtype():
    a = ember.ones(2, dtype=ember.float32, requires_grad=True)
    b = ember.ones(3, dtype=ember.float64, requires_grad=True)
    out = ember.cat([a, b])
    assert out.dtype == ember.float64
    (out * ember.arange(5.0, dtype=ember.float64)).sum().backward()
    assert a.grad.dtype == ember.float32 and b.grad.dtype == ember.float64
    np.testing.assert_array_equal(a.grad.numpy(), [0, 1])
    np.testing.assert_array_equal(b.grad.numpy(), [2, 3, 4])


def test_cat_aliases_and_non_contiguous_pieces():
    x = ember.arange(6.0).reshape(2, 3)
    y = ember.arange(6.0, 12.0).reshape(3, 2).t()
    want = np.concatenate([x.numpy(), y.numpy()], axis=1)
    np.testing.assert_array_equal(ember.cat((x, y), dim=1).numpy(), want)
    np.testing.assert_array_equal(ember.concat([x, y], dim=1).numpy(), want)
    np.testing.assert_array_equal(ember.concatenate([x, y], axis=1).numpy(), want)


def test_split_results_are_tuples_of_views():
    x = ember.arange(5.0)
    parts = x.split(2)
    assert isinstance(parts, tuple) and [p.shape[0] for p in parts] == [2, 2, 1]
    assert all(p._is_view() for p in parts)
    assert parts[1].data_ptr() == x.data_ptr() + 2 * x.element_size()
    assert isinstance(ember.chunk(x, 2), tuple)
    assert isinstance(x.unbind(), tuple) and len(x.unbind()) == 5


def test_moveaxis_alias_and_tensor_methods():
    x = ember.zeros(2, 3, 4)
    assert ember.moveaxis(x, 0, -1).shape == (3, 4, 2)
    assert x.movedim((0, 1), (1, 0)).shape == (3, 2, 4)
    assert x.flip(0, 1).shape == (2, 3, 4)
    assert x.repeat((1, 2, 1)).shape == (2, 6, 4)
    assert x.tile(2).shape == (2, 3, 8)


def test_repeat_interleave_of_repeats_alone():
    out = ember.repeat_interleave(ember.tensor([2, 0, 1]))
    np.testing.assert_array_equal(out.numpy(), [0, 0, 2])


def test_repeat_and_roll_return_copies():
    x = ember.arange(4.0)
    for y in (x.repeat(1), x.roll(0), ember.flip(x, ()), F.pad(x, (0, 0))):
        assert y.data_ptr() != x.data_ptr()


def test_tril_triu_in_place():
    x = ember.ones(3, 3)
    assert x.tril_(-1) is x
    np.testing.assert_array_equal(x.numpy(), np.tril(np.ones((3, 3)), -1))
    y = ember.ones(2, 3)
    y.triu_()
    np.testing.assert_array_equal(y.numpy(), np.triu(np.ones((2, 3))))


def test_pad_modes_values():
    x = ember.tensor([[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(F.pad(x, (2, 1), mode="reflect").numpy(), [[3, 2, 1, 2, 3, 2]])
    np.testing.assert_array_equal(F.pad(x, (2, 1), mode="replicate").numpy(), [[1, 1, 1, 2, 3, 3]])
    np.testing.assert_array_equal(F.pad(x, (2, 1), mode="circular").numpy(), [[2, 3, 1, 2, 3, 1]])
    np.testing.assert_array_equal(F.pad(x, (1, -1), value=7).numpy(), [[7, 1, 2]])
    np.testing.assert_array_equal(F.pad(x, (0, 0, 1, 0)).numpy(), [[0, 0, 0], [1, 2, 3]])
    assert F.pad(ember.ones(2, dtype=ember.int32), (1, 0)).dtype == ember.int32


def test_pad_gradients():
    x = ember.arange(1.0, 4.0, dtype=ember.float64).reshape(1, 3).requires_grad_()
    F.pad(x, (2, 1), mode="reflect").sum().backward()
    # Output [3, 2, 1, 2, 3, 2]: x0 once, x1 three times, x2 twice.
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 3, 2]])


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: F.pad(ember.ones(2, 3), (1, 2, 3)), RuntimeError, "[pad] Padding length must be"),
        (lambda: F.pad(ember.ones(3), (1,) * 4), RuntimeError, "padding length 4 and input of"),
        (
            lambda: F.pad(ember.ones(1, 3), (3, 0), mode="reflect"),
            RuntimeError,
            "padding (3, 0) at dimension 1 of input [1, 3]",
        ),
        (lambda: F.pad(ember.ones(1, 3), (1, 1), mode="bogus"), NotImplementedError, "bogus"),
        (
            lambda: F.pad(ember.ones(2, 2, 2, 2, 2, 2), (1, 1), mode="reflect"),
            NotImplementedError,
            "non-constant padding",
        ),
        (
            lambda: F.pad(ember.ones(1, 3), (1, 1), mode="circular", value=1.0),
            RuntimeError,
            'mode "circular" doesn\'t take in value',
        ),
    ],
)
def test_pad_errors(call, exc, match):
    with pytest.raises(exc) as info:
        call()
    assert match in str(info.value)


def test_cat_rejects_a_tensor_in_place_of_a_list():
    with pytest.raises(TypeError, match="tuple of Tensors"):
        ember.cat(ember.ones(2, 2))
    with pytest.raises(TypeError, match="tuple of Tensors"):
        ember.stack([ember.ones(2), [1.0, 2.0]])


def test_meshgrid_accepts_a_list_and_default_ij():
    a, b = ember.tensor([1, 2, 3]), ember.tensor([4, 5])
    x, y = ember.meshgrid([a, b])
    assert x.shape == (3, 2) and y.shape == (3, 2)
    x, y = ember.meshgrid(a, b, indexing="xy")
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(y.numpy(), [[4, 4, 4], [5, 5, 5]])
