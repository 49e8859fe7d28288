"""In-place ops on views of tensors in the graph (Note [In-place ops on views]): the base's
history is rebased as PyTorch's CopySlices does. Gradients are checked against hand-derived
values and against finite differences, to second order."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck


def leaf(a):
    return ember.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def test_the_issue_examples_give_the_hand_derived_gradients():
    a = np.arange(12.0).reshape(3, 4) / 10
    x = leaf(a)
    y = x.clone()
    y[1] = ember.full((4,), 5.0, dtype=ember.float64)
    y[:, 0] = 3.0
    (y * y).sum().backward()
    want = 2 * a
    want[1] = 0
    want[:, 0] = 0
    np.testing.assert_allclose(x.grad.numpy(), want)

    x.grad = None
    y = x.clone()
    y[0].sub_(1)
    (y**2).sum().backward()
    want = 2 * a
    want[0] = 2 * (a[0] - 1)
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_an_inplace_op_that_reads_other_tensors_sends_them_their_gradient():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    x, w = leaf(a), leaf(b)
    y = x * 1
    y[1:].mul_(w)  # y = [a0, a1*b0, a2*b1]
    (y * ember.tensor([1.0, 10.0, 100.0], dtype=ember.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 10.0 * b[0], 100.0 * b[1]])
    np.testing.assert_allclose(w.grad.numpy(), [10.0 * a[1], 100.0 * a[2]])


PATTERNS = {
    "select_mul": lambda x: _apply(x, lambda y: y[0].mul_(x[1])),
    "column_exp": lambda x: _apply(x, lambda y: y[:, 2].exp_()),
    "block_add": lambda x: _apply(x, lambda y: y[1:, 1:3].add_(2 * x[:2, :2])),
    "transposed_view": lambda x: _apply(x, lambda y: y.t()[1].mul_(3.0)),
    "strided_slice_fill": lambda x: _apply(x, lambda y: y[:, ::2].fill_(1.5)),
    "view_of_view": lambda x: _apply(x, lambda y: y[1:][0, 1:].sin_()),
    "reshaped_view": lambda x: _apply(x, lambda y: y.view(12)[3:7].mul_(x.view(12)[:4])),
    "index_put_on_view": lambda x: _apply(
        x, lambda y: y[1].index_put_((ember.tensor([0, 2]),), x[0, :2] ** 2)
    ),
    "setitem_chain": lambda x: _apply(x, _setitem_chain),
}


def _apply(x, change):
    y = x.clone()
    change(y)
    return y * y


def _setitem_chain(y):
    y[0] = y[1].exp()
    y[2, 1:3] = y[0, :2].exp()


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_gradients_match_finite_differences(name):
    x = leaf(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
    assert gradcheck(PATTERNS[name], (x,))
    assert gradgradcheck(PATTERNS[name], (x,))


def test_a_tensor_that_did_not_require_grad_gets_a_history():
    w = leaf([1.0, 2.0])
    buf = ember.zeros(2, 3, dtype=ember.float64)
    buf[1, :2] = w * 3
    assert buf.requires_grad and not buf.is_leaf
    buf.sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    assert gradcheck(_into_zeros, (w,)) and gradgradcheck(_into_zeros, (w,))


def _into_zeros(w):
    buf = ember.zeros(2, 3, dtype=ember.float64)
    buf[1, :2] = w * 3
    buf[0, 1:] = w.exp()
    return buf


def test_the_changed_view_is_fresh_and_other_views_are_stale():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    y = x * 1
    before = y[2:]
    v = y[:2]
    v.mul_(2)
    # v itself was rebased: its history is its region of y's new value.
    (v * ember.tensor([1.0, 10.0], dtype=ember.float64)).sum().backward()
    assert x.grad.tolist() == [2.0, 20.0, 0.0, 0.0]
    with pytest.raises(NotImplementedError, match="history is stale"):
        before.sum()


def test_retain_grad_of_the_base_sees_the_gradient_of_its_new_value():
    x = leaf([1.0, 2.0])
    y = x * 1
    y.retain_grad()
    y[0].mul_(5)
    (y * ember.tensor([2.0, 3.0], dtype=ember.float64)).sum().backward()
    assert y.grad.tolist() == [2.0, 3.0]
    assert x.grad.tolist() == [10.0, 3.0]


def test_views_of_leaves_and_no_grad_views_are_still_refused():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="view of a leaf tensor that requires grad"):
        x[0].mul_(2)
    y = x * 2
    with ember.no_grad():
        v = y[:1]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v.add_(1)


def test_without_grad_mode_nothing_is_recorded():
    x = leaf([1.0, 2.0])
    y = x * 1
    with ember.no_grad():
        y[0] = 7.0
    assert y.tolist() == [7.0, 2.0] and y.grad_fn.name() == "MulBackward0"
