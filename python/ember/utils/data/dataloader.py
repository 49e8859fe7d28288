"""DataLoader: batches from a dataset, in the main process or in worker processes.

With num_workers > 0 the workers are forked from the main process and hand batches back in
sampler order. Memory: a forked worker shares the parent's pages until it writes them, and
CPython writes every object it touches (reference counts) and every container a garbage
collection visits, so workers slowly copy the parent's dataset. ember (1) freezes the garbage
collector's view of the parent's objects before forking (gc.freeze), so no collection in a worker
or in the parent writes them, and (2) recycles a worker whose private dirty memory passed
`worker_memory_budget`: it hands in its batch and exits, and a fresh one is forked by a fork
server (a clean copy of the main process made when the iterator starts, so forks never stall
the main process). See docs/design/data.md for the measurements."""

import atexit
import contextlib
import gc
import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import select
import signal
import socket
import threading
import time
import warnings

import ember
from ember.utils.data import _worker
from ember.utils.data._collate import default_collate, default_convert
from ember.utils.data._worker import ExceptionWrapper, IterableStop, get_worker_info
from ember.utils.data.dataset import IterableDataset
from ember.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "DEFAULT_WORKER_MEMORY_BUDGET"]

# A worker whose Private_Dirty passes this many bytes is replaced by a fresh fork. The worker's
# own working set (interpreter, one batch, the dataset's caches) must fit well below it.
DEFAULT_WORKER_MEMORY_BUDGET = 64 * 1024 * 1024


class _InfiniteConstantSampler(Sampler):
    """None forever: the indices of an IterableDataset (the workers' streams decide the end)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Combines a dataset and a sampler and iterates over batches, as torch.utils.data.DataLoader
    (same arguments, defaults and errors). ember-only keyword: `worker_memory_budget` (bytes of
    private dirty memory after which a worker is recycled; 0 disables recycling; default
    DEFAULT_WORKER_MEMORY_BUDGET)."""

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
        worker_memory_budget=DEFAULT_WORKER_MEMORY_BUDGET,
    ):
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if worker_memory_budget is None or worker_memory_budget < 0:
            raise ValueError(
                "DataLoader: worker_memory_budget should be a non-negative number of bytes, "
                f"got {worker_memory_budget!r}"
            )

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # no accelerator memory to pin into: accepted, no effect
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.in_order = in_order
        self.worker_memory_budget = worker_memory_budget

        is_iterable = isinstance(dataset, IterableDataset)
        self._is_iterable = is_iterable
        if is_iterable:
            if shuffle not in (False, None):
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )

        if sampler is None:
            if is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._iterator = None
        self.__initialized = True

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method in "
                        f"{methods!r}, but got multiprocessing_context={context!r}"
                    )
                context = multiprocessing.get_context(context)
            elif not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a "
                    "string specifying the start method, but got "
                    f"multiprocessing_context={context}"
                )
        self.__multiprocessing_context = context

    def __setattr__(self, attr, val):
        if self.__dict__.get("_DataLoader__initialized") and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        return _MultiProcessIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            # A new pool also after an error (a dead worker) shut the old one down.
            if self._iterator is None or self._iterator._shutdown:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._is_iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        # The length, not the loader: an iterator referring back to its loader would make a
        # cycle, which gc.freeze() would keep from being collected while workers live.
        try:
            self._len = len(loader)
        except TypeError:  # an unsized sampler or IterableDataset
            self._len = None
        self._sampler_iter = iter(self._index_sampler)
        # Drawn with or without workers, and as PyTorch draws it (random_ on an int64 scalar), so
        # both consume the same random numbers and shuffle identically after the same manual_seed
        # (in the mt19937 stream, as under PyTorch).
        seed = ember.empty((), dtype=ember.int64).random_(generator=loader.generator)
        self._base_seed = int(seed.item())
        self._num_yielded = 0

    def _reset(self, loader):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self):
        if self._len is None:
            raise TypeError(f"the {type(self._dataset).__name__} or its sampler has no len()")
        return self._len


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = None
        self._reset(loader)

    def _reset(self, loader):
        super()._reset(loader)
        cls = _worker.IterableFetcher if self._is_iterable else _worker.MapFetcher
        self._fetcher = cls(self._dataset, self._auto_collation, self._collate_fn, self._drop_last)

    def _next_data(self):
        index = next(self._sampler_iter)
        return self._fetcher.fetch(index)


# gc.freeze() is process-wide: frozen while any loader has workers, unfrozen after the last.
_freeze_lock = threading.Lock()
_freeze_users = 0


def _freeze_acquire():
    global _freeze_users
    with _freeze_lock:
        _freeze_users += 1
        gc.freeze()


def _freeze_refresh(collect):
    # Before each fork: objects made since the last freeze are moved out of the collector's
    # reach too (gc.freeze is a list splice, O(1)). Before a recycled worker's fork, the garbage
    # made since the last freeze (the training loop's cycles) is collected first, or it would
    # stay frozen until the loader stops; that collection sees only the unfrozen objects, so it
    # is cheap. (Not before the first fork: that one would walk the whole dataset.)
    if collect:
        gc.collect()
    gc.freeze()


@atexit.register
def _unfreeze_at_exit():
    # Loaders still alive at exit: let the final collections see their objects again.
    if _freeze_users:
        gc.unfreeze()


def _freeze_release():
    global _freeze_users
    with _freeze_lock:
        _freeze_users -= 1
        if _freeze_users == 0:
            gc.unfreeze()


# A worker that passes its budget within fewer batches than this has a working set larger than
# the budget: the budget is doubled (up to _MAX_AUTO_BUDGET) rather than forking per batch.
_MIN_BATCHES_PER_LIFE = 4
_MAX_AUTO_BUDGET = 4 << 30


class _ForkServer:
    """The main process's side of _worker.fork_server_loop (see there)."""

    def __init__(self, ctx, worker_args):
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._exits = {}  # pid -> exit code, as the server reports them
        self.process = ctx.Process(
            target=_worker.fork_server_loop,
            args=(theirs, self._sock, worker_args, []),
            daemon=True,
        )
        self.process.start()
        theirs.close()

    def fileno(self):
        return self._sock.fileno()  # for multiprocessing.connection.wait

    def _recv(self, timeout):
        if not select.select([self._sock], [], [], timeout)[0]:
            return None, []
        data, fds, _, _ = socket.recv_fds(self._sock, 4096, 2)
        if not data:
            raise EOFError
        msg = pickle.loads(data)
        if msg[0] == "exit":
            self._exits[msg[1]] = msg[2]
        return msg, fds

    def request(self, worker_id, seed, budget):
        """Asks for a new worker; it arrives later through poll(). The main process goes on
        meanwhile: that is the point of the server."""
        try:
            self._sock.send(pickle.dumps(("fork", worker_id, seed, budget)))
        except OSError as e:
            raise self._gone() from e

    def poll(self, timeout):
        """[(worker_id, pid, index connection, result connection)] of the workers forked since
        the last call, waiting up to `timeout` for the first message."""
        out = []
        try:
            while True:
                msg, fds = self._recv(timeout)
                if msg is None:
                    return out
                if msg[0] == "forked":
                    index_conn = multiprocessing.connection.Connection(fds[0], readable=False)
                    result_conn = multiprocessing.connection.Connection(fds[1], writable=False)
                    out.append((msg[2], msg[1], index_conn, result_conn))
                timeout = 0
        except (OSError, EOFError) as e:
            raise self._gone() from e

    def _gone(self):
        return RuntimeError(f"DataLoader fork server (pid {self.process.pid}) exited unexpectedly")

    def exitcode(self, pid, timeout):
        """The exit code of worker `pid` once the server reaped it, or None. Only used when
        the loader is about to stop: a worker forked meanwhile is dropped."""
        deadline = time.monotonic() + timeout
        while pid not in self._exits:
            left = deadline - time.monotonic()
            try:
                msg, fds = self._recv(max(left, 0))
            except (OSError, EOFError):
                break
            for fd in fds:
                os.close(fd)
            if msg is None:
                break
        return self._exits.get(pid)

    def stop(self, kill):
        """Stops the server after its workers (asked to leave already) have exited; with
        `kill` it terminates them at once."""
        with contextlib.suppress(OSError):
            self._sock.send(pickle.dumps(("stop", kill)))
        self.process.join(timeout=10.0)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self._sock.close()


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._worker_init_fn = loader.worker_init_fn
        self._persistent = loader.persistent_workers
        self._memory_budget = loader.worker_memory_budget
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._ctx = ctx
        self._forks = ctx.get_start_method() == "fork"
        self._shutdown = True  # nothing to shut down until the freeze below is held
        self._processes = [None] * self._num_workers
        self._index_conns = [None] * self._num_workers
        self._result_conns = [None] * self._num_workers
        self._generation = [0] * self._num_workers
        self._retired = []  # recycled workers, possibly still exiting
        self._pids = [None] * self._num_workers
        self._server = None
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        _freeze_acquire()
        self._shutdown = False
        try:
            # Workers that may be recycled are forked by a fork server, so that the forks do
            # not stall this process (fork start method, map-style dataset, a budget).
            if self._forks and not self._is_iterable and self._memory_budget > 0:
                _freeze_refresh(collect=False)
                self._server = _ForkServer(
                    ctx,
                    {
                        "is_iterable": False,
                        "dataset": self._dataset,
                        "auto_collation": self._auto_collation,
                        "collate_fn": self._collate_fn,
                        "drop_last": self._drop_last,
                        "init_fn": self._worker_init_fn,
                        "num_workers": self._num_workers,
                    },
                )
            for w in range(self._num_workers):
                self._start_worker(w)
            while self._server is not None and None in self._result_conns:
                if not self._install_workers(30.0):
                    raise RuntimeError("DataLoader fork server did not start the workers in 30 s")
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first=True)

    def _start_worker(self, w):
        seed = self._base_seed + w + self._generation[w] * self._num_workers
        if self._server is not None:
            self._server.request(w, seed, self._memory_budget)  # installed by _install_workers
            return
        index_r, index_w = self._ctx.Pipe(duplex=False)
        # A socket pair (duplex), not a pipe: batches' shared memory descriptors travel on it.
        result_r, result_w = self._ctx.Pipe(duplex=True)
        # With fork the child inherits every pipe end the main process holds; it closes them.
        inherited = []
        if self._forks:
            inherited = [c for c in self._index_conns + self._result_conns if c is not None]
            inherited += [index_w, result_r]
        p = self._ctx.Process(
            target=_worker.worker_loop,
            args=(
                self._is_iterable,
                self._dataset,
                index_r,
                result_w,
                inherited,
                self._auto_collation,
                self._collate_fn,
                self._drop_last,
                seed,
                self._worker_init_fn,
                w,
                self._num_workers,
                self._memory_budget,
            ),
            daemon=True,
        )
        _freeze_refresh(collect=self._generation[w] > 0)
        p.start()
        index_r.close()
        result_w.close()
        self._processes[w] = p
        self._pids[w] = p.pid
        self._index_conns[w] = index_w
        self._result_conns[w] = result_r

    def _reset(self, loader, first=False):
        super()._reset(loader)
        # Results of tasks from an unfinished earlier epoch are dropped when they arrive.
        self._task_info = {}
        self._rcvd_idx = self._send_idx
        self._active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        if not first:
            for conn in self._index_conns:
                if conn is not None:  # None: a replacement being forked starts fresh anyway
                    with contextlib.suppress(OSError):
                        conn.send(("reset",))
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            w = next(self._next_worker)
            if self._active[w]:
                break
        else:
            return  # every worker's stream has ended
        self._task_info[self._send_idx] = [w, index]
        # A worker that is retiring has closed its end: its retire message is on the way and
        # the task will be resent to its successor (_recycle).
        conn = self._index_conns[w]  # None while its replacement is being forked
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send((self._send_idx, index))
        self._send_idx += 1

    def _next_data(self):
        while True:
            # Skip tasks of workers whose IterableDataset stream has ended.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 3 or self._active[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 3:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[2])
            w, msg = self._get_message()
            if msg[0] == "retire":
                self._recycle(w, *msg[1:])
                continue
            _, task, data = msg
            if task not in self._task_info:
                continue  # a stale result from an earlier epoch (an end of stream included)
            if isinstance(data, IterableStop):
                self._active[w] = False
                self._task_info.pop(task)
                continue
            if task != self._rcvd_idx:
                self._task_info[task].append(data)
                continue
            del self._task_info[task]
            self._rcvd_idx += 1
            return self._process_data(data)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _get_message(self):
        """The next message from any worker. Never hangs: a worker that died (killed by a
        signal, os._exit) raises RuntimeError naming it; `timeout` > 0 bounds the wait."""

        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            conns = {c: w for w, c in enumerate(self._result_conns) if c is not None}
            # Workers of the fork server have no sentinel here: their death is EOF on their
            # result pipe, whose write end only they hold.
            sentinels = {p.sentinel: w for w, p in enumerate(self._processes) if p is not None}
            wait_s = 1.0 if deadline is None else max(0.0, min(1.0, deadline - time.monotonic()))
            waitables = list(conns) + list(sentinels)
            if self._server is not None:
                waitables.append(self._server)
            ready = multiprocessing.connection.wait(waitables, wait_s)
            if self._server is not None and self._server in ready:
                try:
                    self._install_workers(0)
                except RuntimeError:  # the fork server died
                    self._shutdown_workers(kill=True)
                    raise
            for r in ready:
                if r in conns:
                    w = conns[r]
                    try:
                        payload = r.recv_bytes()
                    except (EOFError, OSError):
                        self._worker_died(w)
                    return w, _worker.loads(payload, r)
            for r in ready:
                if r in sentinels:
                    w = sentinels[r]
                    if not self._result_conns[w].poll():
                        self._worker_died(w)
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown_workers(kill=True)
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _worker_died(self, w):
        pid = self._pids[w]
        if self._server is not None:
            code = self._server.exitcode(pid, timeout=2.0)
        else:
            self._processes[w].join(timeout=1.0)
            code = self._processes[w].exitcode
        self._shutdown_workers(kill=True)
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            raise RuntimeError(
                f"DataLoader worker (pid {pid}) is killed by signal: {name} (exit code {code})."
            )
        raise RuntimeError(
            f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {code}."
        )

    def _install_workers(self, timeout):
        """Takes the workers the fork server made and gives each the outstanding tasks of
        its slot, in order. False if none came within `timeout`."""
        forked = self._server.poll(timeout)
        for w, pid, index_conn, result_conn in forked:
            self._pids[w] = pid
            self._index_conns[w] = index_conn
            self._result_conns[w] = result_conn
            for task in sorted(self._task_info):
                info = self._task_info[task]
                if info[0] == w and len(info) == 2:
                    index_conn.send((task, info[1]))
        return bool(forked)

    def _recycle(self, w, batches, used):
        """Worker w passed its memory budget and has sent everything it fetched: fork a fresh
        one and give it w's outstanding tasks, in order."""
        if batches < _MIN_BATCHES_PER_LIFE and self._memory_budget < _MAX_AUTO_BUDGET:
            # The worker's own working set does not fit the budget: forking after every batch or
            # two would crawl. Double the budget for this iterator's workers, and say so once.
            old_budget = self._memory_budget
            self._memory_budget = min(max(2 * old_budget, 2 * used), _MAX_AUTO_BUDGET)
            warnings.warn(
                f"DataLoader worker {w} used {used / 2**20:.0f} MiB of private memory within "
                f"{batches} batches, over worker_memory_budget ({old_budget / 2**20:.0f} MiB); "
                f"raising the budget to {self._memory_budget / 2**20:.0f} MiB for this iterator "
                "(pass a larger worker_memory_budget, or 0 to disable recycling)",
                RuntimeWarning,
                stacklevel=4,
            )
        # The old worker is exiting; its teardown (unmapping a copy of the parent's address
        # space) takes a while, so it is reaped later instead of waited for here.
        if self._server is None:
            self._retired = [p for p in self._retired if p.is_alive()]  # is_alive() reaps
            self._retired.append(self._processes[w])
        self._index_conns[w].close()
        self._result_conns[w].close()
        self._index_conns[w] = self._result_conns[w] = None
        self._generation[w] += 1
        self._start_worker(w)
        if self._server is not None:
            return  # the tasks go to the new worker when it arrives (_install_workers)
        for task in sorted(self._task_info):
            info = self._task_info[task]
            if info[0] == w and len(info) == 2:
                self._index_conns[w].send((task, info[1]))

    def _shutdown_workers(self, kill=False):
        """Stops the workers: asks them to leave, and terminates those that do not within 5 s
        (at once with `kill`: after a timeout or a dead worker, a busy one is not waited for)."""
        if self._shutdown:
            return
        self._shutdown = True
        try:
            for conn in self._index_conns:
                if conn is not None:
                    with contextlib.suppress(OSError):
                        conn.send(None)
            # Closing our result ends makes a worker blocked in a send get EPIPE and leave.
            for conn in self._result_conns:
                if conn is not None:
                    conn.close()
            if self._server is not None:
                self._server.stop(kill)
            for p in self._processes + self._retired:
                if p is None:
                    continue
                if kill and p.is_alive():
                    p.terminate()
                p.join(timeout=5.0)
                if p.is_alive():
                    p.terminate()
                    p.join()
            for conn in self._index_conns:
                if conn is not None:
                    conn.close()
        finally:
            _freeze_release()

    def __del__(self):
        if getattr(self, "_processes", None) is not None:
            self._shutdown_workers()
