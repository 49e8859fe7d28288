"""optim: SGD (momentum, dampening, nesterov, weight decay, maximize), one fused C++ call per
parameter group and step."""

from typing import Any

import ember
from ember.optim.optimizer import Optimizer, _check_lr, _check_not_differentiable, _optim, _to_float

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (torch.optim.SGD)."""

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_not_differentiable("SGD", differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure: Any = None) -> Any:
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = self._closure_loss(closure)
        with ember.no_grad():
            for group in self.param_groups:
                params, grads = self._params_with_grad(group)
                if not params:
                    continue
                momentum = float(group["momentum"])
                bufs = [self.state[p].get("momentum_buffer") for p in params] if momentum else []
                bufs = _optim.sgd_(
                    params,
                    grads,
                    bufs,
                    lr=_to_float(group["lr"]),
                    momentum=momentum,
                    dampening=float(group["dampening"]),
                    weight_decay=_to_float(group["weight_decay"]),
                    nesterov=bool(group["nesterov"]),
                    maximize=bool(group["maximize"]),
                )
                for p, buf in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = buf
        return loss
