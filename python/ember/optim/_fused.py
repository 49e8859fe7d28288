"""The shared frame of Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop: per group, the parameters
with a gradient, their state made on first use (as PyTorch's optimizers make it), and one fused
C++ update of the whole group (ember._C._optim, ops/optim.cpp), like Adam's and SGD's."""

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


class _FusedOptimizer(Optimizer):
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

    def _fused_step(
        self, params: list[Any], grads: list[Any], states: list[dict[str, Any]], group: dict
    ) -> None:
        raise NotImplementedError

    def step(self, closure: Any = None) -> Any:
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = self._closure_loss(closure)
        with ember.no_grad():
            for group in self.param_groups:
                params, grads = self._params_with_grad(group)
                if not params:
                    continue
                states = []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state.update(self._init_state(p, group))
                    states.append(state)
                self._fused_step(params, grads, states, group)
        return loss


def _zeros(p: Any) -> Any:
    return ember.zeros_like(p)


def _new_step_state() -> dict[str, Any]:
    return {"step": _new_step()}


def _lists(states: list[dict[str, Any]], *keys: str) -> list[list[Any]]:
    """Per key, the list of that state entry over the parameters."""
    return [[s[k] for s in states] for k in keys]
