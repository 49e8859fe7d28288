"""DataLoader memory and speed: ember against PyTorch over a ~1 GB dataset of Python objects.

The dataset is a list of samples, each a tuple (Python list of floats, int label), built once in
a fresh process before the loader; `__getitem__` normalises the floats in Python and returns
(tensor, label), the usual shape of a hand-written Dataset. One epoch, batch_size 64,
shuffle=True. Each configuration runs in its own child process, so each starts from the same
state, and a thread samples the memory of that process and all its descendants every ~50 ms.

Memory is PSS (proportional set size, /proc/<pid>/smaps_rollup): a page shared by k processes
counts 1/k in each, so the sum over the tree is the physical memory the tree really uses. The
sum of RSS counts a shared page once per process that maps it: with forked workers that share
the parent's 1 GB it would report ~5 GB for 1 GB of RAM. Both are printed.

The famous problem: a forked worker shares the parent's pages until it writes them, and CPython
writes an object whenever it touches it (reference counts) and whenever a garbage collection
visits it, so each worker gradually copies the parts of the dataset it reads.

    benchmarks/run.sh dataloader                      # ember and PyTorch, 0 and 4 workers
    python benchmarks/dataloader.py --size-mb 256 --configs ember:0,ember:4
    python benchmarks/dataloader.py --transport       # shared memory against pickling, by size
"""

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time

SCRIPT = os.path.abspath(__file__)


# --- measurement --------------------------------------------------------------------------------


def _children(pid):
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def _tree(pid):
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        todo += _children(p)
    return pids


def _rollup(pid):
    """(Pss, Rss) in bytes of one process, or (0, 0) if it is gone."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                elif line.startswith(b"Rss:"):
                    rss = int(line.split()[1]) * 1024
    except OSError:
        pass
    return pss, rss


class TreeMemory:
    """Samples PSS and RSS summed over process `pid` and its descendants, from a thread of the
    driver process (so the sampling never holds the measured process's interpreter). Reading
    smaps_rollup walks page tables, tens of milliseconds for a 1 GB process, so the period adapts
    to keep the sampler under ~1/3 of one core: max(period, 2 x the last sample's duration)."""

    def __init__(self, pid, period=0.05):
        self.pid = pid
        self.period = period
        self.peak_pss = self.peak_rss = 0
        self.pids = set()
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self):
        pids = _tree(self.pid)
        self.pids.update(pids)
        pss = rss = 0
        for p in pids:
            a, b = _rollup(p)
            pss += a
            rss += b
        self.peak_pss = max(self.peak_pss, pss)
        self.peak_rss = max(self.peak_rss, rss)
        self.samples += 1
        return pss

    def _run(self):
        wait = self.period
        while not self._stop.wait(wait):
            start = time.perf_counter()
            self.sample()
            wait = max(self.period, 2 * (time.perf_counter() - start))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


# --- one configuration, in a child process ----------------------------------------------------


def build_samples(size_mb, features, seed=0):
    """A list of (list of `features` distinct float objects, int label) of about size_mb MB."""
    # Per sample: the floats (24 B each), the list (56 B + 8 B per item), the tuple (56 B).
    per_sample = features * 32 + 56 + 56
    n = size_mb * 1024 * 1024 // per_sample
    rng = random.Random(seed)
    return [([rng.random() for _ in range(features)], i % 10) for i in range(n)]


def run_one(lib_name, num_workers, size_mb, batch_size, features, budget_mb=None):
    if lib_name == "torch":
        import torch as lib
        from torch.utils.data import DataLoader, Dataset
    else:
        import ember as lib
        from ember.utils.data import DataLoader, Dataset

    class Samples(Dataset):
        def __init__(self, samples):
            self.samples = samples

        def __len__(self):
            return len(self.samples)

        def __getitem__(self, i):
            feats, label = self.samples[i]
            return lib.tensor([(v - 0.5) * 2.0 for v in feats]), label

    lib.manual_seed(0)
    base_before = _rollup(os.getpid())[0]
    samples = build_samples(size_mb, features)
    dataset = Samples(samples)
    base = _rollup(os.getpid())[0]
    print("READY", flush=True)  # the driver's sampler starts here
    kwargs = {}
    if budget_mb is not None and lib_name == "ember" and num_workers > 0:
        kwargs["worker_memory_budget"] = budget_mb * 2**20
    loader = DataLoader(
        dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers, **kwargs
    )
    batches = seen = 0
    start = time.perf_counter()
    for x, y in loader:
        batches += 1
        seen += int(y.shape[0])
        assert x.shape[1] == features
    elapsed = time.perf_counter() - start
    del loader
    return {
        "lib": lib_name,
        "num_workers": num_workers,
        "samples": len(samples),
        "seen": seen,
        "batches": batches,
        "dataset_pss": base - base_before,
        "base_pss": base,
        "epoch_s": elapsed,
    }


# --- transport: shared memory against inline pickling -------------------------------------------


def transport(rounds=3):
    """ms per batch of an ember DataLoader (2 workers) whose batches are one float32 tensor, with
    the batch sent by shared memory (a memfd's descriptor) or pickled inline, for batch sizes around
    the threshold."""
    import ember
    from ember.utils.data import DataLoader, Dataset, _worker

    class Rows(Dataset):
        def __init__(self, n, width):
            self.n, self.width = n, width

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return ember.full((self.width,), float(i))

    def epoch(width, batches, threshold):
        _worker._SHARE_MIN_BYTES = threshold
        loader = DataLoader(Rows(64 * batches, width), batch_size=64, num_workers=2)
        start = time.perf_counter()
        for _ in loader:
            pass
        return (time.perf_counter() - start) / batches * 1000

    default = _worker._SHARE_MIN_BYTES
    print(f"ms per batch (64 rows, float32, 2 workers, median of {rounds} epochs)")
    print(f"{'batch':>10} {'shared':>10} {'inline':>10}")
    for width in (64, 1024, 2048, 4096, 8192, 12288, 73728):
        batches = max(20, min(400, 200_000 // width))
        shm = sorted(epoch(width, batches, 1) for _ in range(rounds))[rounds // 2]
        inline = sorted(epoch(width, batches, 1 << 62) for _ in range(rounds))[rounds // 2]
        print(f"{64 * width * 4 / 1024:8.0f} KiB {shm:10.2f} {inline:10.2f}")
    print(f"ember sends tensors of {default / 1024:.0f} KiB or more by shared memory")


# --- driver ------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=1024, help="dataset size (default 1024)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--features", type=int, default=64, help="floats per sample")
    ap.add_argument(
        "--configs",
        default="ember:0,ember:4,torch:0,torch:4",
        help="comma-separated lib:num_workers (default ember:0,ember:4,torch:0,torch:4)",
    )
    ap.add_argument(
        "--budget-mb",
        type=int,
        help="ember's worker_memory_budget in MiB (default: the DataLoader's default; 0: off)",
    )
    ap.add_argument(
        "--transport",
        action="store_true",
        help="instead: time ember's batch transport, shared memory against inline pickling",
    )
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.transport:
        transport()
        return
    if args.child:
        lib_name, workers = args.child.split(":")
        r = run_one(
            lib_name, int(workers), args.size_mb, args.batch_size, args.features, args.budget_mb
        )
        print("RESULT " + json.dumps(r), flush=True)
        return

    results = []
    for config in args.configs.split(","):
        lib_name = config.split(":")[0]
        if lib_name == "torch":
            try:
                import importlib.util

                if importlib.util.find_spec("torch") is None:
                    print(f"{config}: skipped (PyTorch is not installed)")
                    continue
            except ImportError:
                continue
        cmd = [sys.executable, SCRIPT, "--child", config, "--size-mb", str(args.size_mb)]
        cmd += ["--batch-size", str(args.batch_size), "--features", str(args.features)]
        if args.budget_mb is not None:
            cmd += ["--budget-mb", str(args.budget_mb)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = []
        for line in proc.stdout:  # the dataset is built; the loader starts
            if line.startswith("READY"):
                break
        with TreeMemory(proc.pid) as mem:
            lines = proc.stdout.readlines()
            proc.wait()
        lines = [ln for ln in lines if ln.startswith("RESULT ")]
        if proc.returncode != 0 or not lines:
            print(f"{config}: failed (exit {proc.returncode})\n{proc.stderr.read()[-3000:]}")
            continue
        r = json.loads(lines[-1][len("RESULT ") :])
        r["peak_pss"] = max(mem.peak_pss, r["base_pss"])
        r["peak_rss_sum"] = mem.peak_rss
        r["processes"] = len(mem.pids)
        r["memory_samples"] = mem.samples
        results.append(r)
        mib = 2**20
        print(
            f"{r['lib']:>5} num_workers={r['num_workers']}: "
            f"dataset {r['dataset_pss'] / mib:6.0f} MiB, "
            f"peak PSS {r['peak_pss'] / mib:6.0f} MiB "
            f"(sum of RSS {r['peak_rss_sum'] / mib:6.0f} MiB), "
            f"epoch {r['epoch_s']:6.2f} s, {r['batches']} batches, "
            f"{r['processes']} processes seen, {r['memory_samples']} memory samples",
            flush=True,
        )

    by = {(r["lib"], r["num_workers"]): r for r in results}
    print(
        "\nPSS: shared pages divided among the processes that map them (the tree's real "
        "memory);\nsum of RSS counts the parent's pages once per worker that maps them."
    )
    for lib_name in ("ember", "torch"):
        zero = by.get((lib_name, 0))
        for (name, w), r in sorted(by.items()):
            if name == lib_name and w > 0 and zero:
                print(
                    f"{lib_name} {w} workers / {lib_name} 0 workers, peak PSS: "
                    f"{r['peak_pss'] / zero['peak_pss']:.2f}x; epoch time "
                    f"{r['epoch_s'] / zero['epoch_s']:.2f}x"
                )
    for (name, w), r in sorted(by.items()):
        t = by.get(("torch", w))
        if name == "ember" and w > 0 and t:
            print(
                f"ember / torch at {w} workers, peak PSS: {r['peak_pss'] / t['peak_pss']:.2f}x; "
                f"epoch time {r['epoch_s'] / t['epoch_s']:.2f}x"
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
