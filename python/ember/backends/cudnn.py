"""torch.backends.cudnn's switches, so that programs which set them run: ember has no cuDNN
kernels yet (ember.cuda.is_available() is False), so the flags are recorded and change nothing."""

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None
