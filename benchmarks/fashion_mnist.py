"""Fashion-MNIST training: ember against PyTorch in one process, the same model, initial weights,
data order and hyperparameters as examples/fashion_mnist.py.

    conv 1->32 3x3 pad 1 -> batch norm -> ReLU -> max pool 2   (28 -> 14)
    conv 32->64 3x3 pad 1 -> batch norm -> ReLU -> max pool 2  (14 -> 7)
    flatten -> dropout 0.1 -> linear 3136->128 -> ReLU -> dropout 0.1 -> linear 128->10
    Adam(lr=1e-3), batch 32, cross entropy, StepLR(step_size=1, gamma=0.7) per epoch,
    inputs scaled to [0, 1] and normalised with mean 0.2860, std 0.3530

ember builds the model (seeded); PyTorch's copy gets ember's state_dict through NumPy, so both start
from the same weights. The IDX files are read once (ember.datasets.FashionMNIST) and handed to both
libraries; each epoch's order is one NumPy permutation used by both, and each batch is indexed out
of the dataset tensor by both the same way. Dropout masks differ (different generators), so the
accuracies agree to a fraction of a point, not bitwise. Epochs alternate (ember epoch 1, torch epoch
1, ember epoch 2, ...) so machine noise hits both sides alike. An epoch's time is training only
(batching, forward, backward, optimizer step); the test accuracy after it is not timed. Ratio =
ember epoch time / torch epoch time (below 1: ember is faster); the issue's goal is a ratio of at
most 0.8 with final accuracies within half a point.

    benchmarks/run.sh fashion_mnist [--epochs 3] [--threads 1,2] [--limit 6400] [--breakdown]

--breakdown also times each phase of a step (batch indexing, forward + loss, backward, optimizer
step) per epoch; it adds no synchronisation (both libraries run on the CPU, synchronously).
On a loaded machine set OMP_WAIT_POLICY=PASSIVE (see optim.py).
"""

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load_example():
    """examples/fashion_mnist.py as a module (not by name: this file is fashion_mnist.py too):
    its model (build_model, which takes the nn module), MEAN, STD and DROPOUT."""
    path = os.path.join(HERE, "..", "examples", "fashion_mnist.py")
    spec = importlib.util.spec_from_file_location("fashion_mnist_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = load_example()


def load_split(data_dir, train):
    """Images normalised as the example does, [N, 1, 28, 28] float32, and int64 labels, as NumPy
    arrays (ember.datasets reads and checks the IDX files)."""
    from ember.datasets import FashionMNIST

    ds = FashionMNIST(data_dir, train=train)
    x = (ds.data.numpy().astype(np.float32) / 255.0 - example.MEAN) / example.STD
    return np.ascontiguousarray(x[:, None, :, :]), ds.targets.numpy().astype(np.int64)


PHASES = ("batch", "forward", "backward", "step")


class Side:
    """One library's model, optimizer, scheduler and data."""

    def __init__(self, name, lib, model, train, test, lr):
        self.name, self.lib, self.model = name, lib, model
        self.opt = lib.optim.Adam(model.parameters(), lr=lr)
        self.sched = lib.optim.lr_scheduler.StepLR(self.opt, step_size=1, gamma=0.7)
        self.x, self.y = lib.from_numpy(train[0]), lib.from_numpy(train[1])
        self.x_test, self.y_test = lib.from_numpy(test[0]), lib.from_numpy(test[1])
        self.loss_fn = lib.nn.CrossEntropyLoss()

    def train_epoch(self, perm, batch_size, breakdown):
        """One epoch in the order `perm` (NumPy int64); returns (seconds, mean loss, phases)."""
        lib, model, opt = self.lib, self.model, self.opt
        order = lib.from_numpy(perm)
        n = len(perm)
        phases = dict.fromkeys(PHASES, 0.0)
        clock = time.perf_counter
        model.train()
        loss_sum = lib.zeros(())  # summed as a tensor: no per-step sync through .item()
        t0 = clock()
        for start in range(0, n, batch_size):
            if breakdown:
                t = clock()
            idx = order[start : start + batch_size]
            xb, yb = self.x[idx], self.y[idx]
            if breakdown:
                t1 = clock()
                phases["batch"] += t1 - t
            opt.zero_grad()
            loss = self.loss_fn(model(xb), yb)
            if breakdown:
                t2 = clock()
                phases["forward"] += t2 - t1
            loss.backward()
            if breakdown:
                t3 = clock()
                phases["backward"] += t3 - t2
            opt.step()
            if breakdown:
                phases["step"] += clock() - t3
            loss_sum += loss.detach()
        elapsed = clock() - t0
        self.sched.step()
        steps = (n + batch_size - 1) // batch_size
        return elapsed, float(loss_sum) / steps, phases

    def test_accuracy(self, limit):
        lib, model = self.lib, self.model
        model.eval()
        correct = 0
        with lib.no_grad():
            for start in range(0, limit, 1000):
                stop = min(start + 1000, limit)
                pred = model(self.x_test[start:stop]).argmax(1)
                correct += int((pred == self.y_test[start:stop]).sum())
        return 100.0 * correct / limit


def copy_weights(src_model, dst_model, torch):
    """ember state_dict -> torch, through NumPy; checks every key and shape matches."""
    src = src_model.state_dict()
    dst = dst_model.state_dict()
    if list(src) != list(dst):
        sys.exit(f"state_dict keys differ: ember {list(src)} torch {list(dst)}")
    dst_model.load_state_dict(
        {k: torch.from_numpy(np.array(v.detach().numpy(), copy=True)) for k, v in src.items()}
    )


def run(threads, args, train, test, ember, torch):
    for lib in (ember, torch):
        lib.set_num_threads(threads)
    ember.manual_seed(args.seed)
    torch.manual_seed(args.seed)
    e_model = example.build_model(ember.nn, args.dropout)
    t_model = example.build_model(torch.nn, args.dropout)
    copy_weights(e_model, t_model, torch)
    sides = [
        Side("ember", ember, e_model, train, test, args.lr),
        Side("torch", torch, t_model, train, test, args.lr),
    ]
    n_test = len(test[1])
    # Untrained models agree before anything is timed (eval mode: no dropout, running stats).
    with ember.no_grad(), torch.no_grad():
        e_model.eval()
        t_model.eval()
        xs = test[0][:256]
        diff = np.max(
            np.abs(e_model(ember.from_numpy(xs)).numpy() - t_model(torch.from_numpy(xs)).numpy())
        )
    if diff > 1e-3:
        sys.exit(f"WRONG: the untrained models' outputs differ by {diff:.3g}")

    rng = np.random.default_rng(args.seed)
    n = len(train[1])
    rows = []
    print(
        f"\nthreads {threads}: {n} training images, {n_test} test images, batch {args.batch_size}"
    )
    header = f"{'epoch':<7}{'side':<7}{'train s':>9}{'img/s':>9}{'loss':>8}{'test acc':>10}"
    if args.breakdown:
        header += "".join(f"{p + ' s':>11}" for p in PHASES)
    print(header)
    for epoch in range(1, args.epochs + 1):
        perm = rng.permutation(n).astype(np.int64)
        row = {"threads": threads, "epoch": epoch}
        for side in sides:
            secs, loss, phases = side.train_epoch(perm, args.batch_size, args.breakdown)
            acc = side.test_accuracy(n_test)
            row[side.name] = {"seconds": secs, "loss": loss, "test_acc": acc}
            line = f"{epoch:<7}{side.name:<7}{secs:>9.2f}{n / secs:>9.0f}{loss:>8.4f}{acc:>9.2f}%"
            if args.breakdown:
                row[side.name]["phases"] = phases
                line += "".join(f"{phases[p]:>11.2f}" for p in PHASES)
            print(line, flush=True)
        e, t = row["ember"], row["torch"]
        row["ratio"] = e["seconds"] / t["seconds"]
        row["acc_diff"] = e["test_acc"] - t["test_acc"]
        print(
            f"{'':<7}ratio ember/torch {row['ratio']:.2f}, accuracy ember - torch "
            f"{row['acc_diff']:+.2f} points",
            flush=True,
        )
        rows.append(row)
    ratio = statistics.median(r["ratio"] for r in rows)
    last = rows[-1]
    met = ratio <= 0.8 and abs(last["acc_diff"]) <= 0.5
    print(
        f"threads {threads}: median epoch ratio ember/torch {ratio:.2f} "
        f"(ember {statistics.median(r['ember']['seconds'] for r in rows):.2f} s, torch "
        f"{statistics.median(r['torch']['seconds'] for r in rows):.2f} s); final accuracy ember "
        f"{last['ember']['test_acc']:.2f}% torch {last['torch']['test_acc']:.2f}% "
        f"({last['acc_diff']:+.2f}); goal (ratio <= 0.8, within 0.5 points): "
        f"{'met' if met else 'not met'}"
    )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument(
        "--threads",
        default=str(os.cpu_count() or 1),
        help="comma-separated thread counts, each a separate run from the same start "
        "(default: all cores, as the example trains)",
    )
    parser.add_argument("--limit", type=int, help="train on the first N images only")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--dropout", type=float, default=example.DROPOUT)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir", help="the IDX files (default: Debian's dataset-fashion-mnist folder)"
    )
    parser.add_argument("--breakdown", action="store_true", help="time each phase of a step")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()

    import torch

    import ember

    train = load_split(args.data_dir, True)
    test = load_split(args.data_dir, False)
    if args.limit:
        train = (train[0][: args.limit], train[1][: args.limit])
    print(
        f"ember {ember.__version__} vs torch {torch.__version__}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores; ratio = ember epoch time / torch "
        f"epoch time (below 1: ember is faster)"
    )
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        rows += run(threads, args, train, test, ember, torch)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
