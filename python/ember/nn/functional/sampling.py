"""ember.nn.functional: sampling at arbitrary points (affine_grid, grid_sample), the spatial
transformer's pieces; grid_sample checks its arguments and calls ember.grid_sampler
(_composites/nn_resample.py), as PyTorch's calls torch.grid_sampler.

grid_sample handles 4-d input (images: bilinear, nearest, bicubic) and 5-d input (volumes:
trilinear, called bilinear as in PyTorch, and nearest), with the three padding modes. affine_grid
handles both the 2-d and the 3-d form.
"""

from __future__ import annotations

import warnings

import ember
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


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]): [N, C, Ho, Wo]; or
    input [N, C, D, H, W] at grid [N, Do, Ho, Wo, 3] (x, y, z): [N, C, Do, Ho, Wo]."""
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
    return ember.grid_sampler(
        input,
        grid,
        ("bilinear", "nearest", "bicubic").index(mode),
        ("zeros", "border", "reflection").index(padding_mode),
        align_corners,
    )
