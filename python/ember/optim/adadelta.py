"""optim: Adadelta (Zeiler, 2012), as torch.optim.Adadelta."""

from typing import Any

from ember.optim._fused import _check, _FusedOptimizer, _lists, _new_step_state, _zeros
from ember.optim.optimizer import _optim, _to_float

__all__ = ["Adadelta"]


class Adadelta(_FusedOptimizer):
    _name = "Adadelta"

    def __init__(
        self,
        params: Any,
        lr: Any = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check("rho", rho, 0.0 <= rho <= 1.0)
        _check("epsilon", eps, eps >= 0.0)
        _check("weight_decay", weight_decay, weight_decay >= 0.0)
        super().__init__(
            params,
            lr,
            {
                "rho": rho,
                "eps": eps,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "capturable": capturable,
                "maximize": maximize,
                "differentiable": differentiable,
            },
        )

    def _init_state(self, p, group):
        return {**_new_step_state(), "square_avg": _zeros(p), "acc_delta": _zeros(p)}

    def _fused_step(self, params, grads, states, group):
        square_avgs, acc_deltas, steps = _lists(states, "square_avg", "acc_delta", "step")
        _optim.adadelta_(
            params,
            grads,
            square_avgs,
            acc_deltas,
            steps,
            lr=_to_float(group["lr"]),
            rho=float(group["rho"]),
            eps=float(group["eps"]),
            weight_decay=float(group["weight_decay"]),
            maximize=bool(group["maximize"]),
        )
