"""optim: Adadelta (Zeiler, 2012), as torch.optim.Adadelta."""

from typing import Any

from ember.optim._single import _check, _new_step_state, _SingleTensorOptimizer, _zeros

__all__ = ["Adadelta"]


class Adadelta(_SingleTensorOptimizer):
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

    def _update(self, p, grad, state, group):
        rho, eps, lr = group["rho"], group["eps"], float(group["lr"])
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-lr)
