"""optim: ASGD (averaged SGD; Polyak and Juditsky, 1992), as torch.optim.ASGD: the parameter
follows SGD with a decaying step `eta`, and state["ax"] holds its running average."""

from typing import Any

import ember
from ember.optim._fused import _check, _FusedOptimizer, _lists, _new_step_state, _zeros
from ember.optim.optimizer import _optim, _to_float

__all__ = ["ASGD"]


class ASGD(_FusedOptimizer):
    _name = "ASGD"

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check("weight_decay", weight_decay, weight_decay >= 0.0)
        super().__init__(
            params,
            lr,
            {
                "lambd": lambd,
                "alpha": alpha,
                "t0": t0,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def _init_state(self, p, group):
        dtype = ember.float64 if p.dtype == ember.float64 else ember.float32
        return {
            **_new_step_state(),
            "eta": ember.tensor(float(group["lr"]), dtype=dtype),
            "mu": ember.ones((), dtype=dtype),
            "ax": _zeros(p),
        }

    def _fused_step(self, params, grads, states, group):
        axs, etas, mus, steps = _lists(states, "ax", "eta", "mu", "step")
        _optim.asgd_(
            params,
            grads,
            axs,
            etas,
            mus,
            steps,
            lr=_to_float(group["lr"]),
            lambd=float(group["lambd"]),
            alpha=float(group["alpha"]),
            t0=float(group["t0"]),
            weight_decay=float(group["weight_decay"]),
            maximize=bool(group["maximize"]),
        )
