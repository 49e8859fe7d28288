"""ember's mt19937 stream side by side with PyTorch (skipped without torch): the same seed gives
the same samples, module initialisations, DataLoader orders and seeded training losses."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def mt19937():
    before = ember.random.get_stream()
    ember.random.set_stream("mt19937")
    yield
    ember.random.set_stream(before)


def _both(fn, seed=0):
    out = []
    for lib in (ember, torch):
        lib.manual_seed(seed)
        out.append(fn(lib))
    return out


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


SAMPLES = {
    "rand_f32": lambda L: L.rand(37),
    "rand_f64": lambda L: L.rand(5, 3, dtype=L.float64),
    "randn_small": lambda L: [L.randn(3), L.randn(1), L.randn(2, dtype=L.float64)],
    "randn_blocks": lambda L: [L.randn(16), L.randn(17), L.randn(100, dtype=L.float64)],
    "randint": lambda L: [L.randint(0, 7, (9,)), L.randint(-5, 2**40, (3,)), L.randint(3, (2,))],
    "randperm": lambda L: [L.randperm(n) for n in (1, 2, 10, 100)],
    "normal_uniform": lambda L: [
        L.empty(20).normal_(1.5, 0.5),
        L.empty(6).uniform_(-2, 3),
        L.normal(2.0, 3.0, (4,)),
        L.normal(L.zeros(18), L.ones(18)),
    ],
    "random_": lambda L: [
        L.empty(3, dtype=L.int64).random_(),
        L.empty(3).random_(),
        L.empty(3, dtype=L.int32).random_(0, 100),
    ],
    "bernoulli": lambda L: [
        L.empty(10).bernoulli_(0.3),
        L.bernoulli(L.full((6,), 0.6)),
        L.nn.functional.dropout(L.ones(4, 8), 0.5),
        L.nn.functional.dropout2d(L.ones(2, 3, 4, 4), 0.5),
    ],
    "exponential": lambda L: [
        L.empty(7).exponential_(),
        L.empty(3, dtype=L.float64).exponential_(),
    ],
    "multinomial": lambda L: [
        L.multinomial(L.tensor([0.1, 0.2, 0.3, 0.4]), 1),
        L.multinomial(L.tensor([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]]), 2),
        L.multinomial(L.tensor([0.2, 0.8]), 6, replacement=True),
    ],
    "generator": lambda L: L.randn(20, generator=L.Generator().manual_seed(5)),
    "gumbel_softmax": lambda L: [
        L.nn.functional.gumbel_softmax(L.arange(12.0).reshape(3, 4) / 5, tau=0.5),
        L.nn.functional.gumbel_softmax(L.arange(12.0).reshape(3, 4) / 5, hard=True, dim=0),
    ],
}


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_match_pytorch(name):
    got, want = _both(SAMPLES[name])
    for g, w in zip(
        _np(got if isinstance(got, list) else [got]),
        _np(want if isinstance(want, list) else [want]),
    ):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)


MODULES = {
    "Linear": lambda nn: nn.Linear(7, 5),
    "Conv2d": lambda nn: nn.Conv2d(3, 4, 3),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(3, 2, 3),
    "Embedding": lambda nn: nn.Embedding(11, 6),
    "LSTM": lambda nn: nn.LSTM(4, 5, num_layers=2, bidirectional=True),
    "GRU": lambda nn: nn.GRU(3, 4),
    "RNN": lambda nn: nn.RNN(3, 4),
    "MultiheadAttention": lambda nn: nn.MultiheadAttention(8, 2),
    "TransformerEncoderLayer": lambda nn: nn.TransformerEncoderLayer(8, 2, 16),
    "Bilinear": lambda nn: nn.Bilinear(3, 4, 2),
    "Sequential": lambda nn: nn.Sequential(
        nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 6, 4)
    ),
}


@pytest.mark.parametrize("name", MODULES)
def test_module_initialisation_matches_pytorch(name):
    mine, theirs = _both(lambda L: MODULES[name](L.nn).state_dict())
    assert list(mine) == list(theirs)
    for key in mine:
        np.testing.assert_allclose(
            _np(mine[key]), _np(theirs[key]), rtol=1e-5, atol=1e-6, err_msg=key
        )


def test_dataloader_shuffle_matches_pytorch():
    def orders(L):
        loader = L.utils.data.DataLoader(list(range(23)), batch_size=4, shuffle=True)
        return [[b.tolist() for b in loader] for _ in range(3)]

    mine, theirs = _both(orders)
    assert mine == theirs
    split = _both(lambda L: [list(s) for s in L.utils.data.random_split(range(10), [0.7, 0.3])])
    assert split[0] == split[1]


def test_seeded_training_losses_match_pytorch():
    """An MLP with dropout and a CNN with batch norm, Adam and SGD: the losses of 8 steps agree to
    1e-5 relative (the acceptance bound of the real-programs comparison is 1e-4)."""

    def train(L):
        nn = L.nn
        mlp = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 3))
        cnn = nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 36, 3)
        )
        opt1 = L.optim.Adam(mlp.parameters(), lr=1e-2)
        opt2 = L.optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9)
        x, y = L.randn(16, 10), L.randint(0, 3, (16,))
        img = L.randn(16, 1, 8, 8)
        losses = []
        for _ in range(8):
            for model, opt, inp in ((mlp, opt1, x), (cnn, opt2, img)):
                opt.zero_grad()
                loss = nn.functional.cross_entropy(model(inp), y)
                loss.backward()
                opt.step()
                losses.append(loss.item())
        return losses

    mine, theirs = _both(train, seed=1234)
    np.testing.assert_allclose(mine, theirs, rtol=1e-5)
