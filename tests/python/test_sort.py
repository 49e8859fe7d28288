"""Sorting, selection and scans beyond the op table: stability, NaN placement, independence from
the thread count, cumprod's gradient with zeros, large k, unique's inverse and counts, and
PyTorch's results where it is installed."""

import numpy as np
import pytest
from conftest import rng_for

import ember

NAN = float("nan")


def t64(a):
    return ember.from_numpy(np.ascontiguousarray(np.asarray(a, dtype=np.float64))).clone()


# ---- order -----------------------------------------------------------------------------------


@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_keeps_the_order_of_ties(descending):
    rng = rng_for("stable" + str(descending))
    a = rng.integers(0, 4, size=(5, 200))
    values, indices = ember.sort(ember.from_numpy(a), dim=1, descending=descending, stable=True)
    key = -a if descending else a
    want = np.argsort(key, axis=1, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), want)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, want, 1))
    # Without stable=True the result is the same: every sort is stable.
    again = ember.sort(ember.from_numpy(a), dim=1, descending=descending)
    np.testing.assert_array_equal(again.indices.numpy(), want)
    np.testing.assert_array_equal(
        ember.argsort(ember.from_numpy(a), dim=1, descending=descending, stable=True).numpy(),
        want,
    )


def test_nan_sorts_last_ascending_and_first_descending():
    x = ember.tensor([1.0, NAN, -float("inf"), 0.0, NAN, float("inf")])
    v, i = ember.sort(x)
    assert i.tolist() == [2, 3, 0, 5, 1, 4]
    assert np.isnan(v.numpy()[-2:]).all()
    v, i = x.sort(descending=True)
    assert i.tolist() == [1, 4, 5, 0, 3, 2]
    assert np.isnan(v.numpy()[:2]).all()
    # topk takes NaN as the largest value, kthvalue as the last of the order.
    assert ember.topk(x, 2).indices.tolist() == [1, 4]
    assert ember.topk(x, 2, largest=False).indices.tolist() == [2, 3]
    assert ember.kthvalue(x, 5).indices.item() == 1
    # median propagates NaN (the first NaN's index); nanmedian skips it.
    assert np.isnan(ember.median(x).item())
    assert ember.median(x, 0).indices.item() == 1
    assert ember.nanmedian(x).item() == 0.0
    assert ember.nanmedian(x, 0).indices.item() == 3
    allnan = ember.tensor([[NAN, NAN]])
    assert np.isnan(ember.nanmedian(allnan, 1).values.item())
    assert ember.nanmedian(allnan, 1).indices.item() == 0


def test_cummax_cummin_take_the_last_tie_and_the_latest_nan():
    x = ember.tensor([1.0, 3.0, 3.0, 2.0, 3.0, NAN, 5.0, NAN])
    v, i = ember.cummax(x, 0)
    assert i.tolist() == [0, 1, 2, 2, 4, 5, 5, 7]  # the latest NaN, as PyTorch
    assert v.tolist()[:5] == [1.0, 3.0, 3.0, 3.0, 3.0] and np.isnan(v.numpy()[5:]).all()
    v, i = ember.cummin(ember.tensor([2, 1, 1, 3, 1]), 0)
    assert v.tolist() == [2, 1, 1, 1, 1] and i.tolist() == [0, 1, 2, 2, 4]


def test_results_are_named_tuples():
    x = ember.tensor([[3.0, 1.0, 2.0]])
    for name, res in [
        ("sort", ember.sort(x)),
        ("topk", x.topk(2)),
        ("kthvalue", x.kthvalue(1)),
        ("median", x.median(1)),
        ("nanmedian", x.nanmedian(1)),
        ("cummax", x.cummax(1)),
        ("cummin", ember.cummin(x, 1)),
    ]:
        assert type(res).__name__ == name
        values, indices = res
        assert values is not None and res.indices.dtype == ember.int64
        assert res.values.shape == values.shape


# ---- large k, unique --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 999, 1000, 1001])
def test_topk_large_k(k):
    rng = rng_for("topk" + str(k))
    a = rng.standard_normal((3, 1001))
    v, i = ember.topk(t64(a), k)
    want = np.argsort(-a, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(i.numpy(), want)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, want, 1))
    # sorted=False picks the same elements, in some order.
    v2, i2 = ember.topk(t64(a), k, sorted=False)
    np.testing.assert_array_equal(np.sort(i2.numpy(), 1), np.sort(want, 1))
    np.testing.assert_array_equal(np.take_along_axis(a, i2.numpy(), 1), v2.numpy())


def test_unique_inverse_and_counts():
    rng = rng_for("unique")
    a = rng.integers(-5, 6, size=(7, 9))
    out, inverse, counts = ember.unique(
        ember.from_numpy(a), return_inverse=True, return_counts=True
    )
    u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), u)
    assert tuple(inverse.shape) == a.shape
    np.testing.assert_array_equal(out.numpy()[inverse.numpy()], a)
    np.testing.assert_array_equal(counts.numpy(), cnt)
    assert int(counts.sum()) == a.size
    # As method, with one of the two.
    out2, counts2 = ember.from_numpy(a).unique(return_counts=True)
    np.testing.assert_array_equal(counts2.numpy(), cnt)
    assert isinstance(ember.unique(ember.from_numpy(a)), ember.Tensor)
    with pytest.raises(NotImplementedError, match="dim"):
        ember.unique(ember.from_numpy(a), dim=0)


def test_unique_consecutive():
    x = ember.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    out, inverse, counts = ember.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert out.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert counts.tolist() == [2, 2, 1, 2, 1]


# ---- scans ------------------------------------------------------------------------------------


def test_integer_scans_accumulate_in_int64():
    x = ember.tensor([100, 100, 100], dtype=ember.int8)
    assert x.cumsum(0).dtype == ember.int64 and x.cumsum(0).tolist() == [100, 200, 300]
    assert ember.cumprod(x, 0).tolist() == [100, 10000, 1000000]
    assert ember.tensor([True, True]).cumsum(0).dtype == ember.int64
    assert x.cumsum(0, dtype=ember.float32).dtype == ember.float32


@pytest.mark.parametrize(
    "zeros", [[1], [0], [4], [1, 3], [0, 4], [2, 3], [1, 2, 4]], ids=lambda z: f"zeros{z}"
)
def test_cumprod_gradient_with_zeros(zeros):
    rng = rng_for("cumprod" + str(zeros))
    a = rng.uniform(0.5, 1.5, size=(2, 5))
    a[0, zeros] = 0
    a[1, zeros[:1]] = 0
    x = t64(a).requires_grad_()
    for dim, xx in [(1, x), (0, x.t())]:

        def fn(t, dim=dim):
            return ember.cumprod(t, dim)

        assert ember.autograd.gradcheck(fn, (xx.detach().requires_grad_(),))
        assert ember.autograd.gradgradcheck(fn, (xx.detach().requires_grad_(),))
    # The exact gradient: d/dx_k sum_j g_j prod_{i<=j} x_i, by brute force.
    g = rng.standard_normal((2, 5))
    (grad,) = ember.autograd.grad(ember.cumprod(x, 1), x, t64(g))
    want = np.zeros_like(a)
    for r in range(2):
        for k in range(5):
            for j in range(k, 5):
                want[r, k] += g[r, j] * np.prod(np.delete(a[r, : j + 1], k))
    np.testing.assert_allclose(grad.numpy(), want, rtol=1e-12, atol=1e-12)


def test_scan_gradients():
    rng = rng_for("scans")
    x = t64(rng.standard_normal((3, 6))).requires_grad_()
    for fn in [
        lambda t: ember.cumsum(t, 1),
        lambda t: ember.logcumsumexp(t, 0),
        lambda t: ember.cummax(t, 1).values,
        lambda t: ember.cummin(t, 0).values,
    ]:
        assert ember.autograd.gradcheck(fn, (x,))
        assert ember.autograd.gradgradcheck(fn, (x,))


# ---- thread count ------------------------------------------------------------------------------


def test_results_do_not_depend_on_the_thread_count():
    rng = rng_for("threads")
    a = np.round(rng.standard_normal((64, 3000)), 1)  # many ties
    a[::7, ::13] = np.nan
    x = ember.from_numpy(a.astype(np.float32))
    ops = [
        lambda: ember.sort(x, 1),
        lambda: ember.sort(x, 0, descending=True),
        lambda: ember.topk(x, 100),
        lambda: ember.kthvalue(x, 1500),
        lambda: ember.median(x, 1),
        lambda: ember.nanmedian(x, 0),
        lambda: (ember.cumsum(x, 1),),
        lambda: (ember.cumprod(x, 0),),
        lambda: (ember.logcumsumexp(x, 1),),
        lambda: ember.cummax(x, 1),
        lambda: ember.unique(x, return_inverse=True, return_counts=True),
    ]
    before = ember.get_num_threads()
    try:
        results = {}
        for n in (1, 2):
            ember.set_num_threads(n)
            results[n] = [[t.numpy().copy() for t in op()] for op in ops]
    finally:
        ember.set_num_threads(before)
    for one, two in zip(results[1], results[2]):
        for p, q in zip(one, two):
            np.testing.assert_array_equal(p, q)


# ---- against PyTorch ------------------------------------------------------------------------


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = rng_for("torch")
    a = np.round(rng.standard_normal((4, 50)), 1)
    a[1, ::5] = np.nan
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    for desc in (False, True):
        ev, ei = ember.sort(e, dim=1, descending=desc, stable=True)
        tv, ti = torch.sort(t, dim=1, descending=desc, stable=True)
        np.testing.assert_array_equal(ei.numpy(), ti.numpy())
        np.testing.assert_array_equal(ev.numpy(), tv.numpy())
    for fn in ("cummax", "cummin"):
        ev, ei = getattr(ember, fn)(e, 1)
        tv, ti = getattr(torch, fn)(t, 1)
        np.testing.assert_array_equal(ei.numpy(), ti.numpy())
        np.testing.assert_array_equal(ev.numpy(), tv.numpy())
    np.testing.assert_array_equal(ember.median(e, 1).values.numpy(), torch.median(t, 1).values)
    np.testing.assert_array_equal(
        ember.nanmedian(e, 1).values.numpy(), torch.nanmedian(t, 1).values
    )
    np.testing.assert_allclose(
        ember.logcumsumexp(e, 1).numpy(), torch.logcumsumexp(t, 1).numpy(), rtol=1e-12
    )
    ints = rng.integers(0, 5, size=(3, 7))
    eu = ember.unique(ember.from_numpy(ints), return_inverse=True, return_counts=True)
    tu = torch.unique(torch.from_numpy(ints), return_inverse=True, return_counts=True)
    for p, q in zip(eu, tu):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    x = a.copy()
    x[0, [3, 9]] = 0
    g = rng.standard_normal(x.shape)
    ex = t64(x).requires_grad_()
    tx = torch.from_numpy(x).requires_grad_()
    (eg,) = ember.autograd.grad(ember.cumprod(ex, 1), ex, t64(g))
    (tg,) = torch.autograd.grad(torch.cumprod(tx, 1), tx, torch.from_numpy(g))
    np.testing.assert_allclose(eg.numpy(), tg.numpy(), rtol=1e-10, equal_nan=True)
