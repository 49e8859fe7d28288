"""ember.cuda: what PyTorch programs ask of torch.cuda before they choose a device.

ember's CUDA backend so far allocates, copies and fills, and has no op kernels, so
`is_available()` is False on every machine: the usual
`device = "cuda" if torch.cuda.is_available() else "cpu"` then picks the CPU, where everything
runs, instead of failing at the first op on the GPU. The seeding calls are no-ops, as PyTorch's
are without a GPU; calls that need a device raise RuntimeError, as PyTorch's do.
"""

__all__ = [
    "device_count",
    "empty_cache",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "synchronize",
]


def is_available() -> bool:
    """False: ember has no CUDA op kernels yet (see the module docstring)."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """A no-op without CUDA devices, as torch.cuda.manual_seed."""


def manual_seed_all(seed: int) -> None:
    """A no-op without CUDA devices, as torch.cuda.manual_seed_all."""


def empty_cache() -> None:
    """A no-op: no CUDA memory is held."""


def synchronize(device=None) -> None:
    raise RuntimeError("ember.cuda.synchronize: no CUDA device is available to ember")


def _legacy_types():
    from ember._legacy import make_types

    return make_types("ember.cuda", "cuda")


# ember.cuda.FloatTensor & co: programs write `dtype = torch.cuda.FloatTensor if cuda else
# torch.FloatTensor`; building one needs a CUDA device, as in PyTorch.
globals().update(_legacy_types())


class _CudaAmp:
    """ember.cuda.amp: the deprecated spelling torch.cuda.amp.GradScaler(...), which is
    ember.amp.GradScaler("cuda", ...)."""

    @staticmethod
    def GradScaler(*args, **kwargs):  # noqa: N802  (PyTorch's name)
        from ember.amp import GradScaler

        return GradScaler("cuda", *args, **kwargs)


amp = _CudaAmp()
