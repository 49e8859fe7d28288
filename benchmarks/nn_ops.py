"""Neural-network kernels: ember against PyTorch in one process, float32, on the shapes of the
paper's models.

Rows (batch 8 unless said):
  conv        every distinct conv2d of ResNet-50 (stem 7x7/2, the 1x1 and 3x3 convs of each stage,
              the stride-2 convs and the 1x1 downsample convs), NCHW and channels-last
  dwconv      the depthwise 3x3 convs of MobileNetV2 (stride 1 and 2), NCHW and channels-last
  maxpool     ResNet-50's stem max_pool2d 3x3/2 pad 1 on [8,64,112,112], NCHW and channels-last
  batchnorm   training-mode batch_norm on [8,64,112,112] and [8,256,56,56], both layouts
  lstm        one LSTM layer, input 512, hidden 512, batch 32, length 50
  xent        cross_entropy over 32768 classes, 256 rows
  embbag      embedding_bag, a [100000, 128] table, 4096 bags of 20 indices, sum and mean
  sdpa        scaled_dot_product_attention, batch 8, 8 heads, length 512, head dim 64 (plain and
              causal)
Each row is timed forward ("fwd") and forward plus backward ("fwd+bwd": the gradient of every
input that has one, from a fixed random output gradient, channels-last in the channels-last
rows). Before timing a row the two libraries' results (and gradients) are compared once, so a
wrong answer is never timed. Rounds alternate
the two sides and swap who goes first; the figure is the median time per call and the ratio is
torch time / ember time (above 1: ember is faster).

    benchmarks/run.sh nn_ops [--threads 2] [--groups conv,lstm] [--rounds 5] [--json out.json]
"""

import argparse
import json
import platform
import statistics
import sys
import time

import numpy as np

# ---- the cases -------------------------------------------------------------------------------


class Case:
    """make(rng) -> dict of NumPy arrays (float32 unless integer); run(lib, F, t) -> output,
    where t maps the same names to tensors. `grad` names the inputs that get gradients."""

    def __init__(self, group, label, make, run, grad=(), layout=None, tol=2e-3):
        self.group, self.label, self.make, self.run = group, label, make, run
        self.grad, self.layout, self.tol = tuple(grad), layout, tol


def _randn(rng, *shape, scale=1.0):
    return np.asarray(rng.standard_normal(shape) * scale, dtype=np.float32)  # 0-d stays an array


# ResNet-50's distinct convs: (in channels, out channels, kernel, stride, input size).
RESNET50_CONVS = [
    (3, 64, 7, 2, 224),
    (64, 64, 1, 1, 56),
    (64, 64, 3, 1, 56),
    (64, 256, 1, 1, 56),
    (256, 64, 1, 1, 56),
    (256, 128, 1, 1, 56),
    (128, 128, 3, 2, 56),
    (128, 512, 1, 1, 28),
    (256, 512, 1, 2, 56),
    (512, 128, 1, 1, 28),
    (128, 128, 3, 1, 28),
    (512, 256, 1, 1, 28),
    (256, 256, 3, 2, 28),
    (256, 1024, 1, 1, 14),
    (512, 1024, 1, 2, 28),
    (1024, 256, 1, 1, 14),
    (256, 256, 3, 1, 14),
    (1024, 512, 1, 1, 14),
    (512, 512, 3, 2, 14),
    (512, 2048, 1, 1, 7),
    (1024, 2048, 1, 2, 14),
    (2048, 512, 1, 1, 7),
    (512, 512, 3, 1, 7),
]

# MobileNetV2's depthwise 3x3 convs: (channels, stride, input size).
MOBILENETV2_DW = [
    (32, 1, 112),
    (96, 2, 112),
    (144, 1, 56),
    (144, 2, 56),
    (192, 1, 28),
    (192, 2, 28),
    (384, 1, 14),
    (576, 1, 14),
    (576, 2, 14),
    (960, 1, 7),
]


def _conv_case(group, cin, cout, k, stride, size, layout, groups=1, batch=8):
    def make(rng):
        fan_in = cin // groups * k * k
        return {
            "x": _randn(rng, batch, cin, size, size),
            "w": _randn(rng, cout, cin // groups, k, k, scale=fan_in**-0.5),
            "b": _randn(rng, cout, scale=0.1),
        }

    def run(lib, F, t):
        return F.conv2d(t["x"], t["w"], t["b"], stride=stride, padding=k // 2, groups=groups)

    label = (
        f"{cin}->{cout} {k}x{k}/{stride} @{size}" if groups == 1 else f"{cin} dw/{stride} @{size}"
    )
    return Case(group, label, make, run, grad=("x", "w", "b"), layout=layout)


def _cases():
    cases = []
    for layout in ("nchw", "nhwc"):
        for cin, cout, k, s, size in RESNET50_CONVS:
            cases.append(_conv_case("conv", cin, cout, k, s, size, layout))
    for layout in ("nchw", "nhwc"):
        for c, s, size in MOBILENETV2_DW:
            cases.append(_conv_case("dwconv", c, c, 3, s, size, layout, groups=c))
    for layout in ("nchw", "nhwc"):
        cases.append(
            Case(
                "maxpool",
                "3x3/2 pad 1 [8,64,112,112]",
                lambda rng: {"x": _randn(rng, 8, 64, 112, 112)},
                lambda lib, F, t: F.max_pool2d(t["x"], 3, 2, 1),
                grad=("x",),
                layout=layout,
                tol=0,
            )
        )
    for layout in ("nchw", "nhwc"):
        for shape in ((8, 64, 112, 112), (8, 256, 56, 56)):

            def make(rng, shape=shape):
                c = shape[1]
                return {
                    "x": _randn(rng, *shape),
                    "w": _randn(rng, c),
                    "b": _randn(rng, c),
                    "rm": np.zeros(c, np.float32),
                    "rv": np.ones(c, np.float32),
                }

            cases.append(
                Case(
                    "batchnorm",
                    f"train {list(shape)}",
                    make,
                    lambda lib, F, t: F.batch_norm(
                        t["x"], t["rm"], t["rv"], t["w"], t["b"], training=True
                    ),
                    grad=("x", "w", "b"),
                    layout=layout,
                )
            )

    def lstm_make(rng, n_in=512, hidden=512, batch=32, length=50):
        s = hidden**-0.5
        return {
            "x": _randn(rng, length, batch, n_in),
            "h0": _randn(rng, 1, batch, hidden),
            "c0": _randn(rng, 1, batch, hidden),
            "w_ih": _randn(rng, 4 * hidden, n_in, scale=s),
            "w_hh": _randn(rng, 4 * hidden, hidden, scale=s),
            "b_ih": _randn(rng, 4 * hidden, scale=s),
            "b_hh": _randn(rng, 4 * hidden, scale=s),
        }

    def lstm_run(lib, F, t):
        params = [t["w_ih"], t["w_hh"], t["b_ih"], t["b_hh"]]
        return lib.lstm(t["x"], (t["h0"], t["c0"]), params, True, 1, 0.0, True, False, False)[0]

    cases.append(
        Case(
            "lstm",
            "512->512 batch 32 len 50",
            lstm_make,
            lstm_run,
            grad=("x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh"),
        )
    )
    cases.append(
        Case(
            "xent",
            "[256, 32768]",
            lambda rng: {
                "x": _randn(rng, 256, 32768),
                "y": rng.integers(0, 32768, 256).astype(np.int64),
            },
            lambda lib, F, t: F.cross_entropy(t["x"], t["y"]),
            grad=("x",),
        )
    )
    for mode in ("sum", "mean"):
        cases.append(
            Case(
                "embbag",
                f"{mode} [100000,128] 4096x20",
                lambda rng: {
                    "w": _randn(rng, 100000, 128),
                    "i": rng.integers(0, 100000, 4096 * 20).astype(np.int64),
                    "o": (np.arange(4096) * 20).astype(np.int64),
                },
                lambda lib, F, t, mode=mode: F.embedding_bag(t["i"], t["w"], t["o"], mode=mode),
                grad=("w",),
            )
        )
    for causal in (False, True):
        cases.append(
            Case(
                "sdpa",
                f"[8,8,512,64]{' causal' if causal else ''}",
                lambda rng: {k: _randn(rng, 8, 8, 512, 64) for k in ("q", "k", "v")},
                lambda lib, F, t, causal=causal: F.scaled_dot_product_attention(
                    t["q"], t["k"], t["v"], is_causal=causal
                ),
                grad=("q", "k", "v"),
            )
        )
    return cases


CASES = _cases()
GROUPS = sorted({c.group for c in CASES}, key=[c.group for c in CASES].index)

# ---- running ---------------------------------------------------------------------------------


def _tensors(lib, arrays, case, backward):
    out = {}
    for name, a in arrays.items():
        t = lib.from_numpy(a.copy())
        if case.layout == "nhwc" and a.ndim == 4 and name == "x":
            t = t.to(memory_format=lib.channels_last)
        if backward and name in case.grad:
            t.requires_grad_(True)
        out[name] = t
    return out


def _step(lib, F, case, t, backward, gout):
    out = case.run(lib, F, t)
    if backward:
        for name in case.grad:
            t[name].grad = None
        out.backward(gout)
    return out


def _compare(tag, want, got, tol):
    want = np.asarray(want, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    if want.shape != got.shape:
        return f"WRONG {tag}: ember shape {got.shape}, torch {want.shape}"
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    err = float(np.abs(got - want).max()) if want.size else 0.0
    if err > tol * scale:
        return f"WRONG {tag}: max abs diff {err:.3g} (tolerance {tol * scale:.3g})"
    return None


def _time(fn, number):
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def run_case(case, backward, args, torch, ember, rng):
    row = {"group": case.group, "case": case.label, "layout": case.layout or "", "pass": "fwd"}
    if backward:
        row["pass"] = "fwd+bwd"
    arrays = case.make(rng)
    libs = {"torch": torch, "ember": ember}
    fs = {name: lib.nn.functional for name, lib in libs.items()}
    ts = {name: _tensors(lib, arrays, case, backward) for name, lib in libs.items()}
    try:
        e_out = case.run(ember, fs["ember"], ts["ember"])
    except Exception as err:  # missing or not implemented for these arguments
        row["note"] = f"ember: {type(err).__name__}: {str(err).splitlines()[0][:70]}"
        return row
    t_out = case.run(torch, fs["torch"], ts["torch"])
    if case.layout == "nhwc" and t_out.dim() == 4:
        want_cl = t_out.is_contiguous(memory_format=torch.channels_last)
        if want_cl and not e_out.is_contiguous(memory_format=ember.channels_last):
            row["note"] = "WRONG: ember's output is not channels-last (torch's is)"
            return row
    note = _compare("output", t_out.detach().numpy(), e_out.detach().numpy(), case.tol)
    gouts = {}
    if backward and not note:
        g = _randn(rng, *t_out.shape)
        gouts = {"torch": torch.from_numpy(g.copy()), "ember": ember.from_numpy(g.copy())}
        if case.layout == "nhwc" and g.ndim == 4:
            # In a channels-last network the gradient arriving at a layer is channels-last too.
            gouts = {n: t.to(memory_format=libs[n].channels_last) for n, t in gouts.items()}
        for name, lib in libs.items():
            _step(lib, fs[name], case, ts[name], True, gouts[name])
        for n in case.grad:
            tg, eg = ts["torch"][n].grad, ts["ember"][n].grad
            note = note or _compare(f"grad {n}", tg.numpy(), eg.numpy(), max(case.tol, 2e-3))
    if note:
        row["note"] = note
        return row
    del e_out, t_out
    fns = {
        name: (
            lambda name=name, lib=lib: _step(
                lib, fs[name], case, ts[name], backward, gouts.get(name)
            )
        )
        for name, lib in libs.items()
    }
    with_grad = {"torch": torch.enable_grad, "ember": ember.enable_grad}
    no_grad = {"torch": torch.no_grad, "ember": ember.no_grad}
    ctx = with_grad if backward else no_grad
    numbers = {}
    for s, fn in fns.items():
        with ctx[s]():
            fn()  # warm-up: primitive caches, allocator
            numbers[s] = max(1, int(args.min_time / max(_time(fn, 1), 1e-9)))
    samples = {s: [] for s in fns}
    for r in range(args.rounds):
        for s in ("ember", "torch") if r % 2 == 0 else ("torch", "ember"):
            with ctx[s]():
                samples[s].append(_time(fns[s], numbers[s]))
    e = statistics.median(samples["ember"])
    t = statistics.median(samples["torch"])
    row.update(ember_ms=e * 1e3, torch_ms=t * 1e3, ratio=t / e)
    return row


def print_row(row):
    head = f"{row['group']:<10}{row['case']:<28}{row['layout']:<6}{row['pass']:<9}"
    if "note" in row:
        print(f"{head}{row['note']}", flush=True)
        return
    print(f"{head}{row['ember_ms']:>10.3f}{row['torch_ms']:>10.3f}{row['ratio']:>8.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="for both libraries (default 1)")
    parser.add_argument("--groups", help=f"comma-separated subset of: {','.join(GROUPS)}")
    parser.add_argument("--passes", default="fwd,fwd+bwd", help="fwd, fwd+bwd or both")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    groups = args.groups.split(",") if args.groups else GROUPS
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown groups {unknown}; choose from {','.join(GROUPS)}")
    passes = args.passes.split(",")

    import torch

    import ember

    for lib in (torch, ember):
        lib.set_num_threads(args.threads)
    print(
        f"ember {ember.__version__} vs torch {torch.__version__}, Python "
        f"{platform.python_version()}, threads ember {ember.get_num_threads()} / torch "
        f"{torch.get_num_threads()}, float32, median of {args.rounds} rounds; "
        f"ratio = torch time / ember time (above 1: ember is faster)"
    )
    print(
        f"{'group':<10}{'case':<28}{'':<6}{'pass':<9}{'ember ms':>10}{'torch ms':>10}{'ratio':>8}"
    )
    rng = np.random.default_rng(args.seed)
    rows = []
    for case in CASES:
        if case.group not in groups:
            continue
        for p in passes:
            row = run_case(case, p == "fwd+bwd", args, torch, ember, rng)
            print_row(row)
            rows.append(row)
    timed = [r["ratio"] for r in rows if "ratio" in r]
    if timed:
        geo = float(np.exp(np.mean(np.log(timed))))
        print(f"{len(timed)} rows timed: geometric mean ratio {geo:.2f}, lowest {min(timed):.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "rounds": args.rounds, "rows": rows}, f, indent=1)
    if any(r.get("note", "").startswith("WRONG") for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
