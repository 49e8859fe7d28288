"""torch.futures: Future, a value that some work completes, with wait / then / done /
set_result, and collect_all / wait_all. ember's futures come from work that has already run
(torch.jit.fork runs its function at once outside TorchScript, in PyTorch too), but callbacks,
chaining and errors behave as PyTorch's."""

import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    def __init__(self, *, devices=None) -> None:
        self._done = threading.Event()
        self._value = None
        self._error = None
        self._callbacks = []
        self._lock = threading.Lock()

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self):
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        if not self.done():
            raise RuntimeError("Future.value() called before the future completed")
        if self._error is not None:
            raise self._error
        return self._value

    def _complete(self, value, error) -> None:
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Future can only be marked completed once")
            self._value, self._error = value, error
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result) -> None:
        self._complete(result, None)

    def set_exception(self, result) -> None:
        self._complete(None, result)

    def add_done_callback(self, callback) -> None:
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback) -> "Future":
        """A Future completed with callback(self) once self completes."""
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001  (the error goes to the chained future)
                out.set_exception(e)

        self.add_done_callback(run)
        return out


def collect_all(futures) -> Future:
    """A Future of the list of futures, completed once all of them are."""
    out = Future()
    futures = list(futures)
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])
        return out

    def one(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)

    for f in futures:
        f.add_done_callback(one)
    return out


def wait_all(futures) -> list:
    """The values of all the futures (raising the first error)."""
    return [f.wait() for f in futures]


def fork(func, *args, **kwargs) -> Future:
    """Runs func(*args, **kwargs) and returns a completed Future of its result (torch.jit.fork
    outside TorchScript)."""
    out = Future()
    try:
        out.set_result(func(*args, **kwargs))
    except Exception as e:  # noqa: BLE001  (wait() re-raises it)
        out.set_exception(e)
    return out


def wait(future):
    return future.wait()
