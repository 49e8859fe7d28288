"""ember.random: the default generator's seed and state (torch.random), and the random stream.

ember draws from one of two streams (Note [Random streams] in ember/core/generator.cpp):
"philox" (the default: counter-based, parallel, the same numbers for any thread count) or
"mt19937", PyTorch's CPU stream: with it, a seeded program draws the numbers it draws under
PyTorch (rand, randn, randint, randperm, normal_, uniform_, bernoulli, dropout, multinomial, ...),
so its losses can be compared with PyTorch's step by step. Select it with `set_stream("mt19937")`
or with EMBER_RNG=mt19937 in the environment.
"""

from __future__ import annotations

import contextlib

from ember import _C

__all__ = [
    "fork_rng",
    "get_rng_state",
    "get_stream",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "set_stream",
]

manual_seed = _C.manual_seed
get_rng_state = _C.get_rng_state
set_rng_state = _C.set_rng_state
initial_seed = _C.initial_seed
seed = _C.seed


def set_stream(name: str) -> None:
    """Draws every CPU generator's numbers from stream `name`: "philox" or "mt19937" (PyTorch's).
    Each generator keeps its seed; reseed (manual_seed) to start the new stream from it."""
    _C._set_random_stream(name)


def get_stream() -> str:
    """The stream the CPU generators draw from: "philox" or "mt19937"."""
    return _C._random_stream()


@contextlib.contextmanager
def fork_rng(
    devices=None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str = "cuda",
):
    """Restores the CPU generator's state when the block ends."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
