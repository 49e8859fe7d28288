"""optim: RAdam (rectified Adam; Liu et al., 2019), as torch.optim.RAdam."""

import math
from typing import Any

from ember.optim._single import (
    _check,
    _check_betas,
    _new_step_state,
    _SingleTensorOptimizer,
    _zeros,
)

__all__ = ["RAdam"]


class RAdam(_SingleTensorOptimizer):
    _name = "RAdam"

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
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
        super().__init__(
            params,
            lr,
            {
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "decoupled_weight_decay": decoupled_weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "capturable": capturable,
                "differentiable": differentiable,
            },
        )

    def _init_state(self, p, group):
        return {**_new_step_state(), "exp_avg": _zeros(p), "exp_avg_sq": _zeros(p)}

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, wd = float(group["lr"]), group["weight_decay"]
        state["step"] += 1
        step = float(state["step"].item())
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / bias_correction1
        # The length of the approximated simple moving average; the variance is tractable (and
        # the adaptive step used) only when it exceeds 5.
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            adaptive = exp_avg_sq.sqrt().add_(group["eps"]).reciprocal_()
            adaptive.mul_(math.sqrt(bias_correction2))
            p.add_(corrected * adaptive, alpha=-lr * rect)
        else:
            p.add_(corrected, alpha=-lr)
