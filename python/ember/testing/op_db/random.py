"""Op-table records of the random ops: the factories (rand, randn, randint, randperm and their
*_like forms), the samplers with tensor parameters and the in-place samplers (bernoulli,
multinomial, normal, normal_, uniform_, exponential_, random_, bernoulli_) and the samplers with
per-element parameters (_standard_gamma, poisson, binomial).

The records have a `check` instead of a reference: dtype, shape, the support of the
distribution and the values forced by the parameters (p = 0 or 1, std = 0). Their moments are
checked in tests/python/test_random.py."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    NUMERIC,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    make_array,
    rounded,
    size_samples,
    to_numpy,
    unary_samples,
)


def _check_dtype_shape(out, dtype, shape):
    assert out.dtype == dtype, (out.dtype, dtype)
    assert tuple(out.shape) == tuple(shape), (tuple(out.shape), shape)


def _probabilities(shape, rng):
    """Probabilities with exact zeros and ones among them."""
    p = rng.uniform(0, 1, size=shape)
    flat = p.reshape(-1)
    flat[::3] = 0.0
    flat[1::3] = 1.0
    return p


def _bernoulli_samples(dtype, rng):
    return [
        Sample((_probabilities((1000,), rng),), desc="1000"),
        Sample((_probabilities((3, 4), rng),), desc="3x4"),
        Sample((np.zeros((0, 2)),), desc="zero-size"),
        Sample((np.array(0.5),), desc="0-d"),
        Sample((make_array((200,), dtype, rng),), {"p": 0.0}, desc="p=0"),
        Sample((make_array((200,), dtype, rng),), {"p": 1.0}, desc="p=1"),
        Sample((make_array((200,), dtype, rng),), {"p": 0.3}, desc="p=0.3"),
    ]


def _bernoulli_check(out, sample, dtype):
    x = sample.args[0]
    _check_dtype_shape(out, dtype, x.shape)
    v = to_numpy(out)
    assert np.all((v == 0) | (v == 1)), v
    p = rounded(x, dtype) if "p" not in sample.kwargs else np.full(x.shape, sample.kwargs["p"])
    assert np.all(v[p == 0] == 0) and np.all(v[p == 1] == 1)


def _multinomial_weights(shape, rng):
    w = rng.uniform(0.1, 2.0, size=shape)
    w[..., 1] = 0.0  # never drawn
    return w


def _multinomial_samples(dtype, rng):
    return [
        Sample((_multinomial_weights((6,), rng), 5), desc="1-d, all nonzero"),
        Sample((_multinomial_weights((3, 6), rng), 4), desc="2-d"),
        Sample((_multinomial_weights((3, 6), rng), 50, True), desc="2-d with replacement"),
        Sample((_multinomial_weights((6,), rng), 1000), {"replacement": True}, desc="1-d, many"),
        Sample((_multinomial_weights((0, 6), rng), 2), desc="no rows"),
        Sample((np.array([0.0, 0.0, 3.0]), 1), desc="one nonzero"),
    ]


def _multinomial_check(out, sample, dtype):
    w, k = sample.args[0], sample.args[1]
    replacement = sample.args[2] if len(sample.args) > 2 else sample.kwargs.get("replacement")
    _check_dtype_shape(out, ember.int64, w.shape[:-1] + (k,))
    v = to_numpy(out).reshape(-1, k)
    rows = w.reshape(-1, w.shape[-1])
    for row, drawn in zip(rows, v):
        assert np.all((drawn >= 0) & (drawn < w.shape[-1])), drawn
        assert np.all(row[drawn] > 0), (row, drawn)
        if not replacement:
            assert len(set(drawn.tolist())) == k, drawn


def _multinomial_errors():
    w = ember.tensor([1.0, 0.0, 2.0])
    return [
        ErrorSample(lambda: ember.multinomial(w, 3), RuntimeError, "not enough", "zeros"),
        ErrorSample(lambda: ember.multinomial(w, 4), RuntimeError, "without replacement", "k > n"),
        ErrorSample(
            lambda: ember.multinomial(ember.tensor([1.0, -1.0]), 1), RuntimeError, "< 0", "negative"
        ),
        ErrorSample(
            lambda: ember.multinomial(ember.tensor([0.0, 0.0]), 1, True),
            RuntimeError,
            "sum",
            "zero",
        ),
        ErrorSample(
            lambda: ember.multinomial(ember.ones(2, 2, 2), 1), RuntimeError, "1-D or 2-D", "3-d"
        ),
        ErrorSample(lambda: ember.multinomial(w, 0), RuntimeError, "multinomial", "no samples"),
    ]


def _normal(*args, **kwargs):
    return ember.normal(*args, **kwargs)


def _normal_samples(dtype, rng):
    mean = make_array((1000,), dtype, rng)
    return [
        Sample((mean, make_array((1000,), dtype, rng, 0.5, 2)), desc="tensor, tensor"),
        Sample(
            (make_array((3, 1), dtype, rng), make_array((4,), dtype, rng, 0.5, 2)), desc="bcast"
        ),
        Sample((make_array((3, 4), dtype, rng), 2.0), desc="tensor, float"),
        Sample((1.5, make_array((3, 4), dtype, rng, 0.5, 2)), desc="float, tensor"),
        Sample((make_array((5,), dtype, rng), np.zeros(5)), desc="std 0"),
        Sample((make_array((5,), dtype, rng), 0.0), desc="float std 0"),
        Sample((np.zeros((0, 3)), 1.0), desc="zero-size"),
        Sample((np.array(1.0), np.array(2.0)), desc="0-d"),
        Sample((0.5, 2.0), {"size": (4, 5), "dtype": dtype}, desc="float, float, size"),
    ]


def _normal_check(out, sample, dtype):
    arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
    shape = (
        sample.kwargs["size"]
        if "size" in sample.kwargs
        else np.broadcast_shapes(*[a.shape for a in arrays])
    )
    _check_dtype_shape(out, dtype, shape)
    v = to_numpy(out)
    assert np.all(np.isfinite(v))
    mean, std = (rounded(a, dtype) for a in sample.args[:2])
    forced = np.broadcast_to(np.asarray(std) == 0, v.shape)
    np.testing.assert_array_equal(v[forced], np.broadcast_to(mean, v.shape)[forced])


def _inplace_samples(kwargs_list, shapes=((1000,), (3, 4), (0, 2), ())):
    def make(dtype, rng):
        out = []
        for s in shapes:
            for kw in kwargs_list:
                out.append(Sample((make_array(s, dtype, rng),), dict(kw), desc=f"{s} {kw}"))
        return out

    return make


def _range_check(low_of, high_of, closed=False, integral=False):
    """Values in [low, high) (closed: [low, high]), the bounds computed from the sample."""

    def check(out, sample, dtype):
        _check_dtype_shape(out, dtype, sample.args[0].shape)
        v = to_numpy(out).astype(np.float64)
        lo, hi = low_of(sample, dtype), high_of(sample, dtype)
        if v.size:
            assert v.min() >= lo, (v.min(), lo)
            assert v.max() <= hi if closed else v.max() < hi, (v.max(), hi)
            if integral:
                assert np.all(v == np.round(v))

    return check


_DIGITS = {ember.float16: 11, ember.bfloat16: 8, ember.float32: 24, ember.float64: 53}


def _dtype_max(dtype):
    if dtype in FLOATING:
        return 2.0 ** _DIGITS[dtype]
    if dtype == ember.bool:
        return 1
    return np.iinfo(np.dtype(str(dtype).replace("ember.", ""))).max


def _random_(x, *args, **kwargs):
    return x.random_(*args, **kwargs)


def _random_samples(dtype, rng):
    out = []
    for s in [(1000,), (3, 4), (0, 2), ()]:
        x = make_array(s, dtype, rng)
        out.append(Sample((x,), desc=f"{s} random_()"))
        out.append(Sample((x, 2), desc=f"{s} to=2"))
        out.append(Sample((x, 1, 2), desc=f"{s} from=1 to=2"))
        if dtype != ember.bool:
            out.append(Sample((x, 3, 7), desc=f"{s} from=3 to=7"))
            out.append(Sample((x, 5, None), desc=f"{s} from=5 to=None"))
    return out


def _random_low(sample, dtype):
    return sample.args[1] if len(sample.args) == 3 else 0


def _random_high(sample, dtype):
    if len(sample.args) == 1 or sample.args[-1] is None:
        return _dtype_max(dtype)
    return sample.args[-1] - 1


def _random_errors():
    return [
        ErrorSample(lambda: ember.ones(3).random_(5, 5), RuntimeError, "random_", "from >= to"),
        ErrorSample(
            lambda: ember.ones(3, dtype=ember.uint8).random_(0, 300),
            RuntimeError,
            "out of bounds",
            "uint8 to",
        ),
        ErrorSample(
            lambda: ember.ones(3, dtype=ember.bool).random_(3),
            RuntimeError,
            "out of bounds",
            "bool",
        ),
    ]


def _bernoulli_inplace(x, p):
    return x.bernoulli_(p)


def _bernoulli_inplace_samples(dtype, rng):
    out = []
    for s in [(1000,), (3, 4), (0, 2), ()]:
        x = make_array(s, dtype, rng)
        out += [Sample((x, p), desc=f"{s} p={p}") for p in (0.0, 1.0, 0.5)]
    x = make_array((4, 3), dtype, rng)
    out.append(Sample((x, Fixed(_probabilities((3,), rng), ember.float64)), desc="tensor p"))
    out.append(Sample((x, Fixed(_probabilities((4, 3), rng), ember.float32)), desc="tensor p"))
    return out


def _bernoulli_inplace_check(out, sample, dtype):
    x, p = sample.args
    _check_dtype_shape(out, dtype, x.shape)
    v = to_numpy(out).astype(np.float64)
    assert np.all((v == 0) | (v == 1)), v
    p = np.broadcast_to(rounded(p, dtype) if isinstance(p, Fixed) else p, v.shape)
    assert np.all(v[p == 0] == 0) and np.all(v[p == 1] == 1)


def _finite_check(low=-np.inf):
    def check(out, sample, dtype):
        _check_dtype_shape(out, dtype, sample.args[0].shape)
        v = to_numpy(out)
        assert np.all(np.isfinite(v)) and np.all(v >= low), v

    return check


RANDOM = [
    OpSpec(
        "bernoulli",
        ember.bernoulli,
        None,
        FLOATING,
        _bernoulli_samples,
        grad=False,
        check=_bernoulli_check,
        errors=lambda: [
            ErrorSample(
                lambda: ember.bernoulli(ember.tensor([0.5, 1.5])), RuntimeError, "[0, 1]", "p > 1"
            ),
            ErrorSample(
                lambda: ember.bernoulli(ember.ones(2), 2.0), RuntimeError, "bernoulli", "float p"
            ),
        ],
    ),
    OpSpec(
        "multinomial",
        ember.multinomial,
        None,
        FLOATING,
        _multinomial_samples,
        grad=False,
        check=_multinomial_check,
        errors=_multinomial_errors,
    ),
    OpSpec(
        "normal",
        _normal,
        None,
        FLOATING,
        _normal_samples,
        grad=False,
        check=_normal_check,
        errors=lambda: [
            ErrorSample(
                lambda: ember.normal(ember.zeros(2), -1.0), RuntimeError, "std >= 0.0", "std < 0"
            ),
            ErrorSample(
                lambda: ember.normal(ember.zeros(2), -ember.ones(2)),
                RuntimeError,
                "std >= 0.0",
                "std",
            ),
            ErrorSample(lambda: ember.normal(0.0, 1.0), TypeError, "size", "no size"),
        ],
    ),
    OpSpec(
        "normal_",
        lambda x, **kw: x.normal_(**kw),
        None,
        FLOATING,
        _inplace_samples([{}, {"mean": 2.0, "std": 0.5}]),
        grad=False,
        check=_finite_check(),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(2).normal_(0, -1), RuntimeError, "std >= 0.0", "std"),
            ErrorSample(
                lambda: ember.ones(2, requires_grad=True).normal_(),
                RuntimeError,
                "leaf",
                "leaf that requires grad",
            ),
        ],
    ),
    OpSpec(
        "uniform_",
        lambda x, **kw: x.uniform_(**kw),
        None,
        FLOATING,
        _inplace_samples([{}, {"from": -2.0, "to": 3.0}]),
        grad=False,
        check=_range_check(
            lambda s, d: s.kwargs.get("from", 0.0), lambda s, d: s.kwargs.get("to", 1.0), True
        ),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(2).uniform_(3, 2), RuntimeError, "uniform_", "from > to")
        ],
    ),
    OpSpec(
        "exponential_",
        lambda x, **kw: x.exponential_(**kw),
        None,
        FLOATING,
        _inplace_samples([{}, {"lambd": 3.0}]),
        grad=False,
        check=_finite_check(0.0),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(2).exponential_(0), RuntimeError, "lambda > 0", "rate")
        ],
    ),
    OpSpec(
        "random_",
        _random_,
        None,
        ALL,
        _random_samples,
        grad=False,
        check=_range_check(_random_low, _random_high, True, integral=True),
        errors=_random_errors,
    ),
    OpSpec(
        "bernoulli_",
        _bernoulli_inplace,
        None,
        ALL,
        _bernoulli_inplace_samples,
        grad=False,
        check=_bernoulli_inplace_check,
        errors=lambda: [
            ErrorSample(lambda: ember.ones(2).bernoulli_(1.5), RuntimeError, "0 <= p <= 1", "p"),
            ErrorSample(
                lambda: ember.ones(2).bernoulli_(ember.ones(3) * 0.5),
                RuntimeError,
                "broadcast",
                "p shape",
            ),
        ],
    ),
]


def _random_check(low, high, integral=False):
    def check(out, sample, dtype):
        assert out.dtype == dtype
        v = to_numpy(out)
        assert v.shape == tuple(out.shape)
        if np.iscomplexobj(v):  # both parts uniform on [low, high)
            v = np.stack([v.real, v.imag])
        if v.size:
            assert v.min() >= low and v.max() < high, (v.min(), v.max())
            if integral:
                assert np.all(v == np.round(v))

    return check


def _randn_check(out, sample, dtype):
    assert out.dtype == dtype
    v = to_numpy(out)
    assert np.all(np.isfinite(v))
    if np.iscomplexobj(v) and v.size >= 1000:
        # Independent parts of variance 1/2 each (4.5 standard errors either way).
        for part in (v.real, v.imag):
            assert 0.4 < part.var() < 0.6, part.var()
        assert abs(np.corrcoef(v.real.ravel(), v.imag.ravel())[0, 1]) < 0.15


FACTORIES = [
    OpSpec(
        "rand",
        lambda size, dtype: ember.rand(*size, dtype=dtype),
        None,
        FLOATING + COMPLEX,
        size_samples([(1000,), (0,), ()]),
        grad=False,
        check=_random_check(0, 1),
        errors=lambda: [
            ErrorSample(
                lambda: ember.rand(3, dtype=ember.int64), RuntimeError, "rand", "integer dtype"
            )
        ],
        creation=True,
    ),
    OpSpec(
        "randn",
        lambda size, dtype: ember.randn(*size, dtype=dtype),
        None,
        FLOATING + COMPLEX,
        size_samples([(1000,), (0,), ()]),
        grad=False,
        check=_randn_check,
        creation=True,
    ),
    OpSpec(
        "randint",
        lambda size, dtype: ember.randint(0, 5, size, dtype=dtype),
        None,
        NUMERIC,
        size_samples([(1000,), (0,)]),
        grad=False,
        check=_random_check(0, 5, True),
        errors=lambda: [
            ErrorSample(lambda: ember.randint(5, 5, (3,)), RuntimeError, "randint", "low >= high")
        ],
        creation=True,
    ),
    OpSpec(
        "randperm",
        lambda size, dtype: ember.randperm(size[0], dtype=dtype),
        None,
        NUMERIC,
        size_samples([(50,), (0,)]),
        grad=False,
        check=lambda out, s, d: np.testing.assert_array_equal(
            np.sort(to_numpy(out)), np.arange(s.kwargs["size"][0])
        ),
        creation=True,
    ),
    OpSpec(
        "rand_like",
        lambda x: ember.rand_like(x),
        None,
        FLOATING + COMPLEX,
        unary_samples(),
        grad=False,
        check=_random_check(0, 1),
    ),
    OpSpec(
        "randn_like",
        lambda x: ember.randn_like(x),
        None,
        FLOATING + COMPLEX,
        unary_samples(),
        grad=False,
        check=_randn_check,
    ),
    OpSpec(
        "randint_like",
        lambda x: ember.randint_like(x, 0, 4),
        None,
        NUMERIC,
        unary_samples(),
        grad=False,
        check=_random_check(0, 4, True),
    ),
]


# ---- gamma, Poisson, binomial -------------------------------------------------------------------


def _positive_samples(low, high, zero=False):
    """Parameters in [low, high) of several shapes (with zeros where the sampler allows them);
    on both sides of the samplers' switches (Poisson rate 10, gamma alpha 1)."""

    def make(dtype, rng):
        out = []
        for shape in ((500,), (3, 4), (0,), ()):
            a = np.asarray(rng.uniform(low, high, size=shape))
            if zero and a.size:
                a.reshape(-1)[::7] = 0.0
            out.append(Sample((a,), desc=str(shape)))
        return out

    return make


def _counts_check(integer, positive=False, upper=None):
    def check(out, sample, dtype):
        a = sample.args[0]
        _check_dtype_shape(out, dtype, np.shape(a))
        v = to_numpy(out)
        assert np.all(np.isfinite(v)) and np.all(v >= 0), v
        if positive:
            assert np.all(v > 0), v  # the smallest normal number at least, never 0
        if integer:
            assert np.all(v == np.round(v)), v
            assert np.all(v[rounded(a, dtype) == 0] == 0)
        if upper is not None:
            assert np.all(v <= upper(sample, dtype)), v

    return check


def _binomial_samples(dtype, rng):
    out = []
    for shape in ((500,), (3, 4), ()):
        count = np.asarray(np.floor(rng.uniform(0, 60, size=shape)))
        out.append(Sample((count, _probabilities(shape, rng)), desc=str(shape)))
    out.append(Sample((np.full((4,), 5.0), np.array(0.5)), desc="broadcast p"))
    return out


def _binomial_check(out, sample, dtype):
    count, prob = np.broadcast_arrays(*[rounded(a, dtype) for a in sample.args])
    _check_dtype_shape(out, dtype, count.shape)
    v = to_numpy(out)
    assert np.all(v == np.round(v)) and np.all(v >= 0) and np.all(v <= count), v
    assert np.all(v[prob == 0] == 0) and np.all(v[prob == 1] == count[prob == 1])


RANDOM += [
    OpSpec(
        "_standard_gamma",
        ember._C._sample_gamma,
        None,
        FLOATING,
        _positive_samples(0.05, 12.0),
        grad=False,
        check=_counts_check(False, positive=True),
        errors=lambda: [
            ErrorSample(
                lambda: ember._C._sample_gamma(ember.tensor([-1.0])),
                RuntimeError,
                ">= 0",
                "alpha<0",
            )
        ],
    ),
    OpSpec(
        "poisson",
        ember.poisson,
        None,
        FLOATING,
        _positive_samples(0.0, 30.0, zero=True),
        grad=False,
        check=_counts_check(True),
        errors=lambda: [
            ErrorSample(
                lambda: ember.poisson(ember.tensor([-1.0])), RuntimeError, "rate", "rate < 0"
            ),
            ErrorSample(
                lambda: ember.poisson(ember.tensor([1, 2])), RuntimeError, "floating", "int64"
            ),
        ],
    ),
    OpSpec(
        "binomial",
        ember.binomial,
        None,
        FLOATING,
        _binomial_samples,
        grad=False,
        check=_binomial_check,
        errors=lambda: [
            ErrorSample(
                lambda: ember.binomial(ember.tensor([3.0]), ember.tensor([1.5])),
                RuntimeError,
                "[0, 1]",
                "p > 1",
            )
        ],
    ),
]


def records():
    return FACTORIES + RANDOM
