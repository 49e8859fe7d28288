"""optim: Rprop (resilient backpropagation; Riedmiller and Braun, 1993), as torch.optim.Rprop:
a per-element step size that grows while the gradient keeps its sign and shrinks when it flips."""

from typing import Any

import ember
from ember.optim._single import _new_step_state, _SingleTensorOptimizer, _zeros

__all__ = ["Rprop"]


class Rprop(_SingleTensorOptimizer):
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
            "step_size": ember.full_like(p, float(group["lr"])),
        }

    def _update(self, p, grad, state, group):
        etaminus, etaplus = group["etas"]
        step_min, step_max = group["step_sizes"]
        state["step"] += 1
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev).sign()
        factor = ember.ones_like(step_size).masked_fill_(sign > 0, etaplus)
        step_size.mul_(factor.masked_fill_(sign < 0, etaminus)).clamp_(step_min, step_max)
        # Where the sign flipped, no step this time and no memory of the gradient.
        grad = ember.where(sign < 0, ember.zeros_like(grad), grad)
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
