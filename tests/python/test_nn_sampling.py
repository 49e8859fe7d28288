"""F.affine_grid and F.grid_sample: exact identities, a NumPy bilinear reference, gradients by
finite differences (test_nn_sampling_torch.py compares with PyTorch)."""

import numpy as np
import pytest

import ember
import ember.nn.functional as F


def _np_bilinear_zeros(img, gx, gy, align_corners):
    n, c, h, w = img.shape
    if align_corners:
        x, y = (gx + 1) / 2 * (w - 1), (gy + 1) / 2 * (h - 1)
    else:
        x, y = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
    out = np.zeros((n, c) + gx.shape[1:])
    for b in range(n):
        for i in np.ndindex(gx.shape[1:]):
            x0, y0 = int(np.floor(x[b][i])), int(np.floor(y[b][i]))
            for dx in (0, 1):
                for dy in (0, 1):
                    xx, yy = x0 + dx, y0 + dy
                    if 0 <= xx < w and 0 <= yy < h:
                        wt = (1 - abs(x[b][i] - xx)) * (1 - abs(y[b][i] - yy))
                        out[(b, slice(None)) + i] += wt * img[b, :, yy, xx]
    return out


@pytest.mark.parametrize("align_corners", [False, True])
def test_bilinear_zeros_padding_matches_numpy(align_corners):
    rng = np.random.default_rng(0)
    img = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.2, 1.2, (2, 3, 2, 2))
    got = F.grid_sample(ember.tensor(img), ember.tensor(grid), align_corners=align_corners)
    want = _np_bilinear_zeros(img, grid[..., 0], grid[..., 1], align_corners)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def test_identity_transform_samples_the_input_itself():
    img = ember.tensor(np.arange(24.0).reshape(1, 2, 3, 4))
    theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=ember.float64)
    for ac in (False, True):
        grid = F.affine_grid(theta, [1, 2, 3, 4], align_corners=ac)
        assert grid.shape == (1, 3, 4, 2)
        for mode in ("bilinear", "nearest"):
            out = F.grid_sample(img, grid, mode=mode, align_corners=ac)
            np.testing.assert_allclose(out.numpy(), img.numpy(), atol=1e-12)
    # align_corners=True puts the corners at -1 and 1 exactly.
    grid = F.affine_grid(theta, [1, 1, 2, 3], align_corners=True)
    np.testing.assert_allclose(grid[0, :, :, 0].numpy(), [[-1, 0, 1], [-1, 0, 1]])


def test_gradients_of_input_and_grid_match_finite_differences():
    rng = np.random.default_rng(1)
    img = ember.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    # Away from pixel centres, where bilinear interpolation is smooth.
    grid = ember.tensor(rng.uniform(-0.8, 0.8, (1, 2, 2, 2)) + 0.01, requires_grad=True)
    for pad in ("zeros", "border", "reflection"):
        assert ember.autograd.gradcheck(
            lambda i, g, pad=pad: F.grid_sample(i, g, padding_mode=pad, align_corners=False),
            (img, grid),
        )


def test_bad_arguments_raise_pytorchs_errors():
    img, grid = ember.zeros(1, 1, 2, 2), ember.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(img, grid, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros'"):
        F.grid_sample(img, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(NotImplementedError, match="bicubic"):
        F.grid_sample(img, grid, mode="bicubic", align_corners=False)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(img, grid)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices"):
        F.affine_grid(ember.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(ValueError, match="floating point type"):
        F.affine_grid(ember.zeros(1, 2, 3, dtype=ember.int64), [1, 1, 2, 2], align_corners=False)
