"""ember.autograd.functional side by side with PyTorch's (skipped without torch)."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _fn(lib):
    def f(x, y):
        return (x.sin() * y[:3]).sum() * y, (x @ x).tanh()

    return f


def _scalar(lib):
    return lambda x, y: (x.exp() * y[:3]).sum() + (y**3).sum()


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_functional_matches_torch(name):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(3), rng.standard_normal(4)
    results = []
    for lib in (ember, torch):
        fn = getattr(lib.autograd.functional, name)
        args = (lib.tensor(x), lib.tensor(y))
        if name == "jacobian":
            out = fn(_fn(lib), args)
        elif name == "hessian":
            out = fn(_scalar(lib), args)
        elif name in ("vjp",):
            out = fn(_fn(lib), args, (lib.tensor(np.arange(4.0)), lib.tensor(1.5)))
        elif name == "jvp":
            out = fn(_fn(lib), args, (lib.tensor(np.ones(3)), lib.tensor(np.arange(4.0))))
        else:
            out = fn(_scalar(lib), args, (lib.tensor(np.ones(3)), lib.tensor(np.arange(4.0))))
        results.append(out)

    def flat(o):
        if isinstance(o, (tuple, list)):
            return [v for item in o for v in flat(item)]
        return [o.detach().numpy()]

    got, want = flat(results[0]), flat(results[1])
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
