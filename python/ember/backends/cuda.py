"""torch.backends.cuda: the switches programs set for CUDA matmuls and attention.

ember has no CUDA op kernels yet (ember.cuda.is_available() is False), so the switches are kept
and read back as PyTorch's are, and change nothing.
"""

__all__ = [
    "is_built",
    "matmul",
    "enable_flash_sdp",
    "enable_mem_efficient_sdp",
    "enable_math_sdp",
    "flash_sdp_enabled",
    "mem_efficient_sdp_enabled",
    "math_sdp_enabled",
]


def is_built() -> bool:
    """False: ember's CUDA backend has no op kernels yet, so nothing of it is usable."""
    return False


class _MatmulSettings:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSettings()
_sdp = {"flash": True, "mem_efficient": True, "math": True}


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = bool(enabled)


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def math_sdp_enabled() -> bool:
    return _sdp["math"]
