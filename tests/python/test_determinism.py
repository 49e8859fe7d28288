"""Results that do not depend on the thread count (issue 3's acceptance): sum, mean, softmax,
log_softmax, norms and matmul give the same bits on 1 and 2 threads, for shapes that take every
kernel path (full reductions cut into chunks, reductions over inner and outer dims, contiguous
and strided lines, matrix products cut into blocks by rows or by columns, and a product with a
long k and few rows and columns, which libraries would split across threads)."""

import numpy as np
import pytest

import ember


@pytest.fixture
def restore_threads():
    before = ember.get_num_threads()
    yield
    ember.set_num_threads(before)


def on_threads(fn, *arrays):
    """fn's results (as bytes) with 1 thread and with 2."""
    out = []
    for threads in (1, 2):
        ember.set_num_threads(threads)
        results = fn(*[ember.from_numpy(a) for a in arrays])
        results = results if isinstance(results, tuple) else (results,)
        out.append([r.numpy().tobytes() for r in results])
    return out


REDUCTIONS = {
    "sum": lambda x: (x.sum(), x.sum(0), x.sum(1), x[:, ::3].sum(1)),
    "mean": lambda x: (x.mean(), x.mean(0), x.mean(1, keepdim=True)),
    "softmax": lambda x: (x.softmax(1), x.softmax(0), x.t().softmax(1)),
    "log_softmax": lambda x: (x.log_softmax(1), x.log_softmax(0)),
    "norm": lambda x: (ember.linalg.vector_norm(x), ember.linalg.vector_norm(x, 3.0, dim=0)),
    "var": lambda x: (x.var(), x.var(1)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_same_bits_on_1_and_2_threads(name, dtype, restore_threads):
    x = np.random.default_rng(0).standard_normal((700, 1300)).astype(dtype)
    one, two = on_threads(REDUCTIONS[name], x)
    assert one == two


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "m,k,n", [(1024, 1024, 1024), (600, 300, 100), (100, 300, 900), (8, 100_000, 8), (64, 4096, 64)]
)
def test_matmul_same_bits_on_1_and_2_threads(m, k, n, dtype, restore_threads):
    rng = np.random.default_rng(m + k + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    one, two = on_threads(lambda x, y: x @ y, a, b)
    assert one == two
    got = np.frombuffer(one[0], dtype=dtype).reshape(m, n)
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-3 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k))


def test_batched_matmul_same_bits(restore_threads):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 40, 300)).astype(np.float32)
    b = rng.standard_normal((6, 300, 50)).astype(np.float32)
    one, two = on_threads(lambda x, y: x @ y, a, b)
    assert one == two
