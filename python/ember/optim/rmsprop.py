"""optim: RMSprop (alpha, eps, momentum, centered, weight decay, maximize), one fused C++ call per
parameter group and step."""

from typing import Any

import ember
from ember.optim.optimizer import (
    Optimizer,
    _check_lr,
    _check_not_differentiable,
    _new_step,
    _optim,
    _to_float,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (torch.optim.RMSprop)."""

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_not_differentiable("RMSprop", differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
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
                centered = bool(group["centered"])
                square_avgs, grad_avgs, bufs, steps = [], [], [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = _new_step()
                        state["square_avg"] = ember.zeros_like(p)
                        if momentum > 0:
                            state["momentum_buffer"] = ember.zeros_like(p)
                        if centered:
                            state["grad_avg"] = ember.zeros_like(p)
                    square_avgs.append(state["square_avg"])
                    if momentum > 0:
                        bufs.append(state.setdefault("momentum_buffer", ember.zeros_like(p)))
                    if centered:
                        grad_avgs.append(state.setdefault("grad_avg", ember.zeros_like(p)))
                    steps.append(state["step"])
                _optim.rmsprop_(
                    params,
                    grads,
                    square_avgs,
                    grad_avgs,
                    bufs,
                    steps,
                    lr=_to_float(group["lr"]),
                    alpha=float(group["alpha"]),
                    eps=float(group["eps"]),
                    weight_decay=float(group["weight_decay"]),
                    momentum=momentum,
                    centered=centered,
                    maximize=bool(group["maximize"]),
                )
        return loss
