"""Train an MLP (784-256-256-10) on synthetic data with a hand-written SGD loop.

The labels come from a fixed random "teacher", so the network has something to learn; the loss
printed every 30 steps falls from about log(10) = 2.3 toward 0. Run:

    python examples/python/mlp_synthetic.py [--steps 300] [--threads 2] [--seed 0]
"""

import argparse
import time

import ember


def linear_params(fan_in, fan_out, gen):
    """PyTorch's default Linear initialisation: uniform in +-1/sqrt(fan_in)."""
    bound = fan_in**-0.5
    w = ((ember.rand(fan_in, fan_out, generator=gen) * 2 - 1) * bound).requires_grad_()
    b = ((ember.rand(fan_out, generator=gen) * 2 - 1) * bound).requires_grad_()
    return [w, b]


def cross_entropy(logits, labels_onehot):
    shifted = logits - logits.max(1, keepdim=True).values.detach()
    log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
    return -(log_probs * labels_onehot).sum() / logits.shape[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.3)
    parser.add_argument("--threads", type=int, default=0, help="0: ember's default")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.threads:
        ember.set_num_threads(args.threads)
    gen = ember.Generator().manual_seed(args.seed)

    # Synthetic data: 4096 random "images", labelled by a random linear teacher.
    images = ember.randn(4096, 784, generator=gen)
    labels = (images @ ember.randn(784, 10, generator=gen)).max(1).indices
    onehot = (labels.unsqueeze(1) == ember.arange(10)).float()

    params = (
        linear_params(784, 256, gen) + linear_params(256, 256, gen) + linear_params(256, 10, gen)
    )
    w1, b1, w2, b2, w3, b3 = params
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        i = (step * args.batch_size) % (4096 - args.batch_size)
        x, y = images[i : i + args.batch_size], onehot[i : i + args.batch_size]
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        loss = cross_entropy(h @ w3 + b3, y)
        for p in params:
            p.grad = None
        loss.backward()
        with ember.no_grad():
            for p in params:
                p -= args.lr * p.grad
        if step % 30 == 0 or step == 1:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    elapsed = time.perf_counter() - start
    print(
        f"{args.steps} steps in {elapsed:.2f} s ({elapsed / args.steps * 1e3:.2f} ms/step, "
        f"{ember.get_num_threads()} threads)"
    )


if __name__ == "__main__":
    main()
