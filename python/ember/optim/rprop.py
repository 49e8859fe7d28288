"""optim: Rprop (resilient backpropagation; Riedmiller and Braun, 1993), as torch.optim.Rprop:
a per-element step size that grows while the gradient keeps its sign and shrinks when it flips."""

from typing import Any

import ember
from ember.optim._fused import _FusedOptimizer, _lists, _new_step_state, _zeros
from ember.optim.optimizer import _optim

__all__ = ["Rprop"]


class Rprop(_FusedOptimizer):
    _name = "Rprop"

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        etas: tuple = (0.5, 1.2),
        step_sizes: tuple = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(
            params,
            lr,
            {
                "etas": etas,
                "step_sizes": step_sizes,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def _init_state(self, p, group):
        return {
            **_new_step_state(),
            "prev": _zeros(p),
            # both parts of a complex parameter start at lr (PyTorch's)
            "step_size": ember.full_like(
                p, complex(group["lr"], group["lr"]) if p.is_complex() else float(group["lr"])
            ),
        }

    def _fused_step(self, params, grads, states, group):
        etaminus, etaplus = group["etas"]
        step_min, step_max = group["step_sizes"]
        prevs, step_sizes, steps = _lists(states, "prev", "step_size", "step")
        _optim.rprop_(
            params,
            grads,
            prevs,
            step_sizes,
            steps,
            etaminus=float(etaminus),
            etaplus=float(etaplus),
            step_size_min=float(step_min),
            step_size_max=float(step_max),
            maximize=bool(group["maximize"]),
        )
