"""Op-table records of the fused optimizer updates (ember._C._optim: adam_, sgd_, rmsprop_,
adagrad_, adadelta_, adamax_, nadam_, radam_, asgd_, rprop_), which ember.optim's classes call
once per parameter group and step.

Each record's op runs one step on one-element lists (a parameter, its gradient and its state,
copied first so that the sample's tensors stay as they were) and returns the updated parameter
and state; the reference is PyTorch's documented algorithm in float64 (torch.optim.Adam, AdamW,
SGD, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop). The generic tests then
check every floating dtype, strided (non-contiguous) tensors, which the updates stage, and that
integer parameters are refused."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import FLOATING, ErrorSample, OpSpec, Sample, make_array

_optim = ember._C._optim

SHAPES = [(5,), (3, 4), ()]


def _state(shape, dtype, rng, n):
    """n arrays of one shape: a parameter, a gradient, then n - 2 non-negative state arrays
    (second moments and sums must be; first moments may be either sign, which abs does not hurt)."""
    arrays = [make_array(shape, dtype, rng), make_array(shape, dtype, rng)]
    arrays += [np.asarray(np.abs(make_array(shape, dtype, rng, 0.1, 2.0))) for _ in range(n - 2)]
    return arrays


def _step(count):
    return ember.tensor(float(count))


# ---- Adam / AdamW -----------------------------------------------------------------------------

ADAM_OPTIONS = [
    dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False),
    dict(lr=0.05, beta1=0.8, beta2=0.99, weight_decay=0.1, eps=1e-6, amsgrad=True, maximize=True),
    dict(
        lr=0.01,
        beta1=0.9,
        beta2=0.999,
        weight_decay=0.01,
        eps=1e-8,
        amsgrad=False,
        maximize=False,
        decoupled=True,
    ),
]


def _adam(p, g, m, v, vmax, step, **o):
    p, m, v, vmax = p.clone(), m.clone(), v.clone(), vmax.clone()
    _optim.adam_(
        [p], [g], [m], [v], [vmax] if o["amsgrad"] else [], [_step(step)], **o
    )  # fmt: skip
    return p, m, v


def _np_adam(p, g, m, v, vmax, step, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize,
             decoupled=False):  # fmt: skip
    t = step + 1  # the update adds 1 to the step count first
    g = -g if maximize else g
    if decoupled:
        p = p * (1 - lr * weight_decay)
    elif weight_decay:
        g = g + weight_decay * p
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    second = np.maximum(vmax, v) if amsgrad else v
    denom = np.sqrt(second) / np.sqrt(1 - beta2**t) + eps
    return p - lr / (1 - beta1**t) * m / denom, m, v


def _adam_samples(dtype, rng):
    return [
        Sample((*_state(shape, dtype, rng, 5), step), options, desc=f"{shape} {options}")
        for shape in SHAPES
        for step, options in zip((0, 3, 7), ADAM_OPTIONS)
    ]


# ---- SGD --------------------------------------------------------------------------------------

SGD_OPTIONS = [
    dict(lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False),
    dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=False, maximize=True),
    dict(lr=0.05, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=True, maximize=False),
]


def _sgd(p, g, buf, **o):
    p = p.clone()
    bufs = [buf.clone()] if o["momentum"] else []
    out = _optim.sgd_([p], [g], bufs, **o)
    return (p, out[0]) if o["momentum"] else p


def _np_sgd(p, g, buf, lr, momentum, dampening, weight_decay, nesterov, maximize):
    d = -g if maximize else g
    if weight_decay:
        d = d + weight_decay * p
    if not momentum:
        return p - lr * d
    buf = momentum * buf + (1 - dampening) * d
    d = d + momentum * buf if nesterov else buf
    return p - lr * d, buf


def _sgd_samples(dtype, rng):
    return [
        Sample(tuple(_state(shape, dtype, rng, 3)), options, desc=f"{shape} {options}")
        for shape in SHAPES
        for options in SGD_OPTIONS
    ]


# ---- RMSprop ----------------------------------------------------------------------------------

RMSPROP_OPTIONS = [
    dict(
        lr=0.01,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0.0,
        momentum=0.0,
        centered=False,
        maximize=False,
    ),  # fmt: skip
    dict(
        lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1, momentum=0.5, centered=True, maximize=True
    ),  # fmt: skip
]


def _rmsprop(p, g, sq, ga, buf, step, **o):
    p, sq, ga, buf = p.clone(), sq.clone(), ga.clone(), buf.clone()
    _optim.rmsprop_(
        [p],
        [g],
        [sq],
        [ga] if o["centered"] else [],
        [buf] if o["momentum"] else [],
        [_step(step)],
        **o,
    )
    return p, sq


def _np_rmsprop(p, g, sq, ga, buf, step, lr, alpha, eps, weight_decay, momentum, centered,
                maximize):  # fmt: skip
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    sq = alpha * sq + (1 - alpha) * g * g
    if centered:
        ga = alpha * ga + (1 - alpha) * g
        avg = np.sqrt(sq - ga * ga) + eps
    else:
        avg = np.sqrt(sq) + eps
    if momentum:
        buf = momentum * buf + g / avg
        return p - lr * buf, sq
    return p - lr * g / avg, sq


def _rmsprop_samples(dtype, rng):
    samples = []
    for shape in SHAPES:
        for options in RMSPROP_OPTIONS:
            p, g, sq, buf = _state(shape, dtype, rng, 4)
            # The centred variance sq - ga^2 must stay positive: ga small beside sq.
            ga = np.asarray(0.1 * make_array(shape, dtype, rng, low=-1.0, high=1.0))
            samples.append(
                Sample((p, g, np.asarray(sq + 1.0), ga, buf, 2), options, desc=f"{shape}")
            )
    return samples


# ---- Adagrad ----------------------------------------------------------------------------------

ADAGRAD_OPTIONS = [
    dict(lr=0.1, lr_decay=0.0, weight_decay=0.0, eps=1e-10, maximize=False),
    dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, eps=1e-6, maximize=True),
]


def _adagrad(p, g, sums, step, **o):
    p, sums = p.clone(), sums.clone()
    _optim.adagrad_([p], [g], [sums], [_step(step)], **o)
    return p, sums


def _np_adagrad(p, g, sums, step, lr, lr_decay, weight_decay, eps, maximize):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    clr = lr / (1 + step * lr_decay)  # step + 1 after the update's increment, minus 1
    sums = sums + g * g
    return p - clr * g / (np.sqrt(sums) + eps), sums


def _adagrad_samples(dtype, rng):
    return [
        Sample((*_state(shape, dtype, rng, 3), 4), options, desc=f"{shape} {options}")
        for shape in SHAPES
        for options in ADAGRAD_OPTIONS
    ]


# ---- Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop -----------------------------------------------


def _scalar(value, like):
    """A per-parameter scalar state tensor (NAdam's mu_product, ASGD's eta and mu): float64 for
    float64 parameters, float32 otherwise, as the optimizers make them."""
    return ember.tensor(
        value, dtype=ember.float64 if like.dtype == ember.float64 else ember.float32
    )


ADADELTA_OPTIONS = [
    dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False),
    dict(lr=0.5, rho=0.7, eps=1e-4, weight_decay=0.1, maximize=True),
]


def _adadelta(p, g, sq, acc, **o):
    p, sq, acc = p.clone(), sq.clone(), acc.clone()
    _optim.adadelta_([p], [g], [sq], [acc], [_step(0)], **o)
    return p, sq, acc


def _np_adadelta(p, g, sq, acc, lr, rho, eps, weight_decay, maximize):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    sq = rho * sq + (1 - rho) * g * g
    delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
    acc = rho * acc + (1 - rho) * delta * delta
    return p - lr * delta, sq, acc


ADAMAX_OPTIONS = [
    dict(lr=2e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, maximize=False),
    dict(lr=0.1, beta1=0.5, beta2=0.8, eps=1e-6, weight_decay=0.2, maximize=True),
]


def _adamax(p, g, m, u, step, **o):
    p, m, u = p.clone(), m.clone(), u.clone()
    _optim.adamax_([p], [g], [m], [u], [_step(step)], **o)
    return p, m, u


def _np_adamax(p, g, m, u, step, lr, beta1, beta2, eps, weight_decay, maximize):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    m = beta1 * m + (1 - beta1) * g
    u = np.maximum(beta2 * u, np.abs(g) + eps)
    return p - lr / (1 - beta1 ** (step + 1)) * m / u, m, u


NADAM_OPTIONS = [
    dict(
        lr=2e-3,
        beta1=0.9,
        beta2=0.999,
        eps=1e-8,
        weight_decay=0.0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        maximize=False,
    ),  # fmt: skip
    dict(
        lr=0.1,
        beta1=0.8,
        beta2=0.99,
        eps=1e-6,
        weight_decay=0.1,
        momentum_decay=0.1,
        decoupled_weight_decay=False,
        maximize=True,
    ),  # fmt: skip
    dict(
        lr=0.1,
        beta1=0.9,
        beta2=0.999,
        eps=1e-8,
        weight_decay=0.1,
        momentum_decay=4e-3,
        decoupled_weight_decay=True,
        maximize=False,
    ),  # fmt: skip
]


def _nadam(p, g, m, v, mu_product, step, **o):
    p, m, v = p.clone(), m.clone(), v.clone()
    _optim.nadam_([p], [g], [m], [v], [_scalar(mu_product, p)], [_step(step)], **o)
    return p, m, v


def _np_nadam(p, g, m, v, mu_product, step, lr, beta1, beta2, eps, weight_decay, momentum_decay,
              decoupled_weight_decay, maximize):  # fmt: skip
    t = step + 1
    g = -g if maximize else g
    if decoupled_weight_decay:
        p = p * (1 - lr * weight_decay)
    elif weight_decay:
        g = g + weight_decay * p
    mu = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_next = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
    prod = mu_product * mu
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    denom = np.sqrt(v / (1 - beta2**t)) + eps
    p = p - lr * (1 - mu) / (1 - prod) * g / denom
    return p - lr * mu_next / (1 - prod * mu_next) * m / denom, m, v


RADAM_OPTIONS = [
    dict(
        lr=1e-3,
        beta1=0.9,
        beta2=0.999,
        eps=1e-8,
        weight_decay=0.0,
        decoupled_weight_decay=False,
        maximize=False,
    ),  # fmt: skip
    dict(
        lr=0.1,
        beta1=0.5,
        beta2=0.6,
        eps=1e-6,
        weight_decay=0.1,
        decoupled_weight_decay=True,
        maximize=True,
    ),  # fmt: skip
]


def _radam(p, g, m, v, step, **o):
    p, m, v = p.clone(), m.clone(), v.clone()
    _optim.radam_([p], [g], [m], [v], [_step(step)], **o)
    return p, m, v


def _np_radam(p, g, m, v, step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay,
              maximize):  # fmt: skip
    t = step + 1
    g = -g if maximize else g
    if decoupled_weight_decay:
        p = p * (1 - lr * weight_decay)
    elif weight_decay:
        g = g + weight_decay * p
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    corrected = m / (1 - beta1**t)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * t * beta2**t / (1 - beta2**t)
    if rho_t > 5:
        rect = np.sqrt(
            (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
        )
        adaptive = np.sqrt(1 - beta2**t) / (np.sqrt(v) + eps)
        return p - corrected * lr * adaptive * rect, m, v
    return p - corrected * lr, m, v


ASGD_OPTIONS = [
    dict(lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False),
    dict(lr=0.2, lambd=0.1, alpha=0.5, t0=1.0, weight_decay=0.1, maximize=True),
]


def _asgd(p, g, ax, eta, mu, step, **o):
    p, ax = p.clone(), ax.clone()
    _optim.asgd_([p], [g], [ax], [_scalar(eta, p)], [_scalar(mu, p)], [_step(step)], **o)
    return p, ax


def _np_asgd(p, g, ax, eta, mu, step, lr, lambd, alpha, t0, weight_decay, maximize):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    p = p * (1 - lambd * eta) - eta * g
    return p, (ax + (p - ax) * mu if mu != 1 else p)


RPROP_OPTIONS = [
    dict(etaminus=0.5, etaplus=1.2, step_size_min=1e-6, step_size_max=50.0, maximize=False),
    dict(etaminus=0.3, etaplus=1.5, step_size_min=1e-3, step_size_max=0.2, maximize=True),
]


def _rprop(p, g, prev, size, **o):
    p, prev, size = p.clone(), prev.clone(), size.clone()
    _optim.rprop_([p], [g], [prev], [size], [_step(0)], **o)
    return p, prev, size


def _np_rprop(p, g, prev, size, etaminus, etaplus, step_size_min, step_size_max, maximize):
    g = -g if maximize else g
    s = np.sign(g * prev)
    size = np.clip(size * np.where(s > 0, etaplus, np.where(s < 0, etaminus, 1.0)),
                   step_size_min, step_size_max)  # fmt: skip
    g = np.where(s < 0, 0.0, g)
    return p - np.sign(g) * size, g, size


def _samples(n_state, options, extra=lambda i: ()):
    """One sample per shape and option set: a parameter, its gradient, n_state state arrays,
    then extra(i) (plain values: step counts, scalar state)."""

    def make(dtype, rng):
        return [
            Sample((*_state(shape, dtype, rng, 2 + n_state), *extra(i)), o, desc=f"{shape} {o}")
            for shape in SHAPES
            for i, o in enumerate(options)
        ]

    return make


def _rprop_samples(dtype, rng):
    out = []
    for shape in SHAPES:
        for o in RPROP_OPTIONS:
            p, g, size = _state(shape, dtype, rng, 3)
            prev = make_array(shape, dtype, rng)  # both signs: growing and shrinking steps
            out.append(Sample((p, g, prev, size), o, desc=f"{shape} {o}"))
    return out


def _errors():
    p, g = ember.zeros(3), ember.zeros(3)
    o = ADAM_OPTIONS[0]
    return [
        ErrorSample(
            lambda: _optim.adam_([p], [g], [ember.zeros(2)], [ember.zeros(3)], [], [_step(0)], **o),
            RuntimeError,
            "[fused_adam_] exp_avgs[0] has shape [2] but its param has shape [3]",
        ),
        ErrorSample(
            lambda: _optim.adam_([p], [g], [], [], [], [_step(0)], **o),
            ValueError,
            "[fused_adam_] expected 1 exp_avgs (one per param), got 0",
        ),
        ErrorSample(
            lambda: _optim.sgd_([p], [g.double()], [], **SGD_OPTIONS[0]),
            TypeError,
            "[fused_sgd_] grads[0] has dtype float64 but its param has dtype float32",
        ),
        ErrorSample(
            lambda: _optim.adagrad_(
                [p], [g], [ember.zeros(3)], [_step(0), _step(0)], **ADAGRAD_OPTIONS[0]
            ),  # fmt: skip
            ValueError,
            "[fused_adagrad_] expected one state_steps tensor per param (1)",
        ),
    ]


def records():
    return [
        OpSpec(
            "_optim.adam_", _adam, _np_adam, FLOATING, _adam_samples, grad=False, errors=_errors
        ),  # fmt: skip
        OpSpec("_optim.sgd_", _sgd, _np_sgd, FLOATING, _sgd_samples, grad=False),
        OpSpec("_optim.rmsprop_", _rmsprop, _np_rmsprop, FLOATING, _rmsprop_samples, grad=False),
        OpSpec("_optim.adagrad_", _adagrad, _np_adagrad, FLOATING, _adagrad_samples, grad=False),
        OpSpec(
            "_optim.adadelta_",
            _adadelta,
            _np_adadelta,
            FLOATING,
            _samples(2, ADADELTA_OPTIONS),
            grad=False,
        ),  # fmt: skip
        OpSpec(
            "_optim.adamax_",
            _adamax,
            _np_adamax,
            FLOATING,
            _samples(2, ADAMAX_OPTIONS, lambda i: (3 * i,)),
            grad=False,
        ),  # fmt: skip
        OpSpec(
            "_optim.nadam_",
            _nadam,
            _np_nadam,
            FLOATING,
            _samples(2, NADAM_OPTIONS, lambda i: (0.9**i, 2 * i)),
            grad=False,
        ),  # fmt: skip
        # Steps 1 and 11: below and above RAdam's rectification threshold (rho_t > 5).
        OpSpec(
            "_optim.radam_",
            _radam,
            _np_radam,
            FLOATING,
            _samples(2, RADAM_OPTIONS, lambda i: (10 * i,)),
            grad=False,
        ),  # fmt: skip
        OpSpec(
            "_optim.asgd_",
            _asgd,
            _np_asgd,
            FLOATING,
            _samples(1, ASGD_OPTIONS, lambda i: ((0.01, 0.05)[i], (1.0, 0.5)[i], 4)),
            grad=False,
        ),  # fmt: skip
        OpSpec("_optim.rprop_", _rprop, _np_rprop, FLOATING, _rprop_samples, grad=False),
    ]
