"""Factorisations: ember.linalg against torch.linalg in one process.

Rows: `solve` (A X = B, B with one column), `svd` (thin), `eigh` and `cholesky`, in float64, at
n = 64, 256 and 1024 and on a batch of 64 matrices of 32 x 32, each at 1 and 2 threads. Both
libraries get the same matrices (NumPy, fixed seed: well-conditioned A, symmetric for eigh,
positive-definite for cholesky). Before timing, each row checks ember's result against
PyTorch's (through gauge-free quantities: singular values and eigenvalues, and the
reconstruction error of the factors). The two sides then alternate round by round, and each row
prints the median time per call and the ratio ember throughput / PyTorch throughput
(= torch time / ember time; above 1: ember is faster).

    benchmarks/run.sh linalg              # sets up .bench-venv, then runs this file
    python benchmarks/linalg.py [--rounds 7] [--threads 1,2] [--ops solve,svd] [--sizes 64,b64x32]
"""

import argparse
import math
import statistics
import time

import numpy as np
import torch

import ember

SIZES = ["64", "256", "1024", "b64x32"]
OPS = ["solve", "svd", "eigh", "cholesky"]


def shape_of(size):
    """'256' -> (256, 256); 'b64x32' -> (64, 32, 32)."""
    if size.startswith("b"):
        b, n = (int(v) for v in size[1:].split("x"))
        return (b, n, n)
    n = int(size)
    return (n, n)


def inputs(op, shape, rng):
    n = shape[-1]
    a = rng.standard_normal(shape)
    if op in ("eigh", "cholesky"):
        a = a @ np.swapaxes(a, -1, -2) / n + np.eye(n)
    else:
        a = a + math.sqrt(n) * np.eye(n)
    if op == "solve":
        return a, rng.standard_normal((*shape[:-1], 1))
    return (a,)


def calls(lib, op):
    la = lib.linalg
    return {
        "solve": lambda a, b: la.solve(a, b),
        "svd": lambda a: la.svd(a, full_matrices=False),
        "eigh": lambda a: la.eigh(a),
        "cholesky": lambda a: la.cholesky(a),
    }[op]


def check(op, args, got, want):
    """ember's result against PyTorch's, through quantities that do not depend on signs."""
    if op == "solve":
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-8, atol=1e-10)
    elif op == "svd":
        np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-10, atol=1e-10)
        u, s, vh = (t.numpy() for t in got)
        np.testing.assert_allclose(u @ (s[..., :, None] * vh), args[0], atol=1e-8)
    elif op == "eigh":
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-10, atol=1e-10)
    else:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


def time_call(fn, args, number):
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number


def row(op, size, threads, rounds, rng):
    data = inputs(op, shape_of(size), rng)
    e_args = tuple(ember.from_numpy(a.copy()) for a in data)
    t_args = tuple(torch.from_numpy(a.copy()) for a in data)
    ember.set_num_threads(threads)
    torch.set_num_threads(threads)
    e_fn, t_fn = calls(ember, op), calls(torch, op)
    check(op, data, e_fn(*e_args), t_fn(*t_args))
    once = time_call(t_fn, t_args, 1)
    number = max(1, int(0.02 / max(once, 1e-7)))
    e_times, t_times = [], []
    for _ in range(rounds):
        e_times.append(time_call(e_fn, e_args, number))
        t_times.append(time_call(t_fn, t_args, number))
    return statistics.median(e_times), statistics.median(t_times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--sizes", default=",".join(SIZES))
    p.add_argument("--ops", default=",".join(OPS))
    args = p.parse_args()
    rng = np.random.default_rng(0)
    print(f"ember {ember.__version__} vs torch {torch.__version__}; float64, {args.rounds} rounds")
    print(f"{'op':9} {'size':>7} {'thr':>3} {'ember':>11} {'torch':>11} {'ratio':>6}")
    ratios = []
    for threads in [int(t) for t in args.threads.split(",")]:
        for op in args.ops.split(","):
            for size in args.sizes.split(","):
                e, t = row(op, size, threads, args.rounds, rng)
                ratios.append(t / e)
                print(
                    f"{op:9} {size:>7} {threads:>3} {e * 1e3:>9.3f}ms {t * 1e3:>9.3f}ms "
                    f"{t / e:>6.2f}",
                    flush=True,
                )
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio {geo:.2f}, lowest {min(ratios):.2f}")


if __name__ == "__main__":
    main()
