"""Autograd from Python: backward, grad, higher order, hooks, grad mode, custom functions, and
the errors PyTorch users know."""

import pytest

import ember
from ember.autograd import Function, GradcheckError, gradcheck, gradgradcheck


def leaf(values, dtype=ember.float64):
    return ember.tensor(values, dtype=dtype, requires_grad=True)


def test_backward_accumulates_into_leaves():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0, 9.0]  # accumulated
    assert x.is_leaf and not y.is_leaf and y.grad_fn.name() == "SumBackward0"


def test_backward_with_gradient_argument():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.backward(ember.tensor([1.0, 10.0], dtype=ember.float64))
    assert x.grad.tolist() == [2.0, 20.0]
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="mismatch in shape"):
        (x * 2).backward(ember.ones(3, dtype=ember.float64))


def test_broadcast_gradients_are_summed_to_input_shape():
    a = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = leaf([10.0, 20.0, 30.0])
    (a * b).sum().backward()
    assert b.grad.tolist() == [5.0, 7.0, 9.0]
    assert a.grad.tolist() == [[10.0, 20.0, 30.0]] * 2


def test_mixed_dtype_gradient_keeps_input_dtype():
    a = ember.ones(2, dtype=ember.float32, requires_grad=True)
    b = ember.ones(2, dtype=ember.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == ember.float32 and b.grad.dtype == ember.float64


def test_second_backward_needs_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_create_graph_gives_second_derivatives():
    x = leaf([1.0, 2.0, 3.0])
    y = (x**3).sum()
    (g,) = ember.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0]
    (g2,) = ember.autograd.grad(g.sum(), x)
    assert g2.tolist() == [6.0, 12.0, 18.0]  # d2/dx2 x^3 = 6x


def test_grad_leaves_dot_grad_untouched_and_checks_unused():
    x = leaf([1.0, 2.0])
    z = leaf([5.0])
    y = (x * x).sum()
    (gx,) = ember.autograd.grad(y, [x], retain_graph=True)
    assert gx.tolist() == [2.0, 4.0] and x.grad is None
    with pytest.raises(RuntimeError, match="not have been used"):
        ember.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = ember.autograd.grad(y, [x, z], allow_unused=True)
    assert gz is None


def test_grad_of_intermediate_tensor():
    x = leaf([1.0, 2.0])
    h = x * 3
    y = (h * h).sum()
    (gh,) = ember.autograd.grad(y, h)
    assert gh.tolist() == [6.0, 12.0]


def test_backward_inputs_restricts_accumulation():
    a, b = leaf([1.0]), leaf([2.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [2.0] and b.grad is None


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        x.add_(1)
    with ember.no_grad():
        x.add_(1)  # what optimizers do
    assert x.tolist() == [2.0, 3.0]


def test_modified_saved_tensor_raises_with_clear_message():
    x = leaf([1.0, 2.0])
    h = x * 2
    y = h.exp()  # saves its output
    z = (h * h).sum()  # saves h
    h.mul_(3)
    with pytest.raises(
        RuntimeError, match=r"modified by an in-place operation.*version 1; expected version 0"
    ):
        z.backward()
    del y


def test_inplace_ops_on_non_leaf_are_differentiable():
    x = leaf([1.0, 2.0])
    h = x * 1
    h.mul_(x)  # h = x^2
    h.add_(x, alpha=2)  # h = x^2 + 2x
    h.sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]
    assert h.grad_fn.name() == "AddBackward0"


def test_retain_grad_and_hooks():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    seen = []
    handle = h.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    x.register_hook(lambda g: seen.append(("x", g.tolist())))
    (h * h).sum().backward()
    assert h.grad.tolist() == [40.0, 80.0]  # the retained grad is the one after hooks, as PyTorch
    assert seen == [[4.0, 8.0], ("x", [80.0, 160.0])]
    assert x.grad.tolist() == [80.0, 160.0]
    handle.remove()
    x.grad = None
    (x * 2 * 1).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_hooks_run_in_reverse_order_of_creation():
    x = leaf([1.0])
    order = []
    a = x * 2
    b = a * 3
    c = b * 4
    for name, t in (("a", a), ("b", b), ("c", c)):
        t.register_hook(lambda g, name=name: order.append(name))
    c.sum().backward()
    assert order == ["c", "b", "a"]


def test_no_grad_enable_grad_set_grad_enabled():
    x = leaf([1.0])
    with ember.no_grad():
        y = x * 2
        with ember.enable_grad():
            z = x * 2
    assert not y.requires_grad and z.requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f():
        return x * 2

    assert not f().requires_grad
    with ember.inference_mode():
        assert not (x * 2).requires_grad and ember.is_inference_mode_enabled()


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="floating point"):
        ember.ones(2, dtype=ember.int64).requires_grad_()
    x = leaf([1.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False
    assert not x.detach().requires_grad and x.detach().data_ptr() == x.data_ptr()
    assert not (x > 0).requires_grad  # comparisons have no gradient


def test_backward_on_tensor_without_graph_raises():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        ember.ones(1).sum().backward()


def test_grad_fn_graph_introspection():
    x = leaf([1.0])
    y = x.exp() * 2
    fn = y.grad_fn
    assert fn.name() == "MulBackward0"
    (exp_fn, _), (none, _) = fn.next_functions
    assert exp_fn.name() == "ExpBackward0" and none is None
    acc = exp_fn.next_functions[0][0]
    assert acc.name() == "AccumulateGrad" and acc.variable is not None
    assert repr(fn).startswith("<MulBackward0 object at 0x")


class Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.scale, None


class ExpOut(Function):
    """Saves its output (kept without a reference cycle)."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


def test_custom_function_forward_backward_and_gradcheck():
    x = leaf([0.5, -1.0, 2.0])
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([1.5, 6.0, 24.0])
    assert gradcheck(lambda t: Cube.apply(t, 2.0), (leaf([0.3, -0.7]),))
    assert gradcheck(ExpOut.apply, (leaf([0.3, -0.7]),))
    assert gradgradcheck(ExpOut.apply, (leaf([0.3, -0.7]),))


def test_custom_function_needs_input_grad_and_errors():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return grad  # wrong: two inputs

    a, b = leaf([1.0]), ember.tensor([1.0], dtype=ember.float64)
    out = Probe.apply(a, b)
    assert seen["needs"] == (True, False)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        out.sum().backward()


def test_gradcheck_detects_a_wrong_gradient():
    class WrongGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, grad):
            return grad  # should be 2x * grad

    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(WrongGrad.apply, (leaf([0.5, 1.5]),))


def test_graph_is_freed_after_backward():
    x = leaf([1.0] * 1000)
    before = ember.memory_allocated()
    for _ in range(5):
        (x.exp() * x).sum().backward()
    assert ember.memory_allocated() - before <= 2 * 1000 * 8 + 4096  # only x.grad remains


def test_stale_view_after_inplace_on_base_is_refused():
    x = leaf([1.0, 1.0, 1.0])
    y = x * 1
    v = y[0:2]
    y.mul_(2)
    with pytest.raises(NotImplementedError, match="stale"):
        v.sum()
    y[0:2].sum().backward()  # a view taken after the in-place op is fine
    assert x.grad.tolist() == [2.0, 2.0, 0.0]


def test_view_of_a_constant_that_an_inplace_op_made_differentiable_is_refused():
    x = ember.zeros(2, dtype=ember.float64)
    w = leaf([1.0, 1.0])
    v = x[0:2]
    x.add_(w)  # x now depends on w; v still carries x's old (constant) history
    with pytest.raises(NotImplementedError, match="stale"):
        (v * 1).sum()
    (x[0:2] * 1).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_inplace_on_a_no_grad_view_of_a_differentiable_tensor_is_refused():
    y = leaf([1.0, 2.0, 3.0]) * 2
    with ember.no_grad():
        v = y[0:2]
    with pytest.raises(RuntimeError, match="view was created in no_grad mode"):
        v.add_(1)  # PyTorch's error: the view has no history to rebase the base's with
    with ember.no_grad():
        v.add_(1)  # allowed where nothing records
    assert y.tolist() == [3.0, 5.0, 6.0]


def test_retained_grad_and_hook_removal_follow_inplace_ops():
    x = leaf([1.0])
    y = x * 1
    y.retain_grad()
    calls = []
    handle = y.register_hook(lambda g: calls.append(1))
    y.mul_(2)
    handle.remove()
    (y * 5).sum().backward()
    assert y.grad.tolist() == [5.0]  # the gradient of y's new value, as PyTorch
    assert calls == [] and x.grad.tolist() == [10.0]
    z = x * 1
    z.retain_grad()
    z.add_(1)
    w = z * 3
    del z  # the retained slot must not outlive its tensor
    w.sum().backward()


def test_recorded_inplace_on_a_view_rebases_the_base_history():
    # Note [In-place ops on views]: buf's history becomes CopySlices of its old value and w.
    buf = ember.zeros(4, dtype=ember.float64)
    w = leaf([1.0, 2.0])
    buf[0:2] = w
    assert buf.tolist() == [1.0, 2.0, 0.0, 0.0] and buf._version == 1
    assert buf.grad_fn.name() == "CopySlices" and buf.requires_grad
    (buf * ember.tensor([3.0, 5.0, 7.0, 11.0], dtype=ember.float64)).sum().backward()
    assert w.grad.tolist() == [3.0, 5.0]


def test_leaf_hooks_apply_to_autograd_grad():
    x = leaf([1.0])
    x.register_hook(lambda g: g * 10)
    (g,) = ember.autograd.grad((x * 3).sum(), x)
    assert g.tolist() == [30.0]


def test_very_deep_graph_is_freed_without_recursion():
    x = leaf([1.0])
    y = x
    for _ in range(300_000):
        y = y * 1.0
    del y  # 300k nested destructors would overflow the stack


def test_data_setter_swaps_the_values_keeping_autograd_state():
    p = leaf([1.0, 2.0])
    p.data = ember.tensor([5.0, 6.0], dtype=ember.float64)
    assert p.tolist() == [5.0, 6.0] and p.requires_grad and p.is_leaf
    p.grad = ember.ones(2, dtype=ember.float64)
    p.data -= 0.5 * p.grad
    assert p.tolist() == [4.5, 5.5]
