"""optim: ASGD (averaged SGD; Polyak and Juditsky, 1992), as torch.optim.ASGD: the parameter
follows SGD with a decaying step `eta`, and state["ax"] holds its running average."""

from typing import Any

import ember
from ember.optim._single import _check, _new_step_state, _SingleTensorOptimizer, _zeros

__all__ = ["ASGD"]


class ASGD(_SingleTensorOptimizer):
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

    def _update(self, p, grad, state, group):
        lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        state["step"] += 1
        step = float(state["step"].item())
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        eta = float(state["eta"].item())
        p.mul_(1 - lambd * eta)
        p.add_(grad, alpha=-eta)
        mu = float(state["mu"].item())
        if mu != 1:
            state["ax"].add_(p.sub(state["ax"]).mul_(mu))
        else:
            state["ax"].copy_(p)
        state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
        state["mu"].fill_(1 / max(1, step - t0))
