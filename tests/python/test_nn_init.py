"""nn.init: PyTorch's formulas (bounds checked exactly), sample statistics on large tensors
with a fixed seed, orthogonality, and the in-place / no-grad contract."""

import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.nn import init


def as_np(t):
    return np.asarray(t.detach().double().tolist(), dtype=np.float64)


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1
    assert init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == math.sqrt(2.0 / 6)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_fan_in_and_fan_out():
    assert init._calculate_fan_in_and_fan_out(ember.empty(8, 4, 3, 3)) == (36, 72)
    assert init._calculate_fan_in_and_fan_out(ember.empty(5, 7)) == (7, 5)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(ember.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(ember.empty(3, 3), mode="fan_avg")


def _check_uniform(t, bound):
    v = as_np(t)
    assert v.max() <= bound and v.min() >= -bound
    # With tens of thousands of samples the extremes come within 1% of the bound.
    assert v.max() > 0.99 * bound and v.min() < -0.99 * bound
    assert abs(v.std() - bound / math.sqrt(3)) < 0.02 * bound / math.sqrt(3)


def test_uniform_variants_use_torchs_bounds():
    w = ember.empty(200, 100, 3)  # fan_in 300, fan_out 600
    init.xavier_uniform_(w)
    _check_uniform(w, math.sqrt(6.0 / 900))
    init.xavier_uniform_(w, gain=2.0)
    _check_uniform(w, 2.0 * math.sqrt(6.0 / 900))
    # nn.Linear's default: kaiming_uniform_(a=sqrt(5)) gives bound 1/sqrt(fan_in).
    init.kaiming_uniform_(w, a=math.sqrt(5))
    _check_uniform(w, 1.0 / math.sqrt(300))
    init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")
    _check_uniform(w, math.sqrt(2.0) * math.sqrt(3.0 / 600))
    init.uniform_(w, -0.5, 1.5)
    v = as_np(w)
    assert v.min() >= -0.5 and v.max() <= 1.5 and abs(v.mean() - 0.5) < 0.01


def test_normal_variants_std():
    w = ember.empty(300, 200)  # fan_in 200, fan_out 300
    init.kaiming_normal_(w, mode="fan_in", nonlinearity="relu")
    v = as_np(w)
    assert abs(v.std() - math.sqrt(2.0 / 200)) < 0.02 * math.sqrt(2.0 / 200)
    assert abs(v.mean()) < 0.01 * math.sqrt(2.0 / 200) * 10
    init.xavier_normal_(w, gain=init.calculate_gain("tanh"))
    std = (5.0 / 3) * math.sqrt(2.0 / 500)
    assert abs(as_np(w).std() - std) < 0.02 * std
    init.normal_(w, mean=3.0, std=0.5)
    v = as_np(w)
    assert abs(v.mean() - 3.0) < 0.01 and abs(v.std() - 0.5) < 0.01


def test_trunc_normal():
    w = ember.empty(100000)
    init.trunc_normal_(w, mean=1.0, std=2.0, a=-1.0, b=3.0)
    v = as_np(w)
    assert v.min() >= -1.0 and v.max() <= 3.0
    # A normal truncated to +-1 std: variance 1 - 2 * phi(1) / (Phi(1) - Phi(-1)).
    phi = math.exp(-0.5) / math.sqrt(2 * math.pi)
    mass = math.erf(1 / math.sqrt(2))
    expected_std = 2.0 * math.sqrt(1 - 2 * phi / mass)
    assert abs(v.std() - expected_std) < 0.02 * expected_std
    assert abs(v.mean() - 1.0) < 0.02
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        init.trunc_normal_(ember.empty(10), mean=10.0, std=1.0)


def test_constant_ones_zeros_eye():
    w = ember.empty(2, 3)
    assert init.constant_(w, 0.25) is w and as_np(w).tolist() == [[0.25] * 3] * 2
    assert init.ones_(w) is w and as_np(w).sum() == 6
    assert init.zeros_(w) is w and as_np(w).sum() == 0
    assert init.eye_(w) is w
    assert as_np(w).tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(ember.empty(2, 2, 2))
    with pytest.raises(TypeError, match="nn.init.ones_: expected an ember.Tensor"):
        init.ones_(np.zeros(2))


def test_dirac_preserves_the_input():
    w = ember.empty(4, 4, 3)
    init.dirac_(w)
    x = ember.randn(2, 4, 7)
    np.testing.assert_allclose(as_np(F.conv1d(x, w, padding=1)), as_np(x), atol=1e-6)
    # Groups: each group's first min(out/groups, in) channels pass through.
    wg = ember.empty(6, 2, 3, 3)
    init.dirac_(wg, groups=3)
    xg = ember.randn(1, 6, 5, 5)
    y = as_np(F.conv2d(xg, wg, padding=1, groups=3))
    np.testing.assert_allclose(y, as_np(xg), atol=1e-6)
    # More outputs than inputs: the extra output channels are zero.
    w2 = init.dirac_(ember.empty(3, 2, 1, 1, 1))
    assert as_np(w2).reshape(3, 2).tolist() == [[1, 0], [0, 1], [0, 0]]
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        init.dirac_(ember.empty(2, 2))
    with pytest.raises(ValueError, match="divisible by groups"):
        init.dirac_(ember.empty(5, 2, 3), groups=2)


def test_orthogonalisation_matches_numpy_qr():
    # orthogonal_ draws a float64 Gaussian matrix from the generator and keeps Q of its QR:
    # the same draws through NumPy's QR give the same Q.
    a = ember.empty(70, 40, dtype=ember.float64).normal_(
        0.0, 1.0, generator=ember.Generator().manual_seed(3)
    )
    w = ember.empty(70, 40, dtype=ember.float64)
    q = as_np(init.orthogonal_(w, generator=ember.Generator().manual_seed(3)))
    q_np, r_np = np.linalg.qr(as_np(a))
    q_np = q_np * np.sign(np.diag(r_np))  # PyTorch's sign fix: diag(R) > 0
    np.testing.assert_allclose(q, q_np, atol=1e-10)


@pytest.mark.parametrize("shape", [(50, 30), (30, 50), (64, 64), (10, 4, 3, 3)])
def test_orthogonal(shape):
    w = ember.empty(*shape)
    assert init.orthogonal_(w, gain=2.0) is w
    m = as_np(w).reshape(shape[0], -1)
    rows, cols = m.shape
    gram = m.T @ m if rows >= cols else m @ m.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(min(rows, cols)), atol=1e-5)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(ember.empty(3))


def test_sparse():
    w = ember.empty(20, 50)
    init.sparse_(w, sparsity=0.3, std=0.5)
    v = as_np(w)
    assert ((v == 0).sum(axis=0) == 6).all()  # ceil(0.3 * 20) zeros per column
    nz = v[v != 0]
    assert abs(nz.std() - 0.5) < 0.05
    # The zeros are in different rows in different columns.
    assert len({tuple(np.flatnonzero(v[:, j] == 0)) for j in range(50)}) > 40


def test_generator_and_seed_reproducibility():
    g1 = ember.Generator()
    g1.manual_seed(123)
    g2 = ember.Generator()
    g2.manual_seed(123)
    a = init.kaiming_uniform_(ember.empty(5, 5), generator=g1)
    b = init.kaiming_uniform_(ember.empty(5, 5), generator=g2)
    c = init.kaiming_uniform_(ember.empty(5, 5), generator=g2)
    assert as_np(a).tolist() == as_np(b).tolist() != as_np(c).tolist()
    for fn in (init.xavier_normal_, init.trunc_normal_, init.orthogonal_, init.normal_):
        g1.manual_seed(5)
        g2.manual_seed(5)
        assert (
            as_np(fn(ember.empty(4, 4), generator=g1)).tolist()
            == as_np(fn(ember.empty(4, 4), generator=g2)).tolist()
        )
    ember.manual_seed(7)
    x = init.xavier_uniform_(ember.empty(3, 3))
    ember.manual_seed(7)
    assert as_np(x).tolist() == as_np(init.xavier_uniform_(ember.empty(3, 3))).tolist()


def test_in_place_without_history_on_parameters():
    p = ember.nn.Parameter(ember.empty(4, 4))
    for fn in (
        init.xavier_uniform_,
        init.kaiming_normal_,
        init.orthogonal_,
        init.trunc_normal_,
        init.ones_,
        init.eye_,
    ):
        out = fn(p)
        assert out is p and p.requires_grad and p.is_leaf and p.grad_fn is None
    with pytest.warns(UserWarning, match="zero-element"):
        init.kaiming_uniform_(ember.empty(0, 3))


def test_deprecated_names_warn_and_work():
    w = ember.empty(3, 4)
    with pytest.warns(FutureWarning, match=r"`nn.init.constant` is now deprecated in favor of"):
        out = init.constant(w, 2.5)
    assert out is w and as_np(w).tolist() == [[2.5] * 4] * 3
    with pytest.warns(FutureWarning, match="xavier_uniform_"):
        init.xavier_uniform(w)
    assert np.abs(as_np(w)).max() <= math.sqrt(6.0 / 7)
