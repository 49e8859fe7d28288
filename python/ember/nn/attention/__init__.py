"""torch.nn.attention: choosing scaled_dot_product_attention's implementation. ember has one
CPU implementation (ops/nn_attention.cpp), so sdpa_kernel accepts any backend list and changes
nothing; the names let programs that pick a backend run."""

import contextlib
import enum


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """A context in which scaled_dot_product_attention may use `backends`; ember's one
    implementation serves them all."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    for b in backends:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"sdpa_kernel expects SDPBackend values, got {type(b).__name__}")
    yield
