"""Random numbers: seeding, generators, reproducibility, distributions."""

import numpy as np
import pytest

import ember


def test_manual_seed_reproduces_every_sampler():
    def draw():
        return (
            ember.rand(5).tolist(),
            ember.randn(3).tolist(),
            ember.randint(0, 100, (4,)).tolist(),
            ember.randperm(6).tolist(),
        )

    ember.manual_seed(123)
    first = draw()
    ember.manual_seed(123)
    assert draw() == first
    ember.manual_seed(124)
    assert draw() != first


def test_generator_objects_and_state():
    g = ember.Generator().manual_seed(7)
    a = ember.rand(4, generator=g).tolist()
    state = g.get_state()
    b = ember.rand(4, generator=g).tolist()
    g.set_state(state)
    assert ember.rand(4, generator=g).tolist() == b
    assert ember.Generator().manual_seed(7).initial_seed() == 7
    assert ember.rand(4, generator=ember.Generator().manual_seed(7)).tolist() == a
    with pytest.raises(ValueError):
        g.set_state(ember.zeros(3, dtype=ember.uint8))


def test_results_do_not_depend_on_thread_count():
    threads = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        ember.manual_seed(5)
        one = ember.randn(100_000)
        s1 = one.sum().item()
        ember.set_num_threads(2)
        ember.manual_seed(5)
        two = ember.randn(100_000)
        s2 = two.sum().item()
        assert one.tolist() == two.tolist()
        assert s1 == s2  # deterministic reductions: same bits
    finally:
        ember.set_num_threads(threads)


def test_distributions_have_the_right_moments():
    x = ember.rand(200_000, dtype=ember.float64)
    assert 0.0 <= x.max().item() < 1.0
    assert abs(x.mean().item() - 0.5) < 0.005
    n = ember.randn(200_000, dtype=ember.float64)
    mean = n.mean().item()
    var = ((n - mean) ** 2).mean().item()
    assert abs(mean) < 0.01 and abs(var - 1.0) < 0.02
    r = ember.randint(3, 7, (10_000,))
    assert r.dtype == ember.int64 and set(r.tolist()) == {3, 4, 5, 6}
    assert sorted(ember.randperm(10).tolist()) == list(range(10))


# ---- bernoulli, multinomial, normal and the in-place samplers ----------------------------------

N = 100_000


def _moments(t):
    """Sample mean and variance in float64, through NumPy."""
    v = t.double().numpy()
    return v.mean(), v.var()


def _close(value, expected, std_error, k=5.0):
    assert abs(value - expected) <= k * std_error, (value, expected, std_error)


def _draw_every_sampler(gen=None):
    kw = {} if gen is None else {"generator": gen}
    w = ember.tensor([[1.0, 2.0, 0.0, 3.0], [0.5, 0.5, 0.5, 0.5]])
    return (
        ember.bernoulli(ember.full((7,), 0.4), **kw).tolist(),
        ember.bernoulli(ember.ones(5), 0.3, **kw).tolist(),
        ember.multinomial(w, 3, **kw).tolist(),
        ember.multinomial(w, 9, replacement=True, **kw).tolist(),
        ember.normal(ember.zeros(3), ember.ones(3), **kw).tolist(),
        ember.normal(1.0, ember.ones(3), **kw).tolist(),
        ember.normal(ember.zeros(3), 2.0, **kw).tolist(),
        ember.normal(0.0, 1.0, (2, 2), **kw).tolist(),
        ember.empty(5).normal_(**kw).tolist(),
        ember.empty(5).uniform_(-1, 1, **kw).tolist(),
        ember.empty(5).exponential_(**kw).tolist(),
        ember.empty(5, dtype=ember.int64).random_(**kw).tolist(),
        ember.empty(5).random_(0, 10, **kw).tolist(),
        ember.empty(5).bernoulli_(0.5, **kw).tolist(),
        ember.empty(5).bernoulli_(ember.full((5,), 0.5), **kw).tolist(),
    )


def test_the_new_samplers_are_reproducible_and_follow_the_state():
    ember.manual_seed(11)
    first = _draw_every_sampler()
    ember.manual_seed(11)
    assert _draw_every_sampler() == first
    ember.manual_seed(12)
    assert _draw_every_sampler() != first
    # The default generator's state restores the sequence.
    state = ember.get_rng_state()
    assert state.dtype == ember.uint8
    again = _draw_every_sampler()
    ember.set_rng_state(state)
    assert _draw_every_sampler() == again
    # A Generator object: its own sequence, and get_state / set_state.
    g = ember.Generator().manual_seed(3)
    a = _draw_every_sampler(g)
    assert _draw_every_sampler(ember.Generator().manual_seed(3)) == a
    s = g.get_state()
    b = _draw_every_sampler(g)
    g.set_state(s)
    assert _draw_every_sampler(g) == b


def test_the_new_samplers_do_not_depend_on_thread_count():
    threads = ember.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            ember.set_num_threads(n)
            ember.manual_seed(21)
            p = ember.rand(N, dtype=ember.float64)
            w = ember.rand(64, 50, dtype=ember.float64)
            results.append(
                (
                    ember.bernoulli(p).tolist(),
                    ember.multinomial(w, 20).tolist(),
                    ember.multinomial(w, 100, replacement=True).tolist(),
                    ember.normal(p, p).tolist(),
                    ember.empty(N).exponential_().tolist(),
                    ember.empty(N, dtype=ember.int32).random_(-5, 5).tolist(),
                    ember.empty(N).bernoulli_(p).tolist(),
                )
            )
        assert results[0] == results[1]
    finally:
        ember.set_num_threads(threads)


def test_bernoulli_frequencies():
    ember.manual_seed(0)
    for p in (0.1, 0.5, 0.9):
        freq = ember.bernoulli(ember.full((N,), p, dtype=ember.float64)).mean().item()
        _close(freq, p, (p * (1 - p) / N) ** 0.5)
        freq = ember.empty(N, dtype=ember.int64).bernoulli_(p).double().mean().item()
        _close(freq, p, (p * (1 - p) / N) ** 0.5)
        freq = ember.bernoulli(ember.zeros(N), p).mean().item()
        _close(freq, p, (p * (1 - p) / N) ** 0.5)
    # Per-element probabilities: the frequency of each half follows its own p.
    p = ember.from_numpy(np.repeat([0.2, 0.7], N))
    x = ember.bernoulli(p).numpy()
    _close(x[:N].mean(), 0.2, (0.2 * 0.8 / N) ** 0.5)
    _close(x[N:].mean(), 0.7, (0.7 * 0.3 / N) ** 0.5)


def test_multinomial_frequencies_and_no_repeats():
    ember.manual_seed(0)
    w = ember.tensor([1.0, 0.0, 2.0, 7.0], dtype=ember.float64)
    p = w.numpy() / w.numpy().sum()
    draws = ember.multinomial(w, N, replacement=True).numpy()
    counts = np.bincount(draws, minlength=4) / N
    assert counts[1] == 0
    for c, q in zip(counts, p):
        _close(c, q, (q * (1 - q) / N) ** 0.5)
    # Without replacement: no index repeats in a row, zero weights never drawn, and the first draw
    # follows the weights.
    rows = ember.rand(2000, 10, dtype=ember.float64)
    rows[:, 3] = 0.0
    out = ember.multinomial(rows, 9).numpy()
    assert all(len(set(r)) == 9 for r in out.tolist())
    assert not (out == 3).any()
    first = ember.multinomial(w.expand(N, 4), 1).numpy()[:, 0]
    counts = np.bincount(first, minlength=4) / N
    for c, q in zip(counts, p):
        _close(c, q, (q * (1 - q) / N) ** 0.5)
    # Second draw without replacement: P(second = j) = sum_i p_i p_j / (1 - p_i), i != j.
    second = ember.multinomial(w.expand(N, 4), 2).numpy()[:, 1]
    want = [sum(p[i] * p[j] / (1 - p[i]) for i in range(4) if i != j) for j in range(4)]
    counts = np.bincount(second, minlength=4) / N
    for c, q in zip(counts, want):
        _close(c, q, (q * (1 - q) / N) ** 0.5)


def test_multinomial_errors():
    with pytest.raises(RuntimeError, match="not enough"):
        ember.multinomial(ember.tensor([1.0, 0.0, 1.0]), 3)
    with pytest.raises(RuntimeError, match="without replacement"):
        ember.multinomial(ember.tensor([1.0, 1.0]), 3)
    with pytest.raises(RuntimeError, match="only supports floating-point"):
        ember.multinomial(ember.tensor([1, 2]), 1)
    # With replacement, more samples than categories are fine.
    assert ember.multinomial(ember.tensor([1.0, 1.0]), 5, True).shape == (5,)


def test_normal_moments():
    ember.manual_seed(0)
    for x in (
        ember.normal(2.0, 3.0, (N,), dtype=ember.float64),
        ember.normal(ember.full((N,), 2.0, dtype=ember.float64), 3.0),
        ember.normal(2.0, ember.full((N,), 3.0, dtype=ember.float64)),
        ember.normal(
            ember.full((N,), 2.0, dtype=ember.float64), ember.full((N,), 3.0, dtype=ember.float64)
        ),
        ember.empty(N, dtype=ember.float64).normal_(2.0, 3.0),
    ):
        m, v = _moments(x)
        _close(m, 2.0, 3.0 / N**0.5)
        _close(v, 9.0, 9.0 * (2.0 / N) ** 0.5)
    x = ember.normal(ember.zeros(3, 1), ember.ones(4))
    assert x.shape == (3, 4) and x.dtype == ember.float32
    assert ember.normal(0.0, 1.0, (2, 3), dtype=ember.float16).dtype == ember.float16


def test_normal_gradient_is_zero_as_in_pytorch():
    mean = ember.zeros(4, requires_grad=True)
    std = ember.ones(4, requires_grad=True)
    out = ember.normal(mean, std)
    assert out.requires_grad
    out.sum().backward()
    assert mean.grad.tolist() == [0.0] * 4 and std.grad.tolist() == [0.0] * 4


def test_uniform_exponential_random_moments():
    ember.manual_seed(0)
    u = ember.empty(N, dtype=ember.float64).uniform_(-2.0, 4.0)
    m, v = _moments(u)
    assert u.min().item() >= -2.0 and u.max().item() < 4.0
    _close(m, 1.0, (3.0 / N) ** 0.5)
    _close(v, 3.0, 0.02 * 3.0)
    e = ember.empty(N, dtype=ember.float64).exponential_(2.0)
    m, v = _moments(e)
    assert e.min().item() >= 0
    _close(m, 0.5, 0.5 / N**0.5)
    _close(v, 0.25, 0.25 * (8.0 / N) ** 0.5)
    r = ember.empty(N, dtype=ember.int64).random_(-3, 5).numpy()
    assert r.min() == -3 and r.max() == 4
    counts = np.bincount(r + 3) / N
    for c in counts:
        _close(c, 1 / 8, ((1 / 8) * (7 / 8) / N) ** 0.5)
    r = ember.empty(N, dtype=ember.float32).random_(6).numpy()
    assert set(np.unique(r).tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}
    r = ember.empty(N, dtype=ember.uint8).random_().numpy()
    assert r.min() == 0 and r.max() == 255
    r = ember.empty(N, dtype=ember.bool).random_().numpy()
    _close(r.mean(), 0.5, (0.25 / N) ** 0.5)
    big = ember.empty(1000, dtype=ember.int64).random_(2**62, None).numpy()
    assert (big >= 2**62).all()
    full = ember.empty(N, dtype=ember.float64).random_().numpy()
    assert (full >= 0).all() and (full <= 2**53).all() and (full == np.round(full)).all()


def test_inplace_samplers_on_views_and_autograd():
    # A strided view: only its elements change, and the call returns the same object.
    base = ember.zeros(4, 6)
    view = base[:, ::2]
    assert view.uniform_(1.0, 2.0) is view
    b = base.numpy()
    assert (b[:, 1::2] == 0).all() and (b[:, ::2] >= 1).all()
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.normal_()
    with pytest.raises(RuntimeError, match="uniform_"):
        ember.zeros(3, dtype=ember.int64).uniform_()
    # On a non-leaf, the old values get a zero gradient.
    y = x * 2
    y.exponential_()
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_randint_takes_low_high_and_size_by_keyword():
    def draw(*args, **kwargs):
        ember.manual_seed(5)
        return ember.randint(*args, **kwargs).tolist()

    want = draw(2, 9, (6,))
    assert draw(2, 9, size=(6,)) == want
    assert draw(low=2, high=9, size=(6,)) == want
    assert draw(2, high=9, size=(6,)) == want
    assert draw(9, size=(6,)) == draw(0, 9, (6,))
    assert draw(high=9, size=[2, 3]) == draw(0, 9, (2, 3))
    with pytest.raises(TypeError, match=r"randint\(\) expects \(high, size\)"):
        ember.randint(3)
