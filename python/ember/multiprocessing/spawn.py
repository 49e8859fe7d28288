"""spawn / start_processes: run fn(i, *args) in nprocs processes and watch them.

As torch.multiprocessing.spawn: each child runs under a wrapper that writes the traceback of an
exception to a file named for it and exits with code 1. The parent waits on the processes'
sentinels; the first one to fail makes it terminate the others and raise: ProcessRaisedException
with the child's traceback and index when it raised, ProcessExitedException with its exit code or
signal when it died otherwise. A child asks the kernel for SIGINT if the parent dies first, so
none outlives it.
"""

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import warnings


class ProcessException(Exception):
    """A child process failed: error_index is its index, pid its process id."""

    __slots__ = ["error_index", "pid"]

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child exited with a non-zero code or was killed by a signal."""

    __slots__ = ["exit_code", "signal_name"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (
            type(self),
            (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name),
        )


def _die_with_parent(sig=signal.SIGINT):
    """PR_SET_PDEATHSIG: this process gets `sig` when its parent exits (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(sig), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def _wrap(fn, index, args, error_file):
    _die_with_parent()
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping everyone: not this child's error
    except Exception:
        import traceback

        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The started processes; join() waits for them and raises the first failure."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None):
        """Waits up to timeout seconds (None: until one ends). True when all processes have
        ended successfully, False while some still run; raises if one failed, after stopping
        the others."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        self.sentinels.clear()
        process = self.processes[failed]
        error_file = self.error_files[failed]
        if not os.access(error_file, os.R_OK):
            code = process.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(
                    f"process {failed} terminated with signal {name}",
                    error_index=failed,
                    error_pid=process.pid,
                    exit_code=code,
                    signal_name=name,
                )
            raise ProcessExitedException(
                f"process {failed} terminated with exit code {code}",
                error_index=failed,
                error_pid=process.pid,
                exit_code=code,
            )
        with open(error_file, "rb") as fh:
            trace = pickle.load(fh)
        os.unlink(error_file)
        raise ProcessRaisedException(
            f"\n\n-- Process {failed} terminated with the following error:\n{trace}",
            failed,
            process.pid,
        )

    def __del__(self):
        for path in getattr(self, "error_files", ()):
            with contextlib.suppress(OSError):
                os.unlink(path)


class SpawnContext(ProcessContext):
    """PyTorch's older name of ProcessContext."""


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts nprocs processes running fn(i, *args) with the given start method ("spawn",
    "fork" or "forkserver"); with join, waits for all and raises the first failure, else returns
    the ProcessContext."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        # A name for the child's traceback that does not exist yet: the child creates it only if
        # it fails, and its existence is how the parent tells a raise from an exit.
        fd, path = tempfile.mkstemp(prefix="ember-mp-", suffix=".pickle")
        os.close(fd)
        os.unlink(path)
        process = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(path)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """start_processes with the "spawn" start method (PyTorch warns and uses it whatever
    start_method says, as this does)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
