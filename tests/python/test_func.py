"""ember.func (grad, vjp, jvp, jacrev, hessian, vmap), the eager control flow (cond,
while_loop), unravel_index, and the small modules programs read (version, random, compiler)."""

import numpy as np
import pytest

import ember
from ember.func import grad, grad_and_value, hessian, jacrev, jvp, vjp, vmap


def f(x):
    return (x**3).sum() + x[0] * x[1]


X = [1.0, 2.0]


def t(v):
    return ember.tensor(v, dtype=ember.float64)


def test_grad_and_its_compositions_by_hand():
    x = t(X)
    assert grad(f)(x).tolist() == [3 * 1 + 2, 3 * 4 + 1]
    assert grad(f)(x).grad_fn is None  # not nested: a plain tensor
    g, value = grad_and_value(f)(x)
    assert value.item() == 1 + 8 + 2
    # grad of the gradient's sum: the Hessian's row sums, [6x0 + 1, 6x1 + 1].
    assert grad(lambda y: grad(f)(y).sum())(x).tolist() == [7.0, 13.0]
    np.testing.assert_allclose(hessian(f)(x).detach().numpy(), [[6.0, 1.0], [1.0, 12.0]])
    np.testing.assert_allclose(jacrev(lambda y: y**2)(x).detach().numpy(), [[2, 0], [0, 4]])
    out, fn = vjp(lambda y: y * y, x)
    assert fn(t([1.0, 1.0]))[0].tolist() == [2.0, 4.0]
    assert jvp(lambda y: y * y, (x,), (t([1.0, 0.0]),))[1].tolist() == [2.0, 0.0]
    g2 = grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, t([5.0, 7.0]))
    assert [v.tolist() for v in g2] == [[5.0, 7.0], [1.0, 2.0]]
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        grad(lambda y: y * 2)(x)


def test_vmap_maps_calls_and_stacks():
    batch = t([[1.0, 2.0], [3.0, 4.0]])
    assert vmap(grad(f))(batch).tolist() == [[5.0, 13.0], [31.0, 51.0]]
    assert ember.vmap(ember.dot, in_dims=(0, None))(batch, t([1.0, 1.0])).tolist() == [3.0, 7.0]
    two = vmap(lambda v: (v.sum(), v * 2), out_dims=(0, 1))(batch)
    assert two[0].tolist() == [3.0, 7.0] and two[1].shape == (2, 2)
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        vmap(ember.add)(ember.ones(2), ember.ones(3))


def test_eager_control_flow_and_unravel_index():
    x = t(X)
    assert ember.cond(x.sum() > 0, lambda a: a + 1, lambda a: a - 1, (x,)).tolist() == [2, 3]
    i, s = ember.while_loop(
        lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (ember.tensor(0), ember.tensor(1.0))
    )
    assert (i.item(), s.item()) == (3, 8.0)
    rows, cols = ember.unravel_index(ember.tensor([5, 7, -1]), (2, 4))
    assert rows.tolist() == [1, 1, 1] and cols.tolist() == [1, 3, 3]
    np.testing.assert_array_equal(
        np.stack([r.numpy() for r in ember.unravel_index(ember.arange(24), (2, 3, 4))]),
        np.stack(np.unravel_index(np.arange(24), (2, 3, 4))),
    )
    with pytest.raises(ValueError, match="must be in range"):
        ember.unravel_index(ember.tensor([8]), (2, 4))


def test_small_modules():
    assert ember.version.cuda is None and ember.version.__version__ == ember.__version__
    assert ember.compiler.is_compiling() is False
    assert ember.compiler.disable(len) is len
    ember.random.manual_seed(3)
    a = ember.rand(2)
    with ember.random.fork_rng():
        ember.rand(5)
    b = ember.rand(2)
    ember.random.manual_seed(3)
    assert ember.rand(2).tolist() == a.tolist() and ember.rand(2).tolist() == b.tolist()


def test_set_default_tensor_type_sets_the_default_dtype():
    with pytest.warns(UserWarning, match="deprecated"):
        ember.set_default_tensor_type(ember.DoubleTensor)
    try:
        assert ember.tensor([1.0]).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    with pytest.raises(TypeError), pytest.warns(UserWarning):
        ember.set_default_tensor_type("torch.cuda.FloatTensor")
