"""ember.optim.lr_scheduler: the lr sequence of each scheduler against closed-form values."""

import math
import warnings

import numpy as np
import pytest

import ember
from ember import optim
from ember.optim import lr_scheduler as sched


def make_opt(lr=1.0, cls=optim.SGD, groups=1, **kw):
    params = [ember.zeros(2, requires_grad=True) for _ in range(groups)]
    return cls([{"params": [p]} for p in params], lr=lr, **kw)


def lrs(opt, scheduler, n, group=0):
    """The lr each of n epochs trains with: read, optimizer.step(), scheduler.step()."""
    out = []
    for _ in range(n):
        out.append(opt.param_groups[group]["lr"])
        assert scheduler.get_last_lr()[group] == out[-1]
        opt.step()
        scheduler.step()
    return out


def test_step_lr():
    opt = make_opt(0.5)
    got = lrs(opt, sched.StepLR(opt, step_size=3, gamma=0.1), 10)
    assert got == pytest.approx([0.5 * 0.1 ** (e // 3) for e in range(10)], rel=1e-12)


def test_multi_step_lr_with_a_repeated_milestone():
    opt = make_opt(1.0)
    got = lrs(opt, sched.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.5), 8)
    assert got == pytest.approx([1, 1, 0.5, 0.5, 0.5, 0.125, 0.125, 0.125], rel=1e-12)


def test_exponential_lr():
    opt = make_opt(2.0)
    got = lrs(opt, sched.ExponentialLR(opt, gamma=0.9), 6)
    assert got == pytest.approx([2.0 * 0.9**e for e in range(6)], rel=1e-12)


def test_cosine_annealing_follows_the_closed_form_through_a_restart():
    opt = make_opt(1.0)
    got = lrs(opt, sched.CosineAnnealingLR(opt, T_max=5, eta_min=0.1), 16)
    want = [0.1 + 0.9 * (1 + math.cos(math.pi * e / 5)) / 2 for e in range(16)]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_lambda_lr_per_group():
    opt = make_opt(1.0, groups=2)
    s = sched.LambdaLR(opt, [lambda e: 0.5**e, lambda e: 1.0 / (e + 1)])
    assert lrs(opt, s, 4, group=0) == pytest.approx([1, 0.5, 0.25, 0.125])
    assert opt.param_groups[1]["lr"] == pytest.approx(1 / 5)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        sched.LambdaLR(make_opt(groups=2), [lambda e: 1.0])


def test_linear_lr_warm_up():
    opt = make_opt(1.0)
    got = lrs(opt, sched.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=3), 6)
    assert got == pytest.approx([0.25, 0.5, 0.75, 1.0, 1.0, 1.0], rel=1e-12)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        sched.LinearLR(make_opt(), start_factor=0)


def one_cycle_ref(step, total, max_lr, pct, div, final_div, anneal):
    def cos(a, b, p):
        return b + (a - b) / 2 * (math.cos(math.pi * p) + 1)

    def lin(a, b, p):
        return (b - a) * p + a

    f = cos if anneal == "cos" else lin
    initial = max_lr / div
    up = float(pct * total) - 1
    if step <= up:
        return f(initial, max_lr, step / up), f(0.95, 0.85, step / up)
    p = (step - up) / (total - 1 - up)
    return f(max_lr, initial / final_div, p), f(0.85, 0.95, p)


@pytest.mark.parametrize("anneal", ["cos", "linear"])
def test_one_cycle_lr_and_momentum(anneal):
    opt = make_opt(0.1, momentum=0.9)
    s = sched.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy=anneal)
    for step in range(10):
        lr, mom = one_cycle_ref(step, 10, 1.0, 0.3, 25.0, 1e4, anneal)
        assert opt.param_groups[0]["lr"] == pytest.approx(lr, rel=1e-12)
        assert opt.param_groups[0]["momentum"] == pytest.approx(mom, rel=1e-12)
        opt.step()
        s.step()
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        s.step()


def test_one_cycle_cycles_adams_beta1():
    opt = make_opt(0.1, cls=optim.Adam)
    sched.OneCycleLR(opt, max_lr=0.5, epochs=2, steps_per_epoch=5)
    assert opt.param_groups[0]["betas"] == (0.95, 0.999)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.5 / 25)
    with pytest.raises(ValueError, match="either total_steps OR"):
        sched.OneCycleLR(opt, max_lr=0.5)


def test_sequential_lr_warm_up_then_decay():
    opt = make_opt(1.0)
    warm = sched.LinearLR(opt, start_factor=0.5, total_iters=2)
    decay = sched.ExponentialLR(opt, gamma=0.5)
    s = sched.SequentialLR(opt, [warm, decay], milestones=[2])
    got = lrs(opt, s, 6)
    assert got == pytest.approx([0.5, 0.75, 1.0, 0.5, 0.25, 0.125], rel=1e-12)
    with pytest.raises(ValueError, match="number of milestone points"):
        sched.SequentialLR(opt, [warm, decay], milestones=[])


def test_reduce_lr_on_plateau_on_a_scripted_metric():
    opt = make_opt(1.0)
    s = sched.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    metrics = [10, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8]
    got = []
    for m in metrics:
        s.step(m)
        got.append(opt.param_groups[0]["lr"])
    # Epochs 3 and 4 are bad (2 > patience 1): halve; 5 is in cooldown; 6 is bad; 7 improves;
    # 8 and 9 are bad: halve again. Four more bad epochs reduce to min_lr, then stay there.
    assert got == [1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    more = [8, 8, 8, 8]
    for m in more:
        s.step(m)
    assert opt.param_groups[0]["lr"] == 0.2
    assert s.get_last_lr() == [0.2]


def test_reduce_lr_on_plateau_max_mode_with_an_absolute_threshold():
    opt = make_opt(1.0)
    s = sched.ReduceLROnPlateau(opt, mode="max", patience=0, threshold=0.5, threshold_mode="abs")
    for m in [1.0, 1.4, 2.0]:  # 1.4 is not better than 1.0 + 0.5: reduce; 2.0 is
        s.step(m)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        sched.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown"):
        sched.ReduceLROnPlateau(opt, mode="avg")


def test_state_dict_round_trip_resumes_the_schedule():
    opt = make_opt(1.0)
    s = sched.CosineAnnealingLR(opt, T_max=6)
    opt.step()
    for _ in range(3):
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3 and sd["base_lrs"] == [1.0]
    opt2 = make_opt(1.0)
    opt2.load_state_dict(opt.state_dict())
    s2 = sched.CosineAnnealingLR(opt2, T_max=6)
    s2.load_state_dict(sd)
    for _ in range(3):
        s.step()
        s2.step()
        assert s2.get_last_lr() == pytest.approx(s.get_last_lr(), rel=1e-12)


def test_scheduler_needs_an_optimizer_and_initial_lr_when_resuming():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        sched.StepLR(object(), step_size=1)
    with pytest.raises(KeyError, match="initial_lr"):
        sched.StepLR(make_opt(), step_size=1, last_epoch=3)


def test_step_with_an_epoch_uses_the_closed_form_and_warns():
    opt = make_opt(1.0)
    s = sched.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        s.step(5)
    assert opt.param_groups[0]["lr"] == 0.25


def test_constant_lr():
    opt = make_opt(1.0)
    got = lrs(opt, sched.ConstantLR(opt, factor=0.5, total_iters=3), 5)
    assert got == pytest.approx([0.5, 0.5, 0.5, 1.0, 1.0], rel=1e-12)


def test_polynomial_lr():
    opt = make_opt(1.0)
    got = lrs(opt, sched.PolynomialLR(opt, total_iters=4, power=2.0), 6)
    assert got == pytest.approx([(1 - min(e, 4) / 4) ** 2 for e in range(6)], abs=1e-12)


def test_cosine_annealing_warm_restarts_doubles_the_period():
    opt = make_opt(1.0)
    s = sched.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.0)
    got = lrs(opt, s, 8)
    # Periods of 2, then 4, then 8 epochs, each starting again at the base lr.
    t_cur = [0, 1, 0, 1, 2, 3, 0, 1]
    t_i = [2, 2, 4, 4, 4, 4, 8, 8]
    want = [(1 + math.cos(math.pi * c / i)) / 2 for c, i in zip(t_cur, t_i)]
    assert got == pytest.approx(want, rel=1e-12)
    s.step(1.5)  # a fractional epoch within the first period
    assert opt.param_groups[0]["lr"] == pytest.approx((1 + math.cos(math.pi * 1.5 / 2)) / 2)


def test_old_lr_scheduler_name_can_be_subclassed():
    class Halving(sched._LRScheduler):
        def get_lr(self):
            return [b * 0.5**self.last_epoch for b in self.base_lrs]

    opt = make_opt(1.0)
    assert lrs(opt, Halving(opt), 3) == [1.0, 0.5, 0.25]


def test_multiplicative_and_chained():
    opt = make_opt(1.0)
    s = sched.ChainedScheduler(
        [sched.MultiplicativeLR(opt, lambda e: 0.5), sched.ConstantLR(opt, 0.5, total_iters=2)]
    )
    # Multiplicative halves every epoch; ConstantLR halves epochs 0 and 1 only.
    assert lrs(opt, s, 4) == pytest.approx([0.5, 0.25, 0.25, 0.125])


def test_scheduler_step_before_optimizer_step_warns():
    opt = make_opt(1.0)
    s = sched.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    opt2 = make_opt(1.0)
    s2 = sched.StepLR(opt2, step_size=1)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s2.step()


def test_cyclic_lr_triangle_and_momentum_by_hand():
    p = ember.zeros(1, requires_grad=True)
    opt = ember.optim.SGD([p], lr=5.0, momentum=0.5)
    sched = ember.optim.lr_scheduler.CyclicLR(
        opt,
        base_lr=0.1,
        max_lr=0.5,
        step_size_up=2,
        step_size_down=2,
        base_momentum=0.8,
        max_momentum=0.9,
    )
    lrs, moms = [], []
    for _ in range(9):
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
        opt.step()
        sched.step()
    # up over 2 steps, down over 2: 0.1 0.3 0.5 0.3 0.1 0.3 ...; momentum the other way.
    assert lrs == pytest.approx([0.1, 0.3, 0.5, 0.3, 0.1, 0.3, 0.5, 0.3, 0.1])
    assert moms == pytest.approx([0.9, 0.85, 0.8, 0.85, 0.9, 0.85, 0.8, 0.85, 0.9])
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        ember.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, mode="sawtooth")


def test_swa_utils_average_and_recompute_batch_norm_statistics():
    from ember.optim import swa_utils

    model = ember.nn.Linear(2, 1)
    avg = swa_utils.AveragedModel(model)
    weights = []
    for k in range(3):
        with ember.no_grad():
            model.weight.fill_(float(k + 1))
        weights.append(float(k + 1))
        avg.update_parameters(model)
    assert avg.module.weight.tolist() == [[2.0, 2.0]]  # the mean of 1, 2, 3
    x = ember.ones(4, 2)
    assert avg(x).tolist() == avg.module(x).tolist()

    net = ember.nn.Sequential(ember.nn.BatchNorm1d(3))
    data = [
        ember.tensor(np.arange(12.0).reshape(4, 3) + 10 * i, dtype=ember.float32) for i in range(3)
    ]
    swa_utils.update_bn(data, net)
    every = np.concatenate([d.numpy() for d in data])
    np.testing.assert_allclose(net[0].running_mean.numpy(), every.mean(0), rtol=1e-5)
    assert net.training and net[0].momentum == 0.1

    opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    sched = swa_utils.SWALR(opt, swa_lr=0.2, anneal_epochs=2, anneal_strategy="linear")
    seen = []
    for _ in range(4):
        seen.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert seen == pytest.approx([1.0, 0.6, 0.2, 0.2])
