"""Training throughput of the paper's six benchmark models (Table 1): ember against PyTorch.

    benchmarks/run.sh train_throughput [--models alexnet,resnet50] [--threads 1,2] [--steps 20]
                                       [--warmup 5] [--batch resnet50=16] [--breakdown]
                                       [--channels-last] [--json FILE]

Models (benchmarks/models/, one source run by both frameworks): AlexNet, VGG-19, ResNet-50,
MobileNetV2 (224x224 images, batch 8, SGD momentum 0.9), a GNMT-like LSTM sequence-to-sequence
model (tokens/s counts target tokens) and NCF (NeuMF, samples/s); sizes in each model's file.

A step is one FP32 training step on a fixed synthetic batch: zero_grad, forward, loss, backward,
optimizer step. Each framework runs in its own worker process (so neither sees the other's
memory, and each one's peak resident set is its own): the two workers build the model, then take
steps in turn, ember one step, PyTorch one step, and so on, so machine noise hits both alike.
Throughput = units per step / median step time over the steps after the warm-up; ratio = ember
throughput / PyTorch throughput (above 1: ember is faster). Peak RSS is the worker's maximum
resident set over its life (the framework's import, the model, its optimizer state and the
steps); "model" is that peak less the resident set right after the import. The loss check:
the mean loss of the last three steps is below the first step's (the batch is fixed, so a model
that trains fits it).

Images are NCHW (contiguous), PyTorch's default; --channels-last converts both sides' image
models and images to channels_last (NHWC order in memory), as `model.to(memory_format=...)`
does for a PyTorch user who opts in. --breakdown also times the forward (with the loss), the
backward and the optimizer step, and counts the minor page faults of a step (getrusage; medians
like the times): memory mapped afresh faults in as it is first touched.

Thread counts go to both sides the same way: OMP_NUM_THREADS and MKL_NUM_THREADS in the worker's
environment and set_num_threads. Workers inherit the rest of the environment (for example
OMP_WAIT_POLICY).
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ALL_MODELS = ["alexnet", "vgg19", "resnet50", "mobilenet_v2", "gnmt", "ncf"]


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --------------------------------------------------------------------------------------------
# Worker: one framework, one model, one thread count. Reads commands from stdin, one JSON line
# each, and answers on stdout; anything else it prints goes to stderr.


def worker(framework, model_name, threads, batch, breakdown, channels_last):
    protocol = sys.stdout
    sys.stdout = sys.stderr
    if framework == "ember":
        import ember as torch
    else:
        import torch
    import numpy as np

    sys.path.insert(0, HERE)
    from models import MODELS

    torch.set_num_threads(threads)
    base = rss_mib()
    spec = MODELS[model_name]
    torch.manual_seed(0)
    work = spec.build(torch, batch)
    work.model.train()
    data = spec.synthetic_batch(batch, np.random.default_rng(0))
    inputs = {k: torch.from_numpy(v) for k, v in data.items()}
    if channels_last and "x" in inputs:  # the image models: weights and images in NHWC order
        work.model.to(memory_format=torch.channels_last)
        inputs["x"] = inputs["x"].contiguous(memory_format=torch.channels_last)

    def answer(**kw):
        protocol.write(json.dumps(kw) + "\n")
        protocol.flush()

    answer(ready=True, version=torch.__version__, base_rss=base, items=work.items)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "step":
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t0 = time.perf_counter()
            work.optimizer.zero_grad()
            loss = work.loss(inputs)
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
            work.optimizer.step()
            t3 = time.perf_counter()
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
            phases = {"forward": t1 - t0, "backward": t2 - t1, "step": t3 - t2} if breakdown else {}
            answer(time=t3 - t0, loss=float(loss.item()), faults=faults, **phases)
        elif cmd["op"] == "done":
            answer(peak_rss=peak_rss_mib())
            return


# --------------------------------------------------------------------------------------------
# Driver


class Worker:
    def __init__(self, framework, model, threads, batch, breakdown, channels_last):
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        args = [sys.executable, __file__, "--worker", framework, "--models", model]
        args += ["--threads", str(threads), "--batch", f"{model}={batch}"]
        if breakdown:
            args.append("--breakdown")
        if channels_last:
            args.append("--channels-last")
        self.framework = framework
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
        )
        self.info = self.receive()

    def receive(self):
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            sys.exit(f"the {self.framework} worker failed (exit {code}); see its stderr above")
        return json.loads(line)

    def call(self, op):
        self.proc.stdin.write(json.dumps({"op": op}) + "\n")
        self.proc.stdin.flush()
        return self.receive()

    def finish(self):
        result = self.call("done")
        self.proc.stdin.close()
        self.proc.wait()
        return result


def run_model(name, threads, batch, steps, warmup, breakdown, channels_last):
    workers = {
        fw: Worker(fw, name, threads, batch, breakdown, channels_last) for fw in ("ember", "torch")
    }
    records = {fw: [] for fw in workers}
    for step in range(steps):
        # Alternate who goes first too, so neither side always runs right after the other.
        order = ("ember", "torch") if step % 2 == 0 else ("torch", "ember")
        for fw in order:
            records[fw].append(workers[fw].call("step"))
    result = {}
    for fw, w in workers.items():
        timed = records[fw][warmup:]
        median = statistics.median(r["time"] for r in timed)
        losses = [r["loss"] for r in records[fw]]
        end = statistics.mean(losses[-3:])
        result[fw] = {
            "version": w.info["version"],
            "median_s": median,
            "throughput": w.info["items"] / median,
            "losses": losses,
            "trains": end < losses[0],
            "base_rss_mib": w.info["base_rss"],
            "peak_rss_mib": w.finish()["peak_rss"],
            "page_faults": statistics.median(r["faults"] for r in timed),
        }
        if breakdown:
            for phase in ("forward", "backward", "step"):
                result[fw][phase + "_s"] = statistics.median(r[phase] for r in timed)
    return result


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--models", default=",".join(ALL_MODELS))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--steps", type=int, default=20, help="steps per side, warm-up included")
    p.add_argument("--warmup", type=int, default=5, help="first steps left out of the median")
    p.add_argument("--batch", action="append", default=[], help="MODEL=N, repeatable")
    p.add_argument("--breakdown", action="store_true", help="also time forward, backward, step")
    p.add_argument(
        "--channels-last",
        action="store_true",
        help="image models: both sides convert the model and the images to channels_last",
    )
    p.add_argument("--json", help="write all figures (and every step's loss) to this file")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()

    sys.path.insert(0, HERE)
    from models import MODELS

    batches = {}
    for item in args.batch:
        name, _, n = item.partition("=")
        batches[name] = int(n)
    models = args.models.split(",")
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(ALL_MODELS)}")
    if args.steps <= args.warmup:
        p.error(f"--steps ({args.steps}) must exceed --warmup ({args.warmup})")

    if args.worker:
        m = models[0]
        worker(
            args.worker,
            m,
            int(args.threads),
            batches.get(m, MODELS[m].DEFAULT_BATCH),
            args.breakdown,
            args.channels_last,
        )
        return

    cpu = platform.processor() or platform.machine()
    print(f"# {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(
        f"# {args.steps} steps per side ({args.warmup} warm-up), median step time; OMP_WAIT_POLICY="
        f"{os.environ.get('OMP_WAIT_POLICY', '(unset)')}; images "
        f"{'channels_last' if args.channels_last else 'NCHW (contiguous)'}"
    )
    for name in models:
        spec = MODELS[name]
        batch = batches.get(name, spec.DEFAULT_BATCH)
        print(f"# {name}: batch {batch} ({spec.UNIT}), {spec.SIZES}")
    header = f"{'model':<13} {'thr':>3} {'batch':>5} {'unit':<7} {'ember/s':>9} {'torch/s':>9}"
    header += f" {'ratio':>6}"
    header += f" {'ember MiB':>10} {'torch MiB':>10} {'mem':>5}  trains (first -> last loss)"
    results = []
    first = True
    for threads in [int(t) for t in args.threads.split(",")]:
        for name in models:
            spec = MODELS[name]
            batch = batches.get(name, spec.DEFAULT_BATCH)
            r = run_model(
                name,
                threads,
                batch,
                args.steps,
                args.warmup,
                args.breakdown,
                args.channels_last,
            )
            if first:
                print(f"# ember {r['ember']['version']}, torch {r['torch']['version']}")
                print(header)
                first = False
            e, t = r["ember"], r["torch"]
            trains = " ".join(
                f"{fw} {'yes' if x['trains'] else 'NO'}"
                f" ({x['losses'][0]:.3f} -> {statistics.mean(x['losses'][-3:]):.3f})"
                for fw, x in (("ember", e), ("torch", t))
            )
            print(
                f"{name:<13} {threads:>3} {batch:>5} {spec.UNIT:<7}"
                f" {e['throughput']:>9.2f} {t['throughput']:>9.2f}"
                f" {e['throughput'] / t['throughput']:>6.2f}"
                f" {e['peak_rss_mib']:>10.0f} {t['peak_rss_mib']:>10.0f}"
                f" {e['peak_rss_mib'] / t['peak_rss_mib']:>5.2f}  {trains}",
                flush=True,
            )
            if args.breakdown:
                for fw, x in (("ember", e), ("torch", t)):
                    print(
                        f"    {fw}: forward {x['forward_s'] * 1e3:.1f} ms,"
                        f" backward {x['backward_s'] * 1e3:.1f} ms,"
                        f" step {x['step_s'] * 1e3:.1f} ms; {x['page_faults']:.0f} page faults;"
                        f" model memory {x['peak_rss_mib'] - x['base_rss_mib']:.0f} MiB"
                        f" over {x['base_rss_mib']:.0f} MiB after import",
                        flush=True,
                    )
            results.append(
                {"model": name, "threads": threads, "batch": batch, "unit": spec.UNIT, **r}
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
