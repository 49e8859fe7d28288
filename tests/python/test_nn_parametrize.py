"""nn.utils.parametrize, parametrizations, the hook-based weight and spectral norm, fusion,
functional_call: values checked by hand and against NumPy."""

import numpy as np
import pytest

import ember
from ember import nn
from ember.nn.utils import parametrizations, parametrize


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


def test_register_and_remove_a_parametrization():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and parametrize.is_parametrized(m, "weight")
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    w = m.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    m(ember.ones(2, 3)).sum().backward()
    g = m.parametrizations.weight.original.grad.numpy()
    # d(sum(x @ W^T))/dW is 2 everywhere (batch 2); W = triu(X) + triu(X, 1)^T folds the lower
    # triangle's gradient onto the upper one and gives the lower one none.
    np.testing.assert_allclose(g, np.triu(np.full((3, 3), 2.0)) + np.triu(np.full((3, 3), 2.0), 1))
    m.weight = ember.eye(3) * 2  # assignment goes through right_inverse (none: the identity)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.eye(3) * 2)
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.eye(3) * 2)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(m, "nothing", Symmetric())


def test_cached_computes_each_parametrized_tensor_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 2

    m = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Counting())
    calls.clear()
    with parametrize.cached():
        m.weight + m.weight
    assert len(calls) == 1


def test_weight_norm_parametrization_keeps_the_weight_and_splits_it():
    lin = nn.Linear(4, 3)
    before = lin.weight.detach().numpy().copy()
    parametrizations.weight_norm(lin)
    g = lin.parametrizations.weight.original0.detach().numpy()
    v = lin.parametrizations.weight.original1.detach().numpy()
    np.testing.assert_allclose(g.reshape(-1), np.linalg.norm(before, axis=1), rtol=1e-6)
    np.testing.assert_allclose(lin.weight.detach().numpy(), before, rtol=1e-6)
    np.testing.assert_allclose(v, before)


@pytest.mark.parametrize("kind", ["parametrization", "hook"])
def test_spectral_norm_makes_the_largest_singular_value_one(kind):
    ember.manual_seed(0)
    lin = nn.Linear(6, 4)
    if kind == "hook":
        nn.utils.spectral_norm(lin)
        assert sorted(lin.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    else:
        parametrizations.spectral_norm(lin)
    for _ in range(30):
        lin(ember.ones(1, 6))
    top = np.linalg.svd(lin.weight.detach().numpy(), compute_uv=False)[0]
    assert top == pytest.approx(1.0, abs=1e-4)


def test_hook_weight_norm_round_trip():
    lin = nn.Linear(4, 2)
    x = ember.randn(3, 4)
    want = lin(x).detach().numpy()
    with pytest.warns(FutureWarning, match="deprecated in favor of"):
        nn.utils.weight_norm(lin)
    assert sorted(lin.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(lin(x).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    lin(x).sum().backward()
    assert lin.weight_g.grad is not None and lin.weight_v.grad is not None
    nn.utils.remove_weight_norm(lin)
    assert sorted(lin.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(lin(x).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(lin)


def test_fusing_batch_norm_gives_the_same_outputs():
    ember.manual_seed(1)
    conv, bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)
    with ember.no_grad():
        bn.running_mean.copy_(ember.randn(4))
        bn.running_var.copy_(ember.rand(4) + 0.5)
        bn.weight.copy_(ember.randn(4))
        bn.bias.copy_(ember.randn(4))
    conv.eval()
    bn.eval()
    x = ember.randn(2, 3, 6, 6)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    np.testing.assert_allclose(
        fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), rtol=1e-4, atol=1e-5
    )
    lin, bn1 = nn.Linear(5, 4), nn.BatchNorm1d(4)
    with ember.no_grad():
        bn1.running_var.copy_(ember.rand(4) + 0.5)
    lin.eval()
    bn1.eval()
    y = ember.randn(3, 5)
    np.testing.assert_allclose(
        nn.utils.fuse_linear_bn_eval(lin, bn1)(y).detach().numpy(),
        bn1(lin(y)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    conv.train()
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        nn.utils.fuse_conv_bn_eval(conv, bn)


def test_functional_call_swaps_tensors_for_one_call():
    lin = nn.Linear(2, 1)
    x = ember.ones(1, 2)
    own = lin(x).item()
    zero = {"weight": ember.zeros(1, 2), "bias": ember.tensor([5.0])}
    assert nn.utils.stateless.functional_call(lin, zero, (x,)).item() == 5.0
    assert lin(x).item() == own


@pytest.mark.parametrize(
    "shape,orthogonal_map,trivial",
    [
        ((5, 5), None, True),
        ((4, 4), "cayley", True),
        ((6, 3), None, True),
        ((6, 3), "householder", False),
        ((3, 6), None, False),
        ((2, 4, 4), "matrix_exp", True),
    ],
)
def test_orthogonal_keeps_the_weight_orthogonal_while_training(shape, orthogonal_map, trivial):
    ember.manual_seed(0)
    module = nn.Module()
    module.weight = nn.Parameter(ember.randn(*shape, dtype=ember.float64))
    parametrizations.orthogonal(module, orthogonal_map=orthogonal_map, use_trivialization=trivial)

    def gram_error():
        w = module.weight.detach().numpy()
        g = np.swapaxes(w, -1, -2) @ w if shape[-2] >= shape[-1] else w @ np.swapaxes(w, -1, -2)
        return np.abs(g - np.eye(g.shape[-1])).max()

    assert gram_error() < 1e-12
    params = list(module.parameters())
    opt = ember.optim.SGD(params, lr=0.1)
    before = module.weight.detach().clone()
    for _ in range(3):
        loss = (module.weight * ember.arange(shape[-1], dtype=ember.float64)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert gram_error() < 1e-12
    assert not ember.allclose(module.weight, before)  # it moved, staying orthogonal


def test_orthogonal_assignment_sets_the_weight():
    lin = nn.Linear(4, 4).double()
    parametrizations.orthogonal(lin)
    q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]
    lin.weight = ember.tensor(q)
    np.testing.assert_allclose(lin.weight.detach().numpy(), q, atol=1e-12)
    with pytest.raises(ValueError, match="orthogonal_map"):
        parametrizations.orthogonal(nn.Linear(2, 2), orthogonal_map="polar")
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        parametrizations.orthogonal(nn.Linear(2, 2), use_trivialization=False)
