"""Op throughput: float32 ops at 1e3, 1e5 and 1e7 elements, ember against PyTorch in one process.

Each row times one op at one size for both libraries on the same input values (made with NumPy
from a fixed seed), alternating the two sides round by round so that machine noise hits both
alike, and prints the median time per call, the ratio ember throughput / PyTorch throughput
(= torch time / ember time; above 1: ember is faster) and each side's GB/s or GFLOP/s. Before
timing a row it checks once that the two results agree, so it never times a wrong answer; an op
that ember lacks prints as "missing in ember".

What a size N means, per op (COLS is --cols, 1000 unless told; rows = N / COLS):
  add, mul, exp, tanh, gelu, sum   a 1-d tensor of N elements (sum: over all of it)
  sum_dim, softmax                 [rows, COLS], over the last dim
  matmul                           n x n @ n x n with n = round(sqrt(N)): 32, 316, 3162
  index_select                     [rows, COLS], dim 0, `rows` random row indices
  gather                           [rows, COLS], dim 1, an index of the same shape
  scatter_add                      [rows, COLS], dim 1, index and src of the same shape
GB/s counts every input read once and the output written once (float32, indices int64);
matmul counts 2 n^3 FLOP.

    benchmarks/run.sh ops               # sets up .bench-venv, then runs this file
    python benchmarks/ops.py [--rounds 11] [--threads 1] [--ops add,matmul] [--sizes 1e3,1e5]
                             [--cols 1000] [--json out.json]
"""

import argparse
import importlib
import json
import math
import platform
import statistics
import sys
import time

import numpy as np

F32, I64 = 4, 8


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _first(*candidates):
    """The first candidate (a zero-argument resolver) that gives a callable, else None."""
    for resolve in candidates:
        try:
            fn = resolve()
        except AttributeError:
            fn = None
        if callable(fn):
            return fn
    return None


def _method(lib, name, *args):
    """x.name(*args) when ember's Tensor has that method, else None."""
    if not hasattr(lib.Tensor, name):
        return None
    return lambda x, *rest: getattr(x, name)(*args, *rest)


def _nn_functional(lib, name):
    return getattr(_module(f"{lib.__name__}.nn.functional"), name)


# Each op: how to make its inputs for a size, and its function for each library (None: missing).
# make(n, cols, rng) -> (shape label, tuple of NumPy arrays, work, unit); work is in bytes or FLOP.
class Op:
    def __init__(self, make, torch_fn, ember_fn, rtol=1e-5, atol=1e-6):
        self.make, self.torch_fn, self.ember_fn = make, torch_fn, ember_fn
        self.rtol, self.atol = rtol, atol


def _flat(arity, out=1):
    def make(n, cols, rng):
        args = tuple(rng.uniform(-3, 3, n).astype(np.float32) for _ in range(arity))
        return f"[{n}]", args, (arity + out) * n * F32, "GB/s"

    return make


def _sum_all(n, cols, rng):
    return f"[{n}]", (rng.uniform(0, 1, n).astype(np.float32),), n * F32, "GB/s"


def _rows(n, cols):
    return max(1, round(n / cols)), cols


def _sum_dim(n, cols, rng):
    r, c = _rows(n, cols)
    return f"[{r},{c}]", (rng.uniform(0, 1, (r, c)).astype(np.float32),), (r * c + r) * F32, "GB/s"


def _softmax(n, cols, rng):
    r, c = _rows(n, cols)
    return f"[{r},{c}]", (rng.standard_normal((r, c)).astype(np.float32),), 2 * r * c * F32, "GB/s"


def _matmul(n, cols, rng):
    k = max(1, round(math.sqrt(n)))
    a = rng.uniform(-1, 1, (k, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, k)).astype(np.float32)
    return f"{k}x{k} @ {k}x{k}", (a, b), 2 * k**3, "GFLOP/s"


def _index_select(n, cols, rng):
    r, c = _rows(n, cols)
    x = rng.standard_normal((r, c)).astype(np.float32)
    idx = rng.integers(0, r, r)
    return f"[{r},{c}] dim 0", (x, idx), 2 * r * c * F32 + r * I64, "GB/s"


def _gather(n, cols, rng):
    r, c = _rows(n, cols)
    x = rng.standard_normal((r, c)).astype(np.float32)
    idx = rng.integers(0, c, (r, c))
    return f"[{r},{c}] dim 1", (x, idx), r * c * (2 * F32 + I64), "GB/s"


def _scatter_add(n, cols, rng):
    r, c = _rows(n, cols)
    x = rng.standard_normal((r, c)).astype(np.float32)
    idx = rng.integers(0, c, (r, c))
    src = rng.standard_normal((r, c)).astype(np.float32)
    return f"[{r},{c}] dim 1", (x, idx, src), r * c * (3 * F32 + I64), "GB/s"


def _same(fn):
    """The same code on both sides: lib -> callable."""
    return fn, fn


def _ops():
    add = _same(lambda lib: lambda x, y: x + y)
    mul = _same(lambda lib: lambda x, y: x * y)
    exp = _same(lambda lib: lib.exp)
    tanh = _same(lambda lib: lib.tanh)
    sum_all = _same(lambda lib: lambda x: x.sum())
    sum_dim = _same(lambda lib: lambda x: x.sum(-1))
    matmul = _same(lambda lib: lambda a, b: a @ b)
    gelu = (
        lambda t: t.nn.functional.gelu,
        lambda e: _first(lambda: _nn_functional(e, "gelu"), lambda: e.gelu),
    )
    softmax = (
        lambda t: lambda x: t.softmax(x, -1),
        lambda e: _first(
            lambda: lambda x, f=e.softmax: f(x, -1), lambda: _method(e, "softmax", -1)
        ),
    )
    index_select = (
        lambda t: lambda x, i: t.index_select(x, 0, i),
        lambda e: _first(
            lambda: lambda x, i, f=e.index_select: f(x, 0, i),
            lambda: _method(e, "index_select", 0),
        ),
    )
    gather = (
        lambda t: lambda x, i: t.gather(x, 1, i),
        lambda e: _first(
            lambda: lambda x, i, f=e.gather: f(x, 1, i), lambda: _method(e, "gather", 1)
        ),
    )
    scatter_add = (
        lambda t: lambda x, i, s: t.scatter_add(x, 1, i, s),
        lambda e: _first(
            lambda: lambda x, i, s, f=e.scatter_add: f(x, 1, i, s),
            lambda: _method(e, "scatter_add", 1),
        ),
    )
    return {
        "add": Op(_flat(2), *add),
        "mul": Op(_flat(2), *mul),
        "exp": Op(_flat(1), *exp),
        "tanh": Op(_flat(1), *tanh),
        # Both sides approximate erf in float32; they differ by up to ~1.2e-6 near x = -4, where
        # 1 + erf is small (the op tests hold ember to float64 NumPy within 1e-5 absolute).
        "gelu": Op(_flat(1), *gelu, atol=1e-5),
        "sum": Op(_sum_all, *sum_all, rtol=1e-4, atol=0),
        "sum_dim": Op(_sum_dim, *sum_dim, rtol=1e-4, atol=0),
        "softmax": Op(_softmax, *softmax, atol=1e-7),
        # atol grows with the inner dimension: float32 sums of n products in any order.
        "matmul": Op(_matmul, *matmul, rtol=1e-4, atol=None),
        "index_select": Op(_index_select, *index_select, rtol=0, atol=0),
        "gather": Op(_gather, *gather, rtol=0, atol=0),
        "scatter_add": Op(_scatter_add, *scatter_add, atol=1e-5),
    }


OPS = _ops()


def time_call(fn, args, number):
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number


def calibrate(fn, args):
    """Calls per measurement so that one takes about 20 ms (at least one call)."""
    n = 1
    while time_call(fn, args, n) * n < 0.02:
        n *= 2
    return n


def parse_size(text):
    n = int(float(text))
    if n < 1:
        raise argparse.ArgumentTypeError(f"size must be positive: {text}")
    return n


def size_label(n):
    k = round(math.log10(n))
    return f"1e{k}" if 10**k == n else str(n)


def fmt_us(us):
    return f"{us:.3f}" if us < 10 else f"{us:.1f}" if us < 1e4 else f"{us:.0f}"


def check(op, shape, t_out, e_out):
    """None when the two results agree, else a short description of the difference."""
    want = t_out.numpy()
    got = np.asarray(e_out.numpy())
    atol = op.atol if op.atol is not None else 2e-6 * want.shape[-1]
    try:
        np.testing.assert_allclose(got, want, rtol=op.rtol, atol=atol)
    except AssertionError:
        if got.shape != want.shape:
            return f"WRONG: ember shape {got.shape}, torch {want.shape}"
        diff = np.abs(got.astype(np.float64) - want)
        return f"WRONG: max abs diff {diff.max():.3g} (rtol {op.rtol}, atol {atol:.3g})"
    return None


def run_row(name, n, args, torch, ember, rng):
    op = OPS[name]
    shape, arrays, work, unit = op.make(n, args.cols, rng)
    row = {"op": name, "size": size_label(n), "shape": shape}
    # Separate copies: each side reads its own memory, with the same values.
    t_args = tuple(torch.from_numpy(a.copy()) for a in arrays)
    e_args = tuple(ember.from_numpy(a.copy()) for a in arrays)
    t_fn = op.torch_fn(torch)
    e_fn = op.ember_fn(ember)
    if e_fn is None:
        row["note"] = "missing in ember"
        return row
    t_out = t_fn(*t_args)
    try:
        e_out = e_fn(*e_args)
    except Exception as err:  # not implemented for these arguments, ...
        row["note"] = f"error in ember: {type(err).__name__}: {str(err).splitlines()[0][:80]}"
        return row
    note = check(op, shape, t_out, e_out)
    if note:
        row["note"] = note
        return row
    del t_out, e_out
    sides = {"ember": (e_fn, e_args), "torch": (t_fn, t_args)}
    numbers = {s: calibrate(*sides[s]) for s in sides}
    samples = {s: [] for s in sides}
    for r in range(args.rounds):
        # Alternate, and swap who goes first each round: both sides see the same noise.
        for s in ("ember", "torch") if r % 2 == 0 else ("torch", "ember"):
            samples[s].append(time_call(*sides[s], numbers[s]))
    e = statistics.median(samples["ember"])
    t = statistics.median(samples["torch"])
    scale = 1e9
    row.update(
        ember_us=e * 1e6,
        torch_us=t * 1e6,
        ratio=t / e,
        unit=unit,
        ember_rate=work / e / scale,
        torch_rate=work / t / scale,
    )
    return row


def print_row(row):
    head = f"{row['op']:<13}{row['size']:>5}  {row['shape']:<22}"
    if "note" in row:
        print(f"{head}{row['note']}", flush=True)
        return
    print(
        f"{head}{fmt_us(row['ember_us']):>12}{fmt_us(row['torch_us']):>12}{row['ratio']:>8.2f}"
        f"{row['ember_rate']:>10.2f}{row['torch_rate']:>10.2f} {row['unit']}",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--threads", type=int, default=1, help="for both libraries (default 1)")
    parser.add_argument("--ops", help=f"comma-separated subset of: {','.join(OPS)}")
    parser.add_argument("--sizes", default="1e3,1e5,1e7", help="elements, comma-separated")
    parser.add_argument("--cols", type=int, default=1000, help="last dim of the 2-d ops")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    names = args.ops.split(",") if args.ops else list(OPS)
    unknown = [n for n in names if n not in OPS]
    if unknown:
        parser.error(f"unknown ops {unknown}; choose from {','.join(OPS)}")
    sizes = [parse_size(s) for s in args.sizes.split(",")]

    import torch

    import ember

    for lib in (torch, ember):
        if hasattr(lib, "set_num_threads"):
            lib.set_num_threads(args.threads)
    threads = {
        lib.__name__: lib.get_num_threads() if hasattr(lib, "get_num_threads") else "?"
        for lib in (ember, torch)
    }
    print(
        f"ember {ember.__version__} vs torch {torch.__version__}, Python "
        f"{platform.python_version()}, threads ember {threads['ember']} / torch "
        f"{threads['torch']}, float32, median of {args.rounds} rounds; "
        f"ratio = ember throughput / torch throughput (above 1: ember is faster)"
    )
    print(
        f"{'op':<13}{'size':>5}  {'shape':<22}{'ember us':>12}{'torch us':>12}{'ratio':>8}"
        f"{'ember':>10}{'torch':>10}"
    )
    rng = np.random.default_rng(args.seed)
    rows = []
    with torch.no_grad(), ember.no_grad():
        for name in names:
            for n in sizes:
                row = run_row(name, n, args, torch, ember, rng)
                print_row(row)
                rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": threads, "rounds": args.rounds, "rows": rows}, f, indent=1)
    if any(r.get("note", "").startswith("WRONG") for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
