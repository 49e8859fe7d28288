"""Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop (fused C++ updates, optim/_fused.py) and LBFGS,
against NumPy float64 transcriptions of PyTorch's documented algorithms; test_optim_torch.py
compares them with PyTorch itself where it is installed."""

import math

import numpy as np
import pytest

import ember
from ember import optim

SHAPES = [(3, 4), (5,)]


def run(make, steps=5, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in SHAPES]
    params = [ember.tensor(a, requires_grad=True) for a in arrays]
    opt = make(params)
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = ember.tensor(g)
        opt.step()
    return arrays, grads, [p.detach().numpy() for p in params]


def ref_adadelta(p, gs, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0):
    sq, acc = np.zeros_like(p), np.zeros_like(p)
    for g in gs:
        g = g + weight_decay * p
        sq = rho * sq + (1 - rho) * g * g
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc = rho * acc + (1 - rho) * delta * delta
        p = p - lr * delta
    return p


def ref_adamax(p, gs, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    m, u = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(gs, 1):
        g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        u = np.maximum(betas[1] * u, np.abs(g) + eps)
        p = p - lr / (1 - betas[0] ** t) * m / u
    return p


def ref_nadam(
    p,
    gs,
    lr=2e-3,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0.0,
    momentum_decay=4e-3,
    decoupled_weight_decay=False,
):
    b1, b2 = betas
    m, v, mu_prod = np.zeros_like(p), np.zeros_like(p), 1.0
    for t, g in enumerate(gs, 1):
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        mu_prod *= mu
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2**t)) + eps
        p = p - lr * (1 - mu) / (1 - mu_prod) * g / denom
        p = p - lr * mu_next / (1 - mu_prod * mu_next) * m / denom
    return p


def ref_radam(p, gs, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    b1, b2 = betas
    m, v = np.zeros_like(p), np.zeros_like(p)
    rho_inf = 2 / (1 - b2) - 1
    for t, g in enumerate(gs, 1):
        g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1**t)
        rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho_t > 5:
            r = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            p = p - lr * m_hat * r * math.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
        else:
            p = p - lr * m_hat
    return p


def ref_asgd(p, gs, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
    eta = lr
    for t, g in enumerate(gs, 1):
        g = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        eta = lr / (1 + lambd * lr * t) ** alpha
    return p


def ref_rprop(p, gs, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50)):
    prev, size = np.zeros_like(p), np.full_like(p, lr)
    for g in gs:
        s = np.sign(g * prev)
        size = np.clip(size * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)), *step_sizes)
        g = np.where(s < 0, 0.0, g)
        p = p - np.sign(g) * size
        prev = g
    return p


CASES = [
    (optim.Adadelta, ref_adadelta, {}),
    (optim.Adadelta, ref_adadelta, {"lr": 0.5, "rho": 0.7, "weight_decay": 0.1}),
    (optim.Adamax, ref_adamax, {}),
    (optim.Adamax, ref_adamax, {"lr": 0.1, "betas": (0.5, 0.8), "weight_decay": 0.2}),
    (optim.NAdam, ref_nadam, {}),
    (optim.NAdam, ref_nadam, {"lr": 0.1, "weight_decay": 0.1, "momentum_decay": 0.1}),
    (optim.NAdam, ref_nadam, {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    (optim.RAdam, ref_radam, {}),
    (optim.RAdam, ref_radam, {"lr": 0.1, "betas": (0.5, 0.6), "weight_decay": 0.1}),
    (optim.ASGD, ref_asgd, {}),
    (optim.ASGD, ref_asgd, {"lr": 0.2, "lambd": 0.1, "alpha": 0.5, "weight_decay": 0.1}),
    (optim.Rprop, ref_rprop, {}),
    (optim.Rprop, ref_rprop, {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
]


@pytest.mark.parametrize("cls, ref, kw", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_matches_numpy(cls, ref, kw):
    arrays, grads, got = run(lambda ps: cls(ps, **kw), steps=12)
    for i, (a, g) in enumerate(zip(arrays, got)):
        want = ref(a, [gs[i] for gs in grads], **kw)
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "cls", [optim.Adadelta, optim.Adamax, optim.NAdam, optim.RAdam, optim.ASGD, optim.Rprop]
)
def test_maximize_is_minimising_the_negated_gradient(cls):
    _, grads, up = run(lambda ps: cls(ps, maximize=True))
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in SHAPES]
    params = [ember.tensor(a, requires_grad=True) for a in arrays]
    opt = cls(params)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = ember.tensor(-g)
        opt.step()
    for a, b in zip(up, params):
        np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-12)


FUSED = [c for c in CASES if c[2]]  # the cases with options: weight decay and the rest


@pytest.mark.parametrize("dtype, tol", [(ember.float32, 2e-5), (ember.bfloat16, 3e-2)])
@pytest.mark.parametrize("cls, ref, kw", FUSED, ids=lambda c: getattr(c, "__name__", ""))
def test_low_precision_params_follow_the_float64_reference(cls, ref, kw, dtype, tol):
    """float32 and bfloat16 parameters: updated in float arithmetic, rounded once per stored
    value, so they follow the float64 reference (started from the rounded values) to their
    precision."""
    rng = np.random.default_rng(3)
    params = [ember.tensor(np.clip(rng.standard_normal(s), -2, 2), dtype=dtype) for s in SHAPES]
    params = [p.requires_grad_() for p in params]
    start = [p.detach().to(ember.float64).numpy() for p in params]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(3)]
    opt = cls(params, **kw)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = ember.tensor(g, dtype=dtype)
        opt.step()
    for i, (p, a) in enumerate(zip(params, start)):
        assert p.dtype == dtype
        want = ref(a, [gs[i] for gs in grads], **kw)
        np.testing.assert_allclose(p.detach().to(ember.float64).numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("cls, ref, kw", FUSED, ids=lambda c: getattr(c, "__name__", ""))
def test_any_layout_and_any_thread_count_give_the_same_result(cls, ref, kw):
    """A transposed parameter (staged, Note [Fused layouts]) ends where the contiguous one does,
    and a large group gives the same bits on one and two threads."""
    rng = np.random.default_rng(4)
    base, grads = rng.standard_normal((6, 5)), rng.standard_normal((3, 6, 5))

    def train(layout, threads, n=1):
        old = ember.get_num_threads()
        ember.set_num_threads(threads)
        try:
            ps = [layout(ember.tensor(np.tile(base, (n, 1)))).requires_grad_()]
            opt = cls(ps, **kw)
            for g in grads:
                ps[0].grad = ember.tensor(np.tile(g, (n, 1)))
                opt.step()
            return ps[0].detach().contiguous().numpy()
        finally:
            ember.set_num_threads(old)

    want = train(lambda t: t, 1)
    np.testing.assert_allclose(train(lambda t: t.t().contiguous().t(), 1), want, rtol=1e-12)
    np.testing.assert_array_equal(train(lambda t: t, 1, 8000), train(lambda t: t, 2, 8000))
    np.testing.assert_allclose(want, ref(base, list(grads), **kw), rtol=1e-10, atol=1e-12)


def test_fused_ops_report_bad_lists():
    p = ember.zeros(3, dtype=ember.float64)
    s = ember.zeros(())
    with pytest.raises(RuntimeError, match=r"\[fused_adadelta_\] acc_deltas\[0\] has shape"):
        ember._C._optim.adadelta_(
            [p], [p.clone()], [p.clone()], [ember.zeros(2, dtype=ember.float64)], [s],
            lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False,
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"\[fused_nadam_\] expected 1 mu_products"):
        ember._C._optim.nadam_(
            [p], [p.clone()], [p.clone()], [p.clone()], [], [s], lr=0.1, beta1=0.9,
            beta2=0.999, eps=1e-8, weight_decay=0, momentum_decay=4e-3,
            decoupled_weight_decay=False, maximize=False,
        )  # fmt: skip
    with pytest.raises(TypeError, match=r"\[fused_asgd_\] etas\[0\] has dtype int64"):
        ember._C._optim.asgd_(
            [p], [p.clone()], [p.clone()], [ember.zeros((), dtype=ember.int64)], [s.clone()],
            [s], lr=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=False,
        )  # fmt: skip
    with pytest.raises(TypeError, match=r"\[fused_rprop_\] step_sizes\[0\] has dtype float32"):
        ember._C._optim.rprop_(
            [p], [p.clone()], [p.clone()], [ember.zeros(3)], [s], etaminus=0.5, etaplus=1.2,
            step_size_min=1e-6, step_size_max=50, maximize=False,
        )  # fmt: skip
    assert float(s) == 0  # a refused call leaves the step counts alone


def test_state_dict_round_trip_continues_identically():
    _, _, first = run(lambda ps: optim.NAdam(ps, lr=0.1), steps=6)
    rng = np.random.default_rng(0)
    params = [ember.tensor(rng.standard_normal(s), requires_grad=True) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(6)]
    opt = optim.NAdam(params, lr=0.1)
    for k, gs in enumerate(grads):
        if k == 3:
            saved = opt.state_dict()
            opt = optim.NAdam(params, lr=0.1)
            opt.load_state_dict(saved)
        for p, g in zip(params, gs):
            p.grad = ember.tensor(g)
        opt.step()
    for a, b in zip(first, params):
        np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
        (lambda p: optim.Adamax(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0"),
        (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
        (lambda p: optim.RAdam(p, eps=-1), "Invalid epsilon value: -1"),
        (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
        (lambda p: optim.Adadelta(p, lr=-1), "Invalid learning rate: -1"),
    ],
)
def test_bad_hyper_parameters_raise_value_error(call, msg):
    with pytest.raises(ValueError, match=msg):
        call([ember.zeros(2, requires_grad=True)])


def test_sparse_adam_says_why_it_is_not_there():
    with pytest.raises(NotImplementedError, match="no sparse tensors"):
        optim.SparseAdam([ember.zeros(2, requires_grad=True)])


def rosenbrock(xy):
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_finds_the_rosenbrock_minimum(line_search_fn):
    xy = ember.tensor([-1.5, 2.0], dtype=ember.float64, requires_grad=True)
    lr = 1.0 if line_search_fn else 0.05
    opt = optim.LBFGS(
        [xy],
        lr=lr,
        max_iter=200,
        history_size=10,
        line_search_fn=line_search_fn,
        tolerance_grad=1e-12,
        tolerance_change=1e-14,
    )

    def closure():
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        return loss

    first = float(opt.step(closure).detach())
    for _ in range(10 if line_search_fn else 60):
        opt.step(closure)
    assert first == pytest.approx(rosenbrock([-1.5, 2.0]))  # the loss before the step: 6.5
    np.testing.assert_allclose(xy.detach().numpy(), [1.0, 1.0], atol=1e-5)


def test_lbfgs_needs_a_closure_and_one_group():
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(TypeError):
        optim.LBFGS([p]).step()  # closure is a required argument, as in PyTorch
    with pytest.raises(RuntimeError, match="closure"):
        optim.LBFGS([p]).step(None)
    with pytest.raises(ValueError, match="parameter groups"):
        optim.LBFGS([{"params": [p]}, {"params": [ember.zeros(1, requires_grad=True)]}])
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        optim.LBFGS([p], line_search_fn="armijo")
