"""ember.autograd.functional and ember.utils.checkpoint: hand-derived derivatives and
finite differences."""

import numpy as np
import pytest

import ember
from ember.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from ember.utils.checkpoint import checkpoint, checkpoint_sequential


def t(values):
    return ember.tensor(np.asarray(values, dtype=np.float64))


def f(x):  # R^3 -> R^3
    return ember.stack([x[0] * x[1], x[2].sin(), (x**2).sum()])


def jac_f(x):
    return np.array([[x[1], x[0], 0], [0, 0, np.cos(x[2])], 2 * x])


def g(x):  # R^3 -> R
    return (x**3).sum() + x[0] * x[1]


def hess_g(x):
    return np.diag(6 * x) + np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])


X = np.array([1.0, 2.0, 3.0])


def test_jacobian_and_hessian_are_the_hand_derived_ones():
    np.testing.assert_allclose(jacobian(f, t(X)).numpy(), jac_f(X))
    np.testing.assert_allclose(hessian(g, t(X)).numpy(), hess_g(X))


def test_jacobian_matches_central_differences_for_several_inputs_and_outputs():
    a, b = np.array([0.5, -1.0]), np.array([0.3, 0.2, 2.0])

    def h(a, b):
        return (a.sum() * b.exp(), (a * a).sin())

    jac = jacobian(h, (t(a), t(b)))
    eps = 1e-6
    for i, arr in enumerate((a, b)):
        for k in range(arr.size):
            up, down = [a.copy(), b.copy()], [a.copy(), b.copy()]
            up[i][k] += eps
            down[i][k] -= eps
            hu, hd = h(t(up[0]), t(up[1])), h(t(down[0]), t(down[1]))
            for o in range(2):
                numeric = (hu[o].numpy() - hd[o].numpy()) / (2 * eps)
                np.testing.assert_allclose(jac[o][i].numpy()[..., k], numeric, atol=1e-7)


def test_products_equal_the_matrix_products():
    v = np.array([0.5, -1.0, 2.0])
    out, got = vjp(f, t(X), t(v))
    np.testing.assert_allclose(out.numpy(), f(t(X)).numpy())
    np.testing.assert_allclose(got.numpy(), v @ jac_f(X))
    np.testing.assert_allclose(jvp(f, t(X), t(v))[1].numpy(), jac_f(X) @ v)
    value, hv = hvp(g, t(X), t(v))
    assert value.item() == pytest.approx(g(t(X)).item())
    np.testing.assert_allclose(hv.numpy(), hess_g(X) @ v)
    np.testing.assert_allclose(vhp(g, t(X), t(v))[1].numpy(), v @ hess_g(X))


def test_create_graph_gives_differentiable_results():
    x = t(X).requires_grad_(True)
    jac = jacobian(g, x, create_graph=True)  # the gradient of g
    jac.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), hess_g(X).sum(0))


def test_bad_arguments_raise_pytorchs_errors():
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        jacobian(f, [1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="v can only be None"):
        vjp(f, t(X))
    with pytest.raises(RuntimeError, match="Entry 0 in v has shape"):
        jvp(f, t(X), t([1.0]))
    with pytest.raises(RuntimeError, match="single Tensor with a single element"):
        hessian(f, t(X))


def _model():
    ember.manual_seed(0)
    nn = ember.nn
    return nn.Sequential(
        nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)
    )


@pytest.mark.parametrize("how", ["checkpoint", "sequential"])
def test_checkpoint_gives_the_same_values_and_gradients(how):
    m = _model()
    x = ember.randn(5, 4, dtype=ember.float32)
    ember.manual_seed(7)
    ref = m(x)
    ref.pow(2).sum().backward()
    want = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    xr = x.clone().requires_grad_(how == "sequential")
    ember.manual_seed(7)  # dropout draws again in the recomputation: the saved state repeats it
    if how == "checkpoint":
        out = checkpoint(m, xr, use_reentrant=False)
    else:
        out = checkpoint_sequential(m, 3, xr)
    assert out.tolist() == ref.tolist()
    out.pow(2).sum().backward()
    for w, p in zip(want, m.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)


def test_checkpoint_recomputes_in_backward():
    calls = []

    def fn(x, scale):
        calls.append(1)
        return (x * scale).exp()

    x = t([0.1, 0.2]).requires_grad_(True)
    y = checkpoint(fn, x, 3.0, use_reentrant=False)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3 * np.array([0.1, 0.2])))
    with ember.no_grad():
        checkpoint(fn, x, 3.0, use_reentrant=False)
    assert len(calls) == 3
