"""optim: NAdam (Adam with Nesterov momentum; Dozat, 2016), as torch.optim.NAdam, with its
momentum decay and the decoupled weight decay option."""

from typing import Any

import ember
from ember.optim._single import (
    _check,
    _check_betas,
    _new_step_state,
    _SingleTensorOptimizer,
    _zeros,
)

__all__ = ["NAdam"]


class NAdam(_SingleTensorOptimizer):
    _name = "NAdam"

    def __init__(
        self,
        params: Any,
        lr: Any = 2e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check("epsilon", eps, eps >= 0.0)
        _check_betas(betas)
        _check("weight_decay", weight_decay, weight_decay >= 0.0)
        _check("momentum_decay", momentum_decay, momentum_decay >= 0.0)
        super().__init__(
            params,
            lr,
            {
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "momentum_decay": momentum_decay,
                "decoupled_weight_decay": decoupled_weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "capturable": capturable,
                "differentiable": differentiable,
            },
        )

    def _init_state(self, p, group):
        dtype = ember.float64 if p.dtype == ember.float64 else ember.float32
        return {
            **_new_step_state(),
            "mu_product": ember.ones((), dtype=dtype),
            "exp_avg": _zeros(p),
            "exp_avg_sq": _zeros(p),
        }

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, wd, decay = float(group["lr"]), group["weight_decay"], group["momentum_decay"]
        state["step"] += 1
        step = float(state["step"].item())
        bias_correction2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        state["mu_product"] *= mu
        mu_product = float(state["mu_product"].item())
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(group["eps"])
        p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product * mu_next))
