"""optim: RAdam (rectified Adam; Liu et al., 2019), as torch.optim.RAdam."""

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

__all__ = ["RAdam"]


class RAdam(_FusedOptimizer):
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

    def _fused_step(self, params, grads, states, group):
        beta1, beta2 = group["betas"]
        exp_avgs, exp_avg_sqs, steps = _lists(states, "exp_avg", "exp_avg_sq", "step")
        _optim.radam_(
            params,
            grads,
            exp_avgs,
            exp_avg_sqs,
            steps,
            lr=_to_float(group["lr"]),
            beta1=float(beta1),
            beta2=float(beta2),
            eps=float(group["eps"]),
            weight_decay=float(group["weight_decay"]),
            decoupled_weight_decay=bool(group["decoupled_weight_decay"]),
            maximize=bool(group["maximize"]),
        )
