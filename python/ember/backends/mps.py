"""torch.backends.mps: Apple's Metal backend, which ember does not have. Programs ask it before
they choose a device, so the answers are here: not built, not available."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
