"""ember.random: the default generator's seed and state (torch.random)."""

from __future__ import annotations

import contextlib

from ember import _C

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

manual_seed = _C.manual_seed
get_rng_state = _C.get_rng_state
set_rng_state = _C.set_rng_state
initial_seed = _C.initial_seed
seed = _C.seed


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
