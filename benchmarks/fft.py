"""Fourier transforms: ember.fft against torch.fft in one process.

Rows: `fft` of a complex64 signal and `rfft` of a float32 one, 1-d, at 2^10 ... 2^20 points and
two primes (4099 and 1000003, where a power-of-two algorithm cannot be used), each at 1 and 2
threads. Both libraries get the same input (NumPy, fixed seed); the result is checked once
against the other library's before timing; then the two sides alternate round by round and each
row prints the median time per call, the ratio ember throughput / PyTorch throughput
(= torch time / ember time; above 1: ember is faster) and ember's GFLOP/s by the usual count of
5 n log2(n) flops for a complex transform (half that for a real one).

    benchmarks/run.sh fft                 # sets up .bench-venv, then runs this file
    python benchmarks/fft.py [--rounds 9] [--threads 1,2] [--sizes 1024,4099] [--ops fft,rfft]
"""

import argparse
import math
import platform
import statistics
import time

import numpy as np
import torch

import ember

SIZES = [2**k for k in range(10, 21, 2)] + [4099, 1000003]


def calls_for(n):
    """Calls per timed sample: about 20 ms of work at any size."""
    return max(1, int(2e6 / (n * max(1.0, math.log2(n)))))


def time_call(fn, x, number):
    start = time.perf_counter()
    for _ in range(number):
        fn(x)
    return (time.perf_counter() - start) / number


def row(op, n, threads, rounds, rng):
    if op == "fft":
        data = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
        e_fn, t_fn, flops = ember.fft.fft, torch.fft.fft, 5 * n * math.log2(n)
    else:
        data = rng.standard_normal(n).astype(np.float32)
        e_fn, t_fn, flops = ember.fft.rfft, torch.fft.rfft, 2.5 * n * math.log2(n)
    ex, tx = ember.from_numpy(data.copy()), torch.from_numpy(data.copy())
    ember.set_num_threads(threads)
    torch.set_num_threads(threads)
    got, want = e_fn(ex).numpy(), t_fn(tx).numpy()
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale * math.log2(n))
    number = calls_for(n)
    e_times, t_times = [], []
    for _ in range(rounds):
        e_times.append(time_call(e_fn, ex, number))
        t_times.append(time_call(t_fn, tx, number))
    e, t = statistics.median(e_times), statistics.median(t_times)
    return e, t, flops / e / 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--ops", default="fft,rfft")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    print(
        f"ember {ember.__version__} vs torch {torch.__version__}; {platform.processor() or ''} "
        f"{args.rounds} rounds, median per call"
    )
    print(f"{'op':6} {'n':>8} {'thr':>3} {'ember':>10} {'torch':>10} {'ratio':>6} {'GFLOP/s':>8}")
    ratios = []
    for threads in [int(t) for t in args.threads.split(",")]:
        for op in args.ops.split(","):
            for n in [int(s) for s in args.sizes.split(",")]:
                e, t, gflops = row(op, n, threads, args.rounds, rng)
                ratios.append(t / e)
                print(
                    f"{op:6} {n:>8} {threads:>3} {e * 1e6:>8.1f}us {t * 1e6:>8.1f}us "
                    f"{t / e:>6.2f} {gflops:>8.2f}",
                    flush=True,
                )
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio {geo:.2f}, lowest {min(ratios):.2f}")


if __name__ == "__main__":
    main()
