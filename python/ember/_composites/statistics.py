"""Statistics composites: covariance and correlation, quantiles, histograms, counts."""

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import FLOAT32_64, FLOATING, INTEGRAL, NUMERIC


@composite("statistics", FLOATING, method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows (observations in its columns), with
    optional integer frequency and real observation weights, as numpy.cov."""
    if input.dim() > 2:
        raise ValueError(
            f"[cov] expected input to have two or fewer dimensions but got {input.dim()}"
        )
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.is_floating_point():
            raise TypeError("[cov] expected fweights to have an integral dtype")
        w = fweights.to(x.dtype)
    if aweights is not None:
        if not aweights.is_floating_point():
            raise TypeError("[cov] expected aweights to have a floating point dtype")
        w = aweights.to(x.dtype) if w is None else w * aweights.to(x.dtype)
    if w is None:
        w_sum = float(n)
        avg = x.mean(1, keepdim=True)
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1, keepdim=True) / w_sum
        if aweights is None or correction == 0:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    xm = x - avg
    xw = xm if w is None else xm * w
    c = xw @ xm.t()
    out = c / (max(norm, 0) if isinstance(norm, float) else _C.clamp(norm, min=0))
    return out.squeeze() if input.dim() < 2 else out


@composite("statistics", FLOATING, method=True)
def corrcoef(input):
    """Pearson correlation coefficients of input's rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.reshape(-1, 1)
    c = c / std.reshape(1, -1)
    return _C.clamp(c, -1, 1)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(
            f"[{name}] interpolation must be one of linear, lower, higher, midpoint or nearest. "
            f"Got {interpolation}"
        )
    scalar_q = not isinstance(q, _C.Tensor)
    qt = _C.tensor(q, dtype=input.dtype) if scalar_q else q
    if qt.dim() > 1:
        raise RuntimeError(f"[{name}] q must be a scalar or 1D tensor")
    if bool(((qt < 0) | (qt > 1)).any()):
        raise RuntimeError(f"[{name}] q values must be in the range [0, 1]")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else (dim + input.dim() if dim < 0 else dim)
    if x.dim() == 0:
        x, d = x.reshape(1), 0
    if x.shape[d] == 0:
        raise IndexError(f"[{name}] input tensor must be non-empty")
    xs = x.movedim(d, -1)
    sorted_x, _ = _C.sort(xs, -1)  # NaNs sort last
    nan = _C.isnan(xs)
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True)
    else:
        count = _C.full_like(nan.sum(-1, keepdim=True), xs.shape[-1])
    qv = qt.reshape(-1)
    last = (count - 1).clamp(min=0).to(xs.dtype)
    pos = last * qv  # [..., nq]
    if interpolation == "lower":
        pos = pos.floor()
    elif interpolation == "higher":
        pos = pos.ceil()
    elif interpolation == "nearest":
        pos = pos.round()
    lo = pos.floor().long()
    hi = pos.ceil().long()
    v_lo = sorted_x.gather(-1, lo)
    v_hi = sorted_x.gather(-1, hi)
    if interpolation == "midpoint":
        out = v_lo + (v_hi - v_lo) * 0.5 * (hi != lo).to(xs.dtype)
    else:
        out = _C.lerp(v_lo, v_hi, (pos - lo.to(xs.dtype)))
    # A NaN in a row makes its quantile NaN (quantile); a row of NaNs only, too (nanquantile).
    bad = nan.any(-1, keepdim=True) if not ignore_nan else (count == 0)
    out = _C.where(bad.expand_as(out), _C.full_like(out, float("nan")), out)
    out = out.movedim(-1, 0)  # [nq, ...]
    if keepdim:
        if dim is None:
            out = out.reshape(out.shape[:1] + (1,) * input.dim())
        else:
            out = out.unsqueeze(d + 1)
    return out[0] if scalar_q or qt.dim() == 0 else out


@composite("statistics", FLOAT32_64, method=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of input (over everything, or along dim), as numpy.quantile; a NaN
    gives NaN. With a 1-d q, the quantiles stack on a new first dimension."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@composite("statistics", FLOAT32_64, method=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring NaNs (NaN only where a row holds nothing else)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


@composite("statistics", FLOATING, method=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN."""
    x = input if dtype is None else input.to(dtype)
    keep = ~_C.isnan(x)
    total = _C.nansum(x, dim, keepdim) if dim is not None else _C.nansum(x)
    count = keep.sum(dim, keepdim) if dim is not None else keep.sum()
    if dim is None and keepdim:
        total, count = total.reshape((1,) * x.dim()), count.reshape((1,) * x.dim())
    return total / count.to(total.dtype)


@composite("statistics", FLOAT32_64, method=True, differentiable=False)
def histc(input, bins=100, min=0, max=0):
    """A histogram of `bins` equal bins over [min, max] (the data's range when both are 0);
    values outside are ignored, the maximum goes in the last bin."""
    if bins <= 0:
        raise RuntimeError(f"[histc] bins must be > 0, but got {bins}")
    lo, hi = float(min), float(max)
    x = input.reshape(-1)
    if lo == hi and x.numel():
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"[histc] max must be larger than min, got min {min} and max {max}")
    inside = (x >= lo) & (x <= hi)
    xi = x[inside]
    idx = ((xi - lo) * (bins / (hi - lo))).floor().long().clamp(0, bins - 1)
    counts = _C.zeros(bins, dtype=input.dtype, device=input.device)
    return counts.index_add(0, idx, _C.ones_like(xi))


@composite("statistics", INTEGRAL, differentiable=False, method=True)
def bincount(input, weights=None, minlength=0):
    """How often each value 0..max(input) occurs (weighted: the sum of the weights there)."""
    if input.dim() != 1:
        raise RuntimeError(
            f"[bincount] only supports 1-d non-negative integral inputs, got {input.dim()} dims"
        )
    if input.numel() and bool((input < 0).any()):
        raise RuntimeError("[bincount] only supports 1-d non-negative integral inputs")
    if minlength < 0:
        raise RuntimeError(f"[bincount] minlength should be >= 0, got {minlength}")
    n = max(int(input.max()) + 1 if input.numel() else 0, minlength)
    if weights is None:
        return _C.zeros(n, dtype=_C.int64, device=input.device).index_add(
            0, input.long(), _C.ones_like(input, dtype=_C.int64)
        )
    if weights.shape != input.shape:
        raise RuntimeError("[bincount] weights should be 1-d and have the same length as input")
    dtype = weights.dtype if weights.is_floating_point() else _C.float64
    if weights.dtype == _C.float16 or weights.dtype == _C.bfloat16:
        dtype = weights.dtype
    return _C.zeros(n, dtype=dtype, device=input.device).index_add(
        0, input.long(), weights.to(dtype)
    )


@composite("statistics", NUMERIC, method=True, differentiable=False)
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) over everything or along dim, as a named tuple."""
    if dim is None:
        lo, hi = _C.amin(input), _C.amax(input)
        if keepdim:
            lo, hi = lo.reshape((1,) * input.dim()), hi.reshape((1,) * input.dim())
    else:
        lo, hi = _C.amin(input, dim, keepdim), _C.amax(input, dim, keepdim)
    return _MinMax(lo, hi)


class _MinMax(tuple):
    """torch.return_types.aminmax: (min, max)."""

    def __new__(cls, lo, hi):
        return super().__new__(cls, (lo, hi))

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])


@composite("statistics", FLOATING, method=True, inplace_dtypes=FLOATING)
def renorm(input, p, dim, maxnorm):
    """Each sub-tensor along dim (input.select(dim, i)) whose p-norm exceeds maxnorm scaled
    down to norm maxnorm."""
    if p <= 0:
        raise RuntimeError(f"[renorm] renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"[renorm] renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = dim + input.dim() if dim < 0 else dim
    others = [k for k in range(input.dim()) if k != d]
    norms = input.abs().pow(p).sum(others, keepdim=True).pow(1.0 / p) if others else (input.abs())
    factor = _C.where(norms > maxnorm, maxnorm / (norms + 1e-7), _C.ones_like(norms))
    return input * factor


def _bin_edges(x, bins, range, dtype):
    """The edges of histogram bins over the 1-d x: `bins` itself when it is a tensor of edges,
    else bins + 1 equal steps over range, or over x's span (widened by 1/2 each side when x is
    constant, [0, 1] when empty), as numpy.histogram."""
    if isinstance(bins, _C.Tensor):
        return bins.to(dtype)
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    elif x.numel():
        lo, hi = float(x.min()), float(x.max())
    else:
        lo, hi = 0.0, 1.0
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _C.linspace(lo, hi, int(bins) + 1, dtype=dtype)


@composite("statistics", FLOAT32_64, differentiable=False, method=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges), as numpy.histogram: bins equal bins over range (the data's by
    default) or the given edges."""
    x = input.reshape(-1)
    edges = _bin_edges(x, bins, range, input.dtype)
    nb = edges.numel() - 1
    inside = (x >= edges[0]) & (x <= edges[-1])
    xi = x[inside]
    idx = (_C.searchsorted(edges, xi.contiguous(), right=True) - 1).clamp(0, nb - 1)
    w = _C.ones_like(xi) if weight is None else weight.reshape(-1)[inside].to(input.dtype)
    hist = _C.zeros(nb, dtype=input.dtype).index_add(0, idx, w)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return _Histogram(hist, edges)


class _Histogram(tuple):
    """torch.return_types.histogram: (hist, bin_edges)."""

    def __new__(cls, hist, bin_edges):
        return super().__new__(cls, (hist, bin_edges))

    hist = property(lambda self: self[0])
    bin_edges = property(lambda self: self[1])


@composite("statistics", FLOAT32_64, differentiable=False)
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """(hist, bin_edges) of the points input [N, D] (leading dims flattened): bins an int, a list
    of D ints or a list of D edge tensors; range a flat list of D (min, max) pairs."""
    import builtins

    D = input.shape[-1]
    x = input.reshape(-1, D)
    if isinstance(bins, int):
        bins = [bins] * D
    edges = [
        _bin_edges(
            x[:, d], bins[d], None if range is None else range[2 * d : 2 * d + 2], input.dtype
        )
        for d in builtins.range(D)
    ]
    sizes = [e.numel() - 1 for e in edges]
    inside = _C.ones(x.shape[0], dtype=_C.bool)
    flat = _C.zeros(x.shape[0], dtype=_C.int64)
    for d, e in enumerate(edges):
        col = x[:, d].contiguous()
        inside = inside & (col >= e[0]) & (col <= e[-1])
        idx = (_C.searchsorted(e, col, right=True) - 1).clamp(0, sizes[d] - 1)
        flat = flat * sizes[d] + idx
    w = _C.ones(x.shape[0], dtype=input.dtype) if weight is None else weight.reshape(-1)
    w = _C.where(inside, w.to(input.dtype), _C.zeros_like(w, dtype=input.dtype))
    total = 1
    for n in sizes:
        total *= n
    hist = _C.zeros(total, dtype=input.dtype).index_add(0, flat, w).reshape(sizes)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = sizes[d]
            hist = hist / (e[1:] - e[:-1]).reshape(shape)
    return _HistogramDD(hist, edges)


class _HistogramDD(tuple):
    """torch.return_types.histogramdd: (hist, bin_edges)."""

    def __new__(cls, hist, bin_edges):
        return super().__new__(cls, (hist, bin_edges))

    hist = property(lambda self: self[0])
    bin_edges = property(lambda self: self[1])


@composite("statistics", NUMERIC, method=True)
def mode(input, dim=-1, keepdim=False):
    """(values, indices): the most frequent value along dim (the smallest of equally frequent
    ones) and the index of its last occurrence."""
    import builtins

    d = dim % input.dim() if input.dim() else 0
    x = input.movedim(d, -1) if input.dim() else input.reshape(1)
    n = x.shape[-1]
    if n == 0:
        raise IndexError("[mode] cannot compute mode of an empty dimension")
    rows = x.reshape(-1, n)
    values, order = rows.sort(-1, stable=True)
    vals, idxs = [], []
    for v, o in zip(values.tolist(), order.tolist()):
        best, best_count, best_end, start = None, 0, 0, 0
        for i in builtins.range(1, n + 1):
            if i == n or v[i] != v[start]:
                if i - start > best_count:
                    best, best_count, best_end = v[start], i - start, i
                start = i
        run = o[best_end - best_count : best_end]
        vals.append(best)
        idxs.append(max(run))
    out_shape = x.shape[:-1]
    index = _C.tensor(idxs, dtype=_C.int64).reshape(out_shape)
    if input.dim():
        values_out = input.gather(d, index.unsqueeze(d)).squeeze(d)
    else:
        values_out = input.clone()
        index = index.reshape(())
    if keepdim and input.dim():
        values_out, index = values_out.unsqueeze(d), index.unsqueeze(d)
    return _Mode(values_out, index)


class _Mode(tuple):
    """torch.return_types.mode: (values, indices)."""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])


@composite("statistics", FLOATING)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivatives of input along each of dim (all dims by default) by second-order central
    differences inside and one-sided differences of edge_order at the ends, as numpy.gradient.
    spacing: one number, one number per dim, or per dim a 1-d tensor of coordinates."""
    import builtins

    if edge_order not in (1, 2):
        raise RuntimeError(
            "[gradient] torch.gradient only supports edge_order=1 and edge_order=2, got "
            f"{edge_order}"
        )
    if dim is None:
        dims = list(builtins.range(input.dim()))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [d % input.dim() for d in dims]
    if isinstance(spacing, (int, float)):
        spacing = [spacing] * len(dims)
    elif isinstance(spacing, _C.Tensor) and spacing.dim() == 0:
        spacing = [float(spacing)] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(
            f"[gradient] expected spacing to be unspecified, a scalar or a list of length "
            f"{len(dims)}, got a list of length {len(spacing)}"
        )
    outs = []
    for d, h in zip(dims, spacing):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(
                f"[gradient] each dimension must have at least edge_order+1 elements, dim {d} "
                f"has {n}"
            )

        def sl(a, b, d=d):
            return input.narrow(d, a, b - a)

        shape = [1] * input.dim()
        shape[d] = -1
        if isinstance(h, _C.Tensor) and h.dim() == 1:
            x = h.to(input.dtype)
            dx = x[1:] - x[:-1]
            hl, hr = dx[:-1].reshape(shape), dx[1:].reshape(shape)
            interior = (
                hl * hl * sl(2, n) - hr * hr * sl(0, n - 2) + (hr * hr - hl * hl) * sl(1, n - 1)
            ) / (hl * hr * (hl + hr))
            if edge_order == 1:
                first = (sl(1, 2) - sl(0, 1)) / dx[0]
                last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx[-1]
            else:
                h1, h2 = dx[0], dx[1]
                first = (
                    -(2 * h1 + h2) / (h1 * (h1 + h2)) * sl(0, 1)
                    + (h1 + h2) / (h1 * h2) * sl(1, 2)
                    - h1 / (h2 * (h1 + h2)) * sl(2, 3)
                )
                h1, h2 = dx[-1], dx[-2]
                last = (
                    h1 / (h2 * (h1 + h2)) * sl(n - 3, n - 2)
                    - (h1 + h2) / (h1 * h2) * sl(n - 2, n - 1)
                    + (2 * h1 + h2) / (h1 * (h1 + h2)) * sl(n - 1, n)
                )
        else:
            h = float(h)
            interior = (sl(2, n) - sl(0, n - 2)) / (2 * h)
            if edge_order == 1:
                first = (sl(1, 2) - sl(0, 1)) / h
                last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
            else:
                first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
                last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
        outs.append(_C.cat([first, interior, last], d))
    return tuple(outs)
