"""ember.cpu: torch.cpu's device-module interface for the CPU, which programs call generically
(torch.get_device_module(device).synchronize()). The CPU runs ops as they are called, so there is
one device, one stream, and synchronising has nothing to wait for."""

import contextlib


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """Accepted for the interface; the CPU is the only CPU device."""


def synchronize(device=None) -> None:
    """Every CPU op has finished when it returns: nothing to wait for."""


class Stream:
    """The CPU's one stream: work runs in order as it is issued."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True


class Event:
    """An event on the CPU stream: complete as soon as it is recorded."""

    def record(self, stream=None) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass


_default_stream = Stream()


def current_stream(device=None) -> Stream:
    return _default_stream


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream) -> None:
        self.stream = stream

    def __exit__(self, *exc) -> None:
        return None


def stream(stream) -> StreamContext:
    return StreamContext(stream)
