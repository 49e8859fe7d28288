"""Resampling composites: grid_sampler (torch.grid_sampler), the op behind F.grid_sample,
written with ember's ops (gather, so both the input and the grid get gradients)."""

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import FLOAT32_64

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


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


def _unnormalize(coord, size, align_corners):
    """Normalised grid coordinates in [-1, 1] to pixel coordinates."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _pad(x, size, padding_mode, align_corners):
    """Pixel coordinates with the padding mode applied (zeros: unchanged, read as 0 outside)."""
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _gather(flat, idx, sizes):
    """flat [N, C, prod(sizes)] at the integer coordinates idx (x, y[, z], each [N, *out]),
    sizes (w, h[, d]); zero where outside."""
    n, c = flat.shape[0], flat.shape[1]
    inside = None
    linear = None
    stride = 1
    for i, size in zip(idx, sizes):
        ok = (i >= 0) & (i < size)
        inside = ok if inside is None else inside & ok
        term = i.clamp(0, size - 1) * stride
        linear = term if linear is None else linear + term
        stride *= size
    vals = flat.gather(2, linear.reshape(n, 1, -1).expand(n, c, -1))
    vals = vals.reshape((n, c) + tuple(idx[0].shape[1:]))
    return vals * inside.unsqueeze(1).to(vals.dtype)


# PyTorch's cubic convolution kernel (Keys, A = -0.75), as its bicubic upsampling uses.
_A = -0.75


def _cubic_weights(t):
    """The four taps' weights at offsets -1, 0, 1, 2 for the fraction t."""
    near = lambda x: ((_A + 2) * x - (_A + 3)) * x * x + 1  # noqa: E731
    far = lambda x: ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A  # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@composite("nn_resample", FLOAT32_64)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]): [N, C, Ho, Wo]; or
    input [N, C, D, H, W] at grid [N, Do, Ho, Wo, 3] (x, y, z): [N, C, Do, Ho, Wo].
    interpolation_mode: 0 bilinear (trilinear for 5-d), 1 nearest, 2 bicubic (4-d only);
    padding_mode: 0 zeros, 1 border, 2 reflection, as PyTorch's codes."""
    mode, padding_mode = _MODES[interpolation_mode], _PADDINGS[padding_mode]
    spatial = input.dim() - 2
    if input.dim() not in (4, 5) or grid.dim() != input.dim() or grid.shape[-1] != spatial:
        raise RuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"and the grid's last dimension the number of spatial dimensions, but got input of "
            f"shape {list(input.shape)} and grid of shape {list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic" and spatial != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n, c = input.shape[0], input.shape[1]
    sizes = tuple(reversed(input.shape[2:]))  # (w, h[, d]): the grid's coordinate order
    flat = input.reshape(n, c, -1)
    coords = [_unnormalize(grid[..., k], sizes[k], align_corners) for k in range(spatial)]
    if mode == "bicubic":
        # Taps at floor - 1 .. floor + 2 in each direction, each padded on its own (PyTorch
        # pads the integer taps, not the continuous coordinate).
        base = [x.detach().floor() for x in coords]
        wx, wy = ([w.unsqueeze(1) for w in _cubic_weights(x - b)] for x, b in zip(coords, base))
        out = None
        for j in range(4):
            yi = _pad(base[1] + (j - 1), sizes[1], padding_mode, align_corners).long()
            for i in range(4):
                xi = _pad(base[0] + (i - 1), sizes[0], padding_mode, align_corners).long()
                term = _gather(flat, [xi, yi], sizes[:2]) * (wx[i] * wy[j])
                out = term if out is None else out + term
        return out
    coords = [_pad(x, size, padding_mode, align_corners) for x, size in zip(coords, sizes)]
    if mode == "nearest":
        return _gather(flat, [x.round().long() for x in coords], sizes)
    # (Bi/tri)linear: the 2^spatial corners, each weighted by the product of its fractions.
    base = [x.detach().floor() for x in coords]
    frac = [(x - b).unsqueeze(1) for x, b in zip(coords, base)]
    out = None
    for corner in range(1 << spatial):
        idx, weight = [], None
        for k in range(spatial):
            up = (corner >> k) & 1
            idx.append(base[k].long() + up)
            w = frac[k] if up else 1 - frac[k]
            weight = w if weight is None else weight * w
        term = _gather(flat, idx, sizes) * weight
        out = term if out is None else out + term
    return out


@composite("nn_resample", FLOAT32_64)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler of 4-d input (torch.grid_sampler_2d)."""
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, but got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


@composite("nn_resample", FLOAT32_64)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler of 5-d input (torch.grid_sampler_3d)."""
    if input.dim() != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, but got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
