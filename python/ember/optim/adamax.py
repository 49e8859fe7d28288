"""optim: Adamax (Adam with the infinity norm; Kingma and Ba, 2015), as torch.optim.Adamax."""

from typing import Any

from ember.optim._fused import (
    _check,
    _check_betas,
    _FusedOptimizer,
    _lists,
    _new_step_state,
    _zeros,
)
from ember.optim.optimizer import _optim, _to_float

__all__ = ["Adamax"]


class Adamax(_FusedOptimizer):
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

    def _fused_step(self, params, grads, states, group):
        beta1, beta2 = group["betas"]
        exp_avgs, exp_infs, steps = _lists(states, "exp_avg", "exp_inf", "step")
        _optim.adamax_(
            params,
            grads,
            exp_avgs,
            exp_infs,
            steps,
            lr=_to_float(group["lr"]),
            beta1=float(beta1),
            beta2=float(beta2),
            eps=float(group["eps"]),
            weight_decay=float(group["weight_decay"]),
            maximize=bool(group["maximize"]),
        )
