"""ember.signal.windows against scipy.signal.windows in float64 (symmetric and periodic), and
their dtypes, edge lengths and errors."""

import numpy as np
import pytest
import scipy.signal.windows as sw

import ember
from ember.signal import windows as W

CASES = [
    ("bartlett", {}, lambda M, sym: sw.bartlett(M, sym=sym)),
    ("blackman", {}, lambda M, sym: sw.blackman(M, sym=sym)),
    ("cosine", {}, lambda M, sym: sw.cosine(M, sym=sym)),
    ("exponential", {"tau": 2.5}, lambda M, sym: sw.exponential(M, tau=2.5, sym=sym)),
    ("gaussian", {"std": 1.7}, lambda M, sym: sw.gaussian(M, 1.7, sym=sym)),
    (
        "general_cosine",
        {"a": [0.5, 0.3, 0.2]},
        lambda M, sym: sw.general_cosine(M, [0.5, 0.3, 0.2], sym=sym),
    ),
    ("general_hamming", {"alpha": 0.6}, lambda M, sym: sw.general_hamming(M, 0.6, sym=sym)),
    ("hamming", {}, lambda M, sym: sw.hamming(M, sym=sym)),
    ("hann", {}, lambda M, sym: sw.hann(M, sym=sym)),
    ("kaiser", {"beta": 8.0}, lambda M, sym: sw.kaiser(M, 8.0, sym=sym)),
    ("nuttall", {}, lambda M, sym: sw.nuttall(M, sym=sym)),
]


@pytest.mark.parametrize("name, kw, ref", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("M", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("sym", [True, False])
def test_windows_match_scipy(name, kw, ref, M, sym):
    got = getattr(W, name)(M, sym=sym, dtype=ember.float64, **kw)
    assert got.dtype == ember.float64 and tuple(got.shape) == (M,)
    np.testing.assert_allclose(got.numpy(), ref(M, sym), rtol=1e-12, atol=1e-14)


def test_dtype_grad_and_errors():
    w = W.hann(8, dtype=ember.float32, requires_grad=True)
    assert w.dtype == ember.float32 and w.requires_grad and w.is_leaf
    assert W.hann(4).dtype == ember.get_default_dtype()
    np.testing.assert_allclose(W.hann(5).numpy(), [0, 0.5, 1, 0.5, 0], atol=1e-7)  # by hand
    with pytest.raises(ValueError, match="non-negative"):
        W.hann(-1)
    with pytest.raises(ValueError, match="floating point"):
        W.hamming(4, dtype=ember.int64)
    with pytest.raises(ValueError, match="Center must be None"):
        W.exponential(4, center=1.0)
    np.testing.assert_allclose(
        W.exponential(6, center=1.0, sym=False, dtype=ember.float64).numpy(),
        sw.exponential(6, center=1.0, sym=False),
        rtol=1e-12,
    )
