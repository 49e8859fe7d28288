"""ember.optim and its schedulers side by side with PyTorch's (skipped without torch): the same
parameters and gradients, several steps, equal to float32 rounding."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

SHAPES = [(4, 3), (7,), (2, 2, 2)]


def both(seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    e = [ember.tensor(a, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    return e, t


OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.5, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1}),
    (
        "RAdam",
        {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1, "decoupled_weight_decay": True},
    ),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 2, "weight_decay": 0.1}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
]


@pytest.mark.parametrize("name, kw", OPTIMIZERS)
def test_optimizer_matches_torch(name, kw):
    e, t = both()
    eo = getattr(ember.optim, name)(e, **kw)
    to = getattr(torch.optim, name)(t, **kw)
    rng = np.random.default_rng(1)
    for _ in range(5):
        for ep, tp in zip(e, t):
            g = rng.standard_normal(tuple(tp.shape)).astype(np.float32)
            ep.grad = ember.tensor(g)
            tp.grad = torch.tensor(g)
        eo.step()
        to.step()
    for ep, tp in zip(e, t):
        np.testing.assert_allclose(ep.detach().numpy(), tp.detach().numpy(), rtol=1e-5, atol=1e-6)
    # The state has PyTorch's keys and values.
    es, ts = eo.state[e[0]], to.state[t[0]]
    assert sorted(es) == sorted(ts)
    for k in ts:
        np.testing.assert_allclose(
            np.asarray(es[k].numpy()), ts[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k
        )
        assert es[k].dtype == getattr(ember, str(ts[k].dtype).split(".")[1]), k
    assert eo.state_dict()["param_groups"] == to.state_dict()["param_groups"]


@pytest.mark.parametrize("name, kw", OPTIMIZERS)
def test_complex_parameters_match_torch(name, kw):
    """A complex parameter is updated as its real and imaginary parts, and its state stays
    complex, as in PyTorch."""
    rng = np.random.default_rng(2)
    z = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    e, t = ember.tensor(z, requires_grad=True), torch.tensor(z, requires_grad=True)
    eo, to = getattr(ember.optim, name)([e], **kw), getattr(torch.optim, name)([t], **kw)
    for _ in range(4):
        g = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
        e.grad, t.grad = ember.tensor(g), torch.tensor(g)
        eo.step()
        to.step()
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    for k, v in to.state[t].items():
        got = eo.state[e][k]
        assert str(got.dtype).split(".")[1] == str(v.dtype).split(".")[1], k
        np.testing.assert_allclose(got.numpy(), v.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.8}),
    ("CosineAnnealingLR", {"T_max": 4, "eta_min": 0.01}),
    ("LinearLR", {"start_factor": 0.2, "total_iters": 4}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 12}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 12, "anneal_strategy": "linear"}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 12, "three_phase": True}),
    ("ConstantLR", {"factor": 0.25, "total_iters": 3}),
    ("PolynomialLR", {"total_iters": 6, "power": 1.5}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.05}),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 3}),
    (
        "CyclicLR",
        {
            "base_lr": 0.1,
            "max_lr": 1.0,
            "step_size_up": 2,
            "step_size_down": 3,
            "mode": "triangular2",
        },
    ),
    (
        "CyclicLR",
        {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9},
    ),
]


@pytest.mark.parametrize("name, kw", SCHEDULERS)
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_scheduler_matches_torch(name, kw, opt):
    e, t = both()
    extra = {"momentum": 0.9} if opt == "SGD" else {}
    eo = getattr(ember.optim, opt)(e, lr=0.5, **extra)
    to = getattr(torch.optim, opt)(t, lr=0.5, **extra)
    es = getattr(ember.optim.lr_scheduler, name)(eo, **kw)
    ts = getattr(torch.optim.lr_scheduler, name)(to, **kw)
    for _ in range(11):
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
        key = "betas" if opt == "Adam" else "momentum"
        assert eo.param_groups[0][key] == pytest.approx(to.param_groups[0][key], rel=1e-12)
        eo.step()
        to.step()
        es.step()
        ts.step()


def test_multiplicative_and_chained_match_torch():
    e, t = both()
    eo, to = ember.optim.SGD(e, lr=1.0), torch.optim.SGD(t, lr=1.0)
    el, tl = ember.optim.lr_scheduler, torch.optim.lr_scheduler
    es = el.ChainedScheduler(
        [el.MultiplicativeLR(eo, lambda k: 0.9), el.StepLR(eo, step_size=2, gamma=0.5)]
    )
    ts = tl.ChainedScheduler(
        [tl.MultiplicativeLR(to, lambda k: 0.9), tl.StepLR(to, step_size=2, gamma=0.5)]
    )
    for _ in range(6):
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
        eo.step()
        to.step()
        es.step()
        ts.step()


def test_sequential_and_plateau_match_torch():
    e, t = both()
    eo, to = ember.optim.SGD(e, lr=1.0), torch.optim.SGD(t, lr=1.0)
    el, tl = ember.optim.lr_scheduler, torch.optim.lr_scheduler
    es = el.SequentialLR(
        eo, [el.LinearLR(eo, start_factor=0.1, total_iters=3), el.ExponentialLR(eo, 0.7)], [3]
    )
    ts = tl.SequentialLR(
        to, [tl.LinearLR(to, start_factor=0.1, total_iters=3), tl.ExponentialLR(to, 0.7)], [3]
    )
    for _ in range(8):
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
        eo.step()
        to.step()
        es.step()
        ts.step()
    ep = el.ReduceLROnPlateau(eo, patience=1, cooldown=1, factor=0.5)
    tp = tl.ReduceLROnPlateau(to, patience=1, cooldown=1, factor=0.5)
    for m in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3]:
        ep.step(m)
        tp.step(m)
        assert eo.param_groups[0]["lr"] == pytest.approx(to.param_groups[0]["lr"], rel=1e-12)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search_fn):
    # A least-squares fit with a tanh: several iterations, curvature pairs, the line search.
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((20, 3))
    ys = np.tanh(xs @ rng.standard_normal((3, 1))) + 0.1 * rng.standard_normal((20, 1))
    w0 = rng.standard_normal((3, 1))

    def fit(lib):
        x, y = lib.tensor(xs), lib.tensor(ys)
        w = lib.tensor(w0, requires_grad=True)
        opt = lib.optim.LBFGS(
            [w], lr=0.8, max_iter=15, history_size=4, line_search_fn=line_search_fn
        )
        losses = []

        def closure():
            opt.zero_grad()
            loss = ((lib.tanh(x @ w) - y) ** 2).mean()
            loss.backward()
            return loss

        for _ in range(3):
            losses.append(float(opt.step(closure).detach()))
        state = opt.state[w]
        return w.detach().numpy(), losses, state["func_evals"], state["n_iter"]

    ew, el, ee, en = fit(ember)
    tw, tl, te, tn = fit(torch)
    np.testing.assert_allclose(el, tl, rtol=1e-9)
    np.testing.assert_allclose(ew, tw, rtol=1e-7, atol=1e-9)
    assert (ee, en) == (te, tn)


def test_swalr_and_averaged_model_match_torch():
    e, t = both()
    eo, to = ember.optim.SGD(e, lr=0.5), torch.optim.SGD(t, lr=0.5)
    es = ember.optim.swa_utils.SWALR(eo, swa_lr=0.05, anneal_epochs=3)
    ts = torch.optim.swa_utils.SWALR(to, swa_lr=0.05, anneal_epochs=3)
    for _ in range(6):
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
        eo.step()
        to.step()
        es.step()
        ts.step()
    em, tm = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    with torch.no_grad():
        tm.weight.copy_(torch.from_numpy(em.weight.detach().numpy()))
        tm.bias.copy_(torch.from_numpy(em.bias.detach().numpy()))
    for kind in ("swa", "ema"):
        ekw, tkw = {}, {}
        if kind == "ema":
            ekw = {"multi_avg_fn": ember.optim.swa_utils.get_ema_multi_avg_fn(0.9)}
            tkw = {"multi_avg_fn": torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)}
        ea = ember.optim.swa_utils.AveragedModel(em, **ekw)
        ta = torch.optim.swa_utils.AveragedModel(tm, **tkw)
        for k in range(4):
            with torch.no_grad():
                tm.weight.mul_(1.5).add_(k)
            with ember.no_grad():
                em.weight.mul_(1.5).add_(k)
            ea.update_parameters(em)
            ta.update_parameters(tm)
            np.testing.assert_allclose(
                ea.module.weight.detach().numpy(), ta.module.weight.detach().numpy(), rtol=1e-6
            )
        assert int(ea.n_averaged) == int(ta.n_averaged) == 4
