"""F.grid_sample and F.affine_grid side by side with PyTorch's (skipped without torch): values
and the gradients of both input and grid, every mode, padding and alignment."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "mode, shape, grid_shape",
    [
        ("bilinear", (2, 3, 5, 7), (2, 4, 6, 2)),
        ("nearest", (2, 3, 5, 7), (2, 4, 6, 2)),
        ("bicubic", (2, 3, 5, 7), (2, 4, 6, 2)),
        ("bilinear", (2, 2, 4, 5, 3), (2, 3, 2, 4, 3)),  # 5-d: trilinear
        ("nearest", (2, 2, 4, 5, 3), (2, 3, 2, 4, 3)),
    ],
    ids=["bilinear", "nearest", "bicubic", "trilinear", "nearest-3d"],
)
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(mode, shape, grid_shape, padding_mode, align_corners):
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal(shape), rng.uniform(-1.3, 1.3, grid_shape)
    xe, ge = ember.tensor(x, requires_grad=True), ember.tensor(g, requires_grad=True)
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    oe = ember.nn.functional.grid_sample(xe, ge, mode, padding_mode, align_corners)
    ot = torch.nn.functional.grid_sample(xt, gt, mode, padding_mode, align_corners)
    np.testing.assert_allclose(oe.detach().numpy(), ot.detach().numpy(), atol=1e-12)
    w = rng.standard_normal(tuple(ot.shape))
    (oe * ember.tensor(w)).sum().backward()
    (ot * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    grid_grad = ge.grad.numpy() if ge.grad is not None else np.zeros_like(g)  # nearest: none
    np.testing.assert_allclose(grid_grad, gt.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(align_corners):
    rng = np.random.default_rng(1)
    for shape, size in [((2, 2, 3), [2, 3, 5, 7]), ((2, 3, 4), [2, 3, 4, 5, 6])]:
        th = rng.standard_normal(shape)
        got = ember.nn.functional.affine_grid(ember.tensor(th), size, align_corners)
        want = torch.nn.functional.affine_grid(torch.tensor(th), size, align_corners)
        np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-12)
