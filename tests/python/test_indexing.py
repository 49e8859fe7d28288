"""Indexing semantics the generic op tests do not reach: x[idx] and x[idx] = v with PyTorch's
result shapes, determinism of scatter with repeated indices, errors; PyTorch side by side when
installed."""

import numpy as np
import pytest

import ember


def test_getitem_shapes_follow_pytorch():
    x = ember.zeros(3, 4, 5)
    assert x[0, :, [1, 2]].shape == (4, 2)  # the int selects first, as in PyTorch
    assert x[[0, 1], :, [1, 2]].shape == (2, 4)  # separated advanced indices go to the front
    assert x[:, [[0], [1]], [1, 2]].shape == (3, 2, 2)
    assert x[..., [1, 2]].shape == (3, 4, 2)
    assert x[None, [1, 2]].shape == (1, 2, 4, 5)
    assert x[x > 0].shape == (0,)
    assert x[ember.tensor([True, False, True])].shape == (2, 4, 5)
    assert x[1:, [0, 1]].shape == (2, 2, 5)


def test_getitem_values_and_gradient():
    a = ember.arange(12.0).reshape(3, 4)
    assert a[[2, 0], [1, -1]].tolist() == [9.0, 3.0]
    assert a[a > 8].tolist() == [9.0, 10.0, 11.0]
    assert a[np.array([1])].tolist() == [[4.0, 5.0, 6.0, 7.0]]
    w = a.clone().requires_grad_()
    w[[1, 0, 1], [2, 2, 2]].sum().backward()
    assert w.grad.tolist() == [[0, 0, 1, 0], [0, 0, 2, 0], [0, 0, 0, 0]]  # repeats accumulate


def test_setitem_forms():
    x = ember.arange(12.0).reshape(3, 4)
    x[[0, 2], [1, 3]] = ember.tensor([10.0, 20.0])
    assert x[0, 1].item() == 10 and x[2, 3].item() == 20
    x[x > 5] = 0
    assert x.tolist() == [[0, 0, 2, 3], [4, 5, 0, 0], [0, 0, 0, 0]]
    x[:, [0]] += 1
    assert x[:, 0].tolist() == [1, 5, 1]
    x[1, [1, 2]] = 7  # a number, cast to x's dtype
    assert x[1].tolist() == [5, 7, 7, 0]
    i = ember.zeros(3, dtype=ember.int64)
    i[[0, 2]] = ember.tensor([1.7, 2.2])  # values take self's dtype
    assert i.tolist() == [1, 0, 2]


def test_bare_none_and_range_index_as_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = ember.tensor(a)
    for idx in [None, (None,), range(2), (range(2), [0, 2]), (slice(None), range(1, 3))]:
        np.testing.assert_array_equal(x[idx].numpy(), a[idx], err_msg=repr(idx))
    y, b = x.clone(), a.copy()
    y[None] = 5.0
    b[None] = 5.0
    np.testing.assert_array_equal(y.numpy(), b)
    y[range(2), [0, 2]] = -1.0  # PyTorch's x_[range(n), y] = v
    b[range(2), [0, 2]] = -1.0
    np.testing.assert_array_equal(y.numpy(), b)
    t = ember.tensor(range(2, 8, 2))
    assert t.tolist() == [2, 4, 6] and t.dtype == ember.int64
    assert ember.tensor(range(3), dtype=ember.float32).tolist() == [0.0, 1.0, 2.0]
    assert ember.tensor(range(0)).shape == (0,)


def test_repeated_indices_are_deterministic():
    # The last write wins for copies; sums add in index order, so results have the same bits
    # whatever the thread count.
    x = ember.zeros(5)
    x[ember.tensor([0, 0, 1])] = ember.tensor([1.0, 2.0, 3.0])
    assert x.tolist() == [2.0, 3.0, 0.0, 0.0, 0.0]
    rng = np.random.default_rng(0)
    src = ember.from_numpy(rng.normal(size=(200_000,)).astype(np.float32))
    index = ember.from_numpy(rng.integers(0, 7, 200_000))
    results = []
    for threads in (1, 2):
        ember.set_num_threads(threads)
        results.append(ember.zeros(7).scatter_add(0, index, src).numpy())
        results.append(ember.zeros(7).index_add(0, index, src).numpy())
    ember.set_num_threads(1)
    assert results[0].tobytes() == results[2].tobytes()
    assert results[1].tobytes() == results[3].tobytes()
    np.testing.assert_allclose(
        results[0], np.bincount(index.numpy(), src.numpy().astype(np.float64)), rtol=1e-4
    )


def test_index_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(IndexError, match=r"\[index\] index 3 is out of bounds for dim 0"):
        x[ember.tensor([3])]
    with pytest.raises(IndexError, match="shape of the mask"):
        x[ember.tensor([True, False])]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, [0]]
    with pytest.raises(RuntimeError, match=r"\[gather\] expected an index tensor of dtype int64"):
        ember.gather(x, 0, ember.zeros(1, 4, dtype=ember.int32))
    with pytest.raises(IndexError, match=r"\[scatter_add\] index -1 is out of bounds"):
        ember.scatter_add(x, 1, ember.tensor([[-1]]), x)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.tensor([1]) // ember.tensor([0])


def test_scatter_reduce_include_self():
    x = ember.tensor([1.0, 10.0, 100.0])
    idx = ember.tensor([0, 0, 2])
    src = ember.tensor([2.0, 3.0, 4.0])
    assert x.scatter_reduce(0, idx, src, "sum").tolist() == [6.0, 10.0, 104.0]
    assert x.scatter_reduce(0, idx, src, "sum", include_self=False).tolist() == [5.0, 10.0, 4.0]
    assert x.scatter_reduce(0, idx, src, "mean").tolist() == [2.0, 10.0, 52.0]
    assert x.scatter_reduce(0, idx, src, "amax", include_self=False).tolist() == [3.0, 10.0, 4.0]
    assert x.scatter_reduce(0, idx, src, "prod").tolist() == [6.0, 10.0, 400.0]


def test_searchsorted_and_bucketize():
    seq = ember.tensor([1, 3, 5, 7])
    assert ember.searchsorted(seq, ember.tensor([3, 6, 9])).tolist() == [1, 3, 4]
    assert ember.searchsorted(seq, ember.tensor([3, 6, 9]), side="right").tolist() == [2, 3, 4]
    assert ember.searchsorted(seq, 5).item() == 2
    assert ember.bucketize(ember.tensor([0.5, 3.0]), ember.tensor([1.0, 3.0])).tolist() == [0, 1]
    assert ember.searchsorted(seq, ember.tensor([3]), out_int32=True).dtype == ember.int32
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        ember.searchsorted(seq, ember.tensor([3]), side="left", right=True)


def test_nonzero_forms():
    x = ember.tensor([[0, 1], [2, 0]])
    assert ember.nonzero(x).tolist() == [[0, 1], [1, 0]]
    rows, cols = ember.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert ember.argwhere(x).tolist() == [[0, 1], [1, 0]]


def test_indexing_matches_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4, 5, 6))
    i = rng.integers(0, 4, (2, 3))
    j = rng.integers(-5, 5, (3,))
    m = rng.random((4, 5)) < 0.4
    ea, ta = ember.from_numpy(a), torch.from_numpy(a)
    for key in [
        lambda e: (e(i), slice(None), e(j)),
        lambda e: (slice(1, None), e(j), slice(None, None, 2)),
        lambda e: (e(m),),
        lambda e: (Ellipsis, e(np.array([0, 5]))),
    ]:
        got = ea[key(ember.from_numpy)].numpy()
        want = ta[key(torch.from_numpy)].numpy()
        np.testing.assert_array_equal(got, want)


def test_a_list_of_slices_is_a_tuple_of_them():
    """NumPy's legacy rule, kept by PyTorch with a warning: a short list holding a slice, None,
    Ellipsis, a tensor or a sequence indexes as the tuple of its items; a list of ints stays one
    advanced index."""
    x = ember.arange(12).view(3, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        np.testing.assert_array_equal(x[[slice(None), 1]].numpy(), [1, 5, 9])
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        np.testing.assert_array_equal(x[[[0, 1], [1, 2]]].numpy(), [1, 6])
    np.testing.assert_array_equal(x[[0, 2]].numpy(), x.numpy()[[0, 2]])
    y = ember.zeros(3, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        y[[slice(0, 2), 3]] = 1.0
    np.testing.assert_array_equal(y.numpy()[:, 3], [1, 1, 0])
