"""ember.optim against NumPy float64 implementations of PyTorch's documented algorithms."""

import numpy as np
import pytest

import ember
from ember import optim

SHAPES = [(3, 4), (5,), (2, 1, 3)]
STEPS = 4


def make_params(dtype=ember.float64, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in SHAPES]
    params = [ember.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    return arrays, params


def grad_sequence(seed=1, steps=STEPS):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]


def run(opt, params, grads, dtype=ember.float64):
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = ember.tensor(g, dtype=dtype)
        opt.step()


def values(params):
    return [p.detach().numpy() for p in params]


def check(params, want, rtol=1e-10, atol=1e-12):
    for got, w in zip(values(params), want):
        np.testing.assert_allclose(got, w, rtol=rtol, atol=atol)


# ---- NumPy references (torch.optim's documented single-tensor algorithms) ----------------------


def ref_sgd(ps, grads, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    ps = [p.copy() for p in ps]
    bufs = [None] * len(ps)
    for gs in grads:
        for i, g in enumerate(gs):
            d = -g if maximize else g
            if weight_decay:
                d = d + weight_decay * ps[i]
            if momentum:
                if bufs[i] is None:
                    bufs[i] = d.copy()
                else:
                    bufs[i] = momentum * bufs[i] + (1 - dampening) * d
                d = d + momentum * bufs[i] if nesterov else bufs[i]
            ps[i] = ps[i] - lr * d
    return ps


def ref_adam(
    ps,
    grads,
    lr=1e-3,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0,
    amsgrad=False,
    maximize=False,
    decoupled=False,
):
    b1, b2 = betas
    ps = [p.copy() for p in ps]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    vmax = [np.zeros_like(p) for p in ps]
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = -g if maximize else g
            if decoupled:
                ps[i] = ps[i] * (1 - lr * weight_decay)
            elif weight_decay:
                g = g + weight_decay * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            vv = v[i]
            if amsgrad:
                vmax[i] = np.maximum(vmax[i], v[i])
                vv = vmax[i]
            denom = np.sqrt(vv) / np.sqrt(1 - b2**t) + eps
            ps[i] = ps[i] - lr / (1 - b1**t) * m[i] / denom
    return ps


def ref_rmsprop(
    ps, grads, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
    maximize=False,
):  # fmt: skip
    ps = [p.copy() for p in ps]
    sq = [np.zeros_like(p) for p in ps]
    ga = [np.zeros_like(p) for p in ps]
    buf = [np.zeros_like(p) for p in ps]
    for gs in grads:
        for i, g in enumerate(gs):
            g = -g if maximize else g
            if weight_decay:
                g = g + weight_decay * ps[i]
            sq[i] = alpha * sq[i] + (1 - alpha) * g * g
            if centered:
                ga[i] = alpha * ga[i] + (1 - alpha) * g
                avg = np.sqrt(sq[i] - ga[i] * ga[i]) + eps
            else:
                avg = np.sqrt(sq[i]) + eps
            if momentum > 0:
                buf[i] = momentum * buf[i] + g / avg
                ps[i] = ps[i] - lr * buf[i]
            else:
                ps[i] = ps[i] - lr * g / avg
    return ps


def ref_adagrad(
    ps, grads, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
    maximize=False,
):  # fmt: skip
    ps = [p.copy() for p in ps]
    s = [np.full_like(p, initial_accumulator_value) for p in ps]
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = -g if maximize else g
            if weight_decay:
                g = g + weight_decay * ps[i]
            clr = lr / (1 + (t - 1) * lr_decay)
            s[i] = s[i] + g * g
            ps[i] = ps[i] - clr * g / (np.sqrt(s[i]) + eps)
    return ps


# ---- each optimizer and option combination -----------------------------------------------------

SGD_CASES = [
    {},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.3},
    {"momentum": 0.9, "nesterov": True},
    {"weight_decay": 0.1},
    {"momentum": 0.5, "weight_decay": 0.1, "maximize": True},
    {"momentum": 0.9, "nesterov": True, "weight_decay": 0.05, "maximize": True},
]


@pytest.mark.parametrize("kw", SGD_CASES)
def test_sgd_matches_numpy(kw):
    arrays, params = make_params()
    grads = grad_sequence()
    run(optim.SGD(params, lr=0.1, **kw), params, grads)
    check(params, ref_sgd(arrays, grads, 0.1, **kw))


ADAM_CASES = [
    {},
    {"betas": (0.8, 0.99), "eps": 1e-6},
    {"weight_decay": 0.1},
    {"amsgrad": True},
    {"maximize": True},
    {"amsgrad": True, "weight_decay": 0.05, "maximize": True},
]


@pytest.mark.parametrize("kw", ADAM_CASES)
def test_adam_matches_numpy(kw):
    arrays, params = make_params()
    grads = grad_sequence()
    run(optim.Adam(params, lr=0.01, **kw), params, grads)
    check(params, ref_adam(arrays, grads, 0.01, **kw))


@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.3}, {"amsgrad": True, "maximize": True}])
def test_adamw_matches_numpy(kw):
    arrays, params = make_params()
    grads = grad_sequence()
    opt = optim.AdamW(params, lr=0.01, **kw)
    assert opt.defaults["weight_decay"] == kw.get("weight_decay", 1e-2)
    run(opt, params, grads)
    kw.setdefault("weight_decay", 1e-2)
    check(params, ref_adam(arrays, grads, 0.01, decoupled=True, **kw))


def test_adam_with_decoupled_weight_decay_is_adamw():
    arrays, params = make_params()
    grads = grad_sequence()
    run(optim.Adam(params, lr=0.01, weight_decay=0.2, decoupled_weight_decay=True), params, grads)
    check(params, ref_adam(arrays, grads, 0.01, weight_decay=0.2, decoupled=True))


RMSPROP_CASES = [
    {},
    {"alpha": 0.9, "eps": 1e-6},
    {"centered": True},
    {"momentum": 0.9},
    {"momentum": 0.5, "centered": True, "weight_decay": 0.1},
    {"maximize": True, "weight_decay": 0.1},
]


@pytest.mark.parametrize("kw", RMSPROP_CASES)
def test_rmsprop_matches_numpy(kw):
    arrays, params = make_params()
    grads = grad_sequence()
    run(optim.RMSprop(params, lr=0.01, **kw), params, grads)
    check(params, ref_rmsprop(arrays, grads, 0.01, **kw))


ADAGRAD_CASES = [
    {},
    {"lr_decay": 0.1},
    {"initial_accumulator_value": 0.5, "eps": 1e-6},
    {"weight_decay": 0.1, "maximize": True},
]


@pytest.mark.parametrize("kw", ADAGRAD_CASES)
def test_adagrad_matches_numpy(kw):
    arrays, params = make_params()
    grads = grad_sequence()
    run(optim.Adagrad(params, lr=0.1, **kw), params, grads)
    check(params, ref_adagrad(arrays, grads, 0.1, **kw))


@pytest.mark.parametrize(
    "make, ref",
    [
        (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), lambda a, g: ref_sgd(a, g, 0.1, 0.9)),
        (lambda ps: optim.Adam(ps, lr=0.01), lambda a, g: ref_adam(a, g, 0.01)),
        (
            lambda ps: optim.RMSprop(ps, centered=True),
            lambda a, g: ref_rmsprop(a, g, centered=True),
        ),
        (lambda ps: optim.Adagrad(ps), lambda a, g: ref_adagrad(a, g)),
    ],
)
def test_float32_params_match_numpy_to_float32_rounding(make, ref):
    arrays, params = make_params(ember.float32)
    grads = grad_sequence()
    run(make(params), params, grads, ember.float32)
    check(params, ref([a.astype(np.float32).astype(np.float64) for a in arrays], grads), 2e-5, 2e-6)


# ---- groups, skipped params, state ---------------------------------------------------------------


def test_two_groups_use_their_own_lr_and_params_without_grad_are_skipped():
    arrays, params = make_params()
    grads = grad_sequence()
    frozen = ember.ones(2, dtype=ember.float64, requires_grad=True)
    opt = optim.Adam(
        [{"params": params[:2] + [frozen]}, {"params": params[2:], "lr": 0.1}], lr=0.01
    )
    run(opt, params, grads)
    want_a = ref_adam(arrays[:2], [g[:2] for g in grads], 0.01)
    want_b = ref_adam(arrays[2:], [g[2:] for g in grads], 0.1)
    check(params, want_a + want_b)
    np.testing.assert_array_equal(frozen.detach().numpy(), [1.0, 1.0])
    assert frozen not in opt.state
    assert opt.param_groups[1]["lr"] == 0.1 and opt.param_groups[1]["betas"] == (0.9, 0.999)


def test_float32_and_float64_params_in_one_group():
    arrays, params = make_params()
    params[1] = ember.tensor(arrays[1], dtype=ember.float32, requires_grad=True)
    grads = grad_sequence()
    opt = optim.Adam(params, lr=0.01)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = ember.tensor(g, dtype=p.dtype)
        opt.step()
    want = ref_adam(arrays, grads, 0.01)
    assert (
        params[1].dtype == ember.float32 and opt.state[params[1]]["exp_avg"].dtype == ember.float32
    )
    np.testing.assert_allclose(params[1].detach().numpy(), want[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params[2].detach().numpy(), want[2], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype, tol", [(ember.float16, 4e-3), (ember.bfloat16, 2e-2)])
@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop", "Adagrad"])
def test_16_bit_params_follow_the_float64_reference_to_their_precision(name, dtype, tol):
    arrays, _ = make_params()
    arrays = [np.clip(a, -2, 2) for a in arrays]
    params = [ember.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    # Start the reference from the rounded values, so only the steps' rounding differs.
    start = [p.detach().to(ember.float64).numpy() for p in params]
    grads = grad_sequence(steps=3)
    # Learning rates large enough that the steps move the values far beyond the tolerance.
    kw, ref = {
        "Adam": ({"lr": 0.1}, lambda a, g: ref_adam(a, g, 0.1)),
        "SGD": ({"lr": 0.1, "momentum": 0.9}, lambda a, g: ref_sgd(a, g, 0.1, 0.9)),
        "RMSprop": ({"lr": 0.02}, lambda a, g: ref_rmsprop(a, g, 0.02)),
        "Adagrad": ({"lr": 0.5}, lambda a, g: ref_adagrad(a, g, 0.5)),
    }[name]
    opt = getattr(optim, name)(params, **kw)
    run(opt, params, grads, dtype)
    for p, a, want in zip(params, start, ref(start, grads)):
        assert p.dtype == dtype
        got = p.detach().to(ember.float64).numpy()
        assert np.abs(want - a).max() > 10 * tol
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_adam_state_holds_step_and_moments():
    _, params = make_params()
    opt = optim.Adam(params, amsgrad=True)
    run(opt, params, grad_sequence(steps=3))
    st = opt.state[params[0]]
    assert sorted(st) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    assert isinstance(st["step"], ember.Tensor) and st["step"].item() == 3.0
    assert st["exp_avg"].shape == params[0].shape


def test_step_bumps_the_version_counter_and_records_no_graph():
    _, params = make_params()
    opt = optim.SGD(params, lr=0.1)
    before = params[0]._version
    run(opt, params, grad_sequence(steps=1))
    assert params[0]._version > before
    assert params[0].grad_fn is None and params[0].requires_grad


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
        lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
        lambda ps: optim.AdamW(ps, lr=0.01),
        lambda ps: optim.RMSprop(ps, momentum=0.5, centered=True),
        lambda ps: optim.Adagrad(ps, lr_decay=0.01),
    ],
)
def test_state_dict_round_trip_continues_identically(make):
    _, params = make_params()
    grads = grad_sequence(steps=6)
    opt = make(params)
    run(opt, params, grads[:3])
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert sd["param_groups"][0]["params"] == [0, 1, 2]
    assert sorted(sd["state"]) == [0, 1, 2]

    clones = [p.detach().clone().requires_grad_(True) for p in params]
    fresh = make(clones)
    fresh.load_state_dict(sd)
    run(opt, params, grads[3:])
    run(fresh, clones, grads[3:])
    for a, b in zip(values(params), values(clones)):
        np.testing.assert_array_equal(a, b)
    # The loaded state is a copy: the first optimizer's steps did not move the fresh one's.
    assert fresh.state[clones[0]] is not opt.state[params[0]]


def test_load_state_dict_takes_the_saved_hyper_parameters():
    _, params = make_params()
    opt = optim.SGD(params, lr=0.5, momentum=0.9)
    fresh = optim.SGD(make_params()[1], lr=0.1)
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[0]["lr"] == 0.5 and fresh.param_groups[0]["momentum"] == 0.9


def test_load_state_dict_rejects_mismatched_groups():
    _, params = make_params()
    sd = optim.Adam(params).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.Adam([{"params": params[:1]}, {"params": params[1:]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.Adam(params[:2]).load_state_dict(sd)


def test_add_param_group_errors():
    _, params = make_params()
    opt = optim.SGD(params[:2], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [params[0]]})
    with pytest.raises(ValueError, match="more than once"):
        opt.add_param_group({"params": [params[2], params[2]]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([params[2]])
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {params[2]}})
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        opt.add_param_group({"params": [1.0]})
    with pytest.raises(ValueError, match="non-leaf"):
        opt.add_param_group({"params": [params[2] * 2]})
    opt.add_param_group({"params": params[2], "momentum": 0.5})
    assert opt.param_groups[1]["momentum"] == 0.5 and opt.param_groups[1]["lr"] == 0.1
    assert len(opt.param_groups) == 2


def test_required_lr_must_be_given():
    _, params = make_params()
    opt = optim.Optimizer([{"params": params, "lr": 0.1}], {"lr": optim.optimizer.required})
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        opt.add_param_group({"params": [ember.zeros(1, requires_grad=True)]})
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        optim.Optimizer([{"params": params}], {"lr": optim.optimizer.required})
    with pytest.raises(NotImplementedError):
        opt.step()


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda ps: optim.SGD(ps, lr=-1), "Invalid learning rate"),
        (lambda ps: optim.SGD(ps, momentum=-0.1), "Invalid momentum value"),
        (lambda ps: optim.SGD(ps, nesterov=True), "Nesterov momentum requires"),
        (lambda ps: optim.Adam(ps, betas=(1.0, 0.9)), "Invalid beta parameter at index 0"),
        (lambda ps: optim.Adam(ps, betas=(0.9, -0.1)), "Invalid beta parameter at index 1"),
        (lambda ps: optim.Adam(ps, eps=-1), "Invalid epsilon value"),
        (lambda ps: optim.AdamW(ps, weight_decay=-1), "Invalid weight_decay value"),
        (lambda ps: optim.RMSprop(ps, alpha=-1), "Invalid alpha value"),
        (lambda ps: optim.Adagrad(ps, lr_decay=-1), "Invalid lr_decay value"),
        (lambda ps: optim.Adagrad(ps, initial_accumulator_value=-1), "initial_accumulator_value"),
        (lambda ps: optim.Adam([]), "empty parameter list"),
    ],
)
def test_bad_hyper_parameters_raise_value_error(call, msg):
    _, params = make_params()
    with pytest.raises(ValueError, match=msg):
        call(params)


def test_a_tensor_instead_of_a_list_is_a_type_error():
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(ember.zeros(2, requires_grad=True), lr=0.1)


def test_zero_grad_sets_none_or_zeros():
    _, params = make_params()
    opt = optim.SGD(params, lr=0.1)
    for p in params:
        p.grad = ember.ones_like(p)
    opt.zero_grad(set_to_none=False)
    assert all(p.grad is not None and float(p.grad.abs().sum()) == 0 for p in params)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_step_calls_the_closure_with_grad_enabled_and_returns_its_loss():
    w = ember.tensor([2.0, -1.0], dtype=ember.float64, requires_grad=True)
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert float(loss) == 5.0
    np.testing.assert_allclose(w.detach().numpy(), [1.0, -0.5])  # w - 0.25 * 2w


def test_lr_may_be_a_tensor():
    arrays, params = make_params()
    grads = grad_sequence()
    run(optim.Adam(params, lr=ember.tensor(0.01, dtype=ember.float64)), params, grads)
    check(params, ref_adam(arrays, grads, 0.01))


def test_repr_lists_the_groups_options():
    opt = optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n")
    assert "    lr: 0.1\n" in text and "    momentum: 0\n" in text and text.endswith(")")


def test_fused_ops_report_bad_lists():
    p = ember.zeros(3, dtype=ember.float64)
    g = ember.zeros(2, dtype=ember.float64)
    s = ember.zeros(())
    with pytest.raises(RuntimeError, match=r"\[fused_adam_\] grads\[0\] has shape"):
        ember._C._optim.adam_(
            [p], [g], [p.clone()], [p.clone()], [], [s], lr=0.1, beta1=0.9, beta2=0.999,
            weight_decay=0, eps=1e-8, amsgrad=False, maximize=False,
        )  # fmt: skip
    with pytest.raises(TypeError, match=r"\[fused_sgd_\] params\[0\] has dtype int64"):
        ember._C._optim.sgd_(
            [ember.zeros(2, dtype=ember.int64)], [ember.zeros(2, dtype=ember.int64)], [],
            lr=0.1, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False,
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"\[fused_adagrad_\] expected 1 state_sums"):
        ember._C._optim.adagrad_(
            [p], [p.clone()], [], [s], lr=0.1, lr_decay=0, weight_decay=0, eps=1e-10,
            maximize=False,
        )  # fmt: skip


def test_one_step_over_many_tensors_is_the_same_on_one_and_two_threads():
    def once(threads):
        old = ember.get_num_threads()
        ember.set_num_threads(threads)
        try:
            ember.manual_seed(5)
            ps = [ember.randn(n, requires_grad=True) for n in (40000, 7, 30000)]
            opt = optim.Adam(ps, lr=0.01, weight_decay=0.1)
            for _ in range(2):
                for p in ps:
                    p.grad = ember.randn(p.shape)
                opt.step()
            return [p.detach().numpy() for p in ps]
        finally:
            ember.set_num_threads(old)

    for a, b in zip(once(1), once(2)):
        np.testing.assert_array_equal(a, b)


def test_step_and_state_dict_hooks():
    _, params = make_params()
    opt = optim.SGD(params, lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", len(args))))
    g = optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
    run(opt, params, grad_sequence(steps=1))
    assert calls == ["global", ("pre", True), ("post", 1)]
    pre.remove()
    g.remove()
    calls.clear()
    run(opt, params, grad_sequence(steps=1))
    assert calls == [("post", 1)]

    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1
    seen = []
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append(sorted(sd)))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("done"))
    opt.load_state_dict(opt.state_dict())
    assert seen == [["extra", "param_groups", "state"], "done"]


def test_a_step_pre_hook_may_replace_the_arguments():
    w = ember.tensor([1.0], dtype=ember.float64, requires_grad=True)
    opt = optim.SGD([w], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (w * 3).sum()
        loss.backward()
        return loss

    opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {"closure": closure}))
    assert float(opt.step()) == 3.0  # the hook supplied the closure
    np.testing.assert_allclose(w.detach().numpy(), [-0.5])


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: optim.Adam(ps, lr=0.1, amsgrad=True),
        lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
        lambda ps: optim.RMSprop(ps, lr=0.1, momentum=0.5, centered=True),
        lambda ps: optim.Adagrad(ps, lr=0.1),
    ],
)
def test_any_parameter_layout_gives_the_contiguous_result(make):
    # A channels-last parameter (updated in place in one pass), a transposed one whose gradient
    # is contiguous, and a strided view with gaps (both staged): each must end where the same
    # parameter in contiguous layout ends (Note [Fused layouts] in ember/ops/optim.cpp).
    base = [
        np.random.default_rng(i).standard_normal(s) for i, s in enumerate([(2, 3, 4, 5), (4, 6)])
    ]
    grads = [np.random.default_rng(10 + i).standard_normal(b.shape) for i, b in enumerate(base)]

    def train(layouts):
        ps = [f(ember.tensor(b)).requires_grad_() for f, b in zip(layouts, base)]
        opt = make(ps)
        for _ in range(3):
            for p, g in zip(ps, grads):
                p.grad = ember.tensor(g)
            opt.step()
        return [p.detach().contiguous().numpy() for p in ps], ps

    want, _ = train([lambda t: t, lambda t: t])
    got, ps = train(
        [lambda t: t.to(memory_format=ember.channels_last), lambda t: t.t().contiguous().t()]
    )
    assert ps[0].is_contiguous(memory_format=ember.channels_last)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    wide = ember.zeros(4, 12, dtype=ember.float64)
    view = wide[:, ::2]  # a parameter with gaps: its update must land in the view only
    view.copy_(ember.tensor(base[1]))
    p = view.requires_grad_()
    opt = make([p])
    for _ in range(3):
        p.grad = ember.tensor(grads[1])
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), want[1], rtol=1e-12)
    assert float(wide[:, 1::2].abs().sum()) == 0.0


@pytest.mark.parametrize(
    "name, kw",
    [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.01}), ("RMSprop", {"lr": 0.01})],
)
def test_complex_parameter_is_its_real_and_imaginary_parts(name, kw):
    """A complex parameter steps exactly as the real tensor of its (re, im) pairs would, and its
    state stays complex (PyTorch's treatment)."""
    rng = np.random.default_rng(0)
    z = rng.standard_normal((3, 2, 2))
    c = ember.view_as_complex(ember.tensor(z)).clone().requires_grad_()
    r = ember.tensor(z, requires_grad=True)
    oc, orr = getattr(ember.optim, name)([c], **kw), getattr(ember.optim, name)([r], **kw)
    for _ in range(3):
        g = rng.standard_normal((3, 2, 2))
        c.grad, r.grad = ember.view_as_complex(ember.tensor(g)), ember.tensor(g)
        oc.step()
        orr.step()
    np.testing.assert_allclose(ember.view_as_real(c.detach()).numpy(), r.detach().numpy())
    assert all(v.is_complex() for v in oc.state[c].values() if v.dim() > 0)
