"""The worker process side of the DataLoader: fetching, the batch transport and recycling.

Protocol, one pair of pipes per worker (no shared queue, so no lock a dying worker could hold):
main -> worker: (task, indices) to fetch, ("reset",) to restart an iterable dataset's stream
(persistent workers), None to stop. Worker -> main: ("batch", task, data), then, when its private
memory passed the budget, ("retire", batches done, private bytes) and it exits; the loader forks
a fresh one.

Tensors of at least _SHARE_MIN_BYTES travel as ember.multiprocessing sends tensors: the worker
moves the batch's storage into an unnamed shared memory file (Tensor.share_memory_; the batch is
fresh, so this writes it once) and sends its descriptor right after the message (SCM_RIGHTS on the
result socket); the main process maps it, no copy. Nothing is ever named in /dev/shm, so a killed
worker leaves nothing behind. Smaller tensors are pickled inline (Tensor.__reduce_ex__)."""

import contextlib
import io
import os
import pickle
import random
import resource
import socket
import sys
import traceback

import ember
from ember import _C

__all__ = ["get_worker_info"]

_SHARE_MIN_BYTES = 512 * 1024  # measured break-even: 256 KiB to 1 MiB (docs/design/data.md)
_mp = _C._multiprocessing
_MAX_FDS = 4096  # large tensors in one batch (each is one descriptor)


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
    """Pickles a message; large CPU tensors become references to shared memory descriptors,
    collected in `fds` (the tensors holding them in `keep`, until they are sent)."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fds = []
        self.keep = []

    def persistent_id(self, obj):
        if not isinstance(obj, ember.Tensor) or obj.nbytes < _SHARE_MIN_BYTES:
            return None
        if len(self.fds) == _MAX_FDS:
            return None  # past what one message carries: inline
        if obj.device.type != "cpu":
            return None
        src = obj.detach()
        # A view of a larger storage (a dataset's tensor) would share all of it: send a copy.
        if not src.is_contiguous() or src.nbytes != _mp.storage_nbytes(src):
            src = src.clone()
        fd, nbytes = _mp.share_fd(src)
        self.fds.append(fd)
        self.keep.append(src)
        return (
            "fd",
            len(self.fds) - 1,
            nbytes,
            src.dtype,
            tuple(src.shape),
            tuple(src.stride()),
            src.storage_offset(),
            obj.requires_grad,
        )


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, conn):
        super().__init__(file)
        self.conn = conn
        self.fds = None

    def persistent_load(self, pid):
        _, i, nbytes, dtype, sizes, strides, offset, requires_grad = pid
        if self.fds is None:
            self.fds = _recv_fds(self.conn)
        t = _mp.tensor_from_fd(self.fds[i], nbytes, dtype, sizes, strides, offset)
        self.fds[i] = None  # the tensor's storage owns it now
        if requires_grad:
            t.requires_grad_(True)
        return t


def _socket_of(conn):
    """A socket object on a Connection's descriptor, for SCM_RIGHTS (detach() it after use: the
    Connection keeps the descriptor)."""
    return socket.socket(fileno=conn.fileno())


def _send_fds(conn, fds):
    s = _socket_of(conn)
    try:
        socket.send_fds(s, [len(fds).to_bytes(4, "little")], fds)
    finally:
        s.detach()


def _recv_fds(conn):
    s = _socket_of(conn)
    try:
        data, fds, _, _ = socket.recv_fds(s, 4, _MAX_FDS)
    finally:
        s.detach()
    if len(data) != 4 or int.from_bytes(data, "little") != len(fds):
        for fd in fds:
            os.close(fd)
        raise RuntimeError("DataLoader: a worker's shared memory descriptors did not arrive")
    return fds


def dumps(obj):
    """(payload, fds, keep): the pickled message, the descriptors to send after it, and the
    tensors that own them (alive until sent)."""
    buf = io.BytesIO()
    p = _Pickler(buf)
    p.dump(obj)
    return buf.getbuffer(), p.fds, p.keep


def loads(data, conn):
    u = _Unpickler(io.BytesIO(data), conn)
    try:
        return u.load()
    finally:
        for fd in u.fds or ():
            if fd is not None:
                os.close(fd)


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
                message = dumps(("batch", task, data))
            except Exception:
                data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                message = dumps(("batch", task, data))
            del data
            payload, fds, keep = message
            result_conn.send_bytes(payload)
            if fds:
                _send_fds(result_conn, fds)
            del message, payload, fds, keep
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
        # The results travel on a socket: batches' shared memory descriptors go with them.
        result_r, result_w = (end.detach() for end in socket.socketpair())
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
