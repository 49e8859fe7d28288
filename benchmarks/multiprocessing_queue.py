"""Sending tensors to another process: ember.multiprocessing against torch.multiprocessing
(named so that it does not shadow the standard library's multiprocessing when run as a script).

One row per start method: a fresh float32 tensor of --mb megabytes is put on a Queue to a child
process that is already running; the child reads it (sums it, so every page is touched) and
replies. The time is from before the put to the reply, the move into shared memory included
(both libraries move a tensor's storage on its first trip). The two sides alternate round by
round; each prints the median, the ratio ember time / torch time (below 1: ember is faster;
the goal is at most 1.2), and how much the child's private memory (RssAnon) grew while it held
the tensor: near 0 when the pages are shared, the tensor's size when they are copied.

    benchmarks/run.sh multiprocessing_queue   # sets up .bench-venv, then runs this file
    python benchmarks/multiprocessing_queue.py [--rounds 7] [--mb 100] [--methods fork,spawn]
"""

import argparse
import statistics
import time

import torch

import ember


def _rss_anon_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def _child(inbox, outbox):
    while True:
        item = inbox.get()
        if item is None:
            return
        before = _rss_anon_kb()
        total = float(item.sum())
        grew = _rss_anon_kb() - before
        del item
        outbox.put((total, grew))


class Side:
    def __init__(self, lib, method):
        self.lib = lib
        ctx = lib.multiprocessing.get_context(method)
        self.inbox, self.outbox = ctx.Queue(), ctx.Queue()
        self.process = ctx.Process(target=_child, args=(self.inbox, self.outbox), daemon=True)
        self.process.start()

    def send(self, numel):
        t = self.lib.ones(numel)
        start = time.perf_counter()
        self.inbox.put(t)
        total, grew = self.outbox.get(timeout=600)
        elapsed = time.perf_counter() - start
        assert total == numel, (total, numel)
        return elapsed, grew

    def close(self):
        self.inbox.put(None)
        self.process.join(60)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--methods", default="fork,spawn,forkserver")
    args = parser.parse_args()
    numel = args.mb * 1024 * 1024 // 4
    print(
        f"ember {ember.__version__} vs torch {torch.__version__}; {args.mb} MB float32, "
        f"{args.rounds} rounds"
    )
    print(
        f"{'method':<11} {'ember ms':>9} {'torch ms':>9} {'ratio':>6} "
        f"{'ember child +MB':>16} {'torch child +MB':>16}"
    )
    for method in args.methods.split(","):
        sides = {"ember": Side(ember, method), "torch": Side(torch, method)}
        for side in sides.values():
            side.send(numel)  # warm-up: the child's first get, the resource sharer
        times = {name: [] for name in sides}
        grown = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, side in sides.items():
                elapsed, grew = side.send(numel)
                times[name].append(elapsed)
                grown[name].append(grew / 1024)
        for side in sides.values():
            side.close()
        e, t = statistics.median(times["ember"]), statistics.median(times["torch"])
        print(
            f"{method:<11} {e * 1e3:9.1f} {t * 1e3:9.1f} {e / t:6.2f} "
            f"{max(grown['ember']):16.1f} {max(grown['torch']):16.1f}"
        )


if __name__ == "__main__":
    main()
