"""Optimizer step: ember's Adam (or --optimizer NAME) against torch.optim's in one process,
float32, over the parameter shapes of ResNet-50 (161 tensors, 25,557,032 values).

Rows, at each thread count:
  torch default    torch.optim.Adam(params) with default arguments (the for-loop
                   implementation on CPU), the reference for the ratio
  torch foreach    foreach=True (multi-tensor ops, still one pass per op)
  torch fused      fused=True, when this torch has a fused CPU version of the optimizer
ember's side is ember.optim.Adam(params) with default arguments: one fused C++ call per step.
Before timing, one step of each library from the same parameters and gradients is compared, so a
wrong answer is never timed. Rounds alternate the two sides and swap who goes first; the figure
is the median time per step and the ratio is torch time / ember time (above 1: ember is faster).

    benchmarks/run.sh optim [--optimizer Adam] [--threads 1,2] [--rounds 5] [--json out.json]

On a loaded machine (more runnable threads than cores), set OMP_WAIT_POLICY=PASSIVE: with
spinning OpenMP threads PyTorch's 2-thread step took 100 ms to 3 s here instead of 15-90 ms.
"""

import argparse
import json
import platform
import statistics
import sys
import time

import numpy as np


def resnet50_shapes():
    """The shapes of torchvision's resnet50().parameters(), in order."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]  # stem conv and its batch norm

    def conv_bn(out_c, in_c, k):
        shapes.extend([(out_c, in_c, k, k), (out_c,), (out_c,)])

    in_c = 64
    for width, blocks in [(64, 3), (128, 4), (256, 6), (512, 3)]:
        for b in range(blocks):
            conv_bn(width, in_c, 1)
            conv_bn(width, width, 3)
            conv_bn(width * 4, width, 1)
            if b == 0:
                conv_bn(width * 4, in_c, 1)  # the downsample branch
            in_c = width * 4
    shapes.extend([(1000, 2048), (1000,)])  # fc
    return shapes


SHAPES = resnet50_shapes()
assert len(SHAPES) == 161 and sum(int(np.prod(s)) for s in SHAPES) == 25_557_032


def ms_per_step(step, min_time):
    """One measurement: steps until min_time has passed; the mean ms per step."""
    n, t0 = 0, time.perf_counter()
    while True:
        step()
        n += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time:
            return elapsed / n * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--optimizer", default="Adam", help="a torch.optim class name")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--min-time", type=float, default=0.3, help="seconds per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()

    import torch

    import ember

    rng = np.random.default_rng(args.seed)
    init = [rng.standard_normal(s, dtype=np.float32) * 0.05 for s in SHAPES]
    grads = [rng.standard_normal(s, dtype=np.float32) * 1e-3 for s in SHAPES]

    e_params = [ember.tensor(a, requires_grad=True) for a in init]
    for p, g in zip(e_params, grads):
        p.grad = ember.tensor(g)
    t_params = [torch.tensor(a, requires_grad=True) for a in init]
    for p, g in zip(t_params, grads):
        p.grad = torch.tensor(g)

    name = args.optimizer
    e_opt = getattr(ember.optim, name)(e_params)
    variants = {"torch default": {}, "torch foreach": {"foreach": True}}
    try:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], fused=True)
        variants["torch fused"] = {"fused": True}
    except (RuntimeError, ValueError, TypeError) as e:  # no fused CPU version in this build
        print(f"torch fused: not available ({e})")
    t_opts = {v: getattr(torch.optim, name)(t_params, **kw) for v, kw in variants.items()}

    # One step each from the same values: the results must agree before anything is timed.
    e_opt.step()
    t_opts["torch default"].step()
    worst = max(
        float(np.max(np.abs(e.detach().numpy() - t.detach().numpy())))
        for e, t in zip(e_params, t_params)
    )
    if worst > 1e-6:
        print(f"WRONG: ember and torch differ by {worst:.3g} after one {name} step")
        sys.exit(1)
    for opt in t_opts.values():  # create every variant's state before timing
        opt.step()

    print(
        f"ember {ember.__version__} vs torch {torch.__version__}, Python "
        f"{platform.python_version()}, {name} step over ResNet-50's {len(SHAPES)} parameters "
        f"({sum(p.numel() for p in e_params):,} float32 values), median of {args.rounds} rounds; "
        f"ratio = torch time / ember time (above 1: ember is faster); one step agreed to "
        f"{worst:.1e}"
    )
    print(f"{'threads':<9}{'torch side':<16}{'ember ms':>10}{'torch ms':>10}{'ratio':>8}")
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        for lib in (torch, ember):
            lib.set_num_threads(threads)
        for variant, opt in t_opts.items():
            e_times, t_times = [], []
            for r in range(args.rounds):
                sides = [(e_opt.step, e_times), (opt.step, t_times)]
                for step, out in sides if r % 2 == 0 else sides[::-1]:
                    out.append(ms_per_step(step, args.min_time))
            e_ms, t_ms = statistics.median(e_times), statistics.median(t_times)
            row = {
                "threads": threads,
                "optimizer": name,
                "torch": variant,
                "ember_ms": e_ms,
                "torch_ms": t_ms,
                "ratio": t_ms / e_ms,
            }
            rows.append(row)
            print(
                f"{threads:<9}{variant:<16}{e_ms:>10.2f}{t_ms:>10.2f}{t_ms / e_ms:>8.2f}",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": args.rounds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
