"""ember.nn.functional: sampling at arbitrary points (affine_grid, grid_sample), the spatial
transformer's pieces, written with ember's ops (gather, so both the input and the grid get
gradients).

grid_sample handles 4-d input (2-d images) with bilinear and nearest modes and the three padding
modes; bicubic and 5-d (volumetric) input raise NotImplementedError. affine_grid handles both the
2-d and the 3-d form.
"""

from __future__ import annotations

import warnings

from ember import _C

__all__: list[str] = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def _base_coords(n, align_corners, dtype, device):
    """The normalised coordinates of n pixel centres in [-1, 1]."""
    if n <= 1:
        return _C.zeros(n, dtype=dtype, device=device)
    c = _C.linspace(-1.0, 1.0, n, dtype=dtype, device=device)
    return c if align_corners else c * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps theta ([N, 2, 3] for size [N, C, H, W], giving
    [N, H, W, 2]; [N, 3, 4] for [N, C, D, H, W], giving [N, D, H, W, 3])."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                f"{list(theta.shape)}."
            )
        n, _, h, w = size
        dims = (w, h)
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                f"{list(theta.shape)}."
            )
        n, _, d, h, w = size
        dims = (w, h, d)
    else:
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != n:
        raise ValueError(f"Expected theta of batch size {n}, got {theta.shape[0]}")
    coords = [_base_coords(k, align_corners, theta.dtype, theta.device) for k in dims]
    # The base grid: x varies fastest, then y (then z), with a column of ones.
    grids = _C.meshgrid(*reversed(coords), indexing="ij")  # (z,) y, x order
    parts = list(reversed(grids)) + [_C.ones_like(grids[0])]
    base = _C.stack(parts, -1)  # [(D,) H, W, k + 1]
    spatial = tuple(base.shape[:-1])
    flat = base.reshape(1, -1, base.shape[-1])
    out = _C.matmul(flat, theta.transpose(1, 2))  # [N, points, k]
    return out.reshape((n,) + spatial + (len(dims),))


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return _C.zeros_like(coord)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (coord - lo).abs()
    extra = _C.fmod(c, span)
    flips = _C.floor(c / span)
    even = _C.remainder(flips, 2) == 0
    return _C.where(even, extra + lo, span - extra + lo)


def _source_coords(coord, size, padding_mode, align_corners):
    """Normalised grid coordinates to pixel coordinates, with the padding mode applied."""
    if align_corners:
        x = (coord + 1) / 2 * (size - 1)
    else:
        x = ((coord + 1) * size - 1) / 2
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _gather_2d(flat, xi, yi, w, h):
    """flat [N, C, H*W] at integer (yi, xi) [N, Ho, Wo]; zero where outside."""
    n, c = flat.shape[0], flat.shape[1]
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    idx = (yi.clamp(0, h - 1) * w + xi.clamp(0, w - 1)).reshape(n, 1, -1).expand(n, c, -1)
    vals = flat.gather(2, idx).reshape((n, c) + tuple(xi.shape[1:]))
    return vals * inside.unsqueeze(1).to(vals.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]): [N, C, Ho, Wo]."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input.dim() == 5:
        raise NotImplementedError("grid_sample: 5-D (volumetric) input is not supported yet")
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not supported yet")
    if input.dim() != 4 or grid.dim() != 4 or grid.shape[-1] != 2:
        raise RuntimeError(
            f"grid_sampler(): expected 4D input and grid with last dimension 2, but got input "
            f"of shape {list(input.shape)} and grid of shape {list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    n, c, h, w = input.shape
    x = _source_coords(grid[..., 0], w, padding_mode, align_corners)
    y = _source_coords(grid[..., 1], h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)
    if mode == "nearest":
        xi, yi = x.round().long(), y.round().long()
        return _gather_2d(flat, xi, yi, w, h)
    x0f, y0f = x.detach().floor(), y.detach().floor()
    x0, y0 = x0f.long(), y0f.long()
    wx1, wy1 = (x - x0f).unsqueeze(1), (y - y0f).unsqueeze(1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    return (
        _gather_2d(flat, x0, y0, w, h) * wx0 * wy0
        + _gather_2d(flat, x0 + 1, y0, w, h) * wx1 * wy0
        + _gather_2d(flat, x0, y0 + 1, w, h) * wx0 * wy1
        + _gather_2d(flat, x0 + 1, y0 + 1, w, h) * wx1 * wy1
    )
