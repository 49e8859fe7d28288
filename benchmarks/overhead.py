"""Per-op overhead: tiny-tensor calls from Python, ember against PyTorch in one process.

Each row times one call (a 1-element add, a 2x2 matmul, an index, ...) for both libraries,
alternating the two sides round by round so that machine noise hits both alike, and prints the
median time per call and the ratio ember / PyTorch (below 1: ember is faster). Both run on one
thread: tiny ops never use more. Also times `import` of each library as a whole process.

    benchmarks/run.sh overhead          # sets up .bench-venv, then runs this file
    python benchmarks/overhead.py [--rounds 15] [--json out.json]
"""

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time


def cases(lib):
    """name -> zero-argument callable doing the work once, for library `lib`."""
    x = lib.ones(1)
    y = lib.ones(1)
    m = lib.ones(2, 2)
    t = lib.ones(8, 8)
    w = lib.ones(1, requires_grad=True)
    b = lib.ones(1, requires_grad=True)
    lst = [1.0, 2.0, 3.0, 4.0]

    def fwd_bwd():
        (x * w + b).sum().backward()

    return {
        "add (1 elem)": lambda: x + y,
        "mul (1 elem)": lambda: x * y,
        "sum (1 elem)": lambda: x.sum(),
        "matmul 2x2": lambda: m @ m,
        "integer index": lambda: t[3],
        "slice": lambda: t[1:5:2],
        "view": lambda: t.view(64),
        "reshape": lambda: t.reshape(4, 16),
        "tensor from list": lambda: lib.tensor(lst),
        "3-op forward+backward": fwd_bwd,
    }


def time_call(fn, number):
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def calibrate(fn):
    """Calls per measurement so that one takes about 20 ms."""
    n = 10
    while time_call(fn, n) * n < 0.02:
        n *= 2
    return n


def import_time(module, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()

    import torch

    import ember

    torch.set_num_threads(1)
    ember.set_num_threads(1)
    sides = {"ember": cases(ember), "torch": cases(torch)}
    names = list(sides["ember"])
    numbers = {(s, n): calibrate(sides[s][n]) for s in sides for n in names}
    samples = {(s, n): [] for s in sides for n in names}
    for _ in range(args.rounds):
        for n in names:
            for s in ("ember", "torch"):  # alternate: both sides see the same noise
                samples[(s, n)].append(time_call(sides[s][n], numbers[(s, n)]))

    rows = []
    print(
        f"ember {ember.__version__} vs torch {torch.__version__}, Python "
        f"{platform.python_version()}, 1 thread, median of {args.rounds} rounds"
    )
    print(f"{'op':<24}{'ember us':>10}{'torch us':>10}{'ratio':>8}")
    for n in names:
        e = statistics.median(samples[("ember", n)]) * 1e6
        t = statistics.median(samples[("torch", n)]) * 1e6
        rows.append({"op": n, "ember_us": e, "torch_us": t, "ratio": e / t})
        print(f"{n:<24}{e:>10.3f}{t:>10.3f}{e / t:>8.2f}")

    baseline = import_time("sys", 7)
    imports = {}
    for mod in ("ember", "torch"):
        imports[mod] = import_time(mod, 7)
    e_ms, t_ms = imports["ember"] * 1e3, imports["torch"] * 1e3
    print(
        f"{'import (whole process)':<24}{e_ms:>9.1f}ms{t_ms:>9.1f}ms{e_ms / t_ms:>8.2f}"
        f"   (python alone: {baseline * 1e3:.1f} ms)"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "import_s": imports, "python_alone_s": baseline}, f, indent=1)


if __name__ == "__main__":
    main()
