"""Elementwise semantics the generic op tests do not reach: edge values checked by hand,
operators, in-place rules, aliases, ember.nn.functional, and PyTorch side by side when installed."""

import dataclasses
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F

nan, inf = float("nan"), float("inf")


def values(t):
    return t.tolist()


def test_integer_floor_division_and_remainder_follow_python():
    a = ember.tensor([7, -7, 7, -7])
    b = ember.tensor([2, 2, -2, -2])
    assert values(a // b) == [7 // 2, -7 // 2, 7 // -2, -7 // -2]
    assert values(a % b) == [7 % 2, -7 % 2, 7 % -2, -7 % -2]
    assert values(ember.fmod(a, b)) == [1, -1, 1, -1]  # C's %, the sign of the dividend
    # The most negative int64 divided by -1 wraps (no trap), as PyTorch.
    m = ember.tensor([-(2**63)])
    assert values(m // -1) == [-(2**63)]
    assert values(m % -1) == [0]


def test_float_floor_division_and_remainder_follow_python():
    a = [5.5, -5.5, 5.5, -5.5, 0.3]
    b = [2.0, 2.0, -2.0, -2.0, 0.1]
    got_q = values(ember.tensor(a, dtype=ember.float64) // ember.tensor(b, dtype=ember.float64))
    got_r = values(ember.tensor(a, dtype=ember.float64) % ember.tensor(b, dtype=ember.float64))
    assert got_q == [x // y for x, y in zip(a, b)]
    assert got_r == pytest.approx([x % y for x, y in zip(a, b)])
    assert values(ember.tensor([1.0, -1.0, 0.0]) // 0.0)[:2] == [inf, -inf]
    assert math.isnan(values(ember.tensor([5.0]) % 0.0)[0])


def test_integer_division_by_zero_raises():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.tensor([1, 2]) // ember.tensor([1, 0])
    with pytest.raises(RuntimeError, match=r"\[remainder\] ZeroDivisionError"):
        ember.tensor([1, 2]) % 0
    x = ember.tensor([4, 6])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        x //= 0
    assert values(x) == [4, 6]  # refused before anything was written


def test_shifts_past_the_bit_width():
    x = ember.tensor([5, -5], dtype=ember.int8)
    assert values(x << 9) == [0, 0]
    assert values(x >> 9) == [0, -1]  # the sign fills
    assert values(x << 2) == [20, -20]
    assert values(ember.tensor([1], dtype=ember.int64) << 63) == [-(2**63)]
    assert values(1 << ember.tensor([3])) == [8]


def test_bool_operators():
    a = ember.tensor([True, True, False])
    b = ember.tensor([True, False, False])
    assert values(a & b) == [True, False, False]
    assert values(a | b) == [True, True, False]
    assert values(a ^ b) == [False, True, False]
    assert values(~a) == [False, False, True]
    assert values(~ember.tensor([0, 5])) == [-1, -6]
    with pytest.raises(TypeError):
        ~ember.tensor([1.0])


def test_nan_handling_of_max_min_and_friends():
    a = ember.tensor([1.0, nan, nan])
    b = ember.tensor([nan, 2.0, nan])
    assert all(math.isnan(v) for v in values(ember.maximum(a, b)))
    assert all(math.isnan(v) for v in values(ember.minimum(a, b)))
    assert values(ember.fmax(a, b))[:2] == [1.0, 2.0] and math.isnan(values(ember.fmax(a, b))[2])
    assert values(ember.fmin(a, b))[:2] == [1.0, 2.0]
    assert values(ember.sign(ember.tensor([nan, -0.0, 3.0]))) == [0.0, 0.0, 1.0]
    assert values(ember.isnan(a)) == [False, True, True]
    assert values(ember.logical_not(ember.tensor([nan, 0.0]))) == [False, True]


def test_maximum_gradient_is_shared_on_ties():
    a = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = ember.tensor([1.0, 5.0, 0.0], requires_grad=True)
    ember.maximum(a, b).sum().backward()
    assert values(a.grad) == [0.5, 0.0, 1.0]
    assert values(b.grad) == [0.5, 1.0, 0.0]


def test_clamp_rules():
    x = ember.tensor([-2.0, 0.0, 2.0])
    assert values(x.clamp(min=1.0, max=-1.0)) == [-1.0, -1.0, -1.0]  # min > max: all max
    assert values(ember.clamp(ember.tensor([1, 5, 9]), 2, 6)) == [2, 5, 6]
    assert ember.clamp(ember.tensor([1, 5]), 2.5).dtype == ember.float32  # bounds promote
    lo = ember.tensor([[-1.0], [1.0]])
    assert values(x.clamp(lo)) == [[-1.0, 0.0, 2.0], [1.0, 1.0, 2.0]]
    assert values(ember.clamp(ember.tensor([nan]), 0, 1))[0] != 0  # NaN stays NaN
    y = ember.tensor([1, 5, 9])
    assert y.clamp_(max=4) is y and values(y) == [1, 4, 4]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        x.clamp()


def test_round_is_half_to_even_with_decimals():
    assert values(ember.round(ember.tensor([0.5, 1.5, 2.5, -0.5]))) == [0.0, 2.0, 2.0, -0.0]
    x = ember.tensor([1.2345, 1234.5], dtype=ember.float64)
    assert values(ember.round(x, decimals=2)) == pytest.approx([1.23, 1234.5])
    assert values(ember.round(x, decimals=-2)) == [0.0, 1200.0]
    assert values(ember.round(ember.tensor([3, -4]))) == [3, -4]


def test_nan_to_num_defaults_to_the_dtype_limits():
    x = ember.tensor([nan, inf, -inf, 1.0])
    f32 = np.finfo(np.float32)
    assert values(ember.nan_to_num(x)) == [0.0, float(f32.max), float(f32.min), 1.0]
    h = ember.nan_to_num(x.half())
    assert values(h.float()) == [0.0, 65504.0, -65504.0, 1.0]
    assert values(x.nan_to_num(nan=2.0, posinf=3.0)) == [2.0, 3.0, float(f32.min), 1.0]


def test_special_function_edges():
    assert values(ember.erfinv(ember.tensor([-1.0, 1.0, 1.5, 0.0]))[:2]) == [-inf, inf]
    e = values(ember.erfinv(ember.tensor([0.5], dtype=ember.float64)))[0]
    assert math.erf(e) == pytest.approx(0.5, abs=1e-15)
    assert values(ember.logaddexp(ember.tensor([-inf, inf]), ember.tensor([-inf, inf]))) == [
        -inf,
        inf,
    ]
    big = ember.tensor([1000.0])
    assert values(ember.logaddexp(big, big))[0] == pytest.approx(1000 + math.log(2))
    assert values(F.softplus(big)) == [1000.0]
    assert values(F.logsigmoid(-big)) == [-1000.0]
    assert values(F.mish(big)) == [1000.0]


def test_inplace_forms_return_self_and_check_the_dtype():
    x = ember.tensor([0.25, 4.0])
    assert x.sqrt_() is x and values(x) == [0.5, 2.0]
    assert x.atan2_(ember.tensor([1.0, 1.0])) is x
    i = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match=r"\[exp_\] result type float32 can't be cast"):
        i.exp_()
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.atan2_(i)
    m = ember.tensor([1.0, 2.0, 3.0])
    assert m.gt_(1.5) is m and values(m) == [0.0, 1.0, 1.0]  # bool result cast to float
    b = ember.tensor([True, False])
    assert values(b.logical_not_()) == [False, True]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.ones(3).maximum_(ember.ones(2, 3))


def test_inplace_activation_records_its_gradient():
    x = ember.tensor([-1.0, 2.0], requires_grad=True)
    y = x * 1
    F.leaky_relu(y, 0.1, inplace=True)
    y.sum().backward()
    assert values(x.grad) == pytest.approx([0.1, 1.0])
    with pytest.raises(RuntimeError, match="leaf"):
        x.relu_()


def test_aliases_are_the_same_ops():
    assert ember.arcsin is ember.asin and ember.clip is ember.clamp
    assert ember.Tensor.arctan2_ is ember.Tensor.atan2_
    assert values(ember.greater(ember.tensor([1, 3]), 2)) == [False, True]
    assert values(ember.tensor([0.0]).fix()) == [0.0]


def test_functional_softmax_forms():
    x = ember.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert F.softmax(x, dim=1).sum(1).tolist() == pytest.approx([1.0, 1.0])
    assert F.softmax(x).tolist() == F.softmax(x, 1).tolist()  # the implicit dim of 2-d input
    assert F.log_softmax(x, 0, dtype=ember.float64).dtype == ember.float64


def test_functional_flags_and_errors():
    x = ember.tensor([-3.0, 0.5, 3.0])
    assert F.relu(x) is not x
    y = x.clone()
    assert F.relu(y, inplace=True) is y and values(y) == [0.0, 0.5, 3.0]
    assert values(F.hardtanh(x, -1.0, 1.0)) == [-1.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="min_val cannot be greater"):
        F.hardtanh(x, 2.0, 1.0)
    assert values(F.threshold(x, 0.6, -7.0)) == [-7.0, -7.0, 3.0]
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(x, approximate="erf")
    with pytest.raises(RuntimeError, match="celu"):
        F.celu(x, alpha=0.0)


def test_isclose_allclose_equal():
    a = ember.tensor([1.0, inf, nan, 1.0])
    b = ember.tensor([1.0 + 1e-7, inf, nan, 1.1])
    assert values(ember.isclose(a, b)) == [True, True, False, False]
    assert values(ember.isclose(a, b, equal_nan=True)) == [True, True, True, False]
    assert ember.allclose(a[:2], b[:2]) is True
    assert ember.allclose(a, b, rtol=0.2, equal_nan=True)
    assert ember.equal(ember.tensor([1, 2]), ember.tensor([1, 2]))
    assert not ember.equal(ember.tensor([1, 2]), ember.tensor([[1, 2]]))
    assert values(ember.all(ember.tensor([[1, 0], [1, 1]]), dim=1)) == [False, True]
    assert values(ember.any(ember.zeros(0))) is False
    assert values(ember.all(ember.zeros(0))) is True
    assert ember.all(ember.tensor([1, 2], dtype=ember.uint8)).dtype == ember.uint8


ACTIVATIONS = [
    ("relu6", {}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {"alpha": 0.7}),
    ("selu", {}),
    ("celu", {"alpha": 0.5}),
    ("gelu", {}),
    ("gelu", {"approximate": "tanh"}),
    ("silu", {}),
    ("mish", {}),
    ("softplus", {"beta": 2.0, "threshold": 3.0}),
    ("softsign", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("hardsigmoid", {}),
    ("hardswish", {}),
    ("logsigmoid", {}),
    ("tanhshrink", {}),
]


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}{kw}" for n, kw in ACTIVATIONS])
def test_activations_match_pytorch_when_installed(name, kw):
    torch = pytest.importorskip("torch")
    x = np.linspace(-5, 5, 41)
    got = getattr(F, name)(ember.tensor(x, requires_grad=True, dtype=ember.float64), **kw)
    want = getattr(torch.nn.functional, name)(torch.tensor(x, requires_grad=True), **kw)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_binary_ops_match_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.integers(-50, 50, 200)
    b = rng.integers(-7, 8, 200)
    b[b == 0] = 3
    for name in ["floor_divide", "remainder", "fmod", "bitwise_and", "bitwise_xor", "maximum"]:
        got = getattr(ember, name)(ember.from_numpy(a), ember.from_numpy(b)).numpy()
        want = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)
    fa, fb = rng.normal(0, 3, 200), rng.normal(0, 3, 200)
    for name in ["floor_divide", "remainder", "fmod", "atan2", "hypot", "logaddexp"]:
        got = getattr(ember, name)(ember.from_numpy(fa), ember.from_numpy(fb)).numpy()
        want = getattr(torch, name)(torch.from_numpy(fa), torch.from_numpy(fb)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=name)


def test_inplace_module_functions_and_products():
    x = ember.tensor([0.0, 1.0])
    assert ember.exp_(x) is x and x.tolist() == [1.0, pytest.approx(math.e)]
    y = ember.tensor([-1.0, 2.0])
    assert ember.relu_(y) is y and y.tolist() == [0.0, 2.0]
    c = ember.ones(2, 2)
    m = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert c.addmm_(m, m, beta=2, alpha=1) is c
    assert c.tolist() == [[9.0, 12.0], [17.0, 24.0]]
    v = ember.zeros(2)
    v.addmv_(m, ember.tensor([1.0, 1.0]))
    assert v.tolist() == [3.0, 7.0]
    s = ember.tensor([1.0, 2.0, 3.0])
    assert s.cumsum_(0) is s and s.tolist() == [1.0, 3.0, 6.0]
    assert s.cumprod_(0).tolist() == [1.0, 3.0, 18.0]


def _elementwise_cases():
    """(spec, dtype) for every unary and binary op and each float dtype it declares."""
    from ember.testing.op_db import OPS

    kinds = {name: kind for name, kind, *_ in ember._op_registry()}
    return [
        pytest.param(s, d, id=f"{s.name}-{d}".replace("ember.", ""))
        for s in OPS
        if kinds.get(s.name) in ("unary", "binary")
        for d in (ember.float32, ember.float64)
        if d in s.dtypes
    ]


@pytest.mark.parametrize("spec,dtype", _elementwise_cases())
def test_vectorised_loops_match_numpy(spec, dtype):
    """The op-table samples are small, below the size where contiguous float data takes the
    vectorised (Highway) loops; here each sample is tiled to 1000 elements, with NaN and
    infinities in some lanes so that the scalar fallback of a vector runs too."""
    from test_ops import TOL, expected_values

    from ember.testing.op_db import to_numpy, to_tensor

    rng = np.random.default_rng(0)
    for sample in spec.samples(dtype, rng):
        arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
        if not arrays or any(a.size == 0 for a in arrays):
            continue
        args = []
        for a in sample.args:
            if isinstance(a, np.ndarray):
                big = np.resize(a.astype(np.float64).ravel(), 1000)
                big[[37, 500]] = [np.nan, np.inf]  # two vectors take the scalar path
                a = big
            args.append(a)
        sample = dataclasses.replace(sample, args=tuple(args))
        got = spec.op(*[to_tensor(a, dtype) for a in sample.args], **sample.kwargs)
        (want,) = expected_values(spec, sample, dtype)
        rtol, atol = TOL[dtype]
        np.testing.assert_allclose(
            to_numpy(got), want, rtol=rtol, atol=atol, equal_nan=True, err_msg=spec.name
        )
        break  # one sample per op: the loops are the same for the others


# ---- gradients of the clamp-like activations (one fused pass) ----
# relu, relu6, hardtanh, threshold, clamp and hardsigmoid pass g through where the input is
# inside a band and give g * 0 elsewhere (a NaN input is outside). Each case: the op, the band
# (lo, hi, closed), and what the gradient is divided by inside it.
_BAND_CASES = {
    "relu": (ember.relu, 0.0, None, False, 1.0),
    "relu6": (F.relu6, 0.0, 6.0, False, 1.0),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 2.0), -0.5, 2.0, False, 1.0),
    "threshold": (lambda x: F.threshold(x, 0.25, -3.0), 0.25, None, False, 1.0),
    "clamp": (lambda x: ember.clamp(x, -0.5, 2.0), -0.5, 2.0, True, 1.0),
    "hardsigmoid": (F.hardsigmoid, -3.0, 3.0, False, 6.0),
}
# The bounds themselves, just inside and outside them, signed zeros, infinities and NaN.
_EDGES = [-3.0, -0.5, -0.0, 0.0, 0.25, 2.0, 3.0, 6.0, inf, -inf, nan]


def _band_inputs(dtype, n):
    rng = np.random.default_rng(n)
    edges = np.array(_EDGES, dtype=dtype)
    near = np.concatenate([np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    x = np.concatenate([edges, near, rng.uniform(-8, 8, n).astype(dtype)])
    g = rng.standard_normal(x.size).astype(dtype)  # negative g: g * 0 is -0.0
    return x, g


def _band_expected(name, x, g):
    _, lo, hi, closed, div = _BAND_CASES[name]
    with np.errstate(invalid="ignore"):
        lo_ok = x >= lo if closed else x > lo
        hi_ok = np.ones_like(lo_ok) if hi is None else (x <= hi if closed else x < hi)
    mask = (lo_ok & hi_ok).astype(x.dtype)
    return g * mask if div == 1.0 else g * mask / x.dtype.type(div)


def _assert_same_bits(got, want):
    np.testing.assert_array_equal(got, want)  # NaN matches NaN
    assert np.array_equal(np.signbit(got), np.signbit(want))  # and -0.0 is not 0.0


@pytest.mark.parametrize("name", sorted(_BAND_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [40, 70000])  # one chunk; several chunks of parallel_for
def test_band_gradients_match_numpy(name, dtype, n):
    fn = _BAND_CASES[name][0]
    xa, ga = _band_inputs(dtype, n)
    x = ember.tensor(xa, requires_grad=True)
    fn(x).backward(ember.tensor(ga))
    _assert_same_bits(x.grad.numpy(), _band_expected(name, xa, ga))


@pytest.mark.parametrize("name", sorted(_BAND_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_band_gradients_of_strided_inputs_match_numpy(name, dtype):
    fn = _BAND_CASES[name][0]
    xa, ga = _band_inputs(dtype, 349)  # 33 edge values + 349 = 382 = 191 * 2
    # x and g every other element of a buffer: neither is contiguous.
    base = ember.tensor(np.stack([xa, -xa], axis=1), requires_grad=True)
    g = ember.tensor(np.stack([-ga, ga], axis=1))[:, 1]
    fn(base[:, 0]).backward(g)
    _assert_same_bits(base.grad.numpy()[:, 0], _band_expected(name, xa, ga))
    assert not base.grad.numpy()[:, 1].any()
    # Transposed x and g (the same strides, so walked together, but not contiguous).
    xt = ember.tensor(xa.reshape(191, 2), requires_grad=True)
    fn(xt.t()).backward(ember.tensor(ga.reshape(191, 2)).t())
    want = _band_expected(name, xa.reshape(191, 2), ga.reshape(191, 2))
    _assert_same_bits(xt.grad.numpy(), want)


@pytest.mark.parametrize("name", sorted(_BAND_CASES))
def test_band_gradients_of_channels_last_and_broadcast_gradients(name):
    fn = _BAND_CASES[name][0]
    xa, ga = _band_inputs(np.float32, 327)  # 33 + 327 = 360 = 2 * 3 * 6 * 10
    xa, ga = xa.reshape(2, 3, 6, 10), ga.reshape(2, 3, 6, 10)
    x = ember.tensor(xa).contiguous(memory_format=ember.channels_last).requires_grad_()
    g = ember.tensor(ga).contiguous(memory_format=ember.channels_last)
    fn(x).backward(g)
    _assert_same_bits(x.grad.numpy(), _band_expected(name, xa, ga))
    # sum's gradient reaches the op as one value expanded (stride 0).
    x.grad = None
    fn(x).sum().backward()
    _assert_same_bits(x.grad.numpy(), _band_expected(name, xa, np.ones_like(xa)))


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh", "threshold", "clamp"])
def test_band_gradients_are_the_bits_of_the_composite_expression(name):
    # The fused pass computes g * mask, as the expression it replaced (g * (x > lo) * ...):
    # a NaN or infinite g outside the band gives NaN, a negative one -0.0. (PyTorch's
    # threshold_backward gives +0.0 outside the band whatever g is.)
    fn, lo, hi, closed, _ = _BAND_CASES[name]
    xa = np.array([-1.0, 0.0, 0.25, 1.0, 2.0, 6.0, nan, -1.0, -1.0, -1.0, 1.0, 1.0])
    ga = np.array([-2.0, -2.0, -2.0, 3.0, 1.0, 1.0, 1.0, nan, inf, -inf, nan, -inf])
    for dt in [ember.float32, ember.float64, ember.float16, ember.bfloat16]:
        x = ember.tensor(xa, dtype=dt, requires_grad=True)
        g = ember.tensor(ga, dtype=dt)
        fn(x).backward(g)
        xd = x.detach()
        mask = (xd >= lo) if closed else (xd > lo)
        if hi is not None:
            mask = mask * ((xd <= hi) if closed else (xd < hi))
        want = g * mask
        assert x.grad.dtype == dt
        _assert_same_bits(x.grad.double().numpy(), want.double().numpy())


@pytest.mark.parametrize("name", sorted(_BAND_CASES))
def test_band_gradients_pass_gradcheck_and_gradgradcheck(name):
    fn = _BAND_CASES[name][0]
    # Away from the kinks, where finite differences see a smooth function.
    x = ember.tensor([-4.0, -1.0, -0.3, 0.1, 0.4, 1.0, 1.9, 2.5, 4.0, 7.0], dtype=ember.float64)
    x.requires_grad_()
    assert ember.autograd.gradcheck(fn, (x,))
    assert ember.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", sorted(_BAND_CASES))
def test_band_gradient_is_differentiable_in_g_only(name):
    fn = _BAND_CASES[name][0]
    xa = np.array([-4.0, -1.0, 0.0, 0.4, 1.0, 2.5, 7.0, nan])
    x = ember.tensor(xa, requires_grad=True)
    g = ember.tensor(np.arange(1.0, 9.0), requires_grad=True)
    (gx,) = ember.autograd.grad(fn(x), x, g, create_graph=True)
    w = np.array([1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0])
    gg, gxx = ember.autograd.grad((gx * ember.tensor(w)).sum(), (g, x), allow_unused=True)
    # d(gx . w)/dg = w * mask (/ 6 for hardsigmoid); the mask is piecewise constant in x, so
    # nothing reaches x.
    np.testing.assert_allclose(gg.numpy(), _band_expected(name, xa, w), rtol=1e-15)
    assert gxx is None or not gxx.numpy().any()
