"""nn.utils: gradient clipping against NumPy float64, and parameter <-> vector conversion."""

import numpy as np
import pytest

import ember
from ember import nn
from ember.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)


def as_np(t):
    return np.asarray(t.detach().double().tolist(), dtype=np.float64)


def params_with_grads(rng, shapes):
    params, grads = [], []
    for shape in shapes:
        p = nn.Parameter(ember.zeros(*shape))
        g = rng.standard_normal(shape) * 3
        p.grad = ember.tensor(g.astype(np.float32))
        params.append(p)
        grads.append(g.astype(np.float32).astype(np.float64))
    return params, grads


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm_matches_numpy(norm_type, max_norm):
    rng = np.random.default_rng(int(norm_type * 10) if norm_type != float("inf") else 99)
    params, grads = params_with_grads(rng, [(3, 4), (5,), (2, 2, 2)])
    flat = np.concatenate([g.ravel() for g in grads])
    if norm_type == float("inf"):
        total = np.abs(flat).max()
    else:
        total = (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    result = clip_grad_norm_(params, max_norm, norm_type=norm_type)
    assert isinstance(result, ember.Tensor) and result.dim() == 0
    np.testing.assert_allclose(result.item(), total, rtol=1e-5)
    coef = min(1.0, max_norm / (total + 1e-6))
    for p, g in zip(params, grads):
        np.testing.assert_allclose(as_np(p.grad), g * coef, rtol=1e-5, atol=1e-7)
    if max_norm < total:
        new_flat = np.concatenate([as_np(p.grad).ravel() for p in params])
        if norm_type == float("inf"):
            new_total = np.abs(new_flat).max()
        else:
            new_total = (np.abs(new_flat) ** norm_type).sum() ** (1 / norm_type)
        np.testing.assert_allclose(new_total, max_norm, rtol=1e-4)


def test_clip_grad_norm_inputs():
    rng = np.random.default_rng(0)
    params, grads = params_with_grads(rng, [(4,), (3,)])
    no_grad = nn.Parameter(ember.ones(2))
    # A single tensor, a generator, parameters without grad are all accepted.
    total = clip_grad_norm_(iter([params[0], no_grad]), 1e9)
    np.testing.assert_allclose(total.item(), np.linalg.norm(grads[0]), rtol=1e-6)
    total = clip_grad_norm_(params[1], 1e9)
    np.testing.assert_allclose(total.item(), np.linalg.norm(grads[1]), rtol=1e-6)
    assert no_grad.grad is None
    empty = clip_grad_norm_([no_grad], 1.0)
    assert empty.item() == 0.0
    # get_total_norm / clip_grads_with_norm_ are the two halves.
    total = get_total_norm([p.grad for p in params])
    clip_grads_with_norm_(params, 1.0, total)
    np.testing.assert_allclose(
        np.sqrt(sum((as_np(p.grad) ** 2).sum() for p in params)), 1.0, rtol=1e-5
    )


def test_clip_grad_norm_nonfinite():
    p = nn.Parameter(ember.zeros(3))
    p.grad = ember.tensor([1.0, float("nan"), 2.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert np.isnan(clip_grad_norm_([p], 1.0).item())
    q = nn.Parameter(ember.zeros(2))
    q.grad = ember.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_([q], 1.0, error_if_nonfinite=True)


def test_clip_grad_norm_mixed_dtypes():
    a = nn.Parameter(ember.zeros(2))
    a.grad = ember.tensor([3.0, 0.0])
    b = nn.Parameter(ember.zeros(1, dtype=ember.float64))
    b.grad = ember.tensor([4.0], dtype=ember.float64)
    assert clip_grad_norm_([a, b], 1.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(as_np(a.grad), [0.6, 0.0], rtol=1e-5)
    assert b.grad.dtype == ember.float64
    np.testing.assert_allclose(as_np(b.grad), [0.8], rtol=1e-5)


def test_clip_grad_value():
    p = nn.Parameter(ember.zeros(4))
    p.grad = ember.tensor([-3.0, -0.5, 0.2, 7.0])
    q = nn.Parameter(ember.zeros(1))
    assert clip_grad_value_([p, q], 1.0) is None
    np.testing.assert_allclose(as_np(p.grad), [-1.0, -0.5, 0.2, 1.0], rtol=1e-6)
    clip_grad_value_(p, 0.1)
    np.testing.assert_allclose(as_np(p.grad), [-0.1, -0.1, 0.1, 0.1], rtol=1e-6)


def test_parameters_to_vector_and_back():
    a = nn.Parameter(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    b = nn.Parameter(ember.tensor([5.0]))
    v = parameters_to_vector([a, b])
    assert v.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    new = ember.arange(10.0, 15.0)
    vector_to_parameters(new, [a, b])
    assert a.tolist() == [[10.0, 11.0], [12.0, 13.0]] and b.tolist() == [14.0]
    assert isinstance(a, nn.Parameter) and a.requires_grad and a.shape == (2, 2)
    # As in PyTorch, the parameters now share the vector's memory.
    new[0] = -1.0
    assert a[0, 0].item() == -1.0
    with pytest.raises(TypeError, match="expected ember.Tensor, but got: list"):
        vector_to_parameters([1.0], [a])
    with pytest.raises(ValueError, match="at least 5 elements"):
        vector_to_parameters(ember.zeros(3), [a, b])
    with pytest.raises(RuntimeError, match="at least one parameter"):
        parameters_to_vector([])


def test_reachable_as_nn_utils():
    # PyTorch code calls nn.utils.clip_grad_norm_(...) through `import torch.nn as nn`; ember.nn's
    # star import of the layers once bound nn.utils to the layers' helper file instead.
    import ember.nn.utils.rnn

    assert nn.utils is ember.nn.utils
    assert nn.utils.clip_grad_norm_ is clip_grad_norm_
    assert nn.utils.rnn is ember.nn.utils.rnn
    assert "utils" not in nn.modules.__all__ and "Linear" in nn.modules.__all__
    p = nn.Parameter(ember.zeros(2))
    p.grad = ember.tensor([3.0, 4.0])
    assert nn.utils.clip_grad_norm_([p], max_norm=1.0).item() == pytest.approx(5.0)
    assert p.grad.tolist() == pytest.approx([0.6, 0.8], rel=1e-5)
