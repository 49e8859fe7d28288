from ember import _C


def assert_close(
    actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=True, msg=None
) -> None:
    """Raises AssertionError unless actual and expected have the same shape (and dtype) and
    |actual - expected| <= atol + rtol * |expected| elementwise. Default tolerances by dtype, as
    torch.testing.assert_close."""
    import numpy as np

    defaults = {
        _C.float16: (1e-3, 1e-5),
        _C.bfloat16: (1.6e-2, 1e-5),
        _C.float32: (1.3e-6, 1e-5),
        _C.float64: (1e-7, 1e-7),
    }
    a = actual if isinstance(actual, _C.Tensor) else _C.tensor(actual)
    e = expected if isinstance(expected, _C.Tensor) else _C.tensor(expected, dtype=a.dtype)
    if tuple(a.shape) != tuple(e.shape):
        raise AssertionError(msg or f"shape mismatch: {tuple(a.shape)} vs {tuple(e.shape)}")
    if check_dtype and a.dtype != e.dtype:
        raise AssertionError(msg or f"dtype mismatch: {a.dtype} vs {e.dtype}")
    d_rtol, d_atol = defaults.get(a.dtype, (0.0, 0.0))
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    av = np.asarray(a.detach().double().numpy() if a.is_floating_point() else a.detach().numpy())
    ev = np.asarray(e.detach().double().numpy() if e.is_floating_point() else e.detach().numpy())
    if not np.allclose(av, ev, rtol=rtol, atol=atol, equal_nan=equal_nan):
        diff = np.abs(av.astype(np.float64) - ev.astype(np.float64))
        raise AssertionError(
            msg
            or f"tensors are not close: max abs diff {np.nanmax(diff) if diff.size else 0} "
            f"(rtol={rtol}, atol={atol})\nactual:   {a}\nexpected: {e}"
        )
