"""optim: NAdam (Adam with Nesterov momentum; Dozat, 2016), as torch.optim.NAdam, with its
momentum decay and the decoupled weight decay option."""

from typing import Any

import ember
from ember.optim._fused import (
    _check,
    _check_betas,
    _FusedOptimizer,
    _lists,
    _new_step_state,
    _zeros,
)
from ember.optim.optimizer import _optim, _to_float

__all__ = ["NAdam"]


class NAdam(_FusedOptimizer):
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

    def _fused_step(self, params, grads, states, group):
        beta1, beta2 = group["betas"]
        exp_avgs, exp_avg_sqs, mu_products, steps = _lists(
            states, "exp_avg", "exp_avg_sq", "mu_product", "step"
        )
        _optim.nadam_(
            params,
            grads,
            exp_avgs,
            exp_avg_sqs,
            mu_products,
            steps,
            lr=_to_float(group["lr"]),
            beta1=float(beta1),
            beta2=float(beta2),
            eps=float(group["eps"]),
            weight_decay=float(group["weight_decay"]),
            momentum_decay=float(group["momentum_decay"]),
            decoupled_weight_decay=bool(group["decoupled_weight_decay"]),
            maximize=bool(group["maximize"]),
        )
