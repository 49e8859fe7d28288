"""optim: Adam (and AdamW through decoupled_weight_decay), one fused C++ call per parameter group
and step."""

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

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam with bias correction, amsgrad and maximize (torch.optim.Adam)."""

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_lr(lr)
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_not_differentiable(type(self).__name__, differentiable)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        betas = (_to_float(betas[0]), _to_float(betas[1]))
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
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
                amsgrad = bool(group["amsgrad"])
                exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = _new_step()
                        state["exp_avg"] = ember.zeros_like(p)
                        state["exp_avg_sq"] = ember.zeros_like(p)
                        if amsgrad:
                            state["max_exp_avg_sq"] = ember.zeros_like(p)
                    exp_avgs.append(state["exp_avg"])
                    exp_avg_sqs.append(state["exp_avg_sq"])
                    if amsgrad:
                        if "max_exp_avg_sq" not in state:  # amsgrad switched on later
                            state["max_exp_avg_sq"] = ember.zeros_like(p)
                        max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                    steps.append(state["step"])
                beta1, beta2 = group["betas"]
                _optim.adam_(
                    params,
                    grads,
                    exp_avgs,
                    exp_avg_sqs,
                    max_exp_avg_sqs,
                    steps,
                    lr=_to_float(group["lr"]),
                    beta1=_to_float(beta1),
                    beta2=_to_float(beta2),
                    weight_decay=_to_float(group["weight_decay"]),
                    eps=float(group["eps"]),
                    amsgrad=amsgrad,
                    maximize=bool(group["maximize"]),
                    decoupled=bool(group.get("decoupled_weight_decay", False)),
                )
        return loss
