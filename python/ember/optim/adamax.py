"""optim: Adamax (Adam with the infinity norm; Kingma and Ba, 2015), as torch.optim.Adamax."""

from typing import Any

import ember
from ember.optim._single import (
    _check,
    _check_betas,
    _new_step_state,
    _SingleTensorOptimizer,
    _zeros,
)

__all__ = ["Adamax"]


class Adamax(_SingleTensorOptimizer):
    _name = "Adamax"

    def __init__(
        self,
        params: Any,
        lr: Any = 2e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
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
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def _init_state(self, p, group):
        return {**_new_step_state(), "exp_avg": _zeros(p), "exp_inf": _zeros(p)}

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        state["step"] += 1
        step = float(state["step"].item())
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        # exp_inf = max(beta2 * exp_inf, |grad| + eps), elementwise
        exp_inf.copy_(ember.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
        clr = float(group["lr"]) / (1 - beta1**step)
        p.addcdiv_(exp_avg, exp_inf, value=-clr)
