"""The issue's parity check: the same small CNN, initial weights and batches give the same losses
over 20 Adam steps in Python and in C++ (tests/cpp/parity_cnn_test.cpp), and, with PyTorch
installed, in PyTorch. The setup is deterministic (no RNG; docs/design/cpp_frontend.md,
"Parity test"); both front ends compare against tests/data/parity_cnn_adam_losses.txt, which
the C++ test wrote."""

import math
import pathlib

import pytest

import ember

LOSSES = pathlib.Path(__file__).parents[1] / "data" / "parity_cnn_adam_losses.txt"
STEPS = 20


def build(lib):
    """The model in `lib` (ember or torch), with the deterministic weights."""
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
            self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc(lib.flatten(x, 1))

    net = Net()
    with lib.no_grad():
        for k, p in enumerate(net.parameters()):
            w = 0.3 * lib.sin(lib.arange(p.numel(), dtype=lib.float64) * 0.7 + k)
            p.copy_(w.to(lib.float32).reshape(p.shape))
    return net


def batch(lib, t):
    x = lib.sin(lib.arange(16 * 64, dtype=lib.float64) * 0.37 + t)
    y = (lib.arange(16, dtype=lib.int64) * 3 + t) % 10
    return x.to(lib.float32).reshape(16, 1, 8, 8), y


def losses(lib):
    net = build(lib)
    opt = lib.optim.Adam(net.parameters(), lr=0.01)
    out = []
    for t in range(STEPS):
        x, y = batch(lib, t)
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def golden():
    return [float(line) for line in LOSSES.read_text().split()]


def test_python_matches_the_recorded_cpp_losses():
    got, want = losses(ember), golden()
    assert len(want) == STEPS
    assert got[-1] < got[0] - 0.03  # it learns (the labels are a fixed function of t and i)
    for g, w in zip(got, want):
        assert math.isclose(g, w, rel_tol=1e-4), (got, want)


def test_pytorch_gives_the_same_losses():
    torch = pytest.importorskip("torch")
    got, want = losses(ember), losses(torch)
    for g, w in zip(got, want):
        assert math.isclose(g, w, rel_tol=1e-4), (got, want)
