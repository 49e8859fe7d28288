"""ember.func side by side with torch.func (skipped without torch)."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _f(lib):
    return lambda x, w: (lib.tanh(x @ w) ** 2).sum()


@pytest.mark.parametrize("name", ["grad", "jacrev", "hessian", "vmap_grad"])
def test_func_matches_torch(name):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 2)), rng.standard_normal((2, 4))

    def run(lib):
        f = _f(lib)
        xs, ws = lib.tensor(x), lib.tensor(w)
        if name == "grad":
            return lib.func.grad(f, argnums=(0, 1))(xs, ws)
        if name == "jacrev":
            return (lib.func.jacrev(lambda a: lib.tanh(a @ ws))(xs),)
        if name == "hessian":
            return (lib.func.hessian(lambda a: f(a, ws))(xs),)
        return (lib.func.vmap(lib.func.grad(lambda row: f(row.unsqueeze(0), ws)))(xs),)

    out = [[v.detach().numpy() for v in run(lib)] for lib in (ember, torch)]
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
