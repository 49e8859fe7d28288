"""optim: Adagrad (lr_decay, initial_accumulator_value, eps, weight decay, maximize), one fused
C++ call per parameter group and step."""

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

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (torch.optim.Adagrad); like PyTorch, its state is created in the constructor."""

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_lr(lr)
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_not_differentiable("Adagrad", differentiable)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _new_step()
                state["sum"] = ember.full_like(p, _initial(p, group["initial_accumulator_value"]))

    def step(self, closure: Any = None) -> Any:
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = self._closure_loss(closure)
        with ember.no_grad():
            for group in self.param_groups:
                params, grads = self._params_with_grad(group)
                if not params:
                    continue
                sums, steps = [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:  # a group added after construction
                        state["step"] = _new_step()
                        state["sum"] = ember.full_like(
                            p, _initial(p, group["initial_accumulator_value"])
                        )
                    sums.append(state["sum"])
                    steps.append(state["step"])
                _optim.adagrad_(
                    params,
                    grads,
                    sums,
                    steps,
                    lr=_to_float(group["lr"]),
                    lr_decay=float(group["lr_decay"]),
                    weight_decay=float(group["weight_decay"]),
                    eps=float(group["eps"]),
                    maximize=bool(group["maximize"]),
                )
        return loss


def _initial(p, value):
    """A complex parameter's accumulator starts at value in both parts (PyTorch's)."""
    return complex(value, value) if p.is_complex() else value
