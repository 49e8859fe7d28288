"""Context managers (and decorators) that turn gradient recording off and on."""

import functools
import threading

from ember import _C


class _GradModeContext:
    _mode: bool

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """`with ember.no_grad():` ops inside record no graph (as torch.no_grad)."""

    _mode = False


class enable_grad(_GradModeContext):
    """Turns recording back on inside a no_grad region."""

    _mode = True


class set_grad_enabled:
    """Sets grad mode now; as a context manager, restores the previous mode on exit."""

    def __init__(self, mode: bool):
        self._prev = _C.is_grad_enabled()
        self._mode = bool(mode)
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        mode = self._mode
        _C._set_grad_enabled(self._prev)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper


_inference = threading.local()  # per thread, as grad mode itself


def _depth() -> int:
    return getattr(_inference, "depth", 0)


class inference_mode:
    """ember's inference mode is no_grad: no graph is recorded. (PyTorch's also skips version
    counting; ember keeps it, which costs an increment per in-place op.)"""

    def __init__(self, mode: bool = True):
        self._mode = mode

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        if self._mode:
            _C._set_grad_enabled(False)
            _inference.depth = _depth() + 1
        return self

    def __exit__(self, *exc):
        if self._mode:
            _inference.depth = _depth() - 1
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(self._mode):
                return func(*args, **kwargs)

        return wrapper


def is_inference_mode_enabled() -> bool:
    return _depth() > 0
