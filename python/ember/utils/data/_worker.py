"""The worker process side of the DataLoader: fetching, the batch transport and recycling.

Protocol, one pair of pipes per worker (no shared queue, so no lock a dying worker could hold):
main -> worker: (task, indices) to fetch, ("reset",) to restart an iterable dataset's stream
(persistent workers), None to stop. Worker -> main: ("batch", task, data), then, when its private
memory passed the budget, ("retire", batches done, private bytes) and it exits; the loader forks
a fresh one.

Tensors of at least _SHM_MIN_BYTES travel through a file in /dev/shm: the worker writes the bytes
once, the main process maps the file (no copy) and unlinks it at once. Smaller ones are pickled
inline (Tensor.__reduce_ex__)."""

import contextlib
import io
import os
import pickle
import random
import resource
import sys
import traceback

import ember

__all__ = ["get_worker_info"]

_SHM_DIR = "/dev/shm"
_SHM_MIN_BYTES = 512 * 1024  # measured break-even: 256 KiB to 1 MiB (docs/design/data.md)
# memoryview formats for the dtypes a mapping can be wrapped as without a copy.
_FORMATS = {
    "float64": "d",
    "float32": "f",
    "int64": "q",
    "int32": "i",
    "int16": "h",
    "int8": "b",
    "uint8": "B",
    "bool": "?",
}


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, seed, dataset (the
    worker's own copy). Read-only, as PyTorch's."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process: its WorkerInfo (id, num_workers, seed, dataset). In the
    main process: None. An IterableDataset uses it to shard its stream among the workers."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback text."""

    def __init__(self, where):
        exc_type, exc, _ = sys.exc_info()
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, exc.__traceback__))
        self.where = where
        self.exc_name = exc_type.__name__
        try:
            pickle.dumps(exc_type)  # a class defined in a function cannot travel by reference
        except Exception:
            exc_type = RuntimeError  # raised with the original name in its message
        self.exc_type = exc_type

    def reraise(self):
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # An exception class whose constructor wants other arguments.
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    # KeyError's str() is the repr of its argument; this keeps the traceback readable.
    def __repr__(self):
        return self


class IterableStop:
    """A worker's IterableDataset stream has ended."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if getitems else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


# --- transport -------------------------------------------------------------------------------


class _Pickler(pickle.Pickler):
    """Pickles a message; large tensors go to /dev/shm files named prefix + counter."""

    def __init__(self, file, prefix, counter):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.prefix = prefix
        self.counter = counter
        self.paths = []

    def persistent_id(self, obj):
        if not isinstance(obj, ember.Tensor) or obj.nbytes < _SHM_MIN_BYTES:
            return None
        if obj.device.type != "cpu":
            return None
        import ctypes

        src = obj.detach().contiguous()
        path = f"{self.prefix}{next(self.counter)}"
        view = memoryview((ctypes.c_char * src.nbytes).from_address(src.data_ptr())).cast("B")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            return None  # no /dev/shm here: pickle the bytes inline
        try:
            written = 0
            while written < len(view):
                written += os.write(fd, view[written:])
        except OSError:
            # /dev/shm is full (Docker's default is 64 MiB): this tensor goes inline.
            os.unlink(path)
            return None
        finally:
            os.close(fd)
        self.paths.append(path)
        dtype_name = str(obj.dtype).rpartition(".")[2]
        return ("shm", path, dtype_name, tuple(obj.shape), obj.requires_grad)


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        _, path, dtype_name, shape, requires_grad = pid
        t = _load_shm(path, dtype_name, shape)
        if requires_grad:
            t.requires_grad_(True)
        return t


def _load_shm(path, dtype_name, shape):
    import mmap

    fd = os.open(path, os.O_RDWR)
    try:
        os.unlink(path)  # the mapping keeps the pages; nothing is left behind in /dev/shm
        size = os.fstat(fd).st_size
        fmt = _FORMATS.get(dtype_name)
        if fmt is None:
            # No memoryview format (float16, bfloat16, ...): one copy into a fresh tensor.
            import ctypes

            out = ember.empty(shape, dtype=getattr(ember, dtype_name))
            os.preadv(fd, [(ctypes.c_char * size).from_address(out.data_ptr())], 0)
            return out
        mm = mmap.mmap(fd, size)
    finally:
        os.close(fd)
    # The tensor keeps the memoryview, which keeps the mapping, alive: no copy.
    return ember.from_dlpack(memoryview(mm).cast(fmt, shape))


def dumps(obj, prefix, counter):
    buf = io.BytesIO()
    p = _Pickler(buf, prefix, counter)
    try:
        p.dump(obj)
    except BaseException:
        for path in p.paths:
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise
    return buf.getbuffer()


def loads(data):
    return _Unpickler(io.BytesIO(data)).load()


def private_dirty_bytes():
    """This process's Private_Dirty (pages it wrote that no other process shares: its own
    allocations and its copies of the parent's pages), from /proc/self/smaps_rollup."""
    try:
        with open("/proc/self/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Private_Dirty:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# --- the worker loop ---------------------------------------------------------------------------


def worker_loop(
    is_iterable,
    dataset,
    index_conn,
    result_conn,
    inherited_conns,
    auto_collation,
    collate_fn,
    drop_last,
    seed,
    init_fn,
    worker_id,
    num_workers,
    memory_budget,
    shm_prefix,
):
    # A forked child shares the parent's OpenMP state but not its threads: one thread, as
    # PyTorch's workers (and the batches are small; the parallelism is the workers).
    ember.set_num_threads(1)
    # Close this process's copies of the main process's pipe ends, so that when a worker dies
    # the main process sees EOF on its pipe, and when the main process dies, the worker does.
    for c in inherited_conns:
        c.close()
    global _worker_info
    random.seed(seed)
    ember.manual_seed(seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed % 2**32)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    parent = os.getppid()
    counter = iter(range(1 << 62))
    prefix = f"{shm_prefix}{worker_id}-{os.getpid()}-"
    fetcher_cls = IterableFetcher if is_iterable else MapFetcher
    init_error = None
    fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = fetcher_cls(dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
    page_size = os.sysconf("SC_PAGE_SIZE")
    # Just after the fork nothing is private yet: the first reading waits for a budget's worth
    # of faults.
    next_check = memory_budget // page_size
    done = 0
    try:
        while True:
            # Poll with a timeout so an orphaned worker notices its parent is gone.
            if not index_conn.poll(5.0):
                if os.getppid() != parent:
                    break
                continue
            msg = index_conn.recv()
            if msg is None:
                break
            if msg[0] == "reset":
                if init_error is None:
                    try:
                        fetcher = fetcher_cls(dataset, auto_collation, collate_fn, drop_last)
                    except Exception:
                        init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                continue
            task, index = msg
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if is_iterable:
                        data = IterableStop(worker_id)
                    else:
                        data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                except Exception:
                    data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            try:
                payload = dumps(("batch", task, data), prefix, counter)
            except Exception:
                data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                payload = dumps(("batch", task, data), prefix, counter)
            del data
            result_conn.send_bytes(payload)
            del payload
            done += 1
            # An IterableDataset's stream lives in its worker: such workers are never recycled.
            # Reading smaps_rollup walks the page tables (tens of milliseconds with a 1 GB
            # parent), so the trigger is the minor page fault count (getrusage, a microsecond):
            # each fault adds at most one private page, so Private_Dirty cannot pass the budget
            # before the faults since the last reading could have filled the room left.
            if memory_budget and not is_iterable:
                faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                if faults >= next_check:
                    used = private_dirty_bytes()
                    if used > memory_budget:
                        result_conn.send_bytes(pickle.dumps(("retire", done, used)))
                        break
                    room = max(memory_budget - used, memory_budget // 8)
                    next_check = faults + room // page_size
    except (BrokenPipeError, EOFError, ConnectionResetError, KeyboardInterrupt):
        pass  # the main process stopped listening: just leave
    finally:
        index_conn.close()
        result_conn.close()


# --- the fork server ---------------------------------------------------------------------------
#
# Recycling forks a fresh worker per worker life. Forking copies the page table of the forking
# process (70 ms for a 1.3 GB one here), so forks from the main process stall it, and with it
# every worker whose prefetch window is full. The fork server is a copy of the main process made
# once per iterator (before any worker) that does nothing but fork workers on request: it
# touches nothing, so its pages stay those of the main process at that moment, and the main
# process keeps running while it forks. Protocol on a SOCK_SEQPACKET socket pair: main ->
# server ("fork", worker_id, seed, budget) and ("stop", kill); server -> main ("forked", pid,
# worker_id) with the main process's two pipe ends as file descriptors (SCM_RIGHTS), and
# ("exit", pid, exit code) whenever it reaps a worker.


def fork_server_loop(sock, main_sock, worker_args, inherited_conns):
    import select
    import signal
    import socket
    import time
    from multiprocessing.connection import Connection

    main_sock.close()
    for c in inherited_conns:
        c.close()
    children = set()
    stop_at = None
    listening = True
    while True:
        readable = select.select([sock] if listening else [], [], [], 0.1)[0]
        while children:  # reap, and tell the main process how each worker ended
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            children.discard(pid)
            with contextlib.suppress(OSError):
                sock.send(pickle.dumps(("exit", pid, os.waitstatus_to_exitcode(status))))
        if stop_at is not None and (not children or time.monotonic() > stop_at):
            break
        if not readable:
            continue
        data = sock.recv(4096)
        if not data:  # the main process is gone: its workers see EOF on their pipes and leave
            listening = False
            stop_at = time.monotonic() + 5.0
            continue
        msg = pickle.loads(data)
        if msg[0] == "stop":
            if msg[1]:
                for pid in children:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGTERM)
            stop_at = time.monotonic() + (1.0 if msg[1] else 5.0)
            continue
        _, worker_id, seed, budget = msg
        index_r, index_w = os.pipe()
        result_r, result_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                sock.close()
                os.close(index_w)
                os.close(result_r)
                worker_loop(
                    index_conn=Connection(index_r, writable=False),
                    result_conn=Connection(result_w, readable=False),
                    inherited_conns=[],
                    seed=seed,
                    worker_id=worker_id,
                    memory_budget=budget,
                    **worker_args,
                )
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        os.close(index_r)
        os.close(result_w)
        children.add(pid)
        socket.send_fds(sock, [pickle.dumps(("forked", pid, worker_id))], [index_w, result_r])
        os.close(index_w)
        os.close(result_r)
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
