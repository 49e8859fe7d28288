"""The acceptance test of the foundation: an MLP 784-256-256-10 trains with a hand-written SGD
loop, and its loss falls."""

import ember


def cross_entropy(logits, target_onehot):
    # log-softmax by the max-shift identity, from ember's primitive ops
    m = logits.max(1, keepdim=True).values.detach()
    shifted = logits - m
    log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
    return -(log_probs * target_onehot).sum() / logits.shape[0]


def init_linear(fan_in, fan_out, gen):
    bound = 1.0 / fan_in**0.5
    w = (ember.rand(fan_in, fan_out, generator=gen) * 2 - 1) * bound
    b = (ember.rand(fan_out, generator=gen) * 2 - 1) * bound
    return w.requires_grad_(), b.requires_grad_()


def test_mlp_784_256_256_10_loss_falls_with_sgd():
    gen = ember.Generator().manual_seed(0)
    n, classes = 256, 10
    x = ember.randn(n, 784, generator=gen)
    teacher = ember.randn(784, classes, generator=gen)
    labels = (x @ teacher).max(1).indices
    onehot = (labels.unsqueeze(1) == ember.arange(classes)).float()

    params = [*init_linear(784, 256, gen), *init_linear(256, 256, gen), *init_linear(256, 10, gen)]
    w1, b1, w2, b2, w3, b3 = params

    def loss_fn():
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        return cross_entropy(h @ w3 + b3, onehot)

    losses = []
    for _ in range(60):
        loss = loss_fn()
        for p in params:
            p.grad = None
        loss.backward()
        with ember.no_grad():
            for p in params:
                p.sub_(p.grad * 0.1)
        losses.append(loss.item())
    assert losses[0] > 2.0  # about log(10) at the start
    assert losses[-1] < 0.5 * losses[0], losses[::10]
    assert all(g is not None for g in (p.grad for p in params))
