"""Anomaly detection (torch.autograd.detect_anomaly / set_detect_anomaly).

While it is on, every recorded op keeps the Python stack of its forward call, and backward fails
at the first function whose gradient holds a NaN ("Function 'DivBackward0' returned nan values
in its 0th output."), with that stack in the message. It slows every op down (a traceback per
op), so it is for debugging only, as in PyTorch, which warns when it is turned on.
"""

import warnings

from ember import _C

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly:  # noqa: N801  (PyTorch's name)
    """A context manager (and decorator) that turns anomaly detection on for its block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _C._is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan or not self.prev)

    def __call__(self, func):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:  # noqa: N801  (PyTorch's name)
    """Turns anomaly detection on or off; used as a function or a context manager, which
    restores the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _C._is_anomaly_enabled()
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled() or not self.prev
        _C._set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)


def is_anomaly_enabled() -> bool:
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    return _C._is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    _C._set_anomaly_enabled(enabled, check_nan)
