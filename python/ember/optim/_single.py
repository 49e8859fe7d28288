"""The shared frame of the optimizers whose update is written with tensor ops in Python
(Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop): per group, per parameter with a gradient, the
state made on first use and one call of the class's `_update`, as PyTorch's single-tensor
("for-loop") implementations do. They have no fused C++ kernel yet (docs/design/optim.md)."""

from typing import Any

import ember
from ember.optim.optimizer import Optimizer, _check_lr, _check_not_differentiable, _new_step


def _check(name: str, value: Any, ok: bool) -> None:
    if not ok:
        raise ValueError(f"Invalid {name} value: {value}")


def _check_betas(betas: Any) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


class _SingleTensorOptimizer(Optimizer):
    _name = ""

    def __init__(self, params: Any, lr: Any, defaults: dict[str, Any]) -> None:
        _check_lr(lr)
        _check_not_differentiable(self._name, defaults.get("differentiable", False))
        defaults = dict(defaults, lr=lr)
        defaults.setdefault("foreach", None)
        defaults.setdefault("maximize", False)
        defaults.setdefault("differentiable", False)
        super().__init__(params, defaults)

    def _init_state(self, p: Any, group: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _update(self, p: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    def step(self, closure: Any = None) -> Any:
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = self._closure_loss(closure)
        with ember.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state.update(self._init_state(p, group))
                    self._update(p, grad, state, group)
        return loss


def _zeros(p: Any) -> Any:
    return ember.zeros_like(p)


def _new_step_state() -> dict[str, Any]:
    return {"step": _new_step()}
