"""torch.accelerator: the device-neutral questions programs ask before they pick a device
(`device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else
"cpu"`). ember has no usable accelerator yet (ember.cuda.is_available() is False), so the answers
are PyTorch's on a machine without one: none available, no current accelerator.
"""

from ember import cuda

__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "is_available",
    "set_device_index",
    "synchronize",
]


def is_available() -> bool:
    return cuda.is_available()


def device_count() -> int:
    return cuda.device_count()


def current_accelerator(check_available: bool = False):
    """None: there is no accelerator (PyTorch's answer without one)."""
    return None


def current_device_index() -> int:
    return -1


def set_device_index(device) -> None:
    raise RuntimeError("ember.accelerator.set_device_index: no accelerator is available")


def synchronize(device=None) -> None:
    raise RuntimeError("ember.accelerator.synchronize: no accelerator is available")
