"""The mt19937 random stream (ember.random.set_stream): PyTorch's CPU numbers for a seed.

The expected values are PyTorch's, hand-checked against the Mersenne Twister's reference outputs
(NumPy's MT19937 with legacy seeding gives the same raw words); test_random_torch.py compares
with PyTorch itself where it is installed."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def mt19937():
    before = ember.random.get_stream()
    ember.random.set_stream("mt19937")
    yield
    ember.random.set_stream(before)


def _words(seed, n):
    """The Mersenne Twister's first n 32-bit outputs for a seed, as PyTorch seeds it."""
    bits = np.random.MT19937()
    bits._legacy_seeding(seed)
    return bits.random_raw(n).astype(np.uint64)


def _u53(words):
    w = (words[0::2] << np.uint64(32)) | words[1::2]
    return (w & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53


def test_pytorch_values_for_seed_0():
    # torch.manual_seed(0); torch.rand(5) and torch.randn(4, dtype=torch.float64) in PyTorch.
    ember.manual_seed(0)
    np.testing.assert_array_equal(
        ember.rand(5).numpy(),
        np.array([0.4962566, 0.7682218, 0.08847743, 0.13203049, 0.30742282], np.float32),
    )
    ember.manual_seed(0)
    np.testing.assert_allclose(
        ember.randn(4, dtype=ember.float64).numpy(),
        [1.54099611, -0.29342891, -2.17878938, 0.56843128],
        rtol=1e-7,
    )


def test_uniform_integer_and_permutation_follow_the_raw_words():
    ember.manual_seed(3)
    words = _words(3, 64)
    f32 = ember.rand(4).numpy()
    np.testing.assert_array_equal(
        f32, ((words[:4] & np.uint64(2**24 - 1)) * 2.0**-24).astype(np.float32)
    )
    f64 = ember.rand(2, dtype=ember.float64).numpy()
    np.testing.assert_array_equal(f64, _u53(words[4:8]))
    ints = ember.randint(0, 10, (3,)).numpy()
    np.testing.assert_array_equal(ints, words[8:11] % np.uint64(10))
    # A span of 2^40 needs a 64-bit word per draw.
    big = ember.randint(0, 2**40, (1,)).item()
    assert big == ((int(words[11]) << 32) | int(words[12])) % 2**40
    perm = ember.randperm(5).tolist()
    expected = list(range(5))
    for i, w in enumerate(words[13:17]):
        z = int(w) % (5 - i)
        expected[i], expected[i + z] = expected[i + z], expected[i]
    assert perm == expected


def test_normal_blocks_of_16_and_the_cached_second_normal():
    ember.manual_seed(1)
    words = _words(1, 200)
    got = ember.randn(20).numpy().astype(np.float64)
    u = ((words[:36] & np.uint64(2**24 - 1)) * 2.0**-24).astype(np.float32).astype(np.float64)

    def block(d):
        r = np.sqrt(-2 * np.log(1 - d[:8]))
        t = 2 * np.pi * d[8:16]
        return np.concatenate([r * np.cos(t), r * np.sin(t)])

    expected = u[:20].copy()
    expected[:16] = block(expected[:16])
    expected[4:20] = block(u[20:36])  # the tail's last 16 redrawn
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # Below 16 elements: scalar Box-Muller, the second normal kept for the next draw.
    ember.manual_seed(1)
    a, b = ember.randn(1, dtype=ember.float64).item(), ember.randn(1, dtype=ember.float64).item()
    u1, u2 = _u53(words[:4])
    r = np.sqrt(-2 * np.log1p(-u2))
    assert a == pytest.approx(r * np.cos(2 * np.pi * u1), rel=1e-12)
    assert b == pytest.approx(r * np.sin(2 * np.pi * u1), rel=1e-12)
    # manual_seed drops the kept normal.
    ember.manual_seed(1)
    assert ember.randn(1, dtype=ember.float64).item() == a


def test_bernoulli_dropout_and_exponential():
    ember.manual_seed(2)
    u = _u53(_words(2, 64))
    np.testing.assert_array_equal(ember.empty(8).bernoulli_(0.3).numpy(), (u[:8] < 0.3) * 1.0)
    # dropout keeps element i when its double uniform is below 1 - p, scaled by 1 / (1 - p).
    ember.manual_seed(2)
    x = ember.ones(8, requires_grad=True)
    y = ember.nn.functional.dropout(x, 0.25)
    keep = u[:8] < 0.75
    np.testing.assert_allclose(y.detach().numpy(), keep / 0.75, rtol=1e-6)
    y.sum().backward()  # the stored mask gives the gradient
    np.testing.assert_allclose(x.grad.numpy(), keep / 0.75, rtol=1e-6)
    ember.manual_seed(2)
    e = ember.empty(4, dtype=ember.float64).exponential_(2.0).numpy()
    np.testing.assert_allclose(e, -np.log1p(-u[:4]) / 2.0, rtol=1e-12)


def test_multinomial_exponential_race_and_inversion():
    p = ember.tensor([0.1, 0.2, 0.3, 0.4], dtype=ember.float64)
    ember.manual_seed(4)
    u = _u53(_words(4, 64))
    race = p.numpy() / -np.log1p(-u[:4])
    assert ember.multinomial(p, 1).tolist() == [int(np.argmax(race))]
    ember.manual_seed(4)
    assert ember.multinomial(p, 3).tolist() == list(np.argsort(-race)[:3])
    ember.manual_seed(4)
    cum = np.cumsum(p.numpy())
    expected = np.searchsorted(cum, u[:5], side="left")
    assert ember.multinomial(p, 5, replacement=True).tolist() == expected.tolist()


def test_moments_and_generator_state():
    ember.manual_seed(9)
    x = ember.randn(100_000, dtype=ember.float64)
    assert abs(x.mean().item()) < 0.01 and abs(x.std().item() - 1) < 0.01
    g = ember.Generator().manual_seed(11)
    ember.randn(3, generator=g)  # leaves a kept normal
    state = g.get_state()
    after = ember.randn(5, generator=g).tolist()
    g.set_state(state)
    assert ember.randn(5, generator=g).tolist() == after
    with pytest.raises(ValueError, match="expected a state of"):
        g.set_state(ember.zeros(17, dtype=ember.uint8))


def test_switching_streams_and_bad_names():
    ember.manual_seed(0)
    mt = ember.rand(3).tolist()
    ember.random.set_stream("philox")
    assert ember.random.get_stream() == "philox"
    ember.manual_seed(0)
    assert ember.rand(3).tolist() != mt
    with pytest.raises(ValueError, match="'philox' or 'mt19937'"):
        ember.random.set_stream("pcg")


def test_the_environment_selects_the_stream():
    code = (
        "import ember; ember.manual_seed(0); print(ember.random.get_stream(), ember.rand(1).item())"
    )
    env = dict(os.environ, EMBER_RNG="mt19937")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == "mt19937" and float(out[1]) == pytest.approx(0.4962566, rel=1e-6)
