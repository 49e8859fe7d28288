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


def _cubic(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a if t < 2 else 0.0


def test_bicubic_border_and_trilinear_zeros_match_numpy():
    """Bicubic (Keys' kernel, a = -0.75, the 4x4 taps clamped to the border) and trilinear
    sampling of a volume against direct sums, in float64."""
    rng = np.random.default_rng(5)
    img, grid = rng.standard_normal((1, 2, 4, 5)), rng.uniform(-1.1, 1.1, (1, 3, 2, 2))
    got = F.grid_sample(
        ember.tensor(img), ember.tensor(grid), "bicubic", "border", align_corners=True
    )
    h, w = img.shape[2:]
    for i in np.ndindex(grid.shape[1:3]):
        x, y = (grid[(0,) + i][0] + 1) / 2 * (w - 1), (grid[(0,) + i][1] + 1) / 2 * (h - 1)
        want = sum(
            _cubic(x - xx)
            * _cubic(y - yy)
            * img[0, :, min(max(yy, 0), h - 1), min(max(xx, 0), w - 1)]
            for xx in range(int(np.floor(x)) - 1, int(np.floor(x)) + 3)
            for yy in range(int(np.floor(y)) - 1, int(np.floor(y)) + 3)
        )
        np.testing.assert_allclose(got[(0, slice(None)) + i].numpy(), want, rtol=1e-12, atol=1e-12)
    vol, grid = rng.standard_normal((1, 2, 3, 4, 5)), rng.uniform(-1.2, 1.2, (1, 2, 2, 3, 3))
    got = F.grid_sample(ember.tensor(vol), ember.tensor(grid), align_corners=False)
    d, h, w = vol.shape[2:]
    for i in np.ndindex(grid.shape[1:4]):
        x, y, z = (((grid[(0,) + i][k] + 1) * s - 1) / 2 for k, s in enumerate((w, h, d)))
        want = np.zeros(2)
        for xx in (int(np.floor(x)), int(np.floor(x)) + 1):
            for yy in (int(np.floor(y)), int(np.floor(y)) + 1):
                for zz in (int(np.floor(z)), int(np.floor(z)) + 1):
                    if 0 <= xx < w and 0 <= yy < h and 0 <= zz < d:
                        wt = (1 - abs(x - xx)) * (1 - abs(y - yy)) * (1 - abs(z - zz))
                        want += wt * vol[0, :, zz, yy, xx]
        np.testing.assert_allclose(got[(0, slice(None)) + i].numpy(), want, rtol=1e-12, atol=1e-12)


def test_bicubic_and_trilinear_gradients_match_finite_differences():
    rng = np.random.default_rng(6)
    img = ember.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    grid = ember.tensor(rng.uniform(-0.7, 0.7, (1, 2, 2, 2)) + 0.01, requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda i, g: F.grid_sample(i, g, "bicubic", "reflection", align_corners=False),
        (img, grid),
    )
    vol = ember.tensor(rng.standard_normal((1, 1, 3, 3, 3)), requires_grad=True)
    grid = ember.tensor(rng.uniform(-0.7, 0.7, (1, 2, 1, 2, 3)) + 0.01, requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda v, g: F.grid_sample(v, g, padding_mode="border", align_corners=True), (vol, grid)
    )


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
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(
            ember.zeros(1, 1, 2, 2, 2),
            ember.zeros(1, 1, 1, 1, 3),
            mode="bicubic",
            align_corners=False,
        )
    with pytest.raises(RuntimeError, match="expected 4D or 5D input"):
        F.grid_sample(img, ember.zeros(1, 2, 2, 3), align_corners=False)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(img, grid)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices"):
        F.affine_grid(ember.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(ValueError, match="floating point type"):
        F.affine_grid(ember.zeros(1, 2, 3, dtype=ember.int64), [1, 1, 2, 2], align_corners=False)
